"""Physical events of a game, as in docs/trace-format.md: what the sensors and buttons saw.

Squares are *algebraic names seen from White's side* ("e3", "j10"; a1 = White's left-hand corner),
because the sensors lie under every square, light ones included, which have no official number.
The trace reader (``engine.trace``) turns official numbers into these names; ``to_dict`` writes
them back as docs/trace-format.md JSON objects. Times ``t`` are seconds since the start of the game.

Event classes are named in the past tense (they report what happened) and are immutable.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Union

from engine.board import Piece
from engine.colour import BLACK, WHITE, Colour
from engine.squares import square_sort_key
from engine.frozen import quick_init

#: Player controls of docs/trace-format.md, in the order the document lists them.
BUTTON_NAMES = (
    "clock", "accomodo", "correct", "accept", "draw_offer", "draw_accept", "resign", "count",
    "repetition",
)
#: Arbiter actions of docs/trace-format.md.
ARBITER_ACTIONS = ("start_clock", "stop_clock", "restore", "impose_count", "adjudicate", "note",
                   "correct_result")
SIDES = ("white", "black")

#: The trace's names of the pieces a board that knows them reports (``"piece"`` keys of ``place``,
#: ``piece`` and ``snapshot`` lines): white/black man/king.
PIECE_CODES: dict[str, Piece] = {"wm": Piece(WHITE, False), "bm": Piece(BLACK, False),
                                 "wk": Piece(WHITE, True), "bk": Piece(BLACK, True)}
_CODE_OF: dict[Piece, str] = {piece: code for code, piece in PIECE_CODES.items()}


def piece_code(piece: Piece) -> str:
    """The trace's name of ``piece``: ``"wm"``, ``"bm"``, ``"wk"`` or ``"bk"``."""
    return _CODE_OF[piece]


def parse_piece(code: str) -> Piece:
    """The piece a trace names ``code`` (``"wm"``, ``"bm"``, ``"wk"``, ``"bk"``); raises
    ValueError for anything else."""
    piece = PIECE_CODES.get(code)
    if piece is None:
        raise ValueError(f"a piece is 'wm', 'bm', 'wk' or 'bk', not {str(code)[:40]!r}")
    return piece


@dataclass(frozen=True, slots=True)
class GameStarted:
    """The first line of a trace: variant, starting position and the conditions of play."""

    variant: str
    fen: str | None = None
    clock: bool = True
    transcribed: bool = True
    settle: float = 2.0
    time_control: str | None = None
    # white, black, event, round, site, date, board, started_at: what names the game (its PDN tags)
    tags: tuple[tuple[str, str], ...] = ()
    #: "arbiter": the clock stands ready until the arbiter's ``start_clock`` (COMP 4.4.2: a
    #: hall's round starts when the arbiter starts the clocks); None: it starts at the first
    #: event when no ``start_clock`` comes first
    clock_start: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "start", "variant": self.variant, "fen": self.fen,
                             "clock": self.clock, "transcribed": self.transcribed}
        if self.settle != 2.0:
            d["settle"] = self.settle
        if self.time_control is not None:
            d["time_control"] = self.time_control
        if self.clock_start is not None:
            d["clock_start"] = self.clock_start
        for key, value in self.tags:
            d[key] = value
        return d


@quick_init
@dataclass(frozen=True, slots=True)
class PieceLifted:
    """A piece left ``square`` (a presence sensor opened)."""

    t: float
    square: str

    def to_dict(self) -> dict[str, Any]:
        return {"t": self.t, "type": "lift", "square": self.square}


@quick_init
@dataclass(frozen=True, slots=True)
class PiecePlaced:
    """A piece arrived on ``square`` (a presence sensor closed). A board that knows which piece
    stands where (analog Hall sensors) also says ``piece`` (colour and crown) and ``reading``,
    the sensor's normalised signed field (white man about +1.0, black man about -1.0, a king,
    two stacked men, about ±2.0); both None on a board that sees occupancy only."""

    t: float
    square: str
    piece: Piece | None = None
    reading: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"t": self.t, "type": "place", "square": self.square}
        if self.piece is not None:
            d["piece"] = piece_code(self.piece)
        if self.reading is not None:
            d["reading"] = self.reading
        return d


