"""What the simulator's companions read of a simulation: the trace player
(``hardware_mocks.trace_player``) and the web controls (``hardware_mocks.sim_web``) take a
:class:`Simulated`, which ``hardware_mocks.simulate.Simulation`` implements. Named here so that
neither imports the module that imports them (no circle of imports)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:  # types only: gpiozero and the drivers load with the simulation itself
    from gpiozero.pins.mock import MockFactory

    from hardware_mocks.clock import FakeClock
    from hardware_mocks.smbus import FakeI2CBus
    from hardware_mocks.virtual_board import VirtualBoard
    from pi.board.scan_loop import ScanLoop
    from pi.drivers.hardware import Hardware
    from pi.drivers.timebase import GameTime
    from pi.drivers.wiring import Wiring

__all__ = ["Simulated"]


class Simulated(Protocol):
    """One run's fakes: see ``hardware_mocks.simulate.Simulation``."""

    wiring: Wiring
    time: GameTime
    bus: FakeI2CBus
    factory: MockFactory
    clock: FakeClock | None
    board: VirtualBoard | None
    hardware: Hardware | None
    scan_loop: ScanLoop | None

    def press(self, item: Any) -> None:
        """An input put where the drivers put theirs. Raises RuntimeError before the hardware
        is built."""
