"""Each flavour's constant modules: ibmmq's are ours as they are; pymqi's differ a little.

pymqi 1.12's CMQC also holds names that ibmmq (and MQ 9.4's headers) keep only in CMQXC
(MQCHT_*, MQXPT_*, MQCD_VERSION_*, ...), a few names only it has (MQDCC_*, MQDT_*), and
some values of its own (it was generated on another platform: MQPL_NATIVE 11, MQAT_DEFAULT
11; single-character constants such as MQISS_CHECK as bytes). A pymqi program sees those,
so its flavour's modules are built from ours plus ``_pymqi_facts``.
"""

from __future__ import annotations

import functools
import types

from mqjms.mqi.constants import CMQC, CMQCFC, CMQXC, CMQZC, _pymqi_facts

FLAVOURS = ("pymqi", "ibmmq")
_BASE = {"CMQC": CMQC, "CMQXC": CMQXC, "CMQCFC": CMQCFC, "CMQZC": CMQZC}


def _names(module: types.ModuleType) -> dict[str, object]:
    return {k: v for k, v in vars(module).items() if k.startswith("MQ")}


@functools.cache
def constants(flavour: str, module_name: str) -> types.ModuleType:
    """The flavour's ``module_name`` (CMQC, CMQXC, CMQCFC or CMQZC) as a module object."""
    if flavour not in FLAVOURS:
        raise ValueError(f"flavour {flavour!r} is not one of {FLAVOURS}")
    base = _BASE[module_name]
    if flavour == "ibmmq":
        return base
    values = _names(base)
    if module_name == "CMQC":
        xc = _names(CMQXC)
        values.update((name, xc[name]) for name in _pymqi_facts.IN_CMQC_FROM_CMQXC)
        values.update(_pymqi_facts.ONLY_IN_CMQC)
        values.update(_pymqi_facts.VALUES_CMQC)
    elif module_name == "CMQXC":
        values.update(_pymqi_facts.ONLY_IN_CMQXC)
        values.update(_pymqi_facts.VALUES_CMQXC)
    elif module_name == "CMQCFC":
        values.update(_pymqi_facts.VALUES_CMQCFC)
    module = types.ModuleType(f"pymqi.{module_name}", base.__doc__)
    vars(module).update(values)
    return module
