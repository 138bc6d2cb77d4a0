"""Serial stand-ins: pyserial's ``loop://`` (what is written is read back) and a broken port."""

from __future__ import annotations

from typing import Any


def loop_port(timeout: float = 0.02) -> Any:
    """A pyserial loopback port: every byte written comes back on read."""
    import serial
    return serial.serial_for_url("loop://", timeout=timeout)


class BrokenPort:
    """A port whose cable was pulled: every write and read raises SerialException."""

    def __init__(self) -> None:
        self.is_open = True

    def write(self, data: bytes) -> int:
        import serial
        raise serial.SerialException("write failed: device disconnected")

    def readline(self) -> bytes:
        import serial
        raise serial.SerialException("read failed: device disconnected")

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.is_open = False
