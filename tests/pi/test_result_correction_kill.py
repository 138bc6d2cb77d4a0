"""A result corrected after the game (issue 37, COMP 6.16) survives kill -9 between its journal
line and the ``finished`` marker: the daemon's own loop and threads (write-behind) in a
subprocess, its correction's line durable and answered, then every write of the game's files
(or of the marker only) hanging, as when the power goes; killed with SIGKILL there, the next
start gives the corrected result everywhere — journal, game.pdn, report.json, the marker."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from engine.replay import replay_lines
from hardware_mocks.clock import FakeClock
from pi.board.config import Config
from pi.board.controller import BoardController, Phase
from pi.board.statedir import StateDir
from pi.drivers.timebase import GameTime

pytestmark = pytest.mark.heavy  # a daemon killed -9 and started again: run first

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}

_CORRECT_THEN_KILL = textwrap.dedent('''
    import asyncio, os, sys, threading, time as wall
    from engine.board import Board
    from engine.events import ButtonPressed, SnapshotTaken
    from pi.board.arbiter_request import ArbiterRequest
    from pi.board.config import Config
    from pi.board.controller import BoardController
    from pi.board.handoff import LoopInbox
    from pi.board.notify import Notifier
    from pi.board.statedir import StateDir
    from pi.drivers.timebase import GameTime

    INITIAL = Board(None, "italian").occupied_algebraic()
    STALL = sys.argv[2]  # "files": game.pdn, report.json and the marker; "marker": it alone
    real_write = os.write
    stalled = threading.Event()

    def write(fd, data):
        # once armed, the journal is written; the files (or the marker) never are
        if stalled.is_set():
            name = os.path.basename(os.readlink(f"/proc/self/fd/{fd}"))
            if name.startswith(".finished.") or (STALL == "files" and name.startswith(".")):
                say("STALLED", name.split(".")[1])
                threading.Event().wait()
        return real_write(fd, data)

    os.write = write

    def say(*words):
        # one write per line: the files' thread and the loop say theirs at the same moment
        # (print writes a line's words and its newline apart: they interleaved once)
        real_write(1, (" ".join(str(w) for w in words) + "\\n").encode())

    async def main():
        loop = asyncio.get_running_loop()
        inbox = asyncio.Queue()
        bridge = LoopInbox(loop, inbox)
        time = GameTime()
        stop = asyncio.Event()
        with StateDir.open(sys.argv[1]) as state:
            c = BoardController(Config(clock=False), state, time, wall=lambda: None,
                                submit=inbox.put_nowait, post=bridge.put)
            c.resume()
            running = asyncio.ensure_future(c.run(inbox, stop, Notifier()))
            inbox.put_nowait(SnapshotTaken(time.stamp(), INITIAL))
            inbox.put_nowait(ButtonPressed(time.stamp(), "resign", "black"))
            while not (c.session is not None and c.session.finished):
                await asyncio.sleep(0.01)
            say("OVER", c.session.game.id)
            await asyncio.sleep(0.1)  # the arbiter comes later than the kernel's file tick
            stalled.set()
            fed = await c.act(ArbiterRequest("correct_result", "0-1", "White resigned"))
            say("CORRECTED", fed.line)  # answered: its line is durable
            await running

    asyncio.run(main())
''')


@pytest.mark.parametrize("stall", ["files", "marker"])
def test_a_kill_between_the_correction_and_its_marker_restarts_with_the_corrected_result(
        tmp_path: Path, stall: str) -> None:
    state = tmp_path / "state"
    proc = subprocess.Popen([sys.executable, "-c", _CORRECT_THEN_KILL, str(state), stall],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(60, proc.kill)  # a board that never answers: no endless wait
    watchdog.start()
    try:
        assert proc.stdout is not None
        over = proc.stdout.readline().split()
        assert over[:1] == ["OVER"], over
        game_id = over[1]
        seen = {proc.stdout.readline().split()[0] for _ in range(2)}
        # the line answered, and the files' thread caught where the power goes
        assert seen == {"CORRECTED", "STALLED"}, seen
    finally:
        proc.send_signal(signal.SIGKILL)
        _, err = proc.communicate(timeout=30)
        watchdog.cancel()
    assert proc.returncode == -signal.SIGKILL, err

    with StateDir.open(state) as sd:
        game = sd.game(game_id)
        lines = [json.loads(x) for x in game.trace.read_text().splitlines()]
        assert lines[-1]["action"] == "correct_result"
        assert game.finished_info() == {"result": "1-0"}  # the kill left the first result
        c = BoardController(Config(clock=False), sd, GameTime(FakeClock(10.0)),
                            wall=lambda: None)
        c.resume()  # the next start
        assert c.phase == Phase.SETUP and c.files_failure() is None
        assert game.finished_info() == {"result": "0-1"}
        report = json.loads(game.report.read_text())
        assert report == replay_lines(game.trace.read_text().splitlines()).to_json()
        assert report["result"] == "0-1" and [r["result"] for r in
                                              report["result_history"]] == ["1-0", "0-1"]
        assert '[Result "0-1"]' in game.pdn.read_text()
        c.stop()
