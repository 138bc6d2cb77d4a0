"""A fake monotonic clock: time moves only when a test says so."""

from __future__ import annotations


class FakeClock:
    """Callable like ``time.monotonic``; ``advance``/``set`` move it (never backwards)."""

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

    def sleep(self, seconds: float) -> None:
        self.advance(seconds)
