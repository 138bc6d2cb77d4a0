"""The register models of the fake bus behave like the datasheets say."""

import errno

import pytest
from smbus2 import i2c_msg

from hardware_mocks.clock import FakeClock
from hardware_mocks.smbus import (FakeI2CBus, FakeMCP23017, FakePCF8575, FakeTCA9555,
                                  ProtocolViolation, wire_bits)


def make(chip_cls, address=0x20, clock=None):
    bus = FakeI2CBus(clock)
    chip = bus.attach(chip_cls(address))
    return bus, bus.open(), chip


def test_absent_address_nacks_with_eremoteio():
    bus, smb, _ = make(FakeMCP23017)
    with pytest.raises(OSError) as e:
        smb.read_byte_data(0x27, 0x00)
    assert e.value.errno == errno.EREMOTEIO == 121


def test_mcp23017_power_on_defaults_and_sequential_block_read():
    _, smb, chip = make(FakeMCP23017)
    # IODIRA, IODIRB power on as 0xFF; the rest 0.
    assert smb.read_i2c_block_data(0x20, 0x00, 4) == [0xFF, 0xFF, 0, 0]
    # Sequential addressing wraps from OLATB (0x15) to IODIRA.
    assert smb.read_i2c_block_data(0x20, 0x14, 3) == [0, 0, 0xFF]


def test_mcp23017_iocon_is_at_0x0a_and_0x0b_and_bank1_moves_registers():
    _, smb, chip = make(FakeMCP23017)
    smb.write_byte_data(0x20, 0x0B, 0x80)  # BANK=1 through the IOCON alias
    assert chip.iocon == 0x80
    # In BANK=1, IOCON is at 0x05 and 0x15, IODIRB at 0x10, GPIOA at 0x09.
    assert smb.read_byte_data(0x20, 0x05) == 0x80
    assert smb.read_byte_data(0x20, 0x10) == 0xFF
    smb.write_byte_data(0x20, 0x05, 0x00)  # back to BANK=0
    assert chip.iocon == 0
    assert smb.read_byte_data(0x20, 0x0A) == 0


def test_mcp23017_seqop_byte_mode_toggles_between_a_and_b():
    _, smb, chip = make(FakeMCP23017)
    smb.write_byte_data(0x20, 0x0A, 0x20)  # SEQOP=1
    smb.write_i2c_block_data(0x20, 0x14, [0x11, 0x22, 0x33])  # OLATA, OLATB, OLATA again
    assert chip.regs[0x14] == 0x33 and chip.regs[0x15] == 0x22


def test_mcp23017_interrupt_latches_intcap_and_clears_on_read():
    _, smb, chip = make(FakeMCP23017)
    low = {"mask": 0}
    chip.external_low = lambda: low["mask"]
    smb.write_byte_data(0x20, 0x0A, 0x44)  # MIRROR, ODR
    smb.write_i2c_block_data(0x20, 0x04, [0xFF, 0xFF])  # GPINTEN
    smb.write_i2c_block_data(0x20, 0x0C, [0xFF, 0xFF])  # GPPU
    assert not chip.int_asserted
    low["mask"] = 1 << 9  # GPB1 pulled low
    chip.refresh()
    assert chip.int_asserted  # MIRROR: a port-B change shows on INTA
    low["mask"] = 0  # released again before the read: INTCAP keeps the moment of the interrupt
    chip.refresh()
    intf_a, intf_b, cap_a, cap_b, gpio_a, gpio_b = smb.read_i2c_block_data(0x20, 0x0E, 6)
    assert (intf_b, cap_b, gpio_b) == (0x02, 0xFD, 0xFF)
    assert not chip.int_asserted  # reading INTCAP/GPIO cleared it
    assert smb.read_byte_data(0x20, 0x0F) == 0


