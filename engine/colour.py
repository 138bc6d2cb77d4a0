"""The one colour type of the engine: ``Colour.WHITE`` (0) and ``Colour.BLACK`` (1).

An ``IntEnum``, so a colour still indexes the board's per-colour tables at no cost, and
``1 - colour`` style arithmetic keeps working where the hot path needs it (wrap it back with
``Colour(...)`` where a ``Colour`` is promised). Its text form is the one of docs/trace-format.md and the
clock: ``"white"`` / ``"black"`` (``str(Colour.WHITE) == "white"``, ``Colour.parse("black")``).
"""

from __future__ import annotations

from enum import IntEnum

__all__ = ["Colour", "WHITE", "BLACK", "COLOURS"]


class Colour(IntEnum):
    WHITE = 0
    BLACK = 1

    @property
    def opponent(self) -> "Colour":
        """The other colour (asked on every move: no enum call)."""
        return Colour.BLACK if self is Colour.WHITE else Colour.WHITE

    @property
    def label(self) -> str:
        """``"white"`` or ``"black"``, as docs/trace-format.md and PDN comments write it."""
        return "white" if self is Colour.WHITE else "black"

    def __str__(self) -> str:
        return self.label

    @classmethod
    def parse(cls, value: object) -> "Colour":
        """``"white"``/``"black"`` (any case), ``0``/``1`` or a ``Colour``; raises ValueError."""
        if isinstance(value, Colour):
            return value
        if isinstance(value, str):
            text = value.strip().lower()
            if text == "white":
                return cls.WHITE
            if text == "black":
                return cls.BLACK
        elif isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
            return cls(value)
        raise ValueError(f"a colour is 'white' or 'black', not {str(value)[:40]!r}")


WHITE = Colour.WHITE
BLACK = Colour.BLACK
COLOURS: tuple[Colour, Colour] = (WHITE, BLACK)

