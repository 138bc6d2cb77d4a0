"""The game record: moves with timestamps and clock readings, the result, and the draw rules.

``Game`` wraps a ``Board`` and records what was played. It knows the end of the game by rule
(no legal move or no pieces: IT 9.2.2-9.2.3, INT 7.2.2-7.2.3) and the draw rules of SPEC §6 per
variant (data in ``Variant.draws``):

* IT 9.3b: the 4th occurrence of the same position of all the pieces, where transcription is
  compulsory, on request or imposed (``claim_repetition``); INT 6.1 / BR: the 3rd occurrence with
  the same player to move, automatically. EN has no repetition rule (EN 9.3).
* IT 10 / EN 10: the move-count procedure, on request or imposed (``start_count``): at least one
  king each (10.1), counted from the player to move (10.3), drawn after 40 (EN 50) king moves each
  with no change in the number of pieces (10.4); a man move or a capture cancels and restarts it
  (10.5). IT 11: may be cut to 10 moves in promotional events (``count_moves=`` argument).
* INT 6.2 / BR: 25 (BR 20) successive king moves each without capture or man move; INT 6.3/6.4 and
  BR endings: drawn after 10 or 5 moves each at most, counted from when the material arose.

A "move" in these counts is one player's move; "N moves each" is 2N plies.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field

from engine import articles
from engine.board import Board, Move
from engine.colour import BLACK, WHITE, Colour
from engine.errors import IllegalMoveError
from engine.i18n import N_
from engine.variants import Variant, find_variant
from engine.frozen import quick_init

#: The colours' labels (``Colour.label``) as a person reads them in a reason ("white resigned"),
#: translated where shown (``engine.i18n.localize``).
SIDE_LABELS = (N_("white"), N_("black"))


#: Plies the game's board can undo with ``pop`` (its memory bounded in a long game).
_STACK = 64


@quick_init
@dataclass(frozen=True, slots=True)
class RecordedMove:
    """One move of the transcript.

    ``clock``: (white, black) seconds left after the move, if a clock ran. ``setup_fen``: a position
    the game went on from after this move (a maintained irregularity), written ``/FEN "…"/``.
    ``nag``: an annotation sign of IT 13 (``!``, ``?!``…). ``t``: seconds since the start.
    """

    ply: int
    side: Colour
    move: Move
    notation: str
    t: float | None = None
    clock: tuple[float, float] | None = None
    setup_fen: str | None = None
    comment: str | None = None
    nag: str | None = None

    def to_dict(self) -> dict[str, object]:
        side = self.side
        d: dict[str, object] = {
            "ply": self.ply, "side": (side if type(side) is Colour else Colour(side)).label}
        d.update(self.move.to_dict(self.notation))
        d["t"] = self.t
        return d


@dataclass(frozen=True, slots=True)
class Outcome:
    """How the game ended: ``result`` in the variant's set (``1-0``, ``2-0``…), ``winner`` (None for a
    draw), ``code`` the article, ``reason`` a short text."""

    result: str
    winner: Colour | None
    code: str
    reason: str


@dataclass(frozen=True, slots=True)
class ResultCorrection:
    """The arbiter corrected a mistaken result (COMP 6.16): at ``t`` the result ``before``
    (reached at ``before_t``, None when not known) became ``after``, for ``reason`` (the
    arbiter's words). The game's history keeps every one (:attr:`Game.corrections`)."""

    t: float
    before: Outcome
    before_t: float | None
    after: Outcome
    reason: str

    def first_to_dict(self) -> dict[str, object]:
        """The result corrected, as the report's ``result_history`` lists it."""
        b = self.before
        return {"t": self.before_t, "result": b.result, "code": b.code, "reason": b.reason}

    def to_dict(self) -> dict[str, object]:
        """The corrected result, as the report's ``result_history`` lists it."""
        return {"t": self.t, "result": self.after.result, "code": self.after.code,
                "reason": self.reason}


@dataclass(frozen=True)
class GameMark:
    """What :meth:`Game.mark` saved: enough to undo what followed, in constant time."""

    fen: str
    moves: int
    last: "RecordedMove | None"  # set_position rewrites the last move (its /FEN/)
    history: list[tuple[int, ...]]
    history_len: int
    seen: dict[tuple[int, ...], int]
    count: "_Count | None"
    ending: tuple[int, int, int] | None
    king_streak: int
    outcome: "Outcome | None"
    final_clock: tuple[float, float] | None
    start_fen: str
    custom_start: bool


@dataclass
class _Count:
    """State of the IT/EN 10 move-count procedure."""

    limit: int
    start_ply: int
    pieces: int
    king_moves: list[int] = field(default_factory=lambda: [0, 0])
    imposed: bool = False


class Game:
    """A game of ``variant`` from ``fen`` (initial position if None), with its transcript.

    ``tags``: PDN tags (Event, Site, Date, Round, White, Black…). ``transcribed``: transcription is
    compulsory (IT 9.3b). Raises the errors of ``Board`` for a bad FEN or variant.
    """

    def __init__(self, variant: Variant | str = "italian", fen: str | None = None,
                 tags: dict[str, str] | None = None, transcribed: bool = True,
                 time_control: str | None = None) -> None:
        self.variant = find_variant(variant) if isinstance(variant, str) else variant
        self.board = Board(fen, self.variant)
        # the record is the transcript, not the board's undo stack: bounded (IT 8.2's
        # correction goes back one move, through mark/undo_to, not pop)
        self.board.stack_limit = _STACK
        # one object per position (the repetition history refers to it every time it occurs)
        self._keys: dict[tuple[int, ...], tuple[int, ...]] = {}
        self.start_fen = self.board.fen()
        self.custom_start = fen is not None
        self.tags: dict[str, str] = dict(tags or {})
        self.transcribed = transcribed
        self.time_control = time_control
        #: the transcript's moves held in memory: every move, unless a streaming reader had the
        #: first ones forgotten (:meth:`forget`); ``ply`` counts them all
        self.moves: list[RecordedMove] = []
        self._forgotten = 0
        self.outcome: Outcome | None = None
        #: the arbiter's corrections of the result, in order (:meth:`correct_result`)
        self.corrections: list[ResultCorrection] = []
        self.final_clock: tuple[float, float] | None = None
        self._history: list[tuple[int, ...]] = [self._rep_key()]
        # occurrences of each position in _history: the repetition rules in constant time
        self._seen: dict[tuple[int, ...], int] = {self._history[0]: 1}
        self._count: _Count | None = None
        self._ending: tuple[int, int, int] | None = None  # (limit moves, start ply, material sig)
        self._king_streak = 0  # plies of king moves without capture since last man move/capture
        self._update_ending()
        self._check_end()

    # ------------------------------------------------------------------ queries

    @property
    def turn(self) -> int:
        return self.board.turn

    @property
    def ply(self) -> int:
        """Plies played: the moves of the transcript, those :meth:`forget` let go included."""
        return self._forgotten + len(self.moves)

    @property
    def result(self) -> str:
        return self.outcome.result if self.outcome else "*"

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    def legal_moves(self) -> list[Move]:
        return [] if self.outcome else self.board.legal_moves

    def move_number(self) -> int:
        """Moves completed by the player who moved first, plus one (COMP 4.3: the count visible)."""
        return self.ply // 2 + 1

    def repetition_count(self) -> int:
        """How many times the current position has occurred (this time included)."""
        key = self._rep_key()
        return self._seen.get(key, 0)

    def _rep_key(self) -> tuple[int, ...]:
        b = self.board
        if self.variant.draws.repetition_includes_turn:
            return b.position_key()
        return (b.white, b.black, b.kings)

    def result_for(self, winner: int | None) -> str:
        win_white, draw, win_black = self.variant.results
        return draw if winner is None else win_white if winner == WHITE else win_black

    @property
    def count_status(self) -> tuple[int, int, int] | None:
        """(white king moves, black king moves, limit) of a running count procedure, else None."""
        if self._count is None:
            return None
        return (self._count.king_moves[WHITE], self._count.king_moves[BLACK], self._count.limit)

    # ------------------------------------------------------------------ playing

    def copy(self) -> Game:
        """An independent copy of the game as it is now (record, position, draw-rule counters):
        what a reader keeps of a point of the game while the game goes on (the board's read side
        while a line waits for its fsync, ``pi.board.durable.GameAt``). Changing one never
        changes the other. Linear in the game's length, at the speed of a list copy."""
        g = Game.__new__(Game)
        c = self._count
        g.__dict__.update(
            self.__dict__, board=self.board.copy(), _keys=dict(self._keys), tags=dict(self.tags),
            moves=list(self.moves), corrections=list(self.corrections),
            _history=list(self._history), _seen=dict(self._seen),
            _count=None if c is None else dataclasses.replace(c, king_moves=list(c.king_moves)))
        return g

    def forget(self, count: int) -> None:
        """The first ``count`` moves still held leave memory: a reader that streams the record
        (``damiera replay``) has written them out, and a record of any length is held in the
        memory of its last moves. ``ply`` still counts them; ``moves`` holds the rest (its
        ``RecordedMove.ply`` numbers go on). The last move is never forgotten (it may still be
        rewritten: its /FEN/), nor a move a mark must restore (the caller knows: the arbiter's
        ``settled_plies``). Raises ValueError for a count beyond that."""
        if not 0 <= count < len(self.moves):
            raise ValueError(f"cannot forget {count} of the {len(self.moves)} moves held")
        del self.moves[:count]
        self._forgotten += count

    def mark(self) -> GameMark:
        """Save the state of the game, to :meth:`undo_to` it later (an irregular move written
        while the opponent decides, IT 8.2, and corrected, IT 8.4). Constant time."""
        c = self._count
        saved = None if c is None else dataclasses.replace(c, king_moves=list(c.king_moves))
        return GameMark(self.board.fen(), self.ply, self.moves[-1] if self.moves else None,
                        self._history, len(self._history), self._seen,
                        saved, self._ending, self._king_streak, self.outcome, self.final_clock,
                        self.start_fen, self.custom_start)

    def undo_to(self, mark: GameMark) -> None:
        """Go back to the state saved by :meth:`mark`: the moves recorded since leave the
        transcript. Raises ValueError if moves before the mark were removed since, or the move
        before it forgotten (:meth:`forget`)."""
        held = mark.moves - self._forgotten
        if self.ply < mark.moves or held < (1 if mark.last is not None else 0):
            raise ValueError("the transcript is shorter than at the mark")
        self.board.set_fen(mark.fen)
        del self.moves[held:]
        if mark.last is not None:
            self.moves[-1] = mark.last
        if self._history is mark.history:
            for key in self._history[mark.history_len:]:
                self._seen[key] -= 1
        else:  # set_position began a new history: the saved one is as it was
            self._history, self._seen = mark.history, mark.seen
        del self._history[mark.history_len:]
        self._count = mark.count
        self._ending = mark.ending
        self._king_streak = mark.king_streak
        self.outcome = mark.outcome
        self.final_clock = mark.final_clock
        self.start_fen = mark.start_fen
        self.custom_start = mark.custom_start

    def check_end(self) -> None:
        """Apply the end rules to the current position (after provisional moves are kept)."""
        self._check_end()

    def play(self, move: Move, t: float | None = None,
             clock: tuple[float, float] | None = None, provisional: bool = False) -> RecordedMove:
        """Record the legal ``move`` (raises IllegalMoveError) and apply the automatic end rules
        (not when ``provisional``: a move the opponent may still have corrected, IT 8.2; call
        :meth:`check_end` once it stands)."""
        if self.outcome is not None:
            raise IllegalMoveError(f"the game is over ({self.outcome.result})")
        legal = self.board.legal_moves
        for m in legal:
            if m == move:
                move = m  # the generated move, with every legal capture order
                break
        else:
            raise IllegalMoveError(f"illegal move {move} in {self.board.fen()}")
        return self._record(move, t, clock, provisional)

    def play_notation(self, text: str, t: float | None = None,
                      clock: tuple[float, float] | None = None) -> RecordedMove:
        return self._record(self.board.parse_move(text), t, clock)

    def _record(self, move: Move, t: float | None, clock: tuple[float, float] | None,
                provisional: bool = False) -> RecordedMove:
        b = self.board
        side = b.turn
        piece = b.piece_at(move.from_square)
        was_king = piece is not None and piece.king
        notation = sys.intern(b.notation(move))  # a long game plays the same moves again
        pieces_before = (b.white | b.black).bit_count()
        b.push(move)
        if clock is not None and self.moves:
            # the face that did not run keeps its reading: one number, not a copy per move
            before = self.moves[-1].clock
            if before is not None:
                clock = (before[0] if before[0] == clock[0] else clock[0],
                         before[1] if before[1] == clock[1] else clock[1])
        rec = RecordedMove(self.ply + 1, side if type(side) is Colour else Colour(side),
                           move, notation, t, clock)
        self.moves.append(rec)
        irreversible = move.is_capture or not was_king
        self._after_move(side, was_king, irreversible, pieces_before, provisional)
        return rec

    def set_position(self, fen: str, t: float | None = None, provisional: bool = False) -> None:
        """Go on from ``fen`` after the last move (a maintained irregularity: the position on the
        board becomes the game, IT 8.3). The record keeps a ``/FEN "…"/`` after the last move.
        ``provisional``: the end rules wait for :meth:`check_end`."""
        self.board.set_fen(fen)
        if self.moves:
            last = self.moves[-1]
            self.moves[-1] = RecordedMove(last.ply, last.side, last.move, last.notation, last.t,
                                          last.clock, self.board.fen(), last.comment, last.nag)
        else:
            self.start_fen = self.board.fen()
            self.custom_start = True
        self._history = [self._rep_key()]
        self._seen = {self._history[0]: 1}
        self._count = None
        self._king_streak = 0
        self._update_ending(force=True)
        if not provisional:
            self._check_end()

    def record_irregular(self, move: Move, notation: str, side: int, fen: str,
                         t: float | None = None, provisional: bool = False,
                         clock: tuple[float, float] | None = None,
                         comment: str | None = None) -> None:
        """Record a move that broke the rules but was kept (IT 8.3, INT 5.7): the transcript keeps
        it as played (``clock``: the (white, black) seconds after it, as for every move;
        ``comment``: what it broke) and the game goes on from ``fen``, the position on the
        board, which the PDN writes as ``/FEN "…"/`` after the move so that it replays
        elsewhere."""
        self.moves.append(RecordedMove(self.ply + 1, Colour(side), move, notation, t,
                                       clock, comment=comment))
        self.set_position(fen, t, provisional)

    def annotate(self, nag: str | None = None, comment: str | None = None) -> None:
        """Attach an IT 13 sign and/or a comment to the last move."""
        last = self.moves[-1]
        self.moves[-1] = RecordedMove(last.ply, last.side, last.move, last.notation, last.t,
                                      last.clock, last.setup_fen,
                                      comment if comment is not None else last.comment,
                                      nag if nag is not None else last.nag)

    def set_clock_of_last_move(self, clock: tuple[float, float]) -> None:
        last = self.moves[-1]
        self.moves[-1] = RecordedMove(last.ply, last.side, last.move, last.notation, last.t,
                                      clock, last.setup_fen, last.comment, last.nag)

    def _after_move(self, side: int, was_king: bool, irreversible: bool, pieces_before: int,
                    provisional: bool = False) -> None:
        key = self._rep_key()
        key = self._keys.setdefault(key, key)
        self._history.append(key)
        self._seen[key] = self._seen.get(key, 0) + 1
        self._king_streak = 0 if irreversible else self._king_streak + 1
        if self._count is not None:
            c = self._count
            pieces_now = (self.board.white | self.board.black).bit_count()
            if not was_king or pieces_now != c.pieces:
                # IT/EN 10.5: a man move or a change in the number of pieces cancels the count,
                # which restarts if each side still has a king (10.1)
                limit, imposed = c.limit, c.imposed
                self._count = None
                self._start_count_if_kings(limit, imposed)
            else:
                c.king_moves[side] += 1
        self._update_ending()
        if not provisional:
            self._check_end()

    def _check_end(self) -> None:
        if self.outcome is not None:
            return
        b = self.board
        mover = b.turn
        own = b.white if mover == WHITE else b.black
        v = self.variant
        if not own:
            self._end(1 - mover, articles.code(v, "no_pieces"),
                      N_("{side} has no pieces").format(side=Colour(mover).label))
            return
        if not b.has_legal_moves():
            self._end(1 - mover, articles.code(v, "no_move"),
                      N_("{side} has no legal move").format(side=Colour(mover).label))
            return
        d = v.draws
        if d.repetition_automatic and d.repetitions and self.repetition_count() >= d.repetitions:
            self._end(None, articles.code(v, "repetition_draw"),
                      N_("position repeated {n} times").format(n=d.repetitions))
            return
        if d.king_moves_draw and self._king_streak >= 2 * d.king_moves_draw:
            self._end(None, articles.code(v, "king_moves_draw"),
                      N_("{n} successive king moves each, no capture or man "
                         "move").format(n=d.king_moves_draw))
            return
        if self._ending is not None:
            limit, start, _ = self._ending
            if self.ply - start >= 2 * limit:
                key = "ending_ten" if limit == 10 else "ending_five"
                self._end(None, articles.code(v, key),
                          N_("ending drawn after {n} moves each").format(n=limit))
                return
        c = self._count
        if c is not None and min(c.king_moves) >= c.limit:
            self._end(None, articles.code(v, "count_draw"),
                      N_("move count: {n} king moves each, number of pieces "
                         "unchanged").format(n=c.limit))

    def _material_sig(self) -> tuple[tuple[int, int], tuple[int, int]]:
        return self.board.material()

    def _update_ending(self, force: bool = False) -> None:
        endings = self.variant.draws.small_endings
        if not endings:
            return
        sig = self._material_sig()
        key = hash(sig)
        if self._ending is not None and self._ending[2] == key and not force:
            return
        self._ending = None
        for limit, sigs in endings:
            if sig in sigs:
                self._ending = (limit, self.ply, key)
                return

    def _end(self, winner: int | None, code: str, reason: str) -> None:
        self.outcome = Outcome(self.result_for(winner), None if winner is None else Colour(winner),
                               code, reason)

    # ------------------------------------------------------------------ requests and decisions

    def resign(self, side: int) -> Outcome:
        """``side`` resigns (IT 9.2.1, INT 7.2.1)."""
        self._end(1 - side, articles.code(self.variant, "resigned"),
                  N_("{side} resigned").format(side=Colour(side).label))
        assert self.outcome is not None
        return self.outcome

    def agree_draw(self) -> Outcome:
        """Draw by agreement (IT 9.3a, INT 7.3.1)."""
        self._end(None, articles.code(self.variant, "draw_agreed"), N_("draw agreed"))
        assert self.outcome is not None
        return self.outcome

    def lose_on_time(self, side: int, code: str = "COMP 4.8",
                     clock: tuple[float, float] | None = None) -> Outcome:
        """``side``'s flag fell (COMP 4.8); ``clock``: (white, black) seconds left at that moment,
        written as the final WhiteTime/BlackTime."""
        if clock is not None:
            self.final_clock = clock
        self._end(1 - side, code, N_("{side} ran out of time").format(side=Colour(side).label))
        assert self.outcome is not None
        return self.outcome

    def adjudicate(self, result: str, reason: str = N_("adjudicated by the arbiter")) -> Outcome:
        """Set ``result`` (any of the variant's results, or the other set's equivalents)."""
        winner: int | None
        norm = {"1-0": WHITE, "2-0": WHITE, "0-1": BLACK, "0-2": BLACK,
                "1/2-1/2": None, "1-1": None}
        if result not in norm:
            raise ValueError(f"unknown result {result!r}")
        winner = norm[result]
        self._end(winner, "COMP", reason)
        assert self.outcome is not None
        return self.outcome

    def correct_result(self, result: str, reason: str, t: float,
                       before_t: float | None = None) -> ResultCorrection:
        """The arbiter corrects the result of the game over to ``result`` (one of the variant's
        results) for ``reason`` at ``t`` (COMP 6.16: a dispute is settled by the arbiter); the
        result corrected (reached at ``before_t``) stays in :attr:`corrections`. Raises
        ValueError for a game not over, a result not of the variant or the result it has."""
        before = self.outcome
        if before is None:
            raise ValueError("no result to correct: the game is in play")
        if result not in self.variant.results:
            raise ValueError(f"{result} is not a result of {self.variant.name} draughts "
                             f"(its results: {', '.join(self.variant.results)})")
        if result == before.result:
            raise ValueError(f"the result is {result} already")
        win_white, draw, _ = self.variant.results
        winner = None if result == draw else Colour(WHITE if result == win_white else BLACK)
        after = Outcome(result, winner, articles.code(self.variant, "result_corrected"),
                        N_("corrected by the arbiter"))
        self.outcome = after
        correction = ResultCorrection(t, before, before_t, after, reason)
        self.corrections.append(correction)
        return correction

    def claim_repetition(self) -> bool:
        """IT 9.3b: a request (or the arbiter imposing it) to verify the repetition. True and the game
        drawn when the position has occurred the required number of times, where transcription is
        compulsory; False otherwise (the caller charges the verification time, IT 9.3 b2-b3)."""
        d = self.variant.draws
        if not d.repetitions or not self.transcribed or self.outcome is not None:
            return False
        if self.repetition_count() >= d.repetitions:
            self._end(None, articles.code(self.variant, "repetition_draw"),
                      N_("position repeated {n} times").format(n=d.repetitions))
            return True
        return False

    def start_count(self, imposed: bool = False, count_moves: int | None = None) -> bool:
        """IT/EN 10.2: start the move-count procedure on request or imposed by the arbiter. Returns
        False when it cannot apply (no count rule, or not at least one king each: 10.1)."""
        limit = count_moves if count_moves is not None else self.variant.draws.count_moves
        if not limit or self.outcome is not None:
            return False
        if self._count is not None:
            return True
        return self._start_count_if_kings(limit, imposed)

    def _start_count_if_kings(self, limit: int, imposed: bool) -> bool:
        b = self.board
        if not (b.white & b.kings and b.black & b.kings):
            return False
        self._count = _Count(limit, self.ply, (b.white | b.black).bit_count(), imposed=imposed)
        return True
