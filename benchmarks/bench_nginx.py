"""Spectators past the hall's network: nginx (Debian's, with libnginx-mod-nchan) in front of a
real hub, as ``damiera hub init --nginx`` configures it (issue 39). Figures only.

Run: ``.venv/bin/python benchmarks/bench_nginx.py --spectators 2000 --pollers 2000``
     (``--boards 5 --pace 40``: five boards, each publishing 40 journal lines a second)

The hall: ``damiera hub init --boards 1 --nginx`` in a temporary folder, only its ports and
nginx's folder moved by hub init's own options (``--web-listen``, ``--hub-http``,
``--nchan-port``, ``--nginx-root``: free loopback ports), TLS with the hall's certificate;
``nginx -c DIR/nginx.conf``; a private Mosquitto (tests/hall/broker.py); ``damiera hub --config
DIR/hub.toml`` on that broker, the boards taken unsigned; boards publishing a recorded game's
journal (pi/samples/italian_sample.jsonl) line by line at ``--pace``.

The same play three times, each board a new game of round 1: a warm-up, then with ``--few``
spectators and pollers (default 10 each), then with the many. Spectators are EventSource
clients over nginx, half on the hall page's stream (``/events``), half on the boards'
(``/boards/<N>/events``), all connected before the play; pollers fetch the round's PDN
(``/rounds/1/games.pdn``) or a board's (``/boards/<N>/game.pdn``) once a second with
``If-None-Match``, as a broadcast site polls. Printed per run: the hub's CPU seconds over the
play and its delivery (its process's ``/proc/<pid>/stat``), nginx's, the spectators that
received every move (a board page: a ``move`` event for each ply of the game; the hall page:
each board's last summary at the game's last ply), the time from the journal line of the
game's last move to each spectator having every move, and the pollers' answers (200, 304) and their p50/p99.

One asyncio process opens every spectator's and poller's connection: its limit on open files
is raised first (``RLIMIT_NOFILE``), as nginx's is by its configuration.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import aiohttp

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "hall")]

from broker import Broker, free_port

from engine.replay import Replay
from pi.board.config import parse_mqtt_url
from pi.board.statedir import make_game_id
from pi.hall import protocol

#: The recorded game every board plays (a real trace: its physical events, as a board journals
#: them).
SAMPLE = ROOT / "pi" / "samples" / "italian_sample.jsonl"

HALL = "hall"
#: Board numbers of the play: beyond hub init's one board (whose lines must be signed).
FIRST_BOARD = 101
#: Seconds after the play that the hub's CPU is still counted (its last lines' delivery).
SETTLE = 2.0
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
NCHAN_MODULE = Path("/usr/lib/nginx/modules/ngx_nchan_module.so")


class Board:
    """A board on the broker publishing its journal's lines (``protocol.journal_payload``,
    unsigned), as ``damiera run`` does; QoS 1, its own client id."""

    def __init__(self, url: str, board: int) -> None:
        self.board = str(board)  # as the rig's URLs and journals name it
        self.topic = protocol.Topics(HALL).board(board, "journal")
        spec = parse_mqtt_url(url, ValueError)
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2,
                                  client_id=protocol.client_id(HALL, board),
                                  protocol=mqtt.MQTTv311, clean_session=False)
        self.client.connect(spec.host, spec.port)
        self.client.loop_start()

    def publish(self, game: str, number: int, text: str) -> None:
        self.client.publish(self.topic, protocol.journal_payload(game, number, text), qos=1)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def journal(game: str, board: str, lines: int) -> list[str]:
    """The sample's first ``lines`` journal lines as board ``board``'s game ``game`` of round 1
    (its start line given the id, board and round a board's session writes)."""
    texts = [t for t in SAMPLE.read_text(encoding="utf-8").splitlines() if t.strip()][:lines]
    start = json.loads(texts[0])
    start.update(id=game, board=int(board), round="1", started_at="2026-11-22T09:00:00Z")
    return [json.dumps(start), *texts[1:]]


def raise_open_files(want: int) -> int:
    """This process's soft limit on open files raised to ``want`` (at most the hard limit);
    returns the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(want, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (``/proc/<pid>/stat``)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def nginx_pids(pid_file: Path) -> list[int]:
    """nginx's master and its workers."""
    master = int(pid_file.read_text().split()[0])
    children = Path(f"/proc/{master}/task/{master}/children")
    return [master, *(int(p) for p in children.read_text().split())]


@dataclass
class Rig:
    """nginx + nchan, Mosquitto and the hub, as module docstring says; :meth:`close` stops
    them and removes the folder."""

    root: Path
    boards: list[str]
    web_port: int = 0
    hub_port: int = 0
    broker: Broker | None = None
    hub: subprocess.Popen[bytes] | None = None
    fakes: list[Board] = field(default_factory=list)
    nginx_started: bool = False
    #: games played on each board so far (the next game's sequence number)
    played: int = 0

    @property
    def hall_dir(self) -> Path:
        return self.root / "hall"

    @property
    def nginx_root(self) -> Path:
        return self.root / "nginx"

    @property
    def base(self) -> str:
        return f"https://127.0.0.1:{self.web_port}"

    def ssl_context(self) -> ssl.SSLContext:
        """The spectators' TLS: the hall's CA trusted (nginx serves the hall's certificate)."""
        return ssl.create_default_context(cafile=str(self.hall_dir / "hall-ca.crt"))

    @classmethod
    def start(cls, boards: int) -> Rig:
        root = Path(tempfile.mkdtemp(prefix="bench-nginx-"))
        os.chmod(root, 0o755)  # nginx's workers (www-data) reach its cache and temporary files
        rig = cls(root, [str(FIRST_BOARD + i) for i in range(boards)])
        try:
            rig._start()
        except BaseException:
            rig.close()
            raise
        return rig

    def _start(self) -> None:
        self.web_port, self.hub_port, nchan_port = free_port(), free_port(), free_port()
        init = subprocess.run(
            [sys.executable, "-m", "pi.cli", "hub", "init", "--boards", "1", "--dir",
             str(self.hall_dir), "--host", "127.0.0.1", "--nginx",
             "--web-listen", f"127.0.0.1:{self.web_port}",
             "--hub-http", f"127.0.0.1:{self.hub_port}", "--nchan-port", str(nchan_port),
             "--nginx-root", str(self.nginx_root)],
            cwd=ROOT, capture_output=True, text=True, timeout=120)
        if init.returncode != 0:
            raise RuntimeError(f"damiera hub init failed: {init.stderr.strip()}")
        conf = self.hall_dir / "nginx.conf"
        started = subprocess.run([NGINX, "-c", str(conf)], capture_output=True, text=True,
                                 timeout=60)
        if started.returncode != 0:
            raise RuntimeError(f"nginx did not start: {started.stderr.strip()}")
        self.nginx_started = True
        self.broker = Broker(self.root)
        self.broker.start()
        state = self.root / "hub"
        self.hub = subprocess.Popen(
            [sys.executable, "-m", "pi.cli", "hub", "--config", str(self.hall_dir / "hub.toml"),
             "--mqtt", self.broker.url, "--http", f"127.0.0.1:{self.hub_port}",
             "--state-dir", str(state), "--quiet",
             *(a for b in self.boards for a in ("--accept-unsigned", b))],
            cwd=ROOT, stdin=subprocess.DEVNULL, stderr=open(self.root / "hub.log", "wb"))
        deadline = time.monotonic() + 60
        while not self._answers():
            if time.monotonic() > deadline or self.hub.poll() is not None:
                raise RuntimeError(f"the hub did not answer through nginx: "
                                   f"{(self.root / 'hub.log').read_text()[-2000:]}")
            time.sleep(0.2)
        self.fakes = [Board(self.broker.url, FIRST_BOARD + i) for i in range(len(self.boards))]

    def _answers(self) -> bool:
        async def ask() -> bool:
            try:
                async with aiohttp.ClientSession() as s, s.get(
                        f"{self.base}/api/hall", ssl=self.ssl_context(),
                        timeout=aiohttp.ClientTimeout(total=2)) as r:
                    return r.status == 200
            except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
                return False
        return asyncio.run(ask())

    def hub_cpu(self) -> float:
        assert self.hub is not None
        return cpu_seconds(self.hub.pid)

    def nginx_cpu(self) -> float:
        return sum(cpu_seconds(p) for p in nginx_pids(self.nginx_root / "nginx.pid"))

    def close(self) -> None:
        for fake in self.fakes:
            fake.close()
        if self.hub is not None:
            self.hub.send_signal(signal.SIGTERM)
            try:
                self.hub.wait(15)
            except subprocess.TimeoutExpired:
                self.hub.kill()
                self.hub.wait()
        if self.broker is not None:
            self.broker.stop()
        if self.nginx_started:
            subprocess.run([NGINX, "-c", str(self.hall_dir / "nginx.conf"), "-s", "quit"],
                           capture_output=True, timeout=30)
            pid_file = self.nginx_root / "nginx.pid"
            deadline = time.monotonic() + 10
            while pid_file.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
        shutil.rmtree(self.root, ignore_errors=True)


@dataclass
class Spectator:
    """One EventSource over nginx: a board page's (``board``) or the hall page's (None)."""

    board: str | None
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    #: the plies of the ``move`` events since the state of the game shown
    plies: set[int] = field(default_factory=set)
    #: the hall page's: board → its newest summary's (game_id, moves)
    summaries: dict[str, tuple[str | None, int]] = field(default_factory=dict)
    #: board page: the game of the newest state
    game: str | None = None
    done_at: float | None = None
    error: str | None = None
    #: the round's games and their plies, once known: each event then checks for the last move
    target: tuple[dict[str, str], int] | None = None

    def check(self) -> None:
        """``done_at`` stamped when the page has every move of the round's games."""
        if self.done_at is None and self.target is not None and self.has(*self.target):
            self.done_at = time.monotonic()

    def has(self, games: dict[str, str], plies: int) -> bool:
        """Every move of the round's games, as the page shows them."""
        if self.board is None:
            return all(self.summaries.get(b) == (g, plies) for b, g in games.items())
        return self.game == games[self.board] and len(self.plies) >= plies and \
            set(range(1, plies + 1)) <= self.plies


async def follow(session: aiohttp.ClientSession, url: str, who: Spectator,
                 games: dict[str, str], stop: asyncio.Event, ctx: ssl.SSLContext) -> None:
    """Reads ``url``'s events as a browser's EventSource does, until ``stop``."""
    try:
        async with session.get(url, ssl=ctx, headers={"Accept": "text/event-stream"},
                               timeout=aiohttp.ClientTimeout(total=None, sock_read=None)) as r:
            if r.status != 200:
                who.error = f"HTTP {r.status}"
                who.connected.set()
                return
            who.connected.set()
            name, data = "message", ""
            async for raw in r.content:
                line = raw.decode("utf-8").rstrip("\r\n")
                if line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data: "):
                    data = line[6:]
                elif not line:
                    if data:
                        try:
                            _take(who, name, data, games)
                            who.check()
                        except (ValueError, KeyError, TypeError) as exc:
                            who.error = f"event {name} {data[:80]!r}: {exc!r}"
                    name, data = "message", ""
                if stop.is_set():
                    return
    except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as exc:
        who.error = str(exc) or type(exc).__name__
        who.connected.set()


#: A state's game (its first ``game_id``: the lists, where others could be, come last).
GAME_ID = re.compile(r'"game_id":("[^"]*"|null)')


def _take(who: Spectator, name: str, data: str, games: dict[str, str]) -> None:
    """One event as the page takes it (a state's game read without decoding the whole
    state: thousands of spectators each get every line's)."""
    if name == "state":
        m = GAME_ID.search(data)
        game = json.loads(m.group(1)) if m else None
        if game != who.game:  # another game: its moves count from here
            who.plies = set()
            who.game = game
        return
    if name not in ("board", "move"):
        return
    obj = json.loads(data)
    if name == "board" and who.board is None:
        who.summaries[str(obj["board"])] = (obj.get("game_id"), int(obj.get("moves") or 0))
    elif name == "move" and not obj.get("retracted") and obj.get("ply") is not None:
        who.plies.add(int(obj["ply"]))


@dataclass
class Poller:
    statuses: dict[int, int] = field(default_factory=dict)
    times: list[float] = field(default_factory=list)
    errors: int = 0


async def poll(session: aiohttp.ClientSession, url: str, who: Poller, stop: asyncio.Event,
               every: float, ctx: ssl.SSLContext, offset: float) -> None:
    """``url`` every ``every`` seconds with the last ``ETag`` (a broadcast site's poller); the
    first at once, the next ``offset`` seconds later (the pollers spread over the interval)."""
    etag: str | None = None
    first = True
    while not stop.is_set():
        began = time.monotonic()
        try:
            async with session.get(url, ssl=ctx, headers={"If-None-Match": etag} if etag
                                   else {}, timeout=aiohttp.ClientTimeout(total=30)) as r:
                await r.read()
                who.statuses[r.status] = who.statuses.get(r.status, 0) + 1
                etag = r.headers.get("ETag", etag)
            who.times.append(time.monotonic() - began)
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
            who.errors += 1
        pause = offset if first else every - (time.monotonic() - began)
        first = False
        try:
            await asyncio.wait_for(stop.wait(), max(0.0, pause))
        except asyncio.TimeoutError:
            pass


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]


