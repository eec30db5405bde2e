"""Writes a bad line at the first request after the new_hand of the cases named:
`at_case_bad_line.py KIND CASE_ID...`, KIND one of

  not_json    a debug line on stdout before the answer
  not_object  the answer inside a JSON list
  no_ok       the answer without its "ok"
  wrong_seq   the answer with another seq
  huge        the answer with 9 MiB of extra text (over the 8 MiB line limit)
"""
import sys

from _at_case import serve_misbehaving


def not_json(answer):
    print("DEBUG dealing fourth street", flush=True)
    return answer


def no_ok(answer):
    return {key: value for key, value in answer.items() if key != "ok"}


KINDS = {
    "not_json": not_json,
    "not_object": lambda answer: [answer],
    "no_ok": no_ok,
    "wrong_seq": lambda answer: {**answer, "seq": answer["seq"] + 1000},
    "huge": lambda answer: {**answer, "debug": "x" * (9 * 1024 * 1024)},
}
kind = KINDS[sys.argv[1]]


def misbehave(request, server):
    return kind(server.handle(request))


raise SystemExit(serve_misbehaving(sys.argv[2:], misbehave))
