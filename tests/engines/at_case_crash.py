"""Exits with code 3 at the first request after the new_hand of the cases named (CASE_ID...)."""
import os
import sys

from _at_case import serve_misbehaving


def misbehave(request, server):
    print(f"boom: giving up at request seq {request.get('seq')}", file=sys.stderr, flush=True)
    os._exit(3)


raise SystemExit(serve_misbehaving(sys.argv[1:], misbehave))
