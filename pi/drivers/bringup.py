"""Bringing a board up: what ``hardware map`` (``pi.drivers.wiring_map``) and ``hardware test``
(``pi.drivers.board_tester``) share — the bench they run on, the squares read through the real
drivers, the sampler that waits for a person, the prompts —, and ``hardware watch`` and the
daemon's start-up check. The commands are in ``pi/hardware_cli.py``; this module is the logic,
on the real drivers (:mod:`pi.drivers.expanders`, :mod:`pi.drivers.sensor_groups`) over whatever
:class:`Bench` it is given: the Pi (:class:`HostBench`) or the simulator's fakes
(``hardware_mocks.bringup``, found through the ``damiera/bench`` entry point: ``pi`` never
imports the fakes).

The person at the board is asked through :class:`Request` s (printed, and shown on the OLED:
:func:`ask`); what they did is seen on the sensors, sampled every :data:`SAMPLE` seconds. A
change counts once it held for :data:`SETTLE` seconds; a square (or input) that changes
:data:`CHATTER_CHANGES` times while waiting is *chattering* and left out of what changed. A step
with no change within the bench's ``step_timeout`` is a dead (or stuck) switch.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from engine.errors import InputError
from engine.i18n import DEFAULT_LANGUAGE, N_, localize, translations
from engine.squares import parse_square, square_sort_key, unrotate_square
from engine.variants import Variant
from pi.drivers.errors import ChipFailure
from pi.drivers.expanders import SMBusLike
from pi.drivers.hardware import build_expanders
from pi.drivers.probe import EXPANDER_ADDRESSES, FAIL, Finding, closed_squares
from pi.drivers.sensor_groups import DirectGroup, MatrixGroup, SensorGroup
from pi.drivers.system import PiSystem
from pi.drivers.wiring import Wiring

log = logging.getLogger(__name__)

__all__ = ["Request", "Bench", "HostBench", "PlantedFault", "parse_fault", "FAULT_KINDS",
           "BoardSquares", "Sampler", "Say", "ask", "in_language", "oled_prompt", "WatchView",
           "watch", "startup_probe", "start_squares", "probe_message"]

#: Seconds between two reads of the sensors while waiting for a person.
SAMPLE = 0.01
#: A change counts once it held this long (the scanner's default debounce).
SETTLE = 0.03
#: Changes while waiting that make a square (or input) "chattering".
CHATTER_CHANGES = 4
#: ``--fault`` kinds (``KIND:ARG``; ``bus-off`` takes none).
#: ``gain:SQ:F`` and ``clip:SQ:MT``: an analog Hall sensor of another sensitivity (F times the
#: nominal), or one whose linear range ends at MT millitesla (a king's field clipped).
FAULT_KINDS = ("missing-chip", "swap", "dead", "stuck", "chatter", "bus-off", "gain", "clip")

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Request:
    """What the person at the board is asked to do. ``action``: ``clear`` (take every piece
    off), ``set up`` (``squares``: the pieces of the initial position, physical), ``place`` or
    ``lift`` (``squares``: one physical square), ``toggle`` (the free test: lift or put a
    piece on any square left; ``squares`` starts with one of them), ``press`` (``button``:
    ("white", "clock")...).
    ``text``: the prompt as printed."""

    action: str
    text: str
    squares: tuple[str, ...] = ()
    button: tuple[str, str] = ("", "")
    #: ``put`` (an analog board's calibration): the piece on every square of ``squares``, "wm",
    #: "bm", "wk" or "bk" (a king: two men stacked); every other square empty.
    piece: str = ""


class Bench(Protocol):
    """What the bring-up commands run on: the Pi's bus, GPIOs, OLED and clock, or the
    simulator's. ``act`` is the person's hands: nothing on the Pi (the person does it after
    reading the prompt), the simulator's virtual hands on a PC. ``step_timeout``: how long a
    step waits for the person."""

    pin_factory: Any
    step_timeout: float

    def open_bus(self, bus: int | str) -> SMBusLike: ...
    def display_device(self, wiring: Wiring | None) -> Any: ...
    def clock(self) -> float: ...
    def sleep(self, seconds: float) -> None: ...
    def act(self, request: Request) -> None: ...
    def system(self) -> PiSystem: ...


class HostBench:
    """The Raspberry Pi itself: smbus2, gpiozero's default pin factory, the luma OLED of the
    wiring, ``time.monotonic``; a person's hands (``act`` does nothing)."""

    pin_factory: Any = None

    def __init__(self, step_timeout: float = 60.0) -> None:
        self.step_timeout = step_timeout

    def open_bus(self, bus: int | str) -> SMBusLike:
        from pi.drivers.hardware import open_i2c_bus
        return open_i2c_bus(bus)

    def display_device(self, wiring: Wiring | None) -> Any:
        if wiring is None or wiring.display is None:
            return None
        from pi.drivers.hardware import open_oled
        return open_oled(wiring.display, wiring.bus)

    def clock(self) -> float:
        import time
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        import time
        time.sleep(seconds)

    def act(self, request: Request) -> None:
        """A person does it; the prompt was printed."""

    def system(self) -> PiSystem:
        from pi.drivers.system import HostSystem
        return HostSystem()


