"""benchmarks/bench_daemon.py run end to end with tiny sizes, so that it cannot rot: the real
daemon in this process (latency), daemon subprocesses (idle CPU, RSS, start to READY=1) and the
resume of a short journal. Checks the table's shape and counts, never the figures (benchmarks
print figures; tests do not time)."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_daemon.py"


def _load() -> object:
    spec = importlib.util.spec_from_file_location("bench_daemon", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_bench_daemon_runs_with_tiny_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    # --starts 0: the idle run's own start is the READY figure; --idle-threads 0: no
    # in-process idle breakdown (each in-process daemon costs ~1 s to stop its 18 buttons).
    status = bench.main(["--moves", "2", "--idle", "0.2", "--starts", "0",  # type: ignore[attr-defined]
                         "--resumes", "1", "--resume-moves", "4", "--idle-threads", "0"])
    assert status == 0
    out = capsys.readouterr().out
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| ([^|]+?) \| (\d+) \|", out, re.M)}
    assert rows["clock press → journaled (commits a move)"] == "2"  # one press per move
    assert rows["clock press → show()"] == "2"
    assert int(rows["sensor stable → journaled (no clock, every change)"]) >= 4  # lift + place
    assert int(rows["sensor stable → journaled (commits a move)"]) >= 1  # the opponent's lift
    assert "| RSS at the end of the idle period / peak |" in out
    assert re.search(r"start → READY=1, empty state dir \(1 runs\) \| median \d", out)
    assert "where the time goes" in out
    assert re.search(r"GameSession.resume, 4 moves / \d+ journal lines", out)
