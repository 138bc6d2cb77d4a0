"""The virtual board acting out a trace under the running daemon, on a simulated clock.

:class:`TracePlayer` is the daemon's companion coroutine (``pi.daemon.Parts.companion``). It
owns the simulated clock (a :class:`~hardware_mocks.clock.FakeClock`, the daemon's GameTime
monotonic) and the sensor scan loop, which has no thread in this mode (``Simulation.parts``).

How time moves: the player jumps the clock from one instant that matters to the next — the
scan loop's next wake-up (debounce expiry, safety poll, configuration check), the controller's
next deadline (settle timer, flag fall, lampo countdown), the next trace event — turning the
real scan loop (``ScanLoop.step``, whose sink is the daemon's inbox) at each, and then yields
to the event loop until the daemon's own loop has handled what arrived (the same
``controller.handle``/``tick`` code as on the Pi). A deadline reached wakes that loop with an
empty input list (a scan with nothing to say). ``pace`` None (``--speed max``): no waiting at
all; a number: the player sleeps (simulated seconds ÷ pace) before each jump, and moves at most
0.1 simulated second at a time so the clocks on the screen run smoothly.

How events are acted out: lifts and places as sensor levels on the fake chips
(``VirtualBoard.lift/place``), buttons as pin edges on the wiring's GPIOs (a control the wiring
has no pin for goes to the daemon's queue as a ``ButtonPressed``, stamped now, and is logged),
arbiter actions to the daemon's queue as ``ArbiterActed`` (the daemon's arbiter interface),
``end`` by letting the pending settle timer fire. A snapshot sets the whole board; in a game it
is one observation of the whole board, handed to the daemon's queue as the scan loop hands its
outputs (the sensors' own reports of the same changes follow, no news to the arbiter); while a
wrong set-up is put right before the game (:attr:`ResumePoint.setup`) the daemon's set-up
check follows the sensors, change by change, and their snapshot. A sensor reports a level
~30 ms (the debounce) after it changed, stamped with the time it first saw it; an event is
acted only once every earlier physical change has been reported, so the daemon sees them in
the trace's order (events closer than the debounce are spaced by it; their ``t`` differs by
those milliseconds, nothing else).
A physically impossible event (a lift from an empty square, a place on a full one) cannot be
acted: it is skipped and logged.

Resume after a crash: :func:`resume_point` walks the trace beside the unfinished game's journal
and finds the first event the journal does not hold and the board's physical state before it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.events import (ArbiterActed, ButtonPressed, Event, PieceChanged, PieceLifted,
                           PiecePlaced, SnapshotTaken, TraceEnded)
from engine.clock import ClockState
from engine.trace import CLOCK_START_ARBITER
from hardware_mocks.gpio import tap
from hardware_mocks.positions import pieces_on
from pi.board.scan_loop import MAX_SCANS_PER_INSTANT, ScanLoop

if TYPE_CHECKING:
    from hardware_mocks.simulated import Simulated
    from pi.board.controller import BoardController
    from pi.drivers.sensors import SensorScanner

log = logging.getLogger(__name__)

__all__ = ["TracePlayer", "ResumePoint", "resume_point"]

#: Event-loop turns after the inbox is empty: the daemon's loop needs about four (the queue's
#: getter, asyncio.wait's callback, the loop's task) to handle the input and tick.
_SETTLE_TURNS = 8
#: At a finite speed, the clock moves at most this far per step (a smooth clock on screen).
_FRAME = 0.1
#: Journal lines the machine adds; a snapshot right after one is the board's check.
_MACHINE_LINES = ("restart", "fault", "fault_cleared")
#: In a hall, the real seconds the players wait before the trace's first event: for the
#: board's link to be subscribed, then for the round's pairing (the hub sends it when it
#: sees the board online), then for the arbiter's start of the clock once the pairing's game
#: waits for him (:meth:`TracePlayer.wait_for_round`).
HALL_LINK_WAIT = 10.0
HALL_PAIRING_WAIT = 3.0
HALL_CLOCK_WAIT = 60.0


def _physical_ok(occupied: set[str], event: Event) -> bool:
    if isinstance(event, PieceLifted):
        return event.square in occupied
    if isinstance(event, PiecePlaced):
        return event.square not in occupied
    return True


def _apply(occupied: set[str], event: Event) -> None:
    if isinstance(event, PieceLifted):
        occupied.discard(event.square)
    elif isinstance(event, PiecePlaced):
        occupied.add(event.square)
    elif isinstance(event, SnapshotTaken):
        occupied.clear()
        occupied.update(event.occupied)


@dataclass(frozen=True)
class ResumePoint:
    """Where acting the trace (re)starts: ``index`` of the first event to act, the physical
    ``occupied`` squares (logical names) before it, ``resumed``: a journal was found; ``t``:
    the trace time of the last event the journal holds (the next ones keep their spacing
    from it); ``setup``: how many events from ``index`` on put a wrong set-up right before the
    game begins (0 once the game is on)."""

    index: int
    occupied: frozenset[str]
    resumed: bool
    t: float = 0.0
    setup: int = 0


def resume_point(events: Sequence[Event], journal: Sequence[dict[str, Any]] | None,
                 expected: frozenset[str]) -> ResumePoint:
    """Without a journal: the board starts as the trace's first event shows it when that is a
    snapshot (the set-up, not acted), or in the ``expected`` starting position. A set-up that
    differs from ``expected`` is put right by the events that follow, until the board first
    shows ``expected``: the daemon checks the set-up before a game begins (its set-up screen,
    nothing journaled), so those events are acted before the game (``setup``).
    With the ``journal`` lines of the unfinished game: the set-up is behind, and the trace's
    events are matched in order with the journal's input lines (the start line, the set-up
    snapshot, the machine's ``restart``/``fault``/``fault_cleared`` lines and the snapshot
    checked after each are not inputs, nor the ``start_clock`` a :class:`TracePlayer` gave
    after a restart, nor a line that tells nothing new of the board: a snapshot of what it
    shows, the sensors' own report of a change a snapshot already gave; events that cannot be
    acted produce no line); the first event without its line is where the run goes on, the
    board as the journal's last line left it."""
    index = 0
    occupied = set(expected)
    if events and isinstance(events[0], SnapshotTaken):
        occupied = set(events[0].occupied)
        index = 1
    setup = index
    board = set(occupied)
    while setup < len(events) and board != expected:
        if _physical_ok(board, events[setup]):
            _apply(board, events[setup])
        setup += 1
    if journal is None:
        return ResumePoint(index, frozenset(occupied), False, setup=setup - index)
    index, occupied = setup, board
    lines = [ln for ln in journal[1:] if isinstance(ln, dict)]
    inputs: list[dict[str, Any]] = []
    #: indexes in ``inputs`` of the ``start_clock`` a player put after a restart (not the trace's)
    restarted: set[int] = set()
    checking = True  # the first snapshot is the set-up one
    after_restart = False
    for line in lines:
        kind = line.get("type")
        if kind in _MACHINE_LINES:
            checking = True
            after_restart = kind == "restart"
            continue
        if kind == "snapshot" and checking:
            checking = False
            continue
        checking = False
        if after_restart and kind == "arbiter" and line.get("action") == "start_clock":
            restarted.add(len(inputs))
        after_restart = False
        inputs.append(line)
    pos = 0
    while index < len(events) and pos < len(inputs):
        event = events[index]
        if not _physical_ok(occupied, event):
            index += 1
            continue
        if (pos in restarted or _no_news(occupied, inputs[pos])) \
                and not _matches(event, inputs[pos]):
            pos += 1  # the player restarted the clock (COMP 7.3-7.4), or the board said nothing
            continue
        if isinstance(event, SnapshotTaken):
            while pos < len(inputs) and inputs[pos].get("type") in ("lift", "place"):
                _apply_line(occupied, inputs[pos])
                pos += 1
            if pos == len(inputs):
                break  # the board's changes are in, its snapshot is not: act it again
        line = inputs[pos]
        if not _matches(event, line):
            log.warning("journal line %r does not follow the trace (event %d, %r): the rest "
                        "of the trace is played from there", line, index, event)
            break
        _apply(occupied, event)
        pos += 1
        index += 1
    return ResumePoint(index, frozenset(occupied), True, events[index - 1].t if index else 0.0)


