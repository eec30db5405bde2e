"""Answers the new_hand of the cases named (CASE_ID...) twice, both lines in one write: a line nobody
asked for, there as soon as the first answer is."""
import json
import sys

from _at_case import serve_misbehaving


def misbehave(request, server):
    line = json.dumps(server.handle(request)) + "\n"
    sys.stdout.write(line + line)
    sys.stdout.flush()


raise SystemExit(serve_misbehaving(sys.argv[1:], misbehave, at=1))
