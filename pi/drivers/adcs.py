"""I²C analog-to-digital converters for the analog Hall board: TI ADS7828, ADS7128, TLA2528.

Each reads its eight inputs as 12-bit codes (0..4095 of the reference). The sensors are
ratiometric (DRV5055: output VCC/2 + S·B, S proportional to VCC), so the ADCs take the
sensors' supply as their reference and a code does not move with the supply.

- **ADS7828** (SBAS181): no registers. A conversion is one command byte
  ``SD C2 C1 C0 PD1 PD0 x x``: SD = 1 single-ended, C2..C0 the channel in the datasheet's
  odd/even order (channel n → ``(n & 1) << 2 | n >> 1``), PD = 01 (internal reference off, ADC
  on: the external reference is the sensors' supply). The command is written, the two result
  bytes (MSB first, 12 bits right-justified) read after a repeated start; the chip's channels
  follow one another with repeated starts in one combined transaction (one ``I2C_RDWR`` of 16
  messages: the kernel's limit is 42), so a scan costs one system call per chip. Addresses
  0x48..0x4B (A1, A0): four chips on one bus.
- **TLA2528** (SBAS981) and **ADS7128** (SBAS990): registers reached by opcodes (single read
  0x10, single write 0x08, set bits 0x18, clear bits 0x20, continuous read 0x30, continuous write
  0x28). The TLA2528 is read in manual mode with the auto-sequence (SEQUENCE_CFG SEQ_MODE = 1,
  SEQ_START): one read of 2 bytes per selected channel, each code 12 bits left-justified with the
  channel id appended in the low nibble (DATA_CFG APPEND_STATUS = 01), which the driver checks.
  The ADS7128 runs autonomously (OPMODE_CFG CONV_MODE = 01, statistics on) and compares every
  conversion with a window per channel (HYSTERESIS/HIGH_TH/EVENT_COUNT/LOW_TH at 0x20 + 4·ch):
  a reading leaving its window sets EVENT_FLAG and pulls the open-drain ALERT pin low, so an idle
  board is never polled. A read is one combined transaction: SYSTEM_STATUS (a reset chip's
  RECENT registers read 0, which must not pass for readings), EVENT_FLAG (0x18), then the
  RECENT registers (0xA0..0xAF); the caller moves the windows of the channels that changed, then
  :meth:`~AnalogADC.acknowledge` clears the flags with one write (EVENT_HIGH_FLAG,
  EVENT_LOW_FLAG are write-1-to-clear). Addresses 0x10..0x17 (ADDR resistor): eight chips.
- :meth:`AnalogADC.config_intact` (the scanner's reset check): the ADS7828 has nothing to lose;
  the ADS7128/TLA2528 set SYSTEM_STATUS.BOR at power-on, which ``init`` clears, so a chip that
  lost power reads BOR = 1 again.

Bus errors are the bus's OSError, passed through (the scanner decides what a fault is). Not
thread-safe: the scan loop's thread, under the bus lock.
"""

from __future__ import annotations

import errno
from collections.abc import Sequence
from typing import ClassVar

from pi.drivers.expanders import SMBusLike

#: Full scale of every ADC here (12 bits).
FULL_SCALE = 4096

# ADS7828 command byte.
ADS7828_SD = 0x80
ADS7828_PD_REF_OFF_ADC_ON = 0x04

# TLA2528 / ADS7128 opcodes.
OP_READ, OP_WRITE, OP_SET, OP_CLEAR = 0x10, 0x08, 0x18, 0x20
OP_READ_CONT, OP_WRITE_CONT = 0x30, 0x28
# Registers.
SYSTEM_STATUS, GENERAL_CFG, DATA_CFG, OSR_CFG, OPMODE_CFG, PIN_CFG = 0x00, 0x01, 0x02, 0x03, \
    0x04, 0x05
SEQUENCE_CFG, CHANNEL_SEL, AUTO_SEQ_CH_SEL = 0x10, 0x11, 0x12
ALERT_CH_SEL, ALERT_PIN_CFG = 0x14, 0x17
EVENT_FLAG, EVENT_HIGH_FLAG, EVENT_LOW_FLAG, EVENT_RGN = 0x18, 0x1A, 0x1C, 0x1E
THRESHOLDS_CH0 = 0x20  # HYSTERESIS, HIGH_TH, EVENT_COUNT, LOW_TH; +4 per channel
RECENT_CH0_LSB = 0xA0  # LSB (D3..D0 in bits 7..4), MSB (D11..D4); +2 per channel
#: SYSTEM_STATUS.BOR: set at power-on (brown-out), cleared by writing 1.
STATUS_BOR = 0x01
GENERAL_CFG_STATS_EN = 0x20
GENERAL_CFG_CAL = 0x02
DATA_CFG_APPEND_ID = 0x10
OPMODE_AUTONOMOUS = 0x20
SEQ_MODE_AUTO = 0x01
SEQ_START = 0x10
#: ALERT pin: open-drain, active low (every chip's ALERT wire-ORed on one Pi GPIO).
ALERT_OPEN_DRAIN_ACTIVE_LOW = 0x00