def _no_news(occupied: set[str], line: dict[str, Any]) -> bool:
    """A journal line that leaves the board as ``occupied`` says."""
    kind, square = line.get("type"), line.get("square")
    if kind == "snapshot":
        return frozenset(map(str, line.get("occupied", ()))) == occupied
    if kind == "lift":
        return square not in occupied
    if kind == "place":
        return square in occupied
    return False


def _apply_line(occupied: set[str], line: dict[str, Any]) -> None:
    square = line.get("square")
    if line.get("type") == "lift":
        occupied.discard(str(square))
    else:
        occupied.add(str(square))


def _matches(event: Event, line: dict[str, Any]) -> bool:
    kind = line.get("type")
    if isinstance(event, PieceLifted):
        return kind == "lift" and line.get("square") == event.square
    if isinstance(event, PiecePlaced):
        return kind == "place" and line.get("square") == event.square
    if isinstance(event, PieceChanged):
        return kind == "piece" and line.get("square") == event.square
    if isinstance(event, ButtonPressed):
        return kind == "button" and line.get("name") == event.name \
            and line.get("side") == str(event.side)  # a Colour: "white" / "black"
    if isinstance(event, ArbiterActed):
        return kind == "arbiter" and line.get("action") == event.action
    if isinstance(event, SnapshotTaken):
        return kind == "snapshot" and frozenset(map(str, line.get("occupied", ()))) \
            == event.occupied
    return False


