"""The command layer: each module turns arguments into objects, calls the packages below, returns an exit code.

No package imports this one (tests/unit/test_layers.py checks it). `harness/commands.py`,
`report/commands.py` and `fuzz/commands.py` still live beside their packages; they are command
modules too, and the layer test treats them as such until they move here.
"""
