"""A complete sensor test rig: wiring → virtual board → fake bus → real drivers, on a fake clock.

It plays the daemon's sensor loop: ``run(seconds)`` advances the clock in small steps and calls
``scanner.scan()`` whenever the interrupt line fired (a SensorInterrupt on the queue) or the
scanner's deadline passed. Everything the scanner returns is appended to ``outputs``.
"""

from __future__ import annotations

import queue
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from engine.events import PieceLifted, PiecePlaced, SnapshotTaken
from hardware_mocks.clock import FakeClock
from hardware_mocks.gpio import mock_factory
from hardware_mocks.smbus import FakeI2CBus
from hardware_mocks.virtual_board import VirtualBoard
from pi.sensors import InterruptLine, SensorFault, SensorFaultCleared, SensorInterrupt
from pi.wiring import Wiring, build_scanner, load_wiring


class SensorRig:
    """``wiring``: a Wiring or a path. ``rotation``: how the physical board lies (logical squares
    in the board methods). ``use_interrupt``: follow the wiring's interrupt GPIO (else poll)."""

    def __init__(self, wiring: Wiring | str | Path, *, rotation: int = 0,
                 scanner_rotation: int | None = None, use_interrupt: bool = True,
                 start: float = 100.0, step: float = 0.001, **scanner_options: Any) -> None:
        self.wiring = wiring if isinstance(wiring, Wiring) else load_wiring(wiring)
        self.clock = FakeClock(start)
        self.step = step
        self.bus = FakeI2CBus(self.clock)
        self.queue: queue.Queue[Any] = queue.Queue()
        self.factory = mock_factory()
        self.interrupt = None
        pin = None
        if use_interrupt and self.wiring.interrupt_gpio is not None:
            self.interrupt = InterruptLine(self.wiring.interrupt_gpio, self.queue,
                                           pin_factory=self.factory)
            pin = self.factory.pin(self.wiring.interrupt_gpio)
        self.board = VirtualBoard(self.wiring, self.bus, rotation=rotation, interrupt_pin=pin)
        self.smbus = self.bus.open()
        self.scanner = build_scanner(self.wiring, self.smbus, self.clock, reopen=self.bus.open,
                                     t0=start, rotation=scanner_rotation)
        for key, value in scanner_options.items():
            setattr(self.scanner, key, value)
        if not use_interrupt:
            self.scanner.poll_interval = min(self.scanner.poll_interval, 0.005)
        self.outputs: list[Any] = []
        self.scans = 0

    def start(self, occupied: Iterable[str] = ()) -> list[Any]:
        """Puts pieces on ``occupied`` (logical) then powers the scanner up."""
        self.board.set_occupied(occupied)
        self._drain()
        out = self.scanner.start()
        self.outputs.extend(out)
        return out

    def _drain(self) -> bool:
        fired = False
        while True:
            try:
                item = self.queue.get_nowait()
            except queue.Empty:
                return fired
            if isinstance(item, SensorInterrupt):
                fired = True
            else:
                self.outputs.append(item)

    def scan(self) -> list[Any]:
        self.scans += 1
        out = self.scanner.scan()
        self.outputs.extend(out)
        return out

    def run(self, seconds: float) -> None:
        """Advances the clock by ``seconds``, scanning as the daemon would."""
        end = self.clock() + seconds - 1e-12
        same_instant = 0
        while True:
            if same_instant < 5 and (self._drain()
                                     or self.clock() >= self.scanner.next_deadline() - 1e-12):
                self.scan()
                same_instant += 1
                continue
            same_instant = 0
            if self.clock() >= end:
                return
            self.clock.advance(min(self.step, max(0.0, end - self.clock()) + 1e-12))

    def slide(self, path: Sequence[str], step: float = 0.1) -> None:
        """Slides a piece along ``path`` (logical squares), ``step`` seconds per square."""
        for src, dst in zip(path, path[1:]):
            self.board.slide_step(src, dst)
            self.run(step)

    # -- results ---------------------------------------------------------------------------
    @property
    def events(self) -> list[Any]:
        return [o for o in self.outputs if isinstance(o, (PieceLifted, PiecePlaced, SnapshotTaken))]

    @property
    def faults(self) -> list[Any]:
        return [o for o in self.outputs if isinstance(o, (SensorFault, SensorFaultCleared))]

    def take(self) -> list[Any]:
        """The outputs so far, clearing them."""
        out, self.outputs = self.outputs, []
        return out

    def close(self) -> None:
        if self.interrupt is not None:
            self.interrupt.close()
