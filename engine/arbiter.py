"""The over-the-board arbiter: physical events in, moves and rule flags out.

A pure state machine (no I/O, no threads, no clock reading: every event carries its time ``t``).
Feed it the events of ``engine.events`` with :meth:`Arbiter.feed`; tell it that time passed with
:meth:`Arbiter.advance` (games without clock commit a move after ``settle`` quiet seconds). It keeps
a :class:`engine.game.Game` (the official record), a list of :class:`Flag` and, when the board
must be put right, the squares to fix (:attr:`Arbiter.squares_to_fix`).

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

import logging
from dataclasses import dataclass
from typing import Iterable

from engine.arbiter_judge import Judgement, judge, square_label
from engine.arbiter_rules import IRREGULARITIES, code as article
from engine.board import Board, Move
from engine.clock import BothFlagsFell, ClockState, FlagFell, GameClock
from engine.errors import DamieraError
from engine.events import (ArbiterActed, ButtonPressed, Event, GameStarted, PieceLifted,
                           PiecePlaced, SnapshotTaken, TraceEnded)
from engine.game import Game
from engine.timecontrol import parse_time_control_tag
from engine.variants import BLACK, COLOR_NAMES, WHITE, Variant, find_variant

__all__ = ["Arbiter", "Flag"]

log = logging.getLogger(__name__)

KINDS = ("irregularity", "incorrectness", "notice")
STATUSES = ("pending", "corrected", "maintained", "noted")


@dataclass(slots=True)
class Flag:
    """A rule event the arbiter noted (TRACE.md ``flags``). ``side``: "white"/"black"/None.
    ``status`` changes from ``pending`` to ``corrected`` or ``maintained`` when decided."""

    t: float
    code: str
    side: str | None
    kind: str
    status: str
    text: str

    def to_dict(self) -> dict[str, object]:
        return {"t": self.t, "code": self.code, "side": self.side, "kind": self.kind,
                "status": self.status, "text": self.text}


@dataclass(slots=True)
class _Pending:
    """An irregularity waiting for the offender's opponent (IT 8.2)."""

    flag: Flag
    offender: int
    judgement: Judgement
    before: Board  # the position to restore on ``correct`` (IT 8.4: no partial correction)
    after: Board  # the position on the board, kept on ``accept`` or by play (IT 8.3)
    t: float  # when the irregular move was completed
    touched: int | None  # the piece touch-move binds after a correction (IT 8.1.3)
    pressed: bool  # the offender completed it with a counted clock press (retracted if corrected)


class _ClockProxy:
    """The game clock (``engine.clock.GameClock``) when the start line has a time control;
    otherwise a clock that keeps no time (the clock button still completes moves, COMP 4.5).
    Sides are colour numbers. The clock never stops the arbiter: its refusals are logged."""

    def __init__(self, time_control: str | None) -> None:
        self.clock: GameClock | None = None
        if time_control:
            control = parse_time_control_tag(time_control)
            if control is not None:
                self.clock = GameClock(control)
        self.running: int | None = None

    def _call(self, name: str, *args: object, **kw: object) -> object:
        if self.clock is None:
            return None
        try:
            return getattr(self.clock, name)(*args, **kw)
        except DamieraError as exc:
            log.info("clock %s%r refused: %s", name, args, exc)
            return None

    @property
    def started(self) -> bool:
        return self.clock is None or self.clock.state != ClockState.READY

    def start(self, side: int, t: float) -> None:
        """COMP 4.4.2: the arbiter starts the face of the player to move (or resumes)."""
        if self.clock is not None:
            if self.clock.state == ClockState.READY:
                self._call("start", side, t)
            elif self.clock.state == ClockState.STOPPED:
                self._call("resume", t)
        self.running = side

    def press(self, side: int, t: float) -> None:
        self._call("press", side, t, True)
        self.running = 1 - side

    def stop_both(self, t: float) -> None:
        if self.clock is not None and self.clock.state not in (ClockState.READY,
                                                               ClockState.STOPPED):
            self._call("stop_both", t)

    def begin_correction(self, offender: int, t: float, retract: bool) -> None:
        self._call("begin_correction", offender, t, retract_last_move=retract)

    def end_correction(self, t: float) -> None:
        if self.clock is not None and self.clock.state == ClockState.CORRECTING:
            self._call("end_correction", t)

    def reading(self, t: float) -> tuple[float, float] | None:
        if self.clock is None or not self.started:
            return None
        r = self._call("reading", t)
        return r if isinstance(r, tuple) else None

    def flagged(self, t: float) -> tuple[int | None] | None:
        """``(loser,)`` when a flag fell (COMP 4.8), ``(None,)`` when both did (COMP 5.9.4)."""
        if self.clock is None or not self.started:
            return None
        r = self._call("check_flag", t)
        if isinstance(r, FlagFell):
            return (WHITE if r.side == "white" else BLACK,)
        if isinstance(r, BothFlagsFell):
            return (None,)
        return None


