"""Many light boards (:class:`hardware_mocks.hall_boards.LightBoard`) in one thread.

Each board has its own paho client — fixed client id ``damiera-<hall>-board-<N>``, persistent
session (MQTT 3.1.1 ``clean_session`` false), its retained will on ``status``, its ``cmd``
subscribed at QoS 1 — as a real board's link has (``pi/hall/PROTOCOL.md``). Instead of a
network thread per client (200 threads fighting for the GIL), every client is driven from one
``selectors`` loop with paho's external-loop calls (``loop_read``/``loop_write``/``loop_misc`` and
the ``on_socket_*`` callbacks); the boards' timed events run in the same loop from a heap of due
times. A lost or refused connection is retried every ``retry`` seconds; what a board publishes
meanwhile waits in paho's queue and its journal (the hub's resend fetches anything lost).

``python -m hardware_mocks.hall_fleet --mqtt URL --boards 1-50 --dir DIR [--pace 10]`` runs a
fleet until SIGTERM/SIGINT or ``--seconds``; ``--hall-dir HALL`` instead of ``--mqtt``: a hall
made by ``damiera hub init``, each board logging in as its ``HALL/board-<N>.toml`` says (the
broker's URL with its user and password, the hall's CA for TLS, its signing key, the hall's
name: :func:`hall_specs`); ``--times FILE`` gets one line
``board<TAB>game<TAB>line<TAB>wall`` per published journal line (the benchmark's start of
latency). The boards' journals are ``DIR/<N>/games/<id>/trace.jsonl``.
"""

from __future__ import annotations

import argparse
import heapq
import json
import logging
import math
import re
import resource
import selectors
import signal
import socket
import ssl
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from hardware_mocks.hall_boards import LightBoard, OnLine
from pi.board.config import MqttSpec, load_config
from pi.board.errors import ConfigError
from pi.hall import protocol

log = logging.getLogger(__name__)

__all__ = ["Fleet", "parse_boards", "hall_specs", "hall_fleet", "main"]


