"""stud_high_only.py's hello (stud_high only, bring_in_tie=suit only) with wrong_rules.py's rules
(bring-in ties by seat, 4 raises): one run has items that pass, fail and are not applicable
(tests/harness/test_xdist.py). With $STUDCHECK_TEST_LOG set, each start appends its pid there."""
import os

from _common import serve_with

if os.environ.get("STUDCHECK_TEST_LOG"):
    with open(os.environ["STUDCHECK_TEST_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{os.getpid()}\n")


def hook(request, server, number):
    if request.get("type") == "new_hand":
        request = {**request, "options": {**request["options"], "bring_in_tie": "seat", "max_raises": 4}}
    response = server.handle(request)
    if request.get("type") == "hello":
        response["variants"] = ["stud_high"]
        response["options"]["bring_in_tie"] = ["suit"]
    return response


raise SystemExit(serve_with(hook))
