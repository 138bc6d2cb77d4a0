"""The parts of benchmarks/bench_hall.py: the hall-page SSE client, the hub's process figures
(/proc), the comparison of every replica with its board's journal, the latency join, a
stand-in hub (a plain subscriber keeping replicas) for when ``damiera hub`` is not installed,
and the host's speed at the moment (:func:`host_reference`, bench_hub_cpu's too)."""

from __future__ import annotations

import bisect
import gc
import http.client
import json
import os
import random
import socket
import statistics
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from engine.replay import RAISE, Replay
from hardware_mocks.hall_games import TIME_CONTROL, natural_game
from pi.board.journal import encode_line
from pi.hall import protocol

__all__ = ["SseClient", "ProcStats", "compare_replicas", "replica_lines", "latencies", "read_times",
           "StandInHub", "free_port", "percentile", "host_reference", "host_line"]

CLK_TCK = os.sysconf("SC_CLK_TCK")


#: The reference games (:func:`host_reference`): made once per process.
_REFERENCE: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []


def host_reference(seconds: float = 1.0) -> float:
    """This host's speed now, to read a run's figures beside: the median CPU time per journal
    line, in microseconds, of the engine replaying the same games every time (20 natural games
    of the simulated boards, seed 0, ``engine.replay.Replay`` as the hub feeds it) for about
    ``seconds`` of this thread's CPU. A host that runs slower than usual — a neighbour's load,
    a lower clock: nothing ``vmstat`` shows as stolen — reads higher, and every process's CPU
    per line with it (docs/developer-hub-load.md, "Reading the figures on a shared machine")."""
    if not _REFERENCE:
        rng = random.Random(0)
        for _ in range(20):
            start = {"type": "start", "variant": "italian", "fen": None, "clock": True,
                     "transcribed": True, "time_control": TIME_CONTROL, "white": "w",
                     "black": "b", "event": "reference", "round": "1", "board": 1,
                     "id": "reference", "started_at": "2026-11-27T00:00:00.000+00:00"}
            records = [json.loads(encode_line(e.to_dict()))
                       for e in natural_game("italian", rng, max_plies=rng.randint(60, 120))]
            _REFERENCE.append((start, records))
    lines = sum(len(r) for _, r in _REFERENCE)
    rounds: list[float] = []
    spent = 0.0
    collecting = gc.isenabled()
    gc.disable()  # the caller's heap (a benchmark's recording) would be walked: not the host's
    try:
        while spent < seconds or len(rounds) < 4:  # the first round warms up: not counted
            t0 = time.thread_time()
            for start, records in _REFERENCE:
                replay = Replay(start, RAISE)
                for n, record in enumerate(records, 2):
                    replay.take(record, replay.read_event(record), n)
                    if replay.arbiter.game.outcome is not None:
                        break
            took = time.thread_time() - t0
            spent += took
            rounds.append(took / lines * 1e6)
    finally:
        if collecting:
            gc.enable()
    return statistics.median(rounds[1:])


def host_line(before: float, after: float) -> str:
    """The line the benchmarks print for :func:`host_reference` read around a run."""
    return (f"  host: the reference replay {before:.1f} µs per line before the run, {after:.1f} "
            "after (the engine on one core; higher: the host slower)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s)) - 1))]


class SseClient:
    """One hall page: ``GET /events`` on the hub, every ``board`` event's arrival time (wall
    clock, as the boards' publish times) with its board, game and ``lines``. As a browser's
    EventSource, it connects again with ``Last-Event-ID`` when the hub ends the stream (a client
    that fell behind is dropped): ``reconnects`` counts those."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.seen: list[tuple[float, str, str | None, int]] = []  # wall, board, game, lines
        self.events = 0
        self.reconnects = 0
        self.error: str | None = None
        self.last_id: str | None = None
        self._stop = False
        self._conn: http.client.HTTPConnection | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _open(self, timeout: float = 10.0) -> Any:
        self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"Accept": "text/event-stream"}
        if self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        self._conn.request("GET", "/events", headers=headers)
        resp = self._conn.getresponse()
        if resp.status != 200:
            raise RuntimeError(f"GET /events: {resp.status} {resp.read()[:200]!r}")
        if self._conn.sock is not None:
            self._conn.sock.settimeout(None)
        return resp

    def start(self) -> None:
        self._resp = self._open()
        self.thread.start()

    def _run(self) -> None:
        while not self._stop:
            try:
                self._read(self._resp)
            except (OSError, ValueError) as exc:
                if self._stop:
                    return
                self.error = str(exc)
            if self._stop:
                return
            self.reconnects += 1
            try:
                self._resp = self._open()
            except (OSError, RuntimeError) as exc:
                self.error = f"reconnection: {exc}"
                return

    def _read(self, resp: Any) -> None:
        name: str | None = None
        data: list[str] = []
        while not self._stop:
            raw = resp.readline()
            if not raw:
                return
            line = raw.decode("utf-8").rstrip("\r\n")
            if line == "":
                if name == "board" and data:
                    now = time.time()
                    obj = json.loads("\n".join(data))
                    self.seen.append((now, str(obj.get("board")), obj.get("game_id"),
                                      int(obj.get("lines") or 0)))
                self.events += 1
                name, data = None, []
            elif line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
            elif line.startswith("id:"):
                self.last_id = line[3:].strip()

    def stop(self) -> None:
        """Ends the stream: the socket shut down, the reader sees its end, then closed."""
        self._stop = True
        sock = self._conn.sock if self._conn is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.thread.join(5)
        if self._conn is not None:
            self._conn.close()


class ProcStats:
    """CPU seconds (user + system, every thread) and memory of a process, from /proc."""

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def cpu(self) -> float:
        with open(f"/proc/{self.pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def loop_cpu(self) -> float:
        """CPU seconds of the process's main thread alone (the hub's event loop, its MQTT link
        included; the others are the executor's: connecting, the replicas' fsyncs)."""
        with open(f"/proc/{self.pid}/task/{self.pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK

    def memory(self) -> tuple[float, float]:
        """(VmRSS, VmHWM) in MB: now and the peak."""
        out = {}
        with open(f"/proc/{self.pid}/status", encoding="ascii") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    out[key] = int(value.split()[0]) / 1024
        return out.get("VmRSS", 0.0), out.get("VmHWM", 0.0)


def read_times(paths: list[Path]) -> dict[tuple[str, str], dict[int, float]]:
    """The fleets' ``--times`` files: (board, game) -> line -> wall time of its publish."""
    out: dict[tuple[str, str], dict[int, float]] = defaultdict(dict)
    for p in paths:
        with open(p, encoding="utf-8") as f:
            for row in f:
                board, game, line, wall = row.rstrip("\n").split("\t")
                out[(board, game)].setdefault(int(line), float(wall))
    return out


