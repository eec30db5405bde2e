"""The client: both transports speak identical messages; applicability; bounded buffers."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harness_helpers import CASES, ENGINES
from studcheck.cases.load import load_cases
from studcheck.harness.runner import NotApplicable, Outcome, Runner, choose_options
from studcheck.protocol.client import EngineClient, EngineError, InProcessTransport, Problem, SubprocessTransport, reference_argv
from studcheck.protocol.messages import EngineInfo, RequestType, encode, encode_acyclic
from studcheck.protocol.pipes import PolledLines, ReadWatch, StderrLog, TooLong
from studcheck.protocol.serve import declared_options
from studcheck.rules import Options

SERVE = [sys.executable, "-m", "studcheck.protocol.serve"]


def transcripts(client: EngineClient) -> list[list[dict[str, Any]]]:
    client.start()
    runner = Runner(client)
    found = []
    for case in load_cases([CASES]):
        verdict = runner.run(case)
        assert verdict.outcome is Outcome.PASS, verdict.message
        found.append([entry["response"] for entry in client.transcript])
    client.stop()
    return found


def test_in_process_and_subprocess_answers_are_identical() -> None:
    in_process = transcripts(EngineClient(InProcessTransport))
    subprocess = transcripts(EngineClient(lambda: SubprocessTransport(SERVE)))
    assert in_process == subprocess
    assert sum(len(t) for t in in_process) > 10


def test_reference_argv_runs_the_serve_command() -> None:
    assert reference_argv() == [sys.executable, "-m", "studcheck", "serve"]


def info(**options: Any) -> EngineInfo:
    declared = declared_options()
    declared.update(options)
    return EngineInfo(name="x", version="1", variants=("stud_high",), options=declared)


def test_choose_options_sends_every_option_explicitly() -> None:
    case = next(case for case in load_cases([CASES]) if case.id == "T-BRI-001")
    chosen = choose_options(case, info())
    assert chosen == {**Options().to_json(), "bring_in_tie": "suit"}


def test_unnamed_option_falls_back_to_a_supported_value() -> None:
    case = next(case for case in load_cases([CASES]) if case.id == "T-OK-001")
    chosen = choose_options(case, info(max_raises=[4], burn_cards=[False], rake_percent=[0]))
    assert chosen["max_raises"] == 4 and chosen["burn_cards"] is False and chosen["rake_percent"] == 0


def test_named_unsupported_option_or_variant_is_not_applicable() -> None:
    cases = {case.id: case for case in load_cases([CASES])}
    with pytest.raises(NotApplicable, match="bring_in_tie=seat"):
        choose_options(cases["T-BRI-002"], info(bring_in_tie=["suit"]))
    with pytest.raises(NotApplicable, match="razz"):
        choose_options(cases["T-RAZ-001"], info())


def test_supports_tells_bools_from_ints() -> None:
    engine = info(max_raises=[3], open_pair_double=[True])
    assert engine.supports("open_pair_double", True)
    assert not engine.supports("open_pair_double", 1)
    assert not engine.supports("max_raises", True)
    assert engine.supports("rake_cap", 25) and not engine.supports("bring_in_tie", "any")


def test_timeout_then_restart_gives_a_working_engine() -> None:
    # Only the request that hangs gets a short timeout: the answered ones keep the default, so a busy
    # machine that delays an answer cannot turn it into a timeout.
    client = EngineClient(lambda: SubprocessTransport([sys.executable, str(ENGINES / "hang_third_request.py")]))
    client.start()
    client.request(RequestType.STATE, {})  # request 2: answered (no_hand)
    with pytest.raises(EngineError) as caught:
        client.request(RequestType.STATE, {}, timeout=0.5)
    assert caught.value.problem is Problem.TIMEOUT
    client.restart()
    assert client.request(RequestType.STATE, {})["error"]["reason"] == "no_hand"
    client.stop(polite=False)


def test_stderr_buffer_keeps_only_the_tail() -> None:
    client = EngineClient(lambda: SubprocessTransport([sys.executable, str(ENGINES / "stderr_flood.py")], stderr_keep=4096), timeout=10)
    client.start()
    for _ in range(3):
        client.request(RequestType.STATE, {})
    assert 0 < len(client.stderr_tail()) <= 4096
    client.stop()


def test_in_process_engine_exception_is_a_crash() -> None:
    class Broken:
        def handle(self, request: dict[str, Any]) -> dict[str, Any]:
            raise RuntimeError("boom")

    client = EngineClient(lambda: InProcessTransport(Broken))
    with pytest.raises(EngineError) as caught:
        client.start()
    assert caught.value.problem is Problem.CRASH and "boom" in caught.value.stderr


def test_writing_to_an_engine_that_never_reads_times_out() -> None:
    import subprocess

    from studcheck.protocol.client import _write_all

    # The reader never reads and outlives any test run: only the 0.3 s timeout can end the write, and
    # it says so with TimeoutError (a write ended by the reader's exit would be a BrokenPipeError).
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], stdin=subprocess.PIPE)
    assert process.stdin is not None
    with pytest.raises(TimeoutError):
        _write_all(process.stdin, b"x" * (4 * 1024 * 1024), 0.3)
    process.kill()
    process.wait()


@pytest.mark.parametrize("transport", ["subprocess", "in_process"])
def test_pipelined_requests_are_answered_in_order_with_their_own_seq(transport: str) -> None:
    client = EngineClient(lambda: SubprocessTransport(SERVE)) if transport == "subprocess" else EngineClient(InProcessTransport)
    client.start()
    try:
        pending = [client.send(RequestType.STATE, {}, defer=True) for _ in range(5)]
        pending.append(client.send(RequestType.HELLO, {"protocol": 1, "harness": "t"}, defer=True))
        client.flush()
        answers = [client.receive(item) for item in pending]
    finally:
        client.stop()
    assert [answer["seq"] for answer in answers] == [item.seq for item in pending]
    assert len(set(item.seq for item in pending)) == 6
    assert all(answer["error"]["reason"] == "no_hand" for answer in answers[:5])
    assert answers[5]["ok"] is True and answers[5]["protocol"] == 1


def test_a_second_answer_is_caught_while_pipelining_too() -> None:
    """Unsolicited lines cannot be told apart from owed answers while answers are owed: the extra
    answer then arrives where the next one is due, and its seq (an earlier, answered one) gives it
    away. It is named as a line nobody asked for is named when no answer is due: bad_response,
    never wrong_seq, whatever the timing."""
    client = EngineClient(lambda: SubprocessTransport([sys.executable, str(ENGINES / "double_answer.py")]))
    client.start()
    try:
        deal = client.send(RequestType.NEW_HAND, new_hand_fields(), defer=True)
        state = client.send(RequestType.STATE, {}, defer=True)
        assert client.receive(deal)["ok"] is True
        with pytest.raises(EngineError) as caught:
            client.receive(state)
    finally:
        client.stop(polite=False)
    assert caught.value.problem is Problem.BAD_RESPONSE
    assert "nobody asked for" in caught.value.message and f"answer to seq {state.seq}" in caught.value.message


def new_hand_fields() -> dict[str, Any]:
    from studcheck.cards import FULL_DECK

    return {"variant": "stud_high", "options": Options().to_json(),
            "stakes": {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10},
            "seats": [{"seat": 1, "stack": 100}, {"seat": 2, "stack": 100}],
            "deck": [str(card) for card in FULL_DECK], "remade_stub": None, "label": "pipelined"}


def test_a_batch_larger_than_the_pipes_does_not_deadlock() -> None:
    """6000 pipelined requests (170 KB, more than the engine's stdin pipe holds) whose answers (megabytes)
    fill its stdout pipe: the answers are read while the batch is written, so both go through."""
    client = EngineClient(lambda: SubprocessTransport(SERVE), timeout=10)
    client.start()
    try:
        _deal(client)
        pending = [client.send(RequestType.STATE, {}, defer=True) for _ in range(6000)]
        client.flush()
        answers = [client.receive(item) for item in pending]
    finally:
        client.stop()
    assert all(answer["ok"] for answer in answers) and len(answers) == 6000


def _deal(client: EngineClient) -> None:
    from studcheck.harness.runner import choose_options, new_hand_fields

    case = next(case for case in load_cases([CASES]) if case.id == "T-OK-001")
    assert client.info is not None
    assert client.request(RequestType.NEW_HAND, new_hand_fields(case, choose_options(case, client.info)))["ok"]


@pytest.mark.skipif(not Path("/proc/self/wchan").exists(), reason="/proc/PID/wchan is Linux's")
def test_an_engine_asleep_on_its_stdin_is_seen_so() -> None:
    """What lets the harness check for stray output the moment the engine goes back to reading."""
    process = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    watch = ReadWatch(process.pid)
    try:
        end = time.monotonic() + 120  # a hang guard, not a measurement: Python's start on a busy machine
        while not watch.waiting():
            assert time.monotonic() < end
            time.sleep(0.01)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
        watch.close()
    client = EngineClient(lambda: SubprocessTransport(SERVE))
    client.start()
    Runner(client).run(next(case for case in load_cases([CASES]) if case.id == "T-OK-001"), last=True)
    client.stop()
    assert client._seen_idle


def test_answers_already_read_are_returned_at_once_and_no_time_left_still_times_out() -> None:
    """`receive` hands back a line read along with earlier ones without waiting (or reading the
    clock); a receive with no time left (the run's deadline passed) times out all the same."""
    script = "import sys; sys.stdout.write('one\\ntwo\\nthree\\n'); sys.stdout.flush(); sys.stdin.read()"
    transport = SubprocessTransport([sys.executable, "-c", script])
    transport.start()
    try:
        assert transport.receive(60) == b"one\n"  # one write: all three lines come in one read
        with pytest.raises(EngineError) as caught:
            transport.receive(0)
        assert caught.value.problem is Problem.TIMEOUT
        assert transport.receive(60) == b"two\n" and transport.receive(60) == b"three\n"
    finally:
        transport.close(grace=0.05)


@pytest.mark.skipif(not hasattr(select, "poll"), reason="PolledLines needs poll (POSIX)")
def test_polled_lines_give_buffered_lines_only_and_leave_the_rest_to_get() -> None:
    read_out, write_out = os.pipe()
    read_err, write_err = os.pipe()
    with open(read_out, "rb", buffering=0) as stdout, open(read_err, "rb", buffering=0) as stderr:
        lines = PolledLines(stdout, stderr, StderrLog(), max_line=8)
        os.write(write_out, b"a\nb\npart")
        assert lines.buffered() is None  # nothing read yet: `get` reads
        assert lines.get(60) == b"a\n"
        assert lines.buffered() == b"b\n"
        assert lines.buffered() is None and lines.get(0) is None  # a part of a line
        os.write(write_out, b"ial\n123456789\n")
        assert lines.get(60) == b"partial\n"
        assert lines.buffered() is None  # longer than max_line: `get` says so
        assert isinstance(lines.get(0), TooLong) and lines.buffered() is None
    os.close(write_out)
    os.close(write_err)


def test_acyclic_encoding_is_byte_for_byte_the_protocol_encoding() -> None:
    """What `studcheck serve` writes and what the fuzzer compares answers with (`encode_acyclic`) is
    exactly `encode`'s line, for every answer of the harness's cases and for text beyond ASCII."""
    for transcript in transcripts(EngineClient(InProcessTransport)):
        for response in transcript:
            assert encode_acyclic(response) == encode(response)
    odd = {"seq": 1, "ok": False, "error": {"reason": "bad_request", "message": "é ♠ \u2028 \"quoted\" \\ \x00"},
           "nested": [[], {}, [1, -2.5, True, None, {"k": [0]}]]}
    assert encode_acyclic(odd) == encode(odd)
