"""``make catalogs`` (docs/languages.md), run as written on a copy of the sources: Babel
extracts, updates and compiles, and the committed catalogs come out unchanged (they are up to
date with the code); a message added to the code comes into both catalogs, untranslated.

The block it runs: docs/languages.md, under ## Adding or changing a message."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
VENV = Path(sys.executable).parent.parent
CATALOGS = [f"engine/locale/{lang}/LC_MESSAGES/damiera.{ext}" for lang in ("en", "it")
            for ext in ("po", "mo")]


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    if not (VENV / ".installed-run").exists():  # make would install into the copy otherwise
        pytest.fail(f"{VENV}/.installed-run missing: run `make run` or `make test` once",
                    pytrace=False)
    if shutil.which("make") is None:
        pytest.fail("make missing", pytrace=False)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "artifacts")
    for name in ("engine", "pi", "hardware_mocks"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=ignore)
    for name in ("Makefile", "babel.cfg", "pyproject.toml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    (tmp_path / ".venv").symlink_to(VENV)
    return tmp_path


def make_catalogs(where: Path) -> None:
    proc = subprocess.run(["make", "catalogs"], cwd=where, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_make_catalogs_leaves_the_committed_catalogs_as_they_are(copy: Path) -> None:
    make_catalogs(copy)
    for path in CATALOGS:
        assert (copy / path).read_bytes() == (ROOT / path).read_bytes(), \
            f"{path} is not what `make catalogs` makes: run it and commit"


def test_a_new_message_comes_into_every_catalog_untranslated(copy: Path) -> None:
    (copy / "pi" / "new_words.py").write_text(
        'from engine.i18n import N_\n\nWORDS = N_("a message nobody translated yet")\n')
    make_catalogs(copy)
    for lang in ("en", "it"):
        with (copy / f"engine/locale/{lang}/LC_MESSAGES/damiera.po").open("rb") as fp:
            catalog = read_po(fp)
        message = catalog.get("a message nobody translated yet")
        assert message is not None and message.string == ""
