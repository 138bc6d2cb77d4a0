"""``damiera hardware map``: a direct-wired board's wiring learnt by asking for a piece on each
square in turn and seeing which expander input closes, then the players' clock buttons by a
press each; the wiring file written from what was learnt (:func:`wiring_text`). The command is
in ``pi/hardware_cli.py``; the bench, the sampler and the prompts it shares with ``hardware
test`` (``pi.drivers.board_tester``) are ``pi.drivers.bringup``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.i18n import DEFAULT_LANGUAGE, N_
from engine.squares import all_squares, numbered_squares
from engine.variants import Variant
from pi.drivers.bringup import SAMPLE, Bench, Request, Sampler, Say, ask, in_language, oled_prompt
from pi.drivers.expanders import ALL_PINS, EXPANDER_TYPES, MCP23017, Expander
from pi.drivers.probe import (EXPANDER_ADDRESSES, FAIL, OK, OLED_ADDRESSES, WARN, ChipIdentity,
                              Finding, answering, identify, worst)
from pi.drivers.wiring import DisplaySpec, Wiring

__all__ = ["MapResult", "map_wiring", "wiring_text", "map_order", "learn_clock_buttons",
           "BUTTON_GPIOS"]


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
            ask(bench, say, screen, Request("press", N_("press {side}'s clock button").format(
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
    say = in_language(say, language)
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
    ask(bench, say, screen, Request("clear", N_("take every piece off the board")))
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
        ask(bench, say, screen, Request("place", N_("put a piece on {square}").format(
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
        ask(bench, say, screen, Request("lift", N_("take the piece off {square}").format(
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
