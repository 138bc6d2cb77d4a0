"""The OLED as the bus sees it: an SSD1306/SH1106 at 0x3c that takes any write and answers a
read with its status byte (display on). Only its presence on the bus matters to the fakes: the
pixels go to luma's ``dummy`` device (:mod:`hardware_mocks.display`)."""

from __future__ import annotations

from hardware_mocks.chips.base import FakeChip


class FakeOLED(FakeChip):
    """An OLED controller on the bus: writes are taken, a read gives the status byte."""

    kind = "ssd1306"
    STATUS = 0x43  # D6 = 0: display on; the low bits are the controller's ID

    def input_mask(self) -> int:
        return 0

    def driven_levels(self) -> int:
        return 0xFFFF

    def power_cycle(self) -> None:
        """Nothing to lose: it keeps no register the fakes model."""

    def raw_write(self, data: bytes) -> None:
        """Commands and pixels: taken and forgotten."""

    def raw_read(self, length: int) -> list[int]:
        return [self.STATUS] * length
