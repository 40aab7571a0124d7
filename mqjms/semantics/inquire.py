"""MQINQ and MQSET: selectors answered from (or turned into) a queue's MQSC attributes.

One table (:mod:`.attributes`) maps MQIA_*/MQCA_* selectors to MQSC attributes; this module
answers an inquiry from it over any :class:`~.definitions.QueueDefinition`, so every
emulating transport answers alike: 2067 for a selector MQ does not know, 2068 for one
that does not apply to the queue's type, MQSC values turned into MQINQ values. MQSET
goes the other way (:func:`set_values`) for the few attributes an application may set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from mqjms.mq import constants as C
from mqjms.mq.errors import MQError, failed

from .attributes import (
    ALIAS,
    LOCAL,
    MODEL,
    QMGR_ATTR_BY_SELECTOR,
    QTYPE_CODES,
    QUEUE_ATTR_BY_SELECTOR,
    REMOTE,
    inquire_value,
    normalize,
)
from .definitions import AttrValue, QueueDefinition

#: The read-only attributes (CURDEPTH, IPPROCS, OPPROCS of a local queue; CRDATE, CRTIME,
#: ALTDATE, ALTTIME), asked for only when a selector needs one (it may cost a round trip).
Status = Callable[[], Mapping[str, AttrValue]]

_DEFINITION_TYPES = {
    None: C.MQQDT_PREDEFINED,
    "TEMPDYN": C.MQQDT_TEMPORARY_DYNAMIC,
    "PERMDYN": C.MQQDT_PERMANENT_DYNAMIC,
}


#: Queue attributes mqjms does not keep, answered with IBM MQ's defaults (clusters,
#: binding, scope, service interval, ...), for the queue types MQINQ knows them on: a
#: program that inquires one reads what a queue outside any cluster says. By selector:
#: the types, the value.
QUEUE_FACTS: Mapping[int, tuple[tuple[str, ...], int | str]] = {
    C.MQCA_CLUSTER_NAME: ((LOCAL, ALIAS, REMOTE), ""),
    C.MQCA_CLUSTER_NAMELIST: ((LOCAL, ALIAS, REMOTE), ""),
    C.MQIA_DEF_BIND: ((LOCAL, ALIAS, REMOTE), C.MQBND_BIND_ON_OPEN),
    C.MQIA_SCOPE: ((LOCAL, ALIAS, REMOTE), C.MQSCO_Q_MGR),
    C.MQIA_CLWL_Q_PRIORITY: ((LOCAL, ALIAS, REMOTE), 0),
    C.MQIA_CLWL_Q_RANK: ((LOCAL, ALIAS, REMOTE), 0),
    C.MQIA_CLWL_USEQ: ((LOCAL,), C.MQCLWL_USEQ_AS_Q_MGR),
    C.MQIA_NPM_CLASS: ((LOCAL, MODEL), C.MQNPM_CLASS_NORMAL),
    C.MQIA_Q_SERVICE_INTERVAL: ((LOCAL, MODEL), 999_999_999),
    C.MQIA_Q_SERVICE_INTERVAL_EVENT: ((LOCAL, MODEL), C.MQQSIE_NONE),
    C.MQIA_BASE_TYPE: ((ALIAS,), C.MQOT_Q),  # TARGTYPE(QUEUE): mqjms's aliases name queues
}


def queue_facts(qtype: str) -> dict[int, int | str]:
    """The :data:`QUEUE_FACTS` of a queue of type ``qtype``."""
    return {selector: value for selector, (types, value) in QUEUE_FACTS.items() if qtype in types}


def inquire_queue(
    queue: QueueDefinition,
    selectors: Sequence[int],
    status: Status,
    *,
    dynamic: str | None = None,
) -> dict[int, int | str]:
    """MQINQ on ``queue``. ``dynamic`` is TEMPDYN or PERMDYN for a dynamic queue."""
    out: dict[int, int | str] = {}
    current: Mapping[str, AttrValue] | None = None
    for selector in selectors:
        if selector == C.MQIA_Q_TYPE:
            out[selector] = QTYPE_CODES[queue.qtype]
        elif selector == C.MQCA_Q_NAME:
            out[selector] = queue.name
        elif selector == C.MQIA_DEFINITION_TYPE and queue.qtype == LOCAL:
            out[selector] = _DEFINITION_TYPES[dynamic]
        elif selector == C.MQIA_PROPERTY_CONTROL:
            # properties travel in an MQRFH2 usr folder, as PROPCTL(COMPAT) has them
            out[selector] = C.MQPROP_COMPATIBILITY
        elif selector in QUEUE_FACTS:
            types, fact = QUEUE_FACTS[selector]
            if queue.qtype not in types:
                raise _not_for_type(f"selector {selector}", queue)
            out[selector] = fact
        else:
            attr = QUEUE_ATTR_BY_SELECTOR.get(selector)
            if attr is None:
                raise failed(C.MQRC_SELECTOR_ERROR, f"selector {selector} is not known")
            if queue.qtype not in attr.types:
                raise _not_for_type(f"{attr.name} (selector {selector})", queue)
            if attr.readonly:
                if current is None:
                    current = status()
                value: AttrValue = current.get(attr.name, attr.default)
            else:
                value = queue.attrs.get(attr.name, attr.default)
            out[selector] = inquire_value(attr, value)
    return out


def _not_for_type(what: str, queue: QueueDefinition) -> MQError:
    """MQINQ's warning 2068 (on an MQSET it fails) for a selector of another queue type."""
    return MQError(
        C.MQCC_WARNING,
        C.MQRC_SELECTOR_NOT_FOR_TYPE,
        f"{what} does not apply to {queue.qtype} {queue.name!r}",
    )


