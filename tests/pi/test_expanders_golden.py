"""Golden register sequences: initialisation and scans, transaction by transaction."""

import pytest

from hardware_mocks.smbus import FakeI2CBus, FakeMCP23017, FakePCF8575, FakeTCA9555
from pi.drivers.expanders import MCP23017, PCF8575, TCA9555
from pi.drivers.hardware import build_scanner
from pi.drivers.wiring import EXAMPLES_DIR, load_wiring
from hardware_mocks.clock import FakeClock
from hardware_mocks.virtual_board import VirtualBoard


def fake(chip_cls, address):
    bus = FakeI2CBus()
    chip = bus.attach(chip_cls(address))
    return bus, bus.open(), chip


def test_mcp23017_init_and_scan_golden():
    bus, smb, chip = fake(FakeMCP23017, 0x21)
    drv = MCP23017(smb, 0x21, inputs=0x7F7F)
    drv.init()
    assert list(bus.log) == [
        ("write_byte_data", 0x21, 0x05, 0x00),            # BANK=1 → IOCON at 0x05: back to BANK=0
        ("write_byte_data", 0x21, 0x0A, 0x44),            # IOCON: MIRROR | ODR, SEQOP on
        ("write_i2c_block_data", 0x21, 0x14, (0xFF, 0xFF)),  # OLAT
        ("write_i2c_block_data", 0x21, 0x00,               # IODIR, IPOL, GPINTEN, DEFVAL, INTCON
         (0xFF, 0xFF, 0, 0, 0x7F, 0x7F, 0, 0, 0, 0)),
        ("write_i2c_block_data", 0x21, 0x0C, (0xFF, 0xFF)),  # GPPU
        ("read_i2c_block_data", 0x21, 0x0E, 6),           # clear pending interrupts
    ]
    assert chip.iocon == 0x44
    bus.log.clear()
    r = drv.read()
    assert list(bus.log) == [("read_i2c_block_data", 0x21, 0x0E, 6)]  # INTF, INTCAP, GPIO at once
    assert (r.levels, r.changed) == (0xFFFF, 0)


def test_mcp23017_init_recovers_a_chip_left_in_bank1():
    bus, smb, chip = fake(FakeMCP23017, 0x20)
    smb.write_byte_data(0x20, 0x0A, 0xA0)  # another program left BANK=1, SEQOP=1
    MCP23017(smb, 0x20).init()
    assert chip.iocon == 0x44
    assert chip.reg16(chip.GPINTEN) == 0x7F7F


def test_mcp23017_refuses_gp7_inputs_unless_allowed():
    bus, smb, _ = fake(FakeMCP23017, 0x20)
    with pytest.raises(ValueError, match="erratum"):
        MCP23017(smb, 0x20, inputs=0x0080)
    MCP23017(smb, 0x20, inputs=0x8080, allow_gp7_inputs=True)


def test_tca9555_init_and_scan_golden():
    bus, smb, chip = fake(FakeTCA9555, 0x24)
    drv = TCA9555(smb, 0x24)
    drv.init()
    assert list(bus.log) == [
        ("write_i2c_block_data", 0x24, 0x02, (0xFF, 0xFF)),  # outputs (idle high)
        ("write_i2c_block_data", 0x24, 0x04, (0, 0)),        # no polarity inversion
        ("write_i2c_block_data", 0x24, 0x06, (0xFF, 0xFF)),  # all inputs
        ("read_i2c_block_data", 0x24, 0x00, 2),
    ]
    bus.log.clear()
    drv.read()
    assert list(bus.log) == [("read_i2c_block_data", 0x24, 0x00, 2)]


def test_pcf8575_init_and_scan_golden_never_register_access():
    bus, smb, chip = fake(FakePCF8575, 0x25)
    drv = PCF8575(smb, 0x25)
    drv.init()
    drv.read()
    assert list(bus.log) == [
        ("i2c_rdwr", (("w", 0x25, (0xFF, 0xFF)),)),  # 0xFFFF: every pin a (weak-high) input
        ("i2c_rdwr", (("r", 0x25, 2),)),
        ("i2c_rdwr", (("r", 0x25, 2),)),
    ]
    assert chip.latch == 0xFFFF