# ---------------------------------------------------------------------------- planted faults

@dataclass(frozen=True)
class PlantedFault:
    """A ``--fault KIND:ARG`` for the simulator: ``missing-chip`` (``address``), ``swap`` (two
    ``squares``), ``dead``/``stuck``/``chatter`` (one square), ``bus-off``."""

    kind: str
    squares: tuple[str, ...] = ()
    address: int | None = None
    #: ``gain``: the sensor's sensitivity factor; ``clip``: its linear range in mT.
    value: float | None = None


def parse_fault(text: str, size: int, variant: Variant | None = None,
                wired: frozenset[str] | None = None) -> PlantedFault:
    """``KIND:ARG`` (see :data:`FAULT_KINDS`). A square is its name (``b1``) or, with the
    ``variant``, its official number (``22``: the variant's numbering, the board as the wiring
    sees it); with ``wired`` (the wiring's sensed squares) a square no sensor is wired to is
    refused (a fault there would change nothing, and the test would pass). Raises InputError
    (one line)."""
    kind, _, arg = text.partition(":")
    if kind not in FAULT_KINDS:
        raise InputError(f"--fault {text[:40]!r}: the kind is one of {', '.join(FAULT_KINDS)}")
    if kind == "bus-off":
        if arg:
            raise InputError("--fault bus-off takes no argument")
        return PlantedFault(kind)
    if kind == "missing-chip":
        try:
            address = int(arg, 16) if arg.lower().startswith("0x") else int(arg)
        except ValueError:
            address = -1
        if address not in EXPANDER_ADDRESSES:
            raise InputError(f"--fault {text[:40]!r}: an expander address 0x20..0x27")
        return PlantedFault(kind, address=address)
    value = None
    if kind in ("gain", "clip"):
        arg, _, number = arg.rpartition(":")
        try:
            value = float(number)
        except ValueError:
            value = -1.0
        if not 0 < value < 1000:
            raise InputError(f"--fault {text[:40]!r}: {kind} takes SQ:NUMBER "
                             + ("(gain:c3:0.7)" if kind == "gain" else "(clip:e3:80, in mT)"))
    tokens = tuple(arg.split(",")) if arg else ()
    want = 2 if kind == "swap" else 1
    squares = tuple(_fault_square(text, token, size, variant) for token in tokens)
    if len(squares) != want or len(set(squares)) != want:
        raise InputError(f"--fault {text[:40]!r}: {kind} takes "
                         + ("two different squares, SQ,SQ" if want == 2 else "one square"))
    for square in squares:
        if wired is not None and square not in wired:
            raise InputError(f"--fault {text[:40]!r}: {square} has no sensor in the wiring "
                             "(a fault there would change nothing)")
    return PlantedFault(kind, squares=squares, value=value)