#: What an emulated queue manager says it is: IBM MQ 9.4 on Unix, with syncpoint, as the
#: MQ level the pymqi/ibmmq drop-ins and their programs expect (``MQCA_VERSION``,
#: ``MQIA_COMMAND_LEVEL``).
QMGR_FACTS: Mapping[int, int | str] = {
    C.MQCA_VERSION: "09040000",
    C.MQIA_COMMAND_LEVEL: C.MQCMDL_LEVEL_940,
    C.MQIA_PLATFORM: C.MQPL_UNIX,
    C.MQIA_SYNCPOINT: C.MQSP_AVAILABLE,
    C.MQIA_MAX_PRIORITY: 9,
    # MQ's defaults for what mqjms does not set or limit
    C.MQIA_MAX_HANDLES: 256,
    C.MQIA_MAX_UNCOMMITTED_MSGS: 10_000,
    C.MQCA_COMMAND_INPUT_Q_NAME: "SYSTEM.ADMIN.COMMAND.QUEUE",
    C.MQIA_MAX_PROPERTIES_LENGTH: C.MQPROP_UNRESTRICTED_LENGTH,  # MAXPROPL(NOLIMIT)
    C.MQIA_PUBSUB_MODE: C.MQPSM_ENABLED,
    C.MQIA_MSG_MARK_BROWSE_INTERVAL: 5000,  # MARKINT
    # no distribution lists, channels or clusters
    C.MQIA_DIST_LISTS: C.MQDL_NOT_SUPPORTED,
    C.MQIA_CHANNEL_AUTO_DEF: C.MQCHAD_DISABLED,
    C.MQCA_REPOSITORY_NAME: "",
    C.MQCA_REPOSITORY_NAMELIST: "",
    # no event messages: each event switch as a new queue manager has it
    **dict.fromkeys(
        (
            C.MQIA_AUTHORITY_EVENT,
            C.MQIA_INHIBIT_EVENT,
            C.MQIA_LOCAL_EVENT,
            C.MQIA_REMOTE_EVENT,
            C.MQIA_PERFORMANCE_EVENT,
            C.MQIA_CHANNEL_EVENT,
            C.MQIA_COMMAND_EVENT,
            C.MQIA_CONFIGURATION_EVENT,
            C.MQIA_LOGGER_EVENT,
            C.MQIA_SSL_EVENT,
            C.MQIA_CHANNEL_AUTO_DEF_EVENT,
        ),
        C.MQEVR_DISABLED,
    ),
    C.MQIA_START_STOP_EVENT: C.MQEVR_ENABLED,
    # the rest a distributed queue manager answers, as crtmqm makes one: no exits, TLS
    # settings or parent, installation 1, no statistics, accounting or monitoring
    **dict.fromkeys(
        (
            C.MQCA_CHANNEL_AUTO_DEF_EXIT,
            C.MQCA_CLUSTER_WORKLOAD_EXIT,
            C.MQCA_CLUSTER_WORKLOAD_DATA,
            C.MQCA_SSL_CRL_NAMELIST,
            C.MQCA_SSL_CRYPTO_HARDWARE,
            C.MQCA_PARENT,
            C.MQCA_INSTALLATION_DESC,
            C.MQCA_CUSTOM,
        ),
        "",
    ),
    C.MQCA_INSTALLATION_NAME: "Installation1",
    C.MQCA_INSTALLATION_PATH: "/opt/mqm",
    C.MQCA_CONN_AUTH: "SYSTEM.DEFAULT.AUTHINFO.IDPWOS",
    **dict.fromkeys(
        (
            C.MQIA_ACCOUNTING_MQI,
            C.MQIA_ACCOUNTING_Q,
            C.MQIA_ACTIVITY_TRACE,
            C.MQIA_MONITORING_CHANNEL,
            C.MQIA_MONITORING_Q,
            C.MQIA_STATISTICS_MQI,
            C.MQIA_STATISTICS_Q,
            C.MQIA_STATISTICS_CHANNEL,
        ),
        C.MQMON_OFF,
    ),
    C.MQIA_ACCOUNTING_CONN_OVERRIDE: C.MQMON_DISABLED,
    C.MQIA_ACTIVITY_CONN_OVERRIDE: C.MQMON_DISABLED,
    C.MQIA_MONITORING_AUTO_CLUSSDR: C.MQMON_Q_MGR,
    C.MQIA_STATISTICS_AUTO_CLUSSDR: C.MQMON_Q_MGR,
    C.MQIA_ACCOUNTING_INTERVAL: 1800,
    C.MQIA_STATISTICS_INTERVAL: 1800,
    C.MQIA_TREE_LIFE_TIME: 1800,
    C.MQIA_ACTIVITY_RECORDING: C.MQRECORDING_MSG,
    C.MQIA_TRACE_ROUTE_RECORDING: C.MQRECORDING_MSG,
    C.MQIA_ADOPTNEWMCA_CHECK: C.MQADOPT_CHECK_ALL,
    C.MQIA_ADOPTNEWMCA_TYPE: C.MQADOPT_TYPE_ALL,
    C.MQIA_CERT_VAL_POLICY: C.MQ_CERT_VAL_POLICY_ANY,
    C.MQIA_CHLAUTH_RECORDS: C.MQCHLA_ENABLED,
    C.MQIA_CLUSTER_WORKLOAD_LENGTH: 100,
    C.MQIA_CLWL_MRU_CHANNELS: 999,
    C.MQIA_CLWL_USEQ: C.MQCLWL_USEQ_LOCAL,
    C.MQIA_DEF_CLUSTER_XMIT_Q_TYPE: C.MQCLXQ_SCTQ,
    C.MQIA_IP_ADDRESS_VERSION: C.MQIPADDR_IPV4,
    C.MQIA_LISTENER_TIMER: 60,
    C.MQIA_OUTBOUND_PORT_MIN: 0,
    C.MQIA_OUTBOUND_PORT_MAX: 0,
    C.MQIA_PUBSUB_CLUSTER: C.MQPSCLUS_ENABLED,
    C.MQIA_PUBSUB_MAXMSG_RETRY_COUNT: 5,
    C.MQIA_PUBSUB_NP_MSG: C.MQUNDELIVERED_DISCARD,
    C.MQIA_PUBSUB_NP_RESP: C.MQUNDELIVERED_NORMAL,
    C.MQIA_PUBSUB_SYNC_PT: C.MQSYNCPOINT_IFPER,
    C.MQIA_SSL_FIPS_REQUIRED: C.MQSSL_FIPS_NO,
    C.MQIA_SSL_RESET_COUNT: 0,
    C.MQIA_SUITE_B_STRENGTH: C.MQ_SUITE_B_NONE,
}

