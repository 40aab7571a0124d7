"""``import pymqi`` in a child process of a program run by ``python -m mqjms.pymqi``:
this module replaces itself with ``mqjms.pymqi`` (and ``pymqi.CMQC``... with its constants)."""

from mqjms.mqi.runner import install_aliases

install_aliases("pymqi")
