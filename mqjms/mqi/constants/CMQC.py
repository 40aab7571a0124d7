"""CMQC: the MQI's constants (cmqc.h), Linux x86-64 values."""

# ruff: noqa: F403
from mqjms.mqi.constants._cmqc_options import *
from mqjms.mqi.constants._cmqc_reasons import *
from mqjms.mqi.constants._cmqc_selectors_1 import *
from mqjms.mqi.constants._cmqc_selectors_2 import *
from mqjms.mqi.constants._cmqc_structures import *
from mqjms.mqi.constants._cmqc_values_1 import *
from mqjms.mqi.constants._cmqc_values_2 import *
