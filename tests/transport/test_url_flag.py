"""True/false URL parameters read one way on every transport (``?group=``, ``?verify=``)."""

from __future__ import annotations

import pytest

from mqjms.transport.embedded import group_access
from mqjms.transport.stomp.config import parse_url
from mqjms.transport.url import url_flag


@pytest.mark.parametrize("word", ["1", "true", "YES", " on "])
def test_true_words(word: str) -> None:
    assert url_flag(word, "x") is True


@pytest.mark.parametrize("word", ["0", "False", "no", "off"])
def test_false_words(word: str) -> None:
    assert url_flag(word, "x") is False


def test_anything_else_names_the_parameter() -> None:
    with pytest.raises(ValueError, match=r"group='maybe': expected true or false"):
        group_access("embedded:///tmp/q?group=maybe")
    with pytest.raises(ValueError, match=r"verify='sometimes'"):
        parse_url("stomp://localhost:61613?verify=sometimes")
    assert group_access("embedded:///tmp/q?group=on") is True
    assert group_access("embedded:///tmp/q") is None


def test_an_embedded_url_with_a_user_and_password_is_refused_without_showing_it() -> None:
    # the user:password@ became part of the queue manager's directory name (and of the
    # path logged with qmgr.created)
    from mqjms.transport.url import embedded_path

    with pytest.raises(ValueError, match="takes no user or password") as caught:
        embedded_path("embedded://app:s3cr3t@/tmp/x/qm2")
    assert "s3cr3t" not in str(caught.value)
    assert str(embedded_path("embedded://rel/dir")[0]) == "rel/dir"  # a host-like dir: kept


def test_a_malformed_stomp_url_is_named_without_its_password() -> None:
    # urlsplit's bare "Invalid IPv6 URL" named neither the URL nor what was wrong
    with pytest.raises(ValueError, match=r"STOMP URL 'stomp://app:\*\*\*@\[::1/' is malformed"):
        parse_url("stomp://app:s3cr3t@[::1/")


def test_a_stomp_url_without_its_slashes_is_refused_not_sent_to_localhost() -> None:
    # stomp:user:pw@host:port parsed as a path: the user, host and port were dropped and
    # the connection went to the broker on 127.0.0.1:61613
    with pytest.raises(ValueError, match="must be followed by //") as caught:
        parse_url("stomp:app:s3cr3t@broker.example:61613")
    assert "s3cr3t" not in str(caught.value)
    assert parse_url("stomp://app@broker.example:61614").port == 61614


def test_an_unknown_embedded_url_parameter_is_named_not_ignored() -> None:
    from mqjms.transport.url import embedded_path

    with pytest.raises(ValueError, match="unknown embedded: URL parameter gruop") as caught:
        embedded_path("embedded:///tmp/q?gruop=true&password=s3cr3t")
    assert "s3cr3t" not in str(caught.value)
    assert embedded_path("embedded:///tmp/q?qmgr=QM1&group=false")[1] == "QM1"


def test_an_unknown_embedded_url_parameter_is_named_without_its_value() -> None:
    # a fault probe: ?pw=s3cr3t (a secret under a name not known as one) was echoed
    from mqjms.transport.url import embedded_path

    with pytest.raises(ValueError, match="unknown embedded: URL parameter pw") as caught:
        embedded_path("embedded:///tmp/q?pw=s3cr3t")
    assert "s3cr3t" not in str(caught.value)


@pytest.mark.parametrize("param", ["pw", "pasword", "PWD_typo"])
def test_an_unknown_broker_url_parameter_is_named_without_its_value(param: str) -> None:
    # a fault probe: stomp://h:61613?pw=s3cr3t (a secret under a name not known as one)
    # was echoed in the error that refused it; a pure parse, no broker
    with pytest.raises(ValueError, match="unknown parameter") as caught:
        parse_url(f"stomp://h:61613?{param}=s3cr3t&heartbeat=1000")
    assert param.lower() in str(caught.value).lower()
    assert "s3cr3t" not in str(caught.value)
    assert "heartbeat=1000" in str(caught.value)  # the known ones stay as written


def test_an_embedded_url_naming_another_queue_manager_is_2058(tmp_path) -> None:
    # ?qmgr= names the queue manager when it is made; naming another one was ignored in
    # silence (IBM MQ's MQCONN to a name that is not the queue manager's: 2058), and a
    # name MQ does not allow left a half-made queue manager behind
    from mqjms.mq import C, MQError
    from mqjms.transport import connect

    with pytest.raises(MQError) as bad:
        connect(f"embedded://{tmp_path / 'bad'}?qmgr=bad name!")
    assert bad.value.reason == C.MQRC_OBJECT_NAME_ERROR
    assert not (tmp_path / "bad").exists()
    connect(f"embedded://{tmp_path / 'qm'}?qmgr=QMA").disconnect()
    with pytest.raises(MQError) as other:
        connect(f"embedded://{tmp_path / 'qm'}?qmgr=OTHER")
    assert other.value.reason == C.MQRC_Q_MGR_NAME_ERROR
    assert "is 'QMA', not 'OTHER'" in str(other.value)
    connect(f"embedded://{tmp_path / 'qm'}?qmgr=QMA").disconnect()  # its own name
    connect(f"embedded://{tmp_path / 'qm'}").disconnect()  # or none


def test_a_blank_qmgr_in_an_embedded_url_is_the_default_name(tmp_path) -> None:
    # ?qmgr= from a template whose variable is unset: the default, as before (not 2152)
    from mqjms.transport import connect, embedded

    connect(f"embedded://{tmp_path / 'qm'}?qmgr=").disconnect()
    assert embedded.queue_manager(f"embedded://{tmp_path / 'qm'}?qmgr=").name
