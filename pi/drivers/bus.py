"""The shared I²C bus: one handle that reopens itself after the adapter vanished, and one lock.

:class:`ManagedBus` is what the expander drivers talk to. It forwards the ``smbus2.SMBus`` calls
to the current handle; an ``OSError`` whose errno means the bus itself is gone (ENODEV, ENXIO,
ENOENT, EBADF) marks it lost and closes the handle. :meth:`ManagedBus.try_reopen` then opens a
new handle, no sooner than the back-off allows (``retry_initial`` doubling to ``retry_max``
while reopening fails or the reopened bus still does not work).

:class:`BusLock` is the one lock of every user of the bus (the sensor scan loop, the OLED): a
waiting scan goes before any waiting frame, so a redraw delays a scan by at most the one frame
already on the wire.
"""

from __future__ import annotations

import errno
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from pi.drivers.expanders import SMBusLike

log = logging.getLogger(__name__)

#: errno values meaning the bus itself is gone (adapter removed, device node vanished).
BUS_LOST_ERRNOS = frozenset({errno.ENODEV, errno.ENXIO, errno.ENOENT, errno.EBADF})


class BusLock:
    """Mutual exclusion on the bus with priority to scans. Thread-safe, not reentrant."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._held = False
        self._scans_waiting = 0

    @contextmanager
    def scan(self) -> Iterator[None]:
        """Holds the bus for a sensor scan; waits only for the transfer in progress."""
        with self._cond:
            self._scans_waiting += 1
            try:
                while self._held:
                    self._cond.wait()
            finally:
                self._scans_waiting -= 1
            self._held = True
        try:
            yield
        finally:
            self._release()

    @contextmanager
    def frame(self) -> Iterator[None]:
        """Holds the bus for one lower-priority transfer (an OLED frame); waits while a scan
        holds it or waits for it."""
        with self._cond:
            while self._held or self._scans_waiting:
                self._cond.wait()
            self._held = True
        try:
            yield
        finally:
            self._release()

    def _release(self) -> None:
        with self._cond:
            self._held = False
            self._cond.notify_all()

    @property
    def scans_waiting(self) -> int:
        """How many scans wait for the bus now (for tests and diagnostics)."""
        return self._scans_waiting


class ManagedBus:
    """An SMBus-like handle that owns reopening (see module doc).

    ``handle``: the open bus. ``opener``: opens a new one (None: a lost bus is only retried).
    ``clock``: monotonic seconds for the back-off. Not thread-safe: use under the BusLock.
    """

    def __init__(self, handle: SMBusLike, opener: Callable[[], SMBusLike] | None = None, *,
                 clock: Callable[[], float], retry_initial: float = 0.05,
                 retry_max: float = 5.0) -> None:
        self.handle = handle
        self.opener = opener
        self.clock = clock
        self.retry_initial = retry_initial
        self.retry_max = retry_max
        self.lost = False
        self.retry_at = 0.0
        self.backoff = 0.0

    # -- state ---------------------------------------------------------------------------
    def mark_lost(self, error: OSError) -> None:
        """The bus is gone: close the handle and schedule a reopen (back-off doubles while a
        reopened bus still does not work)."""
        if self.lost:
            return
        log.error("I2C bus lost (%s); reopening with back-off", error)
        self.lost = True
        self.backoff = min(self.retry_max, self.backoff * 2) if self.backoff \
            else self.retry_initial
        self.retry_at = self.clock() + self.backoff
        try:
            self.handle.close()
        except OSError:
            pass

    def mark_working(self) -> None:
        """A transaction succeeded: the next loss starts the back-off afresh."""
        self.backoff = 0.0

    def try_reopen(self) -> bool:
        """When lost and the back-off allows it, opens a new handle. True when the bus may be
        used (it was not lost, or it reopened, or there is no opener and chips are retried)."""
        if not self.lost:
            return True
        now = self.clock()
        if now < self.retry_at:
            return False
        if self.opener is None:
            self.lost = False
            return True
        try:
            handle = self.opener()
        except OSError as e:
            self.backoff = min(self.retry_max, self.backoff * 2)
            self.retry_at = now + self.backoff
            log.debug("I2C bus still missing: %s", e)
            return False
        log.warning("I2C bus is back")
        self.handle = handle
        self.lost = False
        return True

    def _check(self) -> None:
        if self.lost:
            raise OSError(errno.ENODEV, "I2C bus lost; waiting to reopen it")

    def _failed(self, e: OSError) -> None:
        if e.errno in BUS_LOST_ERRNOS:
            self.mark_lost(e)

    # -- SMBusLike (one method each, no indirection: a scan calls these in a tight loop) ----
    def read_byte_data(self, i2c_addr: int, register: int) -> int:
        self._check()
        try:
            return self.handle.read_byte_data(i2c_addr, register)
        except OSError as e:
            self._failed(e)
            raise

    def write_byte_data(self, i2c_addr: int, register: int, value: int) -> None:
        self._check()
        try:
            self.handle.write_byte_data(i2c_addr, register, value)
        except OSError as e:
            self._failed(e)
            raise

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int) -> list[int]:
        self._check()
        try:
            return self.handle.read_i2c_block_data(i2c_addr, register, length)
        except OSError as e:
            self._failed(e)
            raise

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: list[int]) -> None:
        self._check()
        try:
            self.handle.write_i2c_block_data(i2c_addr, register, data)
        except OSError as e:
            self._failed(e)
            raise

    def i2c_rdwr(self, *i2c_msgs: Any) -> None:
        self._check()
        try:
            self.handle.i2c_rdwr(*i2c_msgs)
        except OSError as e:
            self._failed(e)
            raise

    def close(self) -> None:
        """Closes the current handle (idempotent); the bus is not reopened after this."""
        self.opener = None
        try:
            self.handle.close()
        except OSError:
            log.exception("closing the I2C bus")
