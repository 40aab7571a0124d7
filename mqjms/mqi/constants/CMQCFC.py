"""CMQCFC: the constants of PCF, programmable command formats (cmqcfc.h)."""

# ruff: noqa: F403
from mqjms.mqi.constants._cmqcfc_commands import *
from mqjms.mqi.constants._cmqcfc_integer_selectors_1 import *
from mqjms.mqi.constants._cmqcfc_integer_selectors_2 import *
from mqjms.mqi.constants._cmqcfc_other_selectors import *
from mqjms.mqi.constants._cmqcfc_reasons import *
from mqjms.mqi.constants._cmqcfc_values_1 import *
from mqjms.mqi.constants._cmqcfc_values_2 import *
