"""Imported by the fork server of `studcheck fuzz --jobs N` (pool.py) before it forks the workers:
warms the fuzzer up once so that no worker pays for its imports and first-use tables."""

from studcheck.fuzz.pool import warm

warm()
