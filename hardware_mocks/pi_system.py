"""A fake Raspberry Pi for ``damiera doctor``: :class:`FakePiSystem` implements
:class:`pi.drivers.system.PiSystem` from plain fields, a healthy Pi 4 by default; a test (or a
planted ``bus-off``) changes the fields to make it sick."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass, field

UNIT = "/etc/systemd/system/damiera.service"


#: The installed unit's lines the doctor reads (systemd/damiera.service has them).
UNIT_TEXT = b"[Service]\nType=notify\nWatchdogSec=20\n"


@dataclass
class FakePiSystem:
    """Files by path (``files``), the user and groups, installed modules, commands' outputs by
    their argv joined with spaces (a missing one cannot be run)."""

    files: dict[str, bytes] = field(default_factory=lambda: {
        "/dev/i2c-1": b"", "/dev/gpiochip0": b"", "/dev/gpiochip1": b"",
        "/sys/class/i2c-adapter/i2c-1/of_node/clock-frequency": (400_000).to_bytes(4, "big"),
        "/run/systemd/timesync/synchronized": b"", UNIT: UNIT_TEXT})
    user_name: str = "pi"
    user_groups: frozenset[str] = frozenset({"pi", "i2c", "gpio", "dialout"})
    modules: frozenset[str] = frozenset({"lgpio"})
    outputs: dict[str, str] = field(default_factory=lambda: {
        "raspi-config nonint get_i2c": "0\n",
        "timedatectl show -p NTPSynchronized --value": "yes\n"})

    def glob(self, pattern: str) -> list[str]:
        return sorted(p for p in self.files if fnmatch.fnmatchcase(p, pattern))

    def read_bytes(self, path: str) -> bytes | None:
        return self.files.get(path)

    def groups(self) -> frozenset[str]:
        return self.user_groups

    def user(self) -> str:
        return self.user_name

    def has_module(self, name: str) -> bool:
        return name in self.modules

    def run(self, argv: Sequence[str]) -> str | None:
        return self.outputs.get(" ".join(argv))

    def i2c_off(self) -> None:
        """I²C disabled in raspi-config: no /dev/i2c-*, get_i2c says 1."""
        for path in [p for p in self.files if p.startswith("/dev/i2c-")]:
            del self.files[path]
        self.outputs["raspi-config nonint get_i2c"] = "1\n"
