"""The ARM install, checked offline: every package the locks pin has a wheel on PyPI for the
Python and machine a board or a hub runs on, or the installers build it from its source with
the apt packages its build needs (install-lib.sh's packages_to_build), and nothing else is
built. PyPI's files are known by name from systemd/files-pi.txt (written by systemd/lock-pi.sh
with the locks: its hashes are the locks'), and a wheel fits as pip judges it: its tags among
the interpreter's (packaging.tags), manylinux_2_X up to the OS's glibc.

The targets: Raspberry Pi OS bookworm (Python 3.11, glibc 2.36) and trixie (3.13, 2.41), 64-bit
(aarch64) and 32-bit (armv7l); for a hub also a PC (x86_64: Debian 12 and 13, Ubuntu 24.04's
Python 3.12 with glibc 2.39). That the builds named here work was measured: lgpio 0.2.2.0 for
Python 3.13 from its source with swig and PYPI=1 (x86_64, this machine); RPi.GPIO and Pillow on
the Pi, see docs/board-builder.md."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.tags import Tag, compatible_tags, cpython_tags
from packaging.utils import NormalizedName, parse_wheel_filename

from tests.pi.locks import BUILD_LOCK, LOCK, Pin, read_files, read_lock

ROOT = Path(__file__).resolve().parents[2]
INSTALL_LIB = ROOT / "systemd" / "install-lib.sh"
#: What the hub's lock leaves out (install-hub.sh's LOCK_WITHOUT): the board's GPIO backends.
HUB_WITHOUT = {"lgpio", "rpi-gpio"}
#: What building each package from its source needs from apt besides python3-dev and gcc, and
#: in its environment. lgpio's SWIG interface links the system's liblgpio (liblgpio-dev:
#: Raspberry Pi OS) or, with PYPI=1, the C library its source bundles (Debian has no liblgpio).
BUILD_NEEDS: dict[str, set[str]] = {
    "rpi-gpio": set(),
    "pillow": {"libjpeg-dev", "zlib1g-dev"},
    "lgpio": {"swig"},
}


@dataclass(frozen=True)
class Target:
    """An OS a board or a hub is installed on: its Python, machine and glibc."""

    os: str
    python: tuple[int, int]
    machine: str
    glibc: tuple[int, int]

    def __str__(self) -> str:
        return f"{self.os}-py{self.python[0]}.{self.python[1]}-{self.machine}"

    def tags(self) -> set[Tag]:
        """The wheel tags pip accepts there, most specific first (packaging's own order)."""
        platforms = [f"manylinux_{self.glibc[0]}_{minor}_{self.machine}"
                     for minor in range(self.glibc[1], 16, -1)]
        platforms += [f"manylinux2014_{self.machine}", f"linux_{self.machine}"]
        return {*cpython_tags(self.python, platforms=platforms),
                *compatible_tags(self.python, f"cp{self.python[0]}{self.python[1]}", platforms)}

    def markers(self) -> dict[str, str]:
        version = f"{self.python[0]}.{self.python[1]}"
        return {"platform_machine": self.machine, "sys_platform": "linux",
                "platform_system": "Linux", "os_name": "posix", "python_version": version,
                "python_full_version": f"{version}.0", "implementation_name": "cpython",
                "platform_python_implementation": "CPython", "extra": ""}


PI_TARGETS = [Target(os, python, machine, glibc)
              for os, python, glibc in (("bookworm", (3, 11), (2, 36)),
                                        ("trixie", (3, 13), (2, 41)))
              for machine in ("aarch64", "armv7l")]
#: Raspberry Pi OS 32-bit on a Pi 1 or Zero (ARMv6): the `pi` extra's markers leave the GPIO
#: backends out there (not a target of the lock's; what the installer builds must still hold).
ARMV6_TARGETS = [Target(os, python, "armv6l", glibc)
                 for os, python, glibc in (("bookworm", (3, 11), (2, 36)),
                                           ("trixie", (3, 13), (2, 41)))]
PC_TARGETS = [Target("debian12", (3, 11), "x86_64", (2, 36)),
              Target("ubuntu24.04", (3, 12), "x86_64", (2, 39)),
              Target("debian13", (3, 13), "x86_64", (2, 41))]
FILES = read_files()


def installed(target: Target, hub: bool) -> dict[NormalizedName, Pin]:
    """The runtime lock's packages pip installs on ``target`` (a board's, or a hub's)."""
    return {name: pin for name, pin in read_lock(LOCK).items()
            if pin.applies(target.markers()) and not (hub and name in HUB_WITHOUT)}


def without_wheel(target: Target, pins: dict[NormalizedName, Pin]) -> set[str]:
    """The packages of ``pins`` none of whose wheels fits ``target``."""
    tags = target.tags()
    missing = set()
    for name, pin in pins.items():
        wheels = [f for f in FILES[(name, pin.version)] if f.endswith(".whl")]
        if not any(tags & set(parse_wheel_filename(f)[3]) for f in wheels):
            missing.add(name)
    return missing


@dataclass(frozen=True)
class Build:
    """What install-lib.sh's packages_to_build says for a target."""

    from_source: set[str]
    apt: set[str]
    env: set[str]


def installers_build(target: Target, gpio: bool, apt_has_liblgpio: bool) -> Build:
    """packages_to_build VERSION MACHINE [gpio], run in bash, with apt's answer on
    liblgpio-dev given (has_apt_package replaced: nothing asks apt here)."""
    script = f"""
        source {INSTALL_LIB}
        has_apt_package() {{ [[ $1 == liblgpio-dev && {int(apt_has_liblgpio)} == 1 ]]; }}
        packages_to_build {target.python[0]}.{target.python[1]} {target.machine} \
            {"gpio" if gpio else ""}
        echo "$FROM_SOURCE"
        echo "${{BUILD_APT[*]}}"
        echo "${{BUILD_ENV[*]}}"
    """
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    sources, apt, env = proc.stdout.split("\n")[:3]
    return Build(from_source=set() if sources == ":none:" else set(sources.split(",")),
                 apt=set(apt.split()), env=set(env.split()))


def test_the_files_are_the_locks_files() -> None:
    """files-pi.txt names exactly the files whose hashes the locks hold, pin for pin: it is
    the locks' own list (lock-pi.sh wrote both from one resolution), not an older one."""
    pins = {**read_lock(LOCK), **read_lock(BUILD_LOCK)}
    assert {key for key in FILES} == {(name, pin.version) for name, pin in pins.items()}
    for name, pin in pins.items():
        files = FILES[(name, pin.version)]
        assert sorted(files.values()) == sorted(pin.hashes), name
        assert any(not f.endswith(".whl") for f in files), (name, "no source on PyPI")


@pytest.mark.parametrize("target", PI_TARGETS + PC_TARGETS, ids=str)
def test_the_build_tools_are_wheels_everywhere(target: Target) -> None:
    """requirements-build.txt is installed as root from wheels only: one fits every target."""
    assert without_wheel(target, read_lock(BUILD_LOCK)) == set()


@pytest.mark.parametrize("apt_has_liblgpio", [True, False], ids=["pi-os", "debian"])
@pytest.mark.parametrize("target", PI_TARGETS + ARMV6_TARGETS, ids=str)
def test_a_board_builds_exactly_what_has_no_wheel(target: Target,
                                                  apt_has_liblgpio: bool) -> None:
    """On each Raspberry Pi OS, 64- and 32-bit: the packages without a fitting wheel are the
    installer's FROM_SOURCE, and apt brings what their builds need. lgpio links Raspberry Pi
    OS's liblgpio where apt has it, else builds its bundled library (PYPI=1)."""
    missing = without_wheel(target, installed(target, hub=False))
    build = installers_build(target, gpio=True, apt_has_liblgpio=apt_has_liblgpio)
    assert build.from_source == missing, target
    for name in missing:
        assert name in BUILD_NEEDS, f"{name} has no wheel for {target} and no known build"
        assert BUILD_NEEDS[name] | {"python3-dev", "gcc"} <= build.apt, (name, build.apt)
    if "lgpio" in missing:
        assert ("liblgpio-dev" in build.apt) is apt_has_liblgpio
        assert ("PYPI=1" in build.env) is not apt_has_liblgpio
    else:
        assert build.env == set() and "liblgpio-dev" not in build.apt
    assert (build.apt == set()) is (missing == set())


@pytest.mark.parametrize("target", PI_TARGETS + ARMV6_TARGETS + PC_TARGETS, ids=str)
def test_a_hub_builds_exactly_what_has_no_wheel(target: Target) -> None:
    """A hub (no GPIO backends) on a Pi or a PC: only Pillow on 32-bit ARM is built; on a PC
    or a 64-bit Pi nothing, and no compiler is installed."""
    missing = without_wheel(target, installed(target, hub=True))
    build = installers_build(target, gpio=False, apt_has_liblgpio=False)
    assert build.from_source == missing, target
    assert missing == ({"pillow"} if target.machine.startswith("armv") else set())
    for name in missing:
        assert BUILD_NEEDS[name] | {"python3-dev", "gcc"} <= build.apt
    assert (build.apt == set()) is (missing == set()) and build.env == set()


def test_what_the_check_knows_of_the_lock() -> None:
    """The facts the docs state, as the check finds them: lgpio has wheels up to Python 3.12
    (none for 3.13), RPi.GPIO none at all, Pillow none for armv7l; everything else has one for
    every target (pure Python or built for it)."""
    bookworm_arm64, bookworm_armhf, trixie_arm64, trixie_armhf = PI_TARGETS
    board = {t: without_wheel(t, installed(t, hub=False)) for t in PI_TARGETS}
    assert board[bookworm_arm64] == {"rpi-gpio"}
    assert board[bookworm_armhf] == {"rpi-gpio", "pillow"}
    assert board[trixie_arm64] == {"rpi-gpio", "lgpio"}
    assert board[trixie_armhf] == {"rpi-gpio", "lgpio", "pillow"}
    # the glibc counts: lgpio's aarch64 wheel is manylinux_2_34, above bullseye's 2.31
    older = Target("bullseye", (3, 11), "aarch64", (2, 31))
    assert "lgpio" in without_wheel(older, installed(older, hub=False))
