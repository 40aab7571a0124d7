"""How a broker's ERROR reads in an MQError: its first lines, not the Java stack trace
ActiveMQ sends with it (a user sees one clear line, no raw traceback)."""

from __future__ import annotations

from mqjms.transport.stomp.client import BrokerError
from mqjms.transport.stomp.connection import _first_line

JAVA = (
    "java.io.IOException: Java heap space\n"
    "\tat org.apache.activemq.util.IOExceptionSupport.create(IOExceptionSupport.java:34)\n"
    "\tat org.apache.activemq.broker.TransportConnection.service(TransportConnection.java:333)\n"
)


def test_a_java_stack_trace_is_left_out() -> None:
    text = _first_line(BrokerError("java.util.concurrent.ExecutionException", JAVA))
    assert text == "java.util.concurrent.ExecutionException: java.io.IOException: Java heap space"
    assert " at " not in text and "\n" not in text


def test_a_plain_error_is_kept_whole_and_short() -> None:
    assert _first_line(BrokerError("Destination does not exist")) == "Destination does not exist"
    assert len(_first_line(BrokerError("x" * 2000))) == 500
