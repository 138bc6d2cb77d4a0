"""STYLE.md: full type hints, ``mypy --strict`` on the engine, ``pi``, the fakes and simulator
(``hardware_mocks``) and the benchmarks."""

import pathlib

import pytest
from mypy import api

ROOT = pathlib.Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("package", ["engine", "pi", "hardware_mocks", "benchmarks"])
def test_package_is_mypy_strict_clean(package: str) -> None:
    out, err, status = api.run(["--strict", "--no-incremental", "--cache-dir", "/dev/null",
                                "--config-file", str(ROOT / "pyproject.toml"),
                                str(ROOT / package)])
    assert status == 0, out + err
