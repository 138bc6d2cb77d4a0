"""The hub's test rig: the hub in-process (its own event loop on a thread, HTTP on a free
loopback port) or as a ``damiera hub`` subprocess, and light boards that publish as a real board
does (``pi.hall.protocol``: retained status, journal lines with their numbers, resends answered
from their journal, actions journaled then acked). Nothing here reaches beyond 127.0.0.1."""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from collections.abc import Iterator, Mapping
from typing import Any, Callable

import paho.mqtt.client as mqtt

from pi.board.arbiter_request import check_arbiter_request
from pi.board.config import HttpSpec, parse_mqtt_url
from pi.hall import protocol as P
from pi.hall.errors import BadMessage
from pi.hall.hub import TICK
from pi.hall.hub_config import HubConfig
from pi.hall.signing import line_mac
from pi.hall.standings import DEFAULT_SCORING, Scoring

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "tests" / "traces"
SAMPLE = ROOT / "pi" / "samples" / "italian_sample.jsonl"
HALL = "testhall"


def trace_lines(path: Path, *, game: str, board: str, rnd: str = "1",
                white: str | None = None, black: str | None = None,
                **start_keys: object) -> list[str]:
    """A real trace as a board's journal: its start line given the board's id, round, board,
    players and start time (the keys ``pi.board.session.GameSession.begin`` adds), and any
    other ``start_keys`` (a ``time_control``)."""
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    start = json.loads(lines[0])
    start.update(id=game, board=int(board), round=rnd, started_at="2026-11-22T09:00:00Z",
                 site="Sala Roma", **start_keys)
    if white is not None:
        start["white"] = white
    if black is not None:
        start["black"] = black
    return [json.dumps(start)] + lines[1:]


def rig_key(board: int | str) -> bytes:
    """The signing key of board ``board`` in the rigs (derived: any board number has one)."""
    return hashlib.sha256(f"damiera test board key {board}".encode()).digest()


class RigKeys(Mapping[int, bytes]):
    """``hub.toml``'s ``[keys]`` for every board of the rigs: :func:`rig_key` of any board."""

    def __getitem__(self, board: int) -> bytes:
        if not isinstance(board, int) or not 1 <= board <= P.MAX_BOARD:
            raise KeyError(board)
        return rig_key(board)

    def __iter__(self) -> Iterator[int]:
        return iter(())

    def __len__(self) -> int:
        return 0


def rig_keys_toml(boards: range = range(1, 21)) -> str:
    """The ``[keys]`` table of a hub.toml for boards ``boards`` (the process tests)."""
    return "[keys]\n" + "".join(f'"{b}" = "{rig_key(b).hex()}"\n' for b in boards)


