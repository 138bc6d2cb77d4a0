"""The over-the-board arbiter: physical events in, typed decisions out.

A pure state machine (no I/O, no threads, no clock reading: every event carries its time ``t``).
Feed it the events of ``engine.events`` with :meth:`Arbiter.feed`; tell it that time passed with
:meth:`Arbiter.advance` (games without clock commit a move after ``settle`` quiet seconds; a flag
falls; the mosse-lampo countdown goes on); :meth:`Arbiter.next_deadline` says when that will be.
Both return the decisions of ``engine.decisions`` (moves committed, flags raised and decided, the
game ended, squares to put right, clock events), each citing its article. Read-only views: the
:class:`engine.game.Game` (the official record), the flags, the ``GameClock``, the squares to fix.

Where each rule lives: the :class:`Arbiter` composes three collaborators and handles the events
(lifts and places: IT 3.7-3.11, 5.10-5.13; buttons: COMP 4.5, 6.15, IT 8.2, 9.3, 10.2; the
arbiter's actions and snapshots: IT 7.1-7.8; time: COMP 4.8, 5.7). ``engine.arbiter_memory`` holds
what it knows (the record, the flags, the pending irregularity, the clock's operation, COMP 4.13)
and gives the decisions out; ``engine.arbiter_judge`` names what the board shows and does what
follows (committing, IT 8.1-8.4 irregularities and their decision, IT 7.8), handed that memory;
``engine.tracking`` follows the pieces of a turn; ``engine.articles`` gives every code.

How a move is recognised (STYLE.md, after picochess): the arbiter follows which piece stands where
(each piece known by its *origin*, the square it stood on when the turn began) and, at the moment
the move is complete, compares the occupancy with the occupancy after each legal move. The move is
complete at the clock press (COMP 4.5); without a clock (docs/trace-format.md ``"clock": false``)
when the board shows a complete legal move and the opponent lifts a piece or ``settle`` seconds
pass with no event.
Any natural order of lifts and places is accepted: the capturing piece shown square by square
(IT 5.10) or carried straight to its end, brushed neighbours (a lift/place pair on a square passed
over), captured pieces removed in the direct or reverse order of ANY legal order of the capture
(IT 5.12, INT 4.11); the capture ends when the last one is off (IT 5.13).

Choices where the regulations leave room (also in README.md):

* A presence sensor sees a *lift*, not a touch: touch-move (IT 3.7, 3.8) is enforced on the first
  playable piece of the player on move that is lifted. A lift made while another piece is in the
  hand and put straight back is a brush, not a touch. After ``accomodo`` (IT 3.9) a piece lifted
  and put back on its own square is an adjustment.
* A piece put down and taken up again before the clock press is still moving: the sensor cannot
  see the hand let go, so with a clock the square the piece stands on at the press counts (COMP 4.5
  makes the press the end of the move); touch-move still binds the first piece lifted.
* A capture carried straight to its end is not flagged (IT 5.10): a touch-down on a jump square and
  a brush look the same to the sensors, and the end square with the pieces removed identifies the
  capture; an ambiguous one is decided by the pieces removed, never guessed.
* The sensors do not say whose hand moved: a lift of a piece of the side not on move that comes
  straight back is IT 3.11 (a notice on that side); a piece of that side moved to another square
  is IT 8.1.1 when that side presses the clock, IT 8.1.5 (by the player on move) otherwise.
* With a clock, a move standing unpressed when the opponent lifts one of his pieces is a move
  (COMP 4.6: a forgotten press; nothing reminds the player, his face runs on). After a capture
  the lift alone does not say it: the capturing player's own hand may be taking off a piece too
  many (IT 8.1.12); the capture is a move when that piece is put down as a legal move of the
  opponent's in the position after it (judged at the place), else judged at the press.
* After a corrected irregularity the piece the offender touched first (man or king) stays bound
  if it has a legal move (IT 3.7, 3.8; docs/arbiter.md).
* On a board that sees occupancy only, the crowning stack (a second piece on an occupied square
  changes no sensor) is not seen, so IT 8.1.16/8.1.17 (EN 8.1.15/8.1.16) cannot be detected; a
  man ending on the far row is a king by rule (IT 4.5: the game is transcribed). A board that
  knows which piece is where says so in its events (``engine.identity``, issue 40): a king moved
  uncrowned, the wrong man crowned, crowning late (IT 4.4), a king uncrowned, a wrong piece at
  set-up or when the position was put right. A touch without a lift is not seen (IT 3.7).
"""

from __future__ import annotations

from typing import Iterable

from engine.arbiter_judge import Judge, judge, square_label
from engine.arbiter_memory import ArbiterMemory
from engine.board import Board, Move
from engine.clock import BothFlagsFell, ClockState, FlagFell, GameClock
from engine.clock_display import LAMPO_COUNTDOWN
from engine.colour import Colour
from engine.decisions import Decision, Flag
from engine.events import (ArbiterActed, ButtonPressed, DaemonRestarted, Event, GameStarted,
                           PieceChanged, PieceLifted, PiecePlaced, SensorsFailed, SensorsRecovered,
                           SnapshotTaken, TraceEnded)
