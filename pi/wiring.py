"""The wiring file (TOML): which sensor is on which expander pin, and the other peripherals.

:func:`load_wiring` reads and validates a file into a frozen :class:`Wiring`; any problem is a
:class:`~pi.errors.WiringError` naming the file and the key, one line. The builders at the end of
the module are the only place that constructs real hardware (smbus2 bus, gpiozero devices, luma
OLED, serial port); each accepts injected replacements so the PC simulator and the tests reuse them.
The format is documented in README.md (section Hardware) and in the examples in ``pi/wiring/``.
"""

from __future__ import annotations

import errno as errno_mod
import logging
import queue
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.events import BUTTON_NAMES, SIDES
from pi.errors import BusUnavailableError, DeviceUnavailableError, WiringError
from pi.expanders import EXPANDER_TYPES, MCP23017, Expander, SMBusLike
from pi.geometry import BOARD_SIZES, parse_square, rotation_from_degrees, square_name

log = logging.getLogger(__name__)

EXAMPLES_DIR = Path(__file__).with_name("wiring")
#: BCM GPIO numbers usable on the 40-pin header.
GPIO_RANGE = range(0, 28)
DISPLAY_DRIVERS = ("ssd1306", "sh1106")

_TOP_KEYS = {"board", "bus", "mode", "active_low", "orientation", "auto_candidates", "chips",
             "matrix", "interrupt", "scan", "buttons", "buzzer", "display", "serial"}


@dataclass(frozen=True)
class ChipSpec:
    """One expander. ``squares[pin]`` is the physical square on that pin ("" = unused)."""

    name: str
    kind: str
    address: int
    squares: tuple[str, ...] = ()
    allow_gp7_inputs: bool = False
    pull_ups: bool = True


@dataclass(frozen=True)
class PinRef:
    chip: str
    pin: int


@dataclass(frozen=True)
class MatrixSpec:
    """Rows (outputs), columns (inputs) and ``squares[row][column]`` (physical names)."""

    rows: tuple[PinRef, ...]
    columns: tuple[PinRef, ...]
    squares: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class ScanSpec:
    debounce: float = 0.030
    poll_interval: float = 0.5
    retry_initial: float = 0.05
    retry_max: float = 5.0
    chatter_changes: int = 20
    chatter_window: float = 1.0
    chatter_recover: float = 2.0
    stuck_after: float = 30.0


@dataclass(frozen=True)
class DisplaySpec:
    driver: str = "ssd1306"
    address: int = 0x3C
    rotate: int = 0


@dataclass(frozen=True)
class SerialSpec:
    port: str = "/dev/serial0"
    baudrate: int = 115200


@dataclass(frozen=True)
class Wiring:
    """A validated wiring file. Squares are physical names (see :mod:`pi.geometry`)."""

    source: str
    size: int
    bus: int | str = 1
    mode: str = "direct"
    active_low: bool = True
    orientation: int | None = 0  # quarter turns; None = detect ("auto")
    auto_candidates: tuple[int, ...] = (0, 1)
    chips: tuple[ChipSpec, ...] = ()
    matrix: MatrixSpec | None = None
    interrupt_gpio: int | None = None
    scan: ScanSpec = field(default_factory=ScanSpec)
    buttons: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    button_pull_up: bool = True
    button_bounce: float = 0.02
    buzzer_gpio: int | None = None
    buzzer_tonal: bool = False
    display: DisplaySpec | None = None
    serial: SerialSpec | None = None

    def chip(self, name: str) -> ChipSpec:
        return next(c for c in self.chips if c.name == name)

    @property
    def sensed_squares(self) -> frozenset[str]:
        """Every physical square with a sensor."""
        if self.matrix is not None:
            return frozenset(s for row in self.matrix.squares for s in row if s)
        return frozenset(s for c in self.chips for s in c.squares if s)


