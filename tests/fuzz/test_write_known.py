"""`studcheck fuzz --keep-going --write-known FILE`: the run's signatures in the --known format, so the
same run with `--known FILE` reports no new divergence (adopting the fuzzer on an imperfect engine).

Two planted bugs, razz only, few hands and a small shrink budget, in process: seed 1 shows three
signatures in 30 hands (hands 2, 4 and 9), and what is shrunk does not matter here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from planted import planted_server
from studcheck.commands.fuzz import FuzzConfig, fuzz
from studcheck.fuzz.known import load_known
from studcheck.protocol.client import EngineClient, InProcessTransport

HANG_GUARD_S = 600  # seconds before a subprocess counts as hung: a guard, not a measurement (load cannot break it)

BUGS = "max_raises+side_pot"
HANDS = 30


def run(tmp_path: Path, **options: object) -> tuple[int, list[str]]:
    lines: list[str] = []
    client = EngineClient(lambda: InProcessTransport(lambda: planted_server(BUGS)))
    config = FuzzConfig(hands=HANDS, seed=1, variants=("razz",), out=tmp_path / "cases", replay_engine="--engine ENGINE",
                        shrink_replays=5, keep_going=True, **options)  # type: ignore[arg-type]
    return fuzz(client, config, out=lines.append), lines


def test_write_known_then_known_reports_no_new_divergence(tmp_path: Path) -> None:
    known = tmp_path / "known.yaml"
    code, lines = run(tmp_path, write_known=known)
    assert code == 1, lines
    entries = load_known(known)
    signatures = [line.split()[1:4] for line in lines if line.startswith("  signature: ")]
    assert len(entries) == len(signatures) >= 2
    assert {(entry.kind, entry.path, entry.variant) for entry in entries} == {tuple(parts) for parts in signatures}
    assert all("(hand " in entry.reason and "of seed 1" in entry.reason for entry in entries)
    assert f"wrote {len(entries)} signatures to {known}; run with --known {known} to count them as known" in lines
    assert known.read_text().startswith("# Known divergences of ")

    code, again = run(tmp_path / "again", known=entries, known_file=known)
    assert code == 0, again
    assert again[-1].startswith(f"ok: no new divergence in {HANDS} hands (")


def test_write_known_keeps_the_reasons_of_known_signatures(tmp_path: Path) -> None:
    listed = tmp_path / "listed.yaml"
    listed.write_text("- signature: '* state.pots[].amount *'\n  reason: planted side-pot bug\n", encoding="utf-8")
    rewritten = tmp_path / "rewritten.yaml"
    run(tmp_path, known=load_known(listed), known_file=listed, write_known=rewritten)
    reasons = {entry.path: entry.reason for entry in load_known(rewritten)}
    assert reasons["state.pots[].amount"] == "planted side-pot bug"
    assert any(reason != "planted side-pot bug" for reason in reasons.values())


def test_write_known_needs_keep_going(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "studcheck", "fuzz", "--engine", "x", "--write-known", "k.yaml"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 2 and "--write-known needs --keep-going" in done.stderr
    assert not (tmp_path / "k.yaml").exists()
