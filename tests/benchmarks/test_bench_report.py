"""benchmarks/bench_report.py runs (a short game) and prints its figures, so that it cannot rot;
nothing is timed here (benchmarks print; tests do not time)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_report.py"


def test_bench_report_renders_a_flagged_game(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_report", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert module.main(["--quick"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert "load average" in lines[0]
    assert lines[1].startswith("game: 60 plies, 4 flags, ")
    steps = [line.split(" | ")[0][2:].strip() for line in lines if line.startswith("| ")]
    assert steps[1:] == ["read the journal (replay)", "compose (words, diagrams)", "PDF (fpdf2)",
                         "report: read + compose + PDF", "HTML (apart)",
                         "damiera report (a process)"]
    assert all("load average" in line for line in lines if line.startswith("| ") and " s |" in line)
    assert lines[-1].startswith("target: 30 moves, 4 flags in under 2 s: ")