class _Reader:
    """Typed access to a TOML table that names the key in every error."""

    def __init__(self, source: str, table: Mapping[str, Any], prefix: str = "") -> None:
        self.source = source
        self.table = table
        self.prefix = prefix

    def key(self, name: str) -> str:
        return f"{self.prefix}{name}"

    def error(self, name: str, problem: str) -> WiringError:
        return WiringError(self.source, self.key(name), problem)

    def check_keys(self, allowed: set[str] | frozenset[str]) -> None:
        for k in self.table:
            if k not in allowed:
                raise self.error(k, f"unknown key (expected one of: {', '.join(sorted(allowed))})")

    def get(self, name: str, kinds: type | tuple[type, ...], default: Any = ...) -> Any:
        if name not in self.table:
            if default is ...:
                raise self.error(name, "missing")
            return default
        value = self.table[name]
        if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
            raise self.error(name, f"expected {_kind_names(kinds)}, got {value!r}")
        if not isinstance(value, kinds):
            raise self.error(name, f"expected {_kind_names(kinds)}, got {value!r}")
        return value

    def number(self, name: str, default: float, low: float, high: float) -> float:
        value = float(self.get(name, (int, float), default))
        if not low <= value <= high:
            raise self.error(name, f"{value:g} is out of range {low:g}..{high:g}")
        return value

    def sub(self, name: str, required: bool = False) -> _Reader | None:
        if name not in self.table:
            if required:
                raise self.error(name, "missing table")
            return None
        value = self.table[name]
        if not isinstance(value, dict):
            raise self.error(name, "expected a table")
        return _Reader(self.source, value, f"{self.key(name)}.")


def _kind_names(kinds: type | tuple[type, ...]) -> str:
    names = {int: "an integer", float: "a number", str: "a string", bool: "true/false",
             list: "a list", dict: "a table"}
    ks = kinds if isinstance(kinds, tuple) else (kinds,)
    return " or ".join(names.get(k, k.__name__) for k in ks)


def load_wiring(path: str | Path) -> Wiring:
    """Reads and validates a wiring file. Raises WiringError (one line) on any problem."""
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise WiringError(source, "", f"cannot read the file ({e.strerror or e})") from None
    return parse_wiring(data.decode("utf-8", errors="replace"), source)


