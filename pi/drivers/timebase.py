"""The one time source of the hardware layer: a monotonic clock and the epoch event times count
from.

Every part that stamps events (the sensor scanner, the buttons, the serial link) reads the same
:class:`GameTime`, so a new game's epoch is set once (:meth:`GameTime.set_epoch`) and every
stamp follows. ``t`` in events is ``round(monotonic - epoch, 6)`` seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

Monotonic = Callable[[], float]


class GameTime:
    """``monotonic`` (default :func:`time.monotonic`; a fake clock in tests) and an epoch.

    Calling the object returns the monotonic time, so it can be passed wherever a clock
    callable is expected. ``epoch`` defaults to the monotonic time at construction.
    Thread-safe: stamps may be taken on gpiozero's and the serial reader's threads.
    """

    def __init__(self, monotonic: Monotonic = time.monotonic, *,
                 epoch: float | None = None) -> None:
        self.monotonic = monotonic
        self._epoch = monotonic() if epoch is None else float(epoch)
        self._generation = 0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        """The monotonic time now, seconds."""
        return self.monotonic()

    @property
    def epoch(self) -> float:
        """Monotonic time of event ``t = 0``."""
        return self._epoch

    @property
    def generation(self) -> int:
        """Counts calls of :meth:`set_epoch` (a stamper keeping ``t`` monotonic resets on it)."""
        return self._generation

    def stamp(self, when: float | None = None) -> float:
        """Event time of monotonic time ``when`` (default: now), seconds since the epoch."""
        return round((self.monotonic() if when is None else when) - self._epoch, 6)

    def set_epoch(self, epoch: float | None = None) -> None:
        """Event times count from monotonic time ``epoch`` (default: now) from now on."""
        with self._lock:
            self._epoch = self.monotonic() if epoch is None else float(epoch)
            self._generation += 1


def as_game_time(clock: GameTime | Monotonic, t0: float | None = None, *,
                 default_epoch: float | None = None) -> GameTime:
    """``clock`` itself when it is a GameTime (``t0`` must then be None), else a GameTime over
    the callable with epoch ``t0`` (or ``default_epoch``, or now when both are None).

    Raises ValueError when a GameTime is given with a separate ``t0`` (two epochs).
    """
    if isinstance(clock, GameTime):
        if t0 is not None:
            raise ValueError("t0 given with a GameTime: set the epoch on the GameTime")
        return clock
    return GameTime(clock, epoch=t0 if t0 is not None else default_epoch)