def test_mcp23017_without_mirror_port_b_does_not_drive_inta():
    _, smb, chip = make(FakeMCP23017)
    low = {"mask": 0}
    chip.external_low = lambda: low["mask"]
    smb.write_i2c_block_data(0x20, 0x04, [0xFF, 0xFF])
    low["mask"] = 1 << 8
    chip.refresh()
    assert not chip.int_asserted


def test_mcp23017_ipol_inverts_input_reads_and_outputs_follow_olat():
    _, smb, chip = make(FakeMCP23017)
    smb.write_i2c_block_data(0x20, 0x00, [0x0F, 0xFF, 0x0F, 0x00])  # low nibble in, IPOL on it
    smb.write_byte_data(0x20, 0x14, 0xA0)  # OLATA
    assert smb.read_byte_data(0x20, 0x12) == 0xA0  # inputs high, inverted to 0; outputs 1010
    smb.write_byte_data(0x20, 0x12, 0x50)  # writing GPIO writes OLAT
    assert chip.regs[0x14] == 0x50


def test_tca9555_pairs_polarity_and_interrupt_cleared_by_reading_input():
    _, smb, chip = make(FakeTCA9555, 0x21)
    low = {"mask": 0}
    chip.external_low = lambda: low["mask"]
    assert smb.read_i2c_block_data(0x21, 0x06, 3) == [0xFF, 0xFF, 0xFF]  # toggles within pair
    smb.write_i2c_block_data(0x21, 0x04, [0x01, 0x00])
    assert smb.read_i2c_block_data(0x21, 0x00, 2) == [0xFE, 0xFF]
    low["mask"] = 1 << 12
    assert chip.int_asserted
    assert smb.read_i2c_block_data(0x21, 0x00, 2) == [0xFE, 0xEF]
    assert not chip.int_asserted
    low["mask"] = 0  # changing back also counts as a change since the last read
    assert chip.int_asserted


def test_tca9555_outputs():
    _, smb, chip = make(FakeTCA9555, 0x21)
    smb.write_i2c_block_data(0x21, 0x02, [0x00, 0xFF])
    smb.write_i2c_block_data(0x21, 0x06, [0xF0, 0xFF])
    assert chip.pin_levels() == 0xFFF0


def test_pcf8575_raw_reads_and_writes_are_quasi_bidirectional():
    bus, smb, chip = make(FakePCF8575, 0x22)
    low = {"mask": 1 << 3}
    chip.external_low = lambda: low["mask"]
    rd = i2c_msg.read(0x22, 2)
    smb.i2c_rdwr(rd)
    assert list(rd) == [0xF7, 0xFF]
    smb.i2c_rdwr(i2c_msg.write(0x22, [0xFE, 0xFF]))  # P00 driven low
    rd = i2c_msg.read(0x22, 2)
    smb.i2c_rdwr(rd)
    assert list(rd) == [0xF6, 0xFF]
    assert bus.log[-1] == ("i2c_rdwr", (("r", 0x22, 2),))


@pytest.mark.parametrize("call", [
    lambda s: s.read_byte_data(0x22, 0),
    lambda s: s.write_byte_data(0x22, 0, 0xFF),
    lambda s: s.read_i2c_block_data(0x22, 0, 2),
    lambda s: s.write_i2c_block_data(0x22, 0, [0xFF, 0xFF]),
])
def test_pcf8575_register_access_is_flagged(call):
    _, smb, _ = make(FakePCF8575, 0x22)
    with pytest.raises(ProtocolViolation):
        call(smb)


def test_fault_injection_nack_eio_count_and_heal():
    bus, smb, _ = make(FakeMCP23017)
    bus.fail(0x20, errno.EIO, times=2)
    for _ in range(2):
        with pytest.raises(OSError) as e:
            smb.read_byte_data(0x20, 0)
        assert e.value.errno == errno.EIO
    assert smb.read_byte_data(0x20, 0) == 0xFF
    bus.fail(0x20)
    with pytest.raises(OSError):
        smb.read_byte_data(0x20, 0)
    bus.heal(0x20)
    assert smb.read_byte_data(0x20, 0) == 0xFF


