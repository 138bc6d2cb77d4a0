"""benchmarks/bench_game_edges.py (the loop's calls at a game's beginning and end, the disk held)
run as the developer's guide writes it, with one game, so that it cannot rot: checks the
table's shape and the game files it left, never the figures (benchmarks print; tests do not
time — the loop's not waiting is tests/pi/test_controller.py's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_game_edges_runs_one_game(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "benchmarks/bench_game_edges.py", "--games", "2",
                          "--stall", "0.01", "--dir", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("load average ") and "2 games" in lines[0]
    rows = [line for line in lines if line.startswith("| ")]
    assert [r.split(" | ")[0] for r in rows] == [
        "| the set-up that begins a game (the game before closed)",
        "| the news of the last line durable (record and marker handed on)"]
    assert all("median " in r and " ms, max " in r for r in rows)
    assert list(tmp_path.iterdir()) == []  # its state directory removed
