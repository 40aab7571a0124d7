"""MQSC for the embedded queue manager: parse ``runmqsc``-style scripts and run them.

The rules are runmqsc's, so MQ administrators can paste their scripts (:mod:`.parser`
says which). Every command gives a :class:`CommandResult`: ok or an MQError (a syntax
error is an :class:`MQSCSyntaxError`, reason MQRCCF_PARM_SYNTAX_ERROR, naming the token
and its column), and for DISPLAY the objects as attribute dicts in MQSC order.

One module per step: :mod:`.lexer` (tokens), :mod:`.parser` (commands and scripts),
:mod:`.registry` (a handler per verb and object type: :func:`register` adds an object
type without touching the parser), :mod:`.keywords` (what commands share: attribute
keywords, LIKE, DISPLAY's selection and WHERE), :mod:`.commands` (queues, process
definitions, the queue manager), :mod:`.pubsub` (topics, subscriptions, topic status),
:mod:`.status` (queue and queue manager status),
:mod:`.script` (running them) and :mod:`.rendering`
(runmqsc's output).
"""

from . import commands as _commands  # noqa: F401  (registers the built-in object types)
from . import pubsub as _pubsub  # noqa: F401  (TOPIC, SUB, TPSTATUS)
from . import status as _status  # noqa: F401  (QSTATUS, QMSTATUS)
from .keywords import attribute_params
from .lexer import MQSCSyntaxError, Token, tokenize
from .parser import Command, Param, iter_commands, parse_command
from .registry import HANDLERS, OBJECT_KEYWORDS, CommandOutput, register
from .rendering import CommandResult, format_attribute, format_object, summary
from .script import run_command, run_script

__all__ = [
    "HANDLERS",
    "OBJECT_KEYWORDS",
    "Command",
    "CommandOutput",
    "CommandResult",
    "MQSCSyntaxError",
    "Param",
    "Token",
    "attribute_params",
    "format_attribute",
    "format_object",
    "iter_commands",
    "parse_command",
    "register",
    "run_command",
    "run_script",
    "summary",
    "tokenize",
]
