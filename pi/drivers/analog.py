"""The analog Hall board: each square's ADC code read as a piece (colour and crown), and the
identity decided by agreement over consecutive scans (issue 40).

A man carries a magnet, white north up, black south up; a king is two stacked men, so its field
is larger. :func:`classify` sets a code against the square's calibration
(:class:`~pi.drivers.wiring.SquareCalibration`): the thresholds are the midpoints between the
five calibrated levels (black king, black man, empty, white man, white king). :func:`reading` is
the normalised signed field the events carry: +1.0 a white man, -1.0 a black man, 0 empty.

:class:`AnalogGroup` is a :class:`~pi.drivers.sensor_groups.SensorGroup` over one ADC: its
occupancy (a piece of any kind) goes through the scanner's usual debounce, chatter and fault
handling, unchanged; it also keeps each square's last class for :class:`PieceIdentity`. On an
ADS7128 the alert window of each channel is the band of its current class, so the ALERT line
falls exactly when a square's class changes and an idle board is not polled.

:class:`PieceIdentity` (handed to :class:`~pi.drivers.sensors.SensorScanner` as ``identity``)
keeps the last ``window`` classes of every square. A piece is *decided* when ``votes`` of them
agree. A ``PiecePlaced`` waits (with everything after it, in order) until its square is decided,
and carries the piece and its reading; a snapshot carries every occupied square's piece. A
decided piece that differs from the one standing on a still-occupied square for ``hold`` seconds
(:data:`CHANGE_HOLD`) is a ``PieceChanged``: a man crowned by stacking a second man on it, a
king's top man lifted off. A crown is put on and left there; noise changes the class for a scan,
and a hand carrying a piece over a man adds to its field only while it passes (a man held 10 mm
above another adds about 12 % of a man's field, nearly the man/king margin), so a change must
stay longer than a hand lingers in passing.

Thread: the scan loop's, like the scanner.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Callable, Iterable, Sequence

from engine.board import Piece
from engine.colour import BLACK, WHITE
from engine.events import PieceChanged, PieceLifted, PiecePlaced, SnapshotTaken, piece_code
from pi.drivers.adcs import AnalogADC
from pi.drivers.errors import ChipFailure
from pi.drivers.faults import SensorOutput
from pi.drivers.sensor_groups import SensorGroup
from pi.drivers.wiring import AnalogSpec, SquareCalibration

__all__ = ["AnalogGroup", "PieceIdentity", "CLASSES", "classify", "reading", "thresholds"]

log = logging.getLogger(__name__)

#: Seconds a changed piece on an occupied square must stay decided before it is reported.
CHANGE_HOLD = 0.25

#: The classes a square reads, in the order of :data:`pi.drivers.wiring.LEVELS` (None: empty).
CLASSES: tuple[Piece | None, ...] = (Piece(BLACK, True), Piece(BLACK, False), None,
                                     Piece(WHITE, False), Piece(WHITE, True))


def thresholds(cal: SquareCalibration) -> tuple[float, float, float, float]:
    """The four codes between the five levels (midpoints), lowest first."""
    lv = cal.levels()
    return ((lv[0] + lv[1]) / 2, (lv[1] + lv[2]) / 2, (lv[2] + lv[3]) / 2, (lv[3] + lv[4]) / 2)


def classify(cal: SquareCalibration, code: float) -> Piece | None:
    """The piece (None: empty) a code reads on a square with calibration ``cal``."""
    i = 0
    for bound in thresholds(cal):
        if code < bound:
            break
        i += 1
    return CLASSES[i]


def reading(cal: SquareCalibration, code: float) -> float:
    """The normalised signed field: (code − empty) over half the white-to-black man span."""
    half = (cal.white - cal.black) / 2
    return (code - cal.empty) / half if half > 0 else 0.0


class AnalogGroup(SensorGroup):
    """One ADC's squares: bit ``n`` is input AIN\\ ``n`` (``squares[n]``, physical, "" unused)."""

    def __init__(self, adc: AnalogADC, squares: Sequence[str], spec: AnalogSpec) -> None:
        self.adc = adc
        self.expanders = (adc,)
        self.squares = tuple(squares) + ("",) * (8 - len(squares))
        self.mask = sum(1 << i for i, s in enumerate(self.squares) if s)
        self.calibrations = [spec.square(s) if s else None for s in self.squares]
        self._bands = [_bands(cal) if cal is not None else None for cal in self.calibrations]
        #: The last read: each input's code and class (None: empty or unused).
        self.codes = [0] * 8
        self.classes: list[Piece | None] = [None] * 8
        self._window_class: list[int] = [-1] * 8

    def init(self) -> None:
        try:
            self.adc.init()
        except OSError as e:
            raise ChipFailure(self.adc.address, e) from e
        self._window_class = [-1] * 8

    def read(self) -> tuple[int, int]:
        try:
            codes, fired = self.adc.read()
        except OSError as e:
            raise ChipFailure(self.adc.address, e) from e
        occupied = 0
        windows: dict[int, tuple[int, int]] = {}
        for n, cal in enumerate(self.calibrations):
            if cal is None:
                continue
            code = codes[n]
            piece = classify(cal, code)
            self.codes[n] = code
            self.classes[n] = piece
            if piece is not None:
                occupied |= 1 << n
            index = CLASSES.index(piece)
            bands = self._bands[n]
            if self.adc.alerts and bands is not None and index != self._window_class[n]:
                windows[n] = bands[index]
                self._window_class[n] = index
        try:
            if windows:
                self.adc.set_windows(windows)
            self.adc.acknowledge(fired)
        except OSError as e:
            raise ChipFailure(self.adc.address, e) from e
        return occupied, fired & self.mask

    def identities(self) -> list[tuple[Piece | None, float]] | None:
        return [(self.classes[n], reading(cal, self.codes[n])) if cal is not None
                else (None, 0.0) for n, cal in enumerate(self.calibrations)]


