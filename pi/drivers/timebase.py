"""The one time source of the hardware layer: a monotonic clock and the epoch its stamps count
from.

Every part that stamps events (the sensor scanner, the buttons, the serial link) reads the same
:class:`GameTime`, whose epoch is fixed for the life of the process: ``t`` in the events the
drivers emit is ``round(monotonic - epoch, 6)`` seconds, process time. A game's own time zero is
not kept here: it is the one offset of ``pi.board.controller.BoardController`` (set when a game
begins or is resumed), subtracted once where an event enters the game. Moving the epoch instead
would re-stamp the events already waiting in the loop's queue, stamped against the old one.
"""

from __future__ import annotations

import time
from collections.abc import Callable

Monotonic = Callable[[], float]


class GameTime:
    """``monotonic`` (default :func:`time.monotonic`; a fake clock in tests) and a fixed epoch.

    Calling the object returns the monotonic time, so it can be passed wherever a clock
    callable is expected. ``epoch`` defaults to the monotonic time at construction and never
    changes. Thread-safe: nothing in it changes, so stamps may be taken on gpiozero's and the
    serial reader's threads.
    """

    def __init__(self, monotonic: Monotonic = time.monotonic, *,
                 epoch: float | None = None) -> None:
        self.monotonic = monotonic
        self._epoch = monotonic() if epoch is None else float(epoch)

    def __call__(self) -> float:
        """The monotonic time now, seconds."""
        return self.monotonic()

    @property
    def epoch(self) -> float:
        """Monotonic time of event ``t = 0``."""
        return self._epoch

    def stamp(self, when: float | None = None) -> float:
        """Event time of monotonic time ``when`` (default: now), seconds since the epoch."""
        return round((self.monotonic() if when is None else when) - self._epoch, 6)


def as_game_time(clock: GameTime | Monotonic, t0: float | None = None, *,
                 default_epoch: float | None = None) -> GameTime:
    """``clock`` itself when it is a GameTime (``t0`` must then be None), else a GameTime over
    the callable with epoch ``t0`` (or ``default_epoch``, or now when both are None).

    Raises ValueError when a GameTime is given with a separate ``t0`` (two epochs).
    """
    if isinstance(clock, GameTime):
        if t0 is not None:
            raise ValueError("t0 given with a GameTime: its epoch is the one epoch")
        return clock
    return GameTime(clock, epoch=t0 if t0 is not None else default_epoch)
