"""mqjms's own tests: a package, so helpers are imported by name (``tests.stomp.activemq_support``,
``tests.support.mqenv``) and child processes run as ``python -m tests.qmgr.qmgr_child`` with the
checkout on ``PYTHONPATH``. ``tests`` is not installed with mqjms."""
