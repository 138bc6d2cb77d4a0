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


class BroadcastPort:
    """The broadcast PC at the other end of the serial link, as the simulator needs it: it keeps
    the lines the board sends (``lines``, the newest ``keep``) and sends nothing back
    (``readline`` waits its timeout and returns nothing, like a quiet port). ``loop://`` would
    echo the board's own journal lines back to it as input."""

    def __init__(self, timeout: float = 0.1, keep: int = 1000) -> None:
        import collections
        import threading
        self.timeout = timeout
        self.lines: collections.deque[bytes] = collections.deque(maxlen=keep)
        self._closed = threading.Event()
        self.is_open = True

    def write(self, data: bytes) -> int:
        self.lines.append(bytes(data))
        return len(data)

    def readline(self) -> bytes:
        self._closed.wait(self.timeout)
        return b""

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.is_open = False
        self._closed.set()
