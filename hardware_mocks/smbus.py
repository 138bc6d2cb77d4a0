"""A fake I²C bus carrying the register-level chip models of :mod:`hardware_mocks.chips`.

:class:`FakeI2CBus` is the wires and the chips on them (with fault injection, power cycling
and a transaction log); :class:`FakeSMBus` is an open handle on it with the ``smbus2.SMBus``
methods the drivers use. Chip inputs are driven by an ``external_low`` callback (a mask of pins
pulled to ground from outside, e.g. by the :mod:`hardware_mocks.virtual_board`); call
``chip.refresh()`` after the outside changes so interrupts latch as on the real chip.
"""

from __future__ import annotations

import errno
import os
from collections import deque
from collections.abc import Callable
from typing import Any

from hardware_mocks.chips import (CHIP_MODELS, FakeChip, FakeMCP23017, FakePCF8575,
                                  FakeTCA9555, ProtocolViolation)

__all__ = ["CHIP_MODELS", "FakeChip", "FakeI2CBus", "FakeMCP23017", "FakePCF8575", "FakeSMBus",
           "FakeTCA9555", "I2C_M_RD", "ProtocolViolation", "wire_bits"]

I2C_M_RD = 0x0001

LogEntry = tuple[Any, ...]

#: Transactions :attr:`FakeI2CBus.log` keeps (the newest): a test reads the last few, and a
#: simulator playing game after game must not keep every scan of its life (about 200 KiB a game).
LOG_KEPT = 4096


class FakeI2CBus:
    """The bus: chips by address, a transaction log, fault injection, latency, removal.

    ``clock``: a FakeClock advanced by ``latency[address]`` seconds per transaction.
    ``listeners`` are called after every transaction (the virtual board follows the INT line).
    ``log``: the newest ``log_kept`` transactions, oldest first (``logging`` False: none).
    """

    def __init__(self, clock: Any = None, *, log_kept: int = LOG_KEPT) -> None:
        self.chips: dict[int, FakeChip] = {}
        self.log: deque[LogEntry] = deque(maxlen=log_kept)
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

    def power_cycle(self, address: int) -> None:
        """The chip at ``address`` loses power and comes back with its power-on registers; it
        answers at once (no failed transaction), as after a brown-out."""
        self.chips[address].power_cycle()
        for listener in self.listeners:
            listener()

    def remove(self) -> None:
        """The adapter vanishes: open handles get ENODEV, opening gets ENOENT."""
        self.removed = True

    def restore(self) -> None:
        self.removed = False

    # -- transactions ------------------------------------------------------------------------
    def begin(self, entry: LogEntry, address: int) -> FakeChip:
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

    def end(self) -> None:
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
        return self._bus.begin(entry, address)

    def read_byte_data(self, i2c_addr: int, register: int, force: Any = None) -> int:
        chip = self._chip(("read_byte_data", i2c_addr, register), i2c_addr)
        chip.register_access("read_byte_data")
        chip.raw_write(bytes([register]))
        value = chip.raw_read(1)[0]
        self._bus.end()
        return value

    def write_byte_data(self, i2c_addr: int, register: int, value: int, force: Any = None) -> None:
        chip = self._chip(("write_byte_data", i2c_addr, register, value), i2c_addr)
        chip.register_access("write_byte_data")
        chip.raw_write(bytes([register, value]))
        self._bus.end()

    def read_i2c_block_data(self, i2c_addr: int, register: int, length: int,
                            force: Any = None) -> list[int]:
        chip = self._chip(("read_i2c_block_data", i2c_addr, register, length), i2c_addr)
        chip.register_access("read_i2c_block_data")
        chip.raw_write(bytes([register]))
        values = chip.raw_read(length)
        self._bus.end()
        return values

    def write_i2c_block_data(self, i2c_addr: int, register: int, data: list[int],
                             force: Any = None) -> None:
        chip = self._chip(("write_i2c_block_data", i2c_addr, register, tuple(data)), i2c_addr)
        chip.register_access("write_i2c_block_data")
        chip.raw_write(bytes([register, *data]))
        self._bus.end()

    def read_byte(self, i2c_addr: int, force: Any = None) -> int:
        chip = self._chip(("read_byte", i2c_addr), i2c_addr)
        value = chip.raw_read(1)[0]
        self._bus.end()
        return value

    def write_byte(self, i2c_addr: int, value: int, force: Any = None) -> None:
        chip = self._chip(("write_byte", i2c_addr, value), i2c_addr)
        chip.raw_write(bytes([value]))
        self._bus.end()

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
        self._bus.end()


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
