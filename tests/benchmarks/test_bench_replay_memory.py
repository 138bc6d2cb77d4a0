"""benchmarks/bench_replay_memory.py runs (a short trace) and prints its figures, so that it
cannot rot; nothing is measured against a bound here (benchmarks print; tests do not time)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_replay_memory.py"


def test_bench_replay_memory_prints_the_peak_of_both_reports(
        capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_replay_memory", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert module.main(["--quick"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert "load average" in lines[0]
    assert lines[1].split() == ["events", "presses", "text", "MB", "text", "s", "json", "MB",
                                "json", "s"]
    row = lines[2].split()
    assert len(row) == 6 and int(row[0]) >= 2_000 and float(row[2]) > 0 and float(row[4]) > 0
    assert lines[-1].startswith("target: at most 100 MB at every length; worst ")
    assert "failed" not in captured.out + captured.err
