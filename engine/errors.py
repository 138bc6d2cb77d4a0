"""The exceptions of damiera: one root, :class:`DamieraError`, and one subclass per family.

* :class:`InputError` — bad input: a variant, FEN, square, move, PDN, trace, time control or
  option that cannot be read or is not allowed. Also a ``ValueError`` (python-chess does the
  same for its parse errors), the only family that is.
* :class:`HardwareError` — a device that cannot be opened or misbehaves (``pi.drivers.errors``).
* :class:`StateError` — the daemon's own state (state directory, journal) unusable or damaged
  (``pi.board.errors``).
* :class:`ConfigurationError` — a configuration or wiring file that cannot be read or holds a bad
  value (``pi.board.errors``, ``pi.drivers.errors``).
* :class:`NetworkError` — an address or a peer that cannot be had (``pi.web.errors``).

Every message is one line meant for the person at the board, as is: the command line catches
the root once and prints it (exit status 2). The engine's own errors are all bad input; the
other families are defined here so that the whole project has one tree, and subclassed in each
package's exceptions module.
"""

from __future__ import annotations

__all__ = ["DamieraError", "InputError", "HardwareError", "StateError", "ConfigurationError",
           "NetworkError", "UnknownVariantError", "InvalidFenError", "ImpossiblePositionError",
           "InvalidSquareError", "IllegalMoveError", "AmbiguousMoveError", "InvalidMoveError",
           "PdnError", "TraceError", "TimeControlError", "PdnTimeError", "ClockError",
           "InputTooLargeError", "NoArticleError", "UnknownLanguageError", "EXCERPT_CHARS", "excerpt"]


class DamieraError(Exception):
    """The root of every error damiera raises on purpose; its message is one line."""


class InputError(DamieraError, ValueError):
    """Bad input: text, a number or an option that cannot be read or is not allowed."""


class HardwareError(DamieraError):
    """A device (bus, chip, peripheral) that cannot be opened or does not behave."""


class StateError(DamieraError):
    """The daemon's own state (its state directory, a game's journal) unusable or damaged."""


class ConfigurationError(DamieraError):
    """A configuration file (damiera.toml, hub.toml, a wiring file) unreadable or holding a bad value."""


class NetworkError(DamieraError):
    """An address that cannot be had (in use, not this host's) or a peer that cannot be reached."""


class UnknownVariantError(InputError):
    """A variant name that is not in the registry."""


class UnknownLanguageError(InputError):
    """A language code that has no catalog (``engine.i18n.LANGUAGES`` lists those that do)."""


class InvalidFenError(InputError):
    """A FEN string that cannot be parsed."""


class ImpossiblePositionError(InputError):
    """A FEN that parses but describes a position that cannot occur (e.g. a man on its promotion row)."""


class InvalidSquareError(InputError):
    """A square name or number that does not exist on the variant's board."""


class IllegalMoveError(InputError):
    """A move that is well formed but not legal in the position."""


class AmbiguousMoveError(InputError):
    """A move notation that matches more than one legal move."""


class InvalidMoveError(InputError):
    """A move notation that cannot be parsed."""


class PdnError(InputError):
    """A PDN text that cannot be read."""


class UndecidedCaptureError(PdnError):
    """A game of a PDN text holding a capture written short (``3x26``) that fits several legal
    captures, and the rest of the game does not tell which (or replays from none): that game
    cannot be read, the text's other games can."""


class TraceError(InputError):
    """A physical-event trace that is malformed (docs/trace-format.md): carries the 1-based line number."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


class TimeControlError(InputError):
    """A PDN TimeControl string that cannot be parsed."""


class PdnTimeError(TimeControlError):
    """A PDN time value (``WhiteTime``/``BlackTime`` tag, ``[%clock …]`` comment) that cannot be read."""


class ClockError(InputError):
    """A clock call the clock refuses: time going backwards, an unknown side, starting a running
    clock, resuming one that is not stopped. Bad input to the clock (its caller's times and
    orders), so a ValueError like the rest of the family."""


class InputTooLargeError(InputError):
    """An input longer than the generous limits a real one never reaches (a line, a file): read
    no further, so that ``/dev/zero`` or a runaway file cannot exhaust the memory."""


class NoArticleError(InputError, KeyError):
    """A rule set has no article for a key (``engine.articles``): the caller asked for a rule
    that does not exist."""


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
