"""What every fake expander model shares: pins, outside levels, stuck and chattering pins."""

from __future__ import annotations

from collections.abc import Callable

from engine.errors import HardwareError


class ProtocolViolation(HardwareError):
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

    def power_cycle(self) -> None:
        """Back to the power-on register values (a brown-out, a loose supply wire): the chip
        answers afterwards as if never configured; the outside wiring stays."""
        raise NotImplementedError

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
