"""MQCD, the channel definition: for a client, the CLNTCONN channel MQCONNX connects over.

Versions 1-12, 984 to 1992 bytes on 64-bit (cmqxc.h). Its first field is ChannelName,
not a StrucId. Version 2 adds user ids and ConnectionName, 3 message retry, 4 the exit
lists (pointers), 5 clusters, 6 long user ids, 7 TLS, 8 compression and workload, 9
conversation sharing, 10 DLQ use and reconnection, 11 the certificate label, 12
SPLProtection. (Version 13, MQ 9.4's quantum-safe fields, is not laid out here yet.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mqjms.mq import constants as C
from mqjms.mq.control import ControlBlock, VersionLayout, layouts, longs, ptr
from mqjms.mq.structure import BYTE, CHAR, INT, FieldSpec, spec

MQCD_CURRENT_VERSION = 12
MQ_EXIT_NAME_LENGTH = 128  # Linux
MQ_EXIT_DATA_LENGTH = 32
MQCHT_CLNTCONN = 6
MQXPT_TCP = 2
MQPA_DEFAULT = 1
MQCDC_NO_SENDER_CONVERSION = 0
MQMCAT_PROCESS = 1
MQNPMS_FAST = 2
MQKAI_AUTO = -1
MQCOMPRESS_NONE = 0
MQCOMPRESS_NOT_AVAILABLE = -1
MQCAFTY_PREFERRED = 1
MQUSEDLQ_YES = 2
MQSID_NONE = b"\x00" * 40


def _exit(name: str) -> FieldSpec:
    return spec(name, CHAR, MQ_EXIT_NAME_LENGTH)


def _data(name: str) -> FieldSpec:
    return spec(name, CHAR, MQ_EXIT_DATA_LENGTH)


_V1 = (
    spec("ChannelName", CHAR, 20),
    spec("Version", INT),
    spec("ChannelType", INT),
    spec("TransportType", INT),
    spec("Desc", CHAR, 64),
    spec("QMgrName", CHAR, 48),
    spec("XmitQName", CHAR, 48),
    spec("ShortConnectionName", CHAR, 20),
    spec("MCAName", CHAR, 20),
    spec("ModeName", CHAR, 8),
    spec("TpName", CHAR, 64),
    spec("BatchSize", INT),
    spec("DiscInterval", INT),
    spec("ShortRetryCount", INT),
    spec("ShortRetryInterval", INT),
    spec("LongRetryCount", INT),
    spec("LongRetryInterval", INT),
    _exit("SecurityExit"),
    _exit("MsgExit"),
    _exit("SendExit"),
    _exit("ReceiveExit"),
    spec("SeqNumberWrap", INT),
    spec("MaxMsgLength", INT),
    spec("PutAuthority", INT),
    spec("DataConversion", INT),
    _data("SecurityUserData"),
    _data("MsgUserData"),
    _data("SendUserData"),
    _data("ReceiveUserData"),
)
_V2 = (
    spec("UserIdentifier", CHAR, 12),
    spec("Password", CHAR, 12),
    spec("MCAUserIdentifier", CHAR, 12),
    spec("MCAType", INT),
    spec("ConnectionName", CHAR, 264),
    spec("RemoteUserIdentifier", CHAR, 12),
    spec("RemotePassword", CHAR, 12),
)
_V3 = (
    _exit("MsgRetryExit"),
    _data("MsgRetryUserData"),
    spec("MsgRetryCount", INT),
    spec("MsgRetryInterval", INT),
)
_V4 = (
    spec("HeartbeatInterval", INT),
    spec("BatchInterval", INT),
    spec("NonPersistentMsgSpeed", INT),
    spec("StrucLength", INT),
    spec("ExitNameLength", INT),
    spec("ExitDataLength", INT),
    spec("MsgExitsDefined", INT),
    spec("SendExitsDefined", INT),
    spec("ReceiveExitsDefined", INT),
    ptr("MsgExitPtr"),
    ptr("MsgUserDataPtr"),
    ptr("SendExitPtr"),
    ptr("SendUserDataPtr"),
    ptr("ReceiveExitPtr"),
    ptr("ReceiveUserDataPtr"),
)
_V5 = (ptr("ClusterPtr"), spec("ClustersDefined", INT), spec("NetworkPriority", INT))
_V6 = (
    spec("LongMCAUserIdLength", INT),
    spec("LongRemoteUserIdLength", INT),
    ptr("LongMCAUserIdPtr"),
    ptr("LongRemoteUserIdPtr"),
    spec("MCASecurityId", BYTE, 40),
    spec("RemoteSecurityId", BYTE, 40),
)
_V7 = (
    spec("SSLCipherSpec", CHAR, 32),
    ptr("SSLPeerNamePtr"),
    spec("SSLPeerNameLength", INT),
    spec("SSLClientAuth", INT),
    spec("KeepAliveInterval", INT),
    spec("LocalAddress", CHAR, 48),
    spec("BatchHeartbeat", INT),
)
_V8 = (
    longs("HdrCompList", 2),
    longs("MsgCompList", 16),
    spec("CLWLChannelRank", INT),
    spec("CLWLChannelPriority", INT),
    spec("CLWLChannelWeight", INT),
    spec("ChannelMonitoring", INT),
    spec("ChannelStatistics", INT),
)
_V9 = (
    spec("SharingConversations", INT),
    spec("PropertyControl", INT),
    spec("MaxInstances", INT),
    spec("MaxInstancesPerClient", INT),
    spec("ClientChannelWeight", INT),
    spec("ConnectionAffinity", INT),
)
_V10 = (spec("BatchDataLimit", INT), spec("UseDLQ", INT), spec("DefReconnect", INT))
_V11 = (spec("CertificateLabel", CHAR, 64),)
_V12 = (spec("SPLProtection", INT),)

_LAYOUTS = layouts(_V1, _V2, _V3, _V4, _V5, _V6, _V7, _V8, _V9, _V10, _V11, _V12)


@dataclass(slots=True, eq=True)
class MQCD(ControlBlock):
    """A client-connection channel definition; defaults are IBM's MQCD_CLIENT_CONN_DEFAULT.

    Version defaults to 6, as in IBM's headers; set a higher one to use later fields.
    """

    STRUCTURE: ClassVar[str] = "MQCD"
    STRUC_ID: ClassVar[str] = ""  # the MQCD has no StrucId
    LAYOUTS: ClassVar[tuple[VersionLayout, ...]] = _LAYOUTS
    SPECS: ClassVar[tuple[FieldSpec, ...]] = _LAYOUTS[-1].specs

    ChannelName: str = ""
    Version: int = 6
    ChannelType: int = MQCHT_CLNTCONN
    TransportType: int = MQXPT_TCP
    Desc: str = ""
    QMgrName: str = ""
    XmitQName: str = ""
    ShortConnectionName: str = ""
    MCAName: str = ""
    ModeName: str = ""
    TpName: str = ""
    BatchSize: int = 50
    DiscInterval: int = 6000
    ShortRetryCount: int = 10
    ShortRetryInterval: int = 60
    LongRetryCount: int = 999999999
    LongRetryInterval: int = 1200
    SecurityExit: str = ""
    MsgExit: str = ""
    SendExit: str = ""
    ReceiveExit: str = ""
    SeqNumberWrap: int = 999999999
    MaxMsgLength: int = 4194304
    PutAuthority: int = MQPA_DEFAULT
    DataConversion: int = MQCDC_NO_SENDER_CONVERSION
    SecurityUserData: str = ""
    MsgUserData: str = ""
    SendUserData: str = ""
    ReceiveUserData: str = ""
    UserIdentifier: str = ""
    Password: str = ""
    MCAUserIdentifier: str = ""
    MCAType: int = MQMCAT_PROCESS
    ConnectionName: str = ""
    RemoteUserIdentifier: str = ""
    RemotePassword: str = ""
    MsgRetryExit: str = ""
    MsgRetryUserData: str = ""
    MsgRetryCount: int = 10
    MsgRetryInterval: int = 1000
    HeartbeatInterval: int = 300
    BatchInterval: int = 0
    NonPersistentMsgSpeed: int = MQNPMS_FAST
    StrucLength: int = _LAYOUTS[-1].length
    ExitNameLength: int = MQ_EXIT_NAME_LENGTH
    ExitDataLength: int = MQ_EXIT_DATA_LENGTH
    MsgExitsDefined: int = 0
    SendExitsDefined: int = 0
    ReceiveExitsDefined: int = 0
    MsgExitPtr: int = 0
    MsgUserDataPtr: int = 0
    SendExitPtr: int = 0
    SendUserDataPtr: int = 0
    ReceiveExitPtr: int = 0
    ReceiveUserDataPtr: int = 0
    ClusterPtr: int = 0
    ClustersDefined: int = 0
    NetworkPriority: int = 0
    LongMCAUserIdLength: int = 0
    LongRemoteUserIdLength: int = 0
    LongMCAUserIdPtr: int = 0
    LongRemoteUserIdPtr: int = 0
    MCASecurityId: bytes = MQSID_NONE
    RemoteSecurityId: bytes = MQSID_NONE
    SSLCipherSpec: str = ""
    SSLPeerNamePtr: int = 0
    SSLPeerNameLength: int = 0
    SSLClientAuth: int = 0
    KeepAliveInterval: int = MQKAI_AUTO
    LocalAddress: str = ""
    BatchHeartbeat: int = 0
    HdrCompList: tuple[int, ...] = (MQCOMPRESS_NONE, MQCOMPRESS_NOT_AVAILABLE)
    MsgCompList: tuple[int, ...] = (MQCOMPRESS_NONE, *(MQCOMPRESS_NOT_AVAILABLE,) * 15)
    CLWLChannelRank: int = 0
    CLWLChannelPriority: int = 0
    CLWLChannelWeight: int = 50
    ChannelMonitoring: int = 0
    ChannelStatistics: int = 0
    SharingConversations: int = 10
    PropertyControl: int = 0
    MaxInstances: int = 999999999
    MaxInstancesPerClient: int = 999999999
    ClientChannelWeight: int = 0
    ConnectionAffinity: int = MQCAFTY_PREFERRED
    BatchDataLimit: int = 5000
    UseDLQ: int = MQUSEDLQ_YES
    DefReconnect: int = 0
    CertificateLabel: str = ""
    SPLProtection: int = 0

    def __repr__(self) -> str:
        """Without the passwords, which a channel definition may carry."""
        return (
            f"MQCD(ChannelName={self.ChannelName!r}, Version={self.Version}, "
            f"ChannelType={self.ChannelType}, ConnectionName={self.ConnectionName!r}, "
            f"QMgrName={self.QMgrName!r}, ...)"
        )

    def to_dict(self) -> dict[str, object]:
        """As MQStructure.to_dict, with any password masked."""
        out = ControlBlock.to_dict(self)  # (a slots dataclass: no zero-argument super())
        for name in ("Password", "RemotePassword"):
            if out.get(name):
                out[name] = "***"
        return out

    @classmethod
    def format_reason(cls) -> int:
        return C.MQRC_CD_ERROR