@quick_init
@dataclass(frozen=True, slots=True)
class PieceChanged:
    """The piece on the still-occupied ``square`` changed to ``piece`` (a man crowned by stacking
    a second man on it, a king's top man lifted off), as a board that knows the pieces saw it;
    ``reading`` as in :class:`PiecePlaced`. The trace's ``piece`` line."""

    t: float
    square: str
    piece: Piece
    reading: float | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"t": self.t, "type": "piece", "square": self.square,
                             "piece": piece_code(self.piece)}
        if self.reading is not None:
            d["reading"] = self.reading
        return d


@dataclass(frozen=True, slots=True)
class SnapshotTaken:
    """The full occupancy the sensors see; squares not listed are empty. ``pieces``: on a board
    that knows them, the piece on each occupied square it could tell (a read-only mapping, its
    squares among ``occupied``); None on a board that sees occupancy only."""

    t: float
    occupied: frozenset[str] = field(default_factory=frozenset)
    pieces: Mapping[str, Piece] | None = field(default=None, hash=False)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"t": self.t, "type": "snapshot",
                             "occupied": sorted(self.occupied, key=square_sort_key)}
        if self.pieces is not None:
            d["pieces"] = {square: piece_code(self.pieces[square])
                           for square in sorted(self.pieces, key=square_sort_key)}
        return d


@dataclass(frozen=True, slots=True, init=False)
class ButtonPressed:
    """A player's control (``name`` in BUTTON_NAMES) pressed by ``side``: a ``Colour``, given as
    one or as ``"white"``/``"black"`` (raises ValueError for anything else)."""

    t: float
    name: str
    side: Colour

    def __init__(self, t: float, name: str, side: Colour | str) -> None:
        object.__setattr__(self, "t", t)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "side", Colour.parse(side))

    def to_dict(self) -> dict[str, Any]:
        return {"t": self.t, "type": "button", "name": self.name, "side": self.side.label}


@dataclass(frozen=True, slots=True)
class ArbiterActed:
    """An arbiter action (``action`` in ARBITER_ACTIONS); ``result`` for adjudicate and
    correct_result, ``text`` for note and correct_result (its reason, COMP 6.16); ``public``
    (note only): the arbiter lets the public see the note (COMP 6.16: a note is the arbiter's
    own otherwise). ``public`` is an optional key of the line, written only when
    true: a line without it is a private note, as every older journal's."""

    t: float
    action: str
    result: str | None = None
    text: str | None = None
    public: bool = False

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"t": self.t, "type": "arbiter", "action": self.action}
        if self.result is not None:
            d["result"] = self.result
        if self.text is not None:
            d["text"] = self.text
        if self.public:
            d["public"] = True
        return d


@dataclass(frozen=True, slots=True)
class TraceEnded:
    """The trace ends here; lets pending settle timers fire."""

    t: float

    def to_dict(self) -> dict[str, Any]:
        return {"t": self.t, "type": "end"}


@dataclass(frozen=True, slots=True)
class SensorsFailed:
    """The journal's ``fault`` line: the sensors under ``squares`` stopped answering; no lift or
    place can come from them until :class:`SensorsRecovered`, and nothing is inferred from their
    silence. ``message`` as the driver said it (``sensor fault: 0x21, squares c3 e3 g3``)."""

    t: float
    squares: tuple[str, ...]
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"t": self.t, "type": "fault", "squares": sorted(self.squares, key=square_sort_key),
                "message": self.message}


@dataclass(frozen=True, slots=True)
class SensorsRecovered:
    """The journal's ``fault_cleared`` line: the sensors under ``squares`` answer again (a
    snapshot follows and is checked, docs/trace-format.md)."""

    t: float
    squares: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"t": self.t, "type": "fault_cleared",
                "squares": sorted(self.squares, key=square_sort_key)}


@dataclass(frozen=True, slots=True)
class DaemonRestarted:
    """The journal's ``restart`` line: the daemon stopped and started again, ``down`` wall-clock
    seconds later (None: unknown). The clocks stand stopped until the arbiter's ``start_clock``
    (COMP 7.3-7.4); a snapshot follows and is checked."""

    t: float
    down: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"t": self.t, "type": "restart", "down": self.down}


Event = Union[PieceLifted, PiecePlaced, PieceChanged, SnapshotTaken, ButtonPressed, ArbiterActed,
              TraceEnded, SensorsFailed, SensorsRecovered, DaemonRestarted]