def _fault_square(text: str, token: str, size: int, variant: Variant | None) -> str:
    """A ``--fault`` square: a name (``b1``), or an official number of ``variant``."""
    token = token.strip()
    if token.isascii() and token.isdigit():
        if variant is None:
            raise InputError(f"--fault {text[:40]!r}: a square by its number needs the "
                             "variant (--variant); here give its name (b1)")
        try:
            return variant.geometry.algebraic(variant.geometry.square(token))
        except InputError as exc:
            raise InputError(f"--fault {text[:40]!r}: {exc} ({variant.name})") from None
    try:
        parse_square(token, size)
    except InputError as exc:
        raise InputError(f"--fault {text[:40]!r}: {exc}") from None
    return token


# ---------------------------------------------------------------------------- reading squares

class BoardSquares:
    """The squares of a wiring read through the real drivers: :meth:`read` gives the closed
    physical squares; a chip that fails is left out (its squares read open) and named in
    ``failed`` (address → the bus's error)."""

    def __init__(self, wiring: Wiring, bus: SMBusLike) -> None:
        self.wiring = wiring
        self.groups: list[SensorGroup] = []
        self.failed: dict[int, OSError] = {}
        self._down: set[int] = set()
        if wiring.is_analog:  # an analog Hall board: a square with any piece is closed
            from pi.drivers.bus import ManagedBus
            from pi.drivers.hardware import analog_groups
            groups, _identity = analog_groups(wiring, ManagedBus(bus, clock=lambda: 0.0))
            self.groups.extend(groups)
            return
        chips = build_expanders(wiring, bus)
        if wiring.matrix is not None:
            m = wiring.matrix
            self.groups.append(MatrixGroup([(chips[p.chip], p.pin) for p in m.rows],
                                           [(chips[p.chip], p.pin) for p in m.columns],
                                           m.squares))
        else:
            for c in wiring.chips:
                if any(c.squares):
                    self.groups.append(DirectGroup(chips[c.name], c.squares,
                                                   active_low=wiring.active_low))

    def init(self) -> None:
        for i, group in enumerate(self.groups):
            try:
                group.init()
            except ChipFailure as exc:
                self.failed.setdefault(exc.address, exc.error)
                self._down.add(i)

    def read(self) -> frozenset[str]:
        closed: set[str] = set()
        for i, group in enumerate(self.groups):
            if i in self._down:
                continue
            try:
                bits, _ = group.read()
            except ChipFailure as exc:
                self.failed.setdefault(exc.address, exc.error)
                self._down.add(i)
                continue
            closed.update(s for b, s in enumerate(group.squares) if s and bits >> b & 1)
        return frozenset(closed)

    def unseen(self) -> frozenset[str]:
        """The squares of the chips that failed."""
        return frozenset(s for i in self._down for s in self.groups[i].squares if s)


class Sampler(Generic[K]):
    """Samples ``read`` (a set of closed things: squares, or inputs) on the bench's clock."""

    def __init__(self, read: Callable[[], frozenset[K]], bench: Bench) -> None:
        self.read = read
        self.bench = bench
        self.changes: dict[K, int] = {}  # per key, over the sampler's life (bounce counts)

    def wait_change(self, before: frozenset[K], timeout: float
                    ) -> tuple[frozenset[K], frozenset[K]]:
        """Samples until what is closed differs from ``before`` and held for SETTLE, or
        ``timeout`` passed. Returns (what is closed then, the keys that chattered meanwhile);
        chattering keys are counted as in ``before``."""
        start = self.bench.clock()
        previous = before
        counts: dict[K, int] = {}
        candidate: frozenset[K] | None = None
        since = start
        while True:
            now_read = self.read()
            for key in now_read ^ previous:
                counts[key] = counts.get(key, 0) + 1
                self.changes[key] = self.changes.get(key, 0) + 1
            previous = now_read
            chatter = frozenset(k for k, n in counts.items() if n >= CHATTER_CHANGES)
            seen = (now_read - chatter) | (before & chatter)
            now = self.bench.clock()
            if seen != candidate:
                candidate, since = seen, now
            if seen != before and now - since >= SETTLE:
                return seen, chatter
            if now - start >= timeout:
                return (candidate if candidate is not None else before), chatter
            self.bench.sleep(SAMPLE)

    def settle(self, seconds: float) -> tuple[frozenset[K], frozenset[K]]:
        """Samples for ``seconds``: (closed in every sample, changed between samples)."""
        end = self.bench.clock() + seconds
        samples = [self.read()]
        while self.bench.clock() < end:
            self.bench.sleep(SAMPLE)
            samples.append(self.read())
        always = frozenset.intersection(*samples)
        return always, frozenset.union(*samples) - always