def wait(predicate: Callable[[], Any], timeout: float = 30.0, what: str = "condition",
         show: Callable[[], Any] | None = None) -> Any:
    """``predicate()`` once true (polled every 50 ms), or AssertionError after ``timeout`` s;
    ``show()``: what the failure prints of where things stood (a table's row, a state)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = predicate()
        if got:
            return got
        time.sleep(0.05)
    seen = "" if show is None else f"; last seen: {show()!r:.2000}"
    raise AssertionError(f"timed out waiting for {what}{seen}")


class FakeBoard:
    """A board on the broker: ``journals`` game id → journal lines (texts); ``publish_lines``
    sends some of them (the order and loss a test wants); resends are answered from the whole
    journal; actions are journaled and acked (``refuse`` makes it say no). Lines and status
    (and acks) are signed with :func:`rig_key` as a real board with a key signs them (``key`` None:
    unsigned, an old board)."""

    def __init__(self, url: str, board: str, hall: str = HALL,
                 key: bytes | None | bool = True) -> None:
        self.board = board
        self.key = rig_key(board) if key is True else (key or None)
        self._macs: dict[str, list[str]] = {}
        self._macs_lock = threading.Lock()
        self.topics = P.Topics(hall)
        self.journals: dict[str, list[str]] = {}
        self.current: str | None = None
        self.resends: list[P.Resend] = []
        self.commands: list[P.Command] = []
        self.answer = True
        self.refuse: str | None = None
        self.serve_resends = True
        spec = parse_mqtt_url(url, ValueError)
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=P.client_id(hall, board),
                        protocol=mqtt.MQTTv311, clean_session=False)
        c.will_set(self.topics.board(board, "status"), P.offline_payload(board), qos=1,
                   retain=True)
        c.on_connect = lambda cl, *a: cl.subscribe(self.topics.board(board, "cmd"), qos=1)
        c.on_message = self._on_message
        self._connected = threading.Event()
        c.on_subscribe = lambda *a: self._connected.set()
        c.connect(spec.host, spec.port)
        c.loop_start()
        self._connected.wait(10)
        self.client = c

    def add_game(self, game: str, lines: list[str]) -> None:
        with self._macs_lock:
            self.journals[game] = list(lines)
            self._macs.pop(game, None)
        self.current = game

    def status(self) -> None:
        games = [(g, len(lines), False) for g, lines in self.journals.items()]
        lines = len(self.journals[self.current]) if self.current else 0
        self.client.publish(self.topics.board(self.board, "status"),
                            P.status_payload(self.board, self.current, lines, games,
                                             session="0123abcd" if self.key else None,
                                             key=self.key),
                            qos=1, retain=True).wait_for_publish(5)

    def state(self, obj: dict[str, Any]) -> None:
        self.client.publish(self.topics.board(self.board, "state"), json.dumps(obj).encode(),
                            qos=1, retain=True).wait_for_publish(5)

    def publish_line(self, game: str, number: int) -> None:
        text = self.journals[game][number - 1]
        self.client.publish(self.topics.board(self.board, "journal"),
                            P.journal_payload(game, number, text, self.mac(game, number)),
                            qos=1)

    def mac(self, game: str, number: int) -> str | None:
        """The mac of line ``number`` of ``game`` (None without a key). Made under a lock: the
        test's thread publishes lines while paho's serves a resend (two threads extending the
        chain at once appended one mac twice, and the next line's mac was its predecessor's)."""
        if self.key is None:
            return None
        with self._macs_lock:
            macs = self._macs.setdefault(game, [])
            journal = self.journals[game]
            while len(macs) < number:
                n = len(macs) + 1
                macs.append(line_mac(self.key, game, n, journal[n - 1],
                                     macs[-1] if macs else ""))
            return macs[number - 1]

    def publish_lines(self, game: str, numbers: list[int] | range | None = None) -> None:
        for n in numbers if numbers is not None else range(1, len(self.journals[game]) + 1):
            self.publish_line(game, n)

    def raw(self, leaf: str, payload: bytes) -> None:
        self.client.publish(self.topics.board(self.board, leaf), payload, qos=1)

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            cmd = P.parse_command(msg.payload)
        except BadMessage:
            return
        if isinstance(cmd, P.Resend):
            self.resends.append(cmd)
            if self.serve_resends and cmd.game_id in self.journals:
                for n in range(cmd.start, len(self.journals[cmd.game_id]) + 1):
                    self.publish_line(cmd.game_id, n)
            return
        self.commands.append(cmd)
        if not self.answer:
            return
        if self.refuse is not None:
            client.publish(self.topics.board(self.board, "ack"),
                           P.ack_payload(P.Ack(cmd.id, False, error=self.refuse), self.key),
                           qos=1)
            return
        line = None
        if cmd.action is not None and self.current is not None:
            journal = self.journals[self.current]
            last_t = max((json.loads(t).get("t", 0.0) for t in journal[1:]), default=0.0)
            action = check_arbiter_request(cmd.action).to_dict()  # as a board journals it
            journal.append(json.dumps({"t": last_t, "type": "arbiter", **action}))
            line = len(journal)
            self.publish_line(self.current, line)
        client.publish(self.topics.board(self.board, "ack"),
                       P.ack_payload(P.Ack(cmd.id, True, line), self.key), qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


class HubRig:
    """The hub in-process: ``with HubRig(dir, url) as rig: rig.get("/api/hall")``."""

    def __init__(self, state_dir: Path, url: str, *, delay: float = 0.0,
                 event: str | None = "Test Open", hall: str = HALL,
                 read_back: bool = True, standings: Scoring = DEFAULT_SCORING,
                 tick: float = TICK) -> None:
        spec = parse_mqtt_url(url, ValueError)
        from dataclasses import replace
        self.config = HubConfig(hall=hall, event=event, broadcast_delay=delay,
                                http=HttpSpec("127.0.0.1", 0), state_dir=Path(state_dir),
                                mqtt=replace(spec, hall=hall), keys=RigKeys(),
                                standings=standings)
        self.app: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self.error: BaseException | None = None
        #: the rig's start waits for the hub's games read back (else the test watches it)
        self.read_back = read_back
        self._marks = 0  # sent_all_to's
        #: seconds between two ticks of the hub (HubApp's ``tick``: a round's clocks started,
        #: resends retried); production's (TICK) unless a test waits for ticks
        self.tick = tick

    def __enter__(self) -> HubRig:
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        if not self._ready.wait(20) or self.error is not None:
            raise RuntimeError(f"the hub did not start: {self.error}")
        self.port = self.app.port
        self.token = self.app.hub.token
        if not self.app.link.subscribed.wait(20):
            raise RuntimeError("the hub did not subscribe")
        # a restarted hub answers at once and reads its live games back meanwhile: the rig's
        # tests begin once it says it has (HUB_API.md, reading_back)
        if self.read_back:
            wait(lambda: self.json("GET", "/api/hall")[1]["reading_back"] is None,
                 what="the hub's games read back")
        return self

    def _run(self) -> None:
        from pi.hall.hub_run import HubApp

        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self.app = HubApp(self.config, tick=self.tick)
            await self.app.start()
            self._ready.set()
            try:
                await self._stop.wait()
            finally:
                await self.app.stop()
        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - reported to the test's thread
            self.error = exc
            self._ready.set()

    def __exit__(self, *exc: object) -> None:
        if self.loop is not None and self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self.thread.join(20)

    def call(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` on the hub's loop (its state is the loop's), its answer here."""
        assert self.loop is not None

        async def run() -> Any:
            return fn()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(10)

    @property
    def hub(self) -> Any:
        return self.app.hub

    def sent_all_to(self, board: FakeBoard) -> None:
        """Returns once ``board`` has had all the hub sent it so far (what a test says was not
        sent, it can then say without a sleep): the hub's MQTT client sends a mark after it on
        the board's ``cmd`` topic — a resend of a game nobody has, which the board records and
        ignores — and the broker keeps their order (QoS 1, one publisher)."""
        self._marks += 1
        mark = f"2000-01-01T0000-b{int(board.board)}-{self._marks:09d}"
        topic = P.Topics(self.config.hall).board(int(board.board), "cmd")
        self.call(lambda: self.app.link.publish(topic, P.resend_payload(mark, 1)))
        wait(lambda: any(r.game_id == mark for r in board.resends), what="the hub's mark")

    def held(self, board: int | str, game: str) -> int:
        """Lines of ``game`` the hub holds of board ``board`` (its number, or a
        :class:`FakeBoard`'s text of it)."""
        return int(self.call(lambda: self.hub.replica.held(int(board), game)))

    def request(self, method: str, path: str, body: Any = None, *, token: str | None = None,
                headers: dict[str, str] | None = None, raw: bytes | None = None,
                timeout: float = 15.0) -> tuple[int, dict[str, str], bytes]:
        return request(self.port, method, path, body, token=token, headers=headers, raw=raw,
                       timeout=timeout)

    def json(self, method: str, path: str, body: Any = None, **kw: Any) -> tuple[int, Any]:
        status, _, data = self.request(method, path, body, **kw)
        return status, json.loads(data) if data else None


