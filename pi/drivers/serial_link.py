"""The serial line to a wired broadcast PC: events out as JSON lines, button commands in.

Out: every journal line (docs/trace-format.md objects, ``SerialLink.on_fed``) as one JSON line.
In: lines like ``{"type": "button", "name": "clock", "side": "white"}``; each valid one becomes a
:class:`~engine.events.ButtonPressed` stamped with the injected clock and is put on the inbox.
Anything else is logged and ignored. Serial errors are logged, never raised to the daemon.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping
from typing import Any

from engine.events import BUTTON_NAMES, SIDES, ButtonPressed
from engine.replay import Fed
from pi.drivers.faults import Inbox
from pi.drivers.timebase import GameTime, Monotonic, as_game_time

log = logging.getLogger(__name__)

MAX_LINE = 1024  # bytes; longer input is garbage on the line


def parse_command(line: bytes | str, t: float) -> ButtonPressed:
    """The ButtonPressed a command line asks for, at time ``t``. Raises ValueError saying why."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("not UTF-8") from None
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON ({e.msg})") from None
    if not isinstance(obj, dict):
        raise ValueError("not a JSON object")
    if obj.get("type") != "button":
        raise ValueError(f"unsupported type {obj.get('type')!r} (only \"button\")")
    name, side = obj.get("name"), obj.get("side")
    if name not in BUTTON_NAMES:
        raise ValueError(f"unknown button {name!r}")
    if side not in SIDES:
        raise ValueError(f"unknown side {side!r}")
    if "t" in obj:
        # A command is stamped by the board when it arrives; a line with its own time is one
        # of the journal lines the board sends (echoed back by the line or a careless PC):
        # obeying it would play every press twice, and an echo would never end.
        raise ValueError("a journal line (it has 't'), not a command")
    extra = set(obj) - {"type", "name", "side"}
    if extra:
        raise ValueError(f"unexpected keys {sorted(extra)}")
    return ButtonPressed(t, name, side)


class SerialLink:
    """Wraps a pyserial port (opened by :func:`pi.drivers.hardware.open_serial`, or ``loop://`` in tests).

    ``start()`` runs a reader thread that only parses lines and puts ButtonPressed on ``out``.
    ``send`` may be called from the daemon's thread. ``port`` needs ``write``, ``readline``
    (with a timeout) and ``close``. Presses are stamped by ``clock``, the process's
    :class:`~pi.drivers.timebase.GameTime` (a plain monotonic callable is wrapped with epoch ``t0``,
    default 0).
    """

    def __init__(self, port: Any, out: Inbox, clock: GameTime | Monotonic, *,
                 t0: float | None = None) -> None:
        self.port = port
        self._out = out
        self.time = as_game_time(clock, t0, default_epoch=0.0)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._partial = b""
        self._write_failed = False
        self.ignored = 0  # input lines ignored so far

    def on_fed(self, fed: Fed) -> None:
        """A board listener (``pi.board.controller.Listener``): every journal line goes out."""
        self.send(fed.record)

    def send(self, record: Mapping[str, Any]) -> bool:
        """Writes one docs/trace-format.md object as a JSON line. Returns False (and logs once) if the port
        fails."""
        data = (json.dumps(record, separators=(",", ":")) + "\n").encode("utf-8")
        try:
            self.port.write(data)
        except Exception as e:  # noqa: BLE001 - pyserial raises SerialException/OSError/...
            if not self._write_failed:
                log.warning("serial link: write failed (%s); events are not broadcast", e)
            self._write_failed = True
            return False
        if self._write_failed:
            log.warning("serial link: writing again")
            self._write_failed = False
        return True

    def handle_line(self, line: bytes) -> ButtonPressed | None:
        """Parses one input line; queues and returns the press, or logs and returns None."""
        text = line.strip()
        if not text:
            return None
        try:
            press = parse_command(text, self.time.stamp())
        except ValueError as e:
            self.ignored += 1
            log.warning("serial link: ignored input line %r: %s", text[:80], e)
            return None
        self._out.put(press)
        return press

    def poll(self) -> int:
        """Reads what is available now (one ``readline`` with the port's timeout) and handles
        complete lines; returns how many presses were queued. Never raises."""
        try:
            chunk = self.port.readline()
        except Exception as e:  # noqa: BLE001
            log.warning("serial link: read failed (%s)", e)
            self._stop.wait(0.5)
            return 0
        if not chunk:
            return 0
        data = self._partial + chunk
        if not data.endswith(b"\n"):
            if len(data) > MAX_LINE:
                self.ignored += 1
                log.warning("serial link: dropped %d bytes without a newline", len(data))
                data = b""
            self._partial = data
            return 0
        self._partial = b""
        if len(data) > MAX_LINE:
            self.ignored += 1
            log.warning("serial link: ignored a %d-byte line", len(data))
            return 0
        return 1 if self.handle_line(data) is not None else 0

    def start(self) -> None:
        """Starts the reader thread (daemon thread; stopped by ``close``)."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="serial-link", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.poll()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
            self._thread = None
        try:
            self.port.close()
        except Exception:
            log.exception("serial link: close failed")
