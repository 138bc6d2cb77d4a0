"""Register-level models of the TI ADS7828 (SBAS181), TLA2528 (SBAS981) and ADS7128 (SBAS990).

Their inputs come from ``analog(channel)``: one conversion's 12-bit code, called at the moment
the real chip would sample (the :class:`~hardware_mocks.field.FieldModel` behind a
:class:`~hardware_mocks.virtual_board.VirtualBoard`, noise included). What a driver may not do to
the real chip raises :class:`~hardware_mocks.chips.base.ProtocolViolation`.
"""

from __future__ import annotations

from collections.abc import Callable

from hardware_mocks.chips.base import FakeChip, ProtocolViolation

MID_CODE = 2048


class FakeADC(FakeChip):
    """What the three models share: the analog inputs, no digital pins."""

    def __init__(self, address: int) -> None:
        super().__init__(address)
        self.analog: Callable[[int], int] = lambda channel: MID_CODE
        self.conversions = 0  # how many conversions were made (a benchmark counts them)

    def convert(self, channel: int) -> int:
        self.conversions += 1
        return max(0, min(4095, int(self.analog(channel))))

    def input_mask(self) -> int:
        return 0

    def driven_levels(self) -> int:
        return 0xFFFF


class FakeADS7828(FakeADC):
    """No registers: each byte written is a command byte that starts a conversion; a read
    returns its result, MSB first, 12 bits right-justified."""

    kind = "ads7828"

    def __init__(self, address: int) -> None:
        super().__init__(address)
        self.result = 0
        self.last_command: int | None = None

    def power_cycle(self) -> None:
        self.result = 0
        self.last_command = None

    def raw_write(self, data: bytes) -> None:
        for command in data:
            if not command & 0x80:
                raise ProtocolViolation(f"0x{self.address:02x}: differential conversion "
                                        f"(command 0x{command:02x}) on single-ended sensors")
            if command & 0x08:
                raise ProtocolViolation(f"0x{self.address:02x}: internal reference switched "
                                        "on: the sensors are ratiometric to VDD")
            select = command >> 4 & 0x07
            channel = (select & 0x03) << 1 | select >> 2
            self.last_command = command
            self.result = self.convert(channel)

    def raw_read(self, length: int) -> list[int]:
        # before any command the chip returns its power-on result (a probe's read: harmless)
        data = [self.result >> 8 & 0x0F, self.result & 0xFF]
        return [data[i % 2] for i in range(length)]


# Opcodes and registers (the driver's constants are not imported: the model is the datasheet's).
_READ, _WRITE, _SET, _CLEAR, _READ_CONT, _WRITE_CONT = 0x10, 0x08, 0x18, 0x20, 0x30, 0x28
_STATUS, _GENERAL, _DATA_CFG, _OPMODE, _PIN_CFG = 0x00, 0x01, 0x02, 0x04, 0x05
_SEQUENCE, _MANUAL_CH, _AUTO_SEQ = 0x10, 0x11, 0x12
_ALERT_CH, _ALERT_PIN, _EVENT_FLAG, _EVENT_HIGH, _EVENT_LOW, _EVENT_RGN = (0x14, 0x17, 0x18,
                                                                         0x1A, 0x1C, 0x1E)
_W1C = {_STATUS: 0x01, _EVENT_HIGH: 0xFF, _EVENT_LOW: 0xFF}


