"""Fake expander and ADC models, one module per chip family, by the type names wiring files
use."""

from __future__ import annotations

from hardware_mocks.chips.adcs import FakeADC, FakeADS7128, FakeADS7828, FakeTLA2528
from hardware_mocks.chips.base import FakeChip, ProtocolViolation
from hardware_mocks.chips.mcp23017 import FakeMCP23017
from hardware_mocks.chips.pcf8575 import FakePCF8575
from hardware_mocks.chips.tca9555 import FakeTCA9555

__all__ = ["CHIP_MODELS", "FakeADC", "FakeADS7128", "FakeADS7828", "FakeChip", "FakeMCP23017",
           "FakePCF8575", "FakeTCA9555", "FakeTLA2528", "ProtocolViolation"]

CHIP_MODELS: dict[str, type[FakeChip]] = {
    "mcp23017": FakeMCP23017, "tca9555": FakeTCA9555, "pca9555": FakeTCA9555,
    "pcf8575": FakePCF8575, "ads7828": FakeADS7828, "tla2528": FakeTLA2528,
    "ads7128": FakeADS7128,
}