def latencies(times: dict[tuple[str, str], dict[int, float]],
              seen: list[tuple[float, str, str | None, int]],
              since: float = 0.0) -> tuple[list[float], int]:
    """For every line published at or after ``since``: the time until the first ``board``
    event of its game whose ``lines`` reached it. Returns (latencies, lines never shown)."""
    by_game: dict[tuple[str, str], list[tuple[float, int]]] = defaultdict(list)
    for wall, board, game, held in seen:
        if game is not None:
            by_game[(board, game)].append((wall, held))
    out: list[float] = []
    unseen = 0
    for key, lines in times.items():
        events = by_game.get(key, [])
        reached: list[int] = []  # the most lines shown by each event or an earlier one
        for _, n in events:
            reached.append(max(n, reached[-1]) if reached else n)
        for number, wall in lines.items():
            if wall < since:
                continue
            i = bisect.bisect_left(reached, number)
            if i == len(reached):
                unseen += 1
            else:
                out.append(max(0.0, events[i][0] - wall))
    return out, unseen


def replica_lines(replica_dir: Path) -> int:
    """The journal lines the hub's replicas hold now (whole lines of every game)."""
    total = 0
    for path in replica_dir.glob("boards/*/games/*/trace.jsonl"):
        try:
            total += path.read_bytes().count(b"\n")
        except OSError:
            pass
    return total


def compare_replicas(boards_dir: Path, replica_dir: Path) -> tuple[int, int, int]:
    """Every board journal against the hub's replica: (journal lines, lines missing or
    different at the replica, games whose replica is not byte-equal)."""
    total = lost = games_bad = 0
    for journal in sorted(boards_dir.glob("*/games/*/trace.jsonl")):
        board, game = journal.parts[-4], journal.parts[-2]
        mine = journal.read_bytes().splitlines(keepends=True)
        replica = replica_dir / "boards" / board / "games" / game / "trace.jsonl"
        theirs = replica.read_bytes().splitlines(keepends=True) if replica.exists() else []
        total += len(mine)
        same = 0
        for a, b in zip(mine, theirs, strict=False):
            if a != b:
                break
            same += 1
        lost += len(mine) - same
        if mine != theirs:
            games_bad += 1
    return total, lost, games_bad


class StandInHub:
    """Not the hub: a subscriber that appends every in-order journal line to a replica and
    tells its arrival (as a ``board`` event with ``lines``) — the broker's share of the path,
    for developing the benchmark before ``damiera hub`` exists. It asks for no resend."""

    def __init__(self, port: int, hall: str, state_dir: Path) -> None:
        self.topics = protocol.Topics(hall)
        self.dir = state_dir
        self.seen: list[tuple[float, str, str | None, int]] = []
        self.held: dict[tuple[str, str], int] = defaultdict(int)
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-stand-in")
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.subscribe(self.topics.all_boards("journal"), 1)
        self.client.loop_start()
        self.pid = os.getpid()

    def _on_message(self, _c: Any, _u: Any, msg: Any) -> None:
        number, _ = protocol.parse_topic(self.topics, msg.topic)
        board = str(number)  # as the hall's pages name it
        j = protocol.parse_journal(msg.payload)
        key = (board, j.game_id)
        if j.line != self.held[key] + 1:
            return
        path = self.dir / "boards" / board / "games" / j.game_id / "trace.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab") as f:
            f.write(j.text.encode("utf-8") + b"\n")
        self.held[key] = j.line
        self.seen.append((time.time(), board, j.game_id, j.line))

    def stop(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()
