"""benchmarks/bench_web.py runs (tiny sizes) and prints its figures; nothing is timed here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_web.py"


def test_bench_web_runs_with_tiny_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_web", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert module.main(["--quick", "--clients", "0,3"]) == 0  # type: ignore[attr-defined]
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert [r[0] for r in rows] == ["0", "3"]
    assert rows[1][1] == "12"  # 4 presses x 3 clients: every client got every press