def _unlike(address: int, detail: str) -> OSError:
    """The error of a chip that answered with data that cannot be its own (a channel id out of
    sequence, a chip reset since its configuration): EIO, as a failed transaction, so the
    scanner reports and retries it as it does a NACK."""
    return OSError(errno.EIO, f"0x{address:02x}: {detail}")


class AnalogADC:
    """Base of the ADC drivers: ``channels`` is the mask of inputs read (bit n = AINn)."""

    kind: ClassVar[str] = ""
    addresses: ClassVar[range] = range(0)
    #: Whether the chip raises an alert on its own (a window per channel).
    alerts: ClassVar[bool] = False

    def __init__(self, bus: SMBusLike, address: int, channels: int = 0xFF) -> None:
        if address not in self.addresses:
            raise ValueError(f"0x{address:02x} is not a {self.kind} address "
                             f"(0x{self.addresses[0]:02x}-0x{self.addresses[-1]:02x})")
        self.bus = bus
        self.address = address
        self.channels = channels & 0xFF
        self._order = [n for n in range(8) if self.channels >> n & 1]

    def init(self) -> None:
        """Configures the chip; raises the bus's OSError."""

    def read(self) -> tuple[list[int], int]:
        """(the 8 codes, 0 for channels not read; a mask of channels whose alert fired since
        the last read, 0 where the chip has none). Raises the bus's OSError."""
        raise NotImplementedError

    def config_intact(self) -> bool:
        """False when the chip was reset since ``init`` (see module doc)."""
        return True

    def set_windows(self, windows: dict[int, tuple[int, int]]) -> None:
        """Alert windows ``channel → (low, high)`` codes (only on chips that alert)."""

    def acknowledge(self, fired: int) -> None:
        """Clears the alerts ``read`` reported (after ``set_windows``: a flag cleared while its
        channel is still outside the old window would be set again by the next conversion)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(0x{self.address:02x})"


class ADS7828(AnalogADC):
    """TI ADS7828: one combined write-then-read per channel (see module doc)."""

    kind = "ADS7828"
    addresses = range(0x48, 0x4C)

    def __init__(self, bus: SMBusLike, address: int, channels: int = 0xFF) -> None:
        super().__init__(bus, address, channels)
        from smbus2 import i2c_msg
        self._msg = i2c_msg
        self._commands = [(n, self.command(n)) for n in self._order]
        self._reads = {n: i2c_msg.read(address, 2) for n in self._order}

    @staticmethod
    def command(channel: int) -> int:
        """The command byte converting single-ended ``channel`` (0..7)."""
        select = (channel & 1) << 2 | channel >> 1
        return ADS7828_SD | select << 4 | ADS7828_PD_REF_OFF_ADC_ON

    def read(self) -> tuple[list[int], int]:
        codes = [0] * 8
        write = self._msg.write
        messages = []
        for n, command in self._commands:
            messages += [write(self.address, [command]), self._reads[n]]
        self.bus.i2c_rdwr(*messages)
        for n, _command in self._commands:
            b = bytes(self._reads[n])
            codes[n] = (b[0] << 8 | b[1]) & 0x0FFF
        return codes, 0


class TLA2528(AnalogADC):
    """TI TLA2528: manual mode, auto-sequence over the selected channels (see module doc)."""

    kind = "TLA2528"
    addresses = range(0x10, 0x18)

    def __init__(self, bus: SMBusLike, address: int, channels: int = 0xFF) -> None:
        super().__init__(bus, address, channels)
        from smbus2 import i2c_msg
        self._msg = i2c_msg
        self._rd = i2c_msg.read(address, 2 * len(self._order))

    def _write(self, register: int, value: int) -> None:
        self.bus.i2c_rdwr(self._msg.write(self.address, [OP_WRITE, register, value]))

    def _read_register(self, register: int) -> int:
        rd = self._msg.read(self.address, 1)
        self.bus.i2c_rdwr(self._msg.write(self.address, [OP_READ, register]), rd)
        return bytes(rd)[0]

    def _common_init(self) -> None:
        self._write(SYSTEM_STATUS, STATUS_BOR)  # clear the power-on flag (write 1)
        self._write(PIN_CFG, 0x00)  # every pin an analog input
        self._write(DATA_CFG, DATA_CFG_APPEND_ID)

    def init(self) -> None:
        self._common_init()
        self._write(SEQUENCE_CFG, 0x00)  # stop a sequence left running
        self._write(AUTO_SEQ_CH_SEL, self.channels)
        self._write(SEQUENCE_CFG, SEQ_MODE_AUTO | SEQ_START)

    def config_intact(self) -> bool:
        return not self._read_register(SYSTEM_STATUS) & STATUS_BOR

    def read(self) -> tuple[list[int], int]:
        self.bus.i2c_rdwr(self._rd)
        b = bytes(self._rd)
        codes = [0] * 8
        for i, n in enumerate(self._order):
            hi, lo = b[2 * i], b[2 * i + 1]
            if lo & 0x0F != n:
                raise _unlike(self.address, f"channel {lo & 0x0F} where {n} was due")
            codes[n] = hi << 4 | lo >> 4
        return codes, 0


class ADS7128(TLA2528):
    """TI ADS7128: autonomous conversions, a window comparator per channel on the ALERT pin
    (see module doc)."""

    kind = "ADS7128"
    alerts = True

    def __init__(self, bus: SMBusLike, address: int, channels: int = 0xFF) -> None:
        super().__init__(bus, address, channels)
        self._status = self._msg.read(address, 1)
        self._flag = self._msg.read(address, 1)
        self._recent = self._msg.read(address, 16)
        self.windows: dict[int, tuple[int, int]] = {}

    def init(self) -> None:
        self._common_init()
        self._write(SEQUENCE_CFG, 0x00)
        self._write(GENERAL_CFG, GENERAL_CFG_STATS_EN)
        self._write(AUTO_SEQ_CH_SEL, self.channels)
        self._write(ALERT_PIN_CFG, ALERT_OPEN_DRAIN_ACTIVE_LOW)
        self._write(EVENT_RGN, 0x00)  # an event when a reading leaves its window
        self._write(ALERT_CH_SEL, self.channels)
        if self.windows:
            self.set_windows(dict(self.windows))
        self._write(OPMODE_CFG, OPMODE_AUTONOMOUS)
        self._write(SEQUENCE_CFG, SEQ_MODE_AUTO | SEQ_START)
        self._clear_flags(0xFF)

    def set_windows(self, windows: dict[int, tuple[int, int]]) -> None:
        for n, (low, high) in windows.items():
            low, high = max(0, min(4095, low)), max(0, min(4095, high))
            # HYSTERESIS (high LSBs | hysteresis 0), HIGH_TH (MSB), EVENT_COUNT (low LSBs |
            # count 0: one conversion out of the window is an event), LOW_TH (MSB).
            data = [(high & 0x0F) << 4, high >> 4, (low & 0x0F) << 4, low >> 4]
            self.bus.i2c_rdwr(self._msg.write(self.address,
                                              [OP_WRITE_CONT, THRESHOLDS_CH0 + 4 * n, *data]))
            self.windows[n] = (low, high)

    def _clear_flags(self, mask: int) -> None:
        self.bus.i2c_rdwr(self._msg.write(self.address,
                                          [OP_WRITE_CONT, EVENT_HIGH_FLAG, mask, 0x00, mask]))

    def read(self) -> tuple[list[int], int]:
        write = self._msg.write
        self.bus.i2c_rdwr(write(self.address, [OP_READ, SYSTEM_STATUS]), self._status,
                          write(self.address, [OP_READ_CONT, EVENT_FLAG]), self._flag,
                          write(self.address, [OP_READ_CONT, RECENT_CH0_LSB]), self._recent)
        if bytes(self._status)[0] & STATUS_BOR:
            # reset since init: manual mode, RECENT all zero — not readings of any field
            raise _unlike(self.address, "power-on state (BOR set): the chip was reset")
        flags = bytes(self._flag)[0] & self.channels
        b = bytes(self._recent)
        codes = [0] * 8
        for n in self._order:
            codes[n] = b[2 * n + 1] << 4 | b[2 * n] >> 4
        return codes, flags

    def acknowledge(self, fired: int) -> None:
        if fired:
            self._clear_flags(fired)


#: ADC types by the name wiring files use.
ADC_TYPES: dict[str, type[AnalogADC]] = {"ads7828": ADS7828, "ads7128": ADS7128,
                                         "tla2528": TLA2528}


def channel_mask(squares: Sequence[str]) -> int:
    """The channels with a square wired (``squares[n]`` non-empty)."""
    return sum(1 << n for n, s in enumerate(squares) if s)
