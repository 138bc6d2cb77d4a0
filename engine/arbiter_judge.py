"""What the board shows, judged against the rules: a move, an irregularity, or a disturbance.

``judge`` is pure: it receives the reference position (the position the player on move started
from), the physical picture of the board (which piece stands where, by *origin*: the square each
piece stood on in the reference position) and who pressed, and returns a ``Judgement``. The
regular case (the board shows exactly the position after a legal move) is recognised by occupancy
alone, as picochess does (STYLE.md); the physical history only serves to name an irregularity.

Order of the checks, most specific first (each cites its article; codes in ``engine.articles``):
a takeback (IT 8.1.4) when the board shows the position before the last move; a piece of the
side not on move moved (IT 8.1.1 when that side pressed the clock, else 8.1.5); own pieces removed
(8.1.13, 8.1.7); a capture with the right ends but the wrong pieces removed (8.1.10-8.1.12); a
complete capture that the choice rule forbids (8.1.8, 8.1.15); a capture stopped part-way (8.1.9);
a plain move while a capture is due (8.1.6); pieces removed by no possible capture (8.1.14); any
other displacement (8.1.2). More than one piece displaced, or pieces appearing: a disturbance (IT
7.8), which is not judged but put right.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache

from engine.articles import defines
from engine.board import Board, Move
from engine.colour import BLACK, WHITE
from engine.variants import Variant, free_choice

__all__ = ["Judgement", "judge", "free_board", "square_label"]


@dataclass(frozen=True, slots=True)
class Judgement:
    """The verdict on a board. ``key``: None for a regular move, ``"disturbed"`` for a board that is
    no move at all, ``"nothing"`` when nothing changed, else an irregularity key of
    ``engine.articles``. ``offender``: the colour at fault. ``move``: the move as played, when it can
    be written from/to/captures. ``legal``: ``move`` is legal in the reference position.
    ``after_fen``: the position on the board (side to move included) if the irregularity is kept.
    """

    key: str | None
    offender: int | None = None
    text: str = ""
    move: Move | None = None
    legal: bool = False
    after_fen: str | None = None


@lru_cache(maxsize=None)
def _free_variant(variant: Variant) -> Variant:
    return dataclasses.replace(variant, capture_choice=free_choice)


def free_board(board: Board) -> Board:
    """The same position under free choice of captures (EN 6.6): every complete capture sequence
    the pieces can make, whatever the choice rule (to tell 8.1.8/8.1.15 from 8.1.14)."""
    return Board(board.fen(), _free_variant(board.variant))


def square_label(board: Board, name: str) -> str:
    """A square for texts: its official number, or its algebraic name for a light square."""
    n = board.variant.geometry.number_of_algebraic.get(name)
    return str(n) if n is not None else name


def _fen(variant: Variant, pieces: dict[int, tuple[int, bool]], turn: int) -> str:
    parts = ["W" if turn == WHITE else "B"]
    for tag, color in (("W", WHITE), ("B", BLACK)):
        items = sorted((n, k) for n, (c, k) in pieces.items() if c == color)
        parts.append(tag + ",".join(("K" if k else "") + str(n) for n, k in items))
    return ":".join(parts)


def judge(ref: Board, on_board: dict[int, int | None], presser: int | None,
          previous: Board | None) -> Judgement:
    """Judge the board against ``ref`` (the position the player on move started from).

    ``on_board``: official number -> origin (the square the piece stood on in ``ref``; None for a
    piece that appeared) for every dark square occupied; pieces on light squares are the caller's
    business (IT 7.5). ``presser``: the colour that pressed the clock (None: no press, e.g. the
    settle timer of a game without clock). ``previous``: the position before the last move, to
    recognise a takeback (IT 8.1.4), or None.
    """
    c = ref.turn
    occupied = frozenset(on_board)
    ref_occ = ref.occupied_squares()
    if occupied == ref_occ and all(on_board[n] == n for n in on_board):
        return Judgement("nothing")
    for m in ref.legal_moves:
        if _occupancy_after(ref_occ, m) == occupied:
            return Judgement(None, c, move=m, legal=True)
    if previous is not None and occupied == previous.occupied_squares():
        return Judgement("takeback", 1 - c, "the last move was taken back",
                         after_fen=previous.fen())
    if any(o is None for o in on_board.values()):
        return Judgement("disturbed", None, "pieces appeared on the board")
    moved = sorted((o, n) for n, o in on_board.items() if o is not None and o != n)
    present = {o for o in on_board.values() if o is not None}
    gone = ref_occ - present
    own = ref.pieces(c)
    own_gone = {n for n in gone if n in own}
    opp_gone = gone - own_gone
    pieces: dict[int, tuple[int, bool]] = {}
    promo = ref.variant.geometry.promotion_row
    g = ref.variant.geometry
    for n, o in on_board.items():
        p = ref.piece_at(o)  # type: ignore[arg-type]
        assert p is not None
        # a man ending on the far row is a king by rule (IT 4.5: the record is transcribed)
        king = p.king or bool(promo[p.color] >> g.bit_of[n] & 1)
        pieces[n] = (p.color, king)

    def fen_after(turn: int) -> str:
        return _fen(ref.variant, pieces, turn)

    def say(*squares: int) -> list[str]:
        return [str(s) for s in squares]

    if not moved:
        removed = ", ".join(say(*sorted(gone)))
        return Judgement("remove_no_reason", c, f"removed {removed} without a move",
                         after_fen=fen_after(1 - c))
    if len(moved) > 1:
        return Judgement("disturbed", None, "several pieces displaced: "
                         + ", ".join(f"{a}->{b}" for a, b in moved))
    a, b = moved[0]
    piece = ref.piece_at(a)
    assert piece is not None
    if piece.color != c:
        other = ref.copy(stack=False)
        other.turn = c.opponent
        shaped = any(m.from_square == a and m.to_square == b and set(m.captures) == gone
                     for m in other.legal_moves)
        if presser == 1 - c or (presser is None and shaped):
            mv = Move((a, b), sorted(gone) if gone else ())
            return Judgement("twice", 1 - c, f"moved again {a}-{b} after pressing the clock",
                             move=mv if shaped else None, after_fen=fen_after(c))
        # written in the transcript as played, by the player who played it (TRACE.md moves)
        return Judgement("opponent_piece", c, f"moved the opponent's piece {a}-{b}",
                         move=Move((a, b), sorted(gone)), after_fen=fen_after(1 - c))
    after = fen_after(1 - c)
    captures_now = ref.has_capture()
    if own_gone:
        key = "removed_own" if (opp_gone or captures_now) else "remove_no_reason"
        return Judgement(key, c, f"played {a}-{b} and removed own piece(s) "
                         + ", ".join(say(*sorted(own_gone))),
                         move=Move((a, b), sorted(opp_gone)), after_fen=after)
    legal = ref.legal_moves
    same_ends = [m for m in legal if m.from_square == a and m.to_square == b]
    if same_ends:
        m = max(same_ends, key=lambda mv: len(set(mv.captures) & opp_gone))
        caps = set(m.captures)
        if opp_gone < caps:
            missing = ", ".join(say(*sorted(caps - opp_gone)))
            if len(caps) == 1:
                key = "not_removed_simple"
            elif opp_gone:
                # removal of a multiple capture begun and not finished (INT 5.4.13)
                key = "removal_stopped"
            else:
                key = "fewer_removed"
            return Judgement(key, c, f"played {m.notation()} but left {missing} on the board",
                             move=m, after_fen=after)
        extra = ", ".join(say(*sorted(opp_gone - caps)))
        return Judgement("removed_not_taken", c, f"played {m.notation()} and removed {extra}, "
                         "not captured", move=m, after_fen=after)
    free = free_board(ref)
    free_moves = free.legal_moves if captures_now else []
    for m in free_moves:
        if m.from_square == a and m.to_square == b and set(m.captures) == opp_gone:
            best = max(len(x.captures) for x in legal)
            mv = Move(m.path, m.captures)
            if len(m.captures) != best:
                return Judgement("count", c, f"captured {len(m.captures)} piece(s) with "
                                 f"{m.notation()} where {best} must be taken", move=mv,
                                 after_fen=after)
            # IT 8.1.15 where the rule set has capture priorities; else the count (INT 5.4.08)
            key = "priority" if defines(ref.variant, "priority") else "count"
            return Judgement(key, c, f"{m.notation()} breaks the capture priorities", move=mv,
                             after_fen=after)
    crowned = _crowned_and_went_on(ref, free, free_moves, a, b, opp_gone)
    if crowned is not None:
        m, stop = crowned
        return Judgement("count", c, f"captured {len(opp_gone)} piece(s) with "
                         f"{m.notation(full_path=True)}: the man crowned on {stop} stops there "
                         "(IT 6.5, EN 6.5)", move=m, after_fen=after)
    for m in free_moves:
        for path, order in m.alternatives:
            if path[0] != a:
                continue
            for i in range(1, len(path) - 1):
                if path[i] == b and set(order[:i]) >= opp_gone:
                    return Judgement("stop", c, f"stopped on {b} during the capture "
                                     f"{m.notation(full_path=True)}",
                                     move=Move((a, b), order[:i]), after_fen=after)
    if captures_now and not opp_gone:
        return Judgement("omit_capture", c, f"played {a}-{b} where a capture was due",
                         move=Move((a, b)), after_fen=after)
    if opp_gone:
        return Judgement("impossible", c, f"captured {', '.join(say(*sorted(opp_gone)))} "
                         f"with {a}-{b}, no such capture", move=Move((a, b), sorted(opp_gone)),
                         after_fen=after)
    return Judgement("irregular_move", c, f"moved {a}-{b}, not a legal move",
                     move=Move((a, b)), after_fen=after)


def _crowned_and_went_on(ref: Board, free: Board, free_moves: list[Move], a: int, b: int,
                         gone: frozenset[int] | set[int]) -> tuple[Move, int] | None:
    """IT 6.5 / EN 6.5: a man reaching the far row during a capture is crowned and stops there.
    A capture from ``a`` that went on from that square to ``b`` as the new king, taking ``gone``
    in all, took more pieces than allowed (IT 8.1.8, EN 8.1.8): that capture and the square it
    had to stop on, or None."""
    v = ref.variant
    piece = ref.piece_at(a)
    if not v.promotion_stops_capture or piece is None or piece.king:
        return None
    g = v.geometry
    far = g.promotion_row[ref.turn]
    for m in free_moves:
        if (m.from_square != a or not set(m.captures) < gone
                or not far >> g.bit_of[m.to_square] & 1):
            continue
        on = free.copy(stack=False)
        on.push(m)  # crowned on the far row
        on.turn = ref.turn  # the same player carries on
        rest = gone - set(m.captures)
        for k in on.legal_moves:
            if k.from_square == m.to_square and k.to_square == b and set(k.captures) == rest:
                return Move(tuple(m.path) + tuple(k.path[1:]),
                            tuple(m.captures) + tuple(k.captures)), m.to_square
    return None


def _occupancy_after(occupied: frozenset[int], m: Move) -> frozenset[int]:
    return (occupied - {m.from_square} - set(m.captures)) | {m.to_square}
