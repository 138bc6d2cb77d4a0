"""The game clock of the FID competition rules (COMP, Capo III) as a pure state machine.

No threads and no reading of the system time: every operation takes ``t``, float seconds of a
monotonic time source chosen by the caller, never decreasing from one call to the next (else
``ClockError``). Inside, time is kept in whole milliseconds (``t`` is rounded to the nearest
millisecond on the way in), so nothing drifts; readings are *floored* to the tenth of a second, so
a face never shows more time than is left.

The two faces alternate and are never both running (COMP 3.6.1 c, d); both can be stopped
(3.6.1 b). The arbiter starts the face of the player to move, or of an absent player (COMP 4.4.2,
6.9, 6.10). A press completes a move only when the caller says the move is complete (COMP 4.4.5,
4.5); the bonus of the Fischer system is credited only by that press (COMP 5.9.3), the time of the
next period when it completes a period (COMP 4.1). The first face to reach zero loses and stops the
clock (COMP 4.8, 5.9.4), unless mosse lampo follow (COMP 3.11.3, 5.6): then every later move of that
player has its own fixed time. Time passes by itself, so time-driven events (:class:`FlagFell`,
:class:`MosseLampoBegan`) are found at the exact millisecond they happened whenever the clock is
next told the time, by any call.

Reading the clock (:meth:`~GameClock.read`, :meth:`~GameClock.face`, :meth:`~GameClock.reading`,
:meth:`~GameClock.record`) is a pure computation that neither copies nor changes the clock, so a
display may read it as often as it likes; no operation costs time that grows with the number of
moves (:mod:`engine.clock_run`). The values it returns (states, readings, records, events) live
in :mod:`engine.clock_events`, re-exported here; sides are :class:`engine.colour.Colour`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Union

from engine.clock_events import (
    BothFlagsFell, ClockEvent, ClockPressed, ClockReading, ClockRecord,
    ClockResumed, ClockStarted, ClockState, ClockStopped, CorrectionBegan, CorrectionEnded,
    ElapsedDivided, FaceReading, FlagFell, MosseLampoBegan, PressIgnored, PressRefused,
    PressResult, ResignedByStoppingClock, TimeAdjusted, check_side, floor_tenths,
)
from engine.colour import BLACK, COLOURS, WHITE, Colour
from engine.clock_run import FaceState, Stretch, credits_total_ms, face_reading, run_face
from engine.errors import ClockError
from engine.timecontrol import TimeControl, seconds_to_ms

__all__ = [
    "ClockState", "GameClock", "FaceReading", "ClockReading", "ClockRecord",
    "ClockStarted", "ClockPressed", "PressRefused", "PressIgnored", "FlagFell", "BothFlagsFell",
    "MosseLampoBegan", "ResignedByStoppingClock", "ClockStopped", "ClockResumed",
    "CorrectionBegan", "CorrectionEnded", "ElapsedDivided", "TimeAdjusted",
    "ClockEvent", "PressResult",
]

_Flag = Union[FlagFell, BothFlagsFell]


# -- the clock --------------------------------------------------------------------------------


@dataclass(slots=True)
class _Correction:
    offender: Colour
    start_ms: int
    consumed_before: int
    then_running: Colour | None         # the face to run afterwards (None: stay stopped)


class GameClock:
    """A two-faced game clock for one game under ``control``.

    Operations for the arbiter (``engine.arbiter``) and the players' buttons, each taking ``t``
    (float seconds, monotonic): :meth:`start`, :meth:`press`, :meth:`stop_both`, :meth:`resume`,
    :meth:`begin_correction` / :meth:`end_correction`, :meth:`divide_elapsed`,
    :meth:`set_remaining` / :meth:`charge`, :meth:`restore`; time-driven events with
    :meth:`check_flag` and :meth:`poll`. Queries that change nothing and copy nothing:
    :meth:`reading`, :meth:`read`, :meth:`face`, :meth:`record`, :attr:`state`, :attr:`running`,
    :attr:`to_move`, :meth:`moves`. Every method raises ``ClockError`` (a ValueError) for a
    side that is not a ``Colour``, a time earlier than the last one given, or an operation the
    state does not allow.
    """

    def __init__(self, control: TimeControl) -> None:
        if not isinstance(control, TimeControl):
            raise ClockError(f"a GameClock needs a TimeControl, not {control!r}")
        self._control = control
        # Indexed by the colour (an IntEnum): White's face first.
        self._faces: tuple[FaceState, FaceState] = (
            FaceState(control.initial_ms, run_start_ms=control.initial_ms),
            FaceState(control.initial_ms, run_start_ms=control.initial_ms))
        self._state = ClockState.READY
        self._now_ms = 0
        self._to_move: Colour = WHITE
        self._running: Colour | None = None
        self._resume_side: Colour | None = None
        self._flag: _Flag | None = None
        self._correction: _Correction | None = None
        self._divided = False
        self._pending: list[ClockEvent] = []

    def copy(self) -> GameClock:
        """An independent copy of the clock as it is now: read it as the clock was at this point
        (the board's read side while a line waits for its fsync); operating one never changes
        the other. Constant time."""
        c = GameClock.__new__(GameClock)
        c.__dict__.update(
            self.__dict__,
            _faces=(replace(self._faces[0], odd_credits=dict(self._faces[0].odd_credits)),
                    replace(self._faces[1], odd_credits=dict(self._faces[1].odd_credits))),
            _pending=list(self._pending),
            _correction=None if self._correction is None else replace(self._correction))
        return c

    # -- properties -------------------------------------------------------------------------

    @property
    def control(self) -> TimeControl:
        """The time control."""
        return self._control

    @property
    def state(self) -> ClockState:
        """The state as of the last call (time-driven changes appear once told the time)."""
        return self._state

    @property
    def running(self) -> Colour | None:
        """Whose face runs (as of the last call), None when none does."""
        return self._running

    @property
    def to_move(self) -> Colour:
        """Who is on move: the press that completes a move passes it on."""
        return self._to_move

    @property
    def flag(self) -> FlagFell | BothFlagsFell | None:
        """The flag that fell (as of the last call), or None."""
        return self._flag

    def moves(self, side: Colour) -> int:
        """Moves ``side`` completed (COMP 4.3: visible at any time)."""
        return self._faces[check_side(side)].moves

    def consumed_seconds(self, side: Colour) -> float:
        """Seconds ``side``'s face has run in total (as of the last call), exact to the ms."""
        return self._faces[check_side(side)].consumed_ms / 1000

    def credited_seconds(self, side: Colour) -> float:
        """Seconds credited to ``side`` by presses (bonuses, next periods), exact to the ms."""
        return self._faces[check_side(side)].credited_ms / 1000

    # -- queries ----------------------------------------------------------------------------

    def read(self, t: float) -> ClockReading:
        """Both faces at ``t`` (not before the last time given): what the clock would show if
        told the time ``t``. Changes nothing, copies nothing."""
        ms = self._ms(t)
        side, stretch = self._project(ms)
        fell = stretch is not None and stretch.fell_ms is not None
        running = None if fell else self._running
        state = ClockState.FLAGGED if fell else self._state
        faces, flag, control = self._faces, self._flag, self._control
        return ClockReading(
            ms / 1000,
            face_reading(WHITE, faces[WHITE], stretch if side is WHITE else None, running, flag,
                         control),
            face_reading(BLACK, faces[BLACK], stretch if side is BLACK else None, running, flag,
                         control),
            running, self._to_move, state)

    def face(self, side: Colour, t: float) -> FaceReading:
        """``side``'s face at ``t``, as :meth:`read` gives it. Changes nothing, copies nothing."""
        who = check_side(side)
        ms = self._ms(t)
        running_side, stretch = self._project(ms)
        running = None if stretch is not None and stretch.fell_ms is not None else self._running
        return self._face_reading(who, running_side, stretch, running)

    def reading(self, t: float) -> tuple[float, float]:
        """(white, black) seconds shown at ``t``, floored to the tenth. Changes nothing."""
        now = self.read(t)
        return now.white.seconds, now.black.seconds

    def record(self, t: float) -> ClockRecord:
        """What the arbiter would write down at ``t`` (COMP 7.3.2). Changes nothing."""
        ms = self._ms(t)
        side, stretch = self._project(ms)
        return self._record(ms, side, stretch)

    # -- time-driven events -----------------------------------------------------------------

    def check_flag(self, t: float) -> FlagFell | BothFlagsFell | None:
        """Bring the clock to ``t`` and return the flag that has fallen by then, if any, with the
        exact time it fell (COMP 4.8, 5.9.4). Idempotent: asks again, answers again."""
        self._advance(self._ms(t))
        return self._flag

    def poll(self, t: float) -> tuple[ClockEvent, ...]:
        """Bring the clock to ``t`` and return the time-driven events (:class:`MosseLampoBegan`,
        :class:`FlagFell`, :class:`BothFlagsFell`) not returned by an earlier poll, in order:
        each exactly once, even if another call also returned it."""
        self._advance(self._ms(t))
        events, self._pending = tuple(self._pending), []
        return events

    # -- operations -------------------------------------------------------------------------

    def start(self, side_to_move: Colour, t: float,
              running: Colour | None = None) -> ClockStarted:
        """The arbiter starts the clock at ``t`` (COMP 4.4.2, 6.4): the face of ``running``
        (default: the player to move) runs, whether or not he is present (COMP 6.9, 6.10).
        Raises ``ClockError`` unless the clock is ready."""
        to_move = check_side(side_to_move)
        first = to_move if running is None else check_side(running)
        ms = self._ms(t)
        if self._state != ClockState.READY:
            raise ClockError(f"the clock was already started (it is {self._state})")
        self._now_ms = ms
        self._to_move = to_move
        self._state = ClockState.RUNNING
        self._start_run(first, ms)
        self._settle_zeros(ms)
        return ClockStarted(ms / 1000, to_move, first)

    def press(self, side: Colour, t: float, move_complete: bool = True, *,
              completed_at: float | None = None) -> PressResult:
        """``side`` presses his clock button at ``t``.

        - His face running and he on move with ``move_complete``: the move is counted, the
          press credits the Fischer bonus and, at the end of a period, the next period's time
          (COMP 4.1, 4.5, 5.9.3), and his opponent's face starts: :class:`ClockPressed`.
        - Not ``move_complete``: :class:`PressRefused` (COMP 4.4.5); nothing changes.
        - His face running but the opponent on move (a late player, COMP 6.9 a, 6.10 a): the
          faces swap, no move counted.
        - His face not running, clock stopped, or a flag already fallen: :class:`PressIgnored`.
        - His time ran out before ``t`` (or at ``t``: the display shows zero, COMP 4.8 b):
          :class:`FlagFell` (not obeyed).

        ``completed_at``: when the move was physically complete (piece let go), if earlier; in
        the mosse-lampo phase the move is in time when it was complete by zero, even if the
        button is pressed after (COMP 5.7, note). Raises ``ClockError`` if after ``t``.
        """
        who = check_side(side)
        ms = self._ms(t)
        flag_before = self._flag
        counting = (self._state == ClockState.RUNNING and self._running == who
                    and self._to_move == who and move_complete)
        if completed_at is not None and counting:
            done_ms = seconds_to_ms(completed_at)
            if done_ms > ms:
                raise ClockError(f"completed_at {completed_at!r} is after the press at {t!r}")
            self._advance(max(done_ms, self._now_ms))
            if self._flag is None:
                self._advance(ms, lampo_move_done=True)
        else:
            self._advance(ms)
        if self._flag is not None:
            if flag_before is None:
                return self._flag
            return PressIgnored(who, ms / 1000, "the flag has already fallen")
        if self._state == ClockState.CORRECTING:
            return PressIgnored(who, ms / 1000, "a correction is in progress (COMP 4.13)")
        if self._state != ClockState.RUNNING:
            return PressIgnored(who, ms / 1000, f"the clock is {self._state}")
        if self._running != who:
            return PressIgnored(who, ms / 1000, f"{who}'s face is not running")
        if self._to_move != who:
            # COMP 6.9 a: the late player may start his opponent's face at once.
            self._start_run(who.opponent, ms)
            return self._pressed(who, ms, counted=False, credit=0)
        if not move_complete:
            # COMP 4.4.5: never invert the faces before the move (and its transcription).
            return PressRefused(who, ms / 1000,
                                "the move is not complete: the clock may be pressed only after it")
        credit = self._count_move(who)
        self._to_move = who.opponent
        self._start_run(who.opponent, ms)
        return self._pressed(who, ms, counted=True, credit=credit)

    def stop_both(self, t: float, by: Colour | None = None) -> (
            ClockStopped | ResignedByStoppingClock | FlagFell | BothFlagsFell):
        """Both faces stop at ``t`` (COMP 3.6.1 b).

        ``by`` None: the arbiter interrupts (COMP 7.3.1, 4.9.1, 4.11.1): :class:`ClockStopped`
        with the record of COMP 7.3.2; :meth:`resume` restarts. A running correction ends there
        (its face runs again at resumption). ``by`` a player: stopping both faces during play is
        resignation (COMP 6.5): :class:`ResignedByStoppingClock`, and the clock is finished.
        If a flag fell before ``t``, that flag is returned instead. Raises ``ClockError`` when the
        clock is not running.
        """
        who = None if by is None else check_side(by)
        ms = self._ms(t)
        self._advance(ms)
        if self._flag is not None:
            return self._flag
        if self._state not in (ClockState.RUNNING, ClockState.CORRECTING):
            raise ClockError(f"the clock is not running (it is {self._state})")
        then_running = self._running
        if self._correction is not None:
            then_running = self._correction.then_running or self._running
            self._correction = None
        self._running = None
        if who is not None:
            self._state = ClockState.FINISHED
            return ResignedByStoppingClock(who, ms / 1000)
        self._state = ClockState.STOPPED
        self._resume_side = then_running
        return ClockStopped(ms / 1000, self._record(ms, None, None))

    def resume(self, t: float, sealed_move: bool = False) -> ClockResumed:
        """The arbiter restarts a stopped clock at ``t``: the face that ran before runs again
        (the player to move, if none ran). ``sealed_move``: the sealed move of the player to move
        is played first and counted as if he had pressed (credits included), and his opponent's
        face starts (COMP 7.4.3). Raises ``ClockError`` unless the clock is stopped."""
        ms = self._ms(t)
        self._advance(ms)
        if self._state != ClockState.STOPPED:
            raise ClockError(f"only a stopped clock can be resumed (it is {self._state})")
        self._state = ClockState.RUNNING
        if sealed_move:
            mover = self._to_move
            self._count_move(mover)
            self._to_move = mover.opponent
            side = self._to_move
        else:
            side = self._resume_side or self._to_move
        self._start_run(side, ms)
        self._settle_zeros(ms)
        return ClockResumed(ms / 1000, side, sealed_move)

    def begin_correction(self, offender: Colour, t: float,
                         retract_last_move: bool = False) -> (
            CorrectionBegan | FlagFell | BothFlagsFell):
        """From ``t`` the time spent correcting an irregularity is charged to ``offender``
        (COMP 4.13, "whatever the consequence"): his face runs, without counting a move or
        crediting anything, until :meth:`end_correction`; in the mosse-lampo phase it is timed
        like a move, from a fresh per-move time. ``retract_last_move``: the irregular move had
        been completed by a press: it is un-counted, what that press credited is taken back, and
        the offender is on move again (he must play another move); only the last move of the
        game can be retracted (IT 8.3). Allowed while the clock runs or is stopped; returns the
        flag instead if one fell before ``t``. Raises ``ClockError`` in another state, or when
        the offender did not make the last completed move.
        """
        who = check_side(offender)
        ms = self._ms(t)
        self._advance(ms)
        if self._flag is not None:
            return self._flag
        if self._state not in (ClockState.RUNNING, ClockState.STOPPED):
            raise ClockError(f"no correction can begin now (the clock is {self._state})")
        face = self._faces[who]
        if retract_last_move and (face.moves == 0 or self._to_move == who):
            # IT 8.3, INT 5.7: once the opponent has moved, the irregular move stands.
            raise ClockError(f"{who} did not make the last completed move: nothing to retract")
        then_running = self._running if self._state == ClockState.RUNNING else None
        if retract_last_move:
            odd = face.odd_credits.pop(face.moves, None)
            credit = self._control.credit_ms(face.moves) if odd is None else odd
            face.moves -= 1
            face.credited_ms -= credit
            face.remaining_ms = max(0, face.remaining_ms - credit)
            self._to_move = who
            if then_running is not None:
                then_running = who
        elif self._state == ClockState.STOPPED:
            then_running = None
        self._correction = _Correction(who, ms, face.consumed_ms, then_running)
        if self._state == ClockState.STOPPED:
            self._resume_side = self._to_move if retract_last_move else self._resume_side
        self._state = ClockState.CORRECTING
        self._start_run(who, ms)
        self._settle_zeros(ms)
        if self._flag is not None:
            return self._flag
        return CorrectionBegan(who, ms / 1000, retract_last_move)

    def end_correction(self, t: float) -> CorrectionEnded | FlagFell | BothFlagsFell:
        """The position is restored at ``t``: the face that ran before the correction runs again
        (the offender's, if his move was retracted); a clock stopped before stays stopped.
        Returns the flag instead if the offender's time ran out during the correction. Raises
        ``ClockError`` when no correction is in progress."""
        ms = self._ms(t)
        self._advance(ms)
        correction = self._correction
        if self._flag is not None:
            self._correction = None
            return self._flag
        if self._state != ClockState.CORRECTING or correction is None:
            raise ClockError(f"no correction is in progress (the clock is {self._state})")
        self._correction = None
        charged = self._faces[correction.offender].consumed_ms - correction.consumed_before
        if correction.then_running is None:
            self._state = ClockState.STOPPED
            self._running = None
        else:
            self._state = ClockState.RUNNING
            self._start_run(correction.then_running, ms)
        return CorrectionEnded(correction.offender, ms / 1000, charged / 1000,
                               correction.then_running)

    def divide_elapsed(self, t: float, still_absent: Colour) -> ElapsedDivided:
        """Both players were late (COMP 6.10): at the first arrival, at ``t``, the time elapsed
        since the start is divided equally between the two faces (an odd millisecond stays
        with the face that ran) and the face of ``still_absent`` is started. Raises
        ``ClockError`` unless the clock runs, no move was made and no division was made yet."""
        absent = check_side(still_absent)
        ms = self._ms(t)
        self._advance(ms)
        if self._state != ClockState.RUNNING or self._running is None:
            raise ClockError(f"the elapsed time can be divided only while the clock runs "
                             f"(it is {self._state})")
        if self._divided or any(face.moves for face in self._faces):
            raise ClockError("the elapsed time is divided once, before any move (COMP 6.10)")
        ran, other = self._faces[self._running], self._faces[self._running.opponent]
        half = ran.consumed_ms // 2
        ran.remaining_ms += half
        ran.consumed_ms -= half
        other.remaining_ms = max(0, other.remaining_ms - half)
        other.consumed_ms += half
        self._divided = True
        self._start_run(absent, ms)
        self._settle_zeros(ms)
        return ElapsedDivided(ms / 1000, half / 1000, absent)

    def set_remaining(self, side: Colour, seconds: float, t: float) -> TimeAdjusted:
        """The arbiter sets ``side``'s time to ``seconds`` at ``t`` (a replaced clock, COMP 4.7;
        restored times, COMP 7.4.2). Time given back ends a mosse-lampo phase. A running clock
        whose face is set to zero behaves as if it had reached zero. Raises ``ClockError`` once a
        flag fell or the clock is finished."""
        who = check_side(side)
        value = seconds_to_ms(seconds)
        ms = self._ms(t)
        self._advance(ms)
        if self._state in (ClockState.FLAGGED, ClockState.FINISHED):
            raise ClockError(f"the clock is {self._state}: its times are final")
        face = self._faces[who]
        before = face.shown_ms
        face.remaining_ms = value
        if value > 0:
            face.lampo_ms = None
        face.run += 1
        face.run_start_ms = face.shown_ms
        if self._running is not None:
            self._settle_zeros(ms)
        return TimeAdjusted(who, ms / 1000, before / 1000, face.shown_ms / 1000)

    def charge(self, side: Colour, seconds: float, t: float,
               keep_at_least: float = 0.0) -> TimeAdjusted:
        """Take ``seconds`` from ``side``'s time at ``t`` (reconstruction or verification time,
        COMP 4.9–4.11), never leaving less than ``keep_at_least`` seconds (nor taking any when he
        has less already, e.g. IT 9.3 b: "never below 3 minutes"). Raises ``ClockError`` as
        :meth:`set_remaining`."""
        who = check_side(side)
        amount = seconds_to_ms(seconds)
        floor = seconds_to_ms(keep_at_least)
        self._advance(self._ms(t))
        remaining = self._faces[who].remaining_ms
        target = max(min(remaining, floor), remaining - amount)
        return self.set_remaining(who, target / 1000, t)

    def restore(self, record: ClockRecord, t: float) -> None:
        """Put back the times, move counts and turn of ``record`` (COMP 7.4.2; a replacement
        clock, COMP 4.7) into a clock that is ready or stopped; it is stopped afterwards, and
        :meth:`resume` restarts the face that ran. Raises ``ClockError`` in another state."""
        if not isinstance(record, ClockRecord):
            raise ClockError(f"restore needs a ClockRecord, not {record!r}")
        ms = self._ms(t)
        self._advance(ms)
        if self._state not in (ClockState.READY, ClockState.STOPPED):
            raise ClockError(f"only a ready or stopped clock can be restored (it is {self._state})")
        for side, value, moves, lampo in (
                (WHITE, record.white_ms, record.white_moves, record.white_in_lampo),
                (BLACK, record.black_ms, record.black_moves, record.black_in_lampo)):
            if value < 0 or moves < 0:
                raise ClockError(f"a record cannot hold negative values: {record!r}")
            face = self._faces[side]
            face.remaining_ms = 0 if lampo else value
            face.lampo_ms = self._lampo_ms() if lampo and self._control.lampo else None
            face.moves = moves
            face.odd_credits = {}
            face.credited_ms = credits_total_ms(self._control, moves)
            face.run += 1
            face.run_start_ms = face.shown_ms
        self._to_move = check_side(record.to_move)
        self._resume_side = None if record.running is None else check_side(record.running)
        self._state = ClockState.STOPPED
        self._running = None

    # -- internals --------------------------------------------------------------------------

    def _ms(self, t: float) -> int:
        try:
            ms = seconds_to_ms(t)
        except ValueError as error:
            raise ClockError(f"bad time {t!r}: {error}") from None
        if ms < self._now_ms:
            raise ClockError(f"time went backwards: {t!r} s is before {self._now_ms / 1000} s")
        return ms

    def _lampo_ms(self) -> int:
        return 0 if self._control.lampo is None else self._control.lampo * 1000

    def _start_run(self, side: Colour, ms: int) -> None:
        """``side``'s face starts a new run at ``ms``: the other one stops (COMP 3.6.1 c, d)."""
        previous = self._running
        if previous is not None and previous != side and self._faces[previous].lampo_ms is not None:
            self._faces[previous].lampo_ms = self._lampo_ms()  # ready for his next lampo move
        self._running = side
        face = self._faces[side]
        if self._control.lampo is not None and face.remaining_ms == 0:
            if face.lampo_ms is None:
                self._pending.append(MosseLampoBegan(side, ms / 1000, float(self._control.lampo)))
            # COMP 5.6: the arbiter times each move afresh.
            face.lampo_ms = self._lampo_ms()
        face.run += 1
        face.run_start_ms = face.shown_ms

    def _project(self, target_ms: int,
                 lampo_move_done: bool = False) -> tuple[Colour | None, Stretch | None]:
        """The running face and what it becomes by ``target_ms`` (None: no face runs, or no time
        passes). Changes nothing."""
        side = self._running
        if (side is None or target_ms <= self._now_ms
                or self._state not in (ClockState.RUNNING, ClockState.CORRECTING)):
            return None, None
        return side, run_face(self._faces[side], self._now_ms, target_ms, self._control.lampo,
                              lampo_move_done)

    def _advance(self, target_ms: int, lampo_move_done: bool = False) -> None:
        """Let the running face run from the last time to ``target_ms``, finding the instants it
        reached zero. ``lampo_move_done``: the running player's move was complete already, so a
        mosse-lampo zero in this stretch is no loss (COMP 5.7, note)."""
        if target_ms < self._now_ms:
            raise ClockError(f"time went backwards: {target_ms / 1000} s is before "
                             f"{self._now_ms / 1000} s")
        side, stretch = self._project(target_ms, lampo_move_done)
        if side is not None and stretch is not None:
            self._faces[side].take(stretch)
            if stretch.lampo_began_ms is not None and self._control.lampo is not None:
                self._pending.append(MosseLampoBegan(side, stretch.lampo_began_ms / 1000,
                                                     float(self._control.lampo)))
            if stretch.fell_ms is not None:
                self._fall(side, stretch.fell_ms, stretch.fell_in_lampo)
        self._now_ms = target_ms

    def _fall(self, side: Colour, ms: int, in_lampo: bool) -> None:
        """COMP 4.8, 5.9.4: the first face at zero loses and the clock stops."""
        flag = FlagFell(side, ms / 1000, in_lampo)
        self._flag = flag
        self._pending.append(flag)
        self._state = ClockState.FLAGGED
        self._running = None
        self._correction = None

    def _settle_zeros(self, ms: int) -> None:
        """Faces put at zero by the arbiter (restored, charged, divided): with mosse lampo they
        enter that phase when they run; otherwise the running face at zero has lost, and both at
        zero with no telling which was first is a draw (COMP 5.9.4)."""
        if self._flag is not None or self._control.lampo is not None or self._running is None:
            return
        at_zero = [side for side in COLOURS if self._faces[side].remaining_ms == 0]
        if len(at_zero) == 2:
            both = BothFlagsFell(ms / 1000)
            self._flag = both
            self._pending.append(both)
            self._state = ClockState.FLAGGED
            self._running = None
            self._correction = None
        elif at_zero:
            self._fall(at_zero[0], ms, in_lampo=False)

    def _count_move(self, side: Colour) -> int:
        """Count ``side``'s move and credit what its press earns (COMP 4.1, 5.9.3)."""
        face = self._faces[side]
        face.moves += 1
        normal = self._control.credit_ms(face.moves)
        credit = 0 if face.lampo_ms is not None else normal  # COMP 5.6: lampo moves earn nothing
        if credit != normal:
            face.odd_credits[face.moves] = credit
        face.remaining_ms += credit
        face.credited_ms += credit
        return credit

    def _pressed(self, side: Colour, ms: int, counted: bool, credit: int) -> ClockPressed:
        return ClockPressed(side, ms / 1000, counted, self._faces[side].moves, credit / 1000,
                            floor_tenths(self._faces[WHITE].shown_ms),
                            floor_tenths(self._faces[BLACK].shown_ms))

    def _face_reading(self, side: Colour, running_side: Colour | None, stretch: Stretch | None,
                      running: Colour | None) -> FaceReading:
        """``side``'s face, as ``stretch`` leaves it when it is the running one."""
        return face_reading(side, self._faces[side], stretch if running_side is side else None,
                            running, self._flag, self._control)

    def _record(self, ms: int, side: Colour | None, stretch: Stretch | None) -> ClockRecord:
        """The record at ``ms``, the running ``side``'s face as ``stretch`` leaves it."""
        values: list[tuple[int, int, bool]] = []
        for colour in COLOURS:
            face = self._faces[colour]
            if stretch is not None and colour is side:
                values.append((stretch.remaining_ms, face.moves, stretch.lampo_ms is not None))
            else:
                values.append((face.remaining_ms, face.moves, face.lampo_ms is not None))
        fell = stretch is not None and stretch.fell_ms is not None
        if fell:
            running = None
        elif self._state == ClockState.STOPPED:
            running = self._resume_side
        else:
            running = self._running
        (white_ms, white_moves, white_lampo), (black_ms, black_moves, black_lampo) = values
        return ClockRecord(ms / 1000, white_ms, black_ms, white_moves, black_moves,
                           self._to_move, running, white_lampo, black_lampo)

    def __repr__(self) -> str:
        white, black = self._faces[WHITE], self._faces[BLACK]
        return (f"<GameClock {self._control} {self._state} at {self._now_ms / 1000} s: "
                f"white {white.shown_ms / 1000} s ({white.moves} moves), "
                f"black {black.shown_ms / 1000} s ({black.moves} moves), running {self._running}>")
