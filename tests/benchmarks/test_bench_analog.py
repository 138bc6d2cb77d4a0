"""benchmarks/bench_analog.py (issue 40: the analog board's scan on the wire, the identity's
delay after a place, a run of scans of the datasheet-level fake) run briefly, as the developer
runs it, so that it cannot rot: checks the table's shape and the counts that are not timings
(bytes on the wire follow from the protocol; a wrong identity is a failure at any length),
never the speed (benchmarks print; tests do not time)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_analog_runs_briefly() -> None:
    run = subprocess.run([sys.executable, "benchmarks/bench_analog.py", "--scans", "2000",
                          "--places", "5"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    rows = [line for line in lines if line.startswith("| ")]
    scan = [r for r in rows if " transactions | " in r]
    # ADS7828: one combined transaction a chip, 5 bytes a channel (address, command; address,
    # two result bytes); ADS7128: one a chip, status, event flags and 16 RECENT bytes with
    # their opcodes, 30 bytes; TLA2528: one read a chip, the address and 2 bytes a channel
    assert scan[0].startswith("| 32 squares, 4 × ADS7828 | 4 transactions | 160 bytes | ")
    assert scan[1].startswith("| 50 squares, 7 × ADS7128 | 7 transactions | 210 bytes | ")
    assert scan[2].startswith("| 50 squares, 7 × TLA2528 | 7 transactions | 107 bytes | ")
    identity = [r for r in rows if " | median " in r]
    assert len(identity) == 2
    (million,) = [r for r in rows if r.startswith("| scans 2,000 × 32 squares")]
    assert "wrong classes 0 | wrong identities 0 of " in million
    assert any(r.startswith("| margin left: ") and "codes to spare" in r for r in rows)
