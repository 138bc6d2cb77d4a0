"""Register-level model of the TI TCA9555 / NXP PCA9555."""

from __future__ import annotations

from hardware_mocks.chips.base import FakeChip


class FakeTCA9555(FakeChip):
    """TCA9555/PCA9555: input, output, polarity, configuration registers in port pairs."""

    kind = "tca9555"

    def __init__(self, address: int) -> None:
        super().__init__(address)
        self.regs = [0, 0, 0xFF, 0xFF, 0, 0, 0xFF, 0xFF]
        self.pointer = 0
        self._last_read = self.pin_levels()

    def power_cycle(self) -> None:
        """Power-on values: outputs high, polarity not inverted, every pin an input."""
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
