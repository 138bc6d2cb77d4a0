"""Exceptions of the engine package. All are ValueErrors, split by meaning (python-chess style)."""

from __future__ import annotations


class DamieraError(ValueError):
    """Base class of every error the engine raises on bad input."""


class UnknownVariantError(DamieraError):
    """A variant name that is not in the registry."""


class InvalidFenError(DamieraError):
    """A FEN string that cannot be parsed."""


class ImpossiblePositionError(DamieraError):
    """A FEN that parses but describes a position that cannot occur (e.g. a man on its promotion row)."""


class InvalidSquareError(DamieraError):
    """A square name or number that does not exist on the variant's board."""


class IllegalMoveError(DamieraError):
    """A move that is well formed but not legal in the position."""


class AmbiguousMoveError(DamieraError):
    """A move notation that matches more than one legal move."""


class InvalidMoveError(DamieraError):
    """A move notation that cannot be parsed."""


class PdnError(DamieraError):
    """A PDN text that cannot be read."""


class TraceError(DamieraError):
    """A physical-event trace that is malformed (TRACE.md): carries the 1-based line number."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


class TimeControlError(DamieraError):
    """A PDN TimeControl string that cannot be parsed."""


class PdnTimeError(TimeControlError):
    """A PDN time value (``WhiteTime``/``BlackTime`` tag, ``[%clock …]`` comment) that cannot be read."""


class ClockError(DamieraError):
    """A clock operation its state does not allow: time going backwards, an unknown side,
    starting a running clock, resuming one that is not stopped."""


class InputTooLargeError(DamieraError):
    """An input longer than the generous limits a real one never reaches (a line, a file): read
    no further, so that ``/dev/zero`` or a runaway file cannot exhaust the memory."""


#: Longest excerpt of bad input quoted in an error message (a 10 MB line is never echoed whole).
EXCERPT_CHARS = 60


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """``repr`` of ``value`` cut to about ``limit`` characters, ``…`` and the full length marking a
    cut: the form in which every error message quotes bad input. Never raises."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = repr(value)
        except Exception:  # noqa: BLE001 - a hostile __repr__ (or a huge int) must not break an error message
            return f"<{type(value).__name__}>"
        if len(text) <= limit:
            return text
        return f"{text[:limit]}… ({len(text)} chars)"
    quoted = repr(text[:limit])
    if len(quoted) > limit + 2:  # escapes (``\\x00``) lengthen it: cut the quoted form too
        quoted = quoted[:limit] + "…"
    return quoted if len(text) <= limit else f"{quoted}… ({len(text)} chars)"
