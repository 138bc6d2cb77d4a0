"""I²C port-expander drivers: MCP23017, TCA9555/PCA9555, PCF8575, over an smbus2-like bus.

Pins are numbered 0..15: port A / port 0 / P00-P07 are 0..7, port B / port 1 / P10-P17 are 8..15.
Levels are 16-bit ints, bit ``i`` = electrical level of pin ``i`` (1 = high). Every method does
exactly one I²C transaction (a combined read with a repeated start counts as one) except
``init``. :meth:`Expander.config_intact` reads back the configuration registers so that a chip
that lost power and came back with its power-on defaults (it answers, so no read fails) is
noticed. Bus errors are the bus's ``OSError`` (errno 121 NACK, 5 EIO, 19 ENODEV, ...), passed
through unchanged: the scanner decides what a fault means. Not thread-safe: call from the thread
that owns the bus.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol

# MCP23017 registers, IOCON.BANK = 0 addressing (datasheet DS20001952, table 3-5).
MCP_IODIRA, MCP_IODIRB = 0x00, 0x01
MCP_IPOLA = 0x02
MCP_GPINTENA = 0x04
MCP_DEFVALA = 0x06
MCP_INTCONA = 0x08
MCP_IOCON = 0x0A
MCP_GPPUA = 0x0C
MCP_INTFA = 0x0E
MCP_INTCAPA = 0x10
MCP_GPIOA = 0x12
MCP_GPIOB = 0x13
MCP_OLATA = 0x14
#: IOCON bits.
IOCON_BANK, IOCON_MIRROR, IOCON_SEQOP, IOCON_DISSLW = 0x80, 0x40, 0x20, 0x10
IOCON_HAEN, IOCON_ODR, IOCON_INTPOL = 0x08, 0x04, 0x02
#: Our IOCON: BANK=0, INTA/INTB mirrored, sequential addressing (SEQOP=0), open-drain INT so the
#: INT lines of every chip can be wired together to one Pi GPIO with one pull-up.
MCP_IOCON_VALUE = IOCON_MIRROR | IOCON_ODR
#: In BANK=1 addressing IOCON sits at 0x05 (GPINTENB in BANK=0): writing 0 there first brings a
#: chip left in BANK=1 by a previous program back to BANK=0, and is harmless otherwise.
MCP_IOCON_BANK1 = 0x05
#: Datasheet erratum (rev. D): GPA7 and GPB7 cannot be used as inputs.
MCP_OUTPUT_ONLY_PINS = frozenset({7, 15})

# TCA9555 / PCA9555 registers (command bytes); registers come in port 0 / port 1 pairs.
TCA_INPUT0, TCA_OUTPUT0, TCA_POLARITY0, TCA_CONFIG0 = 0x00, 0x02, 0x04, 0x06

ALL_PINS = 0xFFFF


class SMBusLike(Protocol):
    """The subset of ``smbus2.SMBus`` the drivers use."""

    def read_byte_data(self, i2c_addr: int, register: int) -> int: ...
    def write_byte_data(self, i2c_addr: int, register: int, value: int) -> None: ...
    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int) -> list[int]: ...
    def write_i2c_block_data(self, i2c_addr: int, register: int, data: list[int]) -> None: ...
    def i2c_rdwr(self, *i2c_msgs: Any) -> None: ...
    def close(self) -> None: ...


class Reading:
    """One read of an expander: pin ``levels`` and, where the chip latches it, ``changed``.

    ``changed`` has a bit set for every pin that changed since the previous read (MCP23017 INTF);
    chips that do not report it give 0.
    """

    __slots__ = ("levels", "changed")

    def __init__(self, levels: int, changed: int = 0) -> None:
        self.levels = levels
        self.changed = changed


class Expander:
    """Base class of the chip drivers. ``inputs`` and ``outputs`` are 16-bit pin masks."""

    kind: ClassVar[str] = ""
    addresses: ClassVar[range] = range(0x20, 0x28)

    def __init__(self, bus: SMBusLike, address: int, *, inputs: int = ALL_PINS, outputs: int = 0,
                 pull_ups: bool = True) -> None:
        if address not in self.addresses:
            raise ValueError(f"0x{address:02x} is not a {self.kind} address "
                             f"(0x{self.addresses[0]:02x}-0x{self.addresses[-1]:02x})")
        if inputs & outputs:
            raise ValueError("a pin cannot be both an input and an output")
        self.bus = bus
        self.address = address
        self.inputs = inputs & ALL_PINS
        self.outputs = outputs & ALL_PINS
        self.pull_ups = pull_ups
        self.output_levels = ALL_PINS  # outputs idle high (matrix rows inactive)
        #: Register bytes ``config_intact`` expects (set by ``init``; None before).
        self.expected_config: list[int] | None = None

    def init(self, output_levels: int = ALL_PINS) -> None:
        """Configures the chip (directions, pull-ups, interrupts) and clears pending interrupts."""
        raise NotImplementedError

    def read(self) -> Reading:
        """Reads every pin in one transaction; clears the chip's interrupt."""
        raise NotImplementedError

    def config_intact(self) -> bool:
        """Reads the configuration registers back (one transaction): False when they differ
        from what ``init`` wrote, i.e. the chip was reset (power cycle, brown-out) and must be
        configured again. True before ``init``. Raises the bus's OSError."""
        raise NotImplementedError

    def write_outputs(self, levels: int) -> None:
        """Sets the output pins to ``levels`` (input pins keep their configuration)."""
        raise NotImplementedError

    def write_then_read(self, levels: int) -> int:
        """Sets the outputs then reads the pin levels, in one combined transaction."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(0x{self.address:02x})"


class _RegisterPairs(Expander):
    """Expanders with 16-bit register pairs (MCP23017 in BANK=0, TCA9555): outputs are written to
    ``output_register`` and inputs read from ``input_register``, low port first."""

    output_register: int
    input_register: int

    def write_outputs(self, levels: int) -> None:
        self.output_levels = levels & ALL_PINS
        self.bus.write_i2c_block_data(self.address, self.output_register,
                                      [self.output_levels & 0xFF, self.output_levels >> 8])

    def write_then_read(self, levels: int) -> int:
        from smbus2 import i2c_msg
        self.output_levels = levels & ALL_PINS
        rd = i2c_msg.read(self.address, 2)
        self.bus.i2c_rdwr(
            i2c_msg.write(self.address, [self.output_register, self.output_levels & 0xFF,
                                         self.output_levels >> 8]),
            i2c_msg.write(self.address, [self.input_register]), rd)
        b = bytes(rd)
        return b[0] | b[1] << 8


class MCP23017(_RegisterPairs):
    """Microchip MCP23017. Uses BANK=0, sequential addressing, mirrored open-drain INT.

    Interrupt-on-change is enabled on every input pin (compare with the previous value). A read
    is one block read of INTFA..GPIOB (6 bytes: INTF, INTCAP, GPIO), which also clears the
    interrupt. Pins 7 and 15 (GPA7/GPB7) are refused as inputs (datasheet erratum) unless
    ``allow_gp7_inputs``.
    """

    kind = "MCP23017"
    output_register = MCP_OLATA
    input_register = MCP_GPIOA

    def __init__(self, bus: SMBusLike, address: int, *, inputs: int = ALL_PINS & ~0x8080,
                 outputs: int = 0, pull_ups: bool = True, allow_gp7_inputs: bool = False) -> None:
        if not allow_gp7_inputs and inputs & 0x8080:
            raise ValueError("GPA7/GPB7 (pins 7, 15) are output-only on the MCP23017 (datasheet "
                             "erratum); set allow_gp7_inputs to use them anyway")
        super().__init__(bus, address, inputs=inputs, outputs=outputs, pull_ups=pull_ups)

    def init(self, output_levels: int = ALL_PINS) -> None:
        a = self.address
        self.output_levels = output_levels & ALL_PINS
        self.bus.write_byte_data(a, MCP_IOCON_BANK1, 0x00)
        self.bus.write_byte_data(a, MCP_IOCON, MCP_IOCON_VALUE)
        olat = self.output_levels
        self.bus.write_i2c_block_data(a, MCP_OLATA, [olat & 0xFF, olat >> 8])
        # Unused pins stay inputs (safe), with pull-ups so they do not float.
        iodir = ~self.outputs & ALL_PINS
        ints = self.inputs
        gppu = (ALL_PINS if self.pull_ups else ~self.inputs) & ~self.outputs & ALL_PINS
        # IODIR, IPOL, GPINTEN, DEFVAL, INTCON (A, B each) in one sequential write.
        self.bus.write_i2c_block_data(a, MCP_IODIRA, [
            iodir & 0xFF, iodir >> 8, 0, 0, ints & 0xFF, ints >> 8, 0, 0, 0, 0])
        self.bus.write_i2c_block_data(a, MCP_GPPUA, [gppu & 0xFF, gppu >> 8])
        self.expected_config = [iodir & 0xFF, iodir >> 8, 0, 0, ints & 0xFF, ints >> 8, 0, 0, 0, 0,
                                MCP_IOCON_VALUE, MCP_IOCON_VALUE, gppu & 0xFF, gppu >> 8]
        self.read()

    def config_intact(self) -> bool:
        """One 14-byte read of IODIRA..GPPUB. At power-on IOCON is 0 (push-pull INT that would
        fight the wire-ORed line), GPINTEN 0 (no interrupts) and GPPU 0 (floating inputs), so a
        reset chip always differs from ours."""
        if self.expected_config is None:
            return True
        got = self.bus.read_i2c_block_data(self.address, MCP_IODIRA, 14)
        return list(got) == self.expected_config

    def read(self) -> Reading:
        b = self.bus.read_i2c_block_data(self.address, MCP_INTFA, 6)
        return Reading(b[4] | b[5] << 8, b[0] | b[1] << 8)


class TCA9555(_RegisterPairs):
    """TI TCA9555 / NXP PCA9555: 16 I/O, registers in port pairs; reading the input clears INT."""

    kind = "TCA9555"
    output_register = TCA_OUTPUT0
    input_register = TCA_INPUT0

    def init(self, output_levels: int = ALL_PINS) -> None:
        a = self.address
        self.output_levels = output_levels & ALL_PINS
        self.bus.write_i2c_block_data(a, TCA_OUTPUT0, [output_levels & 0xFF,
                                                       output_levels >> 8 & 0xFF])
        self.bus.write_i2c_block_data(a, TCA_POLARITY0, [0, 0])
        config = ~self.outputs & ALL_PINS  # 1 = input
        self.bus.write_i2c_block_data(a, TCA_CONFIG0, [config & 0xFF, config >> 8])
        self.expected_config = [config & 0xFF, config >> 8]
        self.read()

    def config_intact(self) -> bool:
        """One 2-byte read of the configuration registers. Their power-on value is all inputs,
        polarity not inverted, outputs high: with direct wiring (every pin an input) that *is*
        our configuration, so a reset is invisible there and harmless; with matrix rows
        (outputs) a reset is noticed."""
        if self.expected_config is None:
            return True
        return list(self.bus.read_i2c_block_data(self.address, TCA_CONFIG0, 2)) \
            == self.expected_config

    def read(self) -> Reading:
        b = self.bus.read_i2c_block_data(self.address, TCA_INPUT0, 2)
        return Reading(b[0] | b[1] << 8)


class PCF8575(Expander):
    """NXP/TI PCF8575: quasi-bidirectional, no registers; only raw 2-byte reads and writes.

    A pin written 1 is weakly pulled high and can be read as an input, so inputs are written 1.
    Never use the SMBus register calls on it: ``read_byte_data`` would first *write* the
    "register" byte to the port. Reading (or writing) clears its INT.
    """

    kind = "PCF8575"

    def __init__(self, bus: SMBusLike, address: int, *, inputs: int = ALL_PINS, outputs: int = 0,
                 pull_ups: bool = True) -> None:
        super().__init__(bus, address, inputs=inputs, outputs=outputs, pull_ups=pull_ups)
        from smbus2 import i2c_msg
        self._msg = i2c_msg
        self._rd = i2c_msg.read(address, 2)  # reused: one scan must stay cheap

    def _port_value(self, levels: int) -> int:
        # Inputs and unused pins must stay 1 (weak high) or they would be driven low.
        return (levels & self.outputs) | (~self.outputs & ALL_PINS)

    def init(self, output_levels: int = ALL_PINS) -> None:
        self.write_outputs(output_levels)
        self.read()

    def config_intact(self) -> bool:
        """Always True, without a transaction: the PCF8575 has no configuration registers. Its
        power-on state (every pin weakly high) is the state of an input, and matrix rows are
        written before every row read, so a reset chip needs nothing set up again."""
        return True

    def read(self) -> Reading:
        self.bus.i2c_rdwr(self._rd)
        b = bytes(self._rd)
        return Reading(b[0] | b[1] << 8)

    def write_outputs(self, levels: int) -> None:
        self.output_levels = self._port_value(levels)
        self.bus.i2c_rdwr(self._msg.write(self.address, [self.output_levels & 0xFF,
                                                         self.output_levels >> 8]))

    def write_then_read(self, levels: int) -> int:
        self.output_levels = self._port_value(levels)
        rd = self._msg.read(self.address, 2)
        self.bus.i2c_rdwr(self._msg.write(self.address, [self.output_levels & 0xFF,
                                                         self.output_levels >> 8]), rd)
        b = bytes(rd)
        return b[0] | b[1] << 8


#: Chip types by the name wiring files use.
EXPANDER_TYPES: dict[str, type[Expander]] = {
    "mcp23017": MCP23017, "tca9555": TCA9555, "pca9555": TCA9555, "pcf8575": PCF8575,
}
