"""Presence sensors: scanning expanders, per-square debounce, faults, orientation, interrupt line.

The :class:`SensorScanner` runs on the daemon's thread. The daemon calls :meth:`~SensorScanner.scan`
whenever the interrupt line fires (a :class:`SensorInterrupt` arrives on its queue) or when
:meth:`~SensorScanner.next_deadline` passes, and forwards what ``scan`` returns: engine events
(``PieceLifted``, ``PiecePlaced``, ``SnapshotTaken``) and fault records (:class:`SensorFault`,
:class:`SensorFaultCleared`). A presence sensor sees a piece leave or arrive: a *touch* without a
lift is invisible to it.

Times: ``clock`` is a monotonic clock in seconds (injected); event ``t`` is ``clock() - t0``.
A lift or place is stamped with the time the new level was first seen, and is emitted once the
level has held for ``debounce`` seconds; the scanner never emits ``t`` going backwards.
"""

from __future__ import annotations

import errno
import logging
import queue
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Union

from engine.events import PieceLifted, PiecePlaced, SnapshotTaken
from pi.expanders import ALL_PINS, Expander, SMBusLike
from pi.geometry import detect_orientation, rotate_square, square_sort_key, ROTATIONS

log = logging.getLogger(__name__)

#: errno values meaning the bus itself is gone (adapter removed, device node vanished).
BUS_LOST_ERRNOS = frozenset({errno.ENODEV, errno.ENXIO, errno.ENOENT, errno.EBADF})
_EPS = 1e-9


@dataclass(frozen=True, slots=True)
class SensorFault:
    """Sensors that cannot be trusted: chip ``address`` and the (logical) ``squares`` concerned.

    ``kind``: ``"no answer"`` (NACK, EIO, bus lost), ``"chattering"`` or ``"stuck closed"``.
    """

    t: float
    address: int
    squares: tuple[str, ...]
    kind: str
    detail: str = ""

    @property
    def message(self) -> str:
        return f"sensor fault: 0x{self.address:02x}, squares {' '.join(self.squares)}"


@dataclass(frozen=True, slots=True)
class SensorFaultCleared:
    """A fault reported earlier is over (the chip answers again, the square is quiet again)."""

    t: float
    address: int
    squares: tuple[str, ...]
    kind: str

    @property
    def message(self) -> str:
        return f"sensor ok: 0x{self.address:02x}, squares {' '.join(self.squares)}"


@dataclass(frozen=True, slots=True)
class SensorInterrupt:
    """Put on the daemon's queue by the interrupt line: some expander saw a change; scan now."""


SensorOutput = Union[PieceLifted, PiecePlaced, SnapshotTaken, SensorFault, SensorFaultCleared]


class ChipFailure(Exception):
    """A group read failed on chip ``address`` with ``error`` (an OSError from the bus)."""

    def __init__(self, address: int, error: OSError) -> None:
        super().__init__(f"0x{address:02x}: {error}")
        self.address = address
        self.error = error


class SensorGroup:
    """Sensors read together. Bit ``i`` of a reading is ``squares[i]`` (physical name or "")."""

    squares: tuple[str, ...]
    mask: int
    expanders: tuple[Expander, ...]

    def init(self) -> None:
        """Configures the group's chips; raises ChipFailure."""
        raise NotImplementedError

    def read(self) -> tuple[int, int]:
        """(occupied bits, bits known to have changed since the last read); raises ChipFailure."""
        raise NotImplementedError


class DirectGroup(SensorGroup):
    """One sensor per expander input pin: one transaction per read."""

    def __init__(self, expander: Expander, squares: Sequence[str], *, active_low: bool = True):
        self.expander = expander
        self.expanders = (expander,)
        self.squares = tuple(squares) + ("",) * (16 - len(squares))
        self.mask = sum(1 << i for i, s in enumerate(self.squares) if s)
        self._invert = ALL_PINS if active_low else 0

    def init(self) -> None:
        try:
            self.expander.init()
        except OSError as e:
            raise ChipFailure(self.expander.address, e) from e

    def read(self) -> tuple[int, int]:
        try:
            r = self.expander.read()
        except OSError as e:
            raise ChipFailure(self.expander.address, e) from e
        return (r.levels ^ self._invert) & self.mask, r.changed & self.mask


