"""The real daemon in a subprocess for the web tests that need one whole (a descriptor limit, a
restart): ``damiera run --simulate --http 127.0.0.1:PORT`` with a config of our own, its log
(INFO and up) in a file, optionally under ``prlimit --nofile``. Loopback only."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from engine.board import Board
from engine.variants import find_variant
from tests.ports import free_port

DAMIERA = Path(sys.executable).parent / "damiera"
PRLIMIT = shutil.which("prlimit")


class Daemon:
    """The daemon (under ``prlimit --nofile=nofile:nofile`` when ``nofile`` is given) on
    ``port`` (default a free one), its state directory ``root/state``."""

    def __init__(self, root: Path, nofile: int | None = None, port: int | None = None) -> None:
        self.root, self.port = root, port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cfg = root / "damiera.toml"
        cfg.write_text('time_control = "600+5"\nwhite = "Ann"\nblack = "Bob"\n')
        self.log_path = root / "daemon.log"
        self.log = self.log_path.open("a")
        limit = [] if nofile is None else [str(PRLIMIT), f"--nofile={nofile}:{nofile}"]
        self.proc = subprocess.Popen(
            [*limit, str(DAMIERA), "run", "--simulate",
             "--config", str(cfg), "--http", f"127.0.0.1:{self.port}", "--state-dir",
             str(root / "state")], stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while True:
            try:
                if self.get("/api/state")["phase"] == "playing":
                    break
            except (OSError, ValueError):
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the daemon did not start: " + self.log_path.read_text())
            time.sleep(0.02)
        self.token = (root / "state" / "arbiter.token").read_text().strip()

    def get(self, path: str, token: bool = False, timeout: float = 30.0) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if token else {}
        req = urllib.request.Request(self.url + path, headers=headers)
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
        return json.loads(raw) if path.startswith("/api/") else raw

    def post(self, path: str, body: dict[str, Any], timeout: float = 30.0) -> Any:
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())

    def sim(self, kind: str, square: str, timeout: float = 30.0) -> None:
        """``kind`` ("lift" or "place") on the simulated board, held until the daemon's sensors
        report it (:meth:`sensed`)."""
        done = self.post(f"/api/sim/{kind}", {"square": square}, timeout=timeout)["square"]
        self.sensed(done, kind == "place")

    def sensed(self, square: str, occupied: bool) -> None:
        """Waits until the daemon's sensors report ``square`` ``occupied`` (or empty):
        ``sensed`` of ``GET /api/sim/board``, so that the board was told of a lift or place
        before anything after it (a press of the clock is another path: it could overtake
        the scan; a fixed 0.15 s was a guess)."""
        deadline = time.monotonic() + 30
        while (square in self.get("/api/sim/board", token=True)["sensed"]) != occupied:
            assert time.monotonic() < deadline, f"the sensors never reported {square}: {occupied}"
            time.sleep(0.01)

    def game_dir(self) -> Path:
        games = sorted(p for p in (self.root / "state").rglob("trace.jsonl"))
        return games[-1].parent

    def stop(self) -> int:
        self.proc.terminate()
        try:
            return self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()
        finally:
            self.log.close()


def next_move(fen: str) -> list[tuple[str, str]]:
    """The physical events of the first legal move in ``fen`` (Italian), as sim API calls."""
    v = find_variant("italian")
    board = Board(fen, v)
    move = board.legal_moves[0]
    g = v.geometry
    out = [("lift", g.algebraic(move.path[0])), ("place", g.algebraic(move.path[-1]))]
    out += [("lift", g.algebraic(c)) for c in move.captures]
    return out


def play_one(d: Daemon, side: str) -> float:
    """Plays the first legal move and presses ``side``'s clock; returns the seconds the
    slowest of these arbiter requests took."""
    slowest = 0.0
    state = d.get("/api/state", token=True)
    for kind, square in next_move(state["fen"]):
        t0 = time.monotonic()
        d.post(f"/api/sim/{kind}", {"square": square}, timeout=5)
        slowest = max(slowest, time.monotonic() - t0)
        d.sensed(square, kind == "place")
    t0 = time.monotonic()
    d.post("/api/sim/button", {"name": "clock", "side": side}, timeout=5)
    return max(slowest, time.monotonic() - t0)
