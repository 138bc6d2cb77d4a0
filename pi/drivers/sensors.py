"""Presence sensors: the scanner that turns expander readings into piece events and faults.

:class:`SensorScanner` is driven by the board's scan loop (``pi.board.scan_loop``), which calls
:meth:`~SensorScanner.scan` when the interrupt line fires or when
:meth:`~SensorScanner.next_deadline` passes, under the bus lock, and hands what ``scan`` returns
to the daemon: engine events (``PieceLifted``, ``PiecePlaced``, ``SnapshotTaken``) and fault
records (:class:`~pi.drivers.faults.SensorFault`, :class:`~pi.drivers.faults.SensorFaultCleared`). A presence
sensor sees a piece leave or arrive: a *touch* without a lift is invisible to it.

Times: one :class:`~pi.drivers.timebase.GameTime` (monotonic clock + epoch, injected); event ``t`` is
seconds since the epoch. A lift or place is stamped with the time the new level was first seen,
and is emitted once the level has held for ``debounce`` seconds; the scanner never emits ``t``
going backwards (until the epoch is set again).

The groups (:mod:`pi.drivers.sensor_groups`), the records (:mod:`pi.drivers.faults`) and the interrupt line
(:mod:`pi.drivers.interrupt`) live in their own modules and are re-exported here.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from engine.events import PieceLifted, PiecePlaced, SnapshotTaken
from engine.squares import ROTATIONS, rotate_square, square_sort_key
from pi.drivers.bus import BUS_LOST_ERRNOS, ManagedBus
from pi.drivers.errors import ChipFailure
from pi.drivers.expanders import SMBusLike
from pi.drivers.faults import (NO_ANSWER, RESET, SensorFault, SensorFaultCleared, SensorInterrupt,
                       SensorOutput)
from pi.drivers.interrupt import InterruptLine
from pi.drivers.orientation import detect_orientation
from pi.drivers.sensor_groups import DirectGroup, MatrixGroup, SensorGroup
from pi.drivers.timebase import GameTime, Monotonic, as_game_time

if TYPE_CHECKING:
    from pi.drivers.analog import PieceIdentity

__all__ = ["BUS_LOST_ERRNOS", "ChipFailure", "DirectGroup", "InterruptLine", "MatrixGroup",
           "SensorFault", "SensorFaultCleared", "SensorGroup", "SensorInterrupt", "SensorOutput",
           "SensorScanner"]

log = logging.getLogger(__name__)

_EPS = 1e-9


class _State:
    """Debounce and fault state of one group (scanner-private)."""

    def __init__(self) -> None:
        self.up = False
        self.needs_init = True
        self.stable = 0
        self.raw = 0
        self.pending: dict[int, float] = {}
        self.retry_at = 0.0
        self.backoff = 0.0
        self.fault: SensorFault | None = None
        self.history: dict[int, deque[float]] = {}
        self.last_change: dict[int, float] = {}
        self.chattering = 0
        self.chatter_fault: SensorFault | None = None
        self.closed_since: dict[int, float] = {}
        self.stuck_reported: dict[int, SensorFault] = {}
        self.check_at = 0.0  # clock time of the next configuration check


def _bits(x: int) -> Iterable[int]:
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class SensorScanner:
    """Turns expander readings into debounced, timestamped piece events and fault records.

    ``groups`` are read in order, one per chip for direct wiring. ``bus`` is the
    :class:`~pi.drivers.bus.ManagedBus` the groups' expanders use (which reopens a vanished bus; a plain
    handle is wrapped, with ``reopen`` as its opener). ``clock``: the
    :class:`~pi.drivers.timebase.GameTime` (a plain monotonic callable is wrapped, epoch ``t0`` or
    now). ``config_check``: seconds between read-backs of each answering chip's configuration
    registers; a chip found reset is reported (kind ``"reset"``), configured again, cleared and
    followed by a snapshot (0: never). ``rotation``:
    quarter turns from physical to logical squares (see :mod:`engine.squares`). ``stuck_watch``:
    logical squares where a piece should never stay (e.g. the light squares); one closed longer
    than ``stuck_after`` seconds is reported as "stuck closed". A square changing level
    ``chatter_changes`` times within ``chatter_window`` seconds is reported as "chattering" and
    ignored until quiet for ``chatter_recover`` seconds. A chip that fails twice in a row is
    reported, retried after ``retry_initial`` seconds, doubling up to ``retry_max``.
    ``identity``: on an analog Hall board, the :class:`~pi.drivers.analog.PieceIdentity` that
    decides which piece stands on each square from the groups' readings and puts it on the
    places and snapshots (and adds PieceChanged); None on a presence-only board.

    Thread: not thread-safe; every method runs on one thread (the scan loop's), under the
    bus lock when the bus is shared.
    """

    def __init__(self, groups: Sequence[SensorGroup], size: int, clock: GameTime | Monotonic, *,
                 bus: ManagedBus | SMBusLike | None = None,
                 reopen: Callable[[], SMBusLike] | None = None,
                 t0: float | None = None, debounce: float = 0.030, poll_interval: float = 0.5,
                 rotation: int = 0, retry_initial: float = 0.05, retry_max: float = 5.0,
                 chatter_changes: int = 20, chatter_window: float = 1.0,
                 chatter_recover: float = 2.0, stuck_after: float = 30.0,
                 stuck_watch: Iterable[str] = (), config_check: float = 1.0,
                 identity: PieceIdentity | None = None) -> None:
        self.groups = list(groups)
        self.identity = identity
        self.size = size
        self.time = as_game_time(clock, t0)
        self.clock: Monotonic = self.time
        if bus is not None and not isinstance(bus, ManagedBus):
            bus = ManagedBus(bus, reopen, clock=self.time, retry_initial=retry_initial,
                             retry_max=retry_max)
        self.bus: ManagedBus | None = bus
        self.config_check = config_check
        self.debounce = debounce
        self.poll_interval = poll_interval
        self.rotation = rotation % 4
        self.retry_initial = retry_initial
        self.retry_max = retry_max
        self.chatter_changes = chatter_changes
        self.chatter_window = chatter_window
        self.chatter_recover = chatter_recover
        self.stuck_after = stuck_after
        self._stuck_watch_logical = frozenset(stuck_watch)
        self._states = [_State() for _ in self.groups]
        self._snapshot_wanted = False
        self._last_t = 0.0
        self._last_scan = -1e18
        self._losing_bus = False
        self._logical: list[tuple[str, ...]] = []
        self._watch: list[int] = []
        self._update_names()

    # -- orientation -----------------------------------------------------------------------
    def _update_names(self) -> None:
        self._logical = [tuple(rotate_square(s, self.rotation, self.size) if s else ""
                               for s in g.squares) for g in self.groups]
        self._watch = [sum(1 << i for i, s in enumerate(names) if s in self._stuck_watch_logical)
                       for names in self._logical]

    def set_rotation(self, quarter_turns: int) -> None:
        """Uses a new physical→logical rotation from now on; a snapshot follows on the next scan."""
        self.rotation = quarter_turns % 4
        self._update_names()
        if self.identity is not None:
            self.identity.reset()
        self._snapshot_wanted = True

    def orient(self, expected_occupied: Iterable[str],
               candidates: Sequence[int] = ROTATIONS) -> int:
        """Detects the rotation from the current occupancy (see ``detect_orientation``), uses it.

        Raises OrientationError (and keeps the old rotation) when none or several match.
        """
        k = detect_orientation(self.physical_occupancy(), expected_occupied, self.size, candidates)
        self.set_rotation(k)
        log.info("board orientation: %d°", k * 90)
        return k

    def set_stuck_watch(self, squares: Iterable[str]) -> None:
        """Logical squares that should never stay occupied (see class doc)."""
        self._stuck_watch_logical = frozenset(squares)
        self._update_names()

    # -- state -----------------------------------------------------------------------------
    def physical_occupancy(self) -> frozenset[str]:
        """Debounced occupied squares, physical names, over the chips that answer."""
        return frozenset(g.squares[b] for g, st in zip(self.groups, self._states, strict=True)
                         for b in _bits(st.stable))

    def occupancy(self) -> frozenset[str]:
        """Debounced occupied squares, logical names, over the chips that answer."""
        return frozenset(names[b] for names, st in zip(self._logical, self._states, strict=True)
                         for b in _bits(st.stable))

    @property
    def faults(self) -> list[SensorFault]:
        """Faults currently standing."""
        out: list[SensorFault] = []
        for st in self._states:
            if st.fault:
                out.append(st.fault)
            if st.chatter_fault:
                out.append(st.chatter_fault)
            out.extend(st.stuck_reported.values())
        return out

    def request_snapshot(self) -> None:
        """Asks for a SnapshotTaken on the next scan (delayed while a chip does not answer)."""
        self._snapshot_wanted = True

    @property
    def bus_lost(self) -> bool:
        return self.bus is not None and self.bus.lost

    def _t(self, when: float) -> float:
        t = max(self.time.stamp(when), self._last_t)
        self._last_t = t
        return t

    # -- scanning --------------------------------------------------------------------------
    def start(self) -> list[SensorOutput]:
        """Initialises every chip and reads the power-up occupancy: a SnapshotTaken, or faults.

        Raises nothing on a chip fault (it is reported and retried by later scans).
        """
        self._snapshot_wanted = True
        return self.scan()

    def next_deadline(self) -> float:
        """The clock time by which ``scan`` should be called again (debounce, retries, poll,
        a piece's identity being decided)."""
        d = self._last_scan + self.poll_interval
        if self.identity is not None:
            wanted = self.identity.next_deadline()
            if wanted is not None:
                d = min(d, wanted)
        if self._snapshot_wanted and all(st.up for st in self._states):
            return self._last_scan  # at once
        if self.bus is not None and self.bus.lost:
            return min(d, self.bus.retry_at)
        for st in self._states:
            if not st.up:
                d = min(d, st.retry_at)
                continue
            if self.config_check:
                d = min(d, st.check_at)
            if st.pending:
                d = min(d, min(st.pending.values()) + self.debounce)
            for b in _bits(st.chattering):
                d = min(d, st.last_change.get(b, 0.0) + self.chatter_recover)
            for b, since in st.closed_since.items():
                if b not in st.stuck_reported:
                    d = min(d, since + self.stuck_after)
        return d

    def scan(self) -> list[SensorOutput]:
        """Reads every chip that is due (one transaction per direct chip) and returns the news.

        Never raises on bus errors: they become SensorFault records and retries.
        """
        now = self.clock()
        self._last_scan = now
        out: list[SensorOutput] = []
        confirmed: list[tuple[float, tuple[int, int], str, bool]] = []
        if self.bus is not None and self.bus.lost:
            if not self.bus.try_reopen():
                return out
            for st in self._states:
                st.retry_at = now
        for gi, (group, st) in enumerate(zip(self.groups, self._states, strict=True)):
            if not st.up and now < st.retry_at:
                continue
            try:
                if st.up and self.config_check and now >= st.check_at:
                    self._check_config(gi, now, out)
                occ, changed = self._read(group, st)
                # Before a change is confirmed, make sure the chip was not reset: a reset
                # matrix chip reads every square empty, a reset MCP23017 floats its inputs.
                if st.up and self.config_check and (st.pending or self.debounce <= _EPS) \
                        and self._would_confirm(st, occ, changed, now) \
                        and not self._check_config(gi, now, out):
                    occ, changed = self._read(group, st)  # configures it again, reads afresh
            except ChipFailure as e:
                self._failed(gi, e, now, out)
                if self.bus_lost:
                    break
                continue
            if self.bus is not None:
                self.bus.mark_working()
            if self.identity is not None:
                values = group.identities()
                if values is not None:
                    self.identity.observe(self._logical[gi], values)
            if not st.up:
                self._recovered(gi, occ, now, out)
                continue
            self._debounce(gi, occ, changed, now, confirmed, out)
            self._check_stuck(gi, now, out)
        confirmed.sort()
        for since, _key, square, placed in confirmed:
            t = self._t(since)
            out.append(PiecePlaced(t, square) if placed else PieceLifted(t, square))
        if self._snapshot_wanted and all(st.up for st in self._states):
            self._snapshot_wanted = False
            out.append(SnapshotTaken(self._t(now), self.occupancy()))
        if self.identity is not None:
            return self.identity.process(out, now, self.occupancy(), self._t)
        return out

    def _read(self, group: SensorGroup, st: _State) -> tuple[int, int]:
        # One immediate retry hides a single glitch on the bus; a second failure is a fault.
        for attempt in (0, 1):
            try:
                if st.needs_init:
                    group.init()
                    st.needs_init = False
                return group.read()
            except ChipFailure as e:
                if attempt or e.error.errno in BUS_LOST_ERRNOS:
                    raise
        raise AssertionError("unreachable")

    def _would_confirm(self, st: _State, occ: int, changed: int, now: float) -> bool:
        """Whether ``_debounce`` would confirm a change with this reading."""
        transitions = (occ ^ st.raw) | changed
        diff = (occ ^ st.stable) & ~st.chattering
        if diff & transitions and self.debounce <= _EPS:
            return True
        for b in _bits(diff & ~transitions):
            since = st.pending.get(b)
            if since is not None and now - since >= self.debounce - _EPS:
                return True
        return False

    def _check_config(self, gi: int, now: float, out: list[SensorOutput]) -> bool:
        """Reads back the group's chips' configuration; True when intact. A reset chip is
        reported and marked for configuration by the next read. Raises ChipFailure."""
        # A chip that lost power and came back answers with its power-on registers: no read
        # fails, but its pull-ups, interrupts and INT driver are gone. Set it up again and
        # resynchronise with a snapshot, as after a NACK.
        st = self._states[gi]
        st.check_at = now + self.config_check
        group = self.groups[gi]
        for chip in group.expanders:
            try:
                intact = chip.config_intact()
            except OSError as e:
                raise ChipFailure(chip.address, e) from e
            if intact:
                continue
            squares = tuple(sorted((s for s in self._logical[gi] if s), key=square_sort_key))
            fault = SensorFault(self._t(now), chip.address, squares, RESET,
                                "configuration registers at power-on values; configured again")
            log.warning("%s (reset: power-on configuration); configuring it again",
                        fault.message)
            out.append(fault)
            # As after a NACK: the read that follows configures the chip again, takes its
            # levels as they are (nothing invented) and clears the fault; a snapshot follows.
            st.fault = fault
            st.up = False
            st.needs_init = True
            return False
        return True

    def _failed(self, gi: int, e: ChipFailure, now: float, out: list[SensorOutput]) -> None:
        st = self._states[gi]
        st.needs_init = True  # the chip may have been power-cycled: configure it again
        st.backoff = min(self.retry_max, st.backoff * 2) if st.backoff else self.retry_initial
        st.retry_at = now + st.backoff
        st.pending.clear()
        if st.up or st.fault is None:
            st.up = False
            squares = tuple(sorted((s for s in self._logical[gi] if s), key=square_sort_key))
            detail = f"errno {e.error.errno}: {e.error.strerror or e.error}"
            st.fault = SensorFault(self._t(now), e.address, squares, NO_ANSWER, detail)
            log.warning("%s (no answer, %s); retrying", st.fault.message, detail)
            out.append(st.fault)
        if e.error.errno in BUS_LOST_ERRNOS and not self._losing_bus:
            self._lose_bus(now, out, e)

    def _lose_bus(self, now: float, out: list[SensorOutput], e: ChipFailure) -> None:
        # The ManagedBus closed the handle and schedules the reopen; every chip is reported.
        if self.bus is not None:
            self.bus.mark_lost(e.error)
        self._losing_bus = True
        try:
            for gi, st in enumerate(self._states):
                if st.up:
                    self._failed(gi, ChipFailure(self.groups[gi].expanders[0].address, e.error),
                                 now, out)
        finally:
            self._losing_bus = False

    def _recovered(self, gi: int, occ: int, now: float, out: list[SensorOutput]) -> None:
        st = self._states[gi]
        first = st.fault is None  # power-up: never failed before
        st.up = True
        st.backoff = 0.0
        st.check_at = now + self.config_check
        st.stable = st.raw = occ
        st.pending.clear()
        st.closed_since = {b: now for b in _bits(occ & self._watch[gi])}
        if not first:
            assert st.fault is not None
            f = st.fault
            out.append(SensorFaultCleared(self._t(now), f.address, f.squares, f.kind))
            log.warning("sensor chip 0x%02x answers again", f.address)
            self._snapshot_wanted = True  # nothing invented: the new state comes as a snapshot
        st.fault = None

    def _debounce(self, gi: int, occ: int, changed: int, now: float,
                  confirmed: list[tuple[float, tuple[int, int], str, bool]],
                  out: list[SensorOutput]) -> None:
        st = self._states[gi]
        transitions = (occ ^ st.raw) | changed
        st.raw = occ
        if transitions:
            self._count_chatter(gi, transitions, now, out)
        diff = (occ ^ st.stable) & ~st.chattering
        pending = st.pending
        for b in _bits(transitions & diff):
            pending[b] = now  # (re)starts the stable-for-N clock
        if pending:
            names = self._logical[gi]
            for b in list(pending):
                if not diff >> b & 1:
                    del pending[b]  # a glitch shorter than the debounce: forget it
                elif now - pending[b] >= self.debounce - _EPS:
                    since = pending.pop(b)
                    st.stable ^= 1 << b
                    placed = bool(st.stable >> b & 1)
                    confirmed.append((since, square_sort_key(names[b]), names[b], placed))
                    if self._watch[gi] >> b & 1:
                        if placed:
                            st.closed_since[b] = since
                        else:
                            self._unstick(gi, b, now, out)
        if st.chattering:
            self._check_chatter_recovery(gi, now, out)

    def _count_chatter(self, gi: int, transitions: int, now: float,
                       out: list[SensorOutput]) -> None:
        st = self._states[gi]
        newly = 0
        for b in _bits(transitions):
            st.last_change[b] = now
            h = st.history.get(b)
            if h is None:
                h = st.history[b] = deque(maxlen=self.chatter_changes)
            h.append(now)
            if len(h) == self.chatter_changes and now - h[0] <= self.chatter_window \
                    and not st.chattering >> b & 1:
                newly |= 1 << b
        if newly:
            st.chattering |= newly
            for b in _bits(newly):
                st.pending.pop(b, None)
            self._report_chatter(gi, now, out)

    def _report_chatter(self, gi: int, now: float, out: list[SensorOutput]) -> None:
        st = self._states[gi]
        group = self.groups[gi]
        address = group.expanders[0].address
        if st.chatter_fault is not None:
            old = st.chatter_fault
            out.append(SensorFaultCleared(self._t(now), old.address, old.squares, old.kind))
            st.chatter_fault = None
        if st.chattering:
            squares = tuple(sorted((self._logical[gi][b] for b in _bits(st.chattering)),
                                   key=square_sort_key))
            st.chatter_fault = SensorFault(self._t(now), address, squares, "chattering",
                                           "sensor level changing too often")
            log.warning("%s (chattering); ignored until quiet", st.chatter_fault.message)
            out.append(st.chatter_fault)

    def _check_chatter_recovery(self, gi: int, now: float, out: list[SensorOutput]) -> None:
        st = self._states[gi]
        quiet = 0
        for b in _bits(st.chattering):
            if now - st.last_change.get(b, now) >= self.chatter_recover - _EPS:
                quiet |= 1 << b
        if quiet:
            st.chattering &= ~quiet
            for b in _bits(quiet):
                st.history.pop(b, None)
                st.stable = (st.stable & ~(1 << b)) | (st.raw & (1 << b))
            old = st.chatter_fault
            st.chatter_fault = None
            if old is not None:
                out.append(SensorFaultCleared(self._t(now), old.address, old.squares, old.kind))
            if st.chattering:
                self._report_chatter(gi, now, out)
            self._snapshot_wanted = True

    def _check_stuck(self, gi: int, now: float, out: list[SensorOutput]) -> None:
        st = self._states[gi]
        for b, since in st.closed_since.items():
            if b not in st.stuck_reported and now - since >= self.stuck_after - _EPS:
                f = SensorFault(self._t(now), self.groups[gi].expanders[0].address,
                                (self._logical[gi][b],), "stuck closed",
                                f"closed for {now - since:.0f} s")
                st.stuck_reported[b] = f
                log.warning("%s (stuck closed?)", f.message)
                out.append(f)

    def _unstick(self, gi: int, b: int, now: float, out: list[SensorOutput]) -> None:
        st = self._states[gi]
        st.closed_since.pop(b, None)
        f = st.stuck_reported.pop(b, None)
        if f is not None:
            out.append(SensorFaultCleared(self._t(now), f.address, f.squares, f.kind))
