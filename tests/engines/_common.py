"""Shared plumbing for the deliberately broken test engines: the reference engine plus a hook.

Each engine script calls `serve_with(hook)`; the hook sees every request and may answer it
(normally with `server.handle(request)`), misbehave, or die. Nothing here is fancy on purpose.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

from studcheck.protocol.serve import Server

Hook = Callable[[dict[str, Any], Server, int], "dict[str, Any] | None"]


def send(message: Any) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def serve_with(hook: Hook) -> int:
    """Answer each request through `hook(request, server, number)` (number counts from 1)."""
    server = Server()
    for number, line in enumerate(sys.stdin, start=1):
        request = json.loads(line)
        response = hook(request, server, number)
        if response is not None:
            send(response)
        if request.get("type") == "bye":
            return 0
    return 0
