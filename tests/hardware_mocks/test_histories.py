"""The fakes' histories are bounded: a simulator playing game after game in one process keeps
the newest transactions of its I²C bus (``FakeI2CBus.log``) and the newest level changes of
each gpiozero mock pin (``MockPin.states``), not all of them (issue 15: +234 KiB a game)."""

from __future__ import annotations

import queue
import tracemalloc
from typing import Any

import pytest

from engine.board import Board
from engine.events import ButtonPressed, PieceLifted, PiecePlaced
from engine.trace import parse_trace
from engine.variants import find_variant
from hardware_mocks.gpio import STATES_KEPT, mock_factory, tap
from hardware_mocks.sample_game import random_trace
from hardware_mocks.simulate import Simulation
from hardware_mocks.smbus import LOG_KEPT, FakeI2CBus
from pi.board.scan_loop import MAX_SCANS_PER_INSTANT, ScanLoop
from pi.drivers.wiring import example_wiring, load_wiring

MIB = 1024 * 1024


def test_the_bus_log_keeps_the_newest_transactions() -> None:
    bus = FakeI2CBus(None)
    handle = bus.open()
    for n in range(LOG_KEPT + 10):
        with pytest.raises(OSError):
            handle.read_byte(0x20 + n % 8)  # no chip there: logged all the same
    assert len(bus.log) == LOG_KEPT
    assert bus.log[-1] == ("read_byte", 0x20 + (LOG_KEPT + 9) % 8)


def test_a_mock_pin_keeps_its_newest_level_changes() -> None:
    for pwm in (False, True):
        factory = mock_factory(pwm=pwm)
        pin = factory.pin(5)
        pin.function = "input"
        pin.pull = "up"
        for _ in range(STATES_KEPT):
            tap(factory, 5)
        assert len(pin.states) == STATES_KEPT
        assert [s.state for s in pin.states][-2:] == [False, True]


class _Games:
    """Random games acted on one simulation's hardware (the daemon's drivers built on the
    fakes, scan loop stepped on the simulated clock, buttons tapped on their GPIOs), one
    after another, the board set up again between them: what one long-running simulator does."""

    def __init__(self) -> None:
        wiring = load_wiring(example_wiring("mcp23017_8x8"))
        expected = Board(None, find_variant("italian")).occupied_algebraic()
        self.sim = Simulation(wiring, expected, stepped=True)
        self.out: queue.Queue[Any] = queue.Queue()
        self.hw = self.sim.build(self.out)
        self.loop = ScanLoop.for_hardware(self.hw, self.out.put)  # stepped here, no thread
        self.hw.start()
        self.expected = expected
        self.games = [parse_trace(random_trace("italian", seed=s, plies=16))[1] for s in range(3)]
        self.played = 0

    def play(self, n: int) -> None:
        sim, board = self.sim, self.sim.board
        assert sim.clock is not None and board is not None
        for _ in range(n):
            base = sim.clock()
            for event in self.games[self.played % len(self.games)]:
                self._run_to(base + event.t)
                if isinstance(event, PieceLifted) and event.square in board.occupied:
                    board.lift(event.square)
                elif isinstance(event, PiecePlaced) and event.square not in board.occupied:
                    board.place(event.square)
                elif isinstance(event, ButtonPressed):
                    tap(sim.factory, sim.wiring.buttons[event.side.label][event.name],
                        sim.wiring.button_pull_up)
            board.set_occupied(self.expected)
            self._run_to(sim.clock() + 1.0)
            while not self.out.empty():
                self.out.get_nowait()
            self.played += 1

    def _run_to(self, target: float) -> None:
        clock, loop = self.sim.clock, self.loop
        assert clock is not None
        while True:
            for _ in range(MAX_SCANS_PER_INSTANT + 1):
                if not loop.due():
                    break
                loop.step()
            if clock() >= target:
                return
            clock.jump_to(min(loop.next_wake(), target))

    def close(self) -> None:
        self.loop.stop()
        self.hw.stop()


@pytest.mark.slow
def test_memory_after_100_games_is_that_after_10() -> None:
    """Python's own allocations (tracemalloc), so the figure is the fakes' and the drivers',
    not the allocator's: after 100 games within 2 MiB of after 10 (unbounded: +20 MiB)."""
    tracemalloc.start()
    try:
        games = _Games()
        try:
            games.play(10)
            after_10 = tracemalloc.get_traced_memory()[0]
            games.play(90)
            after_100 = tracemalloc.get_traced_memory()[0]
        finally:
            games.close()
    finally:
        tracemalloc.stop()
    assert after_100 - after_10 < 2 * MIB, (after_10 / MIB, after_100 / MIB)
