"""A correct engine except that every state carries an extra key nested DEPTH levels deep (extra keys
are allowed; nesting that deep breaks reports and readers): `deep_answer.py DEPTH`."""
import sys


DEPTH = int(sys.argv[1]) if len(sys.argv) > 1 else 5000


def hook(request, server, number):
    response = server.handle(request)
    if isinstance(response.get("state"), dict):
        response["state"]["debug"] = "[" * DEPTH + "]" * DEPTH  # replaced by raw text below
    return response


if __name__ == "__main__":
    import json

    import _common

    def send(message):
        text = json.dumps(message)
        text = text.replace('"' + "[" * DEPTH + "]" * DEPTH + '"', "[" * DEPTH + "]" * DEPTH)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

    _common.send = send
    raise SystemExit(_common.serve_with(hook))