class MatrixGroup(SensorGroup):
    """A diode matrix: rows are outputs driven low one at a time, columns are pulled-up inputs.

    A closed switch at (row, column) pulls the column low while its row is low. Bit
    ``row * ncolumns + column`` is ``squares_grid[row][column]``. One transaction per row when
    the rows and columns share one chip, else one write per row chip and one read per column chip.
    """

    def __init__(self, rows: Sequence[tuple[Expander, int]], columns: Sequence[tuple[Expander, int]],
                 squares_grid: Sequence[Sequence[str]]) -> None:
        self.rows = list(rows)
        self.columns = list(columns)
        self.ncols = len(self.columns)
        chips: list[Expander] = []
        for chip, _ in self.rows + self.columns:
            if chip not in chips:
                chips.append(chip)
        self.expanders = tuple(chips)
        self.row_chips = [c for c in chips if any(c is r for r, _ in self.rows)]
        self.column_chips = [c for c in chips if any(c is k for k, _ in self.columns)]
        self.squares = tuple(s for row in squares_grid for s in row)
        self.mask = sum(1 << i for i, s in enumerate(self.squares) if s)
        self._single = chips[0] if len(chips) == 1 else None

    def init(self) -> None:
        for chip in self.expanders:
            try:
                chip.init(ALL_PINS)
            except OSError as e:
                raise ChipFailure(chip.address, e) from e

    def read(self) -> tuple[int, int]:
        occupied = 0
        chip: Expander | None = None
        try:
            for i, (row_chip, row_pin) in enumerate(self.rows):
                pattern = ALL_PINS & ~(1 << row_pin)
                if self._single is not None:
                    chip = self._single
                    levels = {id(chip): chip.write_then_read(pattern)}
                else:
                    for chip in self.row_chips:
                        want = pattern if chip is row_chip else ALL_PINS
                        if chip.output_levels & chip.outputs != want & chip.outputs:
                            chip.write_outputs(want)
                    levels = {}
                    for chip in self.column_chips:
                        levels[id(chip)] = chip.read().levels
                base = i * self.ncols
                for j, (col_chip, col_pin) in enumerate(self.columns):
                    if not levels[id(col_chip)] >> col_pin & 1:
                        occupied |= 1 << (base + j)
            if self._single is None:
                for chip in self.row_chips:
                    if chip.output_levels & chip.outputs != chip.outputs:
                        chip.write_outputs(ALL_PINS)
        except OSError as e:
            assert chip is not None
            raise ChipFailure(chip.address, e) from e
        return occupied & self.mask, 0


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


