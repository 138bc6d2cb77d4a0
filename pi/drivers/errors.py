"""Exceptions of the ``pi`` package: hardware set-up and wiring problems.

Each carries a one-line message meant to be shown to the person setting the board up, as is.
Run-time sensor faults are *not* exceptions: they are :class:`pi.drivers.sensors.SensorFault` records.
"""

from __future__ import annotations

from engine.errors import DamieraError


class HardwareError(Exception):
    """Base class of the errors the drivers raise."""


class WiringError(HardwareError, DamieraError):
    """A wiring file that cannot be read or describes impossible wiring; names the file and key.

    Bad input, so also a :class:`~engine.errors.DamieraError`: a command that reads a wiring
    file refuses it like any other bad input (one line on stderr, exit 2)."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        super().__init__(f"{source}: {key}: {problem}" if key else f"{source}: {problem}")
        self.source = source
        self.key = key
        self.problem = problem


class BusUnavailableError(HardwareError):
    """The I²C bus device cannot be opened (missing, or no permission); says how to fix it."""


class DeviceUnavailableError(HardwareError):
    """A peripheral other than the I²C bus (OLED, serial port, GPIO) cannot be opened."""


class OrientationError(HardwareError):
    """The sensed occupancy matches none, or several, of the allowed board rotations."""
