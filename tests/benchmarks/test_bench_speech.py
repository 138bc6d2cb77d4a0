"""benchmarks/bench_speech.py (the board's figures with its voice off and on) run end to end with
tiny sizes, so that it cannot rot: checks the table's shape and that the voice spoke, never the
figures (benchmarks print; tests do not time)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_speech.py"


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="needs Debian's espeak-ng")
def test_bench_speech_runs_with_tiny_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_speech", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert module.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "load average" in out.splitlines()[0]
    rows = {r.split(" | ")[0][2:]: r.rstrip(" |").split(" | ")[1:] for r in out.splitlines()
            if r.startswith("| ") and not r.startswith("| figure")}
    off, on = rows["clock press → shown (OLED), p50 / p99 (n)"][:2]
    assert off.endswith("(4)") and on.endswith("(4)")
    assert rows["scan hand-off delay, p99 / max (scans)"][0] != "-"
    said = rows["phrases"][1]
    assert said.split()[0] != "0" and "said" in said  # every move said, or dropped as stale
