"""The reference engine, except that it dies (a Python traceback on stderr, exit code 134) when it is
asked to raise on fifth street, whatever the hand's label: a crash that depends only on the hand, so
the fuzzer's reproducer case makes `studcheck run` crash it again."""
import os
import sys
import traceback

from _common import serve_with


def raise_on_fifth(state):
    raise NotImplementedError(f"raise on {state['street']} street (seat {state['to_act']})")


def hook(request, server, number):
    if request.get("type") == "act" and request.get("action") == "raise":
        state = server.handle({"type": "state", "seq": request.get("seq")})
        if state.get("ok") and state["state"].get("street") == "fifth":
            try:
                raise_on_fifth(state["state"])
            except NotImplementedError:
                traceback.print_exc()
            print("engine: aborting", file=sys.stderr, flush=True)
            os._exit(134)
    return server.handle(request)


raise SystemExit(serve_with(hook))
