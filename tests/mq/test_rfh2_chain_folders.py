"""``rfh2.chain_folders``, the listener's per-message walk of an RFH2 chain, gives exactly
what ``parse_chain(..., check_folders=False)`` gives, and fails exactly as it does: on
chains as a JMS producer writes them, and on those bytes cut, corrupted or re-encoded."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mqjms.mq import C, rfh2
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD
from tests.consumer.test_lazy_decoding import received_messages


def _outcome(call: Callable[[], object]) -> object:
    try:
        return call()
    except MQError as exc:
        return ("MQError", exc.reason, str(exc))
    except (ValueError, TypeError) as exc:
        return (type(exc).__name__, str(exc))


def _both(data: bytes, md: MQMD) -> tuple[object, object]:
    args = (data, md.Encoding, md.CodedCharSetId, md.Format)

    def walked() -> object:
        return tuple(rfh2.chain_folders(*args))

    def parsed() -> object:
        chain = rfh2.parse_chain(*args, False)
        return (chain.folders, chain.Encoding, chain.CodedCharSetId, chain.Format, chain.body)

    return _outcome(walked), _outcome(parsed)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(received=received_messages(), data=st.data())
def test_chain_folders_agrees_with_parse_chain(
    received: tuple[MQMD, bytes], data: st.DataObject
) -> None:
    md, raw = received
    mangle = data.draw(st.sampled_from(["none", "cut", "flip", "encoding"]))
    if mangle == "cut" and raw:
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    elif mangle == "flip" and raw:
        at = data.draw(st.integers(0, len(raw) - 1))
        raw = raw[:at] + bytes([data.draw(st.integers(0, 255))]) + raw[at + 1 :]
    elif mangle == "encoding":
        md.Encoding = data.draw(st.sampled_from([0, 1, 2, 3, C.MQENC_NATIVE, C.MQENC_NORMAL]))
    walked, parsed = _both(raw, md)
    assert walked == parsed
