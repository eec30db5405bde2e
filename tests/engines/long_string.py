"""A correct engine except that its answers carry a long string: `long_string.py WHERE CHARS [CHAR]`.

WHERE is `extra` (every state gets an extra key `debug` holding the string: extra keys are allowed),
`message` (every act is refused as not your turn, with the string as its message), `name` (hello
names the engine with it) or `schema` (every state's `to_act` is a list of short strings, CHARS
characters in all: the schema refuses it, and jsonschema's words quote the whole list). CHAR (default `x`) is the character repeated. A string over what the
run's own report readers take (report/load.py) would make the run's report unreadable.
"""
import sys

from _common import serve_with

WHERE = sys.argv[1] if len(sys.argv) > 1 else "extra"
CHARS = int(sys.argv[2]) if len(sys.argv) > 2 else 2_000_000
TEXT = (sys.argv[3] if len(sys.argv) > 3 else "x") * CHARS


def hook(request, server, number):
    response = server.handle(request)
    if WHERE == "extra" and isinstance(response.get("state"), dict):
        response["state"]["debug"] = TEXT
    elif WHERE == "message" and request.get("type") == "act":
        return {"seq": request.get("seq"), "ok": False, "error": {"reason": "out_of_turn", "message": TEXT}}
    elif WHERE == "schema" and isinstance(response.get("state"), dict):
        response["state"]["to_act"] = [TEXT[:10]] * (CHARS // 10)
    elif WHERE == "name" and request.get("type") == "hello":
        response["engine"]["name"] = TEXT
    return response


raise SystemExit(serve_with(hook))
