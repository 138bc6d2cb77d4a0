"""What the board shows, judged against the rules (a move, an irregularity, or a disturbance), and
what follows from it: :class:`Judge`.

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
a plain move while a capture is due (8.1.6; a displacement no piece of its kind can make
then is 8.1.2, its text naming 8.1.6 too); pieces removed by no possible capture (8.1.14); any
other displacement (8.1.2). More than one piece displaced, or pieces appearing: a disturbance (IT
7.8), which is not judged but put right.

:class:`Judge` acts on the verdict, handed the arbiter's memory (``engine.arbiter_memory``): a
regular move is committed (touch-move, IT 3.7; the order of removal, IT 5.12, INT 4.11); an
irregularity is written in and held for the opponent (IT 8.2), then kept (IT 8.3) or corrected
(IT 8.4); a disturbance waits until the board is put right (IT 7.8).
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from engine.arbiter_memory import ArbiterMemory, Pending
from engine.articles import article, defines, kind_of
from engine.board import Board, Move
from engine.clock import BothFlagsFell, ClockPressed, FlagFell
from engine.colour import BLACK, WHITE, Colour
from engine.decisions import MoveCommitted, MoveRetracted, PositionSet
from engine.i18n import N_
from engine.identity import crowns_due, judge_move, square_label
from engine.variants import Variant, free_choice
from engine.frozen import quick_init

__all__ = ["Judge", "Judgement", "judge", "free_board", "square_label"]

log = logging.getLogger(__name__)


@quick_init
@dataclass(frozen=True, slots=True)
class Judgement:
    """The verdict on a board. ``key``: None for a regular move, ``"disturbed"`` for a board that is
    no move at all, ``"nothing"`` when nothing changed, else an irregularity key of
    ``engine.articles``. ``offender``: the colour at fault. ``move``: the move as played, when it can
    be written from/to/captures. ``legal``: ``move`` is legal in the reference position.
    ``after_fen``: the position on the board (side to move included) if the irregularity is kept.
    ``also``: keys of the other irregularities the same move is (a man moved straight ahead while
    a capture was due: IT 8.1.2 and IT 8.1.6); the flag cites ``key``, its text names these.
    """

    key: str | None
    offender: int | None = None
    text: str = ""
    move: Move | None = None
    legal: bool = False
    after_fen: str | None = None
    also: tuple[str, ...] = ()


@lru_cache(maxsize=None)
def _free_variant(variant: Variant) -> Variant:
    return dataclasses.replace(variant, capture_choice=free_choice)


def free_board(board: Board) -> Board:
    """The same position under free choice of captures (EN 6.6): every complete capture sequence
    the pieces can make, whatever the choice rule (to tell 8.1.8/8.1.15 from 8.1.14)."""
    return Board(board.fen(), _free_variant(board.variant))


def _fen(variant: Variant, pieces: dict[int, tuple[int, bool]], turn: int) -> str:
    parts = ["W" if turn == WHITE else "B"]
    for tag, color in (("W", WHITE), ("B", BLACK)):
        items = sorted((n, k) for n, (c, k) in pieces.items() if c == color)
        parts.append(tag + ",".join(("K" if k else "") + str(n) for n, k in items))
    return ":".join(parts)


def judge(ref: Board, on_board: dict[int, int | None], presser: int | None,
          previous: Board | None,
          landings: Callable[[int], tuple[int, ...]] | None = None) -> Judgement:
    """Judge the board against ``ref`` (the position the player on move started from).

    ``on_board``: official number -> origin (the square the piece stood on in ``ref``; None for a
    piece that appeared) for every dark square occupied; pieces on light squares are the caller's
    business (IT 7.5). ``presser``: the colour that pressed the clock (None: no press, e.g. the
    settle timer of a game without clock). ``previous``: the position before the last move, to
    recognise a takeback (IT 8.1.4), or None. ``landings``: the squares the sensors saw the piece
    of an origin put on, origin first (``TurnTracker.landings``), to describe a capture that
    jumped a piece twice (IT 6.4, INT 4.8) as it was shown; None: not described.
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
        return Judgement("takeback", 1 - c, N_("the last move was taken back"),
                         after_fen=previous.fen())
    if any(o is None for o in on_board.values()):
        return Judgement("disturbed", None, N_("pieces appeared on the board"))
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
        p = ref.piece_at(o) if o is not None else None  # (none is None: disturbed, above)
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
        return Judgement("remove_no_reason", c,
                         N_("removed {squares} without a move").format(squares=removed),
                         after_fen=fen_after(1 - c))
    if len(moved) > 1:
        return Judgement("disturbed", None, N_("several pieces displaced: {moves}").format(
                             moves=", ".join(f"{a}->{b}" for a, b in moved)))
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
            return Judgement("twice", 1 - c,
                             N_("moved again {a}-{b} after pressing the clock").format(a=a, b=b),
                             move=mv if shaped else None, after_fen=fen_after(c))
        # written in the transcript as played, by the player who played it (docs/trace-format.md moves)
        return Judgement("opponent_piece", c, N_("moved the opponent's piece {a}-{b}").format(a=a, b=b),
                         move=Move((a, b), sorted(gone)), after_fen=fen_after(1 - c))
    after = fen_after(1 - c)
    captures_now = ref.has_capture()
    if own_gone:
        key = "removed_own" if (opp_gone or captures_now) else "remove_no_reason"
        return Judgement(key, c, N_("played {a}-{b} and removed own piece(s) {squares}").format(
                             a=a, b=b, squares=", ".join(say(*sorted(own_gone)))),
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
            return Judgement(key, c, N_("played {move} but left {squares} on the board").format(
                                 move=m.notation(), squares=missing),
                             move=m, after_fen=after)
        extra = ", ".join(say(*sorted(opp_gone - caps)))
        text = (_jumped_twice_text(ref, landings, a, b, opp_gone)
                or N_("played {move} and removed {squares}, not captured").format(
                    move=m.notation(), squares=extra))
        return Judgement("removed_not_taken", c, text, move=m, after_fen=after)
    free = free_board(ref)
    free_moves = free.legal_moves if captures_now else []
    for m in free_moves:
        if m.from_square == a and m.to_square == b and set(m.captures) == opp_gone:
            best = max(len(x.captures) for x in legal)
            mv = Move(m.path, m.captures)
            if len(m.captures) != best:
                text = N_("captured {n} piece(s) with {move} where {best} must be taken").format(
                    n=len(m.captures), move=m.notation(), best=best)
                return Judgement("count", c, text, move=mv, after_fen=after)
            # IT 8.1.15 where the rule set has capture priorities; else the count (INT 5.4.08)
            key = "priority" if defines(ref.variant, "priority") else "count"
            text = N_("{move} breaks the capture priorities").format(move=m.notation())
            return Judgement(key, c, text, move=mv, after_fen=after)
    crowned = _crowned_and_went_on(ref, free, free_moves, a, b, opp_gone)
    if crowned is not None:
        m, stop = crowned
        text = N_("captured {n} piece(s) with {move}: the man crowned on {square} stops there "
                  "(IT 6.5, EN 6.5)").format(n=len(opp_gone), move=m.notation(full_path=True),
                                             square=stop)
        return Judgement("count", c, text, move=m, after_fen=after)
    for m in free_moves:
        for path, order in m.alternatives:
            if path[0] != a:
                continue
            for i in range(1, len(path) - 1):
                if path[i] == b and set(order[:i]) >= opp_gone:
                    return Judgement("stop", c, N_("stopped on {square} during the capture {move}").format(
                                         square=b, move=m.notation(full_path=True)),
                                     move=Move((a, b), order[:i]), after_fen=after)
    if captures_now and not opp_gone:
        if any(m.from_square == a and m.to_square == b for m in ref.quiet_moves):
            return Judgement("omit_capture", c, N_("played {a}-{b} where a capture was due").format(a=a, b=b),
                             move=Move((a, b)), after_fen=after)
        # IT 8.1.2 (INT 5.4.02): a move no piece of its kind can make, and IT 8.1.6 (INT
        # 5.4.06) besides: the flag is the first, its text names both
        kind = N_("king") if piece.king else N_("man")
        omitted = article(ref.variant, "omit_capture").code
        text = N_("moved {a}-{b}, a move no {kind} can make, where a capture was due "
                  "({code})").format(a=a, b=b, kind=kind, code=omitted)
        return Judgement("irregular_move", c, text, move=Move((a, b)), after_fen=after,
                         also=("omit_capture",))
    if opp_gone:
        text = (_jumped_twice_text(ref, landings, a, b, opp_gone)
                or N_("captured {squares} with {a}-{b}, no such capture").format(
                    squares=", ".join(say(*sorted(opp_gone))), a=a, b=b))
        return Judgement("impossible", c, text, move=Move((a, b), sorted(opp_gone)),
                         after_fen=after)
    return Judgement("irregular_move", c, N_("moved {a}-{b}, not a legal move").format(a=a, b=b),
                     move=Move((a, b)), after_fen=after)


def _jumped_twice_text(ref: Board, landings: Callable[[int], tuple[int, ...]] | None, a: int,
                       b: int, removed: frozenset[int] | set[int]) -> str | None:
    """IT 6.4, EN 6.4, INT 4.8 (the Turkish strike): an enemy piece is jumped once only. When
    the sensors saw the piece from ``a`` shown along a path to ``b`` that passes over an enemy
    piece twice, the text that says so (the path, that piece, the pieces ``removed``): an
    appeal reads what happened, not only which article it broke. None otherwise."""
    if landings is None:
        return None
    path = landings(a)
    if len(path) < 3 or path[-1] != b:
        return None
    twice = _jumped_twice(ref, path)
    if twice is None:
        return None
    return N_("played {path}, jumping {square} twice ({code}), and removed {squares}").format(
        path="x".join(str(n) for n in path), square=twice,
        code=article(ref.variant, "jump_once").code,
        squares=", ".join(str(n) for n in sorted(removed)))


def _jumped_twice(ref: Board, path: tuple[int, ...]) -> int | None:
    """The first enemy piece of ``ref`` (of the side not on move) that ``path`` passes over a
    second time, each leg along one diagonal; None when none is, or a leg is no diagonal."""
    g = ref.variant.geometry
    enemy = ref.pieces(Colour(ref.turn).opponent)
    jumped: set[int] = set()
    for p, q in itertools.pairwise(path):
        end = g.bit_of[q]
        ray = next((r for r in g.rays[g.bit_of[p]] if end in r), None)
        if ray is None:
            return None
        for bit in ray[:ray.index(end)]:
            n = g.number_of[bit]
            if n in enemy:
                if n in jumped:
                    return n
                jumped.add(n)
    return None


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


def _bound_after_correction(ref: Board, j: Judgement, first_touch: int | None) -> int | None:
    """IT 3.7, 3.8 after a corrected irregularity (IT 8.4; issue 35, docs/arbiter.md): the piece
    the offender touched first on his move - a man or a king, whatever the irregularity was - is
    the one he must play after the correction, if it has a legal move: the correction puts the
    position back, not the touch. ``first_touch``: the first playable piece he lifted (or the one
    an earlier correction bound); else the piece his irregular move displaced, when playable.
    None when he touched no playable piece of his own, or the offender is not the player on
    move (IT 8.1.1, 8.1.4: the correction gives the move to the other side)."""
    if j.offender != ref.turn:
        return None
    if first_touch is not None:
        return first_touch
    if j.move is None:
        return None
    piece = ref.piece_at(j.move.from_square)
    if piece is None or piece.color != ref.turn:
        return None
    playable = {m.from_square for m in ref.legal_moves}
    return j.move.from_square if j.move.from_square in playable else None


def _occupancy_after(occupied: frozenset[int], m: Move) -> frozenset[int]:
    return (occupied - {m.from_square} - set(m.captures)) | {m.to_square}


class Judge:
    """What follows from what the board shows: a move committed, an irregularity held for the
    opponent's decision, corrected or kept (IT 8.1-8.4), a disturbance put right (IT 7.8).

    Handed the arbiter's :class:`~engine.arbiter_memory.ArbiterMemory`, it reads the pieces of the
    turn there, writes in the record and gives its decisions out through it. Called by
    ``engine.arbiter.Arbiter`` from one thread, like the arbiter."""

    __slots__ = ("_memory", "_game", "_keeper", "_clock_mode")

    def __init__(self, memory: ArbiterMemory) -> None:
        self._memory = memory
        # the record, the clock's operator and a set-once fact, held at hand
        self._game = memory.game
        self._keeper = memory.timekeeper
        self._clock_mode = memory.clock_mode

    # ------------------------------------------------------------------ completing a move

    def complete(self, t: float, presser: int | None) -> None:
        """The player on move declares his move complete (clock press ``presser``), or the move
        on the board is complete without a press (None): the no-clock commit (IT 3.5), or with a
        clock the press forgotten (COMP 4.6) and the opponent moving on: the clock is left as
        it is, the forgetful player's face running."""
        s = self._memory
        c = s.mover()
        light = s.light_pieces()
        if light:
            names = ", ".join(sorted(light))
            s.light_flags.append(s.raise_flag(
                t, "light_square", c, "pending",
                N_("a piece on the light square(s) {squares} is inactive").format(squares=names)).id)
            self.disturb(t, N_("piece on light square {squares}").format(squares=names))
            return
        previous = s.previous if s.pending is None else None
        j = judge(s.tracker.ref, s.tracker.on_board(), presser, previous, s.tracker.landings)
        if j.key == "nothing":
            if presser is not None:
                s.raise_flag(t, "press_without_move", presser, "noted",
                             "clock pressed without a move")
            return
        if j.key == "disturbed":
            self.disturb(t, j.text)
            return
        if j.key is None:
            assert j.move is not None
            self._regular(t, j.move, presser is not None)
            return
        self.irregular(t, j, touch=self._touch_broken(j), by_press=presser is not None)

    def _touch_broken(self, j: Judgement) -> Judgement | None:
        """IT 3.7, 3.8 (INT 3.11): the irregular move ``j`` moved another piece than the one the
        offender touched first (or was bound to): a second irregularity in the same move, IT
        8.1.3 besides ``j``'s own article (issue 35: each is recorded)."""
        s = self._memory
        touched = s.tracker.first_touch
        if (touched is None or j.move is None or j.offender != s.mover()
                or j.move.from_square == touched):
            return None
        return Judgement("touch", j.offender, N_("touched {touched}, moved {moved}").format(
            touched=touched, moved=j.move.from_square))

    def _regular(self, t: float, move: Move, pressed: bool) -> None:
        """A legal move shown on the board: touch-move (IT 3.7) and the execution of a capture
        (IT 5.12, INT 4.11), then commit. ``pressed``: completed by a clock press."""
        s = self._memory
        c = s.mover()
        touched = s.tracker.first_touch
        if touched is not None and touched != move.from_square:
            self.irregular(t, Judgement("touch", c, N_("touched {touched}, moved {moved}").format(
                                            touched=touched, moved=move.from_square), move=move, legal=True,
                                        after_fen=None), by_press=pressed)
            return
        if move.is_capture and self._check_removal(t, move, pressed):
            return
        # issue 40: what the pieces on the board are (a board that knows them): a king moved
        # uncrowned (IT 8.1.16), a crown on a man (IT 8.1.17, INT 4.15)
        found = judge_move(s.pieces, s.tracker.ref, move)
        if found is not None:
            self.irregular(t, Judgement(found.key, c, found.text, move=move,
                                        legal=found.after_fen is None,
                                        after_fen=found.after_fen), by_press=pressed)
            return
        self._commit(t, move, pressed)

    def _check_removal(self, t: float, move: Move, pressed: bool) -> bool:
        """IT 5.12 / INT 4.11: removal in the direct or reverse order of a legal capture order,
        after the capture is complete. Returns True when an irregularity now waits (INT 5.4.10)."""
        s = self._memory
        c = s.mover()
        order, early = s.tracker.removal(move)
        if early:
            if kind_of(s.variant, "early_removal") == "incorrectness":  # IT 5.12
                s.raise_flag(t, "early_removal", c, "noted",
                             N_("captured piece removed before the capture was complete"))
            else:  # INT 5.4.10: an irregularity
                text = N_("captured piece removed before the capture was over")
                self.irregular(t, Judgement("early_removal", c, text, move=move, legal=True),
                               by_press=pressed)
                return True
        if len(order) > 1:
            ok = any(order == list(cs) or order == list(reversed(cs))
                     for _, cs in move.alternatives)
            if not ok:
                s.raise_flag(t, "removal_order", c, "noted",
                             N_("captured pieces removed out of order: {squares}").format(
                                 squares=", ".join(str(n) for n in order)))
        return False

    def _commit(self, t: float, move: Move, pressed: bool) -> None:
        """Record ``move``. With a clock, ``pressed``: the press completed it (COMP 4.5, counted
        by the clock); else the press was forgotten and the opponent moved on (COMP 4.6): the
        clock is not touched, the forgetful player's face runs on as a clock's would."""
        s = self._memory
        c = s.mover()
        if s.draw_offer is not None and s.draw_offer != c:
            # COMP 6.15: playing on declines the offer
            s.draw_refused[s.draw_offer] = True
            s.draw_offer = None
        keeper = self._keeper
        clock: tuple[float, float] | None = None
        if self._clock_mode and pressed:
            event = keeper.press(c, t, s.tracker.last_change)
            if isinstance(event, (FlagFell, BothFlagsFell)):
                # COMP 4.8, 4.5: the flag fell before the press completed the move: no move
                return
            if isinstance(event, ClockPressed):
                clock = (event.white, event.black)
            else:
                clock = keeper.reading(t)
        else:
            clock = keeper.reading(t)
        why = ("move_made" if not self._clock_mode else "move_pressed" if pressed
               else "press_forgotten")
        self._play(t, move, clock, why)
        if self._game.outcome is not None:
            keeper.stop(t)
        self._after_commit(t)

    def _play(self, t: float, move: Move, clock: tuple[float, float] | None, why: str,
              pending: bool = False) -> None:
        """Record the legal ``move`` (the board copy for IT 8.1.4 has no move stack: constant).
        ``pending``: an irregular move (IT 8.1.3) the opponent may still have corrected; ``why``
        is then the flag's code."""
        s = self._memory
        game = self._game
        previous = game.board.copy(stack=False)
        rec = game.play(move, t=t, clock=clock, provisional=pending)
        s.previous = previous
        # IT 4.4: the opponent has moved; a man made king now owes its crown
        for found in crowns_due(s.pieces, previous, game.board, move, Colour(rec.side)):
            s.raise_flag(t, found.key, found.side, "noted", found.text)
        log.debug("move %s", rec.notation)
        code = why if pending else article(s.variant, why).code
        s.emit(MoveCommitted(t, rec.ply, rec.side, rec.move, rec.notation, rec.clock,
                             game.board.fen(), code, pending=pending))

    def _after_commit(self, t: float) -> None:
        s = self._memory
        s.obligation = None
        s.started = True
        if s.disturbed is not None:
            s.decide(t, s.disturbed, "corrected", "disturbed")
            s.disturbed = None
        self.close_light_flags(t)
        s.reset_turn(self._game.board)

    # ------------------------------------------------------------------ irregularities

    def irregular(self, t: float, j: Judgement, touch: Judgement | None = None,
                  by_press: bool = True) -> None:
        """IT 8.2: only the offender's opponent decides. Until he does, the irregular position
        stands on the board and his clock runs. ``touch``: the same move broke touch-move too
        (IT 8.1.3, raised first): each irregularity has its flag, the one decision covers both
        (IT 8.4: no partial correction). The piece the offender touched first is bound if the
        move is corrected (IT 3.7, 3.8). ``by_press`` False: the offender forgot to press and
        his opponent moved on (COMP 4.6): his face runs on."""
        s = self._memory
        assert j.key is not None and j.offender is not None
        offender = Colour(j.offender)
        flags = [s.raise_flag(t, k.key, offender, "pending", k.text)
                 for k in (touch, j) if k is not None and k.key is not None]
        touched = _bound_after_correction(s.tracker.ref, j, s.tracker.first_touch)
        ref = s.tracker.ref
        if j.legal and j.move is not None:
            after = ref.copy(stack=False)
            after.push(j.move)
        else:
            assert j.after_fen is not None
            after = Board(j.after_fen, s.variant)
        pressed = False
        clock: tuple[float, float] | None = None
        if self._clock_mode and by_press and offender == s.mover():
            # the offender completed it with his press; a counted press is retracted if the
            # move is corrected (COMP 4.13), one the clock ignored (stopped) is not
            event = self._keeper.press(offender, t, s.tracker.last_change)
            pressed = isinstance(event, ClockPressed) and event.counted
            if isinstance(event, ClockPressed):
                clock = (event.white, event.black)
        if clock is None:
            clock = self._keeper.reading(t)
        mark, previous = self._game.mark(), s.previous
        s.pending = Pending(tuple(f.id for f in flags), offender, ref.copy(stack=False), after, t,
                            touched, pressed, mark, previous)
        codes = [f.code for f in flags] + [article(s.variant, k).code for k in j.also]
        self._write_in(t, j, offender, after, clock, codes)
        s.obligation = None
        s.reset_turn(after)
        # the decider is the side to move in ``after`` unless the offender must move again
        if after.turn == offender:
            other = after.copy(stack=False)
            other.turn = offender.opponent
            s.tracker.playable = {m.from_square for m in other.legal_moves}

    def _write_in(self, t: float, j: Judgement, offender: Colour, after: Board,
                  clock: tuple[float, float] | None, codes: list[str]) -> None:
        """docs/trace-format.md ``moves``: the irregular move stands in the transcript, in its place with the
        side that played it, with the clocks after it like every move (``clock``), while the
        opponent decides (IT 8.2) and if it is kept (IT 8.3); the game goes on from the
        position on the board, ``/FEN/`` in the PDN. A move the rules do not allow carries the
        comment ``irregular move: <codes>`` (``engine.pdn``: never read as a legal one). The end
        rules wait for the decision."""
        s = self._memory
        game = self._game
        if j.legal and j.move is not None:
            self._play(t, j.move, clock, codes[0], pending=True)
            return
        if j.move is not None and after.turn != offender:
            names = s.geometry.algebraic_of if s.variant.algebraic_pdn else None
            game.record_irregular(j.move, j.move.notation(names=names), offender,
                                  after.fen(), t, provisional=True, clock=clock,
                                  comment=f"irregular move: {', '.join(codes)}")
            rec = game.moves[-1]
            s.emit(MoveCommitted(t, rec.ply, offender, rec.move, rec.notation, rec.clock,
                                 game.board.fen(), codes[0], setup_fen=rec.setup_fen,
                                 pending=True))
        else:
            game.set_position(after.fen(), t, provisional=True)
            s.emit(PositionSet(t, game.board.fen(), codes[0]))
        s.previous = None

    def maintain(self, t: float, by_play: bool) -> None:
        """IT 8.2/8.3: the irregularity is kept (``by_play``: the opponent played on); the
        position on the board becomes the game (it stands in the transcript already)."""
        s = self._memory
        p = s.pending
        assert p is not None
        s.pending = None
        for flag_id in p.flag_ids:  # IT 8.3: one decision keeps every irregularity of the move
            s.decide(t, flag_id, "maintained", "kept_by_play" if by_play else "offender_decides")
        self._game.check_end()
        s.started = True
        # keep following the pieces already lifted: the reference position is the same
        tracker = s.tracker
        s.reset_turn(self._game.board)
        s.tracker.carry_over(tracker)
        c = self._keeper.clock
        turn = self._game.board.turn
        if self._clock_mode and c is not None and (
                c.running is None or Colour.parse(c.running) != turn):
            self._keeper.start(turn, t)

    def lapse(self, t: float) -> None:
        """The game ended while an irregularity waited for the opponent's decision: it lapses.
        The opponent decides (IT 8.2, INT 5.4) until his own next move (IT 8.3; INT 5.7: "termina
        o direito a uma rectificação"); a game over has no next move and no correction, so the
        right ends with the game. Status ``lapsed`` (nobody decided it), by the article that
        ended the game (the adjudication's, the resignation's, the flag's…); the irregular move
        stands in the record as played. Nothing when the game is in play or nothing waits."""
        s = self._memory
        p = s.pending
        outcome = self._game.outcome
        if p is None or outcome is None:
            return
        s.pending = None
        for flag_id in p.flag_ids:  # IT 8.4: one decision covers every irregularity of the move
            s.decide_by(t, flag_id, "lapsed", outcome.code)

    def correct(self, t: float) -> None:
        """IT 8.4: the position before the irregular move must be restored; the offender's clock
        runs meanwhile (COMP 4.13)."""
        s = self._memory
        p = s.pending
        assert p is not None
        s.pending = None
        for flag_id in p.flag_ids:  # IT 8.4: no partial correction
            s.decide(t, flag_id, "corrected", "correction")
        written = self._game.ply > p.mark.moves
        self._game.undo_to(p.mark)  # the irregular move leaves the transcript (IT 8.4)
        s.previous = p.previous
        if written:
            s.emit(MoveRetracted(t, p.mark.moves + 1, self._game.board.fen(),
                                 article(s.variant, "correction").code))
        s.correcting = p
        s.correction_touch = None
        self._keeper.begin_correction(p.offender, t, p.pressed)
        self.check_restored(t)

    def check_restored(self, t: float) -> None:
        """The board shows again the position it must show: the correction (IT 8.4) or the
        disturbance (IT 7.8) is over."""
        s = self._memory
        if s.correcting is not None:
            p = s.correcting
            if s.sensed == set(p.before.occupied_algebraic()):
                s.correcting = None
                self._keeper.end_correction(t)
                if self._clock_mode:
                    self._keeper.start(p.before.turn, t)
                # the offender plays again with the obligation that follows: the touched piece
                # after IT 8.1.3 (a capture after 8.1.6 is compulsory anyway, IT 6.1), else a
                # playable piece lifted during the restoration (IT 3.7)
                s.obligation = p.touched if p.before.turn == p.offender else None
                if s.obligation is None:
                    s.obligation = s.correction_touch
                s.correction_touch = None
                s.reset_turn(p.before)
            return
        if s.disturbed is not None and not s.light_pieces():
            if s.shows_ref():
                s.decide(t, s.disturbed, "corrected", "disturbed")
                s.disturbed = None
                self.close_setup_flags(t)
                self.close_light_flags(t)
                s.keep_turn(s.tracker.ref)

    def touch_in_correction(self, name: str) -> None:
        """IT 3.7 after IT 8.4: while the position is put back, the player who will be on move
        lifting one of his playable pieces that the irregular move did not displace is bound to
        play it (the first one; an obligation of IT 8.1.3 comes first)."""
        s = self._memory
        p = s.correcting
        assert p is not None
        n = s.geometry.number_of_algebraic.get(name)
        if n is None or p.touched is not None or s.correction_touch is not None:
            return
        piece = p.before.piece_at(n)
        if (piece is None or piece.color != p.before.turn or p.after.piece_at(n) != piece
                or n not in {m.from_square for m in p.before.legal_moves}):
            return
        s.correction_touch = n

    def restore(self, t: float) -> None:
        """IT 7.8: the arbiter puts the position the board must show back on it (during a
        correction, the position before the irregular move, IT 8.4)."""
        s = self._memory
        target = s.correcting.before if s.correcting is not None else s.tracker.ref
        s.sensed = set(target.occupied_algebraic())
        if s.disturbed is not None:
            s.decide(t, s.disturbed, "corrected", "disturbed")
            s.disturbed = None
        self.close_setup_flags(t)
        self.close_light_flags(t)
        if s.correcting is not None:
            self.check_restored(t)
            return
        s.keep_turn(s.tracker.ref)

    def close_light_flags(self, t: float) -> None:
        """IT 7.5: the inactive piece was taken off the light square (by the players or the
        arbiter): its notice is settled."""
        s = self._memory
        for flag_id in s.light_flags:
            s.decide(t, flag_id, "corrected", "light_square")
        s.light_flags.clear()

    def close_setup_flags(self, t: float) -> None:
        """IT 7.1-7.2: the position set up is the right one now: its notices are settled."""
        s = self._memory
        for flag_id in s.setup_flags:
            s.decide(t, flag_id, "corrected", "setup")
        s.setup_flags.clear()

    def disturb(self, t: float, text: str) -> None:
        """IT 7.8 / INT 5.5: nothing is committed; the board lists the squares to put right."""
        s = self._memory
        if s.disturbed is not None:
            return
        s.disturbed = s.raise_flag(t, "disturbed", None, "pending",
                                   N_("position disturbed ({what}): put it right or "
                                      "restore").format(what=text)).id
