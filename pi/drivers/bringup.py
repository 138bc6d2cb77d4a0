"""Bringing a board up: watch its squares, learn its wiring (map), test every square, and the
daemon's start-up check. The commands are in ``pi/hardware_cli.py``; this module is the logic,
on the real drivers (:mod:`pi.drivers.expanders`, :mod:`pi.drivers.sensor_groups`) over whatever
:class:`Bench` it is given: the Pi (:class:`HostBench`) or the simulator's fakes
(``hardware_mocks.bringup``, found through the ``damiera/bench`` entry point: ``pi`` never
imports the fakes).

The person at the board is asked through :class:`Request` s (printed, and shown on the OLED);
what they did is seen on the sensors, sampled every :data:`SAMPLE` seconds. A change counts once
it held for :data:`SETTLE` seconds; a square (or input) that changes :data:`CHATTER_CHANGES`
times while waiting is *chattering* and left out of what changed. A step with no change within
the bench's ``step_timeout`` is a dead (or stuck) switch.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from engine.errors import InputError
from engine.i18n import DEFAULT_LANGUAGE, N_, localize, translations
from engine.squares import (all_squares, numbered_squares, parse_square, square_sort_key,
                            unrotate_square)
from engine.variants import Variant
from pi.drivers.errors import ChipFailure, OrientationError
from pi.drivers.expanders import ALL_PINS, EXPANDER_TYPES, MCP23017, Expander, SMBusLike
from pi.drivers.hardware import build_expanders
from pi.drivers.orientation import detect_orientation
from pi.drivers.probe import (EXPANDER_ADDRESSES, FAIL, OK, OLED_ADDRESSES, WARN, ChipIdentity,
                              Finding, answering, closed_squares, identify, worst)
from pi.drivers.sensor_groups import DirectGroup, MatrixGroup, SensorGroup
from pi.drivers.system import PiSystem
from pi.drivers.wiring import DisplaySpec, Wiring

log = logging.getLogger(__name__)

__all__ = ["Request", "Bench", "HostBench", "PlantedFault", "parse_fault", "FAULT_KINDS",
           "BoardSquares", "Sampler", "MapResult", "map_wiring", "wiring_text", "BoardTestReport",
           "WatchView", "run_board_test", "watch", "startup_probe", "setup_articles"]

#: Seconds between two reads of the sensors while waiting for a person.
SAMPLE = 0.01
#: A change counts once it held this long (the scanner's default debounce).
SETTLE = 0.03
#: Changes while waiting that make a square (or input) "chattering".
CHATTER_CHANGES = 4
#: The set-up of the initial position may take this many steps' time.
SETUP_STEPS = 10
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


def _in_language(say: Say, language: str) -> Say:
    """``say`` for a person reading ``language``: each English line (a msgid, or made from a
    template msgid) localized before it is said."""
    if language == DEFAULT_LANGUAGE:
        return say
    return lambda text: say(localize(text, language))


def _ask(bench: Bench, say: Say, screen: Callable[[str], None] | None, request: Request) -> None:
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


# ---------------------------------------------------------------------------- map

def _usable(kind: str) -> int:
    """The inputs an expander of type ``kind`` offers (the MCP23017's GPA7/GPB7 are
    output-only)."""
    return ALL_PINS & ~0x8080 if EXPANDER_TYPES[kind] is MCP23017 else ALL_PINS


@dataclass
class MapResult:
    """What ``map`` learnt: ``squares[address][pin]``, the chips, the OLED, and the refusals."""

    size: int
    chips: list[ChipIdentity]
    squares: dict[int, dict[int, str]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    display: int | None = None  # the OLED's address when one answers
    #: The players' clock buttons learnt by a press (side → BCM GPIO), and the GPIOs given
    clocks: dict[str, int] = field(default_factory=dict)
    interrupt: int | None = None
    buzzer: int | None = None

    @property
    def ok(self) -> bool:
        return worst(self.findings) != FAIL


#: The BCM GPIOs a clock button may be on: the header's general-purpose pins, not the I²C
#: bus's (2, 3) nor the serial line's (14, 15).
BUTTON_GPIOS = tuple(g for g in range(4, 28) if g not in (14, 15))


def learn_clock_buttons(bench: Bench, say: Say, screen: Callable[[str], None] | None,
                        skip: frozenset[int] = frozenset()) -> tuple[dict[str, int],
                                                                     list[Finding]]:
    """Asks for each player's clock button in turn and takes the GPIO that went low (pulled
    up, a button to ground, as the wiring files have them); ``skip``: GPIOs already given
    (the interrupt line, the buzzer). A press seen on no GPIO, or on the other side's, is a
    WARN: the wiring is written without it, and ``damiera run`` refuses a clocked game on it."""
    import queue
    from functools import partial

    from gpiozero import DigitalInputDevice
    seen: queue.Queue[int] = queue.Queue()
    devices: list[Any] = []
    clocks: dict[str, int] = {}
    findings: list[Finding] = []
    try:
        for gpio in (g for g in BUTTON_GPIOS if g not in skip):
            device = DigitalInputDevice(gpio, pull_up=True, bounce_time=None,
                                        pin_factory=bench.pin_factory)
            device.when_activated = partial(seen.put, gpio)
            devices.append(device)
        for side in ("white", "black"):
            _ask(bench, say, screen, Request("press", N_("press {side}'s clock button").format(
                side=side), button=(side, "clock")))
            end = bench.clock() + bench.step_timeout
            found: int | None = None
            while found is None and bench.clock() < end:
                try:
                    gpio = seen.get_nowait()
                except queue.Empty:
                    bench.sleep(SAMPLE)
                    continue
                if gpio not in clocks.values():
                    found = gpio
            if found is None:
                findings.append(Finding(WARN, N_("buttons"), N_(
                    "{side}'s clock button: no press seen on a GPIO").format(side=side), N_(
                    "a clocked game needs both: check the wire, or add [buttons.{side}] clock "
                    "= GPIO by hand").format(side=side)))
                continue
            clocks[side] = found
            findings.append(Finding(OK, f"GPIO {found}", N_(
                "{side}'s clock button").format(side=side)))
    finally:
        for device in devices:
            device.close()
    return clocks, findings


def _input_name(key: tuple[int, int]) -> str:
    return N_("{chip} pin {pin}").format(chip=f"0x{key[0]:02x}", pin=key[1])


def map_order(variant: Variant) -> list[tuple[int | None, str]]:
    """(official number or None, physical square): the dark squares in the official numbering,
    then the light squares rank by rank (the sensors lie under every square)."""
    dark = numbered_squares(variant.size, variant.first_dark_file_even)
    light = [s for s in all_squares(variant.size) if s not in dark]
    return [(n, s) for n, s in enumerate(dark, start=1)] + [(None, s) for s in light]


def map_wiring(bench: Bench, variant: Variant, say: Say, bus_number: int = 1,
               language: str = DEFAULT_LANGUAGE, interrupt: int | None = None,
               buzzer: int | None = None) -> MapResult:
    """Learns the wiring of a direct-wired board in orientation 0: finds the expanders, asks
    for a piece on each square in turn (:func:`map_order`) and records which input closed. A
    square that shows on two inputs, an input that answers for two squares, an input closed on
    the empty board, a chattering input and a square that closes nothing are refused
    (findings, FAIL). Raises the drivers' BusUnavailableError when the bus cannot be opened.
    ``language``: of the prompts (said and on the OLED); the findings stay English. Then the
    players' clock buttons, each learnt by a press (:func:`learn_clock_buttons`); ``interrupt``
    and ``buzzer``: their GPIOs, which a press cannot show (written as given)."""
    say = _in_language(say, language)
    bus = bench.open_bus(bus_number)
    chips = [identify(bus, a) for a in answering(bus, EXPANDER_ADDRESSES)]
    result = MapResult(variant.size, chips, interrupt=interrupt, buzzer=buzzer)
    oled = answering(bus, OLED_ADDRESSES)
    result.display = oled[0] if oled else None
    if not chips:
        result.findings.append(Finding(FAIL, "bus", N_("no expander answers at 0x20-0x27"),
                                       N_("run damiera hardware probe")))
        return result
    drivers: list[Expander] = []
    for chip in chips:
        kind = chip.kind or "mcp23017"
        cls = EXPANDER_TYPES[kind]
        inputs = _usable(kind)
        driver = (MCP23017(bus, chip.address, inputs=inputs) if cls is MCP23017
                  else cls(bus, chip.address, inputs=inputs))
        driver.init()
        drivers.append(driver)

    def read() -> frozenset[tuple[int, int]]:
        closed: set[tuple[int, int]] = set()
        for d in drivers:
            low = ~d.read().levels & d.inputs
            closed.update((d.address, p) for p in range(16) if low >> p & 1)
        return frozenset(closed)

    # The prompts on the OLED too, when one answers (a default SSD1306 at its address).
    screen = oled_prompt(None if result.display is None else bench.display_device(
        Wiring("map", variant.size, display=DisplaySpec(address=result.display))), language)
    sampler: Sampler[tuple[int, int]] = Sampler(read, bench)
    _ask(bench, say, screen, Request("clear", N_("take every piece off the board")))
    closed, chatter = sampler.settle(0.2)
    for key in sorted(closed):
        result.findings.append(Finding(FAIL, _input_name(key), N_("closed with the board empty"),
                                       N_("a stuck switch, or a piece left on the board")))
    for key in sorted(chatter):
        result.findings.append(Finding(FAIL, _input_name(key),
                                       N_("chatters with the board empty"),
                                       N_("a loose joint or a broken switch")))
    bad = closed | chatter
    owner: dict[tuple[int, int], str] = {}
    for number, square in map_order(variant):
        label = f"{number} ({square})" if number is not None else square
        _ask(bench, say, screen, Request("place", N_("put a piece on {square}").format(
            square=label), (square,)))
        after, chatter = sampler.wait_change(closed, bench.step_timeout)
        new = after - closed - bad - chatter
        for key in sorted(chatter - bad):
            result.findings.append(Finding(FAIL, _input_name(key), N_("chatters"),
                                           N_("a loose joint or a broken switch")))
        bad |= chatter
        if not new:
            result.findings.append(Finding(FAIL, square, N_("no input closes"),
                                           N_("a dead switch, or its wire is off")))
        elif len(new) > 1:
            result.findings.append(Finding(
                FAIL, square, N_("shows on two inputs: {inputs}").format(
                    inputs=", ".join(map(_input_name, sorted(new)))),
                N_("two wires joined, or two switches under the square")))
        else:
            key = next(iter(new))
            if key in owner:
                result.findings.append(Finding(
                    FAIL, _input_name(key), N_("answers for {square} and {other}").format(
                        square=owner[key], other=square), N_("two switches on one wire")))
            else:
                owner[key] = square
                result.squares.setdefault(key[0], {})[key[1]] = square
        _ask(bench, say, screen, Request("lift", N_("take the piece off {square}").format(
            square=label), (square,)))
        sampler.wait_change(after, bench.step_timeout)
    skip = frozenset(g for g in (interrupt, buzzer) if g is not None)
    result.clocks, found = learn_clock_buttons(bench, say, screen, skip)
    result.findings += found
    return result


def wiring_text(result: MapResult) -> str:
    """The wiring file ``map`` writes: one ``[[chips]]`` per expander by address (u1, u2, ...),
    the square on each pin (unused pins ``""``, trailing ones left out), the interrupt line, the
    clock buttons learnt by a press and the buzzer, and the OLED when one answered; what was not
    learnt is named in a comment."""
    out = ["# damiera wiring, learnt by damiera hardware map", f"board = {result.size}",
           "bus = 1", 'mode = "direct"', "active_low = true", 'orientation = "auto"',
           "auto_candidates = [0, 90]", ""]
    for i, chip in enumerate(sorted(result.chips, key=lambda c: c.address), start=1):
        pins = result.squares.get(chip.address, {})
        last = max(pins, default=-1)
        names = [pins.get(p, "") for p in range(last + 1)]
        rows = [", ".join(f'"{s}"' for s in names[k:k + 8]) for k in range(0, len(names), 8)]
        out += ["[[chips]]", f'name = "u{i}"', f'type = "{chip.kind or "mcp23017"}"',
                f"address = 0x{chip.address:02X}", "squares = ["]
        out += [f"    {row}," for row in rows]
        out += ["]", ""]
    if result.interrupt is not None:
        out += ["[interrupt]", f"gpio = {result.interrupt}", ""]
    if result.clocks:
        out += ["[buttons]", "pull_up = true", ""]
        for side in ("white", "black"):
            if side in result.clocks:
                out += [f"[buttons.{side}]", f"clock = {result.clocks[side]}", ""]
    if result.buzzer is not None:
        out += ["[buzzer]", f"gpio = {result.buzzer}", ""]
    if result.display is not None:
        out += ["[display]", f"address = 0x{result.display:02X}", ""]
    missing = [name for name, there in (("[interrupt] (--interrupt)", result.interrupt),
                                        ("[buzzer] (--buzzer)", result.buzzer)) if there is None]
    if len(result.clocks) < 2:
        missing.append("[buttons.*] clock")
    if missing:
        out += [f"# not learnt: {', '.join(missing)}; the other controls: as in "
                "pi/drivers/wiring/*.toml", ""]
    return "\n".join(out)


# ---------------------------------------------------------------------------- test

def setup_articles(variant: Variant) -> tuple[str, str]:
    """The articles of the set-up checks: the position and count of the pieces (IT 7.1), the
    board turned the right way (IT 7.2, EN 7.2, INT 5.1; shared/rules/SPEC.md)."""
    turned = {"IT": "IT 7.2", "EN": "EN 7.2"}.get(variant.code, "INT 5.1")
    return "IT 7.1", turned


@dataclass
class BoardTestReport:
    """A guided test's outcome: ``findings`` in the order found, and per dark square
    (physical name) what was seen: ``ok``, ``dead``, ``stuck``, ``chattering``, ``swapped``,
    ``shows as X``, ``not tested``."""

    wiring: str
    variant: str
    findings: list[Finding] = field(default_factory=list)
    squares: dict[str, str] = field(default_factory=dict)
    rotation: int | None = None
    when: str = ""  # UTC, ISO 8601: set by whoever files the report

    @property
    def verdict(self) -> str:
        return worst(self.findings)

    def to_json(self) -> dict[str, Any]:
        return {"when": self.when, "wiring": self.wiring, "variant": self.variant,
                "verdict": self.verdict,
                "rotation": None if self.rotation is None else self.rotation * 90,
                "squares": dict(sorted(self.squares.items(),
                                       key=lambda kv: square_sort_key(kv[0]))),
                "findings": [f.to_json() for f in self.findings]}

    def to_text(self, language: str = DEFAULT_LANGUAGE) -> str:
        """The report as text: English in its file (:data:`DEFAULT_LANGUAGE`, its format
        unchanged), in ``language`` on a person's terminal."""
        t = translations(language)
        counts: dict[str, int] = {}
        for state in self.squares.values():
            counts[state] = counts.get(state, 0) + 1
        summary = ", ".join(f"{n} {localize(s, language)}" for s, n in sorted(counts.items()))
        head = (t.gettext("board test of {wiring} ({variant}) at {when}: {verdict}")
                if self.when else t.gettext("board test of {wiring} ({variant}): {verdict}"))
        return "\n".join([head.format(wiring=self.wiring, variant=self.variant, when=self.when,
                                      verdict=self.verdict),
                          *(f.shown(language) for f in self.findings),
                          t.gettext("squares: {summary}").format(summary=summary)]) + "\n"

    def json_text(self) -> str:
        return json.dumps(self.to_json(), indent=1, ensure_ascii=False) + "\n"


