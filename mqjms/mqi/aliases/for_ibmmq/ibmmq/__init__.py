"""``import ibmmq`` in a child process of a program run by ``python -m mqjms.ibmmq``:
this module replaces itself with ``mqjms.ibmmq`` (and ``ibmmq.CMQC``... with its constants)."""

from mqjms.mqi.runner import install_aliases

install_aliases("ibmmq")
