"""What the arbiter decides: typed, frozen values returned by ``Arbiter.feed`` and ``advance``.

Everything a consumer needs (the journal, the OLED, the web feeds, the hall hub) comes as one of
these, in order; nothing has to be found by diffing the arbiter's state. Each carries ``t`` (the
game time it applies at, seconds) and ``article`` (the code of the rule it applies: ``IT 8.1.3``,
``COMP 4.5``…, see ``engine.articles``).

A :class:`Flag` is an immutable value with an ``id``: when its status changes (an irregularity
corrected or maintained, a disturbance put right) the arbiter returns a new :class:`FlagDecided`
carrying the new value with the same ``id``; ``Arbiter.flags`` is the current list.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Union, get_args

from engine.articles import Kind
from engine.board import Move
from engine.clock import ClockEvent
from engine.colour import Colour

__all__ = ["Flag", "MoveCommitted", "MoveRetracted", "PositionSet", "FlagRaised", "FlagDecided",
           "GameEnded", "BoardToFix", "ClockChanged", "ClockRefused", "LampoCountdown",
           "Decision", "KINDS", "STATUSES", "to_dict"]

#: Every kind a flag may have: the kinds of the articles (``engine.articles.Kind``).
KINDS: tuple[Kind, ...] = get_args(Kind)
STATUSES = ("pending", "corrected", "maintained", "noted")


@dataclass(frozen=True, slots=True)
class Flag:
    """A rule event the arbiter noted (TRACE.md ``flags``): ``id`` (its number in the game, from
    0), ``code`` (the article), ``side`` (the player concerned, or None), ``kind`` (its article's
    kind, in :data:`KINDS`: irregularity, incorrectness, notice, result or procedure), ``status``
    (in :data:`STATUSES`), ``text``."""

    id: int
    t: float
    code: str
    side: Colour | None
    kind: str
    status: str
    text: str

    def with_status(self, status: str) -> "Flag":
        """The same flag with another status (a new value; this one is unchanged)."""
        return dataclasses.replace(self, status=status)

    def to_dict(self) -> dict[str, object]:
        """The TRACE.md report object."""
        return {"t": self.t, "code": self.code,
                "side": None if self.side is None else self.side.label,
                "kind": self.kind, "status": self.status, "text": self.text}


@dataclass(frozen=True, slots=True)
class MoveCommitted:
    """A move entered the transcript at ``ply``, played by ``side``: ``move`` in official numbers,
    ``notation`` as the PDN writes it, ``clock`` the (white, black) seconds left after it (None
    without a running clock), ``fen`` the position after it. ``setup_fen``: set when the move
    broke the rules and the game goes on from the position on the board (``/FEN/`` in the PDN);
    ``pending`` when that irregular move still waits for the opponent's decision (it leaves the
    transcript again with :class:`MoveRetracted` if corrected). ``article``: what completed it
    (COMP 4.5 a clock press, IT 3.5 a piece let go, IT 8.3 an irregularity kept…)."""

    t: float
    ply: int
    side: Colour
    move: Move
    notation: str
    clock: tuple[float, float] | None
    fen: str
    article: str
    setup_fen: str | None = None
    pending: bool = False


@dataclass(frozen=True, slots=True)
class MoveRetracted:
    """The irregular move at ``ply`` was corrected (IT 8.4): it leaves the transcript; ``fen`` is
    the position the game goes on from."""

    t: float
    ply: int
    fen: str
    article: str


@dataclass(frozen=True, slots=True)
class PositionSet:
    """The game goes on from ``fen`` with no move written (an irregularity kept that is no move:
    pieces removed without reason, IT 8.1.7); the PDN writes ``/FEN "…"/``."""

    t: float
    fen: str
    article: str


@dataclass(frozen=True, slots=True)
class FlagRaised:
    """A new flag."""

    flag: Flag

    @property
    def t(self) -> float:
        return self.flag.t

    @property
    def article(self) -> str:
        return self.flag.code


@dataclass(frozen=True, slots=True)
class FlagDecided:
    """A flag raised before changed status at ``t``: ``flag`` is its new value (same ``id``);
    ``article`` says by what rule (IT 8.2 accepted, IT 8.3 kept by play, IT 8.4 corrected, IT 7.8
    the board put right…)."""

    t: float
    flag: Flag
    article: str


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over: ``result`` (PDN, the variant's set), ``winner`` (None for a draw),
    ``reason`` (short text), ``article`` (IT 9.2.1, COMP 4.8, INT 6.1…)."""

    t: float
    result: str
    winner: Colour | None
    reason: str
    article: str


@dataclass(frozen=True, slots=True)
class BoardToFix:
    """The squares (algebraic names) that must change for the board to show the position it must
    show; empty when the board is right again. ``article``: IT 8.4 (a correction), IT 7.8 (a
    disturbance), IT 7.5 (a piece on a light square)."""

    t: float
    squares: tuple[str, ...]
    article: str

    @property
    def cleared(self) -> bool:
        return not self.squares


@dataclass(frozen=True, slots=True)
class ClockChanged:
    """The game clock did something: ``event`` is the ``engine.clock`` result (started, pressed,
    press refused or ignored, flag fell, mosse lampo began, stopped, correction began/ended…)."""

    t: float
    event: ClockEvent

    @property
    def article(self) -> str:
        return self.event.article


@dataclass(frozen=True, slots=True)
class ClockRefused:
    """The arbiter asked the clock for ``operation`` and the clock refused (``reason``): the state
    did not allow it. Nothing changed on the clock."""

    t: float
    operation: str
    reason: str
    article: str


@dataclass(frozen=True, slots=True)
class LampoCountdown:
    """COMP 5.7: the arbiter's countdown of a mosse-lampo move reached ``word`` (``-15`` …
    ``0``) for ``side``, ``seconds`` left."""

    t: float
    side: Colour
    seconds: int
    word: str
    article: str


Decision = Union[MoveCommitted, MoveRetracted, PositionSet, FlagRaised, FlagDecided, GameEnded,
                 BoardToFix, ClockChanged, ClockRefused, LampoCountdown]


def _plain(value: Any) -> Any:
    """JSON-ready form of a field: colours as ``"white"``/``"black"``, moves as TRACE.md move
    objects, nested values (a clock event, a flag, a record) as dicts with their ``type``."""
    if isinstance(value, Colour):
        return value.label
    if isinstance(value, Move):
        return value.to_dict()
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"type": type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = _plain(getattr(value, f.name))
        return out
    if isinstance(value, float | int | str | bool) or value is None:
        return value
    return str(value)  # an enum state ("running")


def to_dict(decision: Decision) -> dict[str, Any]:
    """A decision as one JSON object (for the journal, the web feeds, the hub): ``type`` (the
    class name), ``t``, ``article`` and its fields, with sides, moves and clock events in plain
    form."""
    out: dict[str, Any] = _plain(decision)
    out["t"] = decision.t
    out["article"] = decision.article
    return out
