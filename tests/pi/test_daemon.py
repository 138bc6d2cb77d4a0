"""The asyncio daemon on the register-level fakes, in real time with its real threads (scan loop,
OLED worker, gpiozero's callbacks): systemd's notify protocol over a real datagram socket (READY
once the board is up, STATUS, WATCHDOG fed from the loop, STOPPING), a game played through the
fake chips and a button pin, the OLED frame, and an orderly stop."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from pathlib import Path
from typing import Any


from engine.board import Board
from hardware_mocks.display import dummy_oled, lit_pixels
from hardware_mocks.gpio import mock_factory, press, release
from hardware_mocks.smbus import FakeI2CBus
from hardware_mocks.virtual_board import VirtualBoard
from pi.board.config import Config
from pi.board.controller import BoardController, Phase
from pi.daemon import Parts, run_daemon
from pi.drivers.hardware import build_hardware
from pi.board.notify import Notifier
from pi.board.statedir import StateDir
from pi.drivers.timebase import GameTime
from pi.drivers.wiring import example_wiring, parse_wiring

INITIAL = Board(None, "italian").occupied_algebraic()


def _wiring() -> Any:
    text = Path(example_wiring("mcp23017_8x8.toml")).read_text()
    if "[buttons" not in text:
        text += "\n[buttons.white]\nclock = 5\n[buttons.black]\nclock = 6\n"
    return parse_wiring(text, "test.toml")


class Sim:
    """The fakes behind build_hardware, with the pieces of the starting position on the board."""

    def __init__(self, wiring: Any) -> None:
        self.wiring = wiring
        self.bus = FakeI2CBus(time.monotonic)
        self.factory = mock_factory()
        pin = self.factory.pin(wiring.interrupt_gpio) if wiring.interrupt_gpio is not None else None
        self.board = VirtualBoard(wiring, self.bus, interrupt_pin=pin)
        self.board.set_occupied(INITIAL)
        self.oled = dummy_oled()

    def build(self, out: Any) -> Any:
        import serial
        return build_hardware(self.wiring, out, GameTime(), bus_opener=self.bus.open,
                              pin_factory=self.factory, display_device=self.oled,
                              serial_port=serial.serial_for_url("loop://", timeout=0.05))


async def _until(predicate: Any, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("timed out")
        await asyncio.sleep(0.01)


def test_daemon_on_the_fakes_with_systemd_notify(tmp_path: Path) -> None:
    sock_path = tmp_path / "notify.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    server.bind(str(sock_path))
    server.setblocking(False)
    notifier = Notifier({"NOTIFY_SOCKET": str(sock_path), "WATCHDOG_USEC": "400000"})
    wiring = _wiring()
    sim = Sim(wiring)
    seen: dict[str, Any] = {}

    async def player(c: BoardController, inbox: asyncio.Queue[Any]) -> None:
        await _until(lambda: c.phase == Phase.PLAYING)
        seen["game"] = c.session.game.id
        sim.board.lift("d3")
        await asyncio.sleep(0.1)
        sim.board.place("c4")
        await asyncio.sleep(0.1)
        gpio = wiring.buttons["white"]["clock"]
        press(sim.factory, gpio)
        await asyncio.sleep(0.05)
        release(sim.factory, gpio)
        await _until(lambda: len(c.session.arbiter.game.moves) == 1)
        await asyncio.sleep(0.5)  # long enough for a watchdog ping or two
        seen["display"] = c.display_state()

    with StateDir.open(tmp_path / "state") as state:
        status = asyncio.run(run_daemon(Config(time_control="600"), wiring, state,
                                        Parts(build=sim.build, notifier=notifier,
                                              companion=player, wall=lambda: None)))
    assert status == 0
    messages = []
    while True:
        try:
            messages.append(server.recv(4096).decode())
        except BlockingIOError:
            break
    assert messages[0].startswith("READY=1")
    assert any(m.startswith("WATCHDOG=1") for m in messages)
    assert "STATUS=game " in messages[0] and "begun" in messages[0]  # set up at power-on
    assert messages[-1].startswith("STOPPING=1")
    journal = (tmp_path / "state" / "games" / seen["game"] / "trace.jsonl").read_text()
    lines = [json.loads(x) for x in journal.splitlines()]
    assert [x["type"] for x in lines] == ["start", "snapshot", "lift", "place", "button"]
    assert seen["display"].last_move == "22-18"
    assert lit_pixels(sim.oled.image) > 0  # the last frame: "stopped"


def test_a_line_durable_only_as_the_daemon_stops_still_reaches_the_hall_link(
        tmp_path: Path, monkeypatch: Any) -> None:
    """The hall link and the web are listeners of the durable lines: the daemon hands out the
    lines that became durable while it was stopping before it closes them (the hall's copy of a
    game ended as the board stopped lacked its last lines until the board's next start)."""
    import os

    from pi.board.config import parse_config
    from pi.hall.link import BoardLink
    real_fsync, real_aclose = os.fsync, BoardLink.aclose
    told: list[str] = []

    # a slow disk under the journal as the clock is pressed: the first fsync after the press
    # (the journal's writer is one thread: the press's line comes after it) takes 0.3 s
    slow = threading.Event()

    def slow_fsync(fd: Any) -> None:
        if slow.is_set():
            slow.clear()
            time.sleep(0.3)
        real_fsync(fd)

    async def aclose(self: BoardLink) -> None:
        told.append("link closed")
        await real_aclose(self)
    monkeypatch.setattr(os, "fsync", slow_fsync)
    monkeypatch.setattr(BoardLink, "aclose", aclose)
    wiring = _wiring()
    sim = Sim(wiring)

    async def player(c: BoardController, inbox: asyncio.Queue[Any]) -> None:
        await _until(lambda: c.phase == Phase.PLAYING)
        sim.board.lift("d3")
        await asyncio.sleep(0.1)
        sim.board.place("c4")
        await asyncio.sleep(0.1)
        gpio = wiring.buttons["white"]["clock"]
        slow.set()
        press(sim.factory, gpio)
        await asyncio.sleep(0.05)
        release(sim.factory, gpio)
        await _until(lambda: len(c.session.arbiter.game.moves) == 1)
        # the press is decided and shown; its line is still on its way to the disk: stop now

    # a hall link to no broker (port 9: nothing listens): it connects in the background
    config = parse_config('time_control = "600"\n[mqtt]\nurl = "mqtt://127.0.0.1:9"\n'
                          'hall = "h"\nboard = "1"\n')
    with StateDir.open(tmp_path / "state") as state:
        status = asyncio.run(run_daemon(
            config, wiring, state,
            Parts(build=sim.build, companion=player, wall=lambda: None,
                  listeners=[lambda fed: told.append(str(fed.record.get("type")))])))
    assert status == 0
    assert "button" in told and told.index("button") < told.index("link closed")
