"""Per-turn piece tracking: which piece stands where, what is in the hand, what was touched.

A :class:`TurnTracker` follows the physical board from a reference position (the position the
player on move started from). Each piece is known by its *origin*, the square it stood on in the
reference position (None for a piece that came from outside the board). Every lift and place is
kept as a typed :class:`Touch` record; the arbiter reads from them the first playable piece
touched (IT 3.7, 3.8), the order captured pieces came off (IT 5.12, INT 4.11) and whether the
capturing piece landed before (IT 5.13, INT 4.10).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, overload

from engine.board import Board, Move, Piece
from engine.frozen import quick_init

__all__ = ["MaybeBrush", "Touch", "Touches", "TurnTracker", "UnpressedCapture"]


@quick_init
@dataclass(frozen=True, slots=True)
class Touch:
    """One sensor change of the turn: ``action`` ``lift`` or ``place`` on ``square`` (algebraic)
    at ``t``; ``origin``: the reference square of the piece lifted or placed (None: unknown, a
    piece from outside the board)."""

    action: Literal["lift", "place"]
    square: str
    t: float
    origin: int | None

    @property
    def is_lift(self) -> bool:
        return self.action == "lift"


class Touches(Sequence[Touch]):
    """The touches of a turn, in order, kept compact: a turn that never ends (a piece lifted and
    put back a million times) holds 16 bytes per touch, not a :class:`Touch` object (its time in
    an array, the rest shared: a few squares and origins recur). Reading an item makes its
    :class:`Touch`."""

    def __init__(self) -> None:
        self._t = array("d")
        self._what: list[tuple[Literal["lift", "place"], str, int | None]] = []
        self._shared: dict[tuple[Literal["lift", "place"], str, int | None],
                           tuple[Literal["lift", "place"], str, int | None]] = {}

    def append(self, touch: Touch) -> None:
        what = (touch.action, touch.square, touch.origin)
        self._what.append(self._shared.setdefault(what, what))
        self._t.append(touch.t)

    def __len__(self) -> int:
        return len(self._what)

    @overload
    def __getitem__(self, index: int) -> Touch: ...

    @overload
    def __getitem__(self, index: slice) -> list[Touch]: ...

    def __getitem__(self, index: int | slice) -> Touch | list[Touch]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        action, square, origin = self._what[index]
        return Touch(action, square, self._t[index], origin)

    def __iter__(self) -> Iterator[Touch]:
        for (action, square, origin), t in zip(self._what, self._t, strict=True):
            yield Touch(action, square, t, origin)

    def pop(self) -> Touch:
        """Take the last touch back (it was judged not to belong to this turn); returns it."""
        touch = self[-1]
        self._what.pop()
        self._t.pop()
        return touch


@dataclass(frozen=True, slots=True)
class MaybeBrush:
    """A lift made while another piece was in the hand: a brush if the piece comes straight
    back, else a touch (judged at the next event)."""

    square: str
    origin: int | None
    t: float


@dataclass(frozen=True, slots=True)
class UnpressedCapture:
    """With a clock, a capture shown complete and not pressed when a piece of the other side is
    lifted from ``square`` (its ``origin``) at ``t``: the opponent beginning his reply to a
    capture whose press was forgotten (COMP 4.6), or the capturing player's own hand taking off
    a piece too many (IT 8.1.12). The sensors do not say which: judged when the piece is put
    down (a legal move of his after ``capture`` or not). ``complete_at``: when the capture was
    last changed before the lift."""

    square: str
    origin: int
    t: float
    complete_at: float
    capture: Move


class TurnTracker:
    """The pieces of one turn, from ``ref`` and the occupancy ``sensed`` (algebraic names).

    ``obligation``: a piece touch-move binds from the start (after a correction of IT 8.1.3);
    ``legal``: the legal moves of ``ref`` (empty once the game is over); ``now``: the time the
    turn starts (the settle timer of a game without clock counts from the last change)."""

    def __init__(self, ref: Board, sensed: set[str], obligation: int | None, legal: list[Move],
                 now: float) -> None:
        self.ref = ref
        g = ref.variant.geometry
        num = g.number_of_algebraic
        on_board = ref.occupied_squares()  # one pass over the bitboards, not one per square
        self.phys: dict[str, int | None] = {
            s: o if (o := num.get(s)) in on_board else None for s in sensed}
        self.hand: list[int | None] = []
        self.touches = Touches()
        self.first_touch: int | None = obligation  # IT 3.7, 3.8: the piece that must be played
        self.accomodo = False  # IT 3.9 / INT 3.13 announced
        self.maybe_brush: MaybeBrush | None = None
        self.last_change = now
        self.playable = {m.path[0] for m in legal}  # Move.from_square
        occ = ref.occupied_algebraic()
        alg = g.algebraic_of
        #: occupancy after each legal move -> that move (picochess's recognition, STYLE.md)
        # (made at every turn of every game: frozensets made directly, no set copied; a quiet
        # move's squares gone made without a list of captures)
        after: dict[frozenset[str], Move] = {}
        for m in legal:
            path, caps = m.path, m.captures
            gone = (alg[path[0]], *[alg[c] for c in caps]) if caps else (alg[path[0]],)
            after[occ.difference(gone).union((alg[path[-1]],))] = m
        self.after = after

    @property
    def mover(self) -> int:
        """The colour on move in the reference position."""
        return self.ref.turn

    @property
    def last(self) -> Touch | None:
        return self.touches[-1] if self.touches else None

    def lift(self, t: float, square: str) -> int | None:
        """A piece left ``square``: into the hand. Returns its origin."""
        origin = self.phys.pop(square, None)
        self.hand.append(origin)
        self.touches.append(Touch("lift", square, t, origin))
        self.last_change = t
        return origin

    def place(self, t: float, square: str, origin: int | None) -> None:
        """A piece of ``origin`` arrived on ``square``."""
        self.phys[square] = origin
        self.touches.append(Touch("place", square, t, origin))
        self.last_change = t

    def carry_over(self, other: TurnTracker) -> None:
        """Go on following the pieces ``other`` followed (same reference position): what stands
        where, what is in the hand, the touches so far."""
        self.phys, self.hand, self.touches = other.phys, other.hand, other.touches

    def unlift(self, square: str, before: float) -> None:
        """Take back the last touch, the lift of ``square``: the piece stands there again, out of
        the hand, and the last change is ``before`` again (the lift belonged to the next turn)."""
        touch = self.touches.pop()
        self.hand.pop()  # the lift, the last touch, put its piece last in the hand
        self.phys[square] = touch.origin
        self.maybe_brush = None
        self.last_change = before

    def put_back(self) -> int | None:
        """The piece lifted last comes back to its square (that lift is the last touch): out of
        the hand. Returns its origin."""
        last = self.touches[-1]
        self.hand.pop()
        return last.origin

    def from_hand(self, square: str) -> int | None:
        """A piece in the hand is put on ``square`` (see :meth:`which_in_hand`): out of the
        hand. Returns its origin."""
        return self.hand.pop(self.which_in_hand(square))

    def resense(self, sensed: set[str]) -> None:
        """The sensors report ``sensed`` all at once (a snapshot): a piece gone from a square is
        in the hand; a piece on a square not followed is of unknown origin."""
        for s in list(self.phys):
            if s not in sensed:
                self.hand.append(self.phys.pop(s))
        for s in sensed:
            if s not in self.phys:
                self.phys[s] = None

    def which_in_hand(self, square: str) -> int:
        """Index in the hand of the piece being put on ``square``: a piece coming back to its own
        square; else the last piece of the player on move lifted; else the last lifted."""
        home = self.ref.variant.geometry.number_of_algebraic.get(square)
        if home is not None and home in self.hand:
            return self.hand.index(home)
        c = self.mover
        for i in range(len(self.hand) - 1, -1, -1):
            o = self.hand[i]
            p = self.ref.piece_at(o) if o is not None else None
            if p is not None and p.color == c:
                return i
        return len(self.hand) - 1

    def piece_on(self, square: str) -> Piece | None:
        """The piece of the reference position that stands on ``square`` now (followed from
        its origin), None when the square is empty or holds a piece of unknown origin."""
        origin = self.phys.get(square)
        return self.ref.piece_at(origin) if origin is not None else None

    def on_board(self) -> dict[int, int | None]:
        """Official number -> origin of every dark square occupied (light squares excluded)."""
        num = self.ref.variant.geometry.number_of_algebraic
        return {num[s]: o for s, o in self.phys.items() if s in num}

    def landings(self, origin: int) -> tuple[int, ...]:
        """The dark squares (official numbers) the sensors saw the piece of ``origin`` put on
        this turn, in order, ``origin`` first: the path of a capture as it was shown (IT 5.10,
        INT 4.9). A square it was put on twice in a row counts once."""
        num = self.ref.variant.geometry.number_of_algebraic
        path = [origin]
        for e in self.touches:
            n = num.get(e.square)
            if not e.is_lift and e.origin == origin and n is not None and n != path[-1]:
                path.append(n)
        return tuple(path)

    def removal(self, move: Move) -> tuple[list[int], bool]:
        """The captured pieces of ``move`` in the order they came off (a piece lifted and put back
        does not count until its last lift), and whether one came off before the capturing piece
        last landed on its end square (IT 5.12-5.13, INT 4.10-4.11)."""
        alg = self.ref.variant.geometry.algebraic_of
        caps = {alg[n]: n for n in move.captures}
        to_name = alg[move.to_square]
        landed = max((i for i, e in enumerate(self.touches)
                      if not e.is_lift and e.square == to_name), default=-1)
        last_put_back: dict[str, int] = {}
        for i, e in enumerate(self.touches):
            if not e.is_lift:
                last_put_back[e.square] = i
        order: list[int] = []
        early = False
        for i, e in enumerate(self.touches):
            if e.is_lift and e.square in caps and last_put_back.get(e.square, -1) < i:
                order.append(caps[e.square])
                if i < landed:
                    early = True
        return order, early
