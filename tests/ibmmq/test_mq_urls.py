"""mq:// URLs (mqjms.transport.ibmmq.config): what each form means, and what is refused."""

from __future__ import annotations

import pytest

from mqjms.transport.ibmmq import PASSWORD_VAR, parse


def test_a_client_url_names_queue_manager_host_port_and_channel() -> None:
    config = parse("mq://QM1@mqhost(1415)/DEV.APP.SVRCONN")
    assert (config.qmgr, config.hosts, config.channel) == (
        "QM1",
        (("mqhost", 1415),),
        "DEV.APP.SVRCONN",
    )
    assert config.client and config.connection_name == "mqhost(1415)"


def test_a_url_without_host_is_a_bindings_connection() -> None:
    config = parse("mq://QM1")
    assert config.qmgr == "QM1" and not config.client and config.hosts == ()


def test_several_hosts_make_a_connection_name_list_and_the_port_defaults_to_1414() -> None:
    config = parse("mq://QM1@host1(1414),host2/APP.SVRCONN")
    assert config.connection_name == "host1(1414),host2(1414)"


def test_a_ccdt_makes_a_client_connection_without_a_channel() -> None:
    config = parse("mq://QM1?ccdt=file:///var/mqm/AMQCLCHL.json")
    assert config.client and config.ccdt == "file:///var/mqm/AMQCLCHL.json"


def test_tls_settings() -> None:
    config = parse(
        "mq://QM1@h(1414)/TLS.SVRCONN?cipher=TLS_AES_256_GCM_SHA384&keyrepo=/var/mqm/key"
        "&certlabel=app&peername=CN=qm1"
    )
    assert (config.cipher, config.keyrepo, config.cert_label, config.peer_name) == (
        "TLS_AES_256_GCM_SHA384",
        "/var/mqm/key",
        "app",
        "CN=qm1",
    )


def test_the_password_comes_from_the_environment_and_stays_out_of_the_repr(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(PASSWORD_VAR, "s3cret-pw")
    for url in ("mq://QM1@h(1414)/CHL?user=app", "mq://app@QM1@h(1414)/CHL"):
        config = parse(url)
        assert (config.user, config.password) == ("app", "s3cret-pw")
        assert "s3cret-pw" not in repr(config)
    assert parse("mq://QM1@h(1414)/CHL").password is None  # no user: no MQCSP


@pytest.mark.parametrize(
    "url",
    [
        "mq://app:s3cret-pw@QM1@h(1414)/CHL",
        "mq://QM1@h(1414)/CHL?user=app&password=s3cret-pw",
        "mq://app:s3cret-pw",  # user:password where the queue manager goes: no '@'
        "mq://app:s3cret-pw/CHL",
        "mq://app:s3cret-pw%21",  # percent-encoded: the URL as given held no 's3cret-pw!'
    ],
)
def test_a_password_in_the_url_is_refused_without_showing_it(url: str) -> None:
    with pytest.raises(ValueError, match=PASSWORD_VAR) as err:
        parse(url)
    assert "s3cret-pw" not in str(err.value)


@pytest.mark.parametrize("param", ["pw", "pasword", "PWD_typo", "userpw"])
def test_an_unknown_parameter_is_named_without_its_value(param: str) -> None:
    # a fault probe: ?pw=s3cret-pw (a password under a name mqjms does not know) was
    # refused with the whole URL, password and all, in the error
    with pytest.raises(ValueError, match="unknown parameter") as err:
        parse(f"mq://QM1@h(1414)/CHL?{param}=s3cret-pw")
    assert param.lower() in str(err.value)
    assert "s3cret-pw" not in str(err.value)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mq://QM1@h(1414)", "names its channel"),
        ("mq://QM1?colour=blue", "unknown parameter"),
        ("mq://QM1?library=mqlight", "library="),
        ("mq://QM1?reconnect=sometimes", "reconnect="),
        ("mq://QM1@h(x)/CHL", "host(port)"),
        ("mq://mqhost:1414/CHL", "give the host and port after it: mq://QMGR@host(port)"),
    ],
)
def test_bad_urls_say_what_is_wrong(url: str, says: str) -> None:
    with pytest.raises(ValueError, match=r".*") as err:
        parse(url)
    assert says in str(err.value)


def test_reconnect_options() -> None:
    assert parse("mq://QM1?reconnect=yes").reconnect == "MQCNO_RECONNECT"
    assert parse("mq://QM1?reconnect=qmgr").reconnect == "MQCNO_RECONNECT_Q_MGR"
    assert parse("mq://QM1?reconnect=no").reconnect == "MQCNO_RECONNECT_DISABLED"
    assert parse("mq://QM1").reconnect == "MQCNO_RECONNECT_AS_DEF"