def _bits(x: int) -> Iterable[int]:
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class SensorScanner:
    """Turns expander readings into debounced, timestamped piece events and fault records.

    ``groups`` are read in order, one per chip for direct wiring. ``bus`` is the bus the groups'
    expanders use; ``reopen`` (optional) opens a new one after the bus vanished. ``rotation``:
    quarter turns from physical to logical squares (see :mod:`pi.geometry`). ``stuck_watch``:
    logical squares where a piece should never stay (e.g. the light squares); one closed longer
    than ``stuck_after`` seconds is reported as "stuck closed". A square changing level
    ``chatter_changes`` times within ``chatter_window`` seconds is reported as "chattering" and
    ignored until quiet for ``chatter_recover`` seconds. A chip that fails twice in a row is
    reported, retried after ``retry_initial`` seconds, doubling up to ``retry_max``.

    Thread: not thread-safe; every method runs on the daemon's thread.
    """

    def __init__(self, groups: Sequence[SensorGroup], size: int, clock: Callable[[], float], *,
                 bus: SMBusLike | None = None, reopen: Callable[[], SMBusLike] | None = None,
                 t0: float | None = None, debounce: float = 0.030, poll_interval: float = 0.5,
                 rotation: int = 0, retry_initial: float = 0.05, retry_max: float = 5.0,
                 chatter_changes: int = 20, chatter_window: float = 1.0,
                 chatter_recover: float = 2.0, stuck_after: float = 30.0,
                 stuck_watch: Iterable[str] = ()) -> None:
        self.groups = list(groups)
        self.size = size
        self.clock = clock
        self.bus = bus
        self.reopen = reopen
        self.t0 = clock() if t0 is None else t0
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
        self._bus_lost = False
        self._bus_retry_at = 0.0
        self._bus_backoff = 0.0
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
        return frozenset(g.squares[b] for g, st in zip(self.groups, self._states)
                         for b in _bits(st.stable))

    def occupancy(self) -> frozenset[str]:
        """Debounced occupied squares, logical names, over the chips that answer."""
        return frozenset(names[b] for names, st in zip(self._logical, self._states)
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

    def set_epoch(self, t0: float) -> None:
        """Event times count from clock time ``t0`` from now on (a new game)."""
        self.t0 = t0
        self._last_t = 0.0

    def _t(self, when: float) -> float:
        t = max(round(when - self.t0, 6), self._last_t)
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
        """The clock time by which ``scan`` should be called again (debounce, retries, poll)."""
        d = self._last_scan + self.poll_interval
        if self._snapshot_wanted and all(st.up for st in self._states):
            return self._last_scan  # at once
        if self._bus_lost:
            return min(d, self._bus_retry_at)
        for st in self._states:
            if not st.up:
                d = min(d, st.retry_at)
                continue
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
        if self._bus_lost and not self._try_reopen(now):
            return out
        for gi, (group, st) in enumerate(zip(self.groups, self._states)):
            if not st.up and now < st.retry_at:
                continue
            try:
                occ, changed = self._read(group, st)
            except ChipFailure as e:
                self._failed(gi, e, now, out)
                if self._bus_lost:
                    break
                continue
            self._bus_backoff = 0.0  # the bus works
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
            st.fault = SensorFault(self._t(now), e.address, squares, "no answer", detail)
            log.warning("%s (no answer, %s); retrying", st.fault.message, detail)
            out.append(st.fault)
        if e.error.errno in BUS_LOST_ERRNOS and not self._bus_lost:
            self._lose_bus(now, out, e)

    def _lose_bus(self, now: float, out: list[SensorOutput], e: ChipFailure) -> None:
        log.error("I2C bus lost (%s); reopening with back-off", e.error)
        self._bus_lost = True
        # Keeps doubling while the bus reopens but still does not work.
        self._bus_backoff = (min(self.retry_max, self._bus_backoff * 2) if self._bus_backoff
                             else self.retry_initial)
        self._bus_retry_at = now + self._bus_backoff
        for gi, st in enumerate(self._states):
            if st.up:
                self._failed(gi, ChipFailure(self.groups[gi].expanders[0].address, e.error),
                             now, out)
        if self.bus is not None:
            try:
                self.bus.close()
            except OSError:
                pass

    def _try_reopen(self, now: float) -> bool:
        if now < self._bus_retry_at:
            return False
        if self.reopen is None:
            self._bus_lost = False  # nothing to reopen: just retry the chips
            return True
        try:
            bus = self.reopen()
        except OSError as e:
            self._bus_backoff = min(self.retry_max, self._bus_backoff * 2)
            self._bus_retry_at = now + self._bus_backoff
            log.debug("I2C bus still missing: %s", e)
            return False
        log.warning("I2C bus is back")
        self.bus = bus
        for group in self.groups:
            for chip in group.expanders:
                chip.bus = bus
        self._bus_lost = False
        for st in self._states:
            st.retry_at = now
        return True

    def _recovered(self, gi: int, occ: int, now: float, out: list[SensorOutput]) -> None:
        st = self._states[gi]
        first = st.fault is None  # power-up: never failed before
        st.up = True
        st.backoff = 0.0
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


class InterruptLine:
    """The wire-ORed, open-drain INT lines of the expanders on one Pi GPIO (active low).

    Each falling edge puts a :class:`SensorInterrupt` on ``out``; the gpiozero callback thread
    does nothing else. ``pin_factory`` is passed to gpiozero (None: its default).
    """

    def __init__(self, gpio: int | str, out: queue.Queue[Any], *, pin_factory: Any = None,
                 pull_up: bool = True) -> None:
        from gpiozero import DigitalInputDevice
        self._out = out
        self.device = DigitalInputDevice(gpio, pull_up=pull_up, pin_factory=pin_factory)
        self.device.when_activated = self._fired

    def _fired(self) -> None:
        self._out.put(SensorInterrupt())

    @property
    def is_active(self) -> bool:
        """True while some chip holds its INT asserted."""
        return bool(self.device.is_active)

    def close(self) -> None:
        self.device.close()
