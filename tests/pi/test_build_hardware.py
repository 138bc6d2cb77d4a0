"""The builder wires every part from a wiring file; with fakes injected it runs on a PC."""

import queue
import subprocess
import sys

import pytest

from engine.events import ButtonPressed, PieceLifted, SnapshotTaken
from hardware_mocks.clock import FakeClock
from hardware_mocks.display import dummy_oled, lit_pixels
from hardware_mocks.gpio import mock_factory, tap
from hardware_mocks.positions import initial_occupancy
from hardware_mocks.serial import loop_port
from hardware_mocks.smbus import FakeI2CBus
from hardware_mocks.virtual_board import VirtualBoard
from pi.drivers.display import DisplayState
from pi.drivers.errors import BusUnavailableError
from pi.drivers.sensors import SensorInterrupt
from pi.drivers.hardware import build_hardware
from pi.drivers.wiring import EXAMPLES_DIR, load_wiring

ITALIAN = initial_occupancy(8, dark_odd=True)


def test_build_hardware_with_fakes_end_to_end():
    wiring = load_wiring(EXAMPLES_DIR / "mcp23017_8x8.toml")
    clock, out, factory = FakeClock(7.0), queue.Queue(), mock_factory()
    bus = FakeI2CBus(clock)
    hw = build_hardware(wiring, out, clock, bus_opener=lambda n: bus.open(n),
                        pin_factory=factory, display_device=dummy_oled(),
                        serial_port=loop_port())
    board = VirtualBoard(wiring, bus, rotation=1, interrupt_pin=factory.pin(17))
    board.set_occupied(ITALIAN)
    try:
        first = hw.start()
        assert [type(o) for o in first] == [SnapshotTaken]
        assert hw.scanner.orient(ITALIAN, [k for k in wiring.auto_candidates]) == 1
        assert hw.scanner.scan() == [SnapshotTaken(0.0, ITALIAN)]
        clock.advance(0.5)
        board.lift("d3")
        assert isinstance(out.get_nowait(), SensorInterrupt)
        assert hw.scanner.scan() == []
        clock.advance(0.03)
        [lifted] = hw.scanner.scan()
        assert lifted == PieceLifted(0.5, "d3")
        tap(factory, wiring.buttons["white"]["clock"])
        assert out.get_nowait() == ButtonPressed(0.53, "clock", "white")
        assert hw.serial_link.send(lifted.to_dict())
        hw.display.render(DisplayState(white_time=600, black_time=600, running="black",
                                       last_move="22-18"))
        assert lit_pixels(hw.display.device.image) > 0
        hw.beeper.play("move")
    finally:
        hw.stop()


def test_build_hardware_without_i2c_is_a_clear_error():
    wiring = load_wiring(EXAMPLES_DIR / "mcp23017_8x8.toml")

    def opener(n):
        raise FileNotFoundError(2, "No such file or directory")
    with pytest.raises(BusUnavailableError, match="raspi-config nonint do_i2c 0"):
        build_hardware(wiring, queue.Queue(), FakeClock(), bus_opener=opener,
                       pin_factory=mock_factory())


def test_importing_pi_needs_no_hardware_library():
    modules = ", ".join("pi.drivers." + m for m in (
        "buttons", "buzzer", "display", "errors", "expanders", "orientation", "sensors", "serial_link",
        "wiring", "hardware", "bus", "timebase", "faults", "interrupt", "sensor_groups"))
    code = (f"import sys, {modules}, pi.board.scan_loop\n"
            "bad = [m for m in ('gpiozero', 'smbus2', 'luma', 'serial', 'RPi', 'lgpio', 'PIL', "
            "'hardware_mocks') if m in sys.modules]\n"
            "print(bad)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == "[]"
