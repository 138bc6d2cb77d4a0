"""What the arbiter decides: typed, frozen values returned by ``Arbiter.feed`` and ``advance``.

Everything a consumer needs (the journal, the OLED, the web feeds, the hall hub) comes as one of
these, in order; nothing has to be found by diffing the arbiter's state. Each carries ``t`` (the
game time it applies at, seconds) and ``article`` (the code of the rule it applies: ``IT 8.1.3``,
``COMP 4.5``…, see ``engine.articles``).

A :class:`Flag` is an immutable value with an ``id``: when its status changes (an irregularity
corrected or maintained, a disturbance put right) the arbiter returns a new :class:`FlagDecided`
carrying the new value with the same ``id``; ``Arbiter.flags`` is the current list.

JSON: every decision has one form, its ``to_json()``: an object tagged with ``type`` (the class
name), then its fields in order, with ``t`` and ``article``; sides as ``"white"``/``"black"``,
moves as ``{"from", "to", "path", "captures", "notation"}``, nested values (a flag, a clock
event) as objects with their own ``type``. The journal's readers send it as it is (``POST
/api/arbiter``'s ``decisions``, the hub's) or take their own fields from it (the web's SSE
events, ``pi/web/views.py``; the step-through replay, ``pi/web/replay.py``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Union, get_args

from engine.articles import Kind
from engine.board import Move
from engine.clock import ClockEvent
from engine.colour import Colour
from engine.frozen import quick_init

__all__ = ["Flag", "MoveCommitted", "MoveRetracted", "PositionSet", "FlagRaised", "FlagDecided",
           "GameEnded", "BoardToFix", "ClockChanged", "ClockRefused", "LampoCountdown",
           "Decision", "KINDS", "STATUSES"]

#: Every kind a flag may have: the kinds of the articles (``engine.articles.Kind``).
KINDS: tuple[Kind, ...] = get_args(Kind)
#: ``lapsed``: an irregularity still waiting for the opponent's decision when the game ended (IT
#: 8.2-8.3: the opponent decides until his own next move; a game over has none), never decided.
STATUSES = ("pending", "corrected", "maintained", "noted", "lapsed")


@dataclass(frozen=True, slots=True)
class Flag:
    """A rule event the arbiter noted (docs/trace-format.md ``flags``): ``id`` (its number in the game, from
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
        """The docs/trace-format.md report object."""
        return {"t": self.t, "code": self.code,
                "side": None if self.side is None else self.side.label,
                "kind": self.kind, "status": self.status, "text": self.text}

    def to_json(self) -> dict[str, Any]:
        """The flag as a decision carries it (module docstring: JSON)."""
        return {"type": "Flag", "id": self.id, "t": self.t, "code": self.code,
                "side": _side(self.side), "kind": self.kind, "status": self.status,
                "text": self.text}


@quick_init
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

    def to_json(self) -> dict[str, Any]:
        """Module docstring: JSON. ``move`` has the move's own notation, ``notation`` the
        transcript's."""
        return {"type": "MoveCommitted", "t": self.t, "ply": self.ply, "side": self.side.label,
                "move": self.move.to_dict(), "notation": self.notation,
                "clock": None if self.clock is None else list(self.clock), "fen": self.fen,
                "article": self.article, "setup_fen": self.setup_fen, "pending": self.pending}


@dataclass(frozen=True, slots=True)
class MoveRetracted:
    """The irregular move at ``ply`` was corrected (IT 8.4): it leaves the transcript; ``fen`` is
    the position the game goes on from."""

    t: float
    ply: int
    fen: str
    article: str

    def to_json(self) -> dict[str, Any]:
        """Module docstring: JSON."""
        return {"type": "MoveRetracted", "t": self.t, "ply": self.ply, "fen": self.fen,
                "article": self.article}


@dataclass(frozen=True, slots=True)
class PositionSet:
    """The game goes on from ``fen`` with no move written (an irregularity kept that is no move:
    pieces removed without reason, IT 8.1.7); the PDN writes ``/FEN "…"/``."""

    t: float
    fen: str
    article: str

    def to_json(self) -> dict[str, Any]:
        """Module docstring: JSON."""
        return {"type": "PositionSet", "t": self.t, "fen": self.fen, "article": self.article}


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

    def to_json(self) -> dict[str, Any]:
        """Module docstring: JSON (the flag first: it is the only field)."""
        return {"type": "FlagRaised", "flag": self.flag.to_json(), "t": self.t,
                "article": self.article}


@dataclass(frozen=True, slots=True)
class FlagDecided:
    """A flag raised before changed status at ``t``: ``flag`` is its new value (same ``id``);
    ``article`` says by what rule (IT 8.2 accepted, IT 8.3 kept by play, IT 8.4 corrected, IT 7.8
    the board put right…)."""

    t: float
    flag: Flag
    article: str

    def to_json(self) -> dict[str, Any]:
        """Module docstring: JSON."""
        return {"type": "FlagDecided", "t": self.t, "flag": self.flag.to_json(),
                "article": self.article}


@dataclass(frozen=True, slots=True)
class GameEnded:
    """The game is over: ``result`` (PDN, the variant's set), ``winner`` (None for a draw),
    ``reason`` (short text), ``article`` (IT 9.2.1, COMP 4.8, INT 6.1…)."""

    t: float
    result: str
    winner: Colour | None
    reason: str
    article: str

    def to_json(self) -> dict[str, Any]:
        """Module docstring: JSON."""
        return {"type": "GameEnded", "t": self.t, "result": self.result,
                "winner": _side(self.winner), "reason": self.reason, "article": self.article}


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

    def to_json(self) -> dict[str, Any]:
        """Module docstring: JSON."""
        return {"type": "BoardToFix", "t": self.t, "squares": list(self.squares),
                "article": self.article}


@quick_init
@dataclass(frozen=True, slots=True)
class ClockChanged:
    """The game clock did something: ``event`` is the ``engine.clock`` result (started, pressed,
    press refused or ignored, flag fell, mosse lampo began, stopped, correction began/ended…)."""

    t: float
    event: ClockEvent

    @property
    def article(self) -> str:
        return self.event.article

    def to_json(self) -> dict[str, Any]:
        """Module docstring: JSON (``event``: the clock event's fields, with its ``type``)."""
        return {"type": "ClockChanged", "t": self.t, "event": _clock_event(self.event),
                "article": self.article}


@dataclass(frozen=True, slots=True)
class ClockRefused:
    """The arbiter asked the clock for ``operation`` and the clock refused (``reason``): the state
    did not allow it. Nothing changed on the clock."""

    t: float
    operation: str
    reason: str
    article: str

    def to_json(self) -> dict[str, Any]:
        """Module docstring: JSON."""
        return {"type": "ClockRefused", "t": self.t, "operation": self.operation,
                "reason": self.reason, "article": self.article}


@dataclass(frozen=True, slots=True)
class LampoCountdown:
    """COMP 5.7: the arbiter's countdown of a mosse-lampo move reached ``word`` (``-15`` …
    ``0``) for ``side``, ``seconds`` left."""

    t: float
    side: Colour
    seconds: int
    word: str
    article: str

    def to_json(self) -> dict[str, Any]:
        """Module docstring: JSON."""
        return {"type": "LampoCountdown", "t": self.t, "side": self.side.label,
                "seconds": self.seconds, "word": self.word, "article": self.article}


Decision = Union[MoveCommitted, MoveRetracted, PositionSet, FlagRaised, FlagDecided, GameEnded,
                 BoardToFix, ClockChanged, ClockRefused, LampoCountdown]


def _side(side: Colour | None) -> str | None:
    return None if side is None else side.label


def _clock_event(event: ClockEvent) -> dict[str, Any]:
    """A clock event (``engine.clock``: a frozen dataclass of times, counts, sides, reasons and
    the clock's records) as an object with its ``type``, its fields in order."""
    out: dict[str, Any] = _clock_value(event)
    return out


def _clock_value(value: Any) -> Any:
    """A clock event's field in JSON form: sides as labels, tuples as lists, a nested record
    (``ClockRecord``) as an object with its ``type``, an enum state by its value."""
    if isinstance(value, Colour):
        return value.label
    if isinstance(value, tuple):
        return [_clock_value(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"type": type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = _clock_value(getattr(value, f.name))
        return out
    if isinstance(value, float | int | str | bool) or value is None:
        return value
    return str(value)
