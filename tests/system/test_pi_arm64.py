"""The board's install on the machine it ships for (issue 36), `make test-pi`: a Debian trixie
arm64 root (Python 3.13, what Raspberry Pi OS ships today; tests/system/debian_root.py) under
qemu-user, the checkout cloned in it by Raspberry Pi OS's first user, ``sudo
systemd/install-pi.sh`` run verbatim as docs/board-builder.md says, then the sample game played
by the installed command (``damiera run --simulate --trace <the package's sample> --speed max``)
to the sample's own result and moves.

A chroot (tests/system/chroot.py), not a container: systemd does not run under qemu-user, and
systemctl in a chroot enables the unit but ignores daemon-reload and restart (the units under
real systemd: tests/system/test_container.py). About 20 minutes (everything runs emulated, the
packages without an arm64 wheel are built): not in `make test` nor `make test-slow`; the step
before a release (docs/developer.md). The clone is of the checkout's HEAD commit. Its figures
(the install's and the game's times, what was built) are printed (`make test-pi` shows them)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from chroot import Chroot
from debian_root import RootError, check_emulation, working_root

pytestmark = pytest.mark.arm64

REPO = Path(__file__).resolve().parents[2]
ARCH = "arm64"
USER = "pi"
CHECKOUT = f"/home/{USER}/damiera"
VENV_PYTHON = "/opt/damiera/venv/bin/python"
DAMIERA = "/opt/damiera/venv/bin/damiera"
SAMPLE_PDN = REPO / "pi" / "samples" / "italian_sample.pdn"


@dataclass
class Pi:
    root: Chroot
    figures: dict[str, str] = field(default_factory=dict)


def movetext(pdn: str) -> str:
    """A PDN game's moves and result, without its tags and comments (the clocks differ with
    the speed it was played at)."""
    body = pdn[pdn.index("\n\n"):]
    return " ".join(re.sub(r"\{[^}]*\}", " ", body).split())


def require_host() -> None:
    if os.geteuid() != 0:
        pytest.fail("make test-pi needs root (debootstrap, chroot)")
    missing = [tool for tool in ("debootstrap", "qemu-aarch64-static", "unshare", "chroot")
               if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"not installed: {' '.join(missing)} (make test-pi installs them)")
    try:
        check_emulation(ARCH)
    except RootError as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="module")
def pi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pi]:
    require_host()
    base = tmp_path_factory.mktemp("pi")
    start = time.monotonic()
    with working_root(ARCH, base) as root:
        made = Pi(Chroot(root))
        made.figures["root (made or copied)"] = f"{time.monotonic() - start:.0f} s"
        subprocess.run(["git", "-C", str(REPO), "bundle", "create",
                        str(root / "var/tmp/damiera.bundle"), "HEAD"],
                       check=True, capture_output=True)
        try:
            yield made
        finally:
            print("\nmake test-pi figures:")
            for name, value in made.figures.items():
                print(f"  {name}: {value}")


def test_install_pi_runs_verbatim_and_the_installed_command_plays_the_sample(pi: Pi) -> None:
    box, figures = pi.root, pi.figures
    # As an image has them: its host name resolves (sudo asks), a first user with sudo.
    box.ok('echo "127.0.1.1 $(hostname)" >> /etc/hosts')
    box.ok(f"useradd --create-home --groups sudo --shell /bin/bash {USER} && "
           f"echo '{USER} ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/010_{USER}-nopasswd")
    box.ok(f"git clone --quiet /var/tmp/damiera.bundle {CHECKOUT}", user=USER)
    figures["machine, Python"] = box.ok("uname -m; python3 --version").replace("\n", " ")

    # `sudo systemd/install-pi.sh` as the guide says, but as root without sudo: under qemu-user
    # a setuid program keeps the caller's uid (binfmt_misc's entry has no C flag), and sudo
    # refuses ("effective uid is not 0"). The checkout is still the user's, cloned by them.
    start = time.monotonic()
    installed = box.run(f"cd {CHECKOUT} && systemd/install-pi.sh", timeout=3600)
    figures["install-pi.sh"] = f"{time.monotonic() - start:.0f} s (exit {installed.returncode})"
    installed.check()
    assert box.ok("systemctl is-enabled damiera").strip() == "enabled"
    figures["built or installed"] = box.ok(
        f"{VENV_PYTHON} -m pip list --format=freeze 2>/dev/null | "
        "grep -iE '^(lgpio|rpi.gpio|pillow|damiera)=='").replace("\n", " ")

    sample = box.ok(f"{VENV_PYTHON} -c \"import importlib.resources as r; "
                    "print(r.files('pi') / 'samples' / 'italian_sample.jsonl')\"").strip()
    # As root, as `sudo damiera run …` would: the installed /etc/damiera/damiera.toml (the
    # default config once it exists) is root:damiera 0640, which the user pi may not read.
    start = time.monotonic()
    box.ok(f"{DAMIERA} run --simulate --trace {sample} --speed max --state-dir /root/sample "
           "--http off --quiet", timeout=1800)
    figures["sample game at --speed max"] = f"{time.monotonic() - start:.0f} s"
    games = box.ok("ls /root/sample/games").split()
    assert len(games) == 1, games
    played = box.ok(f"cat /root/sample/games/{games[0]}/game.pdn")
    expected = SAMPLE_PDN.read_text()
    result = next(line for line in expected.splitlines() if line.startswith("[Result "))
    figures["result"] = result
    assert result in played
    assert movetext(played) == movetext(expected)
