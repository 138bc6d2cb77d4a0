"""The sensor scan loop: the thread that owns the drivers' scanner for the daemon.

It sleeps until the interrupt line fires (:meth:`ScanLoop.wake`, called on gpiozero's thread)
or the scanner's own deadline passes (debounce expiry, retry back-off, the safety poll, the
configuration check), then scans under the bus lock and hands the outputs to ``sink`` — the
daemon's bridge into its event loop (:meth:`pi.board.handoff.LoopInbox.put`). The scanner's
state is only touched on this thread, and every bus transaction of a scan happens inside
:meth:`pi.drivers.bus.BusLock.scan`, so an OLED frame delays a scan by at most the frame on the
wire.

The drivers build the scanner (:func:`pi.drivers.hardware.build_hardware`); the board wraps it
here (:meth:`ScanLoop.for_hardware`), so the drivers never know who scans: their interrupt line
calls whatever ``Hardware.on_interrupt`` holds.

:meth:`ScanLoop.step` is one turn of the loop; the thread is ``while running: step(); sleep
until next_wake() or a wake``. The test rig (``hardware_mocks.rig``) and the simulator's trace
player call the same ``step`` and ``next_wake`` on a fake clock, jumping it to the next wake-up,
so tests exercise this loop.
"""
from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any, TypeVar

from pi.drivers.bus import BusLock
from pi.drivers.faults import SensorOutput
from pi.drivers.hardware import Hardware
from pi.drivers.sensors import SensorScanner

log = logging.getLogger(__name__)

T = TypeVar("T")

#: Receives each non-empty list of outputs of one scan, on the scan loop's thread.
Sink = Callable[[Sequence[SensorOutput]], None]
#: After a scan raised something other than a bus error (a bug), wait this long before the next.
ERROR_PAUSE = 0.5
#: At most this many scans at one instant (a deadline that does not move is a bug, not a spin).
MAX_SCANS_PER_INSTANT = 5


class ScanLoop:
    """Runs ``scanner`` (already started) and hands its outputs to ``sink``.

    ``lock``: the bus lock shared with the other users of the bus (a private one if None).
    Thread-safe: ``wake`` and ``submit`` from any thread; ``start``/``stop`` from the owner's
    thread. The scanner itself is not thread-safe: once the loop runs, reach it only through
    ``submit`` (``orient``, ``request_snapshot``, ``set_stuck_watch``...).
    """

    def __init__(self, scanner: SensorScanner, sink: Sink | None = None, *,
                 lock: BusLock | None = None) -> None:
        self.scanner = scanner
        self.sink = sink
        self.lock = lock if lock is not None else BusLock()
        self.clock = scanner.clock
        self._woken = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._pause_until = 0.0
        self._last_instant = float("nan")
        self._scans_at_instant = 0
        self._commands: queue.SimpleQueue[tuple[Callable[[SensorScanner], Any], Future[Any]]] = \
            queue.SimpleQueue()
        self.scans = 0

    @classmethod
    def for_hardware(cls, hardware: Hardware, sink: Sink | None = None) -> ScanLoop:
        """The loop over ``hardware``'s scanner, under its bus lock; from now on the interrupt
        line wakes it (``hardware.on_interrupt``). Its owner stops it before
        ``hardware.stop()``, which closes the bus."""
        loop = cls(hardware.scanner, sink, lock=hardware.lock)
        hardware.on_interrupt = loop.wake
        return loop

    # -- any thread ------------------------------------------------------------------------
    def wake(self) -> None:
        """The interrupt line fired: scan as soon as possible (safe from any thread)."""
        self._woken.set()

    def submit(self, command: Callable[[SensorScanner], T]) -> Future[T]:
        """Runs ``command(scanner)`` on the loop's thread at its next turn, under the bus lock,
        before that turn's scan; the future gets its result or exception. After ``stop`` the
        future fails with RuntimeError."""
        future: Future[T] = Future()
        if self._stopping.is_set():
            future.set_exception(RuntimeError("the scan loop is stopped"))
            return future
        self._commands.put((command, future))
        self._woken.set()
        return future

    def _run_commands(self) -> None:
        while True:
            try:
                command, future = self._commands.get_nowait()
            except queue.Empty:
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                with self.lock.scan():
                    result = command(self.scanner)
            except BaseException as e:  # noqa: BLE001 - handed to the caller via the future
                future.set_exception(e)
            else:
                future.set_result(result)

    @property
    def running(self) -> bool:
        return self._thread is not None and not self._stopping.is_set()

    # -- the loop ------------------------------------------------------------------------
    def next_wake(self) -> float:
        """Monotonic time of the next scan if no interrupt comes first."""
        return max(self.scanner.next_deadline(), self._pause_until)

    def due(self) -> bool:
        """Whether ``step`` would scan now (woken, or the deadline passed)."""
        return self._woken.is_set() or self.clock() >= self.next_wake() - 1e-12

    def step(self) -> list[SensorOutput]:
        """One turn: scans under the bus lock if due, hands non-empty outputs to the sink and
        returns them. Submitted commands run first. Never raises: an exception from the
        scanner or the sink is logged and the loop pauses ``ERROR_PAUSE`` seconds before
        scanning again."""
        self._run_commands()
        now = self.clock()
        if not self.due():
            return []
        if now == self._last_instant:
            self._scans_at_instant += 1
            if self._scans_at_instant >= MAX_SCANS_PER_INSTANT and not self._woken.is_set():
                return []
        else:
            self._last_instant, self._scans_at_instant = now, 0
        self._woken.clear()
        try:
            with self.lock.scan():
                out = self.scanner.scan()
            self.scans += 1
            if out and self.sink is not None:
                self.sink(out)
            return out
        except Exception:
            log.exception("sensor scan failed; pausing %.1f s", ERROR_PAUSE)
            self._pause_until = now + ERROR_PAUSE
            return []

    def _run(self) -> None:
        while not self._stopping.is_set():
            self.step()
            if self._woken.is_set() or not self._commands.empty():
                continue  # a command submitted during this turn: its wake-up may be cleared
            # A deadline already past (a snapshot wanted at once) still yields 0.5 ms.
            self._woken.wait(max(self.next_wake() - self.clock(), 0.0005))

    def start(self) -> None:
        """Starts the loop thread (once)."""
        if self._thread is not None:
            raise RuntimeError("the scan loop is already started")
        self._thread = threading.Thread(target=self._run, name="sensor-scan", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stops the thread and waits for the scan in progress to end (idempotent)."""
        self._stopping.set()
        self._woken.set()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.error("the sensor scan thread did not stop within %.1f s", timeout)
        while True:  # commands that will never run
            try:
                _command, future = self._commands.get_nowait()
            except queue.Empty:
                break
            if future.set_running_or_notify_cancel():
                future.set_exception(RuntimeError("the scan loop is stopped"))
