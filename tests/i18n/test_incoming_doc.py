"""docs/languages.md: its shell commands (``make catalogs``: tests/i18n/test_make_catalogs.py
runs it as written; the config file written and ``make sample CONFIG=… SPEED=max``: run as
written by tests/test_docs_commands.py, and here as the Makefile writes it, its terminal
checked to speak Italian, the way tests/test_makefile.py runs ``make sample``)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "languages.md"
VENV = Path(sys.executable).parent.parent
SAMPLE = "make sample CONFIG=italiano.toml SPEED=max"
#: Issue 37: the guide said to give a file it never said to write.
WRITE = "printf 'language = \"it\"\\n' > italiano.toml"


def shell_commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", DOC.read_text(), re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_the_docs_commands_are_the_tested_ones() -> None:
    assert shell_commands() == [WRITE, SAMPLE, "make catalogs"]
    assert 'language = "it"' in DOC.read_text()
    for shot in ("it-live.png", "it-arbiter.png"):
        assert (ROOT / "docs" / "screenshots" / shot).is_file()


def test_make_sample_with_an_italian_config_speaks_italian(tmp_path: Path) -> None:
    target, *assignments = shlex.split(SAMPLE)[1:]
    dry = subprocess.run(["make", "-n", "--no-print-directory", "-C", str(ROOT), target,
                          f"VENV={VENV}", *assignments],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    argv = shlex.split(dry.replace("\\\n", " ").splitlines()[-1])
    assert argv[argv.index("--config") + 1] == "italiano.toml"
    config = tmp_path / "italiano.toml"
    config.write_text('language = "it"\n')  # the doc's TOML
    argv[argv.index("--config") + 1] = str(config)
    proc = subprocess.run([*argv, "--http", "off", "--state-dir", str(tmp_path / "state")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) > 25 and lines[0].startswith("mossa   1 bianco"), lines[:3]
    assert "| 25x18" in lines[-1], lines[-3:]  # the sample's last move: notation unchanged
