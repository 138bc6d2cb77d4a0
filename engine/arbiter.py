"""The over-the-board arbiter: physical events in, typed decisions out.

A pure state machine (no I/O, no threads, no clock reading: every event carries its time ``t``).
Feed it the events of ``engine.events`` with :meth:`Arbiter.feed`; tell it that time passed with
:meth:`Arbiter.advance` (games without clock commit a move after ``settle`` quiet seconds; a flag
falls; the mosse-lampo countdown goes on); :meth:`Arbiter.next_deadline` says when that will be.
Both return the decisions of ``engine.decisions`` (moves committed, flags raised and decided, the
game ended, squares to put right, clock events), each citing its article. Read-only views: the
:class:`engine.game.Game` (the official record), the flags, the ``GameClock``, the squares to fix.

Where each rule lives: this module handles the events (lifts and places: IT 3.7-3.11, 5.10-5.13;
buttons: COMP 4.5, 6.15, IT 8.2, 9.3, 10.2; the arbiter's actions and snapshots: IT 7.1-7.8);
``engine.arbiter_core`` holds the state and the acts (committing, IT 8.1-8.4 irregularities and
their decision, the clock, COMP 4.8, 4.13); ``engine.tracking`` follows the pieces of a turn;
``engine.arbiter_judge`` names what the board shows; ``engine.articles`` gives every code.

How a move is recognised (STYLE.md, after picochess): the arbiter follows which piece stands where
(each piece known by its *origin*, the square it stood on when the turn began) and, at the moment
the move is complete, compares the occupancy with the occupancy after each legal move. The move is
complete at the clock press (COMP 4.5); without a clock (TRACE.md ``"clock": false``) when the board
shows a complete legal move and the opponent lifts a piece or ``settle`` seconds pass with no event.
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
* Not seen at all: the crowning stack (a second piece on an occupied square changes no sensor), so
  IT 8.1.16/8.1.17 (EN 8.1.15/8.1.16) cannot be detected; a man ending on the far row is a king by
  rule (IT 4.5: the game is transcribed). A touch without a lift is not seen (IT 3.7).
"""

from __future__ import annotations

from typing import Iterable

from engine.arbiter_core import ArbiterCore
from engine.arbiter_judge import judge, square_label
from engine.articles import article
from engine.board import Move
from engine.clock import ClockState, FlagFell
from engine.clock_display import LAMPO_COUNTDOWN
from engine.colour import Colour
from engine.decisions import Decision, Flag, LampoCountdown
from engine.events import (ArbiterActed, ButtonPressed, DaemonRestarted, Event, GameStarted,
                           PieceLifted, PiecePlaced, SensorsFailed, SensorsRecovered,
                           SnapshotTaken, TraceEnded)
from engine.squares import square_mirror
from engine.tracking import MaybeBrush

__all__ = ["Arbiter", "Flag"]

#: Verdicts on a capture shown with its captured pieces not all off yet (IT 8.1.10, 8.1.11,
#: INT 5.4.13): without a clock these wait, the removal may still come.
_REMOVAL_UNDER_WAY = frozenset({"not_removed_simple", "fewer_removed", "removal_stopped"})


