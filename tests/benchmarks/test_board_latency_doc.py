"""Every shell command of ``docs/developer-board-latency.md`` (its ```sh blocks) runs as written,
from the repository's root, and ends well. The full benchmark, whose figures the guide gives,
takes minutes: the guide writes it as a form (a ```text block) and its ``--quick`` form as the
command run here (a full run in a suite would only measure the suite).

The block it runs: docs/developer-board-latency.md, under ## How it was measured. Its output is
checked for the table's shape (never the figures: benchmarks print, tests do not time), so that
``benchmarks/bench_board.py`` (issue 19's board targets) cannot rot."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "developer-board-latency.md"


def _commands() -> list[str]:
    out: list[str] = []
    block = False
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            block = line.strip() == "```sh"
            continue
        if block and line.strip() and not line.lstrip().startswith("#"):
            out.append(line.strip())
    return out


COMMANDS = _commands()


def test_the_doc_has_commands() -> None:
    assert COMMANDS == [".venv/bin/python benchmarks/bench_board.py --quick"]


@pytest.mark.slow  # 12-25 s of a real daemon's benchmark: make test-slow (make test within 4 min)
@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_runs_as_written(command: str) -> None:
    done = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "load average" in out.splitlines()[0]
    rows = [line for line in out.splitlines() if line.startswith("| ")]
    labels = [r.split(" | ")[0][2:] for r in rows]
    assert "sensor stable → shown (OLED), move committed" in labels
    assert "worst scan hand-off delay" in labels
    assert any(label.startswith("clock press → SSE at a browser, 3 clients") for label in labels)
    assert any(label.startswith("clock press → written to all 3 sockets") for label in labels)
    assert any(label.startswith("committed move on the loop, ply 10 vs ply 40") for label in labels)
    shown = next(r for r in rows if r.startswith("| sensor stable → shown (OLED)"))
    assert shown.count(" / ") == 4  # p50 / p99 / n, on tmpfs and on disk