def run_board_test(bench: Bench, wiring: Wiring, variant: Variant, expected: frozenset[str],
                   say: Say, free: bool = False,
                   language: str = DEFAULT_LANGUAGE) -> BoardTestReport:
    """The guided test of a wired board: the initial position ``expected`` (logical squares)
    set up and matched (IT 7.1, orientation IT 7.2 / INT 5.1); each dark square, in the
    official numbering, lifted and put back (or put and lifted), then each light square a
    sensor is wired to, put and lifted; dead, stuck, swapped and
    chattering squares named; both clock buttons pressed; a test card on the OLED; the buzzer
    sounded. ``free``: the squares in any order, ticked off as they are seen closing and
    opening (swapped wires cannot be told then). Raises the drivers' BusUnavailableError when
    the bus cannot be opened. ``language``: of the prompts (said and on the OLED); the
    report's findings stay English (its files), localized where they are shown."""
    say = _in_language(say, language)
    report = BoardTestReport(wiring.source, variant.name)
    position, turned = setup_articles(variant)
    bus = bench.open_bus(wiring.bus)
    board = BoardSquares(wiring, bus)
    board.init()
    device = _open_display(bench, wiring, report)
    screen = oled_prompt(device, language)
    sampler: Sampler[str] = Sampler(board.read, bench)
    size = wiring.size

    candidates = ((wiring.orientation,) if wiring.orientation is not None
                  else wiring.auto_candidates)
    physical_start = tuple(sorted(unrotate_square(s, candidates[0], size) for s in expected))
    _ask(bench, say, screen, Request("set up", N_("set up the initial position"),
                                     physical_start))
    # Until as many squares as pieces closed: a person sets up one piece at a time, so the
    # set-up gets SETUP_STEPS steps' time.
    deadline = bench.clock() + SETUP_STEPS * bench.step_timeout
    sensed: frozenset[str] = frozenset()
    chattering: set[str] = set()
    while len(sensed - chattering) < len(expected) and bench.clock() < deadline:
        sensed, chatter = sampler.wait_change(sensed, max(0.0, deadline - bench.clock()))
        chattering |= chatter
    sensed, more = sampler.settle(0.1)
    chattering |= more
    sensed = frozenset(sensed - chattering)
    for address, error in sorted(board.failed.items()):
        names = " ".join(sorted((s for c in wiring.chips if c.address == address
                                 for s in c.squares if s), key=square_sort_key))
        report.findings.append(Finding(FAIL, f"0x{address:02x}", N_(
            "does not answer ({error}); not tested: {squares}").format(error=error, squares=names),
            N_("run damiera hardware probe")))
    try:
        rotation = detect_orientation(sensed, expected, size, candidates)
        report.rotation = rotation
        report.findings.append(Finding(OK, N_("set-up"), N_(
            "the initial position matches ({code}), orientation {degrees}° ({code_turned})"
        ).format(code=position, degrees=rotation * 90, code_turned=turned)))
    except OrientationError:
        rotation = candidates[0]
        start = frozenset(physical_start)
        missing = " ".join(sorted(start - sensed, key=square_sort_key))
        extra = " ".join(sorted(sensed - start, key=square_sort_key))
        what = (N_("the initial position does not match ({code}, {code_turned}): not seen "
                   "{missing}; seen but empty {extra}") if missing and extra else
                N_("the initial position does not match ({code}, {code_turned}): not seen "
                   "{missing}") if missing else
                N_("the initial position does not match ({code}, {code_turned}): seen but "
                   "empty {extra}"))
        report.findings.append(Finding(
            FAIL, N_("set-up"), what.format(code=position, code_turned=turned, missing=missing,
                                            extra=extra),
            N_("the squares below say why")))

    dark = numbered_squares(size, variant.first_dark_file_even)
    dark_physical = {unrotate_square(s, rotation, size) for s in dark}
    # every sensor wired is tested: the light squares' too (the parts list needs them to see a
    # board turned the wrong way, IT 7.2), after the dark ones, by their names (issue 37)
    light = [s for s in all_squares(size) if s not in dark
             and unrotate_square(s, rotation, size) in wiring.sensed_squares]
    labelled = [(f"{number} ({unrotate_square(s, rotation, size)})", s)
                for number, s in enumerate(dark, start=1)]
    labelled += [(unrotate_square(s, rotation, size), s)
                 for s in sorted(light, key=square_sort_key)]
    unseen = board.unseen()
    shows: dict[str, str] = {}
    if free:
        _free_steps(bench, say, screen, sampler, report,
                    [unrotate_square(s, rotation, size) for _, s in labelled], unseen,
                    chattering)
    for label, logical in () if free else labelled:
        square = unrotate_square(logical, rotation, size)
        if square in unseen:
            report.squares[square] = "not tested"
            continue
        if square in chattering:
            report.squares[square] = "chattering"
            continue
        occupied = logical in expected
        squares_now = sampler.settle(SETTLE)[0] - chattering
        steps = ((("lift", N_("take the piece off {square}")),
                  ("place", N_("put it back on {square}"))) if occupied
                 else (("place", N_("put a piece on {square}")),
                       ("lift", N_("take the piece off {square}"))))
        verdict = "ok"
        for action, words in steps:
            _ask(bench, say, screen, Request(action, words.format(square=label), (square,)))
            after, chatter = sampler.wait_change(squares_now, bench.step_timeout)
            chattering |= chatter
            if square in chatter:
                verdict = N_("chattering")
                break
            changed = (after ^ squares_now) - chattering
            if changed == {square}:
                squares_now = after
                continue
            if not changed:
                was_closed = square in squares_now
                verdict = N_("stuck") if was_closed else N_("dead")
                break
            others = sorted(changed - {square}, key=square_sort_key)
            verdict = N_("shows as {square}").format(square=others[0]) if len(changed) == 1 \
                else N_("shows on {squares}").format(
                    squares=" ".join(sorted(changed, key=square_sort_key)))
            shows[square] = others[0]
            squares_now = after
        report.squares[square] = verdict
    _ask(bench, say, screen, Request("clear", N_("take every piece off the board")))
    left, chatter = sampler.settle(0.1)
    for square in sorted(left - chattering - set(report.squares), key=square_sort_key):
        report.squares[square] = "stuck"  # a light square (or one not asked) closed on its own
    for square in list(report.squares):
        other = shows.get(square)
        if other is not None and shows.get(other) == square:
            report.squares[square] = N_("swapped with {square}").format(square=other)
    for square, verdict in sorted(report.squares.items(), key=lambda kv: square_sort_key(kv[0])):
        if verdict == "ok":
            continue
        advice = {"dead": N_("never closes: a broken switch, or its wire is off"),
                  "stuck": N_("never opens: a stuck switch or a short to ground"),
                  "chattering": N_("changes on its own: a loose joint or a broken switch"),
                  "not tested": ""}.get(verdict, N_("the wires of these squares are crossed: "
                                                    "swap them (or run damiera hardware map)"))
        report.findings.append(Finding(WARN if verdict == "not tested" else FAIL, square,
                                       verdict, advice))
    good = sum(1 for s, v in report.squares.items() if v == "ok" and s in dark_physical)
    report.findings.append(Finding(OK if good == len(dark) else FAIL, N_("squares"),
                                   N_("{good} of {n} dark squares closed and opened "
                                      "cleanly").format(good=good, n=len(dark))))
    if light:
        light_physical = {unrotate_square(s, rotation, size) for s in light}
        good = sum(1 for s, v in report.squares.items() if v == "ok" and s in light_physical)
        report.findings.append(Finding(OK if good == len(light) else FAIL, N_("light squares"),
                                       N_("{good} of {n} light squares closed and opened "
                                          "cleanly").format(good=good, n=len(light))))
    report.findings += _test_buttons(bench, wiring, say, screen)
    report.findings += _test_card(device)
    report.findings += _test_buzzer(bench, wiring)
    return report