#: The defaults made from the queue manager's name: CERTLABL and SSLKEYR (the key
#: repository in the queue manager's directory, its name with '.' as '!').
QMGR_NAMED: Mapping[int, Callable[[str], str]] = {
    C.MQCA_CERT_LABEL: lambda name: f"ibmwebspheremq{name.lower()}",
    C.MQCA_SSL_KEY_REPOSITORY: lambda name: f"/var/mqm/qmgrs/{name.replace('.', '!')}/ssl/key",
}


def inquire_qmgr(
    qmgr_name: str,
    attrs: Mapping[str, AttrValue],
    selectors: Sequence[int],
    *,
    identifier: str | None = None,
) -> dict[int, int | str]:
    """MQINQ on the queue manager; attributes not in ``attrs`` have MQ's defaults.
    ``identifier``: MQCA_Q_MGR_IDENTIFIER (MQ's is the name and the creation time)."""
    out: dict[int, int | str] = {}
    for selector in selectors:
        if selector == C.MQCA_Q_MGR_NAME:
            out[selector] = qmgr_name
            continue
        if selector == C.MQCA_Q_MGR_IDENTIFIER:
            out[selector] = identifier or qmgr_name
            continue
        if selector in QMGR_FACTS:
            out[selector] = QMGR_FACTS[selector]
            continue
        if selector in QMGR_NAMED:
            out[selector] = QMGR_NAMED[selector](qmgr_name)
            continue
        attr = QMGR_ATTR_BY_SELECTOR.get(selector)
        if attr is None:
            raise failed(
                C.MQRC_SELECTOR_ERROR, f"selector {selector} is not a queue manager attribute"
            )
        out[selector] = inquire_value(attr, attrs.get(attr.name, attr.default))
    return out


