"""benchmarks/bench_nginx.py runs as written, briefly (a few spectators and pollers, two boards, a
few journal lines), and prints its figures: every spectator with every move, the pollers'
answers, the hub's CPU of both runs. Nothing is timed here; the issue's numbers are
tests/hall/test_hall_nginx.py's."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # 9-18 s (nginx, a broker, a hub, two runs): make test-slow, beside test_hall_nginx
@pytest.mark.skipif(shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
                    reason="nginx is missing: make system-deps installs it")
def test_bench_nginx_prints_its_figures() -> None:
    proc = subprocess.run(
        [sys.executable, "benchmarks/bench_nginx.py", "--spectators", "12", "--pollers", "12",
         "--few", "4", "--boards", "2", "--lines", "40", "--pace", "40"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "spectators with every move: 12 of 12 (0 errors" in out, out
    assert "spectators with every move: 4 of 4 (0 errors" in out, out
    assert re.search(r"feed polls: \d+ \(200: \d+", out), out
    assert re.search(r"hub CPU with 12 spectators and 12 pollers: [0-9.]+ s, with 4 and 4: "
                     r"[0-9.]+ s \(ratio [0-9.]+\)", out), out
