"""The hub's benchmarks run and print their figures (issue 19); nothing is timed here. The shell
commands of ``docs/developer-hub-load.md`` are run as written, from the repository's root."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "developer-hub-load.md"


def doc_commands() -> list[str]:
    """Every command of the document's ``sh`` blocks (one a line)."""
    blocks = re.findall(r"```sh\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def run(command: str, timeout: float) -> str:
    argv = shlex.split(command)
    assert argv[0] == ".venv/bin/python"  # the repository's own interpreter, as written
    done = subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_the_document_lists_the_commands_run_here() -> None:
    commands = doc_commands()
    assert any("bench_hub_cpu.py" in c for c in commands)
    assert any("bench_hall.py" in c and "--round-start" in c for c in commands)
    assert any("bench_hall.py" in c and "--round-start" not in c for c in commands)


def test_bench_hub_cpu_as_documented() -> None:
    for command in [c for c in doc_commands() if "bench_hub_cpu.py" in c]:
        out = run(command, 300)
        per_line = float(out.split("hub CPU per journal line: ")[1].split(" ms")[0])
        assert per_line > 0
        assert "load average" in out


@pytest.mark.slow
def test_bench_hall_as_documented() -> None:
    """A private Mosquitto, the hub, light boards and a hall page: every line of the boards'
    journals reaches the hub's replicas."""
    for command in [c for c in doc_commands() if "bench_hall.py" in c]:
        out = run(command, 600)
        assert re.search(r"lines lost: 0 of [1-9]", out), out
        if "--round-start" in command:
            boards = int(command.split("--boards ")[1].split()[0])
            assert f"on the hall page: {boards} of {boards} boards" in out, out
        else:
            assert "hub CPU per journal line" in out and "load average" in out
