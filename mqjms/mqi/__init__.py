"""The pymqi/ibmmq drop-in's one MQI implementation, behind ``mqjms.pymqi`` and ``mqjms.ibmmq``.

Two layers (docs/pymqi.md, "How it is built"): the MQI verbs on an :class:`~.hconn.Hconn`
over a transport connection (:mod:`.opening`, :mod:`.getting`, :mod:`.putting`,
:mod:`.subscribing`, :mod:`.inquiry`, :mod:`.properties`, :mod:`.admin` and
:mod:`.admin_subscriptions`, with seed 002 in :mod:`.screening`),
and the classes programs use, written once for both flavours (:mod:`.qmgr`, :mod:`.queue`,
:mod:`.message_handle`, :mod:`.pcf`, :mod:`.callbacks`, :mod:`.topics`, bound to a
:class:`~.flavour.Flavour`); below them the pure layer: IBM's constants, errors and
structures in each flavour's defaults (shared/reference/pymqi.md). ``import mqjms`` does
not import this package; the drop-in modules do, when a program asks for them.
"""
