"""A correct engine whose states carry extra keys that change on every answer (protocol.md section 3:
unknown extra keys are allowed and ignored): a counter, a timestamp-like value and the last error's
text, at the top of the state, in each seat row, in each pot and in the result's pots."""
import itertools

from _common import serve_with

COUNTER = itertools.count()


def decorate(state):
    tick = next(COUNTER)
    state["answers"] = tick
    state["clock"] = {"t": tick * 0.25, "nested": [tick]}
    for row in state.get("seats") or []:
        row["debug_tick"] = tick
    for pot in state.get("pots") or []:
        pot["note"] = f"pot seen at {tick}"
    for pot in (state.get("result") or {}).get("pots") or []:
        pot["note"] = f"awarded at {tick}"
    if state.get("result") is not None:
        state["result"]["engine_ms"] = tick
    return state


def hook(request, server, number):
    response = server.handle(request)
    if response.get("ok") and isinstance(response.get("state"), dict):
        decorate(response["state"])
        response["state"]["last_error"] = None
    elif not response.get("ok"):
        response["extra"] = {"last_error": response["error"]["message"], "tick": next(COUNTER)}
    return response


if __name__ == "__main__":
    raise SystemExit(serve_with(hook))
