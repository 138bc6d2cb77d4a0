"""An analog Hall wiring calibrated on its simulated board, as ``damiera hardware calibrate``
does on a real one (issue 40): the simulator and the benchmarks play on a board whose
thresholds were measured, as a builder's would be after building.

The board calibrated is a :class:`~hardware_mocks.virtual_board.VirtualBoard` of the same
``seed``: its sensors (offsets, gains, depths) are drawn first from that seed, so they are the
sensors of every other virtual board of the seed — the one the simulator then plays on.
"""

from __future__ import annotations

import dataclasses

from engine.board import Piece
from hardware_mocks.smbus import FakeI2CBus
from hardware_mocks.virtual_board import VirtualBoard
from pi.drivers.bus import ManagedBus
from pi.drivers.calibration import calibrate, plan
from pi.drivers.hardware import analog_groups
from pi.drivers.wiring import Wiring

__all__ = ["calibrated"]

#: Conversions averaged per square and step (the command's default is 32; 16 is plenty here).
READS = 16


def calibrated(wiring: Wiring, seed: int = 40) -> Wiring:
    """``wiring`` with the ``[calibration]`` its simulated board of ``seed`` gives; a wiring
    that is not analog, or already calibrated, as it is."""
    if wiring.analog is None or wiring.analog.calibration:
        return wiring
    bus = FakeI2CBus()
    board = VirtualBoard(wiring, bus, seed=seed)
    groups, _identity = analog_groups(wiring, ManagedBus(bus.open(), clock=lambda: 0.0))

    def ready(level: str, piece: Piece | None, squares: list[str]) -> None:
        if piece is None:
            board.set_occupied([])
        else:
            board.set_occupied(squares, {square: piece for square in squares})
    table = calibrate(groups, plan(wiring.sensed_squares, 20 if wiring.size == 10 else 12),
                      ready, READS)
    return dataclasses.replace(wiring, analog=dataclasses.replace(wiring.analog,
                                                                  calibration=table))
