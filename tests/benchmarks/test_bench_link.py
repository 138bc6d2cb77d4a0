"""benchmarks/bench_link.py runs (one game) and prints its figures; nothing is timed here."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_link.py"


def test_bench_link_runs_quick(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_link", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    assert module.main(["--quick"]) == 0  # type: ignore[attr-defined]
    out = capsys.readouterr().out
    rows = {line[:22].strip(): line[22:].split() for line in out.splitlines()
            if line[:22].strip() in ("listener (on_fed)", "handle, link on")}
    assert set(rows) == {"listener (on_fed)", "handle, link on"}
    lines = int(out.split(" journal lines")[0].rsplit(" ", 1)[1])
    assert int(rows["listener (on_fed)"][0]) == lines > 100  # every line went through the link
    assert f"journal lines at the subscriber: {lines} of {lines}" in out
