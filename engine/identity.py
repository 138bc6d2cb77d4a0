"""Which piece is where (issue 40): what a board that knows colour and crown saw on each square,
and the rules only such a board can apply.

A board with analog Hall sensors says which piece stands on a square (``PiecePlaced.piece``,
``PieceChanged``, ``SnapshotTaken.pieces``: docs/trace-format.md) and the reading it decided
from. :class:`PieceWatch` keeps the last word on each square; the functions below compare it
with the official position and name what is wrong, with the readings that show it. They never
decide by themselves: the arbiter and its judge raise the flags (``engine.arbiter``,
``engine.arbiter_judge``). A board that sees occupancy only tells nothing of the kind: the watch
stays empty and every function here finds nothing, so such a game is arbitrated as before.

The rules (codes in ``engine.articles``):

* a king moved without its crown, the square it lands on reading a man: IT 8.1.16, EN 8.1.15
  (INT 3.7: a king may not move uncrowned, an irregular move, 5.4.02); kept, the record still
  counts it a king (IT 4.5: the board transcribes every game);
* a crown on a man that is no king: IT 8.1.17, EN 8.1.16; INT 4.15 when the man only passed the
  crown row during a capture (it stays a man), INT 3.5 otherwise;
* a man made king and still uncrowned when the opponent's move is complete: IT 4.4 (EN 4.5,
  INT 3.5); crowned later on its player's own turn it counts as touching it (IT 4.4 -> 3.7:
  the king must be played if it can be; 3.10: incorrect if it cannot);
* a king's top man lifted off: IT 4.5 (EN 4.6, INT 3.7) - a notice: the record keeps the king;
* a piece other than the position's at set-up (IT 7.1) or when a position is put right after a
  correction (IT 8.4) or a disturbance (IT 7.8).

Pure: no I/O, no clocks; not thread-safe (the arbiter's thread).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from engine.board import Board, Move, Piece
from engine.colour import BLACK, WHITE, Colour
from engine.i18n import N_

__all__ = ["PieceWatch", "Finding", "piece_words", "square_label", "judge_move", "crowns_due",
           "wrong_pieces"]


@dataclass(frozen=True, slots=True)
class Finding:
    """What is wrong: ``key`` (``engine.articles``), ``side`` the player concerned, ``text``
    with the readings that show it, ``squares`` (algebraic) where; ``after_fen`` (a crown on
    a man): the position on the board if the irregularity is kept, the crowned man a king."""

    key: str
    side: Colour | None
    text: str
    squares: tuple[str, ...] = ()
    after_fen: str | None = None


_WORDS = {(WHITE, False): N_("a white man"), (BLACK, False): N_("a black man"),
          (WHITE, True): N_("a white king"), (BLACK, True): N_("a black king")}


def piece_words(piece: Piece) -> str:
    """``"a white man"``… (English: the flag texts are the journal's language)."""
    return _WORDS[piece.color, piece.king]


class PieceWatch:
    """The pieces a board that knows them reported, square by square (algebraic names), with the
    readings; and the crownings the rules wait for. Told by the arbiter of every event; empty
    on a board that sees occupancy only (:attr:`knows` stays False)."""

    __slots__ = ("_seen", "_readings", "knows", "owed", "late", "wrong")

    def __init__(self) -> None:
        self._seen: dict[str, Piece] = {}
        self._readings: dict[str, float] = {}
        #: the board has said at least once which piece stands where
        self.knows = False
        #: square -> colour of a man made king whose crown is not on yet (IT 4.4)
        self.owed: dict[str, Colour] = {}
        #: square -> colour of a king still uncrowned when the opponent moved (IT 4.4 -> 3.7)
        self.late: dict[str, Colour] = {}
        #: square -> (flag id, article key) of a wrong piece flagged, until it reads right
        self.wrong: dict[str, tuple[int, str]] = {}

    def piece(self, square: str) -> Piece | None:
        """The piece last seen on ``square``; None: empty, or the board did not say."""
        return self._seen.get(square)

    def reading(self, square: str) -> str:
        """What the sensor under ``square`` read, for a flag's text: ``"+1.02"``, or ``"?"``."""
        r = self._readings.get(square)
        return "?" if r is None else f"{r:+.2f}"

    # ------------------------------------------------------------------ what the board said

    def lifted(self, square: str) -> None:
        # ``owed`` and ``late`` stay: a brush or an adjustment puts the same man back (they are
        # pruned when a move is complete, ``crowns_due``)
        self._seen.pop(square, None)
        self._readings.pop(square, None)

    def placed(self, square: str, piece: Piece | None, reading: float | None) -> None:
        self._set(square, piece, reading)

    def changed(self, square: str, piece: Piece, reading: float | None) -> Piece | None:
        """The piece on ``square`` changed (a crown stacked or lifted); returns the one before."""
        before = self._seen.get(square)
        self._set(square, piece, reading)
        return before

    def snapshot(self, occupied: frozenset[str], pieces: Mapping[str, Piece] | None) -> None:
        """A snapshot: what it says of each square replaces what was known (it has no readings:
        the earlier ones no longer tell what stands there)."""
        self._readings.clear()
        for square in list(self._seen):
            if square not in occupied or pieces is None or square not in pieces:
                self._seen.pop(square)
        if pieces is not None:
            self.knows = True
            self._seen.update(pieces)

    def _set(self, square: str, piece: Piece | None, reading: float | None) -> None:
        if piece is None:
            self._seen.pop(square, None)
        else:
            self.knows = True
            self._seen[square] = piece
        if reading is None:
            self._readings.pop(square, None)
        else:
            self._readings[square] = reading


def square_label(board: Board, square: str) -> str:
    """A square for texts: its official number, or its algebraic name for a light square."""
    n = board.variant.geometry.number_of_algebraic.get(square)
    return square if n is None else str(n)


def _fen_with_kings(board: Board, kings: set[int]) -> str:
    """``board``'s position (side to move included) with the men on ``kings`` made kings."""
    parts = ["W" if board.turn == WHITE else "B"]
    for tag, colour in (("W", WHITE), ("B", BLACK)):
        items = sorted(board.pieces(colour).items())
        parts.append(tag + ",".join(("K" if p.king or n in kings else "") + str(n)
                                    for n, p in items))
    return ":".join(parts)


def _passes_crown_row(board: Board, move: Move) -> bool:
    """The capture ``move`` of a man lands on its crown row before its last square."""
    g = board.variant.geometry
    piece = board.piece_at(move.from_square)
    if piece is None or piece.king:
        return False
    row = g.promotion_row[piece.color]
    return any(row >> g.bit_of[n] & 1 for path, _ in move.alternatives for n in path[1:-1])


def judge_move(watch: PieceWatch, ref: Board, move: Move) -> Finding | None:
    """The legal ``move`` of the player on move in ``ref``, as the pieces on the board show it:
    a king moved uncrowned (IT 8.1.16), a crown on a man (IT 8.1.17, INT 4.15). None when the
    pieces agree, or the board does not say."""
    if not watch.knows:
        return None
    g = ref.variant.geometry
    names = g.algebraic_of
    moved = ref.piece_at(move.from_square)
    if moved is None:
        return None
    to = names[move.to_square]
    landed = watch.piece(to)
    if moved.king and landed is not None and landed.color == moved.color and not landed.king:
        return Finding("unmarked_king", moved.color,
                       N_("moved the king {a}-{b} uncrowned: {square} reads {reading}, {piece}; "
                          "the record counts it a king").format(
                           a=move.from_square, b=move.to_square, square=move.to_square,
                           reading=watch.reading(to), piece=piece_words(landed)), (to,))
    after = ref.copy(stack=False)
    after.push(move)
    crowned = sorted(n for n, p in after.pieces(moved.color).items()
                     if not p.king and (seen := watch.piece(names[n])) is not None
                     and seen.king and seen.color == p.color)
    if not crowned:
        return None
    squares = tuple(names[n] for n in crowned)
    readings = ", ".join(f"{n} {watch.reading(names[n])}" for n in crowned)
    fen = _fen_with_kings(after, set(crowned))
    if (move.to_square in crowned and ref.variant.promotion_stops_capture is False
            and move.is_capture and _passes_crown_row(ref, move)):
        return Finding("crown_in_passing", moved.color,
                       N_("crowned the man of {move}, which only passed the crown row during "
                          "the capture: it stays a man (reads {readings})").format(
                           move=move.notation(full_path=True), readings=readings),
                       squares, fen)
    return Finding("wrong_crown", moved.color,
                   N_("crowned the man on {squares}, which is no king (reads {readings})").format(
                       squares=", ".join(str(n) for n in crowned), readings=readings),
                   squares, fen)


def crowns_due(watch: PieceWatch, before: Board, after: Board, move: Move,
               side: Colour) -> list[Finding]:
    """``side`` completed ``move`` (from ``before`` to ``after``): the opponent's men made king
    still uncrowned are late (IT 4.4), one finding each; and a man of ``side`` made king by this
    move whose square reads a man owes its crown from now. A king no longer on its square in
    ``after`` (moved, taken) owes nothing more."""
    if not watch.knows:
        return []
    numbers = before.variant.geometry.number_of_algebraic
    for waiting in (watch.owed, watch.late):
        for square, colour in list(waiting.items()):
            official = after.piece_at(numbers[square])
            if official is None or official.color != colour or not official.king:
                del waiting[square]
    found: list[Finding] = []
    for square, colour in sorted(watch.owed.items()):
        if colour == side:
            continue
        del watch.owed[square]
        piece = watch.piece(square)
        if piece is not None and piece.color == colour and not piece.king:
            watch.late[square] = colour
            found.append(Finding("crown_late", colour,
                                 N_("the man made king on {square} was not crowned before the "
                                    "opponent moved (reads {reading})").format(
                                     square=square_label(before, square),
                                     reading=watch.reading(square)), (square,)))
    moved = before.piece_at(move.from_square)
    g = before.variant.geometry
    to = g.algebraic_of[move.to_square]
    landed = watch.piece(to)
    if (moved is not None and not moved.king and g.promotion_row[side] >> g.bit_of[move.to_square] & 1
            and landed is not None and landed.color == side and not landed.king):
        watch.owed[to] = side
    return found


def wrong_pieces(watch: PieceWatch, board: Board) -> dict[str, str]:
    """Square -> what is wrong there, for every dark square whose piece the board said and
    that differs from ``board``'s (colour or crown): e.g. ``"22: a black man where a white man
    stands (reads -1.02)"``, the reading when the board gave one."""
    if not watch.knows:
        return {}
    names = board.variant.geometry.algebraic_of
    out: dict[str, str] = {}
    for n, expected in board.pieces().items():
        square = names[n]
        seen = watch.piece(square)
        if seen is not None and seen != expected:
            text = N_("{square}: {seen} where {expected} stands").format(
                square=n, seen=piece_words(seen), expected=piece_words(expected))
            reading = watch.reading(square)
            out[square] = text if reading == "?" else N_("{text} (reads {reading})").format(
                text=text, reading=reading)
    return out