class FakeTLA2528(FakeADC):
    """Opcode-addressed registers; manual mode with or without the auto-sequence; the channel
    id appended to each result when DATA_CFG.APPEND_STATUS = 01. Power-on: BOR set."""

    kind = "tla2528"
    #: Registers the model knows (others read 0 and ignore writes, as reserved ones do).
    registers = frozenset({_STATUS, _GENERAL, _DATA_CFG, 0x03, _OPMODE, _PIN_CFG, 0x07, 0x09,
                           0x0B, 0x0D, _SEQUENCE, _MANUAL_CH, _AUTO_SEQ})

    def __init__(self, address: int) -> None:
        super().__init__(address)
        self.power_cycle()

    def power_cycle(self) -> None:
        self.regs = [0] * 256
        self.regs[_STATUS] = 0x81  # BOR: a power-on
        self._pointer: int | None = None
        self._sequence_index = 0

    # -- protocol ---------------------------------------------------------------------------
    def register_access(self, op: str) -> None:
        raise ProtocolViolation(f"0x{self.address:02x}: SMBus {op} has no opcode: this chip "
                                "takes an opcode byte before the register address")

    def raw_write(self, data: bytes) -> None:
        if not data:
            return
        op = data[0]
        if op in (_READ, _READ_CONT):
            if len(data) != 2:
                raise ProtocolViolation(f"0x{self.address:02x}: a register read takes one "
                                        "address byte")
            self._pointer = data[1]
            self._continuous = op == _READ_CONT
        elif op in (_WRITE, _SET, _CLEAR):
            if len(data) != 3:
                raise ProtocolViolation(f"0x{self.address:02x}: opcode 0x{op:02x} takes an "
                                        "address and one value")
            reg, value = data[1], data[2]
            old = self.regs[reg]
            self._write(reg, value if op == _WRITE else old | value if op == _SET
                        else old & ~value)
        elif op == _WRITE_CONT:
            for i, value in enumerate(data[2:]):
                self._write(data[1] + i, value)
        else:
            raise ProtocolViolation(f"0x{self.address:02x}: unknown opcode 0x{op:02x}")

    def _write(self, reg: int, value: int) -> None:
        reg &= 0xFF
        if reg in _W1C:
            self.regs[reg] &= ~(value & _W1C[reg])
            self.refresh()
            return
        if reg not in self.registers:
            return
        self.regs[reg] = value & 0xFF
        if reg == _SEQUENCE:
            self._sequence_index = 0
        self.refresh()

    def raw_read(self, length: int) -> list[int]:
        if self._pointer is not None:
            out = []
            for _ in range(length):
                out.append(self._read_register(self._pointer))
                if self._continuous:
                    self._pointer = (self._pointer + 1) & 0xFF
            self._pointer = None
            return out
        return self._read_data(length)

    def _read_register(self, reg: int) -> int:
        return self.regs[reg] if reg in self.registers or reg in _W1C else 0

    def _read_data(self, length: int) -> list[int]:
        if self.regs[_PIN_CFG]:
            raise ProtocolViolation(f"0x{self.address:02x}: a conversion of a digital pin")
        out: list[int] = []
        append = (self.regs[_DATA_CFG] >> 4 & 0x03) == 0x01
        while len(out) < length:
            channel = self._next_channel()
            code = self.convert(channel)
            out += [code >> 4, (code & 0x0F) << 4 | (channel if append else 0)]
        return out[:length]

    def _next_channel(self) -> int:
        seq = self.regs[_SEQUENCE]
        if seq & 0x03 == 0x01 and seq & 0x10:
            order = [n for n in range(8) if self.regs[_AUTO_SEQ] >> n & 1]
            if not order:
                raise ProtocolViolation(f"0x{self.address:02x}: auto-sequence with no channel")
            channel = order[self._sequence_index % len(order)]
            self._sequence_index += 1
            return channel
        return self.regs[_MANUAL_CH] & 0x07


class FakeADS7128(FakeTLA2528):
    """The TLA2528 plus autonomous conversions, statistics (RECENT registers 0xA0..0xAF), a
    window comparator per channel and the open-drain, active-low ALERT pin. Conversions happen
    continuously on the real chip; the model converts every sequenced channel whenever the
    outside changes (``refresh``) and before each read, which is when a driver can tell."""

    kind = "ads7128"
    registers = FakeTLA2528.registers | frozenset(
        {_ALERT_CH, 0x16, _ALERT_PIN, _EVENT_FLAG, _EVENT_RGN, *range(0x20, 0x40),
         *range(0xA0, 0xB0)})

    def power_cycle(self) -> None:
        super().power_cycle()
        for n in range(8):
            self.regs[0x20 + 4 * n] = 0xF0  # HYSTERESIS: high threshold LSBs 0xF
            self.regs[0x21 + 4 * n] = 0xFF  # HIGH_TH

    def _autonomous(self) -> bool:
        return (self.regs[_OPMODE] >> 5 & 0x03) == 0x01 and bool(self.regs[_SEQUENCE] & 0x10)

    def refresh(self) -> None:
        if not self._autonomous():
            return
        for n in range(8):
            if not self.regs[_AUTO_SEQ] >> n & 1:
                continue
            code = self.convert(n)
            if self.regs[_GENERAL] & 0x20:  # STATS_EN
                self.regs[0xA0 + 2 * n] = (code & 0x0F) << 4
                self.regs[0xA1 + 2 * n] = code >> 4
            high = self.regs[0x21 + 4 * n] << 4 | self.regs[0x20 + 4 * n] >> 4
            low = self.regs[0x23 + 4 * n] << 4 | self.regs[0x22 + 4 * n] >> 4
            if self.regs[_EVENT_RGN] >> n & 1:
                continue  # in-band events: not used by the driver, not modelled
            if code > high:
                self.regs[_EVENT_HIGH] |= 1 << n
            elif code < low:
                self.regs[_EVENT_LOW] |= 1 << n
        self.regs[_EVENT_FLAG] = self.regs[_EVENT_HIGH] | self.regs[_EVENT_LOW]

    def _read_register(self, reg: int) -> int:
        if reg == _EVENT_FLAG:
            self.regs[_EVENT_FLAG] = self.regs[_EVENT_HIGH] | self.regs[_EVENT_LOW]
        return super()._read_register(reg)

    def raw_write(self, data: bytes) -> None:
        if data and data[0] in (_READ, _READ_CONT) and len(data) == 2 and data[1] == _EVENT_FLAG:
            self.refresh()  # the autonomous conversions went on since the last look
        super().raw_write(data)

    @property
    def int_asserted(self) -> bool:
        """ALERT low: an event flag set on a channel of ALERT_CH_SEL."""
        return bool(self.regs[_EVENT_FLAG] & self.regs[_ALERT_CH])
