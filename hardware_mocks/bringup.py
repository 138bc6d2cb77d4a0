"""``--simulate`` for ``damiera hardware ...`` and ``damiera doctor``: a board of fakes with the
faults asked for, and hands that do what the prompts ask.

:func:`bench` (the ``damiera/bench`` entry point, which ``pi.hardware_cli`` loads) builds a
:class:`SimulatedBench`: a :class:`~hardware_mocks.smbus.FakeI2CBus` with one register-level
chip per chip of the wiring and an OLED at its address, a
:class:`~hardware_mocks.virtual_board.VirtualBoard` over the wires *as built* (the wiring file,
with any swapped pair crossed), gpiozero's ``MockFactory``, luma's ``dummy`` OLED, a
:class:`~hardware_mocks.clock.FakeClock` that sleeping advances, and a
:class:`~hardware_mocks.pi_system.FakePiSystem`. Faults are planted at the register level:

* ``missing-chip:0x21``: the chip answers at another address (its address straps soldered
  wrong: the first free one of 0x20-0x27), or, with no free address, not at all;
* ``swap:a1,c1``: the two squares' wires are crossed (each switch pulls the other's pin);
* ``dead:SQ``: the square's pin never goes low (``stuck_high``: a broken switch);
* ``stuck:SQ``: the square's pin is always low (``stuck_low``: a switch stuck closed);
* ``chatter:SQ``: the pin is pulled low at every other read of its chip;
* ``bus-off``: the adapter is gone (opening ``/dev/i2c-1`` fails) and I²C is off in the Pi;
* ``gain:SQ:0.7``, ``clip:SQ:80`` (an analog Hall board): the square's sensor has 0.7 times the
  nominal sensitivity, or stops being linear at 80 mT (a DRV5055 of a smaller range, which
  clips a king's field).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from engine.errors import InputError
from engine.events import parse_piece
from hardware_mocks.chips.ssd1306 import FakeOLED
from hardware_mocks.clock import FakeClock
from hardware_mocks.display import dummy_oled
from hardware_mocks.gpio import mock_factory, tap
from hardware_mocks.pi_system import FakePiSystem
from hardware_mocks.smbus import FakeChip, FakeI2CBus, FakeSMBus
from hardware_mocks.virtual_board import VirtualBoard
from pi.drivers.bringup import PlantedFault, Request
from pi.drivers.wiring import ChipSpec, Wiring, example_wiring, load_wiring

__all__ = ["bench", "SimulatedBench", "crossed"]

#: A simulated step waits this long (simulated seconds) for a change: the hands act at once.
STEP_TIMEOUT = 0.5


def crossed(wiring: Wiring, a: str, b: str) -> Wiring:
    """The wiring with squares ``a`` and ``b`` exchanged on their pins (the wires as built)."""
    def swap(name: str) -> str:
        return b if name == a else a if name == b else name
    chips = tuple(dataclasses.replace(c, squares=tuple(swap(s) for s in c.squares))
                  for c in wiring.chips)
    return dataclasses.replace(wiring, chips=chips)


def _pin_of(wiring: Wiring, square: str) -> tuple[ChipSpec, int]:
    for chip in wiring.chips:
        if square in chip.squares:
            return chip, chip.squares.index(square)
    raise InputError(f"--fault: {square} has no sensor in {wiring.source} (or it is a matrix)")


def _chatter(chip: FakeChip, mask: int) -> None:
    """The pins of ``mask`` are pulled low at every other read transaction of ``chip`` (a
    switch that makes and breaks by itself). The model's own ``set_chatter`` flips at every
    sampling of the pins, twice in one read of both ports, which a two-port read never sees."""
    read = chip.raw_read
    phase = [False]

    def raw_read(length: int) -> list[int]:
        phase[0] = not phase[0]
        chip.stuck_low = chip.stuck_low | mask if phase[0] else chip.stuck_low & ~mask
        return read(length)
    setattr(chip, "raw_read", raw_read)  # noqa: B010 - the instance's reads, not the class's


class SimulatedBench:
    """The fakes for one bring-up command (module docstring); ``board`` is the virtual board
    (its squares as laid out by the wiring the bench was built from)."""

    def __init__(self, wiring: Wiring, faults: Sequence[PlantedFault] = ()) -> None:
        self.wiring = wiring
        self.step_timeout = STEP_TIMEOUT
        self.time = FakeClock(1000.0)
        self.bus = FakeI2CBus(None)
        self.pin_factory: Any = mock_factory(pwm=wiring.buzzer_tonal)
        self.pi = FakePiSystem()
        self.oled: Any = None
        built = wiring
        for fault in faults:
            if fault.kind == "swap":
                for square in fault.squares:
                    _pin_of(wiring, square)
                built = crossed(built, *fault.squares)
        pin = (self.pin_factory.pin(wiring.interrupt_gpio)
               if wiring.interrupt_gpio is not None else None)
        self.board = VirtualBoard(built, self.bus, interrupt_pin=pin)
        oled = wiring.display.address if wiring.display is not None else 0x3C
        self.bus.attach(FakeOLED(oled))
        for fault in faults:
            self._plant(built, fault)
        self.board.refresh()

    def _plant(self, built: Wiring, fault: PlantedFault) -> None:
        if fault.kind == "missing-chip":
            assert fault.address is not None
            chip = self.bus.chips.pop(fault.address, None)
            if chip is None:
                raise InputError(f"--fault missing-chip:0x{fault.address:02x}: no chip there "
                                 f"in {self.wiring.source}")
            free = [a for a in range(0x20, 0x28)
                    if a not in self.bus.chips and a != fault.address]
            if free:  # the address straps soldered wrong: it answers elsewhere
                chip.address = free[0]
                self.bus.attach(chip)
        elif fault.kind == "bus-off":
            self.bus.remove()
            self.pi.i2c_off()
        elif fault.kind in ("gain", "clip"):
            if self.board.field is None or fault.value is None:
                raise InputError(f"--fault {fault.kind}: only on an analog Hall board "
                                 "(kind = \"analog-hall\")")
            square = fault.squares[0]
            if fault.kind == "gain":
                self.board.field.set_sensor(square, gain=fault.value)
            else:
                self.board.field.set_sensor(square, linear=fault.value)
        elif fault.kind in ("dead", "stuck", "chatter"):
            spec, pin = _pin_of(built, fault.squares[0])
            chip = self.board.chips[spec.name]
            closed_level_low = built.active_low
            if fault.kind == "chatter":
                _chatter(chip, 1 << pin)
            elif (fault.kind == "stuck") == closed_level_low:
                chip.stuck_low |= 1 << pin
            else:
                chip.stuck_high |= 1 << pin

    # -- pi.drivers.bringup.Bench ----------------------------------------------------------
    def open_bus(self, bus: int | str) -> FakeSMBus:
        return self.bus.open(bus)

    def display_device(self, wiring: Wiring | None) -> Any:
        if self.oled is None:
            self.oled = dummy_oled()
        return self.oled

    def clock(self) -> float:
        return self.time()

    def sleep(self, seconds: float) -> None:
        self.time.advance(seconds)

    def act(self, request: Request) -> None:
        """The simulator's hands: what a person would do, at once."""
        if request.action == "clear":
            self.board.set_occupied(())
        elif request.action == "put":
            piece = parse_piece(request.piece)
            self.board.set_occupied(request.squares, {sq: piece for sq in request.squares})
        elif request.action == "set up":
            self.board.set_occupied(request.squares)
        elif request.action == "place":
            self.board.place(*request.squares)
        elif request.action == "lift":
            self.board.lift(*request.squares)
        elif request.action == "toggle":  # the free test: the first square offered
            square = request.squares[0]
            if square in self.board.occupied:
                self.board.lift(square)
            else:
                self.board.place(square)
        elif request.action == "press":
            side, name = request.button
            gpio = self.wiring.buttons[side][name]
            tap(self.pin_factory, gpio, self.wiring.button_pull_up)

    def system(self) -> FakePiSystem:
        return self.pi


def bench(*, wiring: Wiring | None, size: int, faults: Sequence[PlantedFault]) -> SimulatedBench:
    """The ``damiera/bench`` entry point: the fakes for ``wiring``, or for the shipped MCP23017
    example of a ``size``×``size`` board when there is none."""
    if wiring is None:
        wiring = load_wiring(example_wiring("mcp23017_10x10" if size == 10 else "mcp23017_8x8"))
    return SimulatedBench(wiring, faults)