class Arbiter(ArbiterCore):
    """Arbitrates one game from its physical events (TRACE.md).

    ``start``: the trace's start line. Raises the engine's errors for a bad variant or FEN (the
    trace reader has checked them already). Not thread-safe: feed it from one thread.

    Out: :meth:`feed` and :meth:`advance` return the decisions (``engine.decisions``) each
    event or the passing of time brought, in order. Read-only views: :attr:`game` (the record),
    :attr:`flags` (current values), :attr:`clock` (the ``GameClock`` or None), :attr:`board`,
    :attr:`sensed`, :attr:`pending`, :attr:`squares_to_fix`; :meth:`next_deadline` says when time
    alone will change something.
    """

    def __init__(self, start: GameStarted) -> None:
        super().__init__(start)
        self._lampo_said: tuple[Colour, int, int] | None = None  # side, run, lowest word said

    # ------------------------------------------------------------------ public API

    def feed(self, event: Event) -> list[Decision]:
        """Process one event (its ``t`` never earlier than the last); returns its decisions."""
        if isinstance(event, DaemonRestarted):
            return self._on_restart(event)
        self._fire_timers(event.t)
        self._now = max(self._now, event.t)
        if isinstance(event, ButtonPressed) and event.name == "clock":
            # COMP 5.7: a move let go by zero is in time though pressed after: the press itself
            # tells the clock when the move was complete (completed_at)
            self._clock_poll(min(event.t, max(self.tracking.last_change, self._clock_t)))
        else:
            self._clock_poll(self._held(event.t))
        if self._clock_mode and not self._clock_started and not (
                isinstance(event, ArbiterActed) and event.action == "start_clock"):
            # COMP 4.4.2: the arbiter starts the clock; a trace that does not say when starts
            # it at its first event
            self._clock_start(self._mover(), event.t)
        if isinstance(event, PieceLifted):
            self._on_lift(event.t, event.square)
        elif isinstance(event, PiecePlaced):
            self._on_place(event.t, event.square)
        elif isinstance(event, ButtonPressed):
            self._on_button(event)
        elif isinstance(event, ArbiterActed):
            self._on_arbiter(event)
        elif isinstance(event, SnapshotTaken):
            self._on_snapshot(event)
        elif isinstance(event, TraceEnded):
            self._fire_timers(event.t, force=True)
        elif isinstance(event, SensorsFailed):
            self._flag(event.t, "sensor_fault", None, "noted",
                       event.message or "sensors stopped answering: " + " ".join(event.squares))
        elif isinstance(event, SensorsRecovered):
            self._flag(event.t, "sensor_fault_cleared", None, "noted",
                       "sensors answer again: " + " ".join(event.squares))
        self._check_time(self._held(event.t))
        self._countdown(event.t)
        return self._flush(event.t)

    def feed_all(self, events: Iterable[Event]) -> list[Decision]:
        """Feed every event; returns all their decisions."""
        out: list[Decision] = []
        for e in events:
            out.extend(self.feed(e))
        return out

    def advance(self, t: float) -> list[Decision]:
        """Time has reached ``t`` with no event: the settle timer of a game without clock, a flag
        falling, a step of the mosse-lampo countdown. Returns the decisions."""
        self._fire_timers(t)
        self._now = max(self._now, t)
        self._check_time(self._held(t))
        self._countdown(t)
        return self._flush(t)

    def next_deadline(self) -> float | None:
        """The earliest time at which time alone changes something (:meth:`advance` then returns
        a decision): the settle timer of a game without clock (TRACE.md), the running face
        reaching zero (COMP 4.8; or mosse lampo beginning, COMP 5.6), the next word of the
        mosse-lampo countdown (COMP 5.7). None when nothing will happen until an event."""
        times: list[float] = []
        if self._timer_armed():
            times.append(self.tracking.last_change + self._settle)
        c = self._clock
        if (c is not None and c.flag is None and c.running is not None
                and c.state in (ClockState.RUNNING, ClockState.CORRECTING)):
            face = c.face(c.running, self._clock_t)
            zero = self._clock_t + face.ms / 1000
            if not (face.in_lampo and self._held(zero) < zero):  # COMP 5.7: let go by zero
                times.append(zero)
            if face.in_lampo:
                for seconds, _ in LAMPO_COUNTDOWN:
                    if seconds and face.ms > seconds * 1000:
                        times.append(self._clock_t + (face.ms - seconds * 1000) / 1000)
        return min(times) if times else None

    # ------------------------------------------------------------------ time

    def _timer_armed(self) -> bool:
        """No clock: a move shown (or a piece put down) waits for ``settle`` quiet seconds."""
        if self._clock_mode or self._game.outcome is not None:
            return False
        if self._correcting is not None or self._pending is not None or not self.tracking.touches:
            return False
        last = self.tracking.last
        if frozenset(self._sensed) in self.tracking.after:
            return True
        return last is not None and not last.is_lift and self._awaited_capture() is None

    def _awaited_capture(self) -> Move | None:
        """The capturing piece stands on its end square and some captured pieces are still on
        the board: the capture is not complete until the last is off (IT 5.13, INT 4.12), however
        slowly they come off; nothing is judged yet (no clock: the move is not complete)."""
        if self._light_pieces():
            return None
        j = judge(self.tracking.ref, self.tracking.on_board(), None, None)
        return j.move if j.key in _REMOVAL_UNDER_WAY else None

    def _fire_timers(self, t: float, force: bool = False) -> None:
        """No clock: commit the move on the board after ``settle`` quiet seconds (TRACE.md)."""
        if self._clock_mode or self._game.outcome is not None:
            return
        if self._correcting is not None or self._pending is not None or not self.tracking.touches:
            return
        lc = self.tracking.last_change
        if not force and t - lc < self._settle and t < lc + self._settle:
            return
        if self.tracking.maybe_brush is not None:
            self._settle_brush(t, None)
        last = self.tracking.last
        if frozenset(self._sensed) in self.tracking.after:
            self._complete(self.tracking.last_change, None)
        elif force or (last is not None and not last.is_lift
                       and self._awaited_capture() is None):
            self._complete(self.tracking.last_change, None)

    def _commit_shown(self, t: float) -> None:
        """No clock: a move is made when the piece is let go (IT 3.5). The game ending now
        (resignation, draw agreed, adjudication) keeps the complete legal move the board shows,
        before its settle time is up."""
        if (not self._clock_mode and self._pending is None and self._correcting is None
                and self.tracking.touches and frozenset(self._sensed) in self.tracking.after):
            if self.tracking.maybe_brush is not None:
                self._settle_brush(t, None)
            self._complete(self.tracking.last_change, None)

    def _countdown(self, t: float) -> None:
        """COMP 5.7: the words of the mosse-lampo countdown reached by ``t``, each once a move."""
        c = self._clock
        if c is None or c.control.lampo is None:
            return
        running = c.running
        if running is None and isinstance(c.flag, FlagFell) and c.flag.in_lampo:
            running = c.flag.side  # "0!": the flag fell in the middle of a lampo move
        if running is None:
            return
        face = c.face(running, max(t, self._clock_t))
        if not face.in_lampo:
            return
        side = Colour.parse(face.side)
        said = self._lampo_said
        lowest = said[2] if said is not None and said[:2] == (side, face.run) else None
        for seconds, word in LAMPO_COUNTDOWN:
            if face.run_start_ms > seconds * 1000 >= face.ms and (lowest is None
                                                                   or seconds < lowest):
                self._emit(LampoCountdown(t, side, seconds, word,
                                          article(self.variant, "lampo_countdown").code))
                lowest = seconds
        if lowest is not None:
            self._lampo_said = (side, face.run, lowest)

    def _opponent_moves_on(self, origin: int | None) -> bool:
        """No clock: the piece lifted at ``origin`` is no captured piece of the capture whose
        removal is under way: the opponent moves on (IT 8.3)."""
        awaited = self._awaited_capture()
        if awaited is None:
            return False
        # any capture with these ends may be the one under way (EN 6.6: two ways to 26)
        victims = {c for m in self.tracking.after.values()
                   if m.from_square == awaited.from_square and m.to_square == awaited.to_square
                   for c in m.captures}
        return origin not in victims

    # ------------------------------------------------------------------ lifts and places

    def _on_lift(self, t: float, name: str) -> None:
        if self._game.outcome is not None:
            self._raw_lift(t, name)
            return
        if name not in self._sensed:
            return  # a sensor opening on an empty square: noise
        self._settle_brush(t, None)
        origin = self.tracking.phys.get(name)
        piece = self.tracking.ref.piece_at(origin) if origin is not None else None
        c = self._mover()
        # No clock: the opponent lifting a piece commits a complete move (TRACE.md); a capture
        # whose pieces are still coming off is judged then (IT 8.1.10, 8.1.11: he moves on),
        # unless the piece lifted is one of them (the removal going on)
        if (not self._clock_mode and piece is not None and piece.color != c
                and self._correcting is None and self._pending is None
                and (frozenset(self._sensed) in self.tracking.after
                     or self._opponent_moves_on(origin))):
            self._complete(self.tracking.last_change, None)
            origin = self.tracking.phys.get(name)
            piece = self.tracking.ref.piece_at(origin) if origin is not None else None
        # IT 8.3: the offender's opponent lifting one of his own movable pieces keeps the
        # irregularity (the irregular position is the reference while it is pending). INT 5.7:
        # only his move executed does (the clock press); without a clock the board cannot tell
        # when that is, so there the lift does as in IT 8.3
        if (self._pending is not None and piece is not None
                and (self.variant.touch_accepts_irregularity or not self._clock_mode)
                and piece.color == self._pending.offender.opponent
                and origin in self.tracking.playable):
            self._maintain(t, by_play=True)
            origin = self.tracking.phys.get(name)
        self._raw_lift(t, name)
        if self._correcting is not None:
            self._touch_in_correction(name)
        elif len(self.tracking.hand) > 1:
            self.tracking.maybe_brush = MaybeBrush(name, origin, t)  # judged at the next event
        else:
            self._judge_touch(t, name, origin)
        # IT 8.4, 7.8: the last step putting the position right may be taking a piece off
        self._check_restored(t)

    def _raw_lift(self, t: float, name: str) -> None:
        if name not in self._sensed:
            return
        self._sensed.discard(name)
        self.tracking.lift(t, name)

    def _on_place(self, t: float, name: str) -> None:
        if name in self._sensed:
            return  # a piece put on an occupied square (a crowning stack) changes no sensor
        brush = self._settle_brush(t, name)
        tr = self.tracking
        origin: int | None
        last = tr.last
        if last is not None and last.is_lift and last.square == name and tr.hand:
            origin = last.origin
            tr.hand.pop()
            lifted = tr.ref.piece_at(origin) if origin is not None else None
            if (lifted is not None and not brush and self._pending is None
                    and self._correcting is None and self._game.outcome is None):
                if lifted.color != self._mover():
                    # IT 3.11: the player not on move touched (lifted and put back) a piece
                    self._flag(t, "touch_not_on_move", lifted.color, "noted",
                               f"lifted {origin} and put it back when not on move")
                elif origin not in tr.playable and not tr.accomodo:
                    # IT 3.10: a non-playable piece touched without announcing "accomodo"
                    self._flag(t, "touch_unplayable", lifted.color, "noted",
                               f"lifted {origin}, which cannot be played, and put it back")
            if (tr.accomodo and origin is not None and tr.first_touch == origin
                    and self._obligation is None
                    and self._g.number_of_algebraic.get(name) == origin):
                tr.first_touch = None  # IT 3.9: an announced adjustment is not a touch
        elif tr.hand:
            origin = tr.hand.pop(tr.which_in_hand(name))
        else:
            origin = None  # a piece from outside the board
        self._sensed.add(name)
        tr.place(t, name, origin)
        if (origin is None and self._game.outcome is None and self._disturbed is None
                and self._correcting is None):
            self._disturb(t, f"a piece appeared on {square_label(self.board, name)}")
        self._check_restored(t)

    def _settle_brush(self, t: float, placed: str | None) -> bool:
        """Decide about a lift made with another piece in the hand: put straight back, a brush
        (returns True); otherwise a touch like any other."""
        b = self.tracking.maybe_brush
        if b is None:
            return False
        self.tracking.maybe_brush = None
        if placed == b.square:
            return True
        self._judge_touch(b.t, b.square, b.origin)
        return False

    def _touch_in_correction(self, name: str) -> None:
        """IT 3.7 after IT 8.4: while the position is put back, the player who will be on move
        lifting one of his playable pieces that the irregular move did not displace is bound to
        play it (the first one; an obligation of IT 8.1.3 comes first)."""
        p = self._correcting
        assert p is not None
        n = self._g.number_of_algebraic.get(name)
        if n is None or p.touched is not None or self._correction_touch is not None:
            return
        piece = p.before.piece_at(n)
        if (piece is None or piece.color != p.before.turn or p.after.piece_at(n) != piece
                or n not in {m.from_square for m in p.before.legal_moves}):
            return
        self._correction_touch = n

    def _judge_touch(self, t: float, name: str, origin: int | None) -> None:
        """IT 3.7-3.11 on a lift (a sensor sees a lift, not a touch)."""
        if origin is None or self._correcting is not None or self._game.outcome is not None:
            return
        piece = self.tracking.ref.piece_at(origin)
        if piece is None:
            return
        if self._pending is not None:
            return  # the offender's opponent deciding: his lifts are judged by IT 8.3 above
        tr = self.tracking
        if piece.color == self._mover() and origin in tr.playable and tr.first_touch is None:
            tr.first_touch = origin  # IT 3.7, 3.8: the first playable piece touched
        # a non-playable piece, or one of the side not on move: judged when it comes straight
        # back (IT 3.10, 3.11); moved elsewhere, at the completion of the move

    # ------------------------------------------------------------------ buttons

    def _on_button(self, e: ButtonPressed) -> None:
        side = e.side
        t = e.t
        if self._game.outcome is not None:
            return
        self._settle_brush(t, None)
        name = e.name
        if name == "clock":
            self._on_clock(t, side)
        elif name == "accomodo":
            if side == self._mover():
                self.tracking.accomodo = True  # IT 3.9 / INT 3.13
        elif name in ("correct", "accept"):
            self._on_decision(t, side, name)
        elif name == "resign":
            self._commit_shown(t)
            self._game.resign(side)
            self._clock_stop(t)
        elif name == "draw_offer":
            self._on_draw_offer(t, side)
        elif name == "draw_accept":
            if self._draw_offer is not None and self._draw_offer != side:
                self._commit_shown(t)
                self._game.agree_draw()
                self._clock_stop(t)
            else:
                self._flag(t, "draw_offer", side, "noted", "draw accepted but no draw offer stands")
        elif name == "count":
            self._on_count(t, side, imposed=False)
        elif name == "repetition":
            self._on_repetition(t, side)

    def _on_clock(self, t: float, side: Colour) -> None:
        if self._correcting is not None:
            self._flag(t, "press_in_correction", side, "noted",
                       "clock pressed during a correction: the position is not restored yet")
            return
        c = self._mover()
        if self._pending is not None:
            if side == self._pending.offender:
                return  # the offender's clock is not running
            # the decider pressing without deciding: judge what he did as his move
            if self._shows_ref():
                self._flag(t, "press_without_move", side, "noted", "clock pressed without a move")
                return
            self._maintain(t, by_play=True)
            self._complete(t, side)
            return
        if side != c:
            # the side not on move pressing: only a second move of its own is judged (IT 8.1.1)
            if self._light_pieces() or self._shows_ref():
                return
            j = judge(self.tracking.ref, self.tracking.on_board(), side, None)
            if j.key == "twice" and j.offender == side:
                self._irregular(t, j)
            return
        self._complete(t, side)

    def _on_decision(self, t: float, side: Colour, name: str) -> None:
        if self._pending is None:
            self._judge_previous_mover(t, side)
        p = self._pending
        if p is None:
            return
        if side == p.offender:
            # IT 8.2: only the offender's opponent decides
            self._flag(t, "offender_decides", side, "noted",
                       f"{name} pressed by the offender: ignored")
            return
        if name == "accept":
            self._maintain(t, by_play=False)
        else:
            self._correct(t)

    def _judge_previous_mover(self, t: float, side: Colour) -> None:
        """The player on move demands a decision before moving: the board may show a takeback
        (IT 8.1.4) or a second move (IT 8.1.1) of his opponent."""
        if side != self._mover() or not self._game.moves or self._light_pieces():
            return
        if self._shows_ref():
            return
        j = judge(self.tracking.ref, self.tracking.on_board(), side.opponent, self._previous)
        if j.key in ("twice", "takeback") and j.offender == side.opponent:
            self._irregular(t, j)

    def _on_draw_offer(self, t: float, side: Colour) -> None:
        """COMP 6.15: only after one's own move and before pressing the clock; not repeated after
        a refusal until the opponent offers."""
        c = self._mover()
        shown = frozenset(self._sensed) in self.tracking.after
        own_move_done = (side == c and shown) if self._clock_mode else (
            side == c and shown or side != c and not self.tracking.touches)
        if not own_move_done:
            self._flag(t, "draw_offer", side, "noted",
                       "draw offered other than after one's own move, before the clock")
            return
        if self._draw_refused[side]:
            self._flag(t, "draw_offer", side, "noted",
                       "draw offered again before the opponent offered one")
            return
        self._draw_offer = side
        self._draw_refused[side.opponent] = False

    def _on_count(self, t: float, side: Colour | None, imposed: bool) -> None:
        """IT/EN 10.1-10.2: the move-count procedure, requested or imposed."""
        if self.variant.draws.count_moves == 0:
            self._flag(t, "no_procedure", side, "noted",
                       "no move-count procedure in this variant (automatic draws apply)")
            return
        if self._game.start_count(imposed=imposed):
            who = "imposed by the arbiter" if imposed else "requested"
            self._flag(t, "count_request", side, "noted",
                       f"move count {who}: {self.variant.draws.count_moves} king moves each")
        else:
            self._flag(t, "count_impossible", side, "noted",
                       "the move count needs at least one king each")

    def _on_repetition(self, t: float, side: Colour) -> None:
        """IT 9.3b: the repetition claimed and verified at once by the board."""
        d = self.variant.draws
        if d.repetition_automatic or not d.repetitions:
            self._flag(t, "no_procedure", side, "noted", "no repetition claim in this variant")
            return
        if not self._game.claim_repetition():
            self._flag(t, "repetition", side, "noted",
                       f"repetition not confirmed ({self._game.repetition_count()} "
                       "occurrence(s)); the board verified it at once, so no verification time "
                       "is charged (IT 9.3 b2)")
        else:
            self._clock_stop(t)

    # ------------------------------------------------------------------ arbiter and snapshots

    def _on_arbiter(self, e: ArbiterActed) -> None:
        t = e.t
        a = e.action
        if a == "note":
            self._flag(t, "note", None, "noted", e.text or "")
        elif a == "adjudicate":
            if self._game.outcome is None and e.result:
                self._commit_shown(t)
                self._game.adjudicate(e.result)
                self._clock_stop(t)
        elif a == "start_clock":
            self._clock_start(self._mover(), t)
        elif a == "stop_clock":
            self._clock_stop(t)
        elif a == "impose_count":
            if self._game.outcome is None:
                self._on_count(t, None, imposed=True)
        elif a == "restore":
            self._restore(t)

    def _restore(self, t: float) -> None:
        """IT 7.8: the arbiter puts the last position back on the board."""
        target = self._correcting.before if self._correcting is not None else self.tracking.ref
        self._sensed = set(target.occupied_algebraic())
        if self._disturbed is not None:
            self._decide(t, self._disturbed, "corrected", "disturbed")
            self._disturbed = None
        self._close_setup_flags(t)
        self._close_light_flags(t)
        if self._correcting is not None:
            self._check_restored(t)
            return
        self._keep_turn(self.tracking.ref)

    def _on_snapshot(self, e: SnapshotTaken) -> None:
        t = e.t
        if (self._started or self.tracking.touches) and set(e.occupied) == self._sensed:
            # What the board already showed (a snapshot after a restart or a sensor fault, a
            # piece still in the hand mid-move): no news, nothing to judge (TRACE.md).
            return
        self._sensed = set(e.occupied)
        num = self._g.number_of_algebraic
        tr = self.tracking
        for s in list(tr.phys):
            if s not in self._sensed:
                tr.hand.append(tr.phys.pop(s))
        for s in self._sensed:
            if s not in tr.phys:
                tr.phys[s] = None
        expected = set(tr.ref.occupied_algebraic())
        if self._sensed == expected:
            self._close_setup_flags(t)
            self._close_light_flags(t)
            self._check_restored(t)
            if self._correcting is None and self._disturbed is None:
                self._keep_turn(self.tracking.ref)
            return
        turned = False
        if not self._started and not tr.touches and self._pending is None:
            mirrored = {square_mirror(s, self.variant.size) for s in expected}
            turned = self._sensed == mirrored
            if turned:
                f = self._flag(t, "orientation", None, "pending",
                               "the board is turned the wrong way")
            else:
                missing = sorted(expected - self._sensed)
                extra = sorted(self._sensed - expected)
                f = self._flag(t, "setup", None, "pending",
                               "set-up differs from the starting position: missing "
                               + (", ".join(missing) or "none") + "; extra "
                               + (", ".join(extra) or "none"))
            self._setup_flags.append(f.id)
        light = [s for s in self._sensed if s not in num]
        if light and not turned:  # a board turned round is one notice (IT 7.2), not 7.5 on all
            self._light_flags.append(self._flag(
                t, "light_square", None, "pending",
                "piece(s) on light square(s) " + ", ".join(sorted(light))).id)
        self._disturb(t, "the sensors see another position")
