"""STYLE.md: full type hints, ``mypy --strict`` on the engine, ``pi``, the fakes and simulator
(``hardware_mocks``) and the benchmarks."""

import pathlib

import pytest
from mypy import api

pytestmark = pytest.mark.heavy  # mypy --strict over the whole tree: run first (tests/conftest.py)

ROOT = pathlib.Path(__file__).resolve().parent.parent


PACKAGES = ["engine", "pi", "hardware_mocks", "benchmarks"]


def test_the_packages_are_mypy_strict_clean() -> None:
    """One run over the four (each imports the engine, ``pi`` and the fakes: four runs analysed
    them up to four times, 21 s against 11 s). Incremental, its cache in the checkout's
    ``.mypy_cache/suite`` (ignored by git; tests/pi/test_board_view.py keeps one of its own): a
    run after a change checks what the change touches, ~1 s for one file against ~9 s for
    all, as ``mypy`` in an editor does."""
    out, err, status = api.run(["--strict", "--cache-dir", str(ROOT / ".mypy_cache" / "suite"),
                                "--config-file", str(ROOT / "pyproject.toml"),
                                *(str(ROOT / package) for package in PACKAGES)])
    assert status == 0, out + err


@pytest.mark.parametrize("package", PACKAGES)
def test_no_type_is_silenced(package: str) -> None:
    """Issue 15: no ``# type: ignore`` where a type would do — and in our own code a type always
    does (the untyped libraries are declared in pyproject's mypy overrides instead)."""
    found = [f"{path.relative_to(ROOT)}:{n}"
             for path in sorted((ROOT / package).rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if "type: " + "ignore" in line]
    assert found == []
