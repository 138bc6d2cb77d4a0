"""A hall network full of strangers (issue 17): the real daemon (``damiera run --simulate
--http``) under the descriptor limit systemd gives the unit (``prlimit --nofile=1024:1024``),
flooded from other loopback addresses with connections that send half a header line and
nothing more, and with connections that send nothing at all. The public page and the arbiter's
console keep answering, moves keep being journaled, the game files keep being rewritten, and
the log stays short. Loopback only: 127.0.0.2 and 127.0.0.3 are the strangers' addresses."""

from __future__ import annotations

import json
import resource
import selectors
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from engine.board import Board
from engine.variants import find_variant

DAMIERA = Path(sys.executable).parent / "damiera"
HALF_HEADER = b"GET /api/state HTTP/1.1\r\nHost: x\r\nX-a: "
PRLIMIT = shutil.which("prlimit")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Daemon:
    """The daemon under ``prlimit --nofile=LIMIT``, its log (INFO and up) in a file."""

    def __init__(self, root: Path, nofile: int = 1024) -> None:
        assert PRLIMIT is not None
        self.root, self.port = root, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cfg = root / "damiera.toml"
        cfg.write_text('time_control = "600+5"\nwhite = "Ann"\nblack = "Bob"\n')
        self.log_path = root / "daemon.log"
        self.log = self.log_path.open("w")
        self.proc = subprocess.Popen(
            [PRLIMIT, f"--nofile={nofile}:{nofile}", str(DAMIERA), "run", "--simulate",
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
            time.sleep(0.1)
        self.token = (root / "state" / "arbiter.token").read_text().strip()

    def get(self, path: str, token: bool = False, timeout: float = 2.0) -> Any:
        headers = {"Authorization": f"Bearer {self.token}"} if token else {}
        req = urllib.request.Request(self.url + path, headers=headers)
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
        return json.loads(raw) if path.startswith("/api/") else raw

    def post(self, path: str, body: dict[str, Any], timeout: float = 2.0) -> Any:
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return json.loads(r.read())

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


class Flood:
    """Connections from ``source`` that each send ``payload`` once and then nothing; a
    connection the server closes is opened again (a stranger keeps the pressure on)."""

    def __init__(self, port: int, source: str, count: int, payload: bytes) -> None:
        self.port, self.source, self.count, self.payload = port, source, count, payload
        self.sel = selectors.DefaultSelector()
        self.opened = 0
        self.socks: set[socket.socket] = set()

    def _open(self) -> None:
        s = socket.socket()
        s.setblocking(False)
        s.bind((self.source, 0))
        try:
            s.connect(("127.0.0.1", self.port))
        except BlockingIOError:
            pass
        self.sel.register(s, selectors.EVENT_WRITE)
        self.socks.add(s)
        self.opened += 1

    def pump(self, budget: float) -> None:
        """Keeps ``count`` connections up for ``budget`` seconds at most."""
        end = time.monotonic() + budget
        while len(self.socks) < self.count and time.monotonic() < end:
            self._open()
        while time.monotonic() < end:
            for key, _ in self.sel.select(timeout=max(0.0, min(0.05, end - time.monotonic()))):
                s: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    if key.events & selectors.EVENT_WRITE:
                        if self.payload:
                            s.send(self.payload)
                        self.sel.modify(s, selectors.EVENT_READ)
                        continue
                    if s.recv(4096):
                        continue
                except OSError:
                    pass
                self.sel.unregister(s)
                self.socks.discard(s)
                s.close()
            while len(self.socks) < self.count and time.monotonic() < end:
                self._open()

    def close(self) -> None:
        for s in self.socks:
            self.sel.unregister(s)
            s.close()
        self.socks.clear()


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
        time.sleep(0.15)  # the sensors' debounce sees each change
    t0 = time.monotonic()
    d.post("/api/sim/button", {"name": "clock", "side": side}, timeout=5)
    return max(slowest, time.monotonic() - t0)


def raise_own_limit(n: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < n:
        pytest.skip(f"this test opens {n} descriptors; the hard limit is {hard}")
    if soft != resource.RLIM_INFINITY and soft < n:
        resource.setrlimit(resource.RLIMIT_NOFILE, (n, hard))


@pytest.mark.slow
@pytest.mark.skipif(PRLIMIT is None, reason="prlimit (util-linux) is needed")
def test_daemon_answers_under_an_idle_connection_flood(tmp_path: Path) -> None:
    """Issue 17: 1,100 connections that send half a header line and 3,000 that send nothing,
    against a daemon with 1,024 descriptors: the public page and the arbiter's console answer
    within 1 s, each move is journaled and the game files rewritten after it, the log grows by
    less than 100 lines a minute, and the daemon stops cleanly (exit 0)."""
    raise_own_limit(4096 + 512)
    d = Daemon(tmp_path)
    half = Flood(d.port, "127.0.0.2", 1100, HALF_HEADER)
    silent = Flood(d.port, "127.0.0.3", 3000, b"")
    try:
        lines_before = len(d.log_path.read_text().splitlines())
        started = time.monotonic()
        half.pump(2.0)
        silent.pump(2.0)
        sides = ("white", "black")
        for ply in range(8):
            half.pump(0.3)
            silent.pump(0.3)
            t0 = time.monotonic()
            page = d.get("/", timeout=1.0)
            assert b"<html" in page.lower() or b"<!doctype" in page.lower()
            public = d.get("/api/state", timeout=1.0)
            assert time.monotonic() - t0 < 1.0, "the public page took a second or more"
            t0 = time.monotonic()
            console = d.get("/arbiter", timeout=1.0)
            assert console
            d.get("/api/state", token=True, timeout=1.0)
            assert time.monotonic() - t0 < 1.0, "the arbiter's console took a second or more"
            assert public["view"] == "public"
            slowest = play_one(d, sides[ply % 2])
            assert slowest < 1.0, f"an arbiter's request took {slowest:.2f} s"
            # journaled at once, and the game files rewritten after the move
            deadline = time.monotonic() + 1.0
            game = d.game_dir()
            while True:
                moves = d.get("/api/state", token=True)["moves"]
                report = json.loads((game / "report.json").read_text() or "{}") \
                    if (game / "report.json").exists() else {}
                if len(moves) == ply + 1 and len(report.get("moves", [])) == ply + 1:
                    break
                assert time.monotonic() < deadline, (
                    f"move {ply + 1}: journaled {len(moves)}, report.json "
                    f"{len(report.get('moves', []))} after 1 s")
                half.pump(0.05)
            assert (game / "game.pdn").stat().st_mtime >= (game / "trace.jsonl").stat().st_mtime - 1
        assert half.opened >= 1100 and silent.opened >= 3000
        minutes = (time.monotonic() - started) / 60.0
        grown = len(d.log_path.read_text().splitlines()) - lines_before
        assert grown < 100 * max(minutes, 1.0), d.log_path.read_text()[-3000:]
        assert "Too many open files" not in d.log_path.read_text()
    finally:
        half.close()
        silent.close()
        rc = d.stop()
    assert rc == 0, d.log_path.read_text()[-3000:]