from engine.game import Game
from engine.i18n import N_
from engine.identity import wrong_pieces
from engine.squares import square_mirror
from engine.tracking import MaybeBrush, TurnTracker, UnpressedCapture
from engine.variants import Variant

__all__ = ["Arbiter", "Flag"]

#: Verdicts on a capture shown with its captured pieces not all off yet (IT 8.1.10, 8.1.11,
#: INT 5.4.13): without a clock these wait, the removal may still come.
_REMOVAL_UNDER_WAY = frozenset({"not_removed_simple", "fewer_removed", "removal_stopped"})


class Arbiter:
    """Arbitrates one game from its physical events (docs/trace-format.md).

    ``start``: the trace's start line. Raises the engine's errors for a bad variant or FEN (the
    trace reader has checked them already). Not thread-safe: feed it from one thread.

    Out: :meth:`feed` and :meth:`advance` return the decisions (``engine.decisions``) each
    event or the passing of time brought, in order. Read-only views: :attr:`game` (the record),
    :attr:`flags` (current values), :attr:`clock` (the ``GameClock`` or None), :attr:`board`,
    :attr:`sensed`, :attr:`pending`, :attr:`squares_to_fix`, :attr:`tracking` (the pieces of the
    turn), :attr:`variant`, :attr:`start`; :meth:`next_deadline` says when time alone will change
    something.

    Composed of an :class:`~engine.arbiter_memory.ArbiterMemory` (what it knows), a
    :class:`~engine.arbiter_judge.Judge` handed that memory (what follows from what the board
    shows) and, through the memory, the :class:`~engine.tracking.TurnTracker` of the turn and the
    :class:`~engine.arbiter_memory.Timekeeper`; this class handles the events.
    """

    def __init__(self, start: GameStarted) -> None:
        self._memory = ArbiterMemory(start)
        self._judge = Judge(self._memory)
        # the clock's operator and the set-once facts read on every event, held at hand
        self._keeper = self._memory.timekeeper
        self._clock = self._keeper.clock
        self._clock_mode = start.clock
        # COMP 4.4.2: with clock_start "arbiter" only the arbiter's start_clock starts it
        self._waits_for_arbiter = start.clock_start == "arbiter"
        self._settle = start.settle
        self._game = self._memory.game
        #: a piece of the opponent lifted off a capture standing unpressed (COMP 4.6 or IT
        #: 8.1.12), judged by the event right after the lift only
        self._unpressed: UnpressedCapture | None = None

    # ------------------------------------------------------------------ read-only views

    @property
    def start(self) -> GameStarted:
        """The start line the game was begun from."""
        return self._memory.start

    @property
    def variant(self) -> Variant:
        return self._memory.variant

    @property
    def game(self) -> Game:
        """The official record (read it; the arbiter alone changes it)."""
        return self._memory.game

    @property
    def clock(self) -> GameClock | None:
        """The game clock, None when the start line has no time control (the clock button still
        completes moves, COMP 4.5). Read it freely; operate it only through the arbiter's events."""
        return self._clock

    @property
    def flags(self) -> list[Flag]:
        """Every flag so far, each in its current status (a copy of the list)."""
        return self._memory.flags

    @property
    def board(self) -> Board:
        """The official position (the game's board)."""
        return self._memory.board

    @property
    def sensed(self) -> frozenset[str]:
        """The occupancy the sensors report, as algebraic names."""
        return frozenset(self._memory.sensed)

    @property
    def pending(self) -> Flag | None:
        """The irregularity waiting for the opponent's decision, if any (the first flag of a
        move that is several irregularities, IT 8.1.3 before the rest: one decision covers
        them all, IT 8.4)."""
        p = self._memory.pending
        return None if p is None else self._memory.flag(p.flag_ids[0])

    @property
    def settled_plies(self) -> int:
        """Plies of the record nothing can change any more, which a reader streaming it may write
        out (``Game.forget``): all but the last (a /FEN/ may still be written on it), and none
        from the move before an irregularity waiting for the decision (IT 8.4 takes the record
        back to its mark)."""
        game = self._memory.game
        settled = game.ply - 1
        p = self._memory.pending
        if p is not None:
            settled = min(settled, p.mark.moves - 1)
        return max(settled, 0)

    @property
    def squares_to_fix(self) -> list[str]:
        """Algebraic names of the squares that must change for the board to show the position it
        must show: during a correction (IT 8.4) the position before the irregular move, after a
        disturbance (IT 7.8) or with a piece on a light square (IT 7.5) the last position. Empty
        when nothing is to be put right."""
        return self._memory.squares_to_fix()

    @property
    def tracking(self) -> TurnTracker:
        """The pieces of the turn (``engine.tracking``): what stands where, what is in the hand.
        Read it; the arbiter alone changes it."""
        return self._memory.tracker

    # ------------------------------------------------------------------ events in, decisions out

    def feed(self, event: Event) -> list[Decision]:
        """Process one event (its ``t`` never earlier than the last); returns its decisions."""
        s = self._memory
        unpressed, self._unpressed = self._unpressed, None
        if isinstance(event, DaemonRestarted):
            return self._on_restart(event)
        self._fire_timers(event.t)
        s.now = max(s.now, event.t)
        if isinstance(event, ButtonPressed) and event.name == "clock":
            # COMP 5.7: a move let go by zero is in time though pressed after: the press itself
            # tells the clock when the move was complete (completed_at)
            until = min(event.t, max(s.tracker.last_change, self._keeper.last_t))
        else:
            until = self._held(event.t)
        self._keeper.poll(until)
        if self._clock_mode and not self._keeper.started and not self._waits_for_arbiter \
                and not (isinstance(event, ArbiterActed) and event.action == "start_clock"):
            # COMP 4.4.2: the arbiter starts the clock; a trace that does not say when starts
            # it at its first event
            self._keeper.start(s.mover(), event.t)
        # COMP 4.8: what time alone did before the event comes first. A flag that fell before a
        # button ends the game before the button is looked at (a ``correct`` or a
        # ``draw_accept`` after the decider's flag fell decides nothing): the order the daemon
        # keeps when its deadline passes before the event (``advance``), kept here whether or
        # not ``advance`` was called, so that a journal replays as the board played it. (A
        # press polled the clock only to the move's let-go; read as ``advance`` reads it, a
        # flag past zero falls first unless the move shown was let go by zero, COMP 5.7.)
        self._check_time(self._held(event.t))
        # COMP 4.8, 6.16: a game over before the event (a flag fallen by its ``t`` included)
        # takes no physical event into the game: the board journals none once the result is in
        # (its pieces are the next game's set-up), so a journal's later lines rule nothing
        over = self._game.outcome is not None
        pieces = s.pieces  # issue 40: told first, so that a move judged now sees the piece
        fixing = ("correction" if s.correcting is not None
                  else "disturbed" if s.disturbed is not None else None)
        if isinstance(event, PieceLifted):
            pieces.lifted(event.square)
            self._on_lift(event.t, event.square)
        elif isinstance(event, PiecePlaced):
            pieces.placed(event.square, event.piece, event.reading)
            if unpressed is not None:
                self._reply_to_capture(unpressed, event.square)
            self._on_place(event.t, event.square)
        elif isinstance(event, PieceChanged):
            self._on_piece(event)
        elif isinstance(event, ButtonPressed):
            self._on_button(event)
        elif isinstance(event, ArbiterActed):
            self._on_arbiter(event)
        elif isinstance(event, SnapshotTaken):
            pieces.snapshot(event.occupied, event.pieces)
            self._on_snapshot(event)
        elif isinstance(event, TraceEnded):
            self._fire_timers(event.t, force=True)
        elif isinstance(event, SensorsFailed):
            s.raise_flag(event.t, "sensor_fault", None, "noted",
                         event.message or N_("sensors stopped answering: {squares}").format(
                             squares=" ".join(event.squares)))
        elif isinstance(event, SensorsRecovered):
            s.raise_flag(event.t, "sensor_fault_cleared", None, "noted",
                         N_("sensors answer again: {squares}").format(squares=" ".join(event.squares)))
        if pieces.knows and not over:
            self._check_pieces(event.t, "setup" if isinstance(event, SnapshotTaken) else fixing)
        self._check_time(self._held(event.t))
        self._keeper.countdown(event.t)
        return self._flush(event.t)

    def _flush(self, t: float) -> list[Decision]:
        """The call's decisions (``ArbiterMemory.flush``), an irregularity still waiting for its
        decision when the game ended lapsed first (``Judge.lapse``)."""
        self._judge.lapse(t)
        return self._memory.flush(t)

    def feed_all(self, events: Iterable[Event]) -> list[Decision]:
        """Feed every event; returns all their decisions."""
        out: list[Decision] = []
        for e in events:
            out.extend(self.feed(e))
        return out

    def advance(self, t: float) -> list[Decision]:
        """Time has reached ``t`` with no event: the settle timer of a game without clock, a flag
        falling, a step of the mosse-lampo countdown. Returns the decisions."""
        s = self._memory
        self._fire_timers(t)
        s.now = max(s.now, t)
        self._check_time(self._held(t))
        self._keeper.countdown(t)
        return self._flush(t)

    def next_deadline(self) -> float | None:
        """The earliest time at which time alone changes something (:meth:`advance` then returns
        a decision): the settle timer of a game without clock (docs/trace-format.md), the running face
        reaching zero (COMP 4.8; or mosse lampo beginning, COMP 5.6), the next word of the
        mosse-lampo countdown (COMP 5.7). None when nothing will happen until an event."""
        s = self._memory
        times: list[float] = []
        if self._timer_armed():
            times.append(s.tracker.last_change + self._settle)
        c = self._clock
        if (c is not None and c.flag is None and c.running is not None
                and c.state in (ClockState.RUNNING, ClockState.CORRECTING)):
            face = c.face(c.running, self._keeper.last_t)
            zero = self._keeper.last_t + face.ms / 1000
            if not (face.in_lampo and self._held(zero) < zero):  # COMP 5.7: let go by zero
                times.append(zero)
            if face.in_lampo:
                for seconds, _ in LAMPO_COUNTDOWN:
                    if seconds and face.ms > seconds * 1000:
                        times.append(self._keeper.last_t + (face.ms - seconds * 1000) / 1000)
        return min(times) if times else None

    # ------------------------------------------------------------------ restart and clock

    def _on_restart(self, e: DaemonRestarted) -> list[Decision]:
        """docs/trace-format.md ``restart``: the board was away (``down`` s). COMP 7.3-7.4: the clocks stand
        stopped with the readings of the last line before it, until the arbiter's
        ``start_clock``; nothing that time would have done while away is done (no settle
        commit, no flag fall: the players were not playing), except that a move the board
        showed complete without clock is committed (IT 3.5). The snapshot that follows is
        checked like any other."""
        s = self._memory
        before = s.now
        self._keeper.stop(before)
        if (not self._clock_mode and s.correcting is None and s.pending is None
                and s.tracker.touches and frozenset(s.sensed) in s.tracker.after):
            # IT 3.5: the move on the board was complete when the piece was let go; the settle
            # timer that would have said so ran out while the board was away.
            self._judge.complete(s.tracker.last_change, None)
        away = N_("unknown time") if e.down is None else f"{e.down:g} s"
        s.raise_flag(e.t, "restart", None, "noted",
                     N_("the board restarted after {away} away; clocks stopped until the arbiter "
                        "restarts them").format(away=away))
        s.now = max(s.now, e.t)
        if s.tracker.touches:
            s.tracker.last_change = max(s.tracker.last_change, e.t)  # no settle over the gap
        return self._flush(e.t)

    def _held(self, t: float) -> float:
        """How far the clock may be read at ``t``. COMP 5.7: in mosse lampo the piece must be let
        go by zero; a move the board shows complete is in time though the clock is pressed
        after, so while it is shown the clock is read only up to the moment it was let go (its
        flag falls then only if that moment came after zero)."""
        c = self._clock
        if c is None or not self._clock_mode or c.running is None or c.control.lampo is None:
            return t
        s = self._memory
        if Colour.parse(c.running) != s.mover():
            return t  # the face running is the forgetful player's (COMP 4.6), not the mover's
        if s.pending is not None or s.correcting is not None or not s.tracker.touches:
            return t
        if not c.face(c.running, self._keeper.last_t).in_lampo:
            return t
        if frozenset(s.sensed) not in s.tracker.after:
            return t
        return min(t, max(s.tracker.last_change, self._keeper.last_t))

    def _check_time(self, t: float) -> None:
        """COMP 4.8: a flag fell; COMP 5.9.4: both did, no telling which first."""
        self._keeper.poll(t)
        c = self._clock
        if c is None or self._game.outcome is not None or not self._clock_mode:
            return
        fell = c.flag
        if isinstance(fell, BothFlagsFell):
            self._game.adjudicate(self._game.result_for(None), "both flags fell (COMP 5.9.4)")
        elif isinstance(fell, FlagFell):
            self._game.lose_on_time(Colour.parse(fell.side), clock=self._keeper.reading(t))

    # ------------------------------------------------------------------ time

    def _timer_armed(self) -> bool:
        """No clock: a move shown (or a piece put down) waits for ``settle`` quiet seconds."""
        if self._clock_mode or self._game.outcome is not None:
            return False
        s = self._memory
        if s.correcting is not None or s.pending is not None or not s.tracker.touches:
            return False
        last = s.tracker.last
        if frozenset(s.sensed) in s.tracker.after:
            return True
        return last is not None and not last.is_lift and self._awaited_capture() is None

    def _awaited_capture(self) -> Move | None:
        """The capturing piece stands on its end square and some captured pieces are still on
        the board: the capture is not complete until the last is off (IT 5.13, INT 4.12), however
        slowly they come off; nothing is judged yet (no clock: the move is not complete)."""
        s = self._memory
        if s.light_pieces():
            return None
        j = judge(s.tracker.ref, s.tracker.on_board(), None, None)
        return j.move if j.key in _REMOVAL_UNDER_WAY else None

    def _fire_timers(self, t: float, force: bool = False) -> None:
        """No clock: commit the move on the board after ``settle`` quiet seconds (docs/trace-format.md)."""
        if self._clock_mode or self._game.outcome is not None:
            return
        s = self._memory
        if s.correcting is not None or s.pending is not None or not s.tracker.touches:
            return
        lc = s.tracker.last_change
        if not force and t - lc < self._settle and t < lc + self._settle:
            return
        if s.tracker.maybe_brush is not None:
            self._settle_brush(t, None)
        last = s.tracker.last
        if frozenset(s.sensed) in s.tracker.after:
            self._judge.complete(s.tracker.last_change, None)
        elif force or (last is not None and not last.is_lift
                       and self._awaited_capture() is None):
            self._judge.complete(s.tracker.last_change, None)

    def _commit_shown(self, t: float) -> None:
        """No clock: a move is made when the piece is let go (IT 3.5). The game ending now
        (resignation, draw agreed, adjudication) keeps the complete legal move the board shows,
        before its settle time is up."""
        s = self._memory
        if (not self._clock_mode and s.pending is None and s.correcting is None
                and s.tracker.touches and frozenset(s.sensed) in s.tracker.after):
            if s.tracker.maybe_brush is not None:
                self._settle_brush(t, None)
            self._judge.complete(s.tracker.last_change, None)

    def _opponent_moves_on(self, origin: int | None) -> bool:
        """No clock: the piece lifted at ``origin`` is no captured piece of the capture whose
        removal is under way: the opponent moves on (IT 8.3)."""
        s = self._memory
        awaited = self._awaited_capture()
        if awaited is None:
            return False
        # any capture with these ends may be the one under way (EN 6.6: two ways to 26)
        victims = {c for m in s.tracker.after.values()
                   if m.from_square == awaited.from_square and m.to_square == awaited.to_square
                   for c in m.captures}
        return origin not in victims

    # ------------------------------------------------------------------ lifts and places

    def _on_lift(self, t: float, name: str) -> None:
        s = self._memory
        if self._game.outcome is not None:
            self._raw_lift(t, name)
            return
        if name not in s.sensed:
            return  # a sensor opening on an empty square: noise
        self._settle_brush(t, None)
        origin = s.tracker.phys.get(name)
        piece = s.tracker.ref.piece_at(origin) if origin is not None else None
        c = s.mover()
        # No clock: the opponent lifting a piece commits a complete move (docs/trace-format.md); a
        # capture whose pieces are still coming off is judged then (IT 8.1.10, 8.1.11: he moves on),
        # unless the piece lifted is one of them (the removal going on). With a clock the same when
        # the player forgot to press (COMP 4.6): the move standing is a move, nothing reminds him,
        # his face runs on. After a capture the sensors do not say whose hand it is: the player's
        # own may be taking off one piece too many (IT 8.1.12); judged when the piece is put down
        # (``_reply_to_capture``).
        shown = s.tracker.after.get(frozenset(s.sensed)) if piece is not None else None
        opponent_lifts = (piece is not None and piece.color != c
                          and s.correcting is None and s.pending is None)
        if opponent_lifts and (shown is not None and not (self._clock_mode and shown.is_capture)
                               or not self._clock_mode and self._opponent_moves_on(origin)):
            self._judge.complete(s.tracker.last_change, None)
            origin = s.tracker.phys.get(name)
            piece = s.tracker.ref.piece_at(origin) if origin is not None else None
        elif opponent_lifts and shown is not None and origin is not None:
            self._unpressed = UnpressedCapture(name, origin, t, s.tracker.last_change, shown)
        # IT 8.3: the offender's opponent lifting one of his own movable pieces keeps the
        # irregularity (the irregular position is the reference while it is pending). INT 5.7:
        # only his move executed does (the clock press); without a clock the board cannot tell
        # when that is, so there the lift does as in IT 8.3
        if (s.pending is not None and piece is not None
                and (s.variant.touch_accepts_irregularity or not self._clock_mode)
                and piece.color == s.pending.offender.opponent
                and origin in s.tracker.playable):
            self._judge.maintain(t, by_play=True)
            origin = s.tracker.phys.get(name)
        self._raw_lift(t, name)
        if s.correcting is not None:
            self._judge.touch_in_correction(name)
        elif len(s.tracker.hand) > 1:
            s.tracker.maybe_brush = MaybeBrush(name, origin, t)  # judged at the next event
        else:
            self._judge_touch(t, name, origin)
        # IT 8.4, 7.8: the last step putting the position right may be taking a piece off
        self._judge.check_restored(t)

    def _reply_to_capture(self, lifted: UnpressedCapture, name: str) -> None:
        """With a clock, the piece of the opponent lifted off a capture standing unpressed is
        put down on ``name`` by the very next event. If the lift and this place form a legal
        move of his in the position after the capture (its end, or a square its capture path
        lands on, IT 5.10), the press was forgotten (COMP 4.6): the capture is his opponent's
        move, committed as it stood before the lift (the clock untouched, the forgetful
        player's face running on, nothing said), and the lift begins the opponent's turn. Else
        nothing changes here: a piece too many taken off (IT 8.1.12) or moved is judged at the
        press."""
        s = self._memory
        if (self._game.outcome is not None or s.pending is not None or s.correcting is not None
                or name in s.sensed):
            return
        to = s.geometry.number_of_algebraic.get(name)
        after = s.tracker.ref.copy(stack=False)
        after.push(lifted.capture)
        if not any(m.from_square == lifted.origin and to in m.path[1:]
                   for m in after.legal_moves):
            return
        s.tracker.unlift(lifted.square, lifted.complete_at)
        s.sensed.add(lifted.square)
        self._judge.complete(lifted.complete_at, None)
        self._on_lift(lifted.t, lifted.square)

    def _raw_lift(self, t: float, name: str) -> None:
        s = self._memory
        if name not in s.sensed:
            return
        s.sensed.discard(name)
        s.tracker.lift(t, name)

    def _on_place(self, t: float, name: str) -> None:
        s = self._memory
        if name in s.sensed:
            return  # a piece put on an occupied square (a crowning stack) changes no sensor
        brush = self._settle_brush(t, name)
        tr = s.tracker
        origin: int | None
        last = tr.last
        if last is not None and last.is_lift and last.square == name and tr.hand:
            origin = tr.put_back()
            lifted = tr.ref.piece_at(origin) if origin is not None else None
            if (lifted is not None and not brush and s.pending is None
                    and s.correcting is None and self._game.outcome is None):
                if lifted.color != s.mover():
                    # IT 3.11: the player not on move touched (lifted and put back) a piece
                    s.raise_flag(t, "touch_not_on_move", lifted.color, "noted",
                                 N_("lifted {square} and put it back when not on move").format(square=origin))
                elif origin not in tr.playable and not tr.accomodo:
                    # IT 3.10: a non-playable piece touched without announcing "accomodo"
                    s.raise_flag(t, "touch_unplayable", lifted.color, "noted",
                                 N_("lifted {square}, which cannot be played, and put it "
                                    "back").format(square=origin))
            if (tr.accomodo and origin is not None and tr.first_touch == origin
                    and s.obligation is None
                    and s.geometry.number_of_algebraic.get(name) == origin):
                tr.first_touch = None  # IT 3.9: an announced adjustment is not a touch
        elif tr.hand:
            origin = tr.from_hand(name)
        else:
            origin = None  # a piece from outside the board
        s.sensed.add(name)
        tr.place(t, name, origin)
        if self._game.outcome is not None:
            # INT 5.5, IT 7.8: a disturbance is put right at once, in the game; a piece put
            # back once the game is over (COMP 4.8) corrects nothing (as ``_on_lift``)
            return
        if origin is None and s.disturbed is None and s.correcting is None:
            self._judge.disturb(t, N_("a piece appeared on {square}").format(
                square=square_label(s.board, name)))
        self._judge.check_restored(t)

    def _settle_brush(self, t: float, placed: str | None) -> bool:
        """Decide about a lift made with another piece in the hand: put straight back, a brush
        (returns True); otherwise a touch like any other."""
        tr = self._memory.tracker
        b = tr.maybe_brush
        if b is None:
            return False
        tr.maybe_brush = None
        if placed == b.square:
            return True
        self._judge_touch(b.t, b.square, b.origin)
        return False

    def _judge_touch(self, t: float, name: str, origin: int | None) -> None:
        """IT 3.7-3.11 on a lift (a sensor sees a lift, not a touch)."""
        s = self._memory
        if origin is None or s.correcting is not None or self._game.outcome is not None:
            return
        piece = s.tracker.ref.piece_at(origin)
        if piece is None:
            return
        if s.pending is not None:
            return  # the offender's opponent deciding: his lifts are judged by IT 8.3 above
        tr = s.tracker
        if piece.color == s.mover() and origin in tr.playable and tr.first_touch is None:
            tr.first_touch = origin  # IT 3.7, 3.8: the first playable piece touched
        # a non-playable piece, or one of the side not on move: judged when it comes straight
        # back (IT 3.10, 3.11); moved elsewhere, at the completion of the move

    # ------------------------------------------------------------------ which piece (issue 40)

    def _on_piece(self, e: PieceChanged) -> None:
        """The piece on a still-occupied square changed (a board that knows the pieces): a crown
        put on late (IT 4.4 -> 3.7, 3.10), a king's top man lifted off (IT 4.5)."""
        s = self._memory
        before = s.pieces.changed(e.square, e.piece, e.reading)
        if self._game.outcome is not None or e.square not in s.sensed:
            return
        tr = s.tracker
        origin = tr.phys.get(e.square)
        official = tr.ref.piece_at(origin) if origin is not None else None
        words = {"square": square_label(s.board, e.square), "reading": s.pieces.reading(e.square)}
        if e.piece.king:
            s.pieces.owed.pop(e.square, None)
            late = s.pieces.late.pop(e.square, None)
            if late is None or late != s.mover() or s.pending is not None or s.correcting is not None:
                return  # in time, or by the opponent (a courtesy, IT 4.3)
            # IT 4.4: crowning late counts as touching the piece: IT 3.7 binds a playable one,
            # IT 3.10 makes touching one that cannot be played incorrect
            if origin is not None and origin in tr.playable:
                if tr.first_touch is None:
                    tr.first_touch = origin
                text = N_("crowned {square} late (reads {reading}): the king counts as touched "
                          "and must be played")
            else:
                text = N_("crowned {square} late (reads {reading}), a king that cannot be "
                          "played: touching it is incorrect")
            s.raise_flag(e.t, "crown_late", late, "noted", text.format(**words))
        elif (official is not None and official.king and official.color == e.piece.color
              and (before is None or before.king)):
            s.raise_flag(e.t, "crown_lost", official.color, "noted",
                         N_("the king on {square} lost its crown (reads {reading}): the record "
                            "still counts it a king").format(**words))

    def _check_pieces(self, t: float, fixing: str | None) -> None:
        """A piece other than the position's (colour or crown) where the position is set up
        (IT 7.1: ``fixing`` "setup", a snapshot before the first move) or was just put right
        (IT 8.4 a correction, IT 7.8 a disturbance: ``fixing``, the key of what was being put
        right before the event): a flag per square, pending until the square reads right."""
        s = self._memory
        watch = s.pieces
        board = s.board
        key: str | None = None
        if fixing == "setup":
            if not s.started and s.pending is None and s.correcting is None:
                key = fixing
        elif fixing is not None and s.correcting is None and s.disturbed is None:
            key = fixing
        if key is not None:
            for square, text in wrong_pieces(watch, board).items():
                if square not in watch.wrong:
                    watch.wrong[square] = (s.raise_flag(t, key, None, "pending", text).id, key)
        if watch.wrong:
            names = s.geometry.number_of_algebraic
            for square, (flag_id, settled_by) in list(watch.wrong.items()):
                expected = board.piece_at(names[square])
                if expected is None or watch.piece(square) == expected:
                    del watch.wrong[square]
                    s.decide(t, flag_id, "corrected", settled_by)

    # ------------------------------------------------------------------ buttons

    def _on_button(self, e: ButtonPressed) -> None:
        s = self._memory
        side = e.side
        t = e.t
        if self._game.outcome is not None:
            return
        self._settle_brush(t, None)
        name = e.name
        if name == "clock":
            self._on_clock(t, side)
        elif name == "accomodo":
            if side == s.mover():
                s.tracker.accomodo = True  # IT 3.9 / INT 3.13
        elif name in ("correct", "accept"):
            self._on_decision(t, side, name)
        elif name == "resign":
            self._commit_shown(t)
            self._game.resign(side)
            self._keeper.stop(t)
        elif name == "draw_offer":
            self._on_draw_offer(t, side)
        elif name == "draw_accept":
            if s.draw_offer is not None and s.draw_offer != side:
                self._commit_shown(t)
                self._game.agree_draw()
                self._keeper.stop(t)
            else:
                s.raise_flag(t, "draw_offer", side, "noted", N_("draw accepted but no draw offer stands"))
        elif name == "count":
            self._on_count(t, side, imposed=False)
        elif name == "repetition":
            self._on_repetition(t, side)

    def _on_clock(self, t: float, side: Colour) -> None:
        s = self._memory
        if s.correcting is not None:
            s.raise_flag(t, "press_in_correction", side, "noted",
                         N_("clock pressed during a correction: the position is not restored yet"))
            return
        c = s.mover()
        if s.pending is not None:
            if side == s.pending.offender:
                return  # the offender's clock is not running
            # the decider pressing without deciding: judge what he did as his move
            if s.shows_ref():
                s.raise_flag(t, "press_without_move", side, "noted", N_("clock pressed without a move"))
                return
            self._judge.maintain(t, by_play=True)
            self._judge.complete(t, side)
            return
        if side != c:
            # the side not on move pressing: only a second move of its own is judged (IT 8.1.1)
            if not (s.light_pieces() or s.shows_ref()):
                j = judge(s.tracker.ref, s.tracker.on_board(), side, None)
                if j.key == "twice" and j.offender == side:
                    self._judge.irregular(t, j)
                    return
            clock = self._clock
            if self._clock_mode and clock is not None and clock.running is not None \
                    and Colour.parse(clock.running) == side:
                # COMP 4.6: the press he forgot, made late (his move was recorded when his
                # opponent moved on): his face stops and his opponent's runs, as on a clock
                self._keeper.press(side, t, t)
            return
        self._judge.complete(t, side)

    def _on_decision(self, t: float, side: Colour, name: str) -> None:
        s = self._memory
        if s.pending is None:
            self._judge_previous_mover(t, side)
        p = s.pending
        if p is None:
            return
        if side == p.offender:
            # IT 8.2: only the offender's opponent decides
            s.raise_flag(t, "offender_decides", side, "noted",
                         N_("{button} pressed by the offender: ignored").format(button=name))
            return
        if name == "accept":
            self._judge.maintain(t, by_play=False)
        else:
            self._judge.correct(t)

    def _judge_previous_mover(self, t: float, side: Colour) -> None:
        """The player on move demands a decision before moving: the board may show a takeback
        (IT 8.1.4) or a second move (IT 8.1.1) of his opponent."""
        s = self._memory
        if side != s.mover() or not self._game.moves or s.light_pieces():
            return
        if s.shows_ref():
            return
        j = judge(s.tracker.ref, s.tracker.on_board(), side.opponent, s.previous)
        if j.key in ("twice", "takeback") and j.offender == side.opponent:
            self._judge.irregular(t, j)

    def _on_draw_offer(self, t: float, side: Colour) -> None:
        """COMP 6.15: only after one's own move and before pressing the clock; not repeated after
        a refusal until the opponent offers."""
        s = self._memory
        c = s.mover()
        shown = frozenset(s.sensed) in s.tracker.after
        own_move_done = (side == c and shown) if self._clock_mode else (
            side == c and shown or side != c and not s.tracker.touches)
        if not own_move_done:
            s.raise_flag(t, "draw_offer", side, "noted",
                         N_("draw offered other than after one's own move, before the clock"))
            return
        if s.draw_refused[side]:
            s.raise_flag(t, "draw_offer", side, "noted",
                         N_("draw offered again before the opponent offered one"))
            return
        s.draw_offer = side
        s.draw_refused[side.opponent] = False

    def _on_count(self, t: float, side: Colour | None, imposed: bool) -> None:
        """IT/EN 10.1-10.2: the move-count procedure, requested or imposed."""
        s = self._memory
        if s.variant.draws.count_moves == 0:
            s.raise_flag(t, "no_procedure", side, "noted",
                         N_("no move-count procedure in this variant (automatic draws apply)"))
            return
        if self._game.start_count(imposed=imposed):
            who = N_("imposed by the arbiter") if imposed else N_("requested")
            s.raise_flag(t, "count_request", side, "noted",
                         N_("move count {who}: {n} king moves each").format(
                             who=who, n=s.variant.draws.count_moves))
        else:
            s.raise_flag(t, "count_impossible", side, "noted",
                         N_("the move count needs at least one king each"))

    def _on_repetition(self, t: float, side: Colour) -> None:
        """IT 9.3b: the repetition claimed and verified at once by the board."""
        s = self._memory
        d = s.variant.draws
        if d.repetition_automatic or not d.repetitions:
            s.raise_flag(t, "no_procedure", side, "noted", N_("no repetition claim in this variant"))
            return
        if not self._game.claim_repetition():
            s.raise_flag(t, "repetition", side, "noted",
                         N_("repetition not confirmed ({n} occurrence(s)); the board verified it "
                            "at once, so no verification time is charged (IT 9.3 b2)").format(
                             n=self._game.repetition_count()))
        else:
            self._keeper.stop(t)

    # ------------------------------------------------------------------ arbiter and snapshots

    def _on_arbiter(self, e: ArbiterActed) -> None:
        s = self._memory
        t = e.t
        a = e.action
        if a == "note":
            s.raise_flag(t, "note", None, "noted", e.text or "")
        elif a == "adjudicate":
            if self._game.outcome is None and e.result:
                self._commit_shown(t)
                self._game.adjudicate(e.result)
                self._keeper.stop(t)
        elif a == "correct_result":
            # COMP 6.16: the arbiter settles a dispute; a mistaken result is corrected after the
            # game, the first one kept in the game's history. Raises ValueError (the replay's
            # policy decides) for a game in play or a result not of the variant.
            g = self._game
            fixed = g.correct_result(e.result or "", e.text or "", t, s.ended_at)
            s.raise_flag(t, "result_corrected", None, "noted",
                         N_("result {before} corrected to {after}: {reason}").format(
                             before=fixed.before.result, after=fixed.after.result,
                             reason=fixed.reason))
            s.result_changed()
        elif a == "start_clock":
            self._keeper.start(s.mover(), t)
        elif a == "stop_clock":
            self._keeper.stop(t)
        elif a == "impose_count":
            if self._game.outcome is None:
                self._on_count(t, None, imposed=True)
        elif a == "restore":
            if self._game.outcome is None:  # IT 7.8: the position of a game in play
                self._judge.restore(t)

    def _on_snapshot(self, e: SnapshotTaken) -> None:
        s = self._memory
        t = e.t
        if (s.started or s.tracker.touches) and set(e.occupied) == s.sensed:
            # What the board already showed (a snapshot after a restart or a sensor fault, a
            # piece still in the hand mid-move): no news, nothing to judge (docs/trace-format.md).
            return
        s.sensed = set(e.occupied)
        num = s.geometry.number_of_algebraic
        tr = s.tracker
        tr.resense(s.sensed)
        if self._game.outcome is not None:
            return  # COMP 4.8: after the result the board is no position of the game (IT 7.8)
        expected = set(tr.ref.occupied_algebraic())
        if s.sensed == expected:
            self._judge.close_setup_flags(t)
            self._judge.close_light_flags(t)
            self._judge.check_restored(t)
            if s.correcting is None and s.disturbed is None:
                s.keep_turn(s.tracker.ref)
            return
        turned = False
        if not s.started and not tr.touches and s.pending is None:
            mirrored = {square_mirror(sq, s.variant.size) for sq in expected}
            turned = s.sensed == mirrored
            if turned:
                f = s.raise_flag(t, "orientation", None, "pending",
                                 N_("the board is turned the wrong way"))
            else:
                missing = sorted(expected - s.sensed)
                extra = sorted(s.sensed - expected)
                f = s.raise_flag(t, "setup", None, "pending",
                                 N_("set-up differs from the starting position: missing "
                                    "{missing}; extra {extra}").format(
                                     missing=", ".join(missing) or N_("none"),
                                     extra=", ".join(extra) or N_("none")))
            s.setup_flags.append(f.id)
        light = [sq for sq in s.sensed if sq not in num]
        if light and not turned:  # a board turned round is one notice (IT 7.2), not 7.5 on all
            s.light_flags.append(s.raise_flag(
                t, "light_square", None, "pending",
                N_("piece(s) on light square(s) {squares}").format(
                    squares=", ".join(sorted(light)))).id)
        self._judge.disturb(t, N_("the sensors see another position"))
