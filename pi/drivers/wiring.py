"""The wiring file (TOML): which sensor is on which expander pin, and the other peripherals.

Schema and validation only, no I/O to devices: :func:`load_wiring` reads a file (at most
``MAX_WIRING_BYTES``) and validates it into a frozen :class:`Wiring`; any problem is a
:class:`~pi.drivers.errors.WiringError` naming the file and the key, one line, with an excerpt of the bad
value, never all of it. :mod:`pi.drivers.hardware` builds the drivers from a Wiring. The format is
documented in docs/board-builder.md (section Hardware) and in the examples shipped in ``pi/drivers/wiring/``
(:func:`example_wiring`).
"""

from __future__ import annotations

import importlib.resources
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import InvalidSquareError
from engine.events import BUTTON_NAMES, SIDES
from engine.squares import BOARD_SIZES, parse_square, rotation_from_degrees, square_name
from pi.drivers.adcs import ADC_TYPES, FULL_SCALE
from pi.drivers.errors import WiringError
from pi.drivers.expanders import EXPANDER_TYPES, MCP23017

EXAMPLES_DIR = Path(__file__).with_name("wiring")
#: A wiring file is a few kilobytes; anything much larger is not one (read no more than this).
MAX_WIRING_BYTES = 256 * 1024
#: Longest excerpt of a bad value quoted in an error.
EXCERPT = 40
#: BCM GPIO numbers usable on the 40-pin header.
GPIO_RANGE = range(0, 28)
DISPLAY_DRIVERS = ("ssd1306", "sh1106")
#: The kinds of sensor board: presence only (reed switches, digital Hall sensors on expanders),
#: or an analog Hall sensor per square on ADCs, which also tells colour and crown (issue 40).
KINDS = ("occupancy", "analog-hall")
ANALOG = "analog-hall"
#: The levels a calibrated square stores, in ADC codes, lowest field first for a white-north
#: magnet (a black man reads below empty, a white man above).
LEVELS = ("black_king", "black", "empty", "white", "white_king")

_TOP_KEYS = {"board", "bus", "mode", "active_low", "orientation", "auto_candidates", "chips",
             "matrix", "interrupt", "scan", "buttons", "buzzer", "display", "serial", "kind",
             "analog", "calibration"}


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
class SquareCalibration:
    """One square's levels in ADC codes (the thresholds are the midpoints between them), the
    noise (standard deviation of one reading of the empty square) and what calibration measured
    besides: ``gain``, the square's man field over the board's median (1.0 nominal), and
    ``king_ratio``, its own king over man (0: not measured). See :mod:`pi.drivers.calibration`."""

    black_king: float
    black: float
    empty: float
    white: float
    white_king: float
    noise: float = 1.0
    gain: float = 1.0
    king_ratio: float = 0.0

    def levels(self) -> tuple[float, float, float, float, float]:
        """The five levels in :data:`LEVELS` order."""
        return (self.black_king, self.black, self.empty, self.white, self.white_king)


@dataclass(frozen=True)
class AnalogSpec:
    """An analog Hall board's nominal response (used for a square not yet calibrated) and its
    per-square calibration (physical square → levels), written by ``hardware calibrate``.

    ``man_codes``: a man's field in ADC codes over the empty level; ``king_ratio``: a king's
    (two stacked men) over a man's; ``votes``/``window``: a piece is decided when ``votes`` of
    the last ``window`` scans agree."""

    man_codes: float = 655.0
    king_ratio: float = 1.58
    votes: int = 3
    window: int = 5
    calibration: Mapping[str, SquareCalibration] = field(default_factory=dict)

    def square(self, square: str) -> SquareCalibration:
        """The square's calibration, or the nominal one."""
        cal = self.calibration.get(square)
        if cal is not None:
            return cal
        mid, man = FULL_SCALE / 2, self.man_codes
        return SquareCalibration(mid - man * self.king_ratio, mid - man, mid, mid + man,
                                 mid + man * self.king_ratio)


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
    config_check: float = 1.0


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
    """A validated wiring file. Squares are physical names (see :mod:`engine.squares`)."""

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
    kind: str = "occupancy"
    analog: AnalogSpec | None = None

    @property
    def is_analog(self) -> bool:
        """An analog Hall board (colour and crown sensed), not presence only."""
        return self.kind == ANALOG

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
        # A key is user input too: quote it when it would break the one-line message.
        shown = name if name.isprintable() and len(name) <= EXCERPT else _cut(repr(name))
        return f"{self.prefix}{shown}"

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
            raise self.error(name, f"expected {_kind_names(kinds)}, got {excerpt(value)}")
        if not isinstance(value, kinds):
            raise self.error(name, f"expected {_kind_names(kinds)}, got {excerpt(value)}")
        return value

    def integer(self, name: str, low: int, high: int, default: Any = ...) -> int:
        """An integer in ``low..high`` (checked before any arithmetic on it)."""
        value: int = self.get(name, int, default)
        if not low <= value <= high:
            raise self.error(name, f"{excerpt(value)} is out of range {low}..{high}")
        return value

    def number(self, name: str, default: float, low: float, high: float) -> float:
        raw = self.get(name, (int, float), default)
        # Compare before converting: an int of thousands of digits overflows float().
        if isinstance(raw, float) and not math.isfinite(raw) or not low <= raw <= high:
            raise self.error(name, f"{excerpt(raw)} is out of range {low:g}..{high:g}")
        return float(raw)

    def sub(self, name: str, required: bool = False) -> _Reader | None:
        if name not in self.table:
            if required:
                raise self.error(name, "missing table")
            return None
        value = self.table[name]
        if not isinstance(value, dict):
            raise self.error(name, "expected a table")
        return _Reader(self.source, value, f"{self.key(name)}.")


