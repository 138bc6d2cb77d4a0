"""One GameTime for every stamper; the ManagedBus's reopen and back-off; the shipped examples."""

import errno
import os
import queue
import subprocess
import sys

import pytest

from engine.events import ButtonPressed, PieceLifted, SnapshotTaken
from hardware_mocks.clock import FakeClock
from hardware_mocks.display import dummy_oled
from hardware_mocks.gpio import mock_factory, tap
from hardware_mocks.positions import initial_occupancy
from hardware_mocks.serial import loop_port
from hardware_mocks.smbus import FakeI2CBus
from hardware_mocks.virtual_board import VirtualBoard
from pi.drivers.bus import ManagedBus
from pi.drivers.hardware import build_hardware
from pi.drivers.timebase import GameTime, as_game_time
from pi.drivers.wiring import EXAMPLES_DIR, example_wiring, load_wiring

ITALIAN = initial_occupancy(8, dark_odd=True)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_one_epoch_for_sensors_buttons_and_serial_link():
    wiring = load_wiring(EXAMPLES_DIR / "mcp23017_8x8.toml")
    clock, out, factory = FakeClock(50.0), queue.Queue(), mock_factory()
    bus = FakeI2CBus(clock)
    time_source = GameTime(clock, epoch=40.0)
    hw = build_hardware(wiring, out, time_source, bus_opener=lambda n: bus.open(n),
                        pin_factory=factory, display_device=dummy_oled(), serial_port=loop_port())
    board = VirtualBoard(wiring, bus, interrupt_pin=factory.pin(17))
    board.set_occupied(ITALIAN)
    try:
        assert hw.time is time_source
        assert hw.scanner.time is hw.buttons.time is hw.serial_link.time is time_source
        assert hw.start() == [SnapshotTaken(10.0, ITALIAN)]
        clock.advance(5.0)
        board.lift("d3")
        hw.scanner.scan()
        clock.advance(0.03)
        # every stamper counts from the one fixed epoch (a game's own zero is the controller's)
        assert hw.scanner.scan() == [PieceLifted(15.0, "d3")]
        tap(factory, wiring.buttons["white"]["clock"])
        presses = drain_presses(out)
        assert presses == [ButtonPressed(15.03, "clock", "white")]
        assert hw.serial_link.handle_line(b'{"type":"button","name":"clock","side":"black"}') \
            == ButtonPressed(15.03, "clock", "black")
    finally:
        hw.stop()


def drain_presses(q):
    """The presses on the queue (the SensorInterrupts of manual scanning left aside)."""
    out = []
    while not q.empty():
        item = q.get_nowait()
        if isinstance(item, ButtonPressed):
            out.append(item)
    return out


def test_a_game_time_and_a_separate_t0_are_refused():
    with pytest.raises(ValueError, match="t0 given with a GameTime"):
        as_game_time(GameTime(FakeClock()), 3.0)
    assert as_game_time(FakeClock(2.0)).epoch == 2.0
    assert as_game_time(FakeClock(2.0), default_epoch=0.0).stamp() == 2.0


class FlakyOpener:
    """Opens handles on ``bus``; raises ENOENT while ``bus.removed``; counts the attempts."""

    def __init__(self, bus):
        self.bus = bus
        self.attempts = []

    def __call__(self):
        self.attempts.append(self.bus.clock())
        return self.bus.open()


def test_managed_bus_reopens_with_doubling_back_off():
    clock = FakeClock(0.0)
    fake = FakeI2CBus(clock)
    from hardware_mocks.smbus import FakeMCP23017
    fake.attach(FakeMCP23017(0x20))
    opener = FlakyOpener(fake)
    bus = ManagedBus(fake.open(), opener, clock=clock, retry_initial=0.05, retry_max=0.3)
    assert bus.read_byte_data(0x20, 0) == 0xFF
    fake.remove()
    with pytest.raises(OSError) as e:
        bus.read_byte_data(0x20, 0)
    assert e.value.errno == errno.ENODEV and bus.lost
    with pytest.raises(OSError):  # lost: nothing reaches the old handle any more
        bus.read_byte_data(0x20, 0)
    for _ in range(2000):  # ask every millisecond for two seconds
        clock.advance(0.001)
        bus.try_reopen()
    # at 0.05, then +0.1, +0.2, +0.3 (the cap), +0.3, ...
    gaps = [round(b - a, 3) for a, b in zip(opener.attempts, opener.attempts[1:], strict=False)]
    assert round(opener.attempts[0], 3) == 0.05
    assert gaps[:4] == [0.1, 0.2, 0.3, 0.3]
    fake.restore()
    while not bus.try_reopen():
        clock.advance(0.001)
    assert not bus.lost and bus.read_byte_data(0x20, 0) == 0xFF
    bus.mark_working()
    assert bus.backoff == 0.0


def test_managed_bus_passes_chip_errors_through_without_losing_the_bus():
    clock = FakeClock()
    fake = FakeI2CBus(clock)
    bus = ManagedBus(fake.open(), fake.open, clock=clock)
    with pytest.raises(OSError) as e:
        bus.read_i2c_block_data(0x27, 0, 2)  # nobody there: NACK
    assert e.value.errno == errno.EREMOTEIO and not bus.lost


@pytest.mark.parametrize("name", ["mcp23017_8x8", "mcp23017_10x10", "tca9555_10x10",
                                  "pcf8575_8x8", "matrix_mcp23017_8x8"])
def test_examples_are_found_through_importlib_resources(name):
    assert load_wiring(example_wiring(name)).source.endswith(f"{name}.toml")


def test_unknown_example_is_a_clear_error():
    with pytest.raises(FileNotFoundError, match="no example wiring 'nope.toml'"):
        example_wiring("nope")


def test_the_built_package_ships_the_example_wirings(tmp_path):
    # setuptools' own build step (what a wheel contains), then the built copy alone.
    build = subprocess.run([sys.executable, "-c", "import setuptools; setuptools.setup()", "-q",
                            "build_py", "--build-lib", str(tmp_path / "lib")],
                           cwd=ROOT, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    code = ("import pi, pi.drivers.wiring as w\n"
            "assert pi.__file__.startswith(%r), pi.__file__\n"
            "names = ['mcp23017_8x8', 'mcp23017_10x10', 'tca9555_10x10', 'pcf8575_8x8',"
            " 'matrix_mcp23017_8x8']\n"
            "print(sorted(w.load_wiring(w.example_wiring(n)).size for n in names))\n"
            % str(tmp_path / "lib"))
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": str(tmp_path / "lib")})
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[8, 8, 8, 10, 10]"
