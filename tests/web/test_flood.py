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
import socket
import time
from pathlib import Path

import pytest

from daemon_proc import PRLIMIT, Daemon, play_one

HALF_HEADER = b"GET /api/state HTTP/1.1\r\nHost: x\r\nX-a: "


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
                s = key.fileobj
                assert isinstance(s, socket.socket)
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
    d = Daemon(tmp_path, nofile=1024)
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
