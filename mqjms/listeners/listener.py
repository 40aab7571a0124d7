"""A registered listener: the function, the queue or topic it consumes and its options.

``@app.listener(queue)`` turns a function ``fn(msg) -> None`` into a :class:`Listener`
and returns the function unchanged, so it stays callable (and testable) on its own.
``@app.listener(topic="orders/#", subscription="shipper")`` consumes a topic instead,
through a subscription: durable when it is named (it keeps publications while the
service is down), else non-durable (it lives while the listener runs); shared between
the listener's consumer threads when ``concurrency`` > 1 (or ``shared=True``, which also
lets several Worker processes share a named one).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from mqjms.backout import PoisonHook
from mqjms.jms.errors import InvalidSelectorException
from mqjms.jms.message import Message, Queue
from mqjms.jms.topic import Topic
from mqjms.mq.errors import MQError
from mqjms.mq.md import MQMD

from .reconnect import WaitStrategy, wait_seconds

ListenerFunction = Callable[[Message], None] | Callable[[Message], Awaitable[None]]
PoisonCallback = PoisonHook  # on_poison and Worker(poison_hooks=...)
#: ``retry_wait``: a tenacity wait strategy (``tenacity.wait_exponential(...)``), or seconds.
RetryWait = WaitStrategy | float


@dataclass(frozen=True, slots=True)
class Listener:
    """A function bound to a queue, with how it is consumed.

    ``retry_wait`` delays the rollback of a failed message (MQ itself redelivers at once);
    it is called with a tenacity RetryCallState whose ``attempt_number`` is the delivery
    count (BackoutCount + 1). ``move_on`` exception types skip the remaining attempts: the
    message goes straight to the backout queue with the failure recorded.
    """

    fn: ListenerFunction
    queue: str  # the queue, or ``topic://<topic string>`` for a topic listener
    concurrency: int = 1
    transacted: bool = True
    retry_wait: RetryWait | None = None
    move_on: tuple[type[BaseException], ...] = ()
    on_poison: PoisonCallback | None = None
    topic: str | None = None  # the topic string subscribed to (wildcards allowed)
    subscription: str | None = None  # a durable subscription's name
    shared: bool = False  # the consumer threads (and processes) share the subscription
    selector: str | None = None  # a JMS message selector on the topic's publications
    #: ``module.function``: recorded on a failure, in log events and as the key of its
    #: statistics; a Worker makes it unique (:meth:`unique_in`).
    name: str = field(init=False)
    #: ``async def`` listeners run on the worker's event loop.
    is_async: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", _qualname(self.fn))
        object.__setattr__(self, "is_async", _is_async(self.fn))

    def unique_in(self, taken: set[str]) -> Listener:
        """This listener, or a copy named ``module.function[QUEUE]`` (``#2``, ... after
        that) when another of the worker's listeners has its name: one function on two
        queues, or functions a factory made, have two listeners with one qualified name,
        whose statistics, metrics labels and shared subscription would be merged."""
        if self.name not in taken:
            return self
        base = f"{self.name}[{self.queue}]"
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}#{n}"
        copy = replace(self)
        object.__setattr__(copy, "name", name)
        return copy

    @property
    def durable(self) -> bool:
        """A topic listener with a named subscription: durable (see the module docstring)."""
        return self.subscription is not None

    @classmethod
    def create(
        cls,
        fn: ListenerFunction,
        queue: str | Queue | None = None,
        *,
        concurrency: int = 1,
        transacted: bool = True,
        retry_wait: RetryWait | None = None,
        move_on: type[BaseException] | tuple[type[BaseException], ...] = (),
        on_poison: PoisonCallback | None = None,
        topic: str | Topic | None = None,
        subscription: str | None = None,
        shared: bool | None = None,
        selector: str | None = None,
    ) -> Listener:
        """Validate the options and make a Listener (errors name what was wrong)."""
        if not callable(fn):
            raise TypeError(f"a listener must be a function taking a message, not {fn!r}")
        _check_takes_one_message(fn)
        _check_not_a_generator(fn)
        if isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1:
            raise ValueError(
                f"listener {_qualname(fn)}: concurrency must be an int >= 1, not {concurrency!r}"
            )
        topic_string = _topic_of(fn, queue, topic, subscription)
        if selector is not None:
            if not isinstance(selector, str):
                raise TypeError(f"listener {_qualname(fn)}: selector must be a str")
            if topic_string is None:
                raise ValueError(
                    f"listener {_qualname(fn)}: a selector is for a topic= listener "
                    "(message selectors on queues are not supported)"
                )
            from mqjms.semantics.selector import compile_selector  # topic listeners only

            try:
                compile_selector(selector)
            except MQError as exc:
                raise InvalidSelectorException(f"listener {_qualname(fn)}: {exc.detail}") from None
        if topic_string is not None:
            name = Topic(topic_string).uri
        else:
            assert queue is not None
            name = Queue.parse(queue).name
            if not name or not name.strip():
                raise ValueError(f"listener {_qualname(fn)}: the queue name is empty")
        if retry_wait is not None and not callable(retry_wait):
            if isinstance(retry_wait, bool) or not isinstance(retry_wait, int | float):
                raise TypeError(
                    f"listener {_qualname(fn)}: retry_wait must be a tenacity wait strategy "
                    f"or seconds, not {retry_wait!r}"
                )
            if retry_wait < 0:
                raise ValueError(f"listener {_qualname(fn)}: retry_wait {retry_wait} is negative")
        kinds = move_on if isinstance(move_on, tuple) else (move_on,)
        for kind in kinds:
            if not (isinstance(kind, type) and issubclass(kind, BaseException)):
                raise TypeError(
                    f"listener {_qualname(fn)}: move_on must hold exception types, not {kind!r}"
                )
        if on_poison is not None and not callable(on_poison):
            raise TypeError(f"listener {_qualname(fn)}: on_poison must be callable")
        if on_poison is not None:
            check_plain_hook(on_poison, f"listener {_qualname(fn)}: on_poison")
        return cls(
            fn,
            name.strip(),
            concurrency,
            bool(transacted),
            retry_wait,
            kinds,
            on_poison,
            topic_string,
            subscription,
            bool(concurrency > 1 if shared is None else shared) and topic_string is not None,
            (selector or "").strip() or None,
        )

    def moves_on(self, exc: BaseException) -> bool:
        return bool(self.move_on) and isinstance(exc, self.move_on)

    def retry_delay(self, md: MQMD, exc: BaseException) -> float:
        """Seconds to wait before rolling back the failed delivery of ``md`` (0: none)."""
        if self.retry_wait is None:
            return 0.0
        if not callable(self.retry_wait):
            return float(self.retry_wait)
        return wait_seconds(self.retry_wait, md.BackoutCount + 1, exc)


def _topic_of(
    fn: Any, queue: object, topic: str | Topic | None, subscription: object
) -> str | None:
    """The topic string of a topic listener (None for a queue listener), checked."""
    where = f"listener {_qualname(fn)}"
    if topic is None:
        if queue is None:
            raise ValueError(f"{where}: give a queue, or topic= to subscribe to a topic")
        if subscription is not None:
            raise ValueError(f"{where}: subscription= names a subscription to a topic=")
        return None
    if queue is not None:
        raise ValueError(f"{where}: give a queue or topic=, not both")
    topic_string = Topic.parse(topic).name
    if subscription is not None and (not isinstance(subscription, str) or not subscription.strip()):
        raise ValueError(f"{where}: subscription must be a non-empty name, not {subscription!r}")
    return topic_string


def _is_async(fn: Any) -> bool:
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)  # noqa: B004 - an object with an async __call__
    return call is not None and inspect.iscoroutinefunction(call)


def _qualname(fn: Any) -> str:
    module = getattr(fn, "__module__", None) or type(fn).__module__
    name = getattr(fn, "__qualname__", None) or type(fn).__qualname__
    return f"{module}.{name}"


def check_plain_hook(hook: Any, what: str) -> None:
    """TypeError now for an ``async def`` hook: hooks are called, not awaited, so its body
    would never run (only Python's "coroutine was never awaited" warning would say so)."""
    call = getattr(hook, "__call__", None)  # noqa: B004 - an object with an async __call__
    if inspect.iscoroutinefunction(hook) or inspect.iscoroutinefunction(call):
        raise TypeError(
            f"{what} {_qualname(hook)} is async def: hooks are called, not awaited, so its "
            "body would never run; make it a plain function"
        )


def _check_not_a_generator(fn: Any) -> None:
    """TypeError now for a generator function (``yield`` in its body, ``async def`` too):
    a call makes a generator and runs none of the body, so every message would be
    committed unprocessed."""
    call = getattr(fn, "__call__", None)  # noqa: B004 - an object with a generator __call__
    for target in (fn, call):
        if inspect.isgeneratorfunction(target) or inspect.isasyncgenfunction(target):
            raise TypeError(
                f"listener {_qualname(fn)} is a generator function (it yields): a call runs "
                "none of its body, so each message would be committed unprocessed; "
                "return instead of yield"
            )


def _check_takes_one_message(fn: Callable[..., object]) -> None:
    """TypeError now, at registration, for a function that cannot be called with one
    message: called for each message, it would fail every one of them (and with BOTHRESH
    0 redeliver them for ever). A callable whose signature Python cannot tell passes."""
    try:  # the callable's own signature: a decorator's wrapper may supply more arguments
        signature = inspect.signature(fn, follow_wrapped=False)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(object())
    except TypeError as exc:
        params = ", ".join(signature.parameters)
        raise TypeError(
            f"listener {_qualname(fn)}({params}): a listener is called with one argument, "
            f"the message ({exc})"
        ) from None