#: The queue attributes MQSET may change, with the reason for a value it refuses.
SETTABLE: Mapping[int, int] = {
    C.MQIA_INHIBIT_GET: C.MQRC_INHIBIT_VALUE_ERROR,
    C.MQIA_INHIBIT_PUT: C.MQRC_INHIBIT_VALUE_ERROR,
    C.MQIA_TRIGGER_CONTROL: C.MQRC_TRIGGER_CONTROL_ERROR,
    C.MQIA_TRIGGER_DEPTH: C.MQRC_TRIGGER_DEPTH_ERROR,
    C.MQIA_TRIGGER_MSG_PRIORITY: C.MQRC_TRIGGER_MSG_PRIORITY_ERR,
    C.MQIA_TRIGGER_TYPE: C.MQRC_TRIGGER_TYPE_ERROR,
    C.MQCA_TRIGGER_DATA: C.MQRC_CHAR_ATTR_LENGTH_ERROR,
}


def set_values(queue: QueueDefinition, values: Mapping[int, int | str]) -> dict[str, AttrValue]:
    """MQSET's selectors and values as MQSC attributes of ``queue`` (checked, all or none):
    2067 for a selector MQSET cannot change, 2068 for one not of the queue's type, the
    attribute's own reason (2020, 2075-2078, 2006) for a value it does not take."""
    out: dict[str, AttrValue] = {}
    for selector, value in values.items():
        reason = SETTABLE.get(selector)
        attr = QUEUE_ATTR_BY_SELECTOR.get(selector)
        if reason is None or attr is None:
            raise failed(C.MQRC_SELECTOR_ERROR, f"selector {selector} cannot be set by MQSET")
        if queue.qtype not in attr.types:
            raise failed(
                C.MQRC_SELECTOR_NOT_FOR_TYPE,
                f"{attr.name} (selector {selector}) does not apply to {queue.qtype} {queue.name!r}",
            )
        mqsc: object = value
        for mqsc_value, mq_value in attr.inquire_map:
            if isinstance(value, int) and not isinstance(value, bool) and mq_value == value:
                mqsc = mqsc_value
                break
        else:
            if attr.inquire_map:  # a value the attribute does not have
                raise failed(reason, f"{attr.name}: {value!r} is not a value MQSET accepts")
        try:
            out[attr.name] = normalize(attr, mqsc)
        except MQError as exc:
            raise failed(reason, exc.detail) from None
    return out
