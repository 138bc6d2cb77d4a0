"""Model of the NXP/TI PCF8575: a quasi-bidirectional port without registers."""

from __future__ import annotations

from hardware_mocks.chips.base import FakeChip, ProtocolViolation


class FakePCF8575(FakeChip):
    """PCF8575: quasi-bidirectional port, no registers. Register-style access is a violation."""

    kind = "pcf8575"

    def __init__(self, address: int) -> None:
        super().__init__(address)
        self.latch = 0xFFFF
        self._last_read = self.pin_levels()

    def power_cycle(self) -> None:
        """Power-on value: every pin weakly high (the same state as our inputs)."""
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