def _free_steps(bench: Bench, say: Say, screen: Callable[[str], None] | None,
                sampler: Sampler[str], report: BoardTestReport, order: Sequence[str],
                unseen: frozenset[str], chattering: set[str]) -> None:
    """The squares in any order: each is ticked off once seen closing and opening. It ends
    when every square is ticked, or when as many steps as squares left passed in silence (the
    person has done what they could); a square left is ``stuck`` if closed, else ``dead``."""
    for square in order:
        if square in unseen:
            report.squares[square] = N_("not tested")
        elif square in chattering:
            report.squares[square] = N_("chattering")
    remaining = [s for s in order if s not in report.squares]
    closed_seen: set[str] = set()
    opened_seen: set[str] = set()
    current = frozenset(sampler.settle(SETTLE)[0] - chattering)
    silent = 0
    while remaining and silent < len(remaining):
        offer = remaining[silent % len(remaining)]
        # English (said through localize, which picks the language's plural form by {n})
        left = translations(DEFAULT_LANGUAGE).ngettext(
            "lift and put back, or put and lift, any square: {n} left",
            "lift and put back, or put and lift, any square: {n} left", len(remaining))
        _ask(bench, say, screen, Request("toggle", left.format(n=len(remaining)), (offer,)))
        after, chatter = sampler.wait_change(current, bench.step_timeout)
        chattering |= chatter
        changed = (after ^ current) - chattering
        # only a square still to tick is progress (a crossed wire may change another)
        silent = 0 if changed & set(remaining) else silent + 1
        for square in changed:
            (closed_seen if square in after else opened_seen).add(square)
        current = after
        for square in [s for s in remaining if s in chattering]:
            report.squares[square] = "chattering"
        remaining = [s for s in remaining if s not in report.squares
                     and not (s in closed_seen and s in opened_seen)]
    for square in order:
        if square not in report.squares:
            report.squares[square] = ("ok" if square not in remaining else
                                      "stuck" if square in current else "dead")


