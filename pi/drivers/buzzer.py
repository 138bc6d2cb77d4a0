"""Short beep patterns on a gpiozero ``Buzzer`` (active) or ``TonalBuzzer`` (passive piezo).

A pattern plays in the background through gpiozero's ``source`` mechanism (its own thread), so
``play`` returns at once; a new pattern replaces the one playing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

#: Patterns: (on seconds, off seconds) pairs.
PATTERNS: dict[str, tuple[tuple[float, float], ...]] = {
    "move": ((0.03, 0.0),),
    "short": ((0.05, 0.0),),  # a clock cue in the last seconds (COMP 3.6.2 i, 5.7)
    "long": ((0.6, 0.0),),    # zero: the flag fell, or the lampo countdown's "0"
    "end": ((0.2, 0.1), (0.4, 0.0)),  # the result is in
    "ok": ((0.06, 0.0),),
    "flag": ((0.08, 0.06), (0.08, 0.0)),
    "error": ((0.12, 0.06), (0.12, 0.06), (0.12, 0.0)),
    "fault": ((0.3, 0.1), (0.3, 0.0)),
    "time": ((0.5, 0.2), (0.5, 0.2), (0.5, 0.0)),
}
STEP = 0.01  # seconds per sample of the pattern


class Beeper:
    """Plays named patterns on ``device`` (a gpiozero Buzzer, or TonalBuzzer when ``tonal``)."""

    def __init__(self, device: Any, *, tonal: bool = False, tone: Any = None) -> None:
        self.device = device
        self.tonal = tonal
        self._on: Any = (tone if tone is not None else 0.0) if tonal else True
        self._off: Any = None if tonal else False

    @classmethod
    def on_gpio(cls, gpio: int, *, tonal: bool = False, pin_factory: Any = None) -> Beeper:
        """Builds the gpiozero device on ``gpio`` (PWM pin needed when ``tonal``)."""
        if tonal:
            from gpiozero import TonalBuzzer
            return cls(TonalBuzzer(gpio, pin_factory=pin_factory), tonal=True)
        from gpiozero import Buzzer
        return cls(Buzzer(gpio, pin_factory=pin_factory))

    def samples(self, pattern: str) -> list[Any]:
        """The device values, one per STEP, that ``pattern`` plays (ends silent).

        Raises KeyError for an unknown pattern.
        """
        out: list[Any] = []
        for on, off in PATTERNS[pattern]:
            out += [self._on] * max(1, round(on / STEP))
            out += [self._off] * round(off / STEP)
        out.append(self._off)
        return out

    def play(self, pattern: str) -> None:
        """Starts ``pattern`` in the background; returns at once. KeyError if unknown."""
        values = self.samples(pattern)
        self.device.source_delay = STEP
        self.device.source = _once(values)

    def stop(self) -> None:
        self.device.source = None
        self.device.value = self._off

    def close(self) -> None:
        self.device.close()


def _once(values: list[Any]) -> Iterator[Any]:
    yield from values
