"""The MQ headers a WITH_DATA report keeps whole (IBM, "Reports and segmented messages":
copy "the IBM MQ headers at the start of the original message data", MQMDE, MQDLH, MQXQH,
MQIIH and every MQH* format, then 100 bytes of the application data). Before, the 100 bytes
were counted from the start, so a JMS message's report held part of its RFH2 and no body."""

from __future__ import annotations

import pytest

from mqjms.mq import MQDLH, C
from mqjms.mq.md import MQMD
from mqjms.mq.rfh2 import RFH2, build_chain
from mqjms.semantics.reports import COA, headers_length, report_message

BODY = b"b" * 300


@pytest.mark.parametrize("encoding", [C.MQENC_NATIVE, C.MQENC_NORMAL])
def test_a_dead_letter_header_then_an_rfh2_are_counted_in_the_encodings_they_are_in(
    encoding: int,
) -> None:
    rfh2 = RFH2(Encoding=C.MQENC_NATIVE, Format=C.MQFMT_STRING, folders=["<usr><a>1</a></usr>"])
    dlh = MQDLH(Encoding=C.MQENC_NORMAL, Format=C.MQFMT_RF_HEADER_2, DestQName="Q")
    data = dlh.pack(encoding) + build_chain([rfh2], BODY, C.MQENC_NORMAL)
    headers = len(data) - len(BODY)
    assert headers_length(data, C.MQFMT_DEAD_LETTER_HEADER, encoding) == headers
    assert headers_length(BODY, C.MQFMT_STRING, encoding) == 0


def test_a_header_that_cannot_be_whole_is_taken_for_data() -> None:
    rfh2 = build_chain([RFH2(Format=C.MQFMT_STRING)], b"", C.MQENC_NATIVE)
    assert headers_length(rfh2[:20], C.MQFMT_RF_HEADER_2, C.MQENC_NATIVE) == 0
    assert headers_length(rfh2 + BODY, C.MQFMT_RF_HEADER_2, C.MQENC_NATIVE) == len(rfh2)
    liar = bytearray(rfh2)
    liar[8:12] = (10**6).to_bytes(4, "little" if C.MQENC_NATIVE & 2 else "big")
    assert headers_length(bytes(liar), C.MQFMT_RF_HEADER_2, C.MQENC_NATIVE) == 0


def test_a_with_data_report_keeps_the_rfh2_and_100_bytes_of_the_body() -> None:
    rfh2 = RFH2(Format=C.MQFMT_STRING, folders=["<mcd><Msd>jms_text</Msd></mcd>"])
    data = build_chain([rfh2], BODY, C.MQENC_NATIVE)
    original = MQMD(
        Format=C.MQFMT_RF_HEADER_2,
        Report=C.MQRO_COA_WITH_DATA,
        ReplyToQ="R",
        Encoding=C.MQENC_NATIVE,
    )
    made = report_message(original, data, kind=COA, feedback=C.MQFB_COA)
    assert made is not None
    md, body = made
    assert md.Format == C.MQFMT_RF_HEADER_2
    assert body == data[: len(data) - len(BODY) + 100] and body.endswith(BODY[:100])
