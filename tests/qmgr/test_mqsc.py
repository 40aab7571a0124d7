"""MQSC on the embedded queue manager: runmqsc's syntax, every command, and its errors."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from mqjms.mq import constants as C
from mqjms.mq.md import MQMD
from mqjms.qmgr import QueueManager, mqsc
from mqjms.qmgr.mqsc import (
    CommandOutput,
    CommandResult,
    MQSCSyntaxError,
    format_attribute,
    iter_commands,
    parse_command,
    run_command,
    run_script,
    summary,
    tokenize,
)


def run(qm: QueueManager, script: str) -> list[CommandResult]:
    return list(run_script(qm, script))


def one(qm: QueueManager, command: str) -> CommandResult:
    [result] = run(qm, command)
    return result


def ok(qm: QueueManager, command: str) -> CommandResult:
    result = one(qm, command)
    assert result.ok, result.error
    return result


def reason(qm: QueueManager, command: str) -> int:
    result = one(qm, command)
    assert not result.ok and result.error is not None, f"{command} should fail"
    return result.error.reason


def display(qm: QueueManager, command: str) -> list[dict[str, int | str | bool]]:
    return ok(qm, command).objects


def put(qm: QueueManager, queue: str, body: bytes = b"x", **md: object) -> None:
    with qm.connect() as conn:
        conn.put(queue, MQMD(**md), body)  # type: ignore[arg-type]


# --- the script reader and the tokenizer ----------------------------------------------


def test_continuation_comments_and_end() -> None:
    script = [
        "* a comment line",
        "   * an indented comment",
        "",
        "DEFINE QLOCAL(A) +",
        "       DESCR('first -",
        "second')",
        "DISPLAY QLOCAL(A)",
        "END",
        "DISPLAY QLOCAL(NEVER.RUN)",
    ]
    commands = list(iter_commands(script))
    # '+' continues at the next line's first non-blank; '-' at its first column
    assert commands == [
        (4, "DEFINE QLOCAL(A) DESCR('first second')"),
        (7, "DISPLAY QLOCAL(A)"),
    ]


def test_minus_continuation_keeps_leading_blanks() -> None:
    assert list(iter_commands(["ALTER QLOCAL(A) DESCR('a-", "  b')"])) == [
        (1, "ALTER QLOCAL(A) DESCR('a  b')")
    ]


def test_tokenize_quotes_and_positions() -> None:
    tokens = tokenize("DEF QL(x) DESCR('It''s  here')")
    assert [(t.kind, t.text, t.pos) for t in tokens] == [
        ("word", "DEF", 0),
        ("word", "QL", 4),
        ("(", "(", 6),
        ("word", "x", 7),
        (")", ")", 8),
        ("word", "DESCR", 10),
        ("(", "(", 15),
        ("string", "It's  here", 16),
        (")", ")", 29),
    ]


def test_parse_folds_unquoted_names_and_keeps_quoted_case() -> None:
    command = parse_command("def ql(orders.in) descr('Mixed Case') like(base)")
    assert (command.verb, command.objtype, command.name) == ("DEFINE", "QLOCAL", "ORDERS.IN")
    assert [(p.keyword, p.value()) for p in command.params] == [
        ("DESCR", "Mixed Case"),
        ("LIKE", "BASE"),
    ]
    assert parse_command("DISPLAY QUEUE('lower.case')").name == "lower.case"


# --- DEFINE / ALTER / DISPLAY / DELETE / CLEAR ----------------------------------------


def test_define_display_alter_delete(qm: QueueManager) -> None:
    results = run(
        qm,
        """
        DEFINE QLOCAL(ORDERS.IN) DESCR('Orders in') MAXDEPTH(10) BOTHRESH(3) +
               BOQNAME(ORDERS.BO) HARDENBO MSGDLVSQ(FIFO)
        DISPLAY QLOCAL(ORDERS.IN) DESCR MAXDEPTH BOTHRESH BOQNAME HARDENBO MSGDLVSQ CURDEPTH
        ALTER QLOCAL(ORDERS.IN) NOHARDENBO PUT(DISABLED) DESCR(' ')
        DIS QL(ORDERS.IN) HARDENBO PUT DESCR
        DELETE QLOCAL(ORDERS.IN)
    """,
    )
    assert [r.ok for r in results] == [True] * 5
    assert results[0].message == "AMQ8006I: mqjms queue created."
    assert results[1].objects == [
        {
            "QUEUE": "ORDERS.IN",
            "TYPE": "QLOCAL",
            "DESCR": "Orders in",
            "BOTHRESH": 3,
            "BOQNAME": "ORDERS.BO",
            "HARDENBO": True,
            "MSGDLVSQ": "FIFO",
            "MAXDEPTH": 10,
            "CURDEPTH": 0,
        }
    ]
    assert results[2].message == "AMQ8008I: mqjms queue changed."
    assert results[3].objects == [
        {"QUEUE": "ORDERS.IN", "TYPE": "QLOCAL", "DESCR": "", "PUT": "DISABLED", "HARDENBO": False}
    ]
    assert results[4].message == "AMQ8007I: mqjms queue deleted."
    assert reason(qm, "DISPLAY QLOCAL(ORDERS.IN)") == C.MQRC_UNKNOWN_OBJECT_NAME


def test_display_without_attributes_shows_name_and_type(qm: QueueManager) -> None:
    ok(qm, "DEFINE QLOCAL(Q1)")
    assert display(qm, "DIS QL(Q1)") == [{"QUEUE": "Q1", "TYPE": "QLOCAL"}]


def test_display_all_shows_every_attribute_of_the_type(qm: QueueManager) -> None:
    ok(qm, "DEFINE QLOCAL(Q1)")
    ok(qm, "DEFINE QALIAS(A1) TARGET(Q1)")
    [local] = display(qm, "DISPLAY QLOCAL(Q1) ALL")
    assert list(local)[:2] == ["QUEUE", "TYPE"]
    assert {"CURDEPTH", "IPPROCS", "OPPROCS", "BOTHRESH", "HARDENBO", "MAXDEPTH"} <= set(local)
    assert "TARGET" not in local
    assert (local["MAXDEPTH"], local["DEFPSIST"], local["SHARE"]) == (5000, "NO", True)
    [alias] = display(qm, "DISPLAY QALIAS(A1) ALL")
    assert alias["TARGET"] == "Q1" and "CURDEPTH" not in alias and "BOTHRESH" not in alias


def test_like_copies_attributes_and_replace_redefines(qm: QueueManager) -> None:
    ok(qm, "DEFINE QLOCAL(BASE) MAXDEPTH(7) BOTHRESH(2) DESCR('base')")
    ok(qm, "DEFINE QLOCAL(COPY) LIKE(BASE) BOTHRESH(4)")
    assert display(qm, "DIS QL(COPY) MAXDEPTH BOTHRESH DESCR") == [
        {"QUEUE": "COPY", "TYPE": "QLOCAL", "DESCR": "base", "BOTHRESH": 4, "MAXDEPTH": 7}
    ]
    assert reason(qm, "DEFINE QLOCAL(COPY)") == C.MQRCCF_OBJECT_ALREADY_EXISTS
    assert reason(qm, "DEFINE QLOCAL(COPY) NOREPLACE") == C.MQRCCF_OBJECT_ALREADY_EXISTS
    ok(qm, "DEFINE QLOCAL(COPY) REPLACE MAXDEPTH(9)")
    # REPLACE: what is not given comes from the default queue, not the old definition
    assert display(qm, "DIS QL(COPY) MAXDEPTH BOTHRESH") == [
        {"QUEUE": "COPY", "TYPE": "QLOCAL", "BOTHRESH": 0, "MAXDEPTH": 9}
    ]
    assert reason(qm, "DEFINE QLOCAL(X) LIKE(NO.SUCH.QUEUE)") == C.MQRC_UNKNOWN_OBJECT_NAME


def test_alias_model_and_abbreviations(qm: QueueManager) -> None:
    results = run(
        qm,
        """
        DEF QL(TARGET.Q)
        DEF QA(ALIAS.Q) TARGET(TARGET.Q) PUT(DISABLED)
        DEF QM(MODEL.Q) DEFTYPE(PERMDYN)
        DIS Q(AL*) TYPE(QALIAS) TARGET
        DIS QM(MODEL.Q) DEFTYPE
    """,
    )
    assert all(r.ok for r in results), [r.error for r in results]
    assert results[3].objects == [{"QUEUE": "ALIAS.Q", "TYPE": "QALIAS", "TARGET": "TARGET.Q"}]
    assert results[4].objects == [{"QUEUE": "MODEL.Q", "TYPE": "QMODEL", "DEFTYPE": "PERMDYN"}]
    # an attribute of another queue type is refused
    assert not one(qm, "DEF QA(ALIAS.2) TARGET(TARGET.Q) BOTHRESH(1)").ok
    # the object keyword says which type ALTER and DELETE expect
    assert reason(qm, "ALTER QLOCAL(ALIAS.Q) DESCR(X)") == C.MQRCCF_OBJECT_WRONG_TYPE
    assert reason(qm, "DELETE QLOCAL(ALIAS.Q)") == C.MQRCCF_OBJECT_WRONG_TYPE
    ok(qm, "DELETE QALIAS(ALIAS.Q)")


def test_generic_names(qm: QueueManager) -> None:
    for name in ("APP.A", "APP.B", "OTHER.A"):
        ok(qm, f"DEFINE QLOCAL({name})")
    assert [o["QUEUE"] for o in display(qm, "DIS QL(APP.*)")] == ["APP.A", "APP.B"]
    everything = [o["QUEUE"] for o in display(qm, "DIS Q(*)")]
    assert {"APP.A", "APP.B", "OTHER.A", "SYSTEM.DEAD.LETTER.QUEUE"} <= set(everything)
    assert reason(qm, "DIS QL(NOTHING.*)") == C.MQRC_UNKNOWN_OBJECT_NAME
    # a '*' anywhere but at the end is not a generic name
    assert reason(qm, "DIS QL(A*B)") == C.MQRCCF_OBJECT_NAME_ERROR


def test_display_where(qm: QueueManager) -> None:
    ok(qm, "DEFINE QLOCAL(W.EMPTY)")
    ok(qm, "DEFINE QLOCAL(W.FULL) BOTHRESH(5)")
    put(qm, "W.FULL")
    assert display(qm, "DIS QL(W.*) WHERE(CURDEPTH GT 0)") == [
        {"QUEUE": "W.FULL", "TYPE": "QLOCAL", "CURDEPTH": 1}
    ]
    assert [o["QUEUE"] for o in display(qm, "DIS QL(W.*) WHERE(BOTHRESH EQ 0)")] == ["W.EMPTY"]
    ok(qm, "ALTER QLOCAL(W.FULL) DESCR('Full queue')")
    assert [o["QUEUE"] for o in display(qm, "DIS QL(W.*) WHERE(DESCR LK 'Full*')")] == ["W.FULL"]
    assert [o["QUEUE"] for o in display(qm, "DIS QL(W.*) WHERE(HARDENBO EQ NOHARDENBO)")] == [
        "W.EMPTY",
        "W.FULL",
    ]
    assert reason(qm, "DIS QL(W.*) WHERE(CURDEPTH BIGGER 0)") == C.MQRCCF_PARM_SYNTAX_ERROR


def test_clear_and_delete_purge(qm: QueueManager) -> None:
    ok(qm, "DEFINE QLOCAL(FULL)")
    put(qm, "FULL")
    put(qm, "FULL")
    assert reason(qm, "DELETE QLOCAL(FULL)") == C.MQRC_Q_NOT_EMPTY
    cleared = ok(qm, "CLEAR QLOCAL(FULL)")
    assert cleared.count == 2 and cleared.message.startswith("AMQ8022I")
    assert display(qm, "DIS QL(FULL) CURDEPTH")[0]["CURDEPTH"] == 0
    put(qm, "FULL")
    ok(qm, "DELETE QLOCAL(FULL) PURGE")
    assert reason(qm, "DIS QL(FULL)") == C.MQRC_UNKNOWN_OBJECT_NAME
    assert reason(qm, "DELETE QALIAS(X) PURGE") == C.MQRCCF_PARM_SYNTAX_ERROR


# --- the queue manager ----------------------------------------------------------------


def test_display_and_alter_qmgr(qm: QueueManager) -> None:
    [attrs] = display(qm, "DISPLAY QMGR")
    assert attrs["QMNAME"] == qm.name
    assert attrs["DEADQ"] == "SYSTEM.DEAD.LETTER.QUEUE" and attrs["EXPRYINT"] == 0
    ok(qm, "DEFINE QLOCAL(MY.DLQ)")
    assert ok(qm, "ALTER QMGR DEADQ(MY.DLQ) EXPRYINT(60) DESCR('test qmgr')").message == (
        "AMQ8005I: mqjms queue manager changed."
    )
    assert display(qm, "DIS QMGR DEADQ EXPRYINT") == [
        {"QMNAME": qm.name, "DEADQ": "MY.DLQ", "EXPRYINT": 60}
    ]
    assert display(qm, "DIS QMGR ALL")[0]["DESCR"] == "test qmgr"
    ok(qm, "ALTER QMGR EXPRYINT(OFF)")
    assert qm.display_qmgr(["EXPRYINT"])["EXPRYINT"] == 0
    assert reason(qm, "ALTER QMGR NOSUCHATTR(1)") == C.MQRCCF_PARM_SYNTAX_ERROR
    assert reason(qm, "DIS QMGR NOSUCHATTR") == C.MQRCCF_PARM_SYNTAX_ERROR
    assert reason(qm, "ALTER QMGR EXPRYINT(lots)") == C.MQRCCF_ATTR_VALUE_ERROR


def test_refresh_qmgr_expiry_discards_expired_messages(qm: QueueManager) -> None:
    # seed 000: "Issue the REFRESH QMGR TYPE(EXPIRY) command, specifying the queue or
    # queues that you want scanned" -- expired messages are discarded without a get, and
    # until then they still count toward the queue depth.
    ok(qm, "DEFINE QLOCAL(EXP.A)")
    ok(qm, "DEFINE QLOCAL(OTHER.B)")
    put(qm, "EXP.A", Expiry=1)
    put(qm, "EXP.A", Expiry=1)
    put(qm, "EXP.A")  # unlimited
    put(qm, "OTHER.B", Expiry=1)
    time.sleep(0.35)
    assert display(qm, "DIS QL(EXP.A) CURDEPTH")[0]["CURDEPTH"] == 3
    refreshed = ok(qm, "REFRESH QMGR TYPE(EXPIRY) NAME(EXP.*)")
    assert refreshed.count == 2
    assert display(qm, "DIS QL(EXP.A) CURDEPTH")[0]["CURDEPTH"] == 1
    # queues outside NAME are not scanned
    assert display(qm, "DIS QL(OTHER.B) CURDEPTH")[0]["CURDEPTH"] == 1
    assert ok(qm, "REFRESH QMGR TYPE(EXPIRY)").count == 1  # NAME defaults to *
    assert display(qm, "DIS QL(OTHER.B) CURDEPTH")[0]["CURDEPTH"] == 0
    assert reason(qm, "REFRESH QMGR NAME(*)") == C.MQRCCF_PARM_SYNTAX_ERROR
    assert reason(qm, "REFRESH QMGR TYPE(CONFIGEV)") == C.MQRCCF_PARM_SYNTAX_ERROR


# --- errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "token", "column"),
    [
        ("DEFINE QLOCAL(X) MAXDEPTH(5", "MAXDEPTH", 18),  # no closing parenthesis
        ("DEFINE QLOCAL(X) FOO(1)", "FOO", 18),  # unknown keyword
        ("DEFINE QLOCAL(X) DESCR('open", "'open", 24),  # unterminated quote
        ("FROB QLOCAL(X)", "FROB", 1),  # unknown verb
        ("DEFINE CHANNEL(X)", "CHANNEL", 8),  # object mqjms does not have
        ("DEFINE QLOCAL", "QLOCAL", 8),  # no name
        ("DEFINE QLOCAL(X) HARDENBO(YES)", "HARDENBO", 18),  # a flag takes no value
        ("DEFINE QLOCAL(X) MAXDEPTH", "MAXDEPTH", 18),  # a value is needed
        ("DEFINE QLOCAL(X) MAXDEPTH(1) MAXDEPTH(2)", "MAXDEPTH", 30),  # given twice
        ("DEFINE QLOCAL(X) DESCR(two words)", "WORDS", 28),  # blanks need quotes
        ("DEFINE QLOCAL(X) CURDEPTH(3)", "CURDEPTH", 18),  # read-only
        ("DISPLAY QLOCAL(X) NOSUCH", "NOSUCH", 19),
        ("DISPLAY QMGR(X)", "QMGR", 9),
        ("DEFINE QLOCAL(X) 'stray'", "'stray'", 18),
        ("DEFINE QLOCAL(X) )", ")", 18),
    ],
)
def test_syntax_errors_name_token_and_column(
    qm: QueueManager, command: str, token: str, column: int
) -> None:
    result = one(qm, command)
    assert not result.ok and result.syntax_error
    error = result.error
    assert isinstance(error, MQSCSyntaxError)
    assert error.reason == C.MQRCCF_PARM_SYNTAX_ERROR
    assert error.reason_name == "MQRCCF_PARM_SYNTAX_ERROR"
    assert (error.token.upper(), error.pos + 1) == (token.upper(), column)
    assert f"column {column}" in error.detail
    lines = result.render()
    assert lines[1].startswith("AMQ8405I: Syntax error")
    assert lines[-1].startswith("MQRCCF_PARM_SYNTAX_ERROR (3097): ")
    assert reason(qm, "DIS QL(X)") == C.MQRC_UNKNOWN_OBJECT_NAME  # nothing was defined


def test_unknown_objects(qm: QueueManager) -> None:
    for command in (
        "ALTER QLOCAL(NOPE) MAXDEPTH(1)",
        "DELETE QLOCAL(NOPE)",
        "CLEAR QLOCAL(NOPE)",
        "DISPLAY QLOCAL(NOPE)",
        "DISPLAY QUEUE(NOPE)",
    ):
        result = one(qm, command)
        assert not result.ok and not result.syntax_error
        assert result.error is not None and result.error.reason == C.MQRC_UNKNOWN_OBJECT_NAME
        assert result.render()[-1].startswith("MQRC_UNKNOWN_OBJECT_NAME (2085): ")


def test_invalid_names(qm: QueueManager) -> None:
    ok(qm, f"DEFINE QLOCAL({'Q' * 48})")
    too_long = one(qm, f"DEFINE QLOCAL({'Q' * 49})")
    assert too_long.error is not None
    assert too_long.error.reason == C.MQRCCF_OBJECT_NAME_ERROR
    assert "49 characters" in too_long.error.detail
    for bad in ("'ORDERS IN'", "ORDERS#IN", "'caf\u00e9'"):
        result = one(qm, f"DEFINE QLOCAL({bad})")
        assert result.error is not None and result.error.reason == C.MQRCCF_OBJECT_NAME_ERROR
        assert "characters MQ does not allow" in result.error.detail
    # a name used as an attribute value is checked as well
    assert reason(qm, "DEFINE QLOCAL(GOOD) BOQNAME('bad name')") == C.MQRC_OBJECT_NAME_ERROR


def test_attribute_values_are_checked(qm: QueueManager) -> None:
    assert reason(qm, "DEFINE QLOCAL(V) MAXDEPTH(many)") == C.MQRCCF_ATTR_VALUE_ERROR
    assert reason(qm, "DEFINE QLOCAL(V) DEFPRTY(10)") == C.MQRCCF_ATTR_VALUE_ERROR
    assert reason(qm, "DEFINE QLOCAL(V) MSGDLVSQ(RANDOM)") == C.MQRCCF_ATTR_VALUE_ERROR
    assert reason(qm, f"DEFINE QLOCAL(V) DESCR('{'d' * 65}')") == C.MQRCCF_ATTR_VALUE_ERROR


def test_script_keeps_going_after_failures_and_summarises(qm: QueueManager) -> None:
    results = run(
        qm,
        """
        DEFINE QLOCAL(S1)
        DEFINE QLOCAL(S1)
        DEFINE QLOCAL(S2) BOGUS
        DISPLAY QLOCAL(S1)
    """,
    )
    assert [r.ok for r in results] == [True, False, False, True]
    assert [r.number for r in results] == [1, 2, 3, 4]
    assert [r.line for r in results] == [2, 3, 4, 5]
    assert summary(results) == [
        "4 MQSC commands read.",
        "One command has a syntax error.",
        "One valid MQSC command could not be processed.",
    ]
    assert summary(results[:1]) == [
        "One MQSC command read.",
        "No commands have a syntax error.",
        "All valid MQSC commands were processed.",
    ]


def test_queue_manager_mqsc_method(qm: QueueManager) -> None:
    results = qm.mqsc("DEFINE QLOCAL(VIA.API)\nDISPLAY QLOCAL(VIA.API) MAXDEPTH")
    assert [r.ok for r in results if isinstance(r, CommandResult)] == [True, True]


# --- output ---------------------------------------------------------------------------


def test_render_and_format_attribute(qm: QueueManager) -> None:
    ok(qm, "DEFINE QLOCAL(ORDERS.IN) DESCR('Orders, in')")
    put(qm, "ORDERS.IN")
    result = ok(qm, "DISPLAY QLOCAL(ORDERS.IN) CURDEPTH HARDENBO DESCR BOQNAME")
    assert result.render() == [
        f"{result.number:>6} : DISPLAY QLOCAL(ORDERS.IN) CURDEPTH HARDENBO DESCR BOQNAME",
        "AMQ8409I: Display Queue details.",
        "   QUEUE(ORDERS.IN)",
        "   TYPE(QLOCAL)",
        "   DESCR(Orders, in)",
        "   BOQNAME( )",
        "   NOHARDENBO",
        "   CURDEPTH(1)",
    ]
    assert format_attribute("SHARE", True) == "SHARE"
    assert format_attribute("TRIGGER", False) == "NOTRIGGER"
    assert format_attribute("EXPRYINT", 0) == "EXPRYINT(OFF)"
    assert format_attribute("MAXDEPTH", 5000) == "MAXDEPTH(5000)"


# --- the extension point --------------------------------------------------------------


def test_process_definitions(qm: QueueManager) -> None:
    results = run(
        qm,
        """
        DEFINE PROCESS(ORDERS.PROC) APPLTYPE(UNIX) APPLICID('/usr/bin/orders') +
               USERDATA('mode=fast') DESCR('Starts orders')
        DEF PRO(COPY.PROC) LIKE(ORDERS.PROC) ENVRDATA('X=1')
        ALTER PROCESS(ORDERS.PROC) USERDATA('mode=slow')
        DISPLAY PROCESS(*) APPLICID USERDATA
        DISPLAY PROCESS(COPY.PROC) ALL
        DEFINE QLOCAL(TRIG.Q) TRIGGER TRIGTYPE(FIRST) INITQ(SYSTEM.DEFAULT.INITIATION.QUEUE) +
               PROCESS(ORDERS.PROC)
        DIS QL(TRIG.Q) TRIGGER TRIGTYPE PROCESS
        DELETE PROCESS(COPY.PROC)
    """,
    )
    assert all(r.ok for r in results), [r.error for r in results]
    assert results[3].objects == [
        {"PROCESS": "COPY.PROC", "APPLICID": "/usr/bin/orders", "USERDATA": "mode=fast"},
        {"PROCESS": "ORDERS.PROC", "APPLICID": "/usr/bin/orders", "USERDATA": "mode=slow"},
    ]
    assert results[4].objects[0]["ENVRDATA"] == "X=1"
    assert results[4].objects[0]["APPLTYPE"] == "UNIX"
    assert results[6].objects == [
        {
            "QUEUE": "TRIG.Q",
            "TYPE": "QLOCAL",
            "TRIGGER": True,
            "TRIGTYPE": "FIRST",
            "PROCESS": "ORDERS.PROC",
        }
    ]
    assert reason(qm, "DISPLAY PROCESS(COPY.PROC)") == C.MQRC_UNKNOWN_OBJECT_NAME
    assert reason(qm, "DEFINE PROCESS(ORDERS.PROC)") == C.MQRCCF_OBJECT_ALREADY_EXISTS
    assert reason(qm, "DEFINE PROCESS(P2) MAXDEPTH(1)") == C.MQRCCF_PARM_SYNTAX_ERROR
    assert reason(qm, "DEFINE PROCESS(P2) APPLTYPE(AMIGA)") == C.MQRCCF_ATTR_VALUE_ERROR


@pytest.fixture
def namelist_handler() -> Iterator[list[str]]:
    """A stand-in DEFINE NAMELIST, registered as a new object type's module would."""
    seen: list[str] = []

    def define_namelist(qm: QueueManager, command: mqsc.Command) -> CommandOutput:
        seen.append(f"{command.name} {[p.keyword for p in command.params]}")
        return CommandOutput("mqjms namelist created.")

    saved_handlers = dict(mqsc.HANDLERS)
    saved_keywords = dict(mqsc.OBJECT_KEYWORDS)
    mqsc.register("DEFINE", "NAMELIST", "NL")(define_namelist)
    try:
        yield seen
    finally:
        mqsc.HANDLERS.clear()
        mqsc.HANDLERS.update(saved_handlers)
        mqsc.OBJECT_KEYWORDS.clear()
        mqsc.OBJECT_KEYWORDS.update(saved_keywords)


def test_an_object_type_is_unknown_until_registered(qm: QueueManager) -> None:
    result = one(qm, "DEFINE NAMELIST(N1) NAMES(A)")
    assert isinstance(result.error, MQSCSyntaxError) and result.error.token == "NAMELIST"


def test_register_adds_an_object_type(qm: QueueManager, namelist_handler: list[str]) -> None:
    result = run_command(qm, "DEF NL(N1) NAMES(A)")
    assert result.ok and result.objtype == "NAMELIST" and result.name == "N1"
    assert namelist_handler == ["N1 ['NAMES']"]
