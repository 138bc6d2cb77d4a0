"""The arbiter's state and its acts: committing a move, an irregularity, its decision, the clock.

:class:`ArbiterCore` holds what the arbiter knows (the game record, the flags, the piece tracking
of the turn, the pending irregularity, the game clock) and does what the regulation makes it do;
``engine.arbiter.Arbiter`` adds the handling of each physical event. Every act appends its
decisions (``engine.decisions``) to the list the current ``feed``/``advance`` returns.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

from engine.arbiter_judge import Judgement, judge
from engine.articles import article, kind_of
from engine.board import Board, Move
from engine.clock import BothFlagsFell, ClockEvent, ClockPressed, ClockState, FlagFell, GameClock
from engine.colour import Colour
from engine.decisions import (BoardToFix, ClockChanged, ClockRefused, Decision, Flag,
                              FlagDecided, FlagRaised, GameEnded, MoveCommitted, MoveRetracted,
                              PositionSet)
from engine.errors import ClockError
from engine.events import DaemonRestarted, GameStarted
from engine.game import Game, GameMark
from engine.squares import square_sort_key
from engine.timecontrol import parse_time_control_tag
from engine.tracking import TurnTracker
from engine.variants import Variant, find_variant

__all__ = ["ArbiterCore"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Pending:
    """An irregularity waiting for the offender's opponent (IT 8.2): its flag's id, the offender,
    the verdict, the position to restore on ``correct`` (IT 8.4: no partial correction), the
    position on the board (kept on ``accept`` or by play, IT 8.3), when it was completed, the
    piece touch-move binds after a correction (IT 8.1.3) and whether the offender completed it
    with a counted clock press (retracted if corrected). While it waits, the irregular move
    stands in the transcript (TRACE.md ``moves``): ``mark`` undoes it. Boards are copies without
    move stack: the cost does not grow with the game."""

    flag_id: int
    offender: Colour
    judgement: Judgement
    before: Board
    after: Board
    t: float
    touched: int | None
    pressed: bool
    mark: GameMark  # the record before the irregular move was written in (undone on correction)
    previous: Board | None  # the position before the last move, before it was written in


class ArbiterCore:
    """State and acts of the arbiter (see ``engine.arbiter.Arbiter`` for the public contract)."""

    def __init__(self, start: GameStarted) -> None:
        self.start = start
        self.variant: Variant = find_variant(start.variant)
        tags = {k.capitalize(): v for k, v in start.tags}
        if start.time_control:
            tags["TimeControl"] = start.time_control
        self._game = Game(self.variant, start.fen, tags=tags, transcribed=start.transcribed,
                          time_control=start.time_control)
        self._flags: list[Flag] = []
        self._g = self.variant.geometry
        self._clock_mode = start.clock
        self._settle = start.settle
        self._clock: GameClock | None = None
        if start.time_control:
            control = parse_time_control_tag(start.time_control)
            if control is not None:
                self._clock = GameClock(control)
        self._clock_t = 0.0  # the last time given to the clock (it refuses earlier times)
        self._now = 0.0
        self._out: list[Decision] = []
        self._sensed: set[str] = set(self._game.board.occupied_algebraic())
        self._pending: Pending | None = None
        self._correcting: Pending | None = None
        self._correction_touch: int | None = None  # IT 3.7: a piece lifted while putting right
        self._disturbed: int | None = None  # id of the IT 7.8 flag while the board is disturbed
        self._draw_offer: Colour | None = None
        self._draw_refused = [False, False]
        self._obligation: int | None = None
        self._started = False  # a move has been completed (IT 7.1: checks before the first move)
        self._setup_flags: list[int] = []
        self._light_flags: list[int] = []  # IT 7.5 notices pending until the piece is off
        self._previous: Board | None = None  # the position before the last move, if regular
        self._shown_fix: tuple[str, ...] = ()
        self._fix_key = "disturbed"  # what the squares shown are to put right
        self._ended = False
        #: the pieces of the turn (engine.tracking): what stands where, lifted, touched first
        self.tracking = TurnTracker(self._game.board, self._sensed, None,
                                    self._legal(self._game.board), self._now)

    # ------------------------------------------------------------------ read-only views

    @property
    def game(self) -> Game:
        """The official record (read it; the arbiter alone changes it)."""
        return self._game

    @property
    def clock(self) -> GameClock | None:
        """The game clock, None when the start line has no time control (the clock button still
        completes moves, COMP 4.5). Read it freely; operate it only through the arbiter's events."""
        return self._clock

    @property
    def flags(self) -> list[Flag]:
        """Every flag so far, each in its current status (a copy of the list)."""
        return list(self._flags)

    @property
    def board(self) -> Board:
        """The official position (the game's board)."""
        return self._game.board

    @property
    def sensed(self) -> frozenset[str]:
        """The occupancy the sensors report, as algebraic names."""
        return frozenset(self._sensed)

    @property
    def pending(self) -> Flag | None:
        """The irregularity waiting for the opponent's decision, if any."""
        return self._flags[self._pending.flag_id] if self._pending else None

    @property
    def squares_to_fix(self) -> list[str]:
        """Algebraic names of the squares that must change for the board to show the position it
        must show: during a correction (IT 8.4) the position before the irregular move, after a
        disturbance (IT 7.8) or with a piece on a light square (IT 7.5) the last position. Empty
        when nothing is to be put right."""
        return list(self._fix()[0])

    def _fix(self) -> tuple[tuple[str, ...], str]:
        target: Board | None = None
        key = ""
        if self._correcting is not None:
            target, key = self._correcting.before, "correction"
        elif self._disturbed is not None:
            target, key = self.tracking.ref, "disturbed"
        elif self._light_pieces():
            target, key = self.tracking.ref, "light_square"
        if target is None:
            return (), ""
        diff = self._sensed ^ set(target.occupied_algebraic())
        return tuple(sorted(diff, key=square_sort_key)), key

    # ------------------------------------------------------------------ decisions out

    def _emit(self, decision: Decision) -> None:
        self._out.append(decision)

    def _flush(self, t: float) -> list[Decision]:
        """The decisions of this call, with what follows from the state: the board to fix
        changed, the game ended."""
        squares, key = self._fix()
        if squares != self._shown_fix:
            # cleared: the article of what was put right
            self._shown_fix, self._fix_key = squares, key or self._fix_key
            self._emit(BoardToFix(t, squares, article(self.variant, self._fix_key).code))
        o = self._game.outcome
        if o is not None and not self._ended:
            self._ended = True
            self._emit(GameEnded(t, o.result, o.winner, o.reason, o.code))
        out, self._out = self._out, []
        return out

    def _flag(self, t: float, key: str, side: int | None, status: str, text: str) -> Flag:
        """Raise a flag citing ``key``'s article (raises NoArticleError when the rule set has
        none: a flag is never dropped silently)."""
        a = article(self.variant, key)
        f = Flag(len(self._flags), t, a.code, None if side is None else Colour(side), a.kind,
                 status, text)
        self._flags.append(f)
        self._emit(FlagRaised(f))
        return f

    def _decide(self, t: float, flag_id: int, status: str, key: str) -> None:
        """A flag changes status by ``key``'s article: a new value, returned as a decision."""
        f = self._flags[flag_id].with_status(status)
        self._flags[flag_id] = f
        self._emit(FlagDecided(t, f, article(self.variant, key).code))

    # ------------------------------------------------------------------ the clock

    def _clock_do(self, t: float, operation: str,
                  call: Callable[[GameClock, float], ClockEvent]) -> ClockEvent | None:
        """Operate the clock at ``t`` (never earlier than the last time it was given). Its result
        is a decision; a refusal too. Time-driven events (a flag falling, mosse lampo beginning)
        are reported by :meth:`_clock_poll`, once."""
        c = self._clock
        if c is None:
            return None
        ct = max(t, self._clock_t)
        self._clock_t = ct
        try:
            event = call(c, ct)
        except ClockError as exc:
            self._emit(ClockRefused(ct, operation, str(exc), article(self.variant,
                                                                     "clock_refused").code))
            return None
        if not isinstance(event, (FlagFell, BothFlagsFell)):
            self._emit(ClockChanged(ct, event))
        return event

    def _clock_poll(self, t: float) -> None:
        c = self._clock
        if c is None or c.state == ClockState.READY:
            return
        ct = max(t, self._clock_t)
        self._clock_t = ct
        for event in c.poll(ct):
            self._emit(ClockChanged(event.t, event))

    @property
    def _clock_started(self) -> bool:
        return self._clock is None or self._clock.state != ClockState.READY

    def _clock_start(self, side: int, t: float) -> None:
        """COMP 4.4.2: the arbiter starts the face of the player to move (or resumes)."""
        c = self._clock
        if c is None:
            return
        if c.state == ClockState.READY:
            self._clock_do(t, "start", lambda k, ct: k.start(Colour(side), ct))
        elif c.state == ClockState.STOPPED:
            self._clock_do(t, "resume", lambda k, ct: k.resume(ct))

    def _clock_press(self, side: int, t: float) -> ClockEvent | None:
        """``side`` completes his move with the press at ``t``; the move was complete at the last
        change the sensors saw (the piece let go, the last captured piece off): in the mosse-lampo
        phase that is what must come by zero (COMP 5.7)."""
        done = min(t, max(self.tracking.last_change, self._clock_t))
        return self._clock_do(t, "press", lambda k, ct: k.press(Colour(side), ct, True, completed_at=done))

    def _clock_stop(self, t: float) -> None:
        c = self._clock
        if c is not None and c.state not in (ClockState.READY, ClockState.STOPPED):
            self._clock_do(t, "stop_both", lambda k, ct: k.stop_both(ct))

    def _held(self, t: float) -> float:
        """How far the clock may be read at ``t``. COMP 5.7: in mosse lampo the piece must be let
        go by zero; a move the board shows complete is in time though the clock is pressed
        after, so while it is shown the clock is read only up to the moment it was let go (its
        flag falls then only if that moment came after zero)."""
        c = self._clock
        if (c is None or not self._clock_mode or c.running is None or c.control.lampo is None
                or self._pending is not None or self._correcting is not None
                or not self.tracking.touches):
            return t
        if not c.face(c.running, self._clock_t).in_lampo:
            return t
        if frozenset(self._sensed) not in self.tracking.after:
            return t
        return min(t, max(self.tracking.last_change, self._clock_t))

    def _on_restart(self, e: DaemonRestarted) -> list[Decision]:
        """TRACE.md ``restart``: the board was away (``down`` s). COMP 7.3-7.4: the clocks stand
        stopped with the readings of the last line before it, until the arbiter's
        ``start_clock``; nothing that time would have done while away is done (no settle
        commit, no flag fall: the players were not playing), except that a move the board
        showed complete without clock is committed (IT 3.5). The snapshot that follows is
        checked like any other."""
        before = self._now
        self._clock_stop(before)
        if (not self._clock_mode and self._correcting is None and self._pending is None
                and self.tracking.touches and frozenset(self._sensed) in self.tracking.after):
            # IT 3.5: the move on the board was complete when the piece was let go; the settle
            # timer that would have said so ran out while the board was away.
            self._complete(self.tracking.last_change, None)
        away = "unknown time" if e.down is None else f"{e.down:g} s"
        self._flag(e.t, "restart", None, "noted", f"the board restarted after {away} away; "
                   "clocks stopped until the arbiter restarts them")
        self._now = max(self._now, e.t)
        if self.tracking.touches:
            self.tracking.last_change = max(self.tracking.last_change, e.t)  # no settle over the gap
        return self._flush(e.t)

    def _clock_reading(self, t: float) -> tuple[float, float] | None:
        c = self._clock
        if c is None or c.state == ClockState.READY:
            return None
        return c.reading(max(t, self._clock_t))

    def _check_time(self, t: float) -> None:
        """COMP 4.8: a flag fell; COMP 5.9.4: both did, no telling which first."""
        self._clock_poll(t)
        c = self._clock
        if c is None or self._game.outcome is not None or not self._clock_mode:
            return
        fell = c.flag
        if isinstance(fell, BothFlagsFell):
            self._game.adjudicate(self._game.result_for(None), "both flags fell (COMP 5.9.4)")
        elif isinstance(fell, FlagFell):
            self._game.lose_on_time(Colour.parse(fell.side), clock=self._clock_reading(t))

    # ------------------------------------------------------------------ turn state

    def _legal(self, ref: Board) -> list[Move]:
        return ref.legal_moves if self._game.outcome is None else []

    def _reset_turn(self, ref: Board) -> None:
        """Start following the physical board from the reference position ``ref``."""
        self.tracking = TurnTracker(ref, self._sensed, self._obligation, self._legal(ref),
                                    self._now)

    def _keep_turn(self, ref: Board) -> None:
        """New reference, same pieces followed and the same first touch (IT 7.8 put right)."""
        keep = self.tracking.first_touch
        self._reset_turn(ref)
        self.tracking.first_touch = keep

    def _mover(self) -> Colour:
        return Colour(self.tracking.ref.turn)

    def _light_pieces(self) -> list[str]:
        num = self._g.number_of_algebraic
        return [s for s in self._sensed if s not in num]

    def _shows_ref(self) -> bool:
        return self._sensed == set(self.tracking.ref.occupied_algebraic())

    # ------------------------------------------------------------------ completing a move

    def _complete(self, t: float, presser: int | None) -> None:
        """The player on move declares his move complete (clock press, or no-clock commit)."""
        c = self._mover()
        light = self._light_pieces()
        if light:
            names = ", ".join(sorted(light))
            self._light_flags.append(self._flag(
                t, "light_square", c, "pending",
                f"a piece on the light square(s) {names} is inactive").id)
            self._disturb(t, f"piece on light square {names}")
            return
        previous = self._previous if self._pending is None else None
        j = judge(self.tracking.ref, self.tracking.on_board(), presser, previous)
        if j.key == "nothing":
            if presser is not None:
                self._flag(t, "press_without_move", presser, "noted",
                           "clock pressed without a move")
            return
        if j.key == "disturbed":
            self._disturb(t, j.text)
            return
        if j.key is None:
            assert j.move is not None
            self._regular(t, j.move)
            return
        self._irregular(t, j)

    def _regular(self, t: float, move: Move) -> None:
        """A legal move shown on the board: touch-move (IT 3.7) and the execution of a capture
        (IT 5.12, INT 4.11), then commit."""
        c = self._mover()
        touched = self.tracking.first_touch
        if touched is not None and touched != move.from_square:
            self._irregular(t, Judgement("touch", c, f"touched {touched}, moved "
                                         f"{move.from_square}", move=move, legal=True,
                                         after_fen=None), touched=touched)
            return
        if move.is_capture and self._check_removal(t, move):
            return
        self._commit(t, move)

    def _check_removal(self, t: float, move: Move) -> bool:
        """IT 5.12 / INT 4.11: removal in the direct or reverse order of a legal capture order,
        after the capture is complete. Returns True when an irregularity now waits (INT 5.4.10)."""
        c = self._mover()
        order, early = self.tracking.removal(move)
        if early:
            if kind_of(self.variant, "early_removal") == "incorrectness":  # IT 5.12
                self._flag(t, "early_removal", c, "noted",
                           "captured piece removed before the capture was complete")
            else:  # INT 5.4.10: an irregularity
                self._irregular(t, Judgement("early_removal", c, "captured piece removed before "
                                             "the capture was over", move=move, legal=True))
                return True
        if len(order) > 1:
            ok = any(order == list(cs) or order == list(reversed(cs))
                     for _, cs in move.alternatives)
            if not ok:
                self._flag(t, "removal_order", c, "noted",
                           "captured pieces removed out of order: "
                           + ", ".join(str(n) for n in order))
        return False

    def _commit(self, t: float, move: Move) -> None:
        c = self._mover()
        if self._draw_offer is not None and self._draw_offer != c:
            # COMP 6.15: playing on declines the offer
            self._draw_refused[self._draw_offer] = True
            self._draw_offer = None
        clock: tuple[float, float] | None = None
        if self._clock_mode:
            pressed = self._clock_press(c, t)
            if isinstance(pressed, (FlagFell, BothFlagsFell)):
                # COMP 4.8, 4.5: the flag fell before the press completed the move: no move
                return
            if isinstance(pressed, ClockPressed):
                clock = (pressed.white, pressed.black)
            else:
                clock = self._clock_reading(t)
        else:
            clock = self._clock_reading(t)
        why = "move_pressed" if self._clock_mode else "move_made"
        self._play(t, move, clock, why)
        if self._game.outcome is not None:
            self._clock_stop(t)
        self._after_commit(t)

    def _play(self, t: float, move: Move, clock: tuple[float, float] | None, why: str,
              pending: bool = False) -> None:
        """Record the legal ``move`` (the board copy for IT 8.1.4 has no move stack: constant).
        ``pending``: an irregular move (IT 8.1.3) the opponent may still have corrected; ``why``
        is then the flag's code."""
        previous = self._game.board.copy(stack=False)
        rec = self._game.play(move, t=t, clock=clock, provisional=pending)
        self._previous = previous
        log.debug("move %s", rec.notation)
        code = why if pending else article(self.variant, why).code
        self._emit(MoveCommitted(t, rec.ply, rec.side, rec.move, rec.notation, rec.clock,
                                 self._game.board.fen(), code, pending=pending))

    def _after_commit(self, t: float) -> None:
        self._obligation = None
        self._started = True
        if self._disturbed is not None:
            self._decide(t, self._disturbed, "corrected", "disturbed")
            self._disturbed = None
        self._close_light_flags(t)
        self._reset_turn(self._game.board)

    # ------------------------------------------------------------------ irregularities

    def _irregular(self, t: float, j: Judgement, touched: int | None = None) -> None:
        """IT 8.2: only the offender's opponent decides. Until he does, the irregular position
        stands on the board and his clock runs."""
        assert j.key is not None and j.offender is not None
        offender = Colour(j.offender)
        flag = self._flag(t, j.key, offender, "pending", j.text)
        ref = self.tracking.ref
        if j.legal and j.move is not None:
            after = ref.copy(stack=False)
            after.push(j.move)
        else:
            assert j.after_fen is not None
            after = Board(j.after_fen, self.variant)
        pressed = False
        if self._clock_mode and offender == self._mover():
            # the offender completed it with his press; a counted press is retracted if the
            # move is corrected (COMP 4.13), one the clock ignored (stopped) is not
            event = self._clock_press(offender, t)
            pressed = isinstance(event, ClockPressed) and event.counted
        mark, previous = self._game.mark(), self._previous
        self._pending = Pending(flag.id, offender, j, ref.copy(stack=False), after, t, touched,
                                pressed, mark, previous)
        self._write_in(t, j, offender, after, flag.code)
        self._obligation = None
        self._reset_turn(after)
        # the decider is the side to move in ``after`` unless the offender must move again
        if after.turn == offender:
            other = after.copy(stack=False)
            other.turn = offender.opponent
            self.tracking.playable = {m.from_square for m in other.legal_moves}

    def _write_in(self, t: float, j: Judgement, offender: Colour, after: Board,
                  code: str) -> None:
        """TRACE.md ``moves``: the irregular move stands in the transcript, in its place with the
        side that played it, while the opponent decides (IT 8.2) and if it is kept (IT 8.3); the
        game goes on from the position on the board, ``/FEN/`` in the PDN. The end rules wait
        for the decision."""
        if j.legal and j.move is not None:
            self._play(t, j.move, None, code, pending=True)
            return
        if j.move is not None and after.turn != offender:
            names = self._g.algebraic_of if self.variant.algebraic_pdn else None
            self._game.record_irregular(j.move, j.move.notation(names=names), offender,
                                        after.fen(), t, provisional=True)
            rec = self._game.moves[-1]
            self._emit(MoveCommitted(t, rec.ply, offender, rec.move, rec.notation, rec.clock,
                                     self._game.board.fen(), code, setup_fen=rec.setup_fen,
                                     pending=True))
        else:
            self._game.set_position(after.fen(), t, provisional=True)
            self._emit(PositionSet(t, self._game.board.fen(), code))
        self._previous = None

    def _maintain(self, t: float, by_play: bool) -> None:
        """IT 8.2/8.3: the irregularity is kept; the position on the board becomes the game (it
        stands in the transcript already, :meth:`_write_in`)."""
        p = self._pending
        assert p is not None
        self._pending = None
        self._decide(t, p.flag_id, "maintained", "kept_by_play" if by_play else "offender_decides")
        self._game.check_end()
        self._started = True
        # keep following the pieces already lifted: the reference position is the same
        tracker = self.tracking
        self._reset_turn(self._game.board)
        self.tracking.phys, self.tracking.hand, self.tracking.touches = (tracker.phys, tracker.hand,
                                                             tracker.touches)
        c = self._clock
        if self._clock_mode and c is not None and (
                c.running is None or Colour.parse(c.running) != self._game.board.turn):
            self._clock_start(self._game.board.turn, t)

    def _correct(self, t: float) -> None:
        """IT 8.4: the position before the irregular move must be restored; the offender's clock
        runs meanwhile (COMP 4.13)."""
        p = self._pending
        assert p is not None
        self._pending = None
        self._decide(t, p.flag_id, "corrected", "correction")
        written = len(self._game.moves) > p.mark.moves
        self._game.undo_to(p.mark)  # the irregular move leaves the transcript (IT 8.4)
        self._previous = p.previous
        if written:
            self._emit(MoveRetracted(t, p.mark.moves + 1, self._game.board.fen(),
                                     article(self.variant, "correction").code))
        self._correcting = p
        self._correction_touch = None
        c = self._clock
        if c is not None and c.state in (ClockState.RUNNING, ClockState.STOPPED):
            self._clock_do(t, "begin_correction",
                           lambda k, ct: k.begin_correction(p.offender, ct,
                                                            retract_last_move=p.pressed))
        self._check_restored(t)

    def _check_restored(self, t: float) -> None:
        """The board shows again the position it must show: the correction (IT 8.4) or the
        disturbance (IT 7.8) is over."""
        if self._correcting is not None:
            p = self._correcting
            if self._sensed == set(p.before.occupied_algebraic()):
                self._correcting = None
                c = self._clock
                if c is not None and c.state == ClockState.CORRECTING:
                    self._clock_do(t, "end_correction", lambda k, ct: k.end_correction(ct))
                if self._clock_mode:
                    self._clock_start(p.before.turn, t)
                # the offender plays again with the obligation that follows: the touched piece
                # after IT 8.1.3 (a capture after 8.1.6 is compulsory anyway, IT 6.1), else a
                # playable piece lifted during the restoration (IT 3.7)
                self._obligation = p.touched if p.before.turn == p.offender else None
                if self._obligation is None:
                    self._obligation = self._correction_touch
                self._correction_touch = None
                self._reset_turn(p.before)
            return
        if self._disturbed is not None and not self._light_pieces():
            if self._shows_ref():
                self._decide(t, self._disturbed, "corrected", "disturbed")
                self._disturbed = None
                self._close_setup_flags(t)
                self._close_light_flags(t)
                self._keep_turn(self.tracking.ref)

    def _close_light_flags(self, t: float) -> None:
        """IT 7.5: the inactive piece was taken off the light square (by the players or the
        arbiter): its notice is settled."""
        for flag_id in self._light_flags:
            self._decide(t, flag_id, "corrected", "light_square")
        self._light_flags.clear()

    def _close_setup_flags(self, t: float) -> None:
        for flag_id in self._setup_flags:
            self._decide(t, flag_id, "corrected", "setup")
        self._setup_flags.clear()

    def _disturb(self, t: float, text: str) -> None:
        """IT 7.8 / INT 5.5: nothing is committed; the board lists the squares to put right."""
        if self._disturbed is not None:
            return
        self._disturbed = self._flag(t, "disturbed", None, "pending",
                                     f"position disturbed ({text}): put it right or restore").id