Say = Callable[[str], None]


def in_language(say: Say, language: str) -> Say:
    """``say`` for a person reading ``language``: each English line (a msgid, or made from a
    template msgid) localized before it is said."""
    if language == DEFAULT_LANGUAGE:
        return say
    return lambda text: say(localize(text, language))


def ask(bench: Bench, say: Say, screen: Callable[[str], None] | None, request: Request) -> None:
    say(request.text)
    if screen is not None:
        screen(request.text)
    bench.act(request)


def oled_prompt(device: Any, language: str = DEFAULT_LANGUAGE) -> Callable[[str], None] | None:
    """The prompt line on the OLED (None without one), in ``language`` (the display
    localizes the English prompt)."""
    if device is None:
        return None
    from pi.drivers.display import BoardDisplay, DisplayState
    display = BoardDisplay(device)
    display.language = language

    def show(text: str) -> None:
        display.render(DisplayState(title="damiera bring-up", side_to_move="-", move_number=0,
                                    message=text))
    return show


# ---------------------------------------------------------------------------- watch

def board_picture(size: int, closed: Iterable[str]) -> list[str]:
    """The board as text lines, rank ``size`` at the top: ``#`` closed, ``.`` open."""
    closed = set(closed)
    files = "abcdefghij"[:size]
    lines = [f"{rank + 1:>2} " + " ".join("#" if f"{files[f]}{rank + 1}" in closed else "."
                                          for f in range(size))
             for rank in reversed(range(size))]
    return lines + ["   " + " ".join(files)]


class WatchView:
    """What ``watch`` shows, for a second reader on another thread (the watch page): the board
    as drawn, the bounces per square and the newest changes. :meth:`snapshot` is consistent."""

    KEPT = 200  # changes kept for the page

    def __init__(self, size: int) -> None:
        import threading
        from collections import deque
        self.size = size
        self._lock = threading.Lock()
        self._shown: frozenset[str] = frozenset()
        self._bounces: dict[str, int] = {}
        self._changes: deque[str] = deque(maxlen=self.KEPT)

    def show(self, shown: frozenset[str]) -> None:
        with self._lock:
            self._shown = shown

    def change(self, line: str, bounces: dict[str, int]) -> None:
        with self._lock:
            self._changes.append(line)
            self._bounces = dict(bounces)

    def snapshot(self) -> dict[str, Any]:
        """``{"size", "closed": [squares], "bounces": {square: n}, "changes": [lines]}``."""
        with self._lock:
            return {"size": self.size,
                    "closed": sorted(self._shown, key=square_sort_key),
                    "bounces": dict(self._bounces), "changes": list(self._changes)}