class _Link:
    """One board's paho client and its connection's state."""

    def __init__(self, fleet: Fleet, board: LightBoard, spec: MqttSpec, keepalive: int) -> None:
        self.fleet = fleet
        self.board = board
        self.host, self.port, self.keepalive = spec.host, spec.port, keepalive
        self.up = False
        self.retry_at = 0.0
        c = mqtt.Client(CallbackAPIVersion.VERSION2,
                        client_id=protocol.client_id(board.topics.hall, board.number),
                        clean_session=False, protocol=mqtt.MQTTv311)
        if spec.username is not None:
            c.username_pw_set(spec.username, spec.password)
        if spec.tls:
            c.tls_set(ca_certs=None if spec.ca is None else str(spec.ca),
                      cert_reqs=ssl.CERT_REQUIRED)
        c.max_inflight_messages_set(100)
        c.will_set(board.topic("status"), protocol.offline_payload(board.number), qos=1,
                   retain=True)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.on_socket_open = lambda _c, _u, sock: fleet.watch(sock, self)
        c.on_socket_close = lambda _c, _u, sock: fleet.unwatch(sock)
        c.on_socket_register_write = lambda _c, _u, sock: fleet.want_write(sock, self, True)
        c.on_socket_unregister_write = lambda _c, _u, sock: fleet.want_write(sock, self, False)
        c.on_publish = self._on_publish
        c.connect_async(spec.host, spec.port, keepalive)
        self.client = c
        self.unacked = 0  # QoS 1 messages published and not yet acknowledged by the broker
        board.attach(self._publish)

    def _publish(self, topic: str, payload: bytes, retained: bool) -> None:
        self.unacked += 1
        self.client.publish(topic, payload, qos=1, retain=retained)

    def _on_publish(self, _c: Any, _u: Any, _mid: Any, _r: Any, _p: Any) -> None:
        self.unacked -= 1

    def connect(self, now: float) -> None:
        self.retry_at = now + self.fleet.retry
        try:
            self.client.reconnect()
        except OSError as exc:
            log.debug("board %s: cannot connect: %s", self.board.name, exc)

    def _on_connect(self, client: Any, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            log.warning("board %s: connection refused: %s", self.board.name, reason)
            return
        self.up = True
        client.subscribe(self.board.topic("cmd"), qos=1)
        self.board.connected()

    def _on_disconnect(self, _c: Any, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        self.up = False
        self.retry_at = time.time() + self.fleet.retry

    def _on_message(self, _c: Any, _u: Any, msg: Any) -> None:
        self.board.on_command(msg.payload, time.time())


class Fleet:
    """Boards driven from one thread (module docstring). ``url``: ``mqtt://host:port``, every
    board anonymous; or ``specs``: each board's broker, user, password and CA by its number
    (:func:`hall_specs`). Raises ValueError for a URL that is not ``mqtt://host[:port]`` or a
    board without a spec."""

    def __init__(self, url: str | None, boards: Sequence[LightBoard], *, keepalive: int = 30,
                 retry: float = 1.0, specs: Mapping[int, MqttSpec] | None = None) -> None:
        if specs is None:
            parts = urlsplit(url or "")
            if parts.scheme != "mqtt" or not parts.hostname:
                raise ValueError(f"expected mqtt://host[:port], got {url!r}")
            anonymous = MqttSpec(f"mqtt://{parts.netloc}", parts.hostname, parts.port or 1883,
                                 False, "", None)
            specs = {b.number: anonymous for b in boards}
        missing = [b.number for b in boards if b.number not in specs]
        if missing:
            raise ValueError(f"no broker given for board {missing[0]}")
        self.retry = retry
        self.selector = selectors.DefaultSelector()
        self.links = [_Link(self, b, specs[b.number], keepalive) for b in boards]
        self.stopping = False
        #: :meth:`stop` (another thread) wakes the loop's select through this pair at once
        self._wake_in, self._wake_out = socket.socketpair()
        self._wake_in.setblocking(False)
        self._wake_out.setblocking(False)
        self.selector.register(self._wake_in, selectors.EVENT_READ, None)

    # -- the selector ----------------------------------------------------------------------
    def watch(self, sock: Any, link: _Link) -> None:
        try:
            self.selector.register(sock, selectors.EVENT_READ, link)
        except KeyError:
            self.selector.modify(sock, selectors.EVENT_READ, link)

    def unwatch(self, sock: Any) -> None:
        try:
            self.selector.unregister(sock)
        except (KeyError, ValueError):
            pass

    def want_write(self, sock: Any, link: _Link, on: bool) -> None:
        mask = selectors.EVENT_READ | (selectors.EVENT_WRITE if on else 0)
        try:
            self.selector.modify(sock, mask, link)
        except (KeyError, ValueError):
            pass

    # -- the loop ---------------------------------------------------------------------------
    def run(self, until: float = math.inf) -> None:
        """Runs every board until wall time ``until`` or :meth:`stop`, then flushes what paho
        still holds (at most 5 s) and disconnects."""
        now = time.time()
        for link in self.links:
            link.connect(now)
        heap = [(link.board.due(), i) for i, link in enumerate(self.links)]
        heapq.heapify(heap)
        misc_at = now + 1.0
        while not self.stopping and now < until:
            wait = min(heap[0][0] if heap else math.inf, misc_at, until) - now
            self._poll(max(0.0, min(wait, 0.5)))
            now = time.time()
            while heap and heap[0][0] <= now:
                _, i = heapq.heappop(heap)
                board = self.links[i].board
                board.run_due(now)
                heapq.heappush(heap, (board.due(), i))
            if now >= misc_at:
                misc_at = now + 1.0
                for link in self.links:
                    if link.client.socket() is not None:
                        link.client.loop_misc()
                    elif now >= link.retry_at:
                        link.connect(now)
        self._drain(5.0)
        for link in self.links:
            link.client.disconnect()
            if link.client.socket() is not None:
                link.client.loop_write()
        self.selector.unregister(self._wake_in)
        self._wake_in.close()
        self._wake_out.close()

    def _poll(self, timeout: float) -> None:
        for key, mask in self.selector.select(timeout):
            if key.data is None:  # stop()'s wake-up: the loop sees ``stopping`` now
                try:
                    self._wake_in.recv(64)
                except OSError:
                    pass
                continue
            link: _Link = key.data
            if mask & selectors.EVENT_READ:
                link.client.loop_read()
            if mask & selectors.EVENT_WRITE and link.client.socket() is not None:
                link.client.loop_write()

    def _drain(self, seconds: float) -> None:
        end = time.time() + seconds
        while time.time() < end and any(link.up and link.unacked > 0
                                                             for link in self.links):
            self._poll(0.05)

    def stop(self) -> None:
        self.stopping = True
        try:
            self._wake_out.send(b"\0")
        except OSError:  # its buffer full of wake-ups already, or the fleet closed
            pass


_RANGE = re.compile(r"(\d{1,4})(?:-(\d{1,4}))?")


def parse_boards(text: str) -> list[int]:
    """``1-50,60,70-72`` → the board numbers. Raises ValueError."""
    out: list[int] = []
    for part in text.split(","):
        m = _RANGE.fullmatch(part.strip())
        if m is None:
            raise ValueError(f"--boards: expected numbers and ranges like 1-50,60, got {text!r}")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else a
        if b < a:
            raise ValueError(f"--boards: range {part!r} goes backwards")
        out.extend(range(a, b + 1))
    return out


def hall_specs(hall_dir: Path, numbers: Sequence[int]) -> dict[int, MqttSpec]:
    """Each board's broker, user, password, CA, signing key and hall from
    ``hall_dir/board-<N>.toml`` (written by ``damiera hub init``). Raises ConfigError (one
    line: a file missing or not a hall board's)."""
    out: dict[int, MqttSpec] = {}
    for n in numbers:
        config = load_config(Path(hall_dir) / f"board-{n}.toml")
        if config.mqtt is None:
            raise ConfigError(config.source, "mqtt", "missing: not a board of a hall")
        out[n] = config.mqtt
    return out


def hall_fleet(hall_dir: Path, boards: int, journals: Path, pace: float = 1.0,
               seed: int = 0) -> Fleet:
    """Boards 1..``boards`` of the hall made by ``damiera hub init`` in ``hall_dir``, each
    logged in with its own ``board-<N>.toml`` and signing its lines with its key, playing
    natural games without end at ``pace``, their journals in ``journals/<N>/games/``: what
    ``damiera hub demo`` runs (the ``damiera.hall_fleet`` entry point). Call ``run()`` (until
    ``stop()``) on one thread. Raises ConfigError."""
    numbers = list(range(1, boards + 1))
    specs = hall_specs(hall_dir, numbers)
    now = time.time()
    made = [LightBoard(n, specs[n].hall, Path(journals) / str(n), seed=seed, pace=pace,
                       key=specs[n].key, first_game_at=now + (i / boards) * 5.0 / pace)
            for i, n in enumerate(numbers)]
    return Fleet(None, made, specs=specs)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hardware_mocks.hall_fleet",
                                description="light simulated boards publishing to a hall")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--mqtt", help="mqtt://host:port (anonymous boards)")
    where.add_argument("--hall-dir", default=None, metavar="DIR",
                       help="a hall made by 'damiera hub init': each board logs in as its "
                       "DIR/board-<N>.toml says (user, password, CA, key, hall)")
    p.add_argument("--hall", default="hall")
    p.add_argument("--boards", required=True, help="numbers: 1-50,60")
    p.add_argument("--dir", required=True, help="the boards' journals: DIR/<N>/games/…")
    p.add_argument("--pace", type=float, default=1.0, help="game seconds per wall second")
    p.add_argument("--variant", default="italian")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--games", type=int, default=None, help="games per board (default: no end)")
    p.add_argument("--seconds", type=float, default=None, help="stop after this long")
    p.add_argument("--stagger", type=float, default=5.0,
                   help="game seconds over which the boards' first games begin")
    p.add_argument("--start-at", type=float, default=None, metavar="UNIX_TIME",
                   help="wall time (Unix seconds) the first games begin from, so that fleets "
                   "in several processes start a round at the same second (default: now)")
    p.add_argument("--times", default=None, help="write board, game, line, wall per line here")
    p.add_argument("--hub-config", default=None, metavar="HUB_TOML",
                   help="sign each board's lines with its key from this hub.toml's [keys] "
                   "(a hall made by 'damiera hub init'); without it the boards do not sign")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: "
                        "%(message)s")
    try:
        numbers = parse_boards(args.boards)
        if not (math.isfinite(args.pace) and args.pace > 0):
            raise ValueError("--pace: a positive number")
    except ValueError as exc:
        print(f"hall_fleet: {exc}", file=sys.stderr)
        return 2
    out: TextIO | None = open(args.times, "w", encoding="utf-8") if args.times else None
    on_line: OnLine | None = None
    if out is not None:
        def on_line(board: int, game: str, line: int, wall: float) -> None:
            out.write(f"{board}\t{game}\t{line}\t{wall:.6f}\n")
    keys: Mapping[int, bytes] = {}
    specs: dict[int, MqttSpec] | None = None
    try:
        if args.hub_config is not None:
            from pi.hall.hub_config import load_hub_config
            keys = load_hub_config(args.hub_config).keys
        if args.hall_dir is not None:
            specs = hall_specs(Path(args.hall_dir), numbers)
            keys = {n: spec.key for n, spec in specs.items() if spec.key is not None}
    except ConfigError as exc:
        print(f"hall_fleet: {exc}", file=sys.stderr)
        return 2
    now = time.time() if args.start_at is None else args.start_at
    boards = [LightBoard(n, args.hall if specs is None else specs[n].hall,
                         Path(args.dir) / str(n), seed=args.seed,
                         variant=args.variant, pace=args.pace, games=args.games, on_line=on_line,
                         first_game_at=now + (i / max(1, len(numbers))) * args.stagger / args.pace,
                         key=keys.get(n))
              for i, n in enumerate(numbers)]
    fleet = Fleet(args.mqtt, boards, specs=specs)
    signal.signal(signal.SIGTERM, lambda *_: fleet.stop())
    signal.signal(signal.SIGINT, lambda *_: fleet.stop())
    fleet.run(math.inf if args.seconds is None else time.time() + args.seconds)
    if out is not None:
        out.close()
    lines = sum(int(h[1]) for b in boards for h in b.heads)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"boards": len(boards), "lines": lines,
                      "games": sum(len(b.heads) for b in boards),
                      "cpu": round(usage.ru_utime + usage.ru_stime, 3),
                      "rss_mb": round(usage.ru_maxrss / 1024, 1)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