async def _until(predicate: Callable[[], bool], seconds: float) -> bool:
    """Polls ``predicate`` on the event loop (the daemon's loop goes on meanwhile) for at most
    ``seconds`` real seconds; its last answer."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.02)
    return True


class TracePlayer:
    """Acts ``events`` out on ``sim`` (stepped) under the daemon; see the module docstring.
    ``pace``: simulated seconds per real second, None for as fast as possible. ``resumed``:
    the daemon resumed the game of ``journal`` (its lines) after the event at trace time
    ``resumed_at``: the player restarts a clock that
    was running, as the arbiter would (COMP 7.3-7.4). ``settle``: the game's settle time (how
    long ``end`` waits). ``hooks``: called with the simulation before the event of that index
    (of ``events``) is acted. ``setup``: how many of the first events put a wrong set-up right
    before the game begins (:attr:`ResumePoint.setup`)."""

    def __init__(self, sim: Simulated, events: Sequence[Event], *, pace: float | None,
                 resumed: bool = False, resumed_at: float = 0.0, settle: float = 2.0,
                 journal: Sequence[dict[str, Any]] = (),
                 hooks: Mapping[int, Callable[[Simulated], None]] | None = None,
                 setup: int = 0) -> None:
        assert sim.clock is not None, "the trace player needs a stepped simulation"
        self.sim = sim
        self.clock = sim.clock
        self.events = list(events)
        self.pace = pace
        self.resumed = resumed
        self.resumed_at = resumed_at
        self.settle = settle
        self.journal = list(journal)
        self.hooks = dict(hooks or {})
        self.setup = setup
        self.skipped: list[Event] = []
        self._controller: BoardController | None = None
        self._inbox: asyncio.Queue[Any] | None = None
        self._base = 0.0
        #: the board's hall link is subscribed (``BoardLink.subscribed``; set through
        #: ``Parts.on_link``): None when the board is in no hall
        self.hall: threading.Event | None = None

    # ------------------------------------------------------------------ the companion

    async def play(self, controller: BoardController, inbox: asyncio.Queue[Any]) -> None:
        """``Parts.companion``: acts the events, then returns (which stops the daemon)."""
        self._controller, self._inbox = controller, inbox
        await self._settle_loop()
        if self.hall is not None and not self.resumed and self.setup == 0:
            await self.wait_for_round(controller, self.hall)
        # Clock time of trace t: the game began (or resumed) before the player was called. A
        # resumed game's t went on by the time away; the trace's events keep their spacing
        # from the last one journaled (squeezed together they would be other gestures: a
        # brush is not a piece put down).
        self._base = self.clock() - (self.resumed_at if self.resumed else controller.now())
        if self.resumed:
            self._restart_clock(controller)
        last_t = controller.now()
        for i, event in enumerate(self.events):
            await self._advance_to(self._base + event.t)
            await self._quiet()
            hook = self.hooks.get(i)
            if hook is not None:
                hook(self.sim)
                self._turn()
                await self._settle_loop()
            if isinstance(event, TraceEnded):
                await self._end()
                return
            await self._act(event, in_setup=i < self.setup)
            last_t = event.t
        await self._quiet()
        await self._advance_to(self._base + last_t)

    async def wait_for_round(self, controller: BoardController, hall: threading.Event) -> None:
        """In a hall the players, the pieces set up, wait for the round as players do: the
        game the board began at the set-up may be superseded by the round's pairing
        (``pi.board.supersede``: only while untouched), and a round's game waits for the
        arbiter to start its clock (COMP 4.4.2). So before the trace's first event: the link
        subscribed (at most :data:`HALL_LINK_WAIT` s), the pairing's game begun (at most
        :data:`HALL_PAIRING_WAIT` s more: none comes outside a started round), then, if its
        clock waits for the arbiter, his ``start_clock`` (at most :data:`HALL_CLOCK_WAIT` s).
        Real seconds, the simulated clock standing still: the trace's times are kept."""
        def waits() -> bool:
            s = controller.session
            return s is not None and not s.finished \
                and s.start_line.get("clock_start") == CLOCK_START_ARBITER

        def ready() -> bool:
            s = controller.session
            clock = None if s is None else s.arbiter.clock
            return clock is None or clock.state != ClockState.READY

        if not await _until(hall.is_set, HALL_LINK_WAIT):
            log.warning("the hall's broker not reached: the trace is played without a round")
            return
        if not await _until(waits, HALL_PAIRING_WAIT):
            log.info("no round's pairing for this board: the trace is played as it began")
            return
        if not await _until(ready, HALL_CLOCK_WAIT):
            log.warning("the arbiter did not start the clock in %.0f s: the trace is played",
                        HALL_CLOCK_WAIT)
            return
        log.info("the round's game (%s) and its clock started: the trace is played",
                 controller.session.id if controller.session is not None else "?")

    def _restart_clock(self, controller: BoardController) -> None:
        session = controller.session
        if session is None or session.finished:
            return
        clock = session.arbiter.clock
        if clock is None or clock.state != ClockState.STOPPED:
            return
        stopped_by_arbiter = False
        for line in self.journal:
            if line.get("type") == "arbiter" and line.get("action") in ("start_clock",
                                                                         "stop_clock"):
                stopped_by_arbiter = line.get("action") == "stop_clock"
        if not stopped_by_arbiter:
            self._put(ArbiterActed(self.sim.time.stamp(), "start_clock"))

    async def _end(self) -> None:
        """``end``: journaled like the trace's other lines (the arbiter lets a pending settle
        timer fire there, docs/trace-format.md), then the deadlines still within ``settle`` pass."""
        controller = self._controller
        assert controller is not None
        self._put(TraceEnded(self.sim.time.stamp()))
        await self._quiet()
        limit = self.clock() + self.settle + 0.001
        while True:
            deadline = controller.next_deadline()
            if deadline is None or deadline > limit:
                return
            await self._advance_to(max(deadline, self.clock()))
            if controller.next_deadline() == deadline:
                return  # the deadline did not move: nothing more will happen

    # ------------------------------------------------------------------ acting

    async def _act(self, event: Event, in_setup: bool = False) -> None:
        board = self.sim.board
        assert board is not None
        if isinstance(event, (PieceLifted, PiecePlaced)):
            occupied = set(board.occupied)
            if not _physical_ok(occupied, event):
                log.warning("trace event %r cannot be acted on the board (the square is %s): "
                            "skipped", event, "empty" if isinstance(event, PieceLifted)
                            else "occupied")
                self.skipped.append(event)
                return
            if isinstance(event, PieceLifted):
                board.lift(event.square)
            else:  # on an analog board, the piece the trace saw (else the one lifted last)
                board.place(event.square, piece=event.piece)
        elif isinstance(event, PieceChanged):
            piece = board.piece(event.square)
            if piece is None or piece.king == event.piece.king:
                log.warning("trace event %r cannot be acted on the board: skipped", event)
                self.skipped.append(event)
                return
            (board.crown if event.piece.king else board.uncrown)(event.square)
        elif isinstance(event, SnapshotTaken) and in_setup:
            # Before the game the daemon's set-up check follows the sensors: the board as
            # they see it, change by change, then their snapshot.
            board.set_occupied(event.occupied, dict(event.pieces or {}))
            await self._quiet()
            self.sim_scanner().request_snapshot()
        elif isinstance(event, SnapshotTaken):
            # In a game a snapshot is one observation of the whole board (docs/trace-format.md), judged as
            # one (a difference is a disturbance, IT 7.8): handed over as the scan loop hands
            # its outputs over, at once. The sensors' own reports of the same changes follow
            # and tell the arbiter nothing new; acted as those alone, a piece gone from the
            # board would be a player's touch.
            board.set_occupied(event.occupied, dict(event.pieces or {}))
            self._put([SnapshotTaken(self.sim.time.stamp(), event.occupied, event.pieces)])
        elif isinstance(event, ButtonPressed):
            gpio = self.sim.wiring.buttons.get(event.side.label, {}).get(event.name)
            if gpio is None:
                log.info("no GPIO for %s's %s in the wiring: pressed through the daemon's queue",
                         event.side, event.name)
                self._put(ButtonPressed(self.sim.time.stamp(), event.name, event.side))
            else:
                tap(self.sim.factory, gpio, self.sim.wiring.button_pull_up)
        elif isinstance(event, ArbiterActed):
            if event.action == "restore":
                await self._put_back()
            self._put(ArbiterActed(self.sim.time.stamp(), event.action, event.result,
                                   event.text))
        else:
            log.warning("trace event %r is not acted by the simulator", event)
            return
        self._turn()
        await self._settle_loop()

    async def _put_back(self) -> None:
        """IT 7.8: the arbiter puts the last position back on the board with his hands (the
        sensors see it), then says so (the ``restore`` action)."""
        controller, board = self._controller, self.sim.board
        assert controller is not None and board is not None
        session = controller.session
        if session is None:
            return
        position = session.arbiter.game.board
        target = position.occupied_algebraic()
        gone = sorted(board.occupied - target)
        back = sorted(target - board.occupied)
        if gone:
            board.lift(*gone)
        pieces = pieces_on(position)
        for square in back:
            board.place(square, piece=pieces.get(square))
        self._turn()
        await self._quiet()

    def sim_scanner(self) -> SensorScanner:
        hw = self.sim.hardware
        assert hw is not None
        return hw.scanner

    def _put(self, item: Any) -> None:
        assert self._inbox is not None
        self._inbox.put_nowait(item)

    # ------------------------------------------------------------------ time

    def _turn(self) -> None:
        """Turns the scan loop while it is due (bounded, as the rig does)."""
        scan = self._scan_loop()
        for _ in range(MAX_SCANS_PER_INSTANT + 1):
            if not scan.due():
                return
            scan.step()

    def _scan_loop(self) -> ScanLoop:
        scan = self.sim.scan_loop
        assert scan is not None, "the daemon has not built its scan loop yet"
        return scan

    async def _quiet(self) -> None:
        """Waits (in simulated time) until every physical change made so far was reported (on
        an analog board, the pieces too: a crown put on is reported once decided for 250 ms)."""
        board, scanner = self.sim.board, self.sim_scanner()
        assert board is not None

        def reported() -> bool:
            if scanner.occupancy() != board.occupied:
                return False
            if scanner.identity is None or board.field is None:
                return True
            seen = scanner.identity.pieces()
            return all(seen.get(square) == board.piece(square) for square in board.occupied)
        for _ in range(1000):
            if reported() or scanner.faults:
                return
            await self._advance_to(self._scan_loop().next_wake())
        log.warning("the sensors did not settle on the board's pieces")

    async def _advance_to(self, target: float) -> None:
        """Moves the simulated clock to ``target``, stopping at every scan wake-up and daemon
        deadline on the way; the daemon handles what each produced before the clock moves on."""
        controller = self._controller
        assert controller is not None
        scan = self._scan_loop()
        same_instant = 0
        while True:
            now = self.clock()
            nxt = min(target, scan.next_wake())
            deadline = controller.next_deadline()
            if deadline is not None:
                nxt = min(nxt, deadline)
            if self.pace is not None:
                nxt = min(nxt, now + _FRAME)
            if nxt <= now:
                same_instant += 1
                if same_instant > 3:  # a deadline that does not move: go on to the next
                    nxt = min(target, now + 0.001) if target > now else now
            else:
                same_instant = 0
            if self.pace is not None and nxt > now:
                await asyncio.sleep((nxt - now) / self.pace)
            self.clock.jump_to(nxt)
            self._turn()
            deadline = controller.next_deadline()
            if deadline is not None and self.clock() >= deadline:
                self._put([])  # wakes the daemon's loop: it ticks the controller
            await self._settle_loop()
            if self.clock() >= target and (same_instant > 3 or not self._due(controller)):
                return

    def _due(self, controller: BoardController) -> bool:
        deadline = controller.next_deadline()
        return self._scan_loop().due() or (deadline is not None and self.clock() >= deadline)

    async def _settle_loop(self) -> None:
        """Yields to the event loop until the daemon's loop has handled its inbox."""
        inbox = self._inbox
        assert inbox is not None
        for _ in range(10_000):
            if inbox.empty():
                break
            await asyncio.sleep(0)
        for _ in range(_SETTLE_TURNS):
            await asyncio.sleep(0)