@dataclass
class Played:
    """A play's times (``time.monotonic()``) and the CPU seconds of its window."""

    began: float
    last_move: float
    ended: float
    hub_cpu: float
    nginx_cpu: float


def play(rig: Rig, games: dict[str, str], journals: dict[str, list[str]], pace: float,
         last_move: int) -> Played:
    """Every board's journal published line by line at ``pace`` lines a second, on the
    caller's thread (at its pace whatever the spectators' loop has to do); the hub's and
    nginx's CPU over the play and :data:`SETTLE` seconds after it, the same window for every
    run."""
    hub0, nginx0 = rig.hub_cpu(), rig.nginx_cpu()
    began = last = time.monotonic()
    count = len(journals[rig.boards[0]])
    for n in range(1, count + 1):
        for board in rig.fakes:
            board.publish(games[board.board], n, journals[board.board][n - 1])
        if n == last_move:
            last = time.monotonic()
        time.sleep(max(0.0, began + n / pace - time.monotonic()))
    ended = time.monotonic()
    time.sleep(max(0.0, ended + SETTLE - time.monotonic()))
    return Played(began, last, ended, rig.hub_cpu() - hub0, rig.nginx_cpu() - nginx0)


def plies_of(journal: list[str]) -> tuple[int, int]:
    """The game's plies and the journal line that makes the last (the engine's replay)."""
    replay = Replay.read(journal)
    at = [len(replay.arbiter.game.moves) for _ in replay]
    return at[-1], at.index(at[-1]) + 1


