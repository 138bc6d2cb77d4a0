"""Every shell command of ``docs/developer-board-latency.md`` (its ```sh blocks) runs as written,
from the repository's root, and ends well. The full benchmark, whose figures the guide gives,
takes minutes: the guide writes it as a form (a ```text block) and its ``--quick`` form as the
command run here (a full run in a suite would only measure the suite).

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
    assert COMMANDS == [".venv/bin/python benchmarks/bench_board.py --quick"]


@pytest.mark.parametrize("command", COMMANDS)
def test_each_command_runs_as_written(command: str) -> None:
    done = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "load average" in done.stdout
