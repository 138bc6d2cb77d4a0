"""The Raspberry Pi itself, as ``damiera doctor`` sees it, behind one small interface.

:class:`PiSystem` is everything the Pi checks read: files (``/dev/i2c-*``, ``/dev/gpiochip*``,
the I²C adapter's clock in the device tree, the unit file, systemd's time-sync flag), the
current user's groups, whether a Python module is installed, and a command's output
(``raspi-config nonint get_i2c``, ``timedatectl``). :class:`HostSystem` reads the real ones;
the simulator's fake (``hardware_mocks.pi_system``) answers as a healthy Pi, or as a broken one.
:func:`pi_checks` turns what it reads into OK / WARN / FAIL lines, each with what to do.
"""

from __future__ import annotations

import glob
import os
import subprocess
from collections.abc import Sequence
from typing import Protocol

from engine.i18n import N_
from pi.drivers.probe import FAIL, OK, WARN, Finding

__all__ = ["PiSystem", "HostSystem", "pi_checks", "UNIT_PATHS", "SYNC_FLAG"]

#: Where install-pi.sh puts the unit (and where a packaged one would be).
UNIT_PATHS = ("/etc/systemd/system/damiera.service", "/lib/systemd/system/damiera.service")
#: systemd-timesyncd's flag file: present once the clock was synchronised since boot.
SYNC_FLAG = "/run/systemd/timesync/synchronized"
#: gpiozero's pin backends in the order it tries them (pi/pyproject: lgpio first).
GPIO_BACKENDS = (("lgpio", "lgpio"), ("RPi.GPIO", "rpigpio"), ("pigpio", "pigpio"))


class PiSystem(Protocol):
    """What the Pi checks read. Every method answers, never raises: a file that cannot be read
    is None, a command that cannot be run is None."""

    def glob(self, pattern: str) -> list[str]: ...
    def read_bytes(self, path: str) -> bytes | None: ...
    def groups(self) -> frozenset[str]: ...
    def user(self) -> str: ...
    def has_module(self, name: str) -> bool: ...
    def run(self, argv: Sequence[str]) -> str | None: ...


class HostSystem:
    """The real Pi (or any Linux PC, where most checks then fail, as they should)."""

    def glob(self, pattern: str) -> list[str]:
        return sorted(glob.glob(pattern))

    def read_bytes(self, path: str) -> bytes | None:
        try:
            with open(path, "rb") as fh:
                return fh.read(64 * 1024)
        except OSError:
            return None

    def groups(self) -> frozenset[str]:
        import grp
        names = set()
        for gid in os.getgroups():
            try:
                names.add(grp.getgrgid(gid).gr_name)
            except KeyError:
                continue
        return frozenset(names)

    def user(self) -> str:
        import pwd
        return pwd.getpwuid(os.getuid()).pw_name

    def has_module(self, name: str) -> bool:
        import importlib.util
        try:
            return importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            return False

    def run(self, argv: Sequence[str]) -> str | None:
        try:
            done = subprocess.run(list(argv), capture_output=True, text=True, timeout=10,
                                  check=False)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout if done.returncode == 0 else None


def _i2c_speed(system: PiSystem, bus: int) -> int | None:
    """The adapter's clock in Hz from the device tree (a 32-bit big-endian cell)."""
    raw = system.read_bytes(f"/sys/class/i2c-adapter/i2c-{bus}/of_node/clock-frequency")
    if raw is None or len(raw) < 4:
        return None
    return int.from_bytes(raw[:4], "big")


def pi_checks(system: PiSystem, bus: int = 1) -> list[Finding]:
    """The Pi's part of ``damiera doctor``: I²C on and its speed, the user's groups, the GPIO
    chips and gpiozero's backend, the clock synchronised, the unit installed with a watchdog."""
    out: list[Finding] = []
    node = f"/dev/i2c-{bus}"
    setting = system.run(["raspi-config", "nonint", "get_i2c"])
    if system.glob(node):
        speed = _i2c_speed(system, bus)
        shown = f"{speed // 1000} kHz" if speed else N_("speed unknown")
        out.append(Finding(OK if speed is None or speed >= 100_000 else WARN, node,
                           N_("I²C enabled, {speed}").format(speed=shown),
                           "" if speed is None or speed >= 400_000
                           else N_("dtparam=i2c_arm_baudrate=400000 in /boot/firmware/config.txt "
                                   "for a faster scan")))
    else:
        disabled = setting is not None and setting.strip() == "1"
        out.append(Finding(FAIL, node, N_("missing: I²C is not enabled (raspi-config: disabled)")
                           if disabled else N_("missing: I²C is not enabled"),
                           N_("sudo raspi-config nonint do_i2c 0, then reboot")))
    groups = system.groups()
    user = system.user()
    for group in ("i2c", "gpio"):
        if group in groups:
            out.append(Finding(OK, N_("group {group}").format(group=group),
                               N_("{user} is in it").format(user=user)))
        else:
            out.append(Finding(FAIL, N_("group {group}").format(group=group),
                               N_("{user} is not in it").format(user=user),
                               N_("sudo usermod -aG {group} {user}, then log in again").format(
                                   group=group, user=user)))
    chips = system.glob("/dev/gpiochip*")
    if chips:
        out.append(Finding(OK, "GPIO", f"{', '.join(chips)}"))
    else:
        out.append(Finding(FAIL, "GPIO", N_("no /dev/gpiochip*"), N_(
            "not a Raspberry Pi, or a kernel without the GPIO character device")))
    backend = next((name for module, name in GPIO_BACKENDS if system.has_module(module)), None)
    if backend is not None:
        out.append(Finding(OK, "gpiozero", N_("pin backend {backend}").format(backend=backend)))
    else:
        out.append(Finding(FAIL, "gpiozero", N_("no pin backend installed (lgpio, RPi.GPIO)"),
                           N_("pip install '.[pi]' (systemd/install-pi.sh does)")))
    synced = system.run(["timedatectl", "show", "-p", "NTPSynchronized", "--value"])
    if (synced is not None and synced.strip() == "yes") or system.glob(SYNC_FLAG):
        out.append(Finding(OK, N_("clock"), N_("synchronised")))
    else:
        out.append(Finding(WARN, N_("clock"), N_(
            "not synchronised: a Pi has no real-time clock, and game ids and PDN dates depend "
            "on it"), N_("connect to a network with NTP (timedatectl set-ntp true), or an RTC "
                         "module")))
    unit = next((p for p in UNIT_PATHS if system.glob(p)), None)
    if unit is None:
        out.append(Finding(WARN, N_("unit"), N_("damiera.service is not installed"),
                           N_("sudo systemd/install-pi.sh once the board tests clean")))
    else:
        text = (system.read_bytes(unit) or b"").decode("utf-8", "replace")
        watchdog = next((line.split("=", 1)[1].strip() for line in text.splitlines()
                         if line.strip().startswith("WatchdogSec=")), None)
        if watchdog:
            out.append(Finding(OK, N_("unit"), N_("{unit}, watchdog {watchdog}").format(
                unit=unit, watchdog=watchdog)))
        else:
            out.append(Finding(WARN, N_("unit"), N_("{unit} has no WatchdogSec").format(unit=unit),
                               N_("reinstall it from systemd/damiera.service")))
    return out