def watch(bench: Bench, wiring: Wiring, say: Say, seconds: float | None,
          view: WatchView | None = None, language: str = DEFAULT_LANGUAGE) -> dict[str, int]:
    """Shows the live occupancy (the board drawn at every change, each change with its time)
    for ``seconds`` (None: until interrupted), and keeps ``view`` up to date. Returns the
    bounces per square: changes undone within SETTLE seconds. ``language``: of the lines
    said (the view's change lines too: the page shows them as they are)."""
    words = translations(language)
    view = view if view is not None else WatchView(wiring.size)
    squares = BoardSquares(wiring, bench.open_bus(wiring.bus))
    squares.init()
    for address, error in sorted(squares.failed.items()):
        say(words.gettext("{chip} does not answer ({error}): its squares are not shown").format(
            chip=f"0x{address:02x}", error=error))
    start = bench.clock()
    shown = squares.read()
    view.show(shown)
    for line in board_picture(wiring.size, shown):
        say(line)
    bounces: dict[str, int] = {}
    last_change: dict[str, float] = {}
    previous = shown
    while seconds is None or bench.clock() - start < seconds:
        bench.sleep(SAMPLE)
        now_read = squares.read()
        t = bench.clock() - start
        for square in sorted(now_read ^ previous, key=square_sort_key):
            if t - last_change.get(square, -1.0) < SETTLE:
                bounces[square] = bounces.get(square, 0) + 1
            last_change[square] = t
            line = (f"{t:9.3f} {square} " + (words.gettext("closed") if square in now_read
                                              else words.gettext("open")))
            say(line)
            view.change(line, bounces)
        previous = now_read
        stable = frozenset(s for s in now_read ^ shown if t - last_change[s] >= SETTLE)
        if stable:
            shown = shown ^ stable
            view.show(shown)
            for line in board_picture(wiring.size, shown):
                say(line)
    for square, count in sorted(bounces.items(), key=lambda kv: square_sort_key(kv[0])):
        say(words.gettext("bounce {square}: {count}").format(square=square, count=count))
    return bounces


# ---------------------------------------------------------------------------- start-up

def startup_probe(bus: SMBusLike, wiring: Wiring, start: frozenset[str]) -> list[Finding]:
    """The daemon's check before the first game (call under the bus lock, before the scanner
    powers up): each chip of the wiring answers and is of its type, and no square is stuck or
    chattering. ``start``: the physical squares a piece may stand on at start (the initial
    position under every allowed orientation); a square closed in every read outside them is
    stuck. Returns the FAIL findings (none: all is well). An analog Hall board's ADCs are not
    expanders (an ADS7828 has no register to tell it by): its scanner's first reads report a
    chip that does not answer, and ``hardware test`` its margins; nothing is probed here."""
    if wiring.is_analog:
        return []
    from pi.drivers.probe import probe_chips
    try:
        findings, _ = probe_chips(bus, wiring)
    except OSError as exc:
        return [Finding(FAIL, "bus", N_("the I²C bus is gone ({error})").format(error=exc))]
    failing = [f for f in findings if f.level == FAIL and not f.subject.startswith("0x3")]
    squares = BoardSquares(wiring, bus)
    squares.init()
    closed, changed = closed_squares(squares.read)
    for square in sorted(changed, key=square_sort_key):
        failing.append(Finding(FAIL, square, N_("chattering")))
    for square in sorted(closed - start, key=square_sort_key):
        failing.append(Finding(FAIL, square, N_("stuck closed")))
    return failing


def start_squares(wiring: Wiring, expected: frozenset[str]) -> frozenset[str]:
    """The physical squares the initial position ``expected`` (logical) covers under every
    orientation the wiring allows."""
    rotations: Sequence[int] = ((wiring.orientation,) if wiring.orientation is not None
                                else wiring.auto_candidates)
    return frozenset(unrotate_square(s, k, wiring.size) for k in rotations for s in expected)


def probe_message(findings: Sequence[Finding], language: str = DEFAULT_LANGUAGE) -> str:
    """The OLED's line for the start-up probe's findings, shortest first words first (the
    screen shows some twenty characters): ``probe: d4 stuck closed``, ``probe: 0x21 missing;
    0x25 unexpected MCP23017``. "" for none."""
    if not findings:
        return ""
    shown = sorted(findings, key=lambda f: not f.text.startswith("missing"))
    return translations(language).gettext("probe: {problems}").format(problems="; ".join(
        f"{f.subject} {localize(f.text, language).split(':')[0].split(' (')[0]}" for f in shown))
