"""Every shell command of ``docs/developer-board-latency.md`` (its ```sh blocks) runs as written,
from the repository's root, and ends well: the figures there come from these very commands.
The full benchmark takes minutes: ``slow`` (``make test-slow``); its ``--quick`` form runs
always.

The block it runs: docs/developer-board-latency.md, under ## How it was measured."""

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
    assert any("bench_board.py" in c for c in COMMANDS)


@pytest.mark.parametrize("command", [
    pytest.param(c, marks=() if "--quick" in c else (pytest.mark.slow,)) for c in COMMANDS])
def test_each_command_runs_as_written(command: str) -> None:
    done = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "load average" in done.stdout
