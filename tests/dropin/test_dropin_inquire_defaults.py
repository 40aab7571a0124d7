"""MQINQ and PCF of attributes mqjms does not keep (clusters, scope, binding, service
interval, events, MARKINT, MAXPROPL, PSMODE, the queue manager's exits, TLS settings,
statistics and the rest of IBM's queue manager selectors): answered with IBM MQ's
defaults, as a queue manager outside any cluster with no event switched on answers them.
Before, each was 2067 MQRC_SELECTOR_ERROR, and INQUIRE_Q's responses lacked them (a
KeyError in the program); MQIA_BASE_TYPE on a local queue was 2067 where MQ warns 2068."""

from __future__ import annotations

from types import ModuleType

import pytest

from tests.support.mqenv import MQEnv

Q = "DEV.QUEUE.1"


def test_a_local_queue_answers_mqs_defaults(mq: ModuleType, env: MQEnv, qmgr) -> None:
    C = mq.CMQC
    queue = mq.Queue(qmgr, Q, C.MQOO_INQUIRE)
    assert queue.inquire(C.MQCA_CLUSTER_NAME) == b" " * 48
    assert queue.inquire(C.MQCA_CLUSTER_NAMELIST) == b" " * 48
    assert queue.inquire(C.MQIA_DEF_BIND) == C.MQBND_BIND_ON_OPEN
    assert queue.inquire(C.MQIA_SCOPE) == mq.CMQCFC.MQSCO_Q_MGR
    assert queue.inquire(C.MQIA_NPM_CLASS) == C.MQNPM_CLASS_NORMAL
    assert queue.inquire(C.MQIA_CLWL_USEQ) == C.MQCLWL_USEQ_AS_Q_MGR
    assert queue.inquire(C.MQIA_Q_SERVICE_INTERVAL) == 999_999_999
    assert queue.inquire(C.MQIA_Q_SERVICE_INTERVAL_EVENT) == mq.CMQCFC.MQQSIE_NONE
    with pytest.raises(mq.MQMIError) as caught:
        queue.inquire(C.MQIA_BASE_TYPE)  # an alias's attribute
    assert (caught.value.comp, caught.value.reason) == (
        C.MQCC_WARNING,
        C.MQRC_SELECTOR_NOT_FOR_TYPE,
    )
    queue.close()


def test_the_queue_manager_answers_mqs_defaults(mq: ModuleType, env: MQEnv, qmgr) -> None:
    C = mq.CMQC
    assert qmgr.inquire(C.MQIA_MAX_PROPERTIES_LENGTH) == C.MQPROP_UNRESTRICTED_LENGTH
    assert qmgr.inquire(C.MQIA_PUBSUB_MODE) == C.MQPSM_ENABLED
    assert qmgr.inquire(C.MQIA_MSG_MARK_BROWSE_INTERVAL) == 5000
    assert qmgr.inquire(C.MQIA_DIST_LISTS) == C.MQDL_NOT_SUPPORTED
    assert qmgr.inquire(C.MQIA_INHIBIT_EVENT) == mq.CMQCFC.MQEVR_DISABLED
    assert qmgr.inquire(C.MQIA_START_STOP_EVENT) == mq.CMQCFC.MQEVR_ENABLED
    assert qmgr.inquire(C.MQCA_REPOSITORY_NAME) == b" " * 48


def test_the_queue_manager_answers_every_selector_a_distributed_one_does(
    mq: ModuleType, env: MQEnv, qmgr
) -> None:
    # IBM's MQINQ queue manager selectors (distributed), as crtmqm leaves them; each was 2067
    C = mq.CMQC
    blank = {
        C.MQCA_CHANNEL_AUTO_DEF_EXIT: 128,
        C.MQCA_CLUSTER_WORKLOAD_EXIT: 128,
        C.MQCA_CLUSTER_WORKLOAD_DATA: 32,
        C.MQCA_SSL_CRL_NAMELIST: 48,
        C.MQCA_SSL_CRYPTO_HARDWARE: 256,
        C.MQCA_PARENT: 48,
        C.MQCA_CUSTOM: 128,
    }
    for selector, length in blank.items():
        assert qmgr.inquire(selector) == b" " * length, selector
    assert qmgr.inquire(C.MQCA_CONN_AUTH).rstrip() == b"SYSTEM.DEFAULT.AUTHINFO.IDPWOS"
    name = qmgr.inquire(C.MQCA_Q_MGR_NAME).rstrip()  # both made from it
    assert qmgr.inquire(C.MQCA_CERT_LABEL) == (b"ibmwebspheremq" + name.lower()).ljust(64)
    key_repository = qmgr.inquire(C.MQCA_SSL_KEY_REPOSITORY)
    assert key_repository == (b"/var/mqm/qmgrs/%s/ssl/key" % name).ljust(256)
    assert qmgr.inquire(C.MQCA_INSTALLATION_NAME) == b"Installation1".ljust(16)
    assert qmgr.inquire(C.MQIA_STATISTICS_Q) == C.MQMON_OFF
    assert qmgr.inquire(C.MQIA_MONITORING_AUTO_CLUSSDR) == C.MQMON_Q_MGR
    assert qmgr.inquire(C.MQIA_ACCOUNTING_INTERVAL) == 1800
    assert qmgr.inquire(C.MQIA_CHLAUTH_RECORDS) == mq.CMQCFC.MQCHLA_ENABLED
    assert qmgr.inquire(C.MQIA_PUBSUB_SYNC_PT) == mq.CMQCFC.MQSYNCPOINT_IFPER
    assert qmgr.inquire(C.MQIA_CLWL_USEQ) == C.MQCLWL_USEQ_LOCAL


@pytest.mark.embedded_only("PCF maps onto the embedded queue manager's administration")
def test_inquire_q_gives_them_too(mq: ModuleType, env: MQEnv, qmgr) -> None:
    C = mq.CMQC
    [found] = mq.PCFExecute(qmgr).MQCMD_INQUIRE_Q({C.MQCA_Q_NAME: Q})
    assert found[C.MQIA_SCOPE] == mq.CMQCFC.MQSCO_Q_MGR and found[C.MQIA_DEF_BIND] == 0
    assert found[C.MQCA_CLUSTER_NAME].strip() == b""
    [qmgr_found] = mq.PCFExecute(qmgr).MQCMD_INQUIRE_Q_MGR()
    assert qmgr_found[C.MQIA_PUBSUB_MODE] == C.MQPSM_ENABLED
    assert qmgr_found[C.MQCA_CERT_LABEL].strip().startswith(b"ibmwebspheremq")
    assert qmgr_found[C.MQIA_STATISTICS_INTERVAL] == 1800
