"""A fake I²C bus with register-level models of MCP23017, TCA9555/PCA9555 and PCF8575.

:class:`FakeI2CBus` is the wires and the chips on them (with fault injection and a transaction
log); :class:`FakeSMBus` is an open handle on it with the ``smbus2.SMBus`` methods the drivers use.
Chip inputs are driven by an ``external_low`` callback (a mask of pins pulled to ground from
outside, e.g. by the :mod:`hardware_mocks.virtual_board`); call ``chip.refresh()`` after the
outside changes so interrupts latch as on the real chip.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from typing import Any

I2C_M_RD = 0x0001

LogEntry = tuple[Any, ...]


class ProtocolViolation(Exception):
    """The driver used a chip in a way the real chip would misbehave on (e.g. a register read on
    a PCF8575). Deliberately not an OSError, so drivers cannot swallow it as a bus fault."""


class FakeChip:
    """Base of the chip models. Pins 0..15; levels are 16-bit masks (1 = high)."""

    kind = ""

    def __init__(self, address: int) -> None:
        self.address = address
        self.external_low: Callable[[], int] = lambda: 0
        self.stuck_low = 0
        self.stuck_high = 0
        self.chatter = 0  # pins whose level flips at every read
        self._chatter_phase = 0

    # -- electrical ------------------------------------------------------------------------
    def input_mask(self) -> int:
        raise NotImplementedError

    def driven_levels(self) -> int:
        """What the chip itself drives on its outputs (1 for inputs / weak high)."""
        raise NotImplementedError

    def pin_levels(self, sampling: bool = False) -> int:
        """Electrical levels of the 16 pins now. ``sampling``: a read is sampling them."""
        levels = self.driven_levels() & ~(self.external_low() & self.input_mask())
        levels = (levels | self.stuck_high) & ~self.stuck_low & 0xFFFF
        if self.chatter:
            if sampling:
                self._chatter_phase ^= 1
            if self._chatter_phase:
                levels ^= self.chatter
        return levels

    def set_chatter(self, mask: int) -> None:
        """Pins in ``mask`` flip level at every read (a broken or vibrating sensor); 0 stops."""
        self.chatter = mask
        if not mask:
            self._chatter_phase = 0

    def refresh(self) -> None:
        """The outside changed: latch interrupts as the chip would."""

    @property
    def int_asserted(self) -> bool:
        return False

    # -- protocol --------------------------------------------------------------------------
    def raw_write(self, data: bytes) -> None:
        raise NotImplementedError

    def raw_read(self, length: int) -> list[int]:
        raise NotImplementedError

    def register_access(self, op: str) -> None:
        """Called before an SMBus register-style operation (command byte then data)."""


class FakeMCP23017(FakeChip):
    """MCP23017 registers with BANK/SEQOP/MIRROR/ODR, interrupt latching and auto-increment."""

    kind = "mcp23017"
    # Register kinds in BANK=0 order (address = 2*kind + port).
    IODIR, IPOL, GPINTEN, DEFVAL, INTCON, IOCON, GPPU, INTF, INTCAP, GPIO, OLAT = range(11)

    def __init__(self, address: int) -> None:
        super().__init__(address)
        self.regs = [0] * 22
        self.regs[0] = self.regs[1] = 0xFF  # IODIR: all inputs at power-on
        self.pointer = 0
        self._previous = self.pin_levels()

    def power_cycle(self) -> None:
        """Back to power-on register values (a brown-out); the outside wiring stays."""
        self.regs = [0] * 22
        self.regs[0] = self.regs[1] = 0xFF
        self.pointer = 0
        self._previous = self.pin_levels()

    def reg(self, kind: int, port: int = 0) -> int:
        return self.regs[2 * kind + port]

    def reg16(self, kind: int) -> int:
        return self.regs[2 * kind] | self.regs[2 * kind + 1] << 8

    @property
    def iocon(self) -> int:
        return self.regs[10]

    def input_mask(self) -> int:
        return self.reg16(self.IODIR)

    def driven_levels(self) -> int:
        return (self.reg16(self.OLAT) & ~self.reg16(self.IODIR)) | self.reg16(self.IODIR)

    def _index(self, address: int) -> int | None:
        if self.iocon & 0x80:  # BANK=1: port A at 0x00-0x0A, port B at 0x10-0x1A
            port, kind = address >> 4, address & 0x0F
            return 2 * kind + port if port < 2 and kind <= 10 else None
        return address if address < 22 else None

    def _address(self, index: int) -> int:
        if self.iocon & 0x80:
            return (index & 1) << 4 | index >> 1
        return index

    def _advance(self) -> None:
        if self.iocon & 0x20:  # SEQOP=1: byte mode
            if not self.iocon & 0x80:
                self.pointer = self._address(self._index(self.pointer) ^ 1)  # type: ignore[operator]
            return
        idx = self._index(self.pointer)
        if idx is None:
            self.pointer = (self.pointer + 1) & 0xFF
        elif self.iocon & 0x80:
            kind, port = idx >> 1, idx & 1
            kind += 1
            if kind > 10:
                kind, port = 0, port ^ 1
            self.pointer = port << 4 | kind
        else:
            self.pointer = (idx + 1) % 22

    def raw_write(self, data: bytes) -> None:
        if not data:
            return
        self.pointer = data[0]
        for value in data[1:]:
            idx = self._index(self.pointer)
            if idx is not None:
                self._write_reg(idx, value)
            self._advance()

    def raw_read(self, length: int) -> list[int]:
        out = []
        for _ in range(length):
            idx = self._index(self.pointer)
            out.append(self._read_reg(idx) if idx is not None else 0)
            self._advance()
        return out

    def _write_reg(self, idx: int, value: int) -> None:
        kind = idx >> 1
        if kind == self.IOCON:
            self.regs[10] = self.regs[11] = value & 0xFE  # bit 0 unimplemented
        elif kind in (self.INTF, self.INTCAP):
            pass  # read-only
        elif kind == self.GPIO:
            self.regs[2 * self.OLAT + (idx & 1)] = value
        else:
            self.regs[idx] = value
        self.refresh()

    def _read_reg(self, idx: int) -> int:
        kind, port = idx >> 1, idx & 1
        if kind == self.GPIO:
            levels = self.pin_levels(sampling=True)
            value = (levels >> (8 * port) & 0xFF) ^ (self.regs[2 * self.IPOL + port]
                                                   & self.regs[2 * self.IODIR + port])
            self._clear_interrupt(port)
            return value
        if kind == self.INTCAP:
            value = self.regs[idx]
            self._clear_interrupt(port)
            return value
        return self.regs[idx]

    def _clear_interrupt(self, port: int) -> None:
        self.regs[2 * self.INTF + port] = 0
        self.refresh()  # INTCON=1 pins still differing from DEFVAL interrupt again

    def refresh(self) -> None:
        levels = self.pin_levels()
        enabled = self.reg16(self.GPINTEN) & self.reg16(self.IODIR)
        intcon = self.reg16(self.INTCON)
        reference = (self.reg16(self.DEFVAL) & intcon) | (self._previous & ~intcon)
        fired = (levels ^ reference) & enabled
        self._previous = levels
        for port in (0, 1):
            bits = fired >> (8 * port) & 0xFF
            if bits:
                if not self.regs[2 * self.INTF + port]:
                    ipol = self.regs[2 * self.IPOL + port]
                    self.regs[2 * self.INTCAP + port] = (levels >> (8 * port) & 0xFF) ^ ipol
                self.regs[2 * self.INTF + port] |= bits

    @property
    def int_asserted(self) -> bool:
        """INTA asserted (with MIRROR: INTA or INTB flags)."""
        if self.iocon & 0x40:
            return bool(self.regs[14] | self.regs[15])
        return bool(self.regs[14])


class FakeTCA9555(FakeChip):
    """TCA9555/PCA9555: input, output, polarity, configuration registers in port pairs."""

    kind = "tca9555"

    def __init__(self, address: int) -> None:
        super().__init__(address)
        self.regs = [0, 0, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF]
        self.pointer = 0
        self._last_read = self.pin_levels()

    def input_mask(self) -> int:
        return self.regs[6] | self.regs[7] << 8

    def driven_levels(self) -> int:
        out = self.regs[2] | self.regs[3] << 8
        return (out & ~self.input_mask()) | self.input_mask()

    def raw_write(self, data: bytes) -> None:
        if not data:
            return
        self.pointer = data[0] & 7
        for value in data[1:]:
            if self.pointer >= 2:  # input registers are read-only
                self.regs[self.pointer] = value
            self.pointer ^= 1  # stays within the register pair

    def raw_read(self, length: int) -> list[int]:
        out = []
        for _ in range(length):
            if self.pointer < 2:
                port = self.pointer
                levels = self.pin_levels(sampling=True)
                out.append((levels >> (8 * port) & 0xFF) ^ self.regs[4 + port])
                mask = 0xFF << (8 * port)
                self._last_read = (self._last_read & ~mask) | (levels & mask)
            else:
                out.append(self.regs[self.pointer])
            self.pointer ^= 1
        return out

    @property
    def int_asserted(self) -> bool:
        return bool((self.pin_levels() ^ self._last_read) & self.input_mask())


class FakePCF8575(FakeChip):
    """PCF8575: quasi-bidirectional port, no registers. Register-style access is a violation."""

    kind = "pcf8575"

    def __init__(self, address: int) -> None:
        super().__init__(address)
        self.latch = 0xFFFF
        self._last_read = self.pin_levels()

    def input_mask(self) -> int:
        return self.latch  # a pin written 1 is weakly high: anything may pull it low

    def driven_levels(self) -> int:
        return self.latch

    def raw_write(self, data: bytes) -> None:
        for i in range(0, len(data) - 1, 2):
            self.latch = data[i] | data[i + 1] << 8
        self._last_read = self.pin_levels()

    def raw_read(self, length: int) -> list[int]:
        levels = self.pin_levels(sampling=True)
        self._last_read = levels
        return [(levels >> (8 * (i & 1))) & 0xFF for i in range(length)]

    def register_access(self, op: str) -> None:
        raise ProtocolViolation(
            f"{op} on PCF8575 0x{self.address:02x}: it has no registers; the command byte would "
            "be written to the port")

    @property
    def int_asserted(self) -> bool:
        return bool((self.pin_levels() ^ self._last_read) & self.input_mask())


CHIP_MODELS: dict[str, type[FakeChip]] = {
    "mcp23017": FakeMCP23017, "tca9555": FakeTCA9555, "pca9555": FakeTCA9555,
    "pcf8575": FakePCF8575,
}


class FakeI2CBus:
    """The bus: chips by address, a transaction log, fault injection, latency, removal.

    ``clock``: a FakeClock advanced by ``latency[address]`` seconds per transaction.
    ``listeners`` are called after every transaction (the virtual board follows the INT line).
    """

    def __init__(self, clock: Any = None) -> None:
        self.chips: dict[int, FakeChip] = {}
        self.log: list[LogEntry] = []
        self.clock = clock
        self.latency: dict[int, float] = {}
        self.removed = False
        self.listeners: list[Callable[[], None]] = []
        self._faults: dict[int, list[Any]] = {}
        self.logging = True

    def attach(self, chip: FakeChip) -> FakeChip:
        self.chips[chip.address] = chip
        return chip

    def open(self, bus: Any = 1) -> FakeSMBus:
        """A new handle, like ``smbus2.SMBus(bus)``; FileNotFoundError while the bus is removed."""
        if self.removed:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), f"/dev/i2c-{bus}")
        return FakeSMBus(self)

    # -- faults ----------------------------------------------------------------------------
    def fail(self, address: int, err: int = errno.EREMOTEIO, times: int | None = None) -> None:
        """Transactions to ``address`` raise OSError(err), ``times`` times (None: until heal)."""
        self._faults[address] = [err, times]

    def heal(self, address: int) -> None:
        self._faults.pop(address, None)

    def remove(self) -> None:
        """The adapter vanishes: open handles get ENODEV, opening gets ENOENT."""
        self.removed = True

    def restore(self) -> None:
        self.removed = False

    # -- transactions ------------------------------------------------------------------------
    def _begin(self, entry: LogEntry, address: int) -> FakeChip:
        if self.logging:
            self.log.append(entry)
        if self.removed:
            raise OSError(errno.ENODEV, os.strerror(errno.ENODEV))
        if self.clock is not None and address in self.latency:
            self.clock.advance(self.latency[address])
        fault = self._faults.get(address)
        if fault is not None:
            err, times = fault
            if times is not None:
                fault[1] -= 1
                if fault[1] <= 0:
                    del self._faults[address]
            raise OSError(err, os.strerror(err))
        chip = self.chips.get(address)
        if chip is None:
            raise OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))
        return chip

    def _end(self) -> None:
        for listener in self.listeners:
            listener()


class FakeSMBus:
    """An open handle on a FakeI2CBus with the smbus2.SMBus methods."""

    def __init__(self, bus: FakeI2CBus) -> None:
        self._bus = bus
        self.closed = False

    def __enter__(self) -> FakeSMBus:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.closed = True

    def _chip(self, entry: LogEntry, address: int) -> FakeChip:
        if self.closed:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        return self._bus._begin(entry, address)

    def read_byte_data(self, i2c_addr: int, register: int, force: Any = None) -> int:
        chip = self._chip(("read_byte_data", i2c_addr, register), i2c_addr)
        chip.register_access("read_byte_data")
        chip.raw_write(bytes([register]))
        value = chip.raw_read(1)[0]
        self._bus._end()
        return value

    def write_byte_data(self, i2c_addr: int, register: int, value: int, force: Any = None) -> None:
        chip = self._chip(("write_byte_data", i2c_addr, register, value), i2c_addr)
        chip.register_access("write_byte_data")
        chip.raw_write(bytes([register, value]))
        self._bus._end()

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int,
                            force: Any = None) -> list[int]:
        chip = self._chip(("read_i2c_block_data", i2c_addr, register, length), i2c_addr)
        chip.register_access("read_i2c_block_data")
        chip.raw_write(bytes([register]))
        values = chip.raw_read(length)
        self._bus._end()
        return values

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: list[int],
                             force: Any = None) -> None:
        chip = self._chip(("write_i2c_block_data", i2c_addr, register, tuple(data)), i2c_addr)
        chip.register_access("write_i2c_block_data")
        chip.raw_write(bytes([register, *data]))
        self._bus._end()

    def read_byte(self, i2c_addr: int, force: Any = None) -> int:
        chip = self._chip(("read_byte", i2c_addr), i2c_addr)
        value = chip.raw_read(1)[0]
        self._bus._end()
        return value

    def write_byte(self, i2c_addr: int, value: int, force: Any = None) -> None:
        chip = self._chip(("write_byte", i2c_addr, value), i2c_addr)
        chip.raw_write(bytes([value]))
        self._bus._end()

    def i2c_rdwr(self, *i2c_msgs: Any) -> None:
        desc = tuple(("r", m.addr, m.len) if m.flags & I2C_M_RD else ("w", m.addr, tuple(m))
                     for m in i2c_msgs)
        self._chip(("i2c_rdwr", desc), i2c_msgs[0].addr)
        for m in i2c_msgs:
            target = self._bus.chips.get(m.addr)
            if target is None:
                raise OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))
            if m.flags & I2C_M_RD:
                for i, v in enumerate(target.raw_read(m.len)):
                    m.buf[i] = bytes([v])
            else:
                target.raw_write(bytes(m))
        self._bus._end()


def wire_bits(entry: LogEntry) -> int:
    """Bit times of a logged transaction on the wire: start, address+R/W and data bytes with
    their ACK bit (9 each), repeated starts, stop."""
    op = entry[0]
    byte = 9
    if op == "i2c_rdwr":
        bits = 1  # start
        for i, (kind, _addr, payload) in enumerate(entry[1]):
            if i:
                bits += 1  # repeated start
            n = payload if kind == "r" else len(payload)
            bits += byte * (1 + n)
        return bits + 1  # stop
    if op in ("read_byte_data", "read_i2c_block_data"):
        n = 1 if op == "read_byte_data" else entry[3]
        # S, addr+W, register, Sr, addr+R, n data bytes, P
        return 1 + byte * 2 + 1 + byte * (1 + n) + 1
    if op == "write_byte_data":
        return 1 + byte * 3 + 1
    if op == "write_i2c_block_data":
        return 1 + byte * (2 + len(entry[3])) + 1
    if op in ("read_byte", "write_byte"):
        return 1 + byte * 2 + 1
    raise ValueError(f"unknown transaction {op!r}")
