"""The two hand-offs between the daemon's event loop and the threads around it.

Into the loop, :class:`LoopInbox`: the drivers' threads (gpiozero's callbacks, the serial
reader, the scan loop) ``put`` what they sensed; the item reaches the loop's ``asyncio.Queue``
on the loop's thread. Out of the loop, :class:`LatestWorker`: slow work (an OLED frame on the
I²C bus, the game's files with their fsyncs) runs on a thread of its own, newest item only, so
the loop never waits for it and never falls behind it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

log = logging.getLogger(__name__)

__all__ = ["LoopInbox", "LatestWorker"]

T = TypeVar("T")


class LoopInbox(Generic[T]):
    """The one bridge into the event loop: :meth:`put`, safe from any thread, hands ``item`` to
    ``queue`` (the daemon's inbox) on ``loop``'s thread. It has the drivers' ``Inbox`` shape
    (``pi.drivers.faults.Inbox``), so a driver never knows whether a loop or a plain queue (the
    tests) is behind it. Items put from one thread arrive in the order they were put."""

    def __init__(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[T]) -> None:
        self.loop = loop
        self.queue = queue

    def put(self, item: T) -> None:
        """Never blocks, never raises: after the loop closed (the daemon stopping) the item is
        dropped."""
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)
        except RuntimeError:  # the loop is closed: the daemon is stopping
            log.debug("input %r after the loop closed, dropped", item)


class LatestWorker(Generic[T]):
    """Runs ``work(item)`` on a thread of its own (named ``name``, started at the first
    :meth:`submit`), newest item only: an item submitted while another is being worked on
    replaces any item still waiting, which is then never worked on.

    Every item carries a generation number and one older than the last worked on is skipped,
    so :meth:`run_now` (on the caller's thread) is never undone by an older item the thread
    still held. One ``work`` at a time, whichever thread calls it. An exception from ``work``
    is logged and contained: the worker goes on. Thread-safe.
    """

    def __init__(self, work: Callable[[T], None], name: str) -> None:
        self._work = work
        self.name = name
        self._cond = threading.Condition()
        self._io = threading.Lock()  # one ``work`` at a time, whichever thread
        self._pending: tuple[int, T] | None = None
        self._busy = False
        self._gen = 0
        self._done = 0
        self._closing = False
        self._thread: threading.Thread | None = None

    def submit(self, item: T) -> None:
        """Hands ``item`` to the thread and returns at once. After :meth:`close` there is no
        thread any more: the item is worked on here, before returning."""
        with self._cond:
            self._gen += 1
            self._pending = (self._gen, item)
            if self._thread is None and not self._closing:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
            self._cond.notify_all()
        if self._closing:
            self.flush()

    def run_now(self, item: T) -> None:
        """Works on ``item`` on the caller's thread, now; an item still waiting (older) is
        dropped."""
        with self._cond:
            self._gen += 1
            gen = self._gen
            self._pending = None
        self._run_if_newer(gen, item)

    def flush(self) -> None:
        """Returns once the item last submitted has been worked on (or dropped as older)."""
        with self._cond:
            if self._thread is None or not self._thread.is_alive():
                waiting, self._pending = self._pending, None
            else:
                while self._pending is not None or self._busy:
                    self._cond.wait()
                waiting = None
        if waiting is not None:
            self._run_if_newer(*waiting)

    def close(self) -> None:
        """Works on what waits, then ends the thread (idempotent)."""
        self.flush()
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join()

    def _run_if_newer(self, gen: int, item: T) -> None:
        with self._io:
            if gen <= self._done:
                return
            self._done = gen
            try:
                self._work(item)
            except Exception:  # the worker must go on: the next item may well succeed
                log.exception("%s: failed; the next item is worked on as usual", self.name)

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._pending is None and not self._closing:
                    self._cond.wait()
                if self._pending is None:
                    return
                (gen, item), self._pending = self._pending, None
                self._busy = True
            try:
                self._run_if_newer(gen, item)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
