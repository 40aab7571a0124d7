"""CMQXC: the constants of channels and exits (cmqxc.h): MQCD, MQCHT_*, MQXPT_*, ..."""

# ruff: noqa: F403
from mqjms.mqi.constants._cmqxc import *
