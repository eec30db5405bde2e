"""Protocol-v1 adapters that put third-party stud engines behind the studcheck harness.

Each adapter is a runnable module (`python -m studcheck.adapters.<name>`) and imports its engine
lazily, so studcheck itself never depends on a third-party engine being installed.
"""
