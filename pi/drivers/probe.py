"""What answers on the I²C bus, which chip each is, and how that sets against the wiring file.

Used by ``damiera hardware probe`` and by the daemon at start (:func:`startup_probe`). Every
finding is a :class:`Finding`: ``OK``, ``WARN`` or ``FAIL``, what it is about, what was seen and
what to do, one line each.

Chips are identified by their registers where the chip allows it, without changing any setting:

* **MCP23017**: a plain read (no register byte) walks its 22 registers with auto-increment, so
  a 24-byte read is not two bytes repeated (IODIR and IPOL differ); then IOCON, read at 0x0A
  and 0x0B, is the same register twice with bit 0 reading 0. Its power-on values (IODIR 0xffff,
  IOCON 0) or damiera's configuration (IOCON 0x44) are named.
* **TCA9555 / PCA9555**: a plain read repeats one register pair; a combined transaction (write
  the command byte 0x04, repeated start, read two bytes) gives the polarity registers, 0x0000 at
  power-on and as damiera sets them, and the configuration pair (0x06).
* **PCF8575** has no registers: a chip that repeats two bytes and has no TCA9555 polarity
  registers is "PCF8575-like, unverifiable". The TCA9555 check wrote one command byte to it,
  which on a PCF8575 sets port 0 for a moment; the probe writes 0xffff (every pin an input) back.
  A chip the wiring file calls a PCF8575 gets no command byte at all (the daemon's start-up
  probe runs while a game may be on the board).

Reads of inputs and interrupt registers clear the chips' interrupts; nothing else is changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from engine.i18n import N_, localize
from pi.drivers.expanders import (ALL_PINS, MCP_IOCON, MCP_IOCON_VALUE, TCA_CONFIG0,
                                  TCA_POLARITY0, SMBusLike)
from pi.drivers.wiring import Wiring

__all__ = ["OK", "WARN", "FAIL", "Finding", "ChipIdentity", "EXPANDER_ADDRESSES",
           "OLED_ADDRESSES", "answering", "identify", "probe_chips", "propose_wiring",
           "check_lines", "worst"]

OK, WARN, FAIL = "OK", "WARN", "FAIL"
#: The addresses the three expander families take (A2..A0 strapped).
EXPANDER_ADDRESSES = range(0x20, 0x28)
OLED_ADDRESSES = (0x3C, 0x3D)
#: Addresses an address scan tries (i2cdetect's default range: no reserved addresses).
SCAN_ADDRESSES = range(0x08, 0x78)
_NAMES = {"mcp23017": "MCP23017", "tca9555": "TCA9555", "pca9555": "TCA9555",
          "pcf8575": "PCF8575"}
_DESCRIPTIONS = {"mcp23017": N_("MCP23017 ({evidence})"), "tca9555": N_("TCA9555 ({evidence})"),
                 "pca9555": N_("TCA9555 ({evidence})")}
_NAMED = {"mcp23017": N_("{name}: MCP23017 ({evidence})"),
          "tca9555": N_("{name}: TCA9555 ({evidence})"),
          "pca9555": N_("{name}: TCA9555 ({evidence})")}


@dataclass(frozen=True)
class Finding:
    """One line of a check: ``level`` (OK, WARN, FAIL), ``subject`` (an address, a square, a
    GPIO), what was seen, and what to do (empty when nothing)."""

    level: str
    subject: str
    text: str
    advice: str = ""

    def line(self) -> str:
        """The line as written in English (the logs, the report's files)."""
        tail = f" — {self.advice}" if self.advice else ""
        return f"{self.level:<4} {self.subject}: {self.text}{tail}"

    def shown(self, language: str) -> str:
        """The line for a person reading ``language``: the subject, the text and the advice
        localized (:func:`engine.i18n.localize`, from the templates they were made of); the
        level (OK, WARN, FAIL) is a code and stays."""
        tail = f" — {localize(self.advice, language)}" if self.advice else ""
        return (f"{self.level:<4} {localize(self.subject, language)}: "
                f"{localize(self.text, language)}{tail}")

    def to_json(self) -> dict[str, str]:
        return {"level": self.level, "subject": self.subject, "text": self.text,
                "advice": self.advice}


def worst(findings: Iterable[Finding]) -> str:
    """FAIL if any finding fails, else WARN if any warns, else OK."""
    levels = {f.level for f in findings}
    return FAIL if FAIL in levels else WARN if WARN in levels else OK


@dataclass(frozen=True)
class ChipIdentity:
    """What answers at ``address``: ``kind`` is a wiring file's chip type (``mcp23017``,
    ``tca9555``, ``pcf8575``) or ``""`` when nothing can be said; ``verified``: the registers
    say so (a PCF8575 can never be verified); ``evidence``: what was read."""

    address: int
    kind: str
    verified: bool
    evidence: str

    @property
    def description(self) -> str:
        if self.kind == "pcf8575":
            return N_("PCF8575-like, unverifiable ({evidence})").format(evidence=self.evidence)
        if not self.kind:
            return N_("unknown chip ({evidence})").format(evidence=self.evidence)
        return _DESCRIPTIONS[self.kind].format(evidence=self.evidence)

    def named(self, name: str) -> str:
        """The description after the wiring file's ``name`` for the chip (``u1: MCP23017
        (…)``)."""
        if self.kind == "pcf8575":
            return N_("{name}: PCF8575-like, unverifiable ({evidence})").format(
                name=name, evidence=self.evidence)
        if not self.kind:
            return N_("{name}: unknown chip ({evidence})").format(name=name,
                                                                  evidence=self.evidence)
        return _NAMED[self.kind].format(name=name, evidence=self.evidence)


def _raw_read(bus: SMBusLike, address: int, length: int) -> bytes:
    from smbus2 import i2c_msg
    msg = i2c_msg.read(address, length)
    bus.i2c_rdwr(msg)
    return bytes(msg)


def _register_pair(bus: SMBusLike, address: int, command: int) -> bytes:
    """Writes ``command`` then reads two bytes, in one combined transaction."""
    from smbus2 import i2c_msg
    msg = i2c_msg.read(address, 2)
    bus.i2c_rdwr(i2c_msg.write(address, [command]), msg)
    return bytes(msg)


def answering(bus: SMBusLike, addresses: Iterable[int] = SCAN_ADDRESSES) -> list[int]:
    """The addresses that acknowledge a one-byte read (``i2cdetect -r``'s way: a read changes
    no chip's setting). Raises the bus's OSError only for a bus that is gone (ENODEV...)."""
    import errno
    found = []
    for address in addresses:
        try:
            _raw_read(bus, address, 1)
        except OSError as exc:
            if exc.errno in (errno.ENODEV, errno.ENXIO, errno.ENOENT, errno.EBADF):
                raise
            continue
        found.append(address)
    return found


def identify(bus: SMBusLike, address: int, expected: str = "") -> ChipIdentity:
    """Identifies the expander at ``address`` by its registers (module docstring). ``expected``:
    the wiring file's type there; a chip said to be a PCF8575 gets no command byte (it would
    set its port), only the plain read. Raises the bus's OSError when it stops answering."""
    raw = _raw_read(bus, address, 24)
    flips = max(bin(raw[i] ^ raw[i + 2]).count("1") for i in range(22))
    if flips >= 4:  # a register file walked with auto-increment: not one pair repeated
        regs = bus.read_i2c_block_data(address, 0x00, 22)
        iocon, iocon_b = regs[MCP_IOCON], regs[MCP_IOCON + 1]
        if iocon == iocon_b and not iocon & 1:
            iodir = regs[0] | regs[1] << 8
            if iocon == 0 and iodir == ALL_PINS:
                state = N_("power-on values: IOCON 0x00, IODIR 0xffff")
            elif iocon == MCP_IOCON_VALUE:
                state = N_("configured by damiera: IOCON {value}").format(value=f"0x{iocon:02x}")
            else:
                state = N_("IOCON {value}, set by another program").format(
                    value=f"0x{iocon:02x}")
            return ChipIdentity(address, "mcp23017", True, state)
        return ChipIdentity(address, "", False,
                            N_("registers that walk with auto-increment, but no MCP23017 "
                               "IOCON"))
    if expected == "pcf8575":
        return ChipIdentity(address, "pcf8575", False, N_("no registers walked by a plain read"))
    polarity = _register_pair(bus, address, TCA_POLARITY0)
    if polarity == b"\x00\x00":
        config = _register_pair(bus, address, TCA_CONFIG0)
        value = config[0] | config[1] << 8
        return ChipIdentity(address, "tca9555", True,
                            N_("polarity 0x0000, configuration {value}").format(
                                value=f"0x{value:04x}"))
    from smbus2 import i2c_msg
    bus.i2c_rdwr(i2c_msg.write(address, [0xFF, 0xFF]))  # every pin an input again
    return ChipIdentity(address, "pcf8575", False,
                        N_("no registers; a TCA9555 would show its polarity registers"))


def probe_chips(bus: SMBusLike, wiring: Wiring | None) -> tuple[list[Finding], list[ChipIdentity]]:
    """The expanders and the OLED on ``bus`` set against ``wiring`` (missing, unexpected, wrong
    type); without a wiring, what answers. Returns the findings and the chips identified.
    Raises the bus's OSError when the bus itself is gone."""
    found = answering(bus)
    findings: list[Finding] = []
    chips: list[ChipIdentity] = []
    oled = wiring.display.address if wiring is not None and wiring.display is not None else None
    expected = {c.address: c for c in wiring.chips} if wiring is not None else {}
    for address in found:
        if address in OLED_ADDRESSES and address not in expected:
            continue
        if address not in EXPANDER_ADDRESSES:
            findings.append(Finding(WARN, f"0x{address:02x}",
                                    N_("answers; not an expander address"),
                                    N_("another device on the bus: harmless unless unexpected")))
            continue
        spec = expected.get(address)
        try:
            chip = identify(bus, address, spec.kind if spec is not None else "")
        except OSError as exc:
            findings.append(Finding(FAIL, f"0x{address:02x}",
                                    N_("answered, then failed ({error})").format(error=exc),
                                    N_("check its supply and the SDA/SCL joints")))
            continue
        chips.append(chip)
        if spec is None:
            if wiring is None:
                findings.append(Finding(OK, f"0x{address:02x}", chip.description))
            else:
                findings.append(Finding(
                    FAIL, f"0x{address:02x}", N_("unexpected {chip}: not in {wiring}").format(
                        chip=chip.description, wiring=wiring.source),
                    N_("a chip strapped to the wrong address? check its A0-A2 pins against the "
                       "wiring file")))
            continue
        want = "tca9555" if spec.kind == "pca9555" else spec.kind
        name = f"{spec.name} {_NAMES[spec.kind]}"
        if chip.kind == want:
            findings.append(Finding(OK, f"0x{address:02x}", chip.named(spec.name)))
        else:
            findings.append(Finding(
                FAIL, f"0x{address:02x}", N_("wrong type: the wiring file has {name}, the bus "
                                             "answers as {chip}").format(
                    name=name, chip=chip.description),
                N_("fit the right chip or correct its type")))
    for address, spec in sorted(expected.items()):
        if address not in found:
            squares = " ".join(s for s in spec.squares if s)
            name = f"{spec.name} {_NAMES[spec.kind]}"
            findings.append(Finding(
                FAIL, f"0x{address:02x}",
                N_("missing: {chip} does not answer (squares {squares})").format(
                    chip=name, squares=squares) if squares else
                N_("missing: {chip} does not answer").format(chip=name),
                N_("check its supply, SDA/SCL and A0-A2 straps (i2cdetect -y 1)")))
    if wiring is None:
        oleds = [a for a in found if a in OLED_ADDRESSES]
        if oleds:
            findings.append(Finding(OK, f"0x{oleds[0]:02x}", N_("an OLED answers")))
    elif oled is not None:
        if oled in found:
            findings.append(Finding(OK, f"0x{oled:02x}", N_("the OLED answers")))
        else:
            findings.append(Finding(FAIL, f"0x{oled:02x}", N_("the OLED does not answer"),
                                    N_("check its supply, SDA/SCL, and its address jumper "
                                       "(0x3c or 0x3d)")))
    return findings, chips


def check_lines(wiring: Wiring, pin_factory: object) -> list[Finding]:
    """The INT line and the buttons' GPIOs at rest: the INT line must read high once the chips
    were read (open-drain, pulled up), each button released. ``pin_factory``: gpiozero's
    (None: its default backend)."""
    from gpiozero import DigitalInputDevice
    findings: list[Finding] = []
    lines: list[tuple[str, int, bool]] = []
    if wiring.interrupt_gpio is not None:
        lines.append(("INT", wiring.interrupt_gpio, True))
    for side, controls in sorted(wiring.buttons.items()):
        for name, gpio in sorted(controls.items()):
            lines.append((N_("{side} {button} button").format(side=side, button=name), gpio,
                          wiring.button_pull_up))
    for what, gpio, pull_up in lines:
        try:
            device = DigitalInputDevice(gpio, pull_up=pull_up, pin_factory=pin_factory)
        except Exception as exc:  # noqa: BLE001 - gpiozero's errors have no common base to name
            findings.append(Finding(FAIL, f"GPIO {gpio}", (
                N_("INT: cannot be opened ({error})") if what == "INT" else
                N_("{line}: cannot be opened ({error})")).format(line=what, error=exc),
                N_("another program holds it? (the daemon: stop it first)")))
            continue
        try:
            active = bool(device.is_active)
        finally:
            device.close()
        if not active:
            findings.append(Finding(OK, f"GPIO {gpio}", N_("INT at rest") if what == "INT" else
                                    N_("{line} at rest").format(line=what)))
        elif what == "INT":
            findings.append(Finding(FAIL, f"GPIO {gpio}", N_("INT held low after every chip "
                                                             "was read"),
                                    N_("an INT output not open-drain, or the line shorted to "
                                       "ground; check the pull-up")))
        else:
            findings.append(Finding(FAIL, f"GPIO {gpio}",
                                    N_("{line} reads pressed at rest").format(line=what),
                                    N_("a stuck button or a short to ground")))
    return findings


def propose_wiring(chips: Sequence[ChipIdentity], size: int = 8,
                   display: int | None = None) -> str:
    """A wiring file for the chips found, squares left for ``damiera hardware map`` to fill."""
    out = [f"# proposed by damiera hardware probe: {len(chips)} expander(s) found",
           "# run damiera hardware map to fill in the squares", f"board = {size}", "bus = 1",
           'mode = "direct"', "active_low = true", 'orientation = "auto"', ""]
    for i, chip in enumerate(chips, start=1):
        kind = chip.kind or "mcp23017"
        out += ["[[chips]]", f'name = "u{i}"', f'type = "{kind}"'
                + ("  # PCF8575-like, unverifiable: tca9555 if it is a TCA9555/PCA9555"
                   if kind == "pcf8575" else ""),
                f"address = 0x{chip.address:02X}", "squares = []", ""]
    if display is not None:
        out += ["[display]", f"address = 0x{display:02X}", ""]
    return "\n".join(out)


#: The checks at start-up take this many reads of every chip (a chattering switch changes in
#: most of them; a stuck one never).
STARTUP_READS = 8


def closed_squares(read: Callable[[], frozenset[str]], reads: int = STARTUP_READS
                   ) -> tuple[frozenset[str], frozenset[str]]:
    """(closed in every read, changed between reads) over ``reads`` reads of ``read``."""
    samples = [read() for _ in range(reads)]
    always = frozenset.intersection(*samples)
    changed = frozenset.union(*samples) - always
    return always, changed
