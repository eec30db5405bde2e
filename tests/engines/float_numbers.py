"""A correct engine that writes every whole number of its answers as a JSON float (`"seat": 2.0`,
`"stack": 100.0`): an engine doing its arithmetic in floats, or a JSON library that writes 2.0. JSON
Schema counts 2.0 as the integer 2; protocol.md says the harness reads it so."""
from _common import serve_with


def floats(value):
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, list):
        return [floats(item) for item in value]
    if isinstance(value, dict):
        return {key: floats(item) for key, item in value.items()}
    return value


def hook(request, server, number):
    return floats(server.handle(request))  # booleans stay booleans: true is not 1


if __name__ == "__main__":
    raise SystemExit(serve_with(hook))