def _open_display(bench: Bench, wiring: Wiring, report: BoardTestReport) -> Any:
    from pi.drivers.errors import DeviceUnavailableError
    try:
        return bench.display_device(wiring)
    except DeviceUnavailableError as exc:
        report.findings.append(Finding(FAIL, "OLED", str(exc)))
        return None


def _test_buttons(bench: Bench, wiring: Wiring, say: Say,
                  screen: Callable[[str], None] | None) -> list[Finding]:
    import queue

    from pi.drivers.buttons import ButtonPanel
    clocks = {side: {"clock": c["clock"]} for side, c in wiring.buttons.items() if "clock" in c}
    if len(clocks) < 2:
        return [Finding(WARN, N_("buttons"), N_("the wiring file names no clock button for "
                                                "{sides}").format(sides=" and ".join(
                            s for s in ("white", "black") if s not in clocks)),
                        N_("add [buttons.white] and [buttons.black] clock = GPIO"))]
    presses: queue.Queue[Any] = queue.Queue()
    panel = ButtonPanel(clocks, presses, bench.clock, pin_factory=bench.pin_factory,
                        pull_up=wiring.button_pull_up, bounce_time=None)
    findings = []
    try:
        for side in ("white", "black"):
            gpio = clocks[side]["clock"]
            _ask(bench, say, screen, Request("press", N_("press {side}'s clock button").format(
                side=side), button=(side, "clock")))
            end = bench.clock() + bench.step_timeout
            seen = False
            while not seen and bench.clock() < end:
                try:
                    press = presses.get_nowait()
                    seen = str(press.side) == side and press.name == "clock"
                except queue.Empty:
                    bench.sleep(SAMPLE)
            findings.append(Finding(OK, f"GPIO {gpio}", N_("{side}'s clock button "
                                                           "pressed").format(side=side))
                            if seen else
                            Finding(FAIL, f"GPIO {gpio}", N_("{side}'s clock button: no press "
                                                             "seen").format(side=side),
                                    N_("check the button's wire to the GPIO and to ground")))
    finally:
        panel.close()
    return findings