def request(port: int, method: str, path: str, body: Any = None, *, token: str | None = None,
            headers: dict[str, str] | None = None, raw: bytes | None = None,
            timeout: float = 15.0) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    h = dict(headers or {})
    if token is not None:
        h["Authorization"] = f"Bearer {token}"
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    if data is not None:
        h.setdefault("Content-Type", "application/json")
    try:
        conn.request(method, path, body=data, headers=h)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def hub_process(state_dir: Path, url: str, port: int, hall: str = HALL,
                env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """``damiera hub`` as a subprocess (for kill -9), with a hub.toml naming the hall; ``env``:
    more of its environment (systemd's NOTIFY_SOCKET and WATCHDOG_USEC)."""
    conf = Path(state_dir).parent / f"hub-{port}.toml"
    conf.write_text(f'hall = "{hall}"\nevent = "Test Open"\n[mqtt]\nurl = "{url}"\n'
                    + rig_keys_toml(), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    # its output into a file beside the configuration, never a pipe nobody reads while it runs
    # (a pipe fills at 64 KiB and the hub would block writing its log)
    with open(conf.with_suffix(".log"), "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "pi.cli", "hub", "--config", str(conf),
                                 "--http", f"127.0.0.1:{port}", "--state-dir", str(state_dir),
                                 "--quiet"], stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True)