async def one_run(rig: Rig, spectators: int, pollers: int, pace: float, lines: int,
                  label: str, every: float = 5.0) -> dict[str, Any]:
    """One play of the sample game on every board (a new game each), ``spectators`` and
    ``pollers`` over nginx; the figures."""
    rig.played += 1
    now = datetime.now(timezone.utc)
    games = {b: make_game_id(now, rig.played, int(b)) for b in rig.boards}
    journals = {b: journal(g, b, lines) for b, g in games.items()}
    plies, last_move = plies_of(journals[rig.boards[0]])
    ctx = rig.ssl_context()
    connector = aiohttp.TCPConnector(limit=0, ssl=ctx)
    stop = asyncio.Event()
    watchers = [Spectator(None if i % 2 else rig.boards[(i // 2) % len(rig.boards)])
                for i in range(spectators)]
    async with aiohttp.ClientSession(connector=connector) as session:
        tasks = [asyncio.ensure_future(follow(
            session, f"{rig.base}/events" if w.board is None
            else f"{rig.base}/boards/{w.board}/events", w, games, stop, ctx))
            for w in watchers]
        await asyncio.wait_for(asyncio.gather(*(w.connected.wait() for w in watchers)), 120)
        polls = [Poller() for _ in range(pollers)]
        feeds = [f"{rig.base}/rounds/1/games.pdn",
                 *(f"{rig.base}/boards/{b}/game.pdn" for b in rig.boards)]
        poll_tasks = [asyncio.ensure_future(poll(session, feeds[i % len(feeds)], p, stop, every,
                                                 ctx, every * i / max(1, pollers)))
                      for i, p in enumerate(polls)]
        # every poller's first request and connection made
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and any(not p.statuses and not p.errors
                                                  for p in polls):
            await asyncio.sleep(0.1)
        for w in watchers:
            w.target = (games, plies)
        count = len(journals[rig.boards[0]])
        played = await asyncio.get_running_loop().run_in_executor(
            None, play, rig, games, journals, pace, last_move)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(
                w.done_at is None and w.error is None for w in watchers):
            await asyncio.sleep(0.1)
        stop.set()
        for t in [*tasks, *poll_tasks]:
            t.cancel()
        await asyncio.gather(*tasks, *poll_tasks, return_exceptions=True)
    complete = [w for w in watchers if w.has(games, plies)]
    kinds = {"board pages": [w for w in watchers if w.board is not None],
             "hall pages": [w for w in watchers if w.board is None]}
    lags = [w.done_at - played.last_move for w in complete if w.done_at is not None]
    times = [t for p in polls for t in p.times]
    statuses: dict[int, int] = {}
    for p in polls:
        for code, n in p.statuses.items():
            statuses[code] = statuses.get(code, 0) + n
    return {"label": label, "spectators": spectators, "pollers": pollers,
            "boards": len(rig.boards), "lines": count, "plies": plies,
            "play": played.ended - played.began, "window": SETTLE + played.ended - played.began,
            "hub_cpu": played.hub_cpu, "nginx_cpu": played.nginx_cpu,
            "complete": len(complete),
            "incomplete": {k: sum(1 for w in ws if not w.has(games, plies))
                           for k, ws in kinds.items()},
            "errors": sum(1 for w in watchers if w.error),
            "lag_max": max(lags) if lags else float("nan"),
            "lag_p50": statistics.median(lags) if lags else float("nan"),
            "polls": sum(statuses.values()), "statuses": statuses,
            "poll_errors": sum(p.errors for p in polls),
            "poll_p50": percentile(times, 50) * 1000, "poll_p99": percentile(times, 99) * 1000,
            "load": os.getloadavg()[0]}


def show(r: dict[str, Any]) -> None:
    print(f"{r['label']}: {r['spectators']} spectators, {r['pollers']} pollers, "
          f"{r['boards']} boards x {r['lines']} journal lines ({r['plies']} plies) in "
          f"{r['play']:.1f} s; load average {r['load']:.1f} on {os.cpu_count()} cores")
    print(f"  hub CPU {r['hub_cpu']:.2f} s over the play and {SETTLE:.0f} s after it "
          f"({r['window']:.1f} s); nginx {r['nginx_cpu']:.2f} s")
    print(f"  spectators with every move: {r['complete']} of {r['spectators']} "
          f"({r['errors']} errors; missing some: {r['incomplete']}); the last move's line to "
          f"the page: p50 {r['lag_p50'] * 1000:.0f} ms, max {r['lag_max'] * 1000:.0f} ms")
    codes = ", ".join(f"{c}: {n}" for c, n in sorted(r["statuses"].items()))
    print(f"  feed polls: {r['polls']} ({codes}; {r['poll_errors']} errors), "
          f"p50 {r['poll_p50']:.1f} ms, p99 {r['poll_p99']:.1f} ms")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--spectators", type=int, default=2000)
    p.add_argument("--pollers", type=int, default=2000)
    p.add_argument("--few", type=int, default=10, help="spectators and pollers of the run "
                   "compared with (default 10)")
    p.add_argument("--boards", type=int, default=5)
    p.add_argument("--pace", type=float, default=40.0, help="journal lines a second per board")
    p.add_argument("--lines", type=int, default=220, help="journal lines of the game played "
                   "(default: the whole sample, 220)")
    p.add_argument("--poll-every", type=float, default=5.0, metavar="SECONDS",
                   help="each poller's interval (default 5)")
    p.add_argument("--json", action="store_true", help="the figures as JSON lines too")
    args = p.parse_args()
    if not NCHAN_MODULE.exists() or shutil.which(NGINX) is None:
        print("nginx and libnginx-mod-nchan are needed (make system-deps)", file=sys.stderr)
        return 2
    files = raise_open_files(2 * (args.spectators + args.pollers) + 1024)
    print(f"bench_nginx: this process's limit on open files {files}")
    rig = Rig.start(args.boards)
    try:
        results = []
        for label, n in (("warm-up", args.few), ("few", args.few), ("many", args.spectators)):
            pollers = args.few if label != "many" else args.pollers
            r = asyncio.run(one_run(rig, n, pollers, args.pace, args.lines, label,
                                    args.poll_every))
            results.append(r)
            show(r)
            if args.json:
                print(json.dumps(r))
        few, many = results[1], results[2]
        print(f"hub CPU with {many['spectators']} spectators and {many['pollers']} pollers: "
              f"{many['hub_cpu']:.2f} s, with {few['spectators']} and {few['pollers']}: "
              f"{few['hub_cpu']:.2f} s (ratio {many['hub_cpu'] / max(few['hub_cpu'], 1e-9):.2f})")
    finally:
        rig.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
