"""What the arbiter knows (its state), and the decisions it gives out.

:class:`ArbiterMemory` is the one place the arbiter's state lives: the official record, the flags,
the occupancy the sensors report, the pieces of the turn (``engine.tracking``), the irregularity
waiting for a decision (IT 8.2), the correction or disturbance under way (IT 8.4, 7.8), the draw
offer, and the :class:`Timekeeper` that operates the game clock. Its collaborators are handed it:
``engine.arbiter_judge.Judge`` (what the board shows and what follows: a move committed, an
irregularity held, corrected or kept) and ``engine.arbiter.Arbiter`` (the physical events). What
is set once is read-only; what the regulation changes during a game is a documented public
attribute, changed only by those two. Every decision goes out through :meth:`ArbiterMemory.emit`
and is collected by :meth:`ArbiterMemory.flush` at the end of each ``feed``/``advance``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from engine.articles import article
from engine.board import Board, Move
from engine.clock import BothFlagsFell, ClockEvent, ClockState, FlagFell, GameClock
from engine.clock_display import LAMPO_COUNTDOWN
from engine.colour import Colour
from engine.decisions import (BoardToFix, ClockChanged, ClockRefused, Decision, Flag,
                              FlagDecided, FlagRaised, GameEnded, LampoCountdown)
from engine.errors import ClockError
from engine.events import GameStarted
from engine.game import Game, GameMark
from engine.identity import PieceWatch
from engine.pdn import record_tags
from engine.squares import square_sort_key
from engine.timecontrol import parse_time_control_tag
from engine.tracking import TurnTracker
from engine.variants import Geometry, Variant, find_variant

__all__ = ["ArbiterMemory", "Pending", "Timekeeper"]


@dataclass(frozen=True, slots=True)
class Pending:
    """An irregularity waiting for the offender's opponent (IT 8.2): its flags' ids (one per
    irregularity of the move: touch-move broken and a capture omitted are two), the offender,
    the position to restore on ``correct`` (IT 8.4: no partial correction), the
    position on the board (kept on ``accept`` or by play, IT 8.3), when it was completed, the
    piece touch-move binds after a correction (IT 8.1.3) and whether the offender completed it
    with a counted clock press (retracted if corrected). While it waits, the irregular move
    stands in the transcript (docs/trace-format.md ``moves``): ``mark`` undoes it. Boards are copies without
    move stack: the cost does not grow with the game."""

    flag_ids: tuple[int, ...]
    offender: Colour
    before: Board
    after: Board
    t: float
    touched: int | None
    pressed: bool
    mark: GameMark  # the record before the irregular move was written in (undone on correction)
    previous: Board | None  # the position before the last move, before it was written in


class Timekeeper:
    """Operates the game clock for the arbiter (COMP 4-5): every operation at a time never
    earlier than the last one given (the clock refuses earlier times), its result given out as a
    decision through ``emit``, a refusal too. ``clock`` is None when the start line has no time
    control (the clock button still completes moves, COMP 4.5)."""

    __slots__ = ("_clock", "_variant", "_emit", "_t", "_lampo_said")

    def __init__(self, control: str | None, variant: Variant,
                 emit: Callable[[Decision], None]) -> None:
        parsed = parse_time_control_tag(control) if control else None
        self._clock = GameClock(parsed) if parsed is not None else None
        self._variant = variant
        self._emit = emit
        self._t = 0.0  # the last time given to the clock
        self._lampo_said: tuple[Colour, int, int] | None = None  # side, run, lowest word said

    @property
    def clock(self) -> GameClock | None:
        """The game clock (read it freely; operate it only through this keeper)."""
        return self._clock

    @property
    def last_t(self) -> float:
        """The last time given to the clock (0 before any)."""
        return self._t

    @property
    def started(self) -> bool:
        """The clock has been started (COMP 4.4.2), or there is none to start."""
        return self._clock is None or self._clock.state != ClockState.READY

    def operate(self, t: float, operation: str,
                call: Callable[[GameClock, float], ClockEvent]) -> ClockEvent | None:
        """Operate the clock at ``t``: ``call(clock, time)``. Time-driven events (a flag falling,
        mosse lampo beginning) are reported by :meth:`poll`, once. None without a clock or when
        the clock refused (:class:`ClockRefused` given out)."""
        c = self._clock
        if c is None:
            return None
        ct = self._t = max(t, self._t)
        try:
            event = call(c, ct)
        except ClockError as exc:
            self._emit(ClockRefused(ct, operation, str(exc),
                                    article(self._variant, "clock_refused").code))
            return None
        if not isinstance(event, (FlagFell, BothFlagsFell)):
            self._emit(ClockChanged(ct, event))
        return event

    def poll(self, t: float) -> None:
        """Give out what time alone did on the running clock up to ``t``."""
        c = self._clock
        if c is None or c.state == ClockState.READY:
            return
        ct = self._t = max(t, self._t)
        for event in c.poll(ct):
            self._emit(ClockChanged(event.t, event))

    def start(self, side: int, t: float) -> None:
        """COMP 4.4.2: the arbiter starts the face of the player to move (or resumes)."""
        c = self._clock
        if c is None:
            return
        if c.state == ClockState.READY:
            self.operate(t, "start", lambda k, ct: k.start(Colour(side), ct))
        elif c.state == ClockState.STOPPED:
            self.operate(t, "resume", lambda k, ct: k.resume(ct))

    def press(self, side: int, t: float, last_change: float) -> ClockEvent | None:
        """``side`` completes his move with the press at ``t``; the move was complete at the last
        change the sensors saw (``last_change``: the piece let go, the last captured piece off):
        in the mosse-lampo phase that is what must come by zero (COMP 5.7)."""
        done = min(t, max(last_change, self._t))
        return self.operate(t, "press",
                            lambda k, ct: k.press(Colour(side), ct, True, completed_at=done))

    def stop(self, t: float) -> None:
        """Both faces stopped (the game over, the board away, the arbiter's ``stop_clock``)."""
        c = self._clock
        if c is not None and c.state not in (ClockState.READY, ClockState.STOPPED):
            self.operate(t, "stop_both", lambda k, ct: k.stop_both(ct))

    def begin_correction(self, offender: Colour, t: float, retract: bool) -> None:
        """COMP 4.13: the offender's face runs while the position is put right; ``retract``: his
        counted press is taken back."""
        c = self._clock
        if c is not None and c.state in (ClockState.RUNNING, ClockState.STOPPED):
            self.operate(t, "begin_correction",
                         lambda k, ct: k.begin_correction(offender, ct, retract_last_move=retract))

    def end_correction(self, t: float) -> None:
        """The position is restored (IT 8.4): the correction's timing ends."""
        c = self._clock
        if c is not None and c.state == ClockState.CORRECTING:
            self.operate(t, "end_correction", lambda k, ct: k.end_correction(ct))

    def reading(self, t: float) -> tuple[float, float] | None:
        """(white, black) seconds at ``t``; None before the start or without a clock."""
        c = self._clock
        if c is None or c.state == ClockState.READY:
            return None
        return c.reading(max(t, self._t))

    def countdown(self, t: float) -> None:
        """COMP 5.7: the words of the mosse-lampo countdown reached by ``t``, each once a move."""
        c = self._clock
        if c is None or c.control.lampo is None:
            return
        running = c.running
        if running is None and isinstance(c.flag, FlagFell) and c.flag.in_lampo:
            running = c.flag.side  # "0!": the flag fell in the middle of a lampo move
        if running is None:
            return
        face = c.face(running, max(t, self._t))
        if not face.in_lampo:
            return
        side = Colour.parse(face.side)
        said = self._lampo_said
        lowest = said[2] if said is not None and said[:2] == (side, face.run) else None
        for seconds, word in LAMPO_COUNTDOWN:
            if face.run_start_ms > seconds * 1000 >= face.ms and (lowest is None
                                                                   or seconds < lowest):
                self._emit(LampoCountdown(t, side, seconds, word,
                                          article(self._variant, "lampo_countdown").code))
                lowest = seconds
        if lowest is not None:
            self._lampo_said = (side, face.run, lowest)


class ArbiterMemory:
    """The arbiter's memory for one game, from its start line (docs/trace-format.md ``start``).

    Read-only: ``start``, ``variant``, ``geometry``, ``clock_mode`` (a press completes a move),
    ``settle`` (quiet seconds that complete a move without clock), ``game`` (the official record),
    ``timekeeper``, ``flags`` (a copy), ``board``, :meth:`squares_to_fix`.

    Changed as the regulation says, each by one collaborator unless told. By the arbiter (the
    events): ``now`` (the latest time seen), ``sensed`` (the occupancy the sensors report,
    algebraic; the judge's ``restore`` too), ``draw_offer`` and ``draw_refused`` (COMP 6.15; the
    judge declines an offer when the opponent plays on), ``setup_flags`` (IT 7.1-7.2 notices
    pending) and ``light_flags`` (IT 7.5 notices pending until the piece is off; the judge's on a
    move completed there). By the judge: ``pending`` (the irregularity waiting for the opponent, IT
    8.2; lapsed when the game ends first), ``correcting`` (the irregularity being put right, IT
    8.4), ``correction_touch`` (IT 3.7: a piece lifted while putting right), ``disturbed`` (the id
    of the IT 7.8 flag while the board is disturbed), ``obligation`` (the piece touch-move binds
    from the start of the turn), ``started`` (a move has been completed, IT 7.1), ``previous`` (the
    position before the last move, if regular: IT 8.1.4). ``tracker`` (the pieces of the turn) is
    replaced by :meth:`reset_turn` and :meth:`keep_turn`; the arbiter tells it the touches.
    ``pieces`` (``engine.identity``: which piece the board saw where, on a board that knows them):
    told by the arbiter, read by both.
    """

    # no attribute but these: the memory's whole surface is the list above
    __slots__ = ("_start", "_variant", "_dark", "_game", "_flags", "_out",
                 "_timekeeper", "_shown_fix", "_fix_key", "_ended", "ended_at", "now", "sensed", "pending",
                 "correcting", "correction_touch", "disturbed", "draw_offer", "draw_refused",
                 "obligation", "started", "setup_flags", "light_flags", "previous", "tracker",
                 "pieces")

    def __init__(self, start: GameStarted) -> None:
        self._start = start
        self._variant = find_variant(start.variant)
        self._dark = frozenset(self._variant.geometry.number_of_algebraic)  # dark squares' names
        tags = record_tags(dict(start.tags))
        if start.time_control:
            tags["TimeControl"] = start.time_control
        self._game = Game(self._variant, start.fen, tags=tags, transcribed=start.transcribed,
                          time_control=start.time_control)
        self._flags: list[Flag] = []
        self._out: list[Decision] = []
        # the keeper appends to the same list (not through a bound method: no reference cycle)
        self._timekeeper = Timekeeper(start.time_control, self._variant, self._out.append)
        self._shown_fix: tuple[str, ...] = ()
        self._fix_key = "disturbed"  # what the squares shown are to put right
        self._ended = False
        #: ``t`` at which the game ended (its first result), None while in play
        self.ended_at: float | None = None
        self.now = 0.0
        self.sensed: set[str] = set(self._game.board.occupied_algebraic())
        self.pending: Pending | None = None
        self.correcting: Pending | None = None
        self.correction_touch: int | None = None
        self.disturbed: int | None = None
        self.draw_offer: Colour | None = None
        self.draw_refused = [False, False]
        self.obligation: int | None = None
        self.started = False
        self.setup_flags: list[int] = []
        self.light_flags: list[int] = []
        self.previous: Board | None = None
        self.tracker = TurnTracker(self._game.board, self.sensed, None,
                                   self.legal(self._game.board), self.now)
        self.pieces = PieceWatch()

    # ------------------------------------------------------------------ set once

    @property
    def start(self) -> GameStarted:
        return self._start

    @property
    def variant(self) -> Variant:
        return self._variant

    @property
    def geometry(self) -> Geometry:
        return self._variant.geometry

    @property
    def clock_mode(self) -> bool:
        """docs/trace-format.md ``clock``: a clock press completes a move (else ``settle`` quiet seconds)."""
        return self._start.clock

    @property
    def settle(self) -> float:
        return self._start.settle

    @property
    def game(self) -> Game:
        """The official record (read it; the arbiter and its judge write in it)."""
        return self._game

    @property
    def board(self) -> Board:
        """The official position (the game's board)."""
        return self._game.board

    @property
    def timekeeper(self) -> Timekeeper:
        return self._timekeeper

    # ------------------------------------------------------------------ flags and decisions

    @property
    def flags(self) -> list[Flag]:
        """Every flag so far, each in its current status (a copy of the list)."""
        return list(self._flags)

    def flag(self, flag_id: int) -> Flag:
        """The flag numbered ``flag_id``, in its current status."""
        return self._flags[flag_id]

    def emit(self, decision: Decision) -> None:
        """Give out ``decision`` with the current call's."""
        self._out.append(decision)

    def raise_flag(self, t: float, key: str, side: int | None, status: str, text: str) -> Flag:
        """Raise a flag citing ``key``'s article (raises NoArticleError when the rule set has
        none: a flag is never dropped silently)."""
        a = article(self._variant, key)
        f = Flag(len(self._flags), t, a.code, None if side is None else Colour(side), a.kind,
                 status, text)
        self._flags.append(f)
        self.emit(FlagRaised(f))
        return f

    def decide(self, t: float, flag_id: int, status: str, key: str) -> None:
        """A flag changes status by ``key``'s article: a new value, given out as a decision."""
        self.decide_by(t, flag_id, status, article(self._variant, key).code)

    def decide_by(self, t: float, flag_id: int, status: str, code: str) -> None:
        """A flag changes status by the article ``code`` (one already cited: a game's end)."""
        f = self._flags[flag_id].with_status(status)
        self._flags[flag_id] = f
        self.emit(FlagDecided(t, f, code))

    def result_changed(self) -> None:
        """The arbiter corrected the result (COMP 6.16): the next :meth:`flush` tells the game's
        end anew, with the result it has now."""
        self._ended = False

    def flush(self, t: float) -> list[Decision]:
        """The decisions of this call, with what follows from the state: the board to fix
        changed, the game ended."""
        squares, key = self._fix()
        if squares != self._shown_fix:
            # cleared: the article of what was put right
            self._shown_fix, self._fix_key = squares, key or self._fix_key
            self.emit(BoardToFix(t, squares, article(self._variant, self._fix_key).code))
        o = self._game.outcome
        if o is not None and not self._ended:
            self._ended = True
            if self.ended_at is None:
                self.ended_at = t
            self.emit(GameEnded(t, o.result, o.winner, o.reason, o.code))
        out = self._out.copy()
        self._out.clear()
        return out

    # ------------------------------------------------------------------ the board to put right

    def squares_to_fix(self) -> list[str]:
        """Algebraic names of the squares that must change for the board to show the position it
        must show: during a correction (IT 8.4) the position before the irregular move, after a
        disturbance (IT 7.8) or with a piece on a light square (IT 7.5) the last position. Empty
        when nothing is to be put right."""
        return list(self._fix()[0])

    def _fix(self) -> tuple[tuple[str, ...], str]:
        target: Board | None = None
        key = ""
        if self.correcting is not None:
            target, key = self.correcting.before, "correction"
        elif self.disturbed is not None:
            target, key = self.tracker.ref, "disturbed"
        elif self.light_pieces():
            target, key = self.tracker.ref, "light_square"
        if target is None:
            return (), ""
        diff = self.sensed ^ set(target.occupied_algebraic())
        return tuple(sorted(diff, key=square_sort_key)), key

    def light_pieces(self) -> set[str]:
        """The occupied light squares (IT 7.5: such a piece is inactive), in no order."""
        return self.sensed - self._dark

    def shows_ref(self) -> bool:
        """The board shows the turn's reference position."""
        return self.sensed == set(self.tracker.ref.occupied_algebraic())

    def shows_legal_move(self) -> bool:
        """The board shows the position after a legal move of the turn (picochess's test)."""
        return frozenset(self.sensed) in self.tracker.after

    # ------------------------------------------------------------------ the turn

    def mover(self) -> Colour:
        """The side on move in the turn's reference position (asked several times per line:
        a board's ``turn`` is a Colour already, taken as it is without the enum's call)."""
        turn = self.tracker.ref.turn
        return turn if type(turn) is Colour else Colour(turn)

    def legal(self, ref: Board) -> list[Move]:
        """The legal moves of ``ref``, none once the game is over."""
        return ref.legal_moves if self._game.outcome is None else []

    def reset_turn(self, ref: Board) -> None:
        """Start following the physical board from the reference position ``ref``."""
        self.tracker = TurnTracker(ref, self.sensed, self.obligation, self.legal(ref), self.now)

    def keep_turn(self, ref: Board) -> None:
        """New reference, same pieces followed and the same first touch (IT 7.8 put right)."""
        keep = self.tracker.first_touch
        self.reset_turn(ref)
        self.tracker.first_touch = keep
