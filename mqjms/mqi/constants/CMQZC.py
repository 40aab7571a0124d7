"""CMQZC: the constants of installable services (cmqzc.h)."""

# ruff: noqa: F403
from mqjms.mqi.constants._cmqzc import *
