"""The reference engine under another name: the name is the first argument (a badge's file name
is made from it; issue 33: a name of 300 characters used to make `run --html` fail)."""
import sys

from _common import serve_with

NAME = sys.argv[1]


def hook(request, server, number):
    response = server.handle(request)
    if request.get("type") == "hello" and response.get("ok"):
        response["engine"] = {**response["engine"], "name": NAME}
    return response


raise SystemExit(serve_with(hook))