def excerpt(value: Any) -> str:
    """A short repr of a bad value: at most ``EXCERPT`` characters, never the whole of a huge
    one (an int of more than 4300 digits cannot even be turned into a string)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
    if isinstance(value, (list, dict)):
        text = f"a {'list' if isinstance(value, list) else 'table'} of {len(value)} entries"
        return text if len(value) > 4 else _cut(repr(value))
    return _cut(repr(value))


def _cut(text: str) -> str:
    return text if len(text) <= EXCERPT else text[:EXCERPT - 1] + "…"


def _kind_names(kinds: type | tuple[type, ...]) -> str:
    names = {int: "an integer", float: "a number", str: "a string", bool: "true/false",
             list: "a list", dict: "a table"}
    ks = kinds if isinstance(kinds, tuple) else (kinds,)
    return " or ".join(names.get(k, k.__name__) for k in ks)


def example_wiring(name: str) -> Path:
    """The path of a shipped example wiring file (``"mcp23017_8x8"`` or with ``.toml``), found
    through importlib.resources so it works from an installed wheel. FileNotFoundError if no
    such example."""
    filename = name if name.endswith(".toml") else f"{name}.toml"
    resource = importlib.resources.files("pi.drivers") / "wiring" / filename
    if not resource.is_file():
        raise FileNotFoundError(f"no example wiring {filename!r}")
    return Path(str(resource))


def load_wiring(path: str | Path) -> Wiring:
    """Reads (at most MAX_WIRING_BYTES) and validates a wiring file. Raises WiringError (one
    line) on any problem, the file named as given."""
    source = str(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_WIRING_BYTES + 1)
    except OSError as e:
        raise WiringError(source, "", f"cannot read the file ({e.strerror or e})") from None
    except ValueError as e:  # e.g. a NUL in the path
        raise WiringError(_cut(source), "", f"cannot read the file ({e})") from None
    if len(data) > MAX_WIRING_BYTES:
        raise WiringError(source, "", f"larger than {MAX_WIRING_BYTES // 1024} KiB: "
                                      "not a wiring file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise WiringError(source, "", f"not UTF-8 text (byte {e.start})") from None
    return parse_wiring(text, source)


def parse_wiring(text: str, source: str = "<wiring>") -> Wiring:
    """Parses wiring TOML text; ``source`` names it in errors. Raises WiringError."""
    if len(text) > MAX_WIRING_BYTES:
        raise WiringError(source, "", f"larger than {MAX_WIRING_BYTES // 1024} KiB: "
                                      "not a wiring file")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise WiringError(source, "", f"not valid TOML: {_cut(str(e))}") from None
    except RecursionError:
        raise WiringError(source, "", "not valid TOML: nested too deeply") from None
    except (ValueError, OverflowError) as e:  # e.g. an integer literal of 5000 digits
        raise WiringError(source, "", f"not valid TOML: {_cut(str(e))}") from None
    r = _Reader(source, raw)
    r.check_keys(_TOP_KEYS)
    kind = r.get("kind", str, "occupancy")
    if kind not in KINDS:
        raise r.error("kind", f"{excerpt(kind)} is not one of {', '.join(KINDS)}")
    for key in ("analog", "calibration"):
        if key in raw and kind != ANALOG:
            raise r.error(key, f"only with kind = \"{ANALOG}\"")
    size = r.get("board", int)
    if size not in BOARD_SIZES:
        raise r.error("board", f"{excerpt(size)} is not a board size (8 or 10)")
    bus = r.get("bus", (int, str), 1)
    if isinstance(bus, int) and not 0 <= bus <= 255:
        raise r.error("bus", f"{excerpt(bus)} is not an I²C bus number (0..255)")
    if isinstance(bus, str) and (not bus.startswith("/dev/") or len(bus) > 64
                                 or not bus.isprintable()):
        raise r.error("bus", f"{excerpt(bus)} is not a device path (/dev/...)")
    mode = r.get("mode", str, "direct")
    if mode not in ("direct", "matrix"):
        raise r.error("mode", f"{excerpt(mode)} is not 'direct' or 'matrix'")
    active_low = r.get("active_low", bool, True)
    orientation = _orientation(r)
    candidates = r.get("auto_candidates", list, [0, 90])
    if not all(type(d) is int and d in (0, 90, 180, 270) for d in candidates):
        raise r.error("auto_candidates", "expected a list of 0, 90, 180, 270")
    auto_candidates = tuple(rotation_from_degrees(d) for d in candidates)
    if not auto_candidates:
        raise r.error("auto_candidates", "must not be empty")

    if kind == ANALOG and mode != "direct":
        raise r.error("mode", "an analog board is wired directly (one ADC input per square)")
    chips = _chips(r, size, mode, kind)
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
            raise dp.error("driver", f"{excerpt(driver)} is not one of "
                                     f"{', '.join(DISPLAY_DRIVERS)}")
        address = dp.get("address", int, 0x3C)
        if address not in (0x3C, 0x3D):
            shown = f"0x{address:02x}" if 0 <= address <= 0xFF else excerpt(address)
            raise dp.error("address", f"{shown} is not an OLED address (0x3c or 0x3d)")
        if any(c.address == address for c in chips):
            raise dp.error("address", f"0x{address:02x} is also used by an expander")
        rotate = dp.get("rotate", int, 0)
        if rotate not in (0, 1, 2, 3):
            raise dp.error("rotate", "expected 0, 1, 2 or 3 (quarter turns), "
                                     f"got {excerpt(rotate)}")
        display = DisplaySpec(driver, address, rotate)
    serial = None
    sp = r.sub("serial")
    if sp is not None:
        sp.check_keys({"port", "baudrate"})
        baud = sp.integer("baudrate", 50, 4_000_000, 115200)
        port = sp.get("port", str, "/dev/serial0")
        if not port or len(port) > 200 or not port.isprintable():
            raise sp.error("port", f"{excerpt(port)} is not a serial port name")
        serial = SerialSpec(port, baud)
    return Wiring(source=source, size=size, bus=bus, mode=mode, active_low=active_low,
                  orientation=orientation, auto_candidates=auto_candidates, chips=chips,
                  matrix=matrix, interrupt_gpio=interrupt_gpio, scan=scan, buttons=buttons,
                  button_pull_up=pull_up, button_bounce=bounce, buzzer_gpio=buzzer_gpio,
                  buzzer_tonal=tonal, display=display, serial=serial, kind=kind,
                  analog=_analog(r, size, chips) if kind == ANALOG else None)


def _analog(r: _Reader, size: int, chips: tuple[ChipSpec, ...]) -> AnalogSpec:
    a = r.sub("analog")
    spec = AnalogSpec()
    if a is not None:
        a.check_keys({"man_codes", "king_ratio", "votes", "window"})
        window = a.integer("window", 1, 32, spec.window)
        votes = a.integer("votes", 1, window, min(spec.votes, window))
        if votes * 2 <= window:
            raise a.error("votes", f"{votes} of {window} is not a majority")
        spec = AnalogSpec(man_codes=a.number("man_codes", spec.man_codes, 8, FULL_SCALE / 2),
                          king_ratio=a.number("king_ratio", spec.king_ratio, 1.05, 4.0),
                          votes=votes, window=window)
    c = r.sub("calibration")
    if c is None:
        return spec
    wired = {s for chip in chips for s in chip.squares if s}
    table: dict[str, SquareCalibration] = {}
    for square in c.table:
        entry = c.sub(square)
        assert entry is not None
        if square not in wired:
            raise c.error(square, "no sensor is wired to this square")
        entry.check_keys({*LEVELS, "noise", "gain", "king_ratio"})
        for level in LEVELS:
            entry.get(level, (int, float))  # required
        values = [entry.number(level, 0.0, 0, FULL_SCALE - 1) for level in LEVELS]
        if any(lo >= hi for lo, hi in zip(values, values[1:], strict=False)):
            raise c.error(square, "levels must rise: " + " < ".join(LEVELS))
        b_king, black, empty, white, w_king = values
        table[square] = SquareCalibration(b_king, black, empty, white, w_king,
                                          entry.number("noise", 1.0, 0, 4096),
                                          entry.number("gain", 1.0, 0, 100),
                                          entry.number("king_ratio", 0.0, 0, 100))
    return AnalogSpec(spec.man_codes, spec.king_ratio, spec.votes, spec.window, table)


def _orientation(r: _Reader) -> int | None:
    value = r.get("orientation", (int, str), 0)
    if value == "auto":
        return None
    if isinstance(value, str) or value not in (0, 90, 180, 270):
        raise r.error("orientation", f"{excerpt(value)} is not \"auto\" or 0, 90, 180, 270")
    return rotation_from_degrees(value)


def _chips(r: _Reader, size: int, mode: str, kind: str = "occupancy") -> tuple[ChipSpec, ...]:
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
        if not name or len(name) > 32 or not name.isprintable() or ":" in name:
            raise c.error("name", f"{excerpt(name)} is not a chip name (1-32 printable "
                                  "characters, no ':')")
        if any(ch.name == name for ch in chips):
            raise c.error("name", f"{name!r} is used by two chips")
        types: Mapping[str, Any] = ADC_TYPES if kind == ANALOG else EXPANDER_TYPES
        pins = 8 if kind == ANALOG else 16
        chip_type = c.get("type", str).lower()
        if chip_type not in types:
            raise c.error("type", f"{excerpt(chip_type)} is not one of {', '.join(types)}")
        cls = types[chip_type]
        address = c.get("address", int)
        if not 0 <= address <= 0x7F or address not in cls.addresses:
            if not 0 <= address <= 0x7F:
                raise c.error("address", f"{excerpt(address)} is not a 7-bit I²C address")
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
            if len(lst) > pins:
                raise c.error("squares", f"{len(lst)} entries for {pins} "
                                         f"{'inputs' if kind == ANALOG else 'pins'}")
            out = []
            for pin, s in enumerate(lst):
                skey = f"squares[{pin}]"
                if not isinstance(s, str):
                    raise c.error(skey, f"expected a square name or \"\", got {excerpt(s)}")
                if s:
                    _check_square(c, skey, s, size)
                    if s in seen_squares:
                        raise c.error(skey, f"{s} is already wired on {seen_squares[s]}")
                    seen_squares[s] = f"{name} pin {pin}"
                    if cls is MCP23017 and pin in (7, 15) and not allow7:
                        raise c.error(skey, f"pin {pin} (GP{'AB'[pin // 8]}7) cannot be an input "
                                            "on the MCP23017 (datasheet erratum); use another pin "
                                            "or set allow_gp7_inputs = true")
                out.append(s)
            squares = tuple(out)
        chips.append(ChipSpec(name, chip_type, address, squares, allow7,
                              c.get("pull_ups", bool, True)))
    return tuple(chips)


def _pin_ref(r: _Reader, key: str, value: Any, chips: tuple[ChipSpec, ...]) -> PinRef:
    if not isinstance(value, str) or value.count(":") != 1:
        raise r.error(key, f"expected \"chip:pin\", got {excerpt(value)}")
    name, pin_text = value.split(":")
    if not any(c.name == name for c in chips):
        raise r.error(key, f"no chip named {excerpt(name)}")
    # ASCII digits only: str.isdigit() accepts "²", which int() then refuses.
    if not (pin_text.isascii() and pin_text.isdecimal() and len(pin_text) <= 2
            and 0 <= int(pin_text) <= 15):
        raise r.error(key, f"pin {excerpt(pin_text)} is not 0..15")
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
                    raise m.error(f"squares[{i}][{j}]",
                                  f"expected a square name, got {excerpt(s)}")
                if s:
                    _check_square(m, f"squares[{i}][{j}]", s, size)
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


def _check_square(r: _Reader, key: str, s: str, size: int) -> None:
    if len(s) > 4 or not s.isascii():
        raise r.error(key, f"{excerpt(s)} is not a square name")
    try:
        parse_square(s, size)
    except InvalidSquareError as e:
        raise r.error(key, str(e)) from None


def _gpio(r: _Reader, name: str, used: dict[int, str]) -> int:
    gpio: int = r.get(name, int)
    if gpio not in GPIO_RANGE:
        raise r.error(name, f"GPIO {excerpt(gpio)} does not exist (BCM 0..27)")
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
                  "chatter_window_ms", "chatter_recover_ms", "stuck_after_s", "config_check_ms"})
    changes = s.integer("chatter_changes", 2, 10_000, 20)
    return ScanSpec(debounce=s.number("debounce_ms", 30, 0, 1000) / 1000,
                    poll_interval=s.number("poll_ms", 500, 1, 60000) / 1000,
                    retry_initial=s.number("retry_ms", 50, 1, 60000) / 1000,
                    retry_max=s.number("retry_max_ms", 5000, 1, 600000) / 1000,
                    chatter_changes=changes,
                    chatter_window=s.number("chatter_window_ms", 1000, 1, 60000) / 1000,
                    chatter_recover=s.number("chatter_recover_ms", 2000, 1, 600000) / 1000,
                    stuck_after=s.number("stuck_after_s", 30, 1, 86400),
                    config_check=s.number("config_check_ms", 1000, 0, 3_600_000) / 1000)


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