def test_pcf8575_outputs_keep_inputs_high():
    bus, smb, chip = fake(FakePCF8575, 0x25)
    drv = PCF8575(smb, 0x25, inputs=0xFF00, outputs=0x00FF)
    drv.write_outputs(0x0000)
    assert chip.latch == 0xFF00


@pytest.mark.parametrize("name,per_chip", [
    ("mcp23017_8x8", ("read_i2c_block_data", 0x0E, 6)),
    ("mcp23017_10x10", ("read_i2c_block_data", 0x0E, 6)),
    ("tca9555_10x10", ("read_i2c_block_data", 0x00, 2)),
    ("pcf8575_8x8", ("i2c_rdwr",)),
])
def test_a_scan_is_one_transaction_per_chip(name, per_chip):
    wiring = load_wiring(EXAMPLES_DIR / f"{name}.toml")
    bus = FakeI2CBus()
    VirtualBoard(wiring, bus)
    scanner = build_scanner(wiring, bus.open(), FakeClock())
    scanner.start()
    bus.log.clear()
    scanner.scan()
    assert len(bus.log) == len(wiring.chips)
    assert [e[1] if e[0] != "i2c_rdwr" else e[1][0][1] for e in bus.log] == \
        [c.address for c in wiring.chips]
    for entry in bus.log:
        assert entry[0] == per_chip[0]
        if len(per_chip) > 1:
            assert (entry[2], entry[3]) == per_chip[1:]


def test_matrix_scan_is_one_combined_transaction_per_row():
    wiring = load_wiring(EXAMPLES_DIR / "matrix_mcp23017_8x8.toml")
    bus = FakeI2CBus()
    VirtualBoard(wiring, bus)
    scanner = build_scanner(wiring, bus.open(), FakeClock())
    scanner.start()
    bus.log.clear()
    scanner.scan()
    rows = [7, 15, 0, 1, 2, 3, 4, 5]
    expected = []
    for pin in rows:
        olat = 0xFFFF & ~(1 << pin)
        expected.append(("i2c_rdwr", (("w", 0x20, (0x14, olat & 0xFF, olat >> 8)),
                                      ("w", 0x20, (0x12,)), ("r", 0x20, 2))))
    assert list(bus.log) == expected


def test_matrix_init_golden():
    wiring = load_wiring(EXAMPLES_DIR / "matrix_mcp23017_8x8.toml")
    bus = FakeI2CBus()
    VirtualBoard(wiring, bus)
    build_scanner(wiring, bus.open(), FakeClock()).start()
    # rows (pins 0-5, 7, 15) are outputs, columns (6, 8-14) inputs with interrupts enabled
    assert bus.log[3] == ("write_i2c_block_data", 0x20, 0x00,
                          (0x40, 0x7F, 0, 0, 0x40, 0x7F, 0, 0, 0, 0))
    assert bus.log[4] == ("write_i2c_block_data", 0x20, 0x0C, (0x40, 0x7F))


def test_config_read_back_golden_on_every_chip():
    bus, smb, chip = fake(FakeMCP23017, 0x20)
    drv = MCP23017(smb, 0x20, inputs=0x7F7F)
    assert drv.config_intact()  # before init: nothing to compare, no transaction
    assert list(bus.log) == []
    drv.init()
    bus.log.clear()
    assert drv.config_intact()
    assert list(bus.log) == [("read_i2c_block_data", 0x20, 0x00, 14)]  # IODIRA..GPPUB
    chip.power_cycle()
    assert not drv.config_intact()

    bus, smb, chip = fake(FakeTCA9555, 0x24)
    drv = TCA9555(smb, 0x24, inputs=0xFF00, outputs=0x00FF)
    drv.init()
    bus.log.clear()
    assert drv.config_intact()
    assert list(bus.log) == [("read_i2c_block_data", 0x24, 0x06, 2)]  # configuration 0 and 1
    chip.power_cycle()
    assert not drv.config_intact()

    bus, smb, chip = fake(FakePCF8575, 0x25)
    drv = PCF8575(smb, 0x25)
    drv.init()
    bus.log.clear()
    chip.power_cycle()
    assert drv.config_intact() and list(bus.log) == []  # no registers: nothing to read back