def parse_wiring(text: str, source: str = "<wiring>") -> Wiring:
    """Parses wiring TOML text; ``source`` names it in errors. Raises WiringError."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise WiringError(source, "", f"not valid TOML: {e}") from None
    r = _Reader(source, raw)
    r.check_keys(_TOP_KEYS)
    size = r.get("board", int)
    if size not in BOARD_SIZES:
        raise r.error("board", f"{size} is not a board size (8 or 10)")
    bus = r.get("bus", (int, str), 1)
    mode = r.get("mode", str, "direct")
    if mode not in ("direct", "matrix"):
        raise r.error("mode", f"{mode!r} is not 'direct' or 'matrix'")
    active_low = r.get("active_low", bool, True)
    orientation = _orientation(r)
    candidates = r.get("auto_candidates", list, [0, 90])
    if not all(type(d) is int and d in (0, 90, 180, 270) for d in candidates):
        raise r.error("auto_candidates", "expected a list of 0, 90, 180, 270")
    auto_candidates = tuple(rotation_from_degrees(d) for d in candidates)
    if not auto_candidates:
        raise r.error("auto_candidates", "must not be empty")

    chips = _chips(r, size, mode)
    matrix = _matrix(r, size, chips) if mode == "matrix" else None
    if mode == "matrix" and any(c.squares for c in chips):
        raise r.error("chips", "a matrix wiring lists squares in [matrix], not in the chips")
    if mode == "direct" and "matrix" in raw:
        raise r.error("matrix", "only with mode = \"matrix\"")
    if mode == "direct" and not any(s for c in chips for s in c.squares):
        raise r.error("chips", "no square is wired to any chip")

    gpios: dict[int, str] = {}
    interrupt_gpio = None
    it = r.sub("interrupt")
    if it is not None:
        it.check_keys({"gpio"})
        interrupt_gpio = _gpio(it, "gpio", gpios)
    scan = _scan(r)
    buttons, pull_up, bounce = _buttons(r, gpios)
    buzzer_gpio, tonal = None, False
    bz = r.sub("buzzer")
    if bz is not None:
        bz.check_keys({"gpio", "tonal"})
        buzzer_gpio = _gpio(bz, "gpio", gpios)
        tonal = bz.get("tonal", bool, False)
    display = None
    dp = r.sub("display")
    if dp is not None:
        dp.check_keys({"driver", "address", "rotate"})
        driver = dp.get("driver", str, "ssd1306")
        if driver not in DISPLAY_DRIVERS:
            raise dp.error("driver", f"{driver!r} is not one of {', '.join(DISPLAY_DRIVERS)}")
        address = dp.get("address", int, 0x3C)
        if address not in (0x3C, 0x3D):
            raise dp.error("address", f"0x{address:02x} is not an OLED address (0x3c or 0x3d)")
        if any(c.address == address for c in chips):
            raise dp.error("address", f"0x{address:02x} is also used by an expander")
        rotate = dp.get("rotate", int, 0)
        if rotate not in (0, 1, 2, 3):
            raise dp.error("rotate", "expected 0, 1, 2 or 3 (quarter turns)")
        display = DisplaySpec(driver, address, rotate)
    serial = None
    sp = r.sub("serial")
    if sp is not None:
        sp.check_keys({"port", "baudrate"})
        baud = sp.get("baudrate", int, 115200)
        if baud <= 0:
            raise sp.error("baudrate", "must be positive")
        serial = SerialSpec(sp.get("port", str, "/dev/serial0"), baud)
    return Wiring(source=source, size=size, bus=bus, mode=mode, active_low=active_low,
                  orientation=orientation, auto_candidates=auto_candidates, chips=chips,
                  matrix=matrix, interrupt_gpio=interrupt_gpio, scan=scan, buttons=buttons,
                  button_pull_up=pull_up, button_bounce=bounce, buzzer_gpio=buzzer_gpio,
                  buzzer_tonal=tonal, display=display, serial=serial)


def _orientation(r: _Reader) -> int | None:
    value = r.get("orientation", (int, str), 0)
    if value == "auto":
        return None
    if isinstance(value, str):
        raise r.error("orientation", f"{value!r} is not \"auto\" or 0, 90, 180, 270")
    try:
        return rotation_from_degrees(value)
    except ValueError as e:
        raise r.error("orientation", f"{e}") from None


def _chips(r: _Reader, size: int, mode: str) -> tuple[ChipSpec, ...]:
    items = r.get("chips", list)
    if not items:
        raise r.error("chips", "at least one chip is needed")
    chips: list[ChipSpec] = []
    seen_squares: dict[str, str] = {}
    for i, item in enumerate(items):
        key = f"chips[{i}]"
        if not isinstance(item, dict):
            raise r.error(key, "expected a table ([[chips]])")
        c = _Reader(r.source, item, f"{key}.")
        c.check_keys({"name", "type", "address", "squares", "allow_gp7_inputs", "pull_ups"})
        name = c.get("name", str)
        if any(ch.name == name for ch in chips):
            raise c.error("name", f"{name!r} is used by two chips")
        kind = c.get("type", str).lower()
        if kind not in EXPANDER_TYPES:
            raise c.error("type", f"{kind!r} is not one of {', '.join(EXPANDER_TYPES)}")
        cls = EXPANDER_TYPES[kind]
        address = c.get("address", int)
        if address not in cls.addresses:
            raise c.error("address", f"0x{address:02x} is not a {cls.kind} address "
                                     f"(0x{cls.addresses[0]:02x}-0x{cls.addresses[-1]:02x})")
        if any(ch.address == address for ch in chips):
            raise c.error("address", f"0x{address:02x} is used by two chips")
        allow7 = c.get("allow_gp7_inputs", bool, False)
        if allow7 and cls is not MCP23017:
            raise c.error("allow_gp7_inputs", "only for an MCP23017")
        squares: tuple[str, ...] = ()
        if "squares" in item:
            lst = c.get("squares", list)
            if len(lst) > 16:
                raise c.error("squares", f"{len(lst)} entries for 16 pins")
            out = []
            for pin, s in enumerate(lst):
                skey = f"squares[{pin}]"
                if not isinstance(s, str):
                    raise c.error(skey, f"expected a square name or \"\", got {s!r}")
                if s:
                    try:
                        parse_square(s, size)
                    except ValueError as e:
                        raise c.error(skey, str(e)) from None
                    if s in seen_squares:
                        raise c.error(skey, f"{s} is already wired on {seen_squares[s]}")
                    seen_squares[s] = f"{name} pin {pin}"
                    if cls is MCP23017 and pin in (7, 15) and not allow7:
                        raise c.error(skey, f"pin {pin} (GP{'AB'[pin // 8]}7) cannot be an input "
                                            "on the MCP23017 (datasheet erratum); use another pin "
                                            "or set allow_gp7_inputs = true")
                out.append(s)
            squares = tuple(out)
        chips.append(ChipSpec(name, kind, address, squares, allow7, c.get("pull_ups", bool, True)))
    return tuple(chips)


def _pin_ref(r: _Reader, key: str, value: Any, chips: tuple[ChipSpec, ...]) -> PinRef:
    if not isinstance(value, str) or value.count(":") != 1:
        raise r.error(key, f"expected \"chip:pin\", got {value!r}")
    name, pin_text = value.split(":")
    if not any(c.name == name for c in chips):
        raise r.error(key, f"no chip named {name!r}")
    if not pin_text.isdigit() or not 0 <= int(pin_text) <= 15:
        raise r.error(key, f"pin {pin_text!r} is not 0..15")
    return PinRef(name, int(pin_text))


def _matrix(r: _Reader, size: int, chips: tuple[ChipSpec, ...]) -> MatrixSpec:
    m = r.sub("matrix", required=True)
    assert m is not None
    m.check_keys({"rows", "columns", "squares"})
    used: set[PinRef] = set()
    refs: dict[str, list[PinRef]] = {}
    for which in ("rows", "columns"):
        lst = m.get(which, list)
        if not lst:
            raise m.error(which, "must not be empty")
        refs[which] = []
        for i, v in enumerate(lst):
            ref = _pin_ref(m, f"{which}[{i}]", v, chips)
            if ref in used:
                raise m.error(f"{which}[{i}]", f"{v} is used twice")
            spec = next(c for c in chips if c.name == ref.chip)
            if which == "columns" and spec.kind == "mcp23017" and ref.pin in (7, 15) \
                    and not spec.allow_gp7_inputs:
                raise m.error(f"{which}[{i}]", f"pin {ref.pin} cannot be an input on the MCP23017 "
                                               "(datasheet erratum); make it a row")
            used.add(ref)
            refs[which].append(ref)
    rows, columns = refs["rows"], refs["columns"]
    if "squares" in m.table:
        grid_raw = m.get("squares", list)
        if len(grid_raw) != len(rows):
            raise m.error("squares", f"{len(grid_raw)} rows of squares for {len(rows)} rows")
        grid: list[tuple[str, ...]] = []
        seen: set[str] = set()
        for i, row in enumerate(grid_raw):
            if not isinstance(row, list) or len(row) != len(columns):
                raise m.error(f"squares[{i}]", f"expected a list of {len(columns)} square names")
            for j, s in enumerate(row):
                if not isinstance(s, str):
                    raise m.error(f"squares[{i}][{j}]", f"expected a square name, got {s!r}")
                if s:
                    try:
                        parse_square(s, size)
                    except ValueError as e:
                        raise m.error(f"squares[{i}][{j}]", str(e)) from None
                    if s in seen:
                        raise m.error(f"squares[{i}][{j}]", f"{s} appears twice")
                    seen.add(s)
            grid.append(tuple(row))
    else:
        if len(rows) != size or len(columns) != size:
            raise m.error("squares", f"needed unless there are {size} rows and {size} columns "
                                     "(row i = rank i+1, column j = file j)")
        grid = [tuple(square_name(f, rk) for f in range(size)) for rk in range(size)]
    return MatrixSpec(tuple(rows), tuple(columns), tuple(grid))


def _gpio(r: _Reader, name: str, used: dict[int, str]) -> int:
    gpio: int = r.get(name, int)
    if gpio not in GPIO_RANGE:
        raise r.error(name, f"GPIO {gpio} does not exist (BCM 0..27)")
    if gpio in (2, 3):
        raise r.error(name, f"GPIO {gpio} is the I²C bus (SDA/SCL)")
    if gpio in used:
        raise r.error(name, f"GPIO {gpio} is already used by {used[gpio]}")
    used[gpio] = r.key(name)
    return gpio


def _scan(r: _Reader) -> ScanSpec:
    s = r.sub("scan")
    if s is None:
        return ScanSpec()
    s.check_keys({"debounce_ms", "poll_ms", "retry_ms", "retry_max_ms", "chatter_changes",
                  "chatter_window_ms", "chatter_recover_ms", "stuck_after_s"})
    changes = s.get("chatter_changes", int, 20)
    if changes < 2:
        raise s.error("chatter_changes", "must be at least 2")
    return ScanSpec(debounce=s.number("debounce_ms", 30, 0, 1000) / 1000,
                    poll_interval=s.number("poll_ms", 500, 1, 60000) / 1000,
                    retry_initial=s.number("retry_ms", 50, 1, 60000) / 1000,
                    retry_max=s.number("retry_max_ms", 5000, 1, 600000) / 1000,
                    chatter_changes=changes,
                    chatter_window=s.number("chatter_window_ms", 1000, 1, 60000) / 1000,
                    chatter_recover=s.number("chatter_recover_ms", 2000, 1, 600000) / 1000,
                    stuck_after=s.number("stuck_after_s", 30, 1, 86400))


def _buttons(r: _Reader, gpios: dict[int, str]) -> tuple[dict[str, dict[str, int]], bool, float]:
    b = r.sub("buttons")
    if b is None:
        return {}, True, 0.02
    b.check_keys({"pull_up", "bounce_ms", *SIDES})
    out: dict[str, dict[str, int]] = {}
    for side in SIDES:
        t = b.sub(side)
        if t is None:
            continue
        t.check_keys(set(BUTTON_NAMES))
        out[side] = {name: _gpio(t, name, gpios) for name in BUTTON_NAMES if name in t.table}
    return out, b.get("pull_up", bool, True), b.number("bounce_ms", 20, 0, 1000) / 1000


# -- builders: the only place real hardware is constructed ---------------------------------------

def open_i2c_bus(bus: int | str = 1, opener: Callable[[int | str], SMBusLike] | None = None
                 ) -> SMBusLike:
    """Opens the I²C bus (``/dev/i2c-<bus>``) with smbus2, or ``opener``.

    Raises BusUnavailableError with what to do when the device node is missing or not allowed.
    """
    if opener is None:
        from smbus2 import SMBus
        opener = SMBus
    path = bus if isinstance(bus, str) else f"/dev/i2c-{bus}"
    try:
        return opener(bus)
    except PermissionError:
        raise BusUnavailableError(
            f"no permission to open {path}: add the user to the i2c group "
            "(sudo usermod -aG i2c $USER) and log in again") from None
    except OSError as e:
        if e.errno in (errno_mod.ENOENT, errno_mod.ENODEV, errno_mod.ENXIO):
            raise BusUnavailableError(
                f"{path} does not exist: enable I²C with 'sudo raspi-config nonint do_i2c 0' "
                "(or add dtparam=i2c_arm=on to /boot/firmware/config.txt) and reboot") from None
        if e.errno in (errno_mod.EACCES, errno_mod.EPERM):
            raise BusUnavailableError(
                f"no permission to open {path}: add the user to the i2c group "
                "(sudo usermod -aG i2c $USER) and log in again") from None
        raise BusUnavailableError(f"cannot open {path}: {e}") from None


def build_expanders(wiring: Wiring, bus: SMBusLike) -> dict[str, Expander]:
    """Chip drivers by chip name, with directions from the wiring (not yet initialised)."""
    inputs: dict[str, int] = {c.name: 0 for c in wiring.chips}
    outputs: dict[str, int] = {c.name: 0 for c in wiring.chips}
    if wiring.matrix is not None:
        for ref in wiring.matrix.rows:
            outputs[ref.chip] |= 1 << ref.pin
        for ref in wiring.matrix.columns:
            inputs[ref.chip] |= 1 << ref.pin
    else:
        for c in wiring.chips:
            inputs[c.name] = sum(1 << p for p, s in enumerate(c.squares) if s)
    out: dict[str, Expander] = {}
    for c in wiring.chips:
        cls = EXPANDER_TYPES[c.kind]
        kwargs: dict[str, Any] = {"inputs": inputs[c.name], "outputs": outputs[c.name],
                                  "pull_ups": c.pull_ups}
        if cls is MCP23017:
            kwargs["allow_gp7_inputs"] = c.allow_gp7_inputs
        out[c.name] = cls(bus, c.address, **kwargs)
    return out


def build_scanner(wiring: Wiring, bus: SMBusLike, clock: Callable[[], float], *,
                  reopen: Callable[[], SMBusLike] | None = None, t0: float | None = None,
                  rotation: int | None = None) -> Any:
    """A SensorScanner for the wiring on ``bus`` (rotation: the wiring's, or 0 when "auto")."""
    from pi.sensors import DirectGroup, MatrixGroup, SensorGroup, SensorScanner
    chips = build_expanders(wiring, bus)
    groups: list[SensorGroup] = []
    if wiring.matrix is not None:
        m = wiring.matrix
        groups.append(MatrixGroup([(chips[p.chip], p.pin) for p in m.rows],
                                  [(chips[p.chip], p.pin) for p in m.columns], m.squares))
    else:
        for c in wiring.chips:
            if any(c.squares):
                groups.append(DirectGroup(chips[c.name], c.squares, active_low=wiring.active_low))
    s = wiring.scan
    if rotation is None:
        rotation = wiring.orientation or 0
    poll = s.poll_interval
    if wiring.interrupt_gpio is None or wiring.matrix is not None:
        poll = min(poll, 0.01)  # no usable interrupt line: poll at 100 Hz
    return SensorScanner(groups, wiring.size, clock, bus=bus, reopen=reopen, t0=t0,
                         debounce=s.debounce, poll_interval=poll, rotation=rotation,
                         retry_initial=s.retry_initial, retry_max=s.retry_max,
                         chatter_changes=s.chatter_changes, chatter_window=s.chatter_window,
                         chatter_recover=s.chatter_recover, stuck_after=s.stuck_after)


@dataclass
class Hardware:
    """Everything the daemon drives; built by :func:`build_hardware`, closed by ``close``."""

    wiring: Wiring
    scanner: Any
    interrupt: Any = None
    buttons: Any = None
    beeper: Any = None
    display: Any = None
    serial_link: Any = None

    def start(self) -> list[Any]:
        """Starts the serial reader and powers the sensors up; returns the scanner's first
        outputs (a SnapshotTaken, or SensorFaults)."""
        if self.serial_link is not None:
            self.serial_link.start()
        return list(self.scanner.start())

    def close(self) -> None:
        """Closes in reverse order of construction; errors are logged, never raised."""
        for part in (self.serial_link, self.display, self.beeper, self.buttons, self.interrupt):
            if part is None:
                continue
            try:
                part.close()
            except Exception:  # noqa: BLE001 - closing must go on
                log.exception("closing %r", part)
        bus = getattr(self.scanner, "bus", None)
        if bus is not None:
            try:
                bus.close()
            except OSError:
                log.exception("closing the I2C bus")


def build_hardware(wiring: Wiring, out: queue.Queue[Any], clock: Callable[[], float], *,
                   t0: float | None = None,
                   bus_opener: Callable[[int | str], SMBusLike] | None = None,
                   pin_factory: Any = None, display_device: Any = None,
                   serial_port: Any = None) -> Hardware:
    """Builds every part the wiring describes. Callbacks from all parts go to ``out``.

    Real hardware is opened unless replaced: ``bus_opener`` (bus number → SMBus-like),
    ``pin_factory`` (gpiozero factory for interrupt, buttons and buzzer), ``display_device``
    (a luma device), ``serial_port`` (a pyserial-like port). Raises BusUnavailableError or
    DeviceUnavailableError with a one-line explanation.
    """
    from pi.buttons import ButtonPanel
    from pi.buzzer import Beeper
    from pi.display import BoardDisplay
    from pi.sensors import InterruptLine
    from pi.serial_link import SerialLink

    t0 = clock() if t0 is None else t0
    bus = open_i2c_bus(wiring.bus, bus_opener)

    def reopen() -> SMBusLike:
        try:
            return open_i2c_bus(wiring.bus, bus_opener)
        except BusUnavailableError as e:
            raise OSError(errno_mod.ENODEV, str(e)) from None

    hw = Hardware(wiring, build_scanner(wiring, bus, clock, reopen=reopen, t0=t0))
    try:
        if wiring.interrupt_gpio is not None:
            hw.interrupt = InterruptLine(wiring.interrupt_gpio, out, pin_factory=pin_factory)
        if wiring.buttons:
            hw.buttons = ButtonPanel(wiring.buttons, out, clock, t0=t0, pin_factory=pin_factory,
                                     pull_up=wiring.button_pull_up,
                                     bounce_time=wiring.button_bounce)
        if wiring.buzzer_gpio is not None:
            hw.beeper = Beeper.on_gpio(wiring.buzzer_gpio, tonal=wiring.buzzer_tonal,
                                       pin_factory=pin_factory)
        if wiring.display is not None or display_device is not None:
            if display_device is None:
                assert wiring.display is not None
                display_device = open_oled(wiring.display, wiring.bus)
            hw.display = BoardDisplay(display_device)
        if wiring.serial is not None or serial_port is not None:
            if serial_port is None:
                assert wiring.serial is not None
                serial_port = open_serial(wiring.serial)
            hw.serial_link = SerialLink(serial_port, out, clock, t0=t0)
    except Exception:
        hw.close()
        raise
    return hw


def open_oled(spec: DisplaySpec, bus: int | str = 1) -> Any:
    """The luma.oled device on I²C; DeviceUnavailableError with advice when it cannot open."""
    from luma.core.error import DeviceNotFoundError, DevicePermissionError
    from luma.core.interface.serial import i2c
    from luma.oled.device import sh1106, ssd1306
    port = bus if isinstance(bus, int) else 1
    try:
        serial = i2c(port=port, address=spec.address)
        cls = ssd1306 if spec.driver == "ssd1306" else sh1106
        return cls(serial, width=128, height=64, rotate=spec.rotate)
    except DevicePermissionError:
        raise DeviceUnavailableError(
            "no permission for the OLED's I²C bus: sudo usermod -aG i2c $USER, log in again"
        ) from None
    except DeviceNotFoundError:
        raise DeviceUnavailableError(
            "no I²C bus for the OLED: enable I²C with 'sudo raspi-config nonint do_i2c 0'"
        ) from None
    except OSError as e:
        raise DeviceUnavailableError(
            f"OLED at 0x{spec.address:02x} does not answer ({e.strerror or e}): check wiring"
        ) from None


def open_serial(spec: SerialSpec) -> Any:
    """The pyserial port of the broadcast link; DeviceUnavailableError when it cannot open."""
    import serial
    try:
        return serial.serial_for_url(spec.port, baudrate=spec.baudrate, timeout=0.1)
    except (serial.SerialException, OSError, ValueError) as e:
        raise DeviceUnavailableError(f"cannot open serial port {spec.port}: {e}") from None
