"""benchmarks/bench_board.py (issue 19's board targets) run end to end with tiny sizes, so that it
cannot rot: checks the table's shape, never the figures (benchmarks print; tests do not time)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_board.py"


def test_bench_board_runs_with_tiny_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_board", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert module.main(["--quick"]) == 0  # type: ignore[attr-defined]
    out = capsys.readouterr().out
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