def draw_test_card(device: Any) -> None:
    """A test card on the OLED: a frame, a checkerboard and a line of text, so a dead row or
    column of pixels shows."""
    from luma.core.render import canvas

    from pi.drivers.display import HEIGHT, WIDTH
    with canvas(device) as draw:
        draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), outline=1)
        for row in range(4):
            for col in range(8):
                if (row + col) % 2:
                    x, y = 4 + col * 8, 4 + row * 8
                    draw.rectangle((x, y, x + 7, y + 7), fill=1)
        draw.text((72, 8), "damiera", fill=1)
        draw.text((72, 22), "test card", fill=1)
        draw.line((0, HEIGHT - 1, WIDTH - 1, 0), fill=1)


def _test_card(device: Any) -> list[Finding]:
    if device is None:
        return [Finding(WARN, "OLED", N_("no OLED in the wiring file"))]
    try:
        draw_test_card(device)
    except OSError as exc:
        return [Finding(FAIL, "OLED", N_("the test card could not be sent ({error})").format(
            error=exc))]
    return [Finding(OK, "OLED", N_("test card shown"), N_("check every edge and square by eye"))]


def _test_buzzer(bench: Bench, wiring: Wiring) -> list[Finding]:
    if wiring.buzzer_gpio is None:
        return [Finding(WARN, N_("buzzer"), N_("no buzzer in the wiring file"))]
    from pi.drivers.buzzer import Beeper
    beeper = Beeper.on_gpio(wiring.buzzer_gpio, tonal=wiring.buzzer_tonal,
                            pin_factory=bench.pin_factory)
    try:
        beeper.play("ok")
    finally:
        beeper.close()
    return [Finding(OK, f"GPIO {wiring.buzzer_gpio}", N_("the buzzer sounded"),
                    N_("listen for it"))]


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
