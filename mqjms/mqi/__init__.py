"""The MQI facade behind the pymqi and ibmmq drop-ins: IBM's constants, errors and structures.

One implementation, two flavours (pymqi 1.12 and ibmmq 2.x; see
shared/reference/pymqi.md). ``import mqjms`` does not import this package; the drop-in
modules do, when a program asks for them.
"""
