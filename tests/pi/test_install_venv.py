"""The installers' venv switch (systemd/install-lib.sh), run for real on folders of the test: a
new venv is switched to by one rename of the link the units go through, the one before is kept
for a rollback and older ones are removed, a venv folder of an older installer becomes
venv-legacy; a run that fails before the switch removes its new venv and leaves the link; units
that do not start on the new venv are restarted on the one before. `systemctl` is a stand-in
on PATH (it records its calls; FAKE_FAIL=N: its first N restarts fail). What the installers do
in order: their dry runs, tests/pi/test_systemd_unit.py and tests/pi/test_hub_install.py."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL_LIB = ROOT / "systemd" / "install-lib.sh"

FAKE_SYSTEMCTL = """#!/bin/bash
echo "$*" >> "$FAKE_LOG"
if [[ $1 == restart ]]; then
    n=$(grep -c '^restart' "$FAKE_LOG")
    (( n > ${FAKE_FAIL:-0} )) || exit 1
fi
exit 0
"""


class Lib:
    """A script sourcing install-lib.sh with its venvs in ``prefix``, run for real."""

    def __init__(self, tmp_path: Path) -> None:
        self.prefix = tmp_path / "opt"
        self.prefix.mkdir()
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        (self.bin / "systemctl").write_text(FAKE_SYSTEMCTL)
        (self.bin / "systemctl").chmod(0o755)
        self.log = tmp_path / "systemctl.log"
        self.script = tmp_path / "installer.sh"

    def run(self, body: str, fail: int = 0) -> subprocess.CompletedProcess[str]:
        self.script.write_text(f"set -euo pipefail\nsource {INSTALL_LIB}\n"
                               f"set_prefix {self.prefix}\n{body}\n")
        env = {**os.environ, "PATH": f"{self.bin}{os.pathsep}{os.environ['PATH']}",
               "FAKE_LOG": str(self.log), "FAKE_FAIL": str(fail)}
        return subprocess.run(["bash", str(self.script)], capture_output=True, text=True,
                              env=env, timeout=30)

    def venv(self, name: str) -> Path:
        """A folder standing for a venv (its marker file says which)."""
        folder = self.prefix / name
        folder.mkdir()
        (folder / "which").write_text(name)
        return folder

    def current(self) -> str:
        return (self.prefix / "venv" / "which").read_text()

    def calls(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


@pytest.fixture
def lib(tmp_path: Path) -> Lib:
    return Lib(tmp_path)


def test_switch_keeps_the_venv_before_and_removes_older_ones(lib: Lib) -> None:
    for name in ("venv-1", "venv-2", "venv-3"):
        lib.venv(name)
    (lib.prefix / "venv").symlink_to("venv-2")
    proc = lib.run('PREVIOUS="$(current_venv)"; echo "$PREVIOUS"\n'
                   f"NEW_VENV={lib.prefix}/venv-3\nswitch_venv\nprune_venvs \"$PREVIOUS\"")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "venv-2\n"
    assert os.readlink(lib.prefix / "venv") == "venv-3" and lib.current() == "venv-3"
    assert sorted(p.name for p in lib.prefix.iterdir()) == ["venv", "venv-2", "venv-3"]
    assert not (lib.prefix / "venv.new").exists()


def test_a_venv_folder_of_an_older_installer_becomes_venv_legacy(lib: Lib) -> None:
    (lib.prefix / "venv").mkdir()
    (lib.prefix / "venv" / "which").write_text("old")
    lib.venv("venv-1")
    proc = lib.run('PREVIOUS="$(current_venv)"; echo "$PREVIOUS"\n'
                   f"NEW_VENV={lib.prefix}/venv-1\nswitch_venv\nprune_venvs \"$PREVIOUS\"")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "venv-legacy\n" and lib.current() == "venv-1"
    assert (lib.prefix / "venv-legacy" / "which").read_text() == "old"  # kept, for a rollback


def test_a_run_that_fails_before_the_switch_removes_its_venv_and_leaves_the_link(
        lib: Lib) -> None:
    lib.venv("venv-1")
    (lib.prefix / "venv").symlink_to("venv-1")
    new = lib.venv("venv-2")
    proc = lib.run(f"NEW_VENV={new}\ntrap cleanup_build EXIT\ndie 'pip: no network'")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["installer.sh: pip: no network",
                                        f"installer.sh: stopped before switching; "
                                        f"{lib.prefix}/venv is as it was"]
    assert not new.exists() and lib.current() == "venv-1"


def test_units_that_start_stay_on_the_new_venv(lib: Lib) -> None:
    lib.venv("venv-1")
    lib.venv("venv-2")
    (lib.prefix / "venv").symlink_to("venv-2")
    proc = lib.run(f"NEW_VENV={lib.prefix}/venv-2\nrestart_or_roll_back venv-1 a.service")
    assert proc.returncode == 0, proc.stderr
    assert lib.calls() == ["restart a.service"] and lib.current() == "venv-2"


def test_units_that_do_not_start_are_restarted_on_the_venv_before(lib: Lib) -> None:
    lib.venv("venv-1")
    lib.venv("venv-2")
    (lib.prefix / "venv").symlink_to("venv-2")
    proc = lib.run(f"NEW_VENV={lib.prefix}/venv-2\n"
                   "restart_or_roll_back venv-1 a.service b.service", fail=1)
    assert proc.returncode == 2
    assert proc.stderr == (f"installer.sh: a.service b.service did not start on the new venv "
                           f"{lib.prefix}/venv-2: back on {lib.prefix}/venv-1 "
                           "(journalctl -u a.service)\n")
    assert lib.calls() == ["restart a.service b.service"] * 2 and lib.current() == "venv-1"
    # without a venv before (a first install) there is nothing to go back to
    proc = lib.run(f"NEW_VENV={lib.prefix}/venv-2\nrestart_or_roll_back '' a.service", fail=9)
    assert proc.returncode == 2 and "a.service did not start (journalctl" in proc.stderr
    assert lib.current() == "venv-1"
