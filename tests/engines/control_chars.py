"""A protocol-perfect engine with one rule bug (max_raises played as 4) whose name and stderr are
full of characters some report formats cannot hold: colour escapes, a NUL, a terminal-title
sequence, a line separator, and Markdown that would hide the rest of a CI summary.

Every report must still be written, and no engine text may restyle or rewrite the terminal.
"""
import sys

from _common import serve_with

NAME = "acme\n<!-- \x1b]0;pwned\x07 \u2028"


def hook(request, server, number):
    if request.get("type") == "new_hand":
        sys.stderr.write("\x1b[31mERROR\x1b[0m nul:\x00 bell:\x07 clear:\x1b[2J sep:\u2028 end\n")
        sys.stderr.flush()
        request = {**request, "options": {**request["options"], "max_raises": 4}}
    response = server.handle(request)
    if request.get("type") == "hello" and response.get("ok"):
        response["engine"] = {**response["engine"], "name": NAME}
    return response


raise SystemExit(serve_with(hook))
