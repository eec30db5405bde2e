"""Never answers the first request after the new_hand of the cases named (CASE_ID...): it sleeps."""
import sys
import time

from _at_case import serve_misbehaving


def misbehave(request, server):
    while True:
        time.sleep(60)


raise SystemExit(serve_misbehaving(sys.argv[1:], misbehave))
