"""The simulator's planted faults, at the register level (``hardware_mocks.bringup``): what the
chips answer with each ``--fault`` planted, read with plain register reads (no driver)."""

from __future__ import annotations

import errno

import pytest

from engine.errors import InputError
from hardware_mocks.bringup import SimulatedBench, bench, crossed
from hardware_mocks.chips.ssd1306 import FakeOLED
from hardware_mocks.pi_system import FakePiSystem
from pi.drivers.bringup import PlantedFault, Request
from pi.drivers.wiring import example_wiring, load_wiring

WIRING = load_wiring(example_wiring("mcp23017_8x8"))
GPIOA = 0x12


def gpio(sim: SimulatedBench, address: int) -> int:
    """GPIOA/GPIOB of the MCP23017 at ``address`` as one 16-bit level."""
    low, high = sim.open_bus(1).read_i2c_block_data(address, GPIOA, 2)
    return low | high << 8


def test_a_sound_board_reads_every_pin_high_when_empty() -> None:
    sim = SimulatedBench(WIRING)
    assert gpio(sim, 0x20) == 0xFFFF
    sim.act(Request("place", "", ("a1",)))  # u1 pin 0
    assert gpio(sim, 0x20) == 0xFFFE


def test_missing_chip_answers_at_the_first_free_address() -> None:
    sim = SimulatedBench(WIRING, [PlantedFault("missing-chip", address=0x21)])
    assert sorted(a for a in sim.bus.chips if a < 0x30) == [0x20, 0x22, 0x23, 0x24, 0x25]
    with pytest.raises(OSError) as caught:
        gpio(sim, 0x21)
    assert caught.value.errno == errno.EREMOTEIO
    sim.act(Request("place", "", ("g2",)))  # u2's pin 0 still follows its square
    assert gpio(sim, 0x25) == 0xFFFE


def test_missing_chip_on_a_full_bus_does_not_answer() -> None:
    wiring = load_wiring(example_wiring("mcp23017_10x10"))
    sim = SimulatedBench(wiring, [PlantedFault("missing-chip", address=0x27)])
    assert 0x27 not in sim.bus.chips and len([a for a in sim.bus.chips if a < 0x30]) == 7


def test_a_missing_chip_that_is_not_there_is_bad_input() -> None:
    with pytest.raises(InputError, match="no chip there"):
        SimulatedBench(WIRING, [PlantedFault("missing-chip", address=0x26)])


def test_swap_crosses_the_two_squares_pins() -> None:
    sim = SimulatedBench(WIRING, [PlantedFault("swap", ("a1", "c1"))])
    sim.act(Request("place", "", ("a1",)))
    assert gpio(sim, 0x20) == 0xFFFF & ~(1 << 2)  # c1's pin
    assert crossed(WIRING, "a1", "c1").chips[0].squares[:3] == ("c1", "b1", "a1")


def test_dead_and_stuck_pins() -> None:
    sim = SimulatedBench(WIRING, [PlantedFault("dead", ("b1",)), PlantedFault("stuck", ("d1",))])
    assert gpio(sim, 0x20) == 0xFFFF & ~(1 << 3)  # d1 closed with nothing on it
    sim.act(Request("set up", "", ("b1", "d1")))
    assert gpio(sim, 0x20) == 0xFFFF & ~(1 << 3)  # b1 never closes


def test_chatter_flips_at_every_other_read() -> None:
    sim = SimulatedBench(WIRING, [PlantedFault("chatter", ("e1",))])
    reads = [gpio(sim, 0x20) >> 4 & 1 for _ in range(6)]
    assert reads in ([0, 1, 0, 1, 0, 1], [1, 0, 1, 0, 1, 0])


def test_bus_off() -> None:
    sim = SimulatedBench(WIRING, [PlantedFault("bus-off")])
    with pytest.raises(FileNotFoundError):
        sim.open_bus(1)
    assert sim.system().glob("/dev/i2c-*") == []
    assert sim.system().run(["raspi-config", "nonint", "get_i2c"]) == "1\n"


def test_the_oled_on_the_bus_and_the_hands_on_the_buttons() -> None:
    sim = SimulatedBench(WIRING)
    assert isinstance(sim.bus.chips[0x3C], FakeOLED)
    assert sim.open_bus(1).read_byte(0x3C) == FakeOLED.STATUS
    pin = sim.pin_factory.pin(WIRING.buttons["white"]["clock"])
    sim.act(Request("press", "", button=("white", "clock")))
    assert [s.state for s in pin.states][-2:] == [False, True]  # pressed, released


def test_sleeping_advances_the_fake_clock() -> None:
    sim = SimulatedBench(WIRING)
    t = sim.clock()
    sim.sleep(0.25)
    assert sim.clock() == t + 0.25


def test_the_entry_point_defaults_to_the_example_for_the_size() -> None:
    assert bench(wiring=None, size=10, faults=()).wiring.size == 10
    assert bench(wiring=None, size=8, faults=()).wiring.chips == WIRING.chips


def test_the_fake_pi_globs_like_a_shell() -> None:
    pi = FakePiSystem()
    assert pi.glob("/dev/gpiochip*") == ["/dev/gpiochip0", "/dev/gpiochip1"]
    assert pi.read_bytes("/nothing") is None and pi.run(["uptime"]) is None
