"""Fixtures for the mq:// transport's own tests: ``mq`` is a :class:`StandInBroker` for
each library (the real ibmmq 2.1.2 and pymqi 1.12.13 Python layers over the stand-in)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mqjms.transport import embedded

from . import libraries
from .brokers import StandInBroker
from .stand_in import STAND_IN, StandIn

LIBRARY_PARAMS = [pytest.param(name, marks=pytest.mark.ibmmq) for name in libraries.LIBRARIES]


@pytest.fixture(params=LIBRARY_PARAMS)
def library(request: pytest.FixtureRequest) -> str:
    libraries.load(str(request.param))  # skips without the sdist
    return str(request.param)


@pytest.fixture
def mq(library: str, tmp_path: Path) -> Iterator[StandInBroker]:
    broker = StandInBroker(tmp_path / "qm", library)
    broker.define_queue("APP.IN", BOTHRESH=2, BOQNAME="APP.BOQ")
    broker.define_queue("APP.BOQ")
    broker.define_alias("APP.ALIAS", "APP.IN")
    try:
        yield broker
    finally:
        broker.close()
        embedded.close_all()


@pytest.fixture
def stand_in(mq: StandInBroker) -> StandIn:
    return STAND_IN
