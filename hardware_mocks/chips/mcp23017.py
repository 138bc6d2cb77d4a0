"""Register-level model of the Microchip MCP23017 (datasheet DS20001952)."""

from __future__ import annotations

from hardware_mocks.chips.base import FakeChip


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
            idx = self._index(self.pointer)
            if not self.iocon & 0x80 and idx is not None:
                self.pointer = self._address(idx ^ 1)
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
