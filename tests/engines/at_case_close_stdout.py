"""Closes its stdout at the first request after the new_hand of the cases named (CASE_ID...) and goes
on running (reading its stdin) until its stdin ends."""
import os
import sys

from _at_case import serve_misbehaving


def misbehave(request, server):
    sys.stdout.flush()
    os.close(1)
    for _ in sys.stdin:
        pass
    os._exit(0)


raise SystemExit(serve_misbehaving(sys.argv[1:], misbehave))
