"""The daemon probes the board at start, before the sensors power up: a chip missing or a stuck
square is on the OLED, with the square, before the first game (issue 18). Through the daemon's
own ``run_daemon`` on the register-level fakes, faults planted as ``--fault`` plants them."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from engine.board import Board
from hardware_mocks.bringup import SimulatedBench
from pi.board.config import Config
from pi.board.controller import BoardController, Phase
from pi.board.statedir import StateDir
from pi.daemon import Parts, run_daemon
from pi.drivers.bringup import PlantedFault, startup_probe, start_squares
from pi.drivers.hardware import Hardware, build_hardware
from pi.drivers.timebase import GameTime
from pi.drivers.wiring import example_wiring, load_wiring

INITIAL = Board(None, "italian").occupied_algebraic()
WIRING = load_wiring(example_wiring("mcp23017_8x8"))


async def _until(predicate: Any, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        await asyncio.sleep(0.01)


def _run(tmp_path: Path, *faults: PlantedFault) -> dict[str, Any]:
    bench = SimulatedBench(WIRING, faults)
    bench.board.set_occupied(INITIAL)
    built: list[Hardware] = []
    seen: dict[str, Any] = {}

    def build(out: Any) -> Hardware:
        import serial
        hw = build_hardware(WIRING, out, GameTime(), bus_opener=lambda _b: bench.bus.open(),
                            pin_factory=bench.pin_factory,
                            display_device=bench.display_device(WIRING),
                            serial_port=serial.serial_for_url("loop://", timeout=0.05))
        built.append(hw)
        return hw

    async def look(c: BoardController, inbox: asyncio.Queue[Any]) -> None:
        await _until(lambda: c.phase == Phase.PLAYING or c.message.startswith("probe:"))
        await _until(lambda: built[0].display is not None
                     and built[0].display.state.message == c.message)
        seen["message"] = c.message
        seen["phase"] = c.phase

    with StateDir.open(tmp_path / "state") as state:
        assert asyncio.run(run_daemon(Config(), WIRING, state,
                                      Parts(build=build, companion=look, wall=lambda: None))) == 0
    return seen


def test_a_stuck_square_is_on_the_oled_before_the_first_game(tmp_path: Path) -> None:
    seen = _run(tmp_path, PlantedFault("stuck", ("d4",)))
    assert seen == {"message": "probe: d4 stuck closed", "phase": Phase.SETUP}


def test_a_missing_chip_is_on_the_oled_with_its_squares(tmp_path: Path) -> None:
    seen = _run(tmp_path, PlantedFault("missing-chip", address=0x21))
    assert seen == {"message": "probe: 0x21 missing; 0x25 unexpected MCP23017",
                    "phase": Phase.SETUP}


def test_a_sound_board_starts_its_game(tmp_path: Path) -> None:
    assert _run(tmp_path)["phase"] == Phase.PLAYING


def test_the_probe_names_a_missing_chip_and_its_squares() -> None:
    bench = SimulatedBench(WIRING)
    del bench.bus.chips[0x22]  # not answering at all
    findings = startup_probe(bench.open_bus(1), WIRING, start_squares(WIRING, INITIAL))
    assert [f.line() for f in findings] == [
        "FAIL 0x22: missing: u3 MCP23017 does not answer (squares e4 f4 g4 h4 a5 b5 c5 d5 e5 f5 "
        "g5 h5 a6 b6) — check its supply, SDA/SCL and A0-A2 straps (i2cdetect -y 1)"]


def test_the_probe_names_a_chattering_square_and_lets_the_start_position_be() -> None:
    bench = SimulatedBench(WIRING, [PlantedFault("chatter", ("e5",))])
    bench.board.set_occupied(INITIAL)
    findings = startup_probe(bench.open_bus(1), WIRING, start_squares(WIRING, INITIAL))
    assert [f.line() for f in findings] == ["FAIL e5: chattering"]


def test_start_squares_cover_every_allowed_orientation() -> None:
    # orientation "auto", candidates 0° and 90°: the pieces may stand on either set-up
    allowed = start_squares(WIRING, INITIAL)
    assert INITIAL <= allowed and "h1" in allowed and "a1" in allowed
    assert not {"d4", "e4", "d5", "e5"} & allowed
