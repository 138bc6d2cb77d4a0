"""ruff, configured in pyproject.toml, finds nothing (and a ``# noqa`` that suppresses nothing is
itself reported: RUF100)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "--output-format", "concise",
                           "--no-cache", str(ROOT)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