class Arbiter:
    """Arbitrates one game from its physical events (TRACE.md).

    ``start``: the trace's start line. Raises the engine's errors for a bad variant or FEN (the
    trace reader has checked them already). Not thread-safe: feed it from one thread.
    """

    def __init__(self, start: GameStarted) -> None:
        self.start = start
        self.variant: Variant = find_variant(start.variant)
        tags = {k.capitalize(): v for k, v in start.tags}
        if start.time_control:
            tags["TimeControl"] = start.time_control
        self.game = Game(self.variant, start.fen, tags=tags, transcribed=start.transcribed,
                         time_control=start.time_control)
        self.flags: list[Flag] = []
        self._g = self.variant.geometry
        self._clock_mode = start.clock
        self._settle = start.settle
        self._clock = _ClockProxy(start.time_control)
        self._now = 0.0
        self._sensed: set[str] = set(self.game.board.occupied_algebraic())
        self._pending: _Pending | None = None
        self._correcting: _Pending | None = None
        self._disturbed: Flag | None = None
        self._draw_offer: int | None = None
        self._draw_refused = [False, False]
        self._obligation: int | None = None
        self._started = False  # a move has been completed (IT 7.1: checks before the first move)
        self._setup_flags: list[Flag] = []
        self._reset_turn(self.game.board)

    # ------------------------------------------------------------------ public API

    @property
    def board(self) -> Board:
        """The official position (the game's board)."""
        return self.game.board

    @property
    def sensed(self) -> frozenset[str]:
        """The occupancy the sensors report, as algebraic names."""
        return frozenset(self._sensed)

    @property
    def squares_to_fix(self) -> list[str]:
        """Algebraic names of the squares that must change for the board to show the position it
        must show: during a correction (IT 8.4) the position before the irregular move, after a
        disturbance (IT 7.8) the last position. Empty when nothing is to be put right."""
        target: Board | None = None
        if self._correcting is not None:
            target = self._correcting.before
        elif self._disturbed is not None or self._light_pieces():
            target = self._ref
        if target is None:
            return []
        diff = self._sensed ^ set(target.occupied_algebraic())
        return sorted(diff, key=lambda s: (int(s[1:]), s[0]))

    @property
    def pending(self) -> Flag | None:
        """The irregularity waiting for the opponent's decision, if any."""
        return self._pending.flag if self._pending else None

    def feed(self, event: Event) -> list[Flag]:
        """Process one event; returns the flags it raised (also appended to ``flags``)."""
        before = len(self.flags)
        self._fire_timers(event.t)
        self._now = max(self._now, event.t)
        if self._clock_mode and not self._clock.started and not (
                isinstance(event, ArbiterActed) and event.action == "start_clock"):
            # COMP 4.4.2: the arbiter starts the clock; a trace that does not say when starts
            # it at its first event
            self._clock.start(self._mover(), event.t)
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
        self._check_time(event.t)
        return self.flags[before:]

    def feed_all(self, events: Iterable[Event]) -> None:
        for e in events:
            self.feed(e)

    def advance(self, t: float) -> list[Flag]:
        """Time has reached ``t`` with no event: fire the settle timer of a game without clock."""
        before = len(self.flags)
        self._fire_timers(t)
        self._now = max(self._now, t)
        self._check_time(t)
        return self.flags[before:]

    # ------------------------------------------------------------------ turn state

    def _reset_turn(self, ref: Board) -> None:
        """Start following the physical board from the reference position ``ref``."""
        self._ref = ref
        num = self._g.number_of_algebraic
        self._phys: dict[str, int | None] = {s: num.get(s) for s in self._sensed}
        for s, o in self._phys.items():
            if o is not None and ref.piece_at(o) is None:
                self._phys[s] = None
        self._hand: list[int | None] = []
        self._log: list[tuple[str, str, float, int | None]] = []
        self._first_touch: int | None = self._obligation
        self._accomodo = False
        self._maybe_brush: tuple[str, int | None, float] | None = None
        self._last_change = self._now
        legal = ref.legal_moves if self.game.outcome is None else []
        self._playable = {m.from_square for m in legal}
        occ = ref.occupied_algebraic()
        alg = self._g.algebraic_of
        self._after: dict[frozenset[str], Move] = {}
        for m in legal:
            key = (occ - {alg[m.from_square]} - {alg[c] for c in m.captures}) | {alg[m.to_square]}
            self._after[frozenset(key)] = m

    def _mover(self) -> int:
        return self._ref.turn

    def _label(self, n: int | None, name: str) -> str:
        return str(n) if n is not None else name

    def _flag(self, t: float, key: str, side: int | None, kind: str, status: str,
              text: str) -> Flag | None:
        c = article(self.variant, key)
        if c is None:
            return None
        f = Flag(t, c, COLOR_NAMES[side] if side is not None else None, kind, status, text)
        self.flags.append(f)
        return f

    def _flag_code(self, t: float, code: str, side: int | None, kind: str, status: str,
                   text: str) -> Flag:
        f = Flag(t, code, COLOR_NAMES[side] if side is not None else None, kind, status, text)
        self.flags.append(f)
        return f

    # ------------------------------------------------------------------ lifts and places

    def _on_lift(self, t: float, name: str) -> None:
        if self.game.outcome is not None:
            self._raw_lift(t, name)
            return
        if name not in self._sensed:
            return  # a sensor opening on an empty square: noise
        self._settle_brush(t, None)
        origin = self._phys.get(name)
        piece = self._ref.piece_at(origin) if origin is not None else None
        c = self._mover()
        # No clock: the opponent lifting a piece commits a complete move (TRACE.md)
        if (not self._clock_mode and piece is not None and piece.color != c
                and self._correcting is None and self._pending is None
                and frozenset(self._sensed) in self._after):
            self._commit_shown(self._last_change, None)
            origin = self._phys.get(name)
            piece = self._ref.piece_at(origin) if origin is not None else None
            c = self._mover()
        # IT 8.3: the offender's opponent lifting one of his own movable pieces keeps the
        # irregularity (the irregular position is the reference while it is pending)
        if (self._pending is not None and piece is not None
                and piece.color == 1 - self._pending.offender and origin in self._playable):
            self._maintain(t, by_play=True)
            origin = self._phys.get(name)
            piece = self._ref.piece_at(origin) if origin is not None else None
        self._raw_lift(t, name)
        if self._hand and len(self._hand) > 1:
            self._maybe_brush = (name, origin, t)  # judged at the next event (brush or touch)
        else:
            self._judge_touch(t, name, origin)

    def _raw_lift(self, t: float, name: str) -> None:
        if name not in self._sensed:
            return
        self._sensed.discard(name)
        origin = self._phys.pop(name, None)
        self._hand.append(origin)
        self._log.append(("L", name, t, origin))
        self._last_change = t

    def _on_place(self, t: float, name: str) -> None:
        if name in self._sensed:
            return  # a piece put on an occupied square (a crowning stack) changes no sensor
        brush = self._settle_brush(t, name)
        origin: int | None
        if self._log and self._log[-1][0] == "L" and self._log[-1][1] == name and self._hand:
            origin = self._log[-1][3]
            self._hand.pop()
            lifted = self._ref.piece_at(origin) if origin is not None else None
            if (lifted is not None and not brush and self._pending is None
                    and self._correcting is None and self.game.outcome is None):
                if lifted.color != self._mover():
                    # IT 3.11: the player not on move touched (lifted and put back) a piece
                    self._flag(t, "touch_not_on_move", lifted.color, "notice", "noted",
                               f"lifted {origin} and put it back when not on move")
                elif origin not in self._playable and not self._accomodo:
                    # IT 3.10: a non-playable piece touched without announcing "accomodo"
                    self._flag(t, "touch_unplayable", lifted.color, "notice", "noted",
                               f"lifted {origin}, which cannot be played, and put it back")
            if (self._accomodo and origin is not None and self._first_touch == origin
                    and self._obligation is None
                    and self._g.number_of_algebraic.get(name) == origin):
                self._first_touch = None  # IT 3.9: an announced adjustment is not a touch
        elif self._hand:
            origin = self._hand.pop(self._which_in_hand(name))
        else:
            origin = None  # a piece from outside the board
        self._sensed.add(name)
        self._phys[name] = origin
        self._log.append(("P", name, t, origin))
        self._last_change = t
        if (origin is None and self.game.outcome is None and self._disturbed is None
                and self._correcting is None):
            self._disturb(t, f"a piece appeared on {self._label(self._g.number_of_algebraic.get(name), name)}")
        self._check_restored(t)

    def _which_in_hand(self, name: str) -> int:
        """Index in the hand of the piece being put on ``name``: a piece coming back to its own
        square; else the last piece of the player on move lifted; else the last lifted."""
        home = self._g.number_of_algebraic.get(name)
        if home is not None and home in self._hand:
            return self._hand.index(home)
        c = self._mover()
        for i in range(len(self._hand) - 1, -1, -1):
            o = self._hand[i]
            p = self._ref.piece_at(o) if o is not None else None
            if p is not None and p.color == c:
                return i
        return len(self._hand) - 1

    def _settle_brush(self, t: float, placed: str | None) -> bool:
        """Decide about a lift made with another piece in the hand: put straight back, a brush
        (returns True); otherwise a touch like any other."""
        if self._maybe_brush is None:
            return False
        name, origin, lt = self._maybe_brush
        self._maybe_brush = None
        if placed == name:
            return True
        self._judge_touch(lt, name, origin)
        return False

    def _judge_touch(self, t: float, name: str, origin: int | None) -> None:
        """IT 3.7-3.11 on a lift (a sensor sees a lift, not a touch)."""
        if origin is None or self._correcting is not None or self.game.outcome is not None:
            return
        piece = self._ref.piece_at(origin)
        if piece is None:
            return
        c = self._mover()
        if self._pending is not None:
            return  # the offender's opponent deciding: his lifts are judged by IT 8.3 above
        if piece.color == c and origin in self._playable and self._first_touch is None:
            self._first_touch = origin  # IT 3.7, 3.8: the first playable piece touched
        # a non-playable piece, or one of the side not on move: judged when it comes straight
        # back (IT 3.10, 3.11); moved elsewhere, at the completion of the move

    # ------------------------------------------------------------------ completing a move

    def _fire_timers(self, t: float, force: bool = False) -> None:
        """No clock: commit the move on the board after ``settle`` quiet seconds (TRACE.md)."""
        if self._clock_mode or self.game.outcome is not None:
            return
        if self._correcting is not None or self._pending is not None or not self._log:
            return
        if not force and t - self._last_change < self._settle:
            return
        if self._maybe_brush is not None:
            self._settle_brush(t, None)
        if frozenset(self._sensed) in self._after:
            self._commit_shown(self._last_change, None)
        elif self._log[-1][0] == "P" or force:
            self._complete(self._last_change, None)

    def _commit_shown(self, t: float, presser: int | None) -> None:
        self._complete(t, presser)

    def _light_pieces(self) -> list[str]:
        num = self._g.number_of_algebraic
        return [s for s in self._sensed if s not in num]

    def _complete(self, t: float, presser: int | None) -> None:
        """The player on move declares his move complete (clock press, or no-clock commit)."""
        c = self._mover()
        light = self._light_pieces()
        if light:
            names = ", ".join(sorted(light))
            self._flag(t, "light_square", c, "notice", "pending",
                       f"a piece on the light square(s) {names} is inactive")
            self._disturb(t, f"piece on light square {names}")
            return
        num = self._g.number_of_algebraic
        on_board = {num[s]: o for s, o in self._phys.items()}
        previous: Board | None = None
        if self._pending is None and self.game.moves and self.game.moves[-1].setup_fen is None:
            previous = self.game.board.copy()
            previous.pop()
        j = judge(self._ref, on_board, presser, previous)
        if j.key == "nothing":
            if presser is not None:
                self._flag_code(t, "COMP 4.4.5", presser, "notice", "noted",
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
        """A legal move shown on the board: touch-move and capture execution, then commit."""
        c = self._mover()
        if self._first_touch is not None and self._first_touch != move.from_square:
            touched = self._first_touch
            self._irregular(t, Judgement("touch", c, f"touched {touched}, moved "
                                         f"{move.from_square}", move=move, legal=True,
                                         after_fen=None), touched=touched)
            return
        if move.is_capture:
            if self._check_removal(t, move):
                return
        self._commit(t, move)

    def _check_removal(self, t: float, move: Move) -> bool:
        """IT 5.12 / INT 4.11: removal in the direct or reverse order of a legal capture order,
        after the capture is complete. Returns True when an irregularity now waits (INT 5.4.10)."""
        c = self._mover()
        alg = self._g.algebraic_of
        caps = {alg[n]: n for n in move.captures}
        to_name = alg[move.to_square]
        landed = max((i for i, e in enumerate(self._log) if e[0] == "P" and e[1] == to_name),
                     default=-1)
        order: list[int] = []
        early = False
        last_put_back: dict[str, int] = {}
        for i, e in enumerate(self._log):
            if e[0] == "P":
                last_put_back[e[1]] = i
        for i, e in enumerate(self._log):
            if e[0] == "L" and e[1] in caps and last_put_back.get(e[1], -1) < i:
                order.append(caps[e[1]])
                if i < landed:
                    early = True
        if early:
            key = "early_removal"
            if self.variant.code in ("IT", "EN"):
                self._flag(t, key, c, "incorrectness", "noted",
                           "captured piece removed before the capture was complete")
            else:
                self._irregular(t, Judgement(key, c, "captured piece removed before the capture "
                                             "was over", move=move, legal=True))
                return True
        if len(order) > 1:
            ok = any(order == list(cs) or order == list(reversed(cs))
                     for _, cs in move.alternatives)
            if not ok:
                self._flag(t, "removal_order", c, "incorrectness", "noted",
                           "captured pieces removed out of order: "
                           + ", ".join(str(n) for n in order))
        return False

    def _commit(self, t: float, move: Move) -> None:
        c = self._mover()
        if self._draw_offer is not None and self._draw_offer != c:
            # COMP 6.15: playing on declines the offer
            self._draw_refused[self._draw_offer] = True
            self._draw_offer = None
        if self._clock_mode:
            self._clock.press(c, t)
        rec = self.game.play(move, t=t, clock=self._clock.reading(t))
        log.debug("move %s", rec.notation)
        if self.game.outcome is not None:
            self._clock.stop_both(t)
        self._after_commit()

    def _after_commit(self) -> None:
        self._obligation = None
        self._started = True
        if self._disturbed is not None:
            self._disturbed.status = "corrected"
            self._disturbed = None
        self._reset_turn(self.game.board)

    # ------------------------------------------------------------------ irregularities

    def _irregular(self, t: float, j: Judgement, touched: int | None = None) -> None:
        """IT 8.2: only the offender's opponent decides. Until he does, the irregular position
        stands on the board and his clock runs."""
        assert j.key is not None and j.offender is not None
        kind = "irregularity" if j.key in IRREGULARITIES else "incorrectness"
        flag = self._flag(t, j.key, j.offender, kind, "pending", j.text)
        if flag is None:  # no such article in this rule set: treat as a plain irregular move
            flag = self._flag(t, "irregular_move", j.offender, "irregularity", "pending", j.text)
            assert flag is not None
        if j.legal and j.move is not None:
            after = self._ref.copy(stack=False)
            after.push(j.move)
        else:
            assert j.after_fen is not None
            after = Board(j.after_fen, self.variant)
        pressed = self._clock_mode and j.offender == self._mover()
        self._pending = _Pending(flag, j.offender, j, self._ref.copy(), after, t, touched, pressed)
        if pressed:
            self._clock.press(j.offender, t)
        self._obligation = None
        self._reset_turn(after)
        # the decider is the side to move in ``after`` unless the offender must move again
        if after.turn == j.offender:
            self._playable = {m.from_square for m in _turned(after, 1 - j.offender).legal_moves}

    def _maintain(self, t: float, by_play: bool) -> None:
        """IT 8.2/8.3: the irregularity is kept; the position on the board becomes the game."""
        p = self._pending
        assert p is not None
        self._pending = None
        p.flag.status = "maintained"
        j = p.judgement
        if j.legal and j.move is not None:
            self.game.play(j.move, t=p.t)
        else:
            if j.move is not None and p.after.turn != p.offender:
                names = self._g.algebraic_of if self.variant.algebraic_pdn else None
                self.game.record_irregular(j.move, j.move.notation(names=names), p.offender,
                                           p.after.fen(), p.t)
            else:
                self.game.set_position(p.after.fen(), p.t)
        self._started = True
        sensed_ref = self.game.board
        # keep following the pieces already lifted: the reference position is the same
        phys, hand, logl = self._phys, self._hand, self._log
        self._reset_turn(sensed_ref)
        self._phys, self._hand, self._log = phys, hand, logl
        if self._clock_mode and self._clock.running != self.game.board.turn:
            self._clock.start(self.game.board.turn, t)

    def _correct(self, t: float) -> None:
        """IT 8.4: the position before the irregular move must be restored; the offender's clock
        runs meanwhile (COMP 4.13)."""
        p = self._pending
        assert p is not None
        self._pending = None
        p.flag.status = "corrected"
        self._correcting = p
        self._clock.begin_correction(p.offender, t, p.pressed)
        self._check_restored(t)

    def _check_restored(self, t: float) -> None:
        if self._correcting is not None:
            p = self._correcting
            if self._sensed == set(p.before.occupied_algebraic()):
                self._correcting = None
                self._clock.end_correction(t)
                if self._clock_mode:
                    self._clock.start(p.before.turn, t)
                # the offender plays again with the obligation that follows: the touched piece
                # after IT 8.1.3 (a capture after 8.1.6 is compulsory anyway, IT 6.1)
                self._obligation = p.touched if p.before.turn == p.offender else None
                self._reset_turn(p.before)
            return
        if self._disturbed is not None and not self._light_pieces():
            if self._sensed == set(self._ref.occupied_algebraic()):
                self._disturbed.status = "corrected"
                self._disturbed = None
                self._close_setup_flags()
                keep = self._first_touch
                self._reset_turn(self._ref)
                self._first_touch = keep

    def _close_setup_flags(self) -> None:
        for f in self._setup_flags:
            f.status = "corrected"
        self._setup_flags.clear()

    def _disturb(self, t: float, text: str) -> None:
        """IT 7.8 / INT 5.5: nothing is committed; the board lists the squares to put right."""
        if self._disturbed is not None:
            return
        self._disturbed = self._flag(t, "disturbed", None, "notice", "pending",
                                     f"position disturbed ({text}): put it right or restore")

    # ------------------------------------------------------------------ buttons

    def _on_button(self, e: ButtonPressed) -> None:
        side = WHITE if e.side == "white" else 1
        t = e.t
        if self.game.outcome is not None:
            return
        self._settle_brush(t, None)
        name = e.name
        if name == "clock":
            self._on_clock(t, side)
        elif name == "accomodo":
            if side == self._mover():
                self._accomodo = True  # IT 3.9 / INT 3.13
        elif name in ("correct", "accept"):
            self._on_decision(t, side, name)
        elif name == "resign":
            self.game.resign(side)
            self._clock.stop_both(t)
        elif name == "draw_offer":
            self._on_draw_offer(t, side)
        elif name == "draw_accept":
            if self._draw_offer is not None and self._draw_offer != side:
                self.game.agree_draw()
                self._clock.stop_both(t)
            else:
                self._flag_code(t, "COMP 6.15", side, "notice", "noted",
                                "draw accepted but no draw offer stands")
        elif name == "count":
            self._on_count(t, side, imposed=False)
        elif name == "repetition":
            self._on_repetition(t, side)

    def _on_clock(self, t: float, side: int) -> None:
        if self._correcting is not None:
            self._flag_code(t, "COMP 4.13", side, "notice", "noted",
                            "clock pressed during a correction: the position is not restored yet")
            return
        c = self._mover()
        if self._pending is not None:
            if side == self._pending.offender:
                return  # the offender's clock is not running
            # the decider pressing without deciding: judge what he did as his move
            if self._sensed == set(self._ref.occupied_algebraic()):
                self._flag_code(t, "COMP 4.4.5", side, "notice", "noted",
                                "clock pressed without a move")
                return
            self._maintain(t, by_play=True)
            self._complete(t, side)
            return
        if side != c:
            # the side not on move pressing: only a second move of its own is judged (IT 8.1.1)
            num = self._g.number_of_algebraic
            if self._light_pieces() or self._sensed == set(self._ref.occupied_algebraic()):
                return
            on_board = {num[s]: o for s, o in self._phys.items()}
            j = judge(self._ref, on_board, side, None)
            if j.key in ("twice",) and j.offender == side:
                self._irregular(t, j)
            return
        self._complete(t, side)

    def _on_decision(self, t: float, side: int, name: str) -> None:
        p = self._pending
        if p is None:
            self._judge_previous_mover(t, side)
            p = self._pending
        if p is None:
            return
        if side == p.offender:
            # IT 8.2: only the offender's opponent decides
            self._flag(t, "offender_decides", side, "notice", "noted",
                       f"{name} pressed by the offender: ignored")
            return
        if name == "accept":
            self._maintain(t, by_play=False)
        else:
            self._correct(t)

    def _judge_previous_mover(self, t: float, side: int) -> None:
        """The player on move demands a decision before moving: the board may show a takeback
        (IT 8.1.4) or a second move (IT 8.1.1) of his opponent."""
        if side != self._mover() or not self.game.moves or self._light_pieces():
            return
        if self._sensed == set(self._ref.occupied_algebraic()):
            return
        num = self._g.number_of_algebraic
        on_board = {num[s]: o for s, o in self._phys.items()}
        previous = None
        if self.game.moves[-1].setup_fen is None:
            previous = self.game.board.copy()
            previous.pop()
        j = judge(self._ref, on_board, 1 - side, previous)
        if j.key in ("twice", "takeback") and j.offender == 1 - side:
            self._irregular(t, j)

    def _on_draw_offer(self, t: float, side: int) -> None:
        """COMP 6.15: only after one's own move and before pressing the clock; not repeated after
        a refusal until the opponent offers."""
        c = self._mover()
        shown = frozenset(self._sensed) in self._after
        own_move_done = (side == c and shown) if self._clock_mode else (
            side == c and shown or side != c and not self._log)
        if not own_move_done:
            self._flag_code(t, "COMP 6.15", side, "notice", "noted",
                            "draw offered other than after one's own move, before the clock")
            return
        if self._draw_refused[side]:
            self._flag_code(t, "COMP 6.15", side, "notice", "noted",
                            "draw offered again before the opponent offered one")
            return
        self._draw_offer = side
        self._draw_refused[1 - side] = False

    def _on_count(self, t: float, side: int | None, imposed: bool) -> None:
        if self.variant.draws.count_moves == 0:
            self._flag_code(t, "COMP 6.16", side, "notice", "noted",
                            "no move-count procedure in this variant (automatic draws apply)")
            return
        if self.game.start_count(imposed=imposed):
            who = "imposed by the arbiter" if imposed else "requested"
            self._flag(t, "count_request", side, "notice", "noted",
                       f"move count {who}: {self.variant.draws.count_moves} king moves each")
        else:
            self._flag(t, "count_impossible", side, "notice", "noted",
                       "the move count needs at least one king each")

    def _on_repetition(self, t: float, side: int) -> None:
        d = self.variant.draws
        if d.repetition_automatic or not d.repetitions:
            self._flag_code(t, "COMP 6.16", side, "notice", "noted",
                            "no repetition claim in this variant")
            return
        if not self.game.claim_repetition():
            self._flag(t, "repetition", side, "notice", "noted",
                       f"repetition not confirmed ({self.game.repetition_count()} occurrence(s)); "
                       "the board verified it at once, so no verification time is charged "
                       "(IT 9.3 b2)")
        else:
            self._clock.stop_both(t)

    # ------------------------------------------------------------------ arbiter and snapshots

    def _on_arbiter(self, e: ArbiterActed) -> None:
        t = e.t
        a = e.action
        if a == "note":
            self._flag_code(t, "COMP 6.16", None, "notice", "noted", e.text or "")
        elif a == "adjudicate":
            if self.game.outcome is None and e.result:
                self.game.adjudicate(e.result)
                self._clock.stop_both(t)
        elif a == "start_clock":
            self._clock.start(self._mover(), t)
        elif a == "stop_clock":
            self._clock.stop_both(t)
        elif a == "impose_count":
            if self.game.outcome is None:
                self._on_count(t, None, imposed=True)
        elif a == "restore":
            self._restore(t)

    def _restore(self, t: float) -> None:
        """IT 7.8: the arbiter puts the last position back on the board."""
        target = self._correcting.before if self._correcting is not None else self._ref
        self._sensed = set(target.occupied_algebraic())
        if self._disturbed is not None:
            self._disturbed.status = "corrected"
            self._disturbed = None
        self._close_setup_flags()
        for f in self.flags:
            if f.status == "pending" and f.code == article(self.variant, "light_square"):
                f.status = "corrected"
        if self._correcting is not None:
            self._check_restored(t)
            return
        keep = self._first_touch
        self._reset_turn(self._ref)
        self._first_touch = keep

    def _on_snapshot(self, e: SnapshotTaken) -> None:
        t = e.t
        self._sensed = set(e.occupied)
        num = self._g.number_of_algebraic
        for s in list(self._phys):
            if s not in self._sensed:
                self._hand.append(self._phys.pop(s))
        for s in self._sensed:
            if s not in self._phys:
                self._phys[s] = None
        expected = set(self._ref.occupied_algebraic())
        if self._sensed == expected:
            self._close_setup_flags()
            self._check_restored(t)
            if self._correcting is None and self._disturbed is None:
                keep = self._first_touch
                self._reset_turn(self._ref)
                self._first_touch = keep
            return
        if not self._started and not self._log and self._pending is None:
            mirrored = {_mirror(s, self.variant.size) for s in expected}
            if self._sensed == mirrored:
                f = self._flag(t, "orientation", None, "notice", "pending",
                               "the board is turned the wrong way")
            else:
                missing = sorted(expected - self._sensed)
                extra = sorted(self._sensed - expected)
                f = self._flag(t, "setup", None, "notice", "pending",
                           "set-up differs from the starting position: missing "
                           + (", ".join(missing) or "none") + "; extra "
                           + (", ".join(extra) or "none"))
            if f is not None:
                self._setup_flags.append(f)
        light = [s for s in self._sensed if s not in num]
        if light:
            self._flag(t, "light_square", None, "notice", "pending",
                       "piece(s) on light square(s) " + ", ".join(sorted(light)))
        self._disturb(t, "the sensors see another position")

    def _check_time(self, t: float) -> None:
        if self.game.outcome is not None or not self._clock_mode:
            return
        fell = self._clock.flagged(t)
        if fell is not None:
            if fell[0] is None:
                self.game.adjudicate(self.game.result_for(None), "both flags fell (COMP 5.9.4)")
            else:
                self.game.lose_on_time(fell[0], clock=self._clock.reading(t))


def _turned(board: Board, turn: int) -> Board:
    b = board.copy(stack=False)
    b.turn = turn
    return b


def _mirror(name: str, size: int) -> str:
    f = ord(name[0]) - ord("a")
    return f"{chr(ord('a') + size - 1 - f)}{name[1:]}"
