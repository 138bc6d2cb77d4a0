"""A complete sensor test rig: wiring → virtual board → fake bus → real drivers → the
daemon's scan loop (:class:`pi.board.scan_loop.ScanLoop`), on a fake clock.

``run(seconds)`` turns the real scan loop (its ``step``) whenever the interrupt line woke it or
its deadline passed, and jumps the fake clock straight to the loop's next wake-up in between.
Everything the loop hands to its sink is appended to ``outputs``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from engine.events import PieceLifted, PiecePlaced, SnapshotTaken
from hardware_mocks.clock import FakeClock
from hardware_mocks.gpio import mock_factory
from hardware_mocks.smbus import FakeI2CBus
from hardware_mocks.virtual_board import VirtualBoard
from pi.board.scan_loop import MAX_SCANS_PER_INSTANT, ScanLoop
from pi.drivers.bus import BusLock
from pi.drivers.hardware import build_scanner
from pi.drivers.interrupt import InterruptLine
from pi.drivers.sensors import SensorFault, SensorFaultCleared
from pi.drivers.timebase import GameTime
from pi.drivers.wiring import Wiring, load_wiring


class SensorRig:
    """``wiring``: a Wiring or a path. ``rotation``: how the physical board lies (logical squares
    in the board methods). ``use_interrupt``: follow the wiring's interrupt GPIO (else poll).
    ``scanner_options``: scanner attributes to override (``debounce=0.08``...)."""

    def __init__(self, wiring: Wiring | str | Path, *, rotation: int = 0,
                 scanner_rotation: int | None = None, use_interrupt: bool = True,
                 start: float = 100.0, **scanner_options: Any) -> None:
        self.wiring = wiring if isinstance(wiring, Wiring) else load_wiring(wiring)
        self.clock = FakeClock(start)
        self.time = GameTime(self.clock, epoch=start)
        self.bus = FakeI2CBus(self.clock)
        self.factory = mock_factory()
        self.lock = BusLock()
        self.smbus = self.bus.open()
        self.scanner = build_scanner(self.wiring, self.smbus, self.time, reopen=self.bus.open,
                                     rotation=scanner_rotation)
        for key, value in scanner_options.items():
            setattr(self.scanner, key, value)
        if not use_interrupt:
            self.scanner.poll_interval = min(self.scanner.poll_interval, 0.005)
        self.outputs: list[Any] = []
        self.loop = ScanLoop(self.scanner, self.outputs.extend, lock=self.lock)
        self.interrupt: InterruptLine | None = None
        pin = None
        if use_interrupt and self.wiring.interrupt_gpio is not None:
            self.interrupt = InterruptLine(self.wiring.interrupt_gpio, self.loop.wake,
                                           pin_factory=self.factory)
            pin = self.factory.pin(self.wiring.interrupt_gpio)
        self.board = VirtualBoard(self.wiring, self.bus, rotation=rotation, interrupt_pin=pin)

    @property
    def scans(self) -> int:
        return self.loop.scans

    def start(self, occupied: Iterable[str] = ()) -> list[Any]:
        """Puts pieces on ``occupied`` (logical) then powers the scanner up."""
        self.board.set_occupied(occupied)
        with self.lock.scan():
            out = self.scanner.start()
        self.outputs.extend(out)
        return out

    def scan(self) -> list[Any]:
        """One scan now, whatever the deadline (as a direct call of the scanner)."""
        with self.lock.scan():
            out = self.scanner.scan()
        self.outputs.extend(out)
        return out

    def _turn(self) -> None:
        # The loop's own guard bounds the scans at one instant; this bounds the turns.
        for _ in range(MAX_SCANS_PER_INSTANT + 1):
            if not self.loop.due():
                return
            self.loop.step()

    def run(self, seconds: float) -> None:
        """Advances the clock by ``seconds``, the scan loop scanning as in the daemon."""
        end = self.clock() + seconds
        while True:
            self._turn()
            if self.clock() >= end - 1e-12:
                return
            self.clock.jump_to(min(self.loop.next_wake(), end))

    def slide(self, path: Sequence[str], step: float = 0.1) -> None:
        """Slides a piece along ``path`` (logical squares), ``step`` seconds per square."""
        for src, dst in zip(path, path[1:], strict=False):  # consecutive pairs
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
        out = list(self.outputs)
        self.outputs.clear()  # the loop's sink is bound to this list
        return out

    def close(self) -> None:
        self.loop.stop()
        if self.interrupt is not None:
            self.interrupt.close()