def _bands(cal: SquareCalibration) -> list[tuple[int, int]]:
    """Each class's band of codes (the ADS7128 alert window while a square reads it)."""
    t = thresholds(cal)
    edges = [0, *(int(round(x)) for x in t), 4095]
    return [(edges[i], edges[i + 1]) for i in range(5)]


class _Square:
    __slots__ = ("classes", "readings", "standing", "change", "change_since")

    def __init__(self, window: int) -> None:
        self.classes: deque[int] = deque(maxlen=window)
        self.readings: deque[float] = deque(maxlen=window)
        self.standing: Piece | None = None  # the piece the events last said stands here
        self.change: Piece | None = None  # a different piece decided here ...
        self.change_since = 0.0  # ... since this clock time


class PieceIdentity:
    """Votes per square and the events' pieces (see module doc). ``votes`` of the last
    ``window`` scans decide; ``hold``: seconds a changed piece must stay decided before a
    PieceChanged; ``period``: seconds between scans while a square is undecided; ``give_up``:
    seconds a place waits for a decision before it goes out without a piece (logged)."""

    def __init__(self, votes: int = 3, window: int = 5, *, hold: float = CHANGE_HOLD,
                 period: float = 0.010, give_up: float = 0.200) -> None:
        if not 0 < votes <= window or votes * 2 <= window:
            raise ValueError(f"{votes} of {window} is not a majority")
        self.votes = votes
        self.window = window
        self.hold = hold
        self.period = period
        self.give_up = give_up
        self._squares: dict[str, _Square] = {}
        self._held: list[tuple[float, SensorOutput]] = []  # (clock time held since, output)
        self._unsettled = False
        self._last = 0.0

    def _square(self, name: str) -> _Square:
        sq = self._squares.get(name)
        if sq is None:
            sq = self._squares[name] = _Square(self.window)
        return sq

    def reset(self) -> None:
        """Forgets every square's votes (the squares were renamed: a new rotation); a snapshot
        follows, which decides them afresh."""
        self._squares.clear()

    def observe(self, names: Iterable[str], values: Sequence[tuple[Piece | None, float]]) -> None:
        """One scan's classes and readings of a group's squares (logical names, "" unused)."""
        for name, (piece, value) in zip(names, values, strict=False):
            if not name:
                continue
            sq = self._square(name)
            sq.classes.append(CLASSES.index(piece))
            sq.readings.append(value)

    def decided(self, name: str) -> tuple[bool, Piece | None, float]:
        """(decided?, the piece or None for empty, the mean reading of the agreeing scans)."""
        sq = self._squares.get(name)
        if sq is None:
            return False, None, 0.0
        counts = [0] * len(CLASSES)
        for c in sq.classes:
            counts[c] += 1
        best = max(range(len(CLASSES)), key=counts.__getitem__)
        if counts[best] < self.votes:
            return False, None, 0.0
        agreeing = [r for c, r in zip(sq.classes, sq.readings, strict=True) if c == best]
        return True, CLASSES[best], round(sum(agreeing) / len(agreeing), 2)

    def pieces(self) -> dict[str, Piece]:
        """The pieces the events said stand on the board (logical squares)."""
        return {name: sq.standing for name, sq in self._squares.items()
                if sq.standing is not None}

    def next_deadline(self) -> float | None:
        """When a scan is wanted for a decision (None: nothing pending)."""
        return self._last + self.period if self._held or self._unsettled else None

    def process(self, outputs: list[SensorOutput], now: float, occupied: frozenset[str],
                stamp: Callable[[float], float]) -> list[SensorOutput]:
        """The scanner's outputs of one scan, with pieces (see module doc). ``occupied``: the
        debounced occupancy (logical); ``stamp``: clock time → event time (monotonic)."""
        self._last = now
        queue = self._held + [(now, o) for o in outputs]
        self._held = []
        out: list[SensorOutput] = []
        for i, (since, item) in enumerate(queue):
            if isinstance(item, PiecePlaced) and item.piece is None:
                ok, piece, value = self.decided(item.square)
                if not ok or piece is None:
                    if now - since < self.give_up:
                        self._held = queue[i:]
                        break
                    log.warning("%s: a piece placed but its kind not decided within %.0f ms",
                                item.square, self.give_up * 1000)
                    out.append(item)
                    continue
                self._square(item.square).standing = piece
                out.append(PiecePlaced(item.t, item.square, piece=piece, reading=value))
            elif isinstance(item, PieceLifted):
                sq = self._square(item.square)
                sq.standing = sq.change = None
                out.append(item)
            elif isinstance(item, SnapshotTaken):
                pieces: dict[str, Piece] = {}
                waiting = False
                for name in item.occupied:
                    ok, piece, _value = self.decided(name)
                    if ok and piece is not None:
                        pieces[name] = piece
                    else:
                        waiting = True
                if waiting and now - since < self.give_up:
                    self._held = queue[i:]
                    break
                for name, sq in self._squares.items():
                    sq.standing = pieces.get(name)
                    sq.change = None
                out.append(SnapshotTaken(item.t, item.occupied, pieces=pieces))
            else:
                out.append(item)
        if not self._held:
            out.extend(self._changes(now, occupied, stamp))
        self._unsettled = any(len(set(sq.classes)) > 1 or sq.change is not None
                              for sq in self._squares.values())
        return out

    def _changes(self, now: float, occupied: frozenset[str],
                 stamp: Callable[[float], float]) -> list[SensorOutput]:
        out: list[SensorOutput] = []
        for name, sq in self._squares.items():
            if sq.standing is None or name not in occupied:
                continue
            ok, piece, value = self.decided(name)
            if not ok or piece is None or piece == sq.standing:
                sq.change = None
                continue
            if sq.change != piece:
                sq.change, sq.change_since = piece, now
            if now - sq.change_since >= self.hold - 1e-9:
                log.info("%s: %s became %s (reading %.2f)", name, piece_code(sq.standing),
                         piece_code(piece), value)
                out.append(PieceChanged(stamp(sq.change_since), name, piece, value))
                sq.standing, sq.change = piece, None
        return out
