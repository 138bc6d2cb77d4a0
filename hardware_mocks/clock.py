"""A fake monotonic clock: time moves only when a test (or the rig) says so.

The rig does not tick it in small steps: it jumps it straight to the scan loop's next wake-up
(:meth:`FakeClock.jump_to`), so simulated seconds cost only the scans that really happen.
"""

from __future__ import annotations


class FakeClock:
    """Callable like ``time.monotonic``; ``advance``/``set``/``jump_to`` move it (never
    backwards)."""

    def __init__(self, start: float = 0.0) -> None:
        self.now = float(start)

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("time does not go backwards")
        self.now += seconds
        return self.now

    def set(self, t: float) -> None:
        if t < self.now:
            raise ValueError("time does not go backwards")
        self.now = float(t)

    def jump_to(self, t: float) -> float:
        """Moves to ``t`` if it is later (a deadline already past leaves the clock alone)."""
        if t > self.now:
            self.now = float(t)
        return self.now

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)
