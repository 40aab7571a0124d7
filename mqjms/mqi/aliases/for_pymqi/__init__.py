"""A directory on the path of a program run by ``python -m mqjms.pymqi`` (see
:mod:`mqjms.mqi.aliases`): its ``pymqi`` package is the drop-in."""
