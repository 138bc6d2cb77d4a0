"""Exceptions of the drivers: hardware that cannot be opened or misbehaves, and wiring files.

Each carries a one-line message meant to be shown to the person setting the board up, as is.
Run-time sensor faults are *not* exceptions: they are :class:`pi.drivers.faults.SensorFault` records.
"""

from __future__ import annotations

from engine.errors import ConfigurationError, HardwareError

__all__ = ["WiringError", "BusUnavailableError", "DeviceUnavailableError", "OrientationError",
           "ChipFailure"]


class WiringError(ConfigurationError):
    """A wiring file that cannot be read or describes impossible wiring; names the file and key.
    A command that reads a wiring file refuses it like any other configuration (one line on
    stderr, exit 2)."""

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


class ChipFailure(HardwareError):
    """A sensor group's read failed on chip ``address`` with ``error`` (an OSError from the bus)
    (:mod:`pi.drivers.sensor_groups`); the scanner turns it into a sensor fault."""

    def __init__(self, address: int, error: OSError) -> None:
        super().__init__(f"0x{address:02x}: {error}")
        self.address = address
        self.error = error
