"""STYLE.md: full type hints, ``mypy --strict`` on the engine."""

import pathlib

from mypy import api

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_engine_is_mypy_strict_clean() -> None:
    out, err, status = api.run(["--strict", "--no-incremental", "--cache-dir", "/dev/null",
                                str(ROOT / "engine")])
    assert status == 0, out + err
