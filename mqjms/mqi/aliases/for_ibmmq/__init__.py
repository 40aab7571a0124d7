"""A directory on the path of a program run by ``python -m mqjms.ibmmq`` (see
:mod:`mqjms.mqi.aliases`): its ``ibmmq`` package is the drop-in."""