def test_removed_bus_gives_enodev_then_enoent_on_reopen():
    bus, smb, _ = make(FakeMCP23017)
    bus.remove()
    with pytest.raises(OSError) as e:
        smb.read_byte_data(0x20, 0)
    assert e.value.errno == errno.ENODEV
    with pytest.raises(FileNotFoundError):
        bus.open()
    bus.restore()
    assert bus.open().read_byte_data(0x20, 0) == 0xFF


def test_closed_handle_and_context_manager():
    bus, _, _ = make(FakeMCP23017)
    with bus.open() as smb:
        smb.read_byte_data(0x20, 0)
    assert smb.closed
    with pytest.raises(OSError):
        smb.read_byte_data(0x20, 0)


def test_latency_advances_the_fake_clock_and_stuck_and_chatter_bits():
    clock = FakeClock()
    bus, smb, chip = make(FakeMCP23017, clock=clock)
    bus.latency[0x20] = 0.002
    smb.read_byte_data(0x20, 0x12)
    assert clock() == pytest.approx(0.002)
    chip.stuck_low = 1 << 2
    assert smb.read_byte_data(0x20, 0x12) == 0xFB
    chip.stuck_low = 0
    chip.chatter = 1 << 0
    reads = [smb.read_byte_data(0x20, 0x12) & 1 for _ in range(4)]
    assert reads == [0, 1, 0, 1]


def test_wire_bits_counts_start_address_acks_repeated_start_stop():
    # S + (addr+W, reg) + Sr + addr+R + 6 data, each 9 bits with ACK, + P
    assert wire_bits(("read_i2c_block_data", 0x20, 0x0E, 6)) == 1 + 18 + 1 + 9 * 7 + 1
    assert wire_bits(("i2c_rdwr", (("r", 0x20, 2),))) == 1 + 27 + 1
    assert wire_bits(("write_byte_data", 0x20, 0x0A, 0x44)) == 29


@pytest.mark.parametrize("chip_cls", [FakeMCP23017, FakeTCA9555, FakePCF8575])
def test_power_cycle_restores_the_power_on_state_and_the_chip_answers_at_once(chip_cls):
    bus, smb, chip = make(chip_cls)
    calls = []
    bus.listeners.append(lambda: calls.append(1))
    if chip_cls is FakePCF8575:
        smb.i2c_rdwr(i2c_msg.write(0x20, [0x00, 0xF0]))
        assert chip.latch == 0xF000
        bus.power_cycle(0x20)
        assert chip.latch == 0xFFFF
        rd = i2c_msg.read(0x20, 2)
        smb.i2c_rdwr(rd)
        assert list(rd) == [0xFF, 0xFF]
    elif chip_cls is FakeTCA9555:
        smb.write_i2c_block_data(0x20, 0x06, [0x00, 0x0F])  # configuration: some outputs
        smb.write_i2c_block_data(0x20, 0x04, [0xFF, 0x00])  # polarity inverted on port 0
        bus.power_cycle(0x20)
        assert smb.read_i2c_block_data(0x20, 0x06, 2) == [0xFF, 0xFF]
        assert smb.read_i2c_block_data(0x20, 0x04, 2) == [0x00, 0x00]
        assert smb.read_i2c_block_data(0x20, 0x02, 2) == [0xFF, 0xFF]
    else:
        smb.write_byte_data(0x20, 0x0A, 0x44)
        smb.write_i2c_block_data(0x20, 0x00, [0x00, 0x7F, 0, 0, 0xFF, 0x7F])
        bus.power_cycle(0x20)
        assert chip.iocon == 0
        assert smb.read_i2c_block_data(0x20, 0x00, 14) == [0xFF, 0xFF] + [0] * 12
    assert calls  # the listeners (the virtual board's INT line) are told
