"""PCF groups (MQCFGR) and 64-bit integers (MQCFIN64, MQCFIL64) parse and build: statistics
and accounting messages carry one group per queue, and byte counts in 64 bits."""

from __future__ import annotations

import contextlib
import struct

import pytest

from mqjms.mq import C
from mqjms.mq.errors import MQFormatError
from mqjms.mq.pcf import (
    MQCFGR,
    MQCFH,
    MQCFIL,
    MQCFIL64,
    MQCFIN,
    MQCFIN64,
    MQCFST,
    build_pcf,
    parse_pcf,
)


def test_groups_and_64_bit_integers_round_trip() -> None:
    inner = MQCFGR(8011, (MQCFST(2016, 0, b"Q1".ljust(48)), MQCFIL64(748, (500, 2**40))))
    parameters = [MQCFIN(3, 7), inner, MQCFGR(8011, (MQCFIN64(703, -(2**40)),)), MQCFIL(735, (5,))]
    for encoding in (C.MQENC_NATIVE, C.MQENC_NORMAL):
        data = build_pcf(MQCFH(Type=21, Command=165), parameters, encoding)
        header, parsed = parse_pcf(data, encoding)
        assert header.ParameterCount == 4  # a group counts once, its members not at all
        assert parsed == parameters
        assert len(data) == 36 + 16 + (16 + 68 + 32) + (16 + 24) + 20


def test_groups_nest() -> None:
    nested = MQCFGR(7000, (MQCFGR(7001, (MQCFIN(1, 1),)), MQCFIN(2, 2)))
    _header, parsed = parse_pcf(build_pcf(MQCFH(), [nested, MQCFIN(3, 3)]))
    assert parsed == [nested, MQCFIN(3, 3)]


def test_a_group_longer_than_the_message_is_a_format_error() -> None:
    data = (
        MQCFH(ParameterCount=1).pack() + struct.pack("=4i", 20, 16, 8011, 3) + MQCFIN(1, 1).pack()
    )
    with pytest.raises(MQFormatError) as caught:
        parse_pcf(data)
    assert caught.value.reason == 3259  # MQRCCF_CFGR_PARM_COUNT_ERROR
    bad = MQCFH(ParameterCount=1).pack() + struct.pack("=4i", 20, 20, 8011, 0) + b"\x00" * 4
    with pytest.raises(MQFormatError) as caught:
        parse_pcf(bad)
    assert caught.value.reason == 3258  # MQRCCF_CFGR_LENGTH_ERROR


def test_groups_nested_without_end_are_refused() -> None:
    deep = MQCFH(ParameterCount=1).pack() + struct.pack("=4i", 20, 16, 1, 1) * 40
    with contextlib.suppress(MQFormatError):
        parse_pcf(deep)
        pytest.fail("40 nested groups parsed")
