"""Light simulated boards for the hall's benchmark and tests: protocol-level publishers.

A :class:`LightBoard` is what a hall's hub sees of a real board (``pi/hall/PROTOCOL.md``), with
no daemon, sensors or web server behind it: it plays random legal games
(:func:`hardware_mocks.hall_games.natural_game`) as the journal a real board writes —
``STATE/games/<id>/trace.jsonl``, docs/trace-format.md lines: a start line with the board's pairing, number,
id and ``started_at``, the power-up snapshot, lifts, places, adjustments and clock presses at
their times, an ``end`` once the arbiter (the engine's, fed every line as on the board) has a
result — and publishes each line after writing it (QoS 1, with its line number), its retained
``status`` (journal heads) and ``state`` (the ``/api/state`` object's fields the hub reads), a
retained will, answers ``resend`` from the journal file, journals arbiter ``action`` commands and
takes ``pairing`` commands for its next game, answering a repeated command id as the first time.
Games follow one another with a pause; ``pace`` runs game time N times faster than the wall.
With ``key`` (the board's key of a hall made by ``damiera hub init``) its journal lines and its
status and its acks are signed as a real board's (``pi.hall.signing``).

The MQTT side is :mod:`hardware_mocks.hall_fleet` (many boards in one thread): a board only
calls its ``publish(topic, payload, retained)`` (QoS 1) and is given ``cmd`` payloads.
``on_line(board, game, line, wall)`` is told the wall time each journal line was published
(the benchmark's start of latency).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import random
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.errors import InputError
from engine.events import ArbiterActed, Event, TraceEnded
from engine.replay import RAISE, Replay
from hardware_mocks.hall_games import TIME_CONTROL, Pace, natural_game
from pi.hall import protocol
from pi.board.journal import encode_line
from pi.board.statedir import make_game_id
from pi.hall.errors import BadMessage
from pi.hall.signing import line_mac

log = logging.getLogger(__name__)

__all__ = ["LightBoard", "Publish", "OnLine"]

Publish = Callable[[str, bytes, bool], None]  # topic, payload, retained (always QoS 1)
OnLine = Callable[[int, str, int, float], None]


class LightBoard:
    """One simulated board (module docstring). ``root``: its state directory (``games/<id>/``
    made here). ``pace``: game seconds per wall second. ``pause``: game seconds between games.
    ``max_plies``: (least, most) moves before a long game is agreed drawn or resigned.
    ``games``: how many games it plays (None: no end). Call :meth:`attach` before the first
    :meth:`run_due`."""

    def __init__(self, number: int, hall: str, root: Path, *, seed: int = 0,
                 variant: str = "italian", pace: float = 1.0, pause: float = 120.0,
                 max_plies: tuple[int, int] = (60, 120), games: int | None = None,
                 think: Pace | None = None, accomodo: float = 0.04, on_line: OnLine | None = None,
                 first_game_at: float | None = None, key: bytes | None = None,
                 wall: Callable[[], float] = time.time) -> None:
        self.number = number
        self.key = key
        #: the wall clock its retained state and its published lines are dated by (a benchmark
        #: recording on a simulated clock gives its own)
        self.wall = wall
        self._mac = ""  # the mac of the current game's last line written
        self.name = str(number)
        self.topics = protocol.Topics(hall)
        self.root = Path(root)
        self.rng = random.Random(seed * 100_003 + number)
        self.variant = variant
        self.pace = pace
        self.pause = pause
        self.max_plies = max_plies
        self.games_left = games
        self.think = think or Pace()
        self.accomodo = accomodo
        self.on_line = on_line
        self.pairing: dict[str, str] = {"event": f"{hall} bench", "round": "1",
                                        "white": f"White {number}", "black": f"Black {number}"}
        self.heads: list[list[Any]] = []  # [id, lines, finished], oldest first
        self.answers: dict[str, bytes] = {}  # command id -> the ack it got (QoS 1 repeats)
        self.publish: Publish = lambda topic, payload, retained: None
        self._seq = 0
        self._path: Path | None = None
        self._file: Any = None
        #: the game's replay (engine.replay), fed every line as it is written; policy RAISE:
        #: a line the fake writes and its own arbiter refuses is a bug of the fake
        self._replay: Replay | None = None
        self._events: Iterator[Event] | None = None
        self._next: Event | None = None
        self._t0 = 0.0  # wall time of game time 0
        self._last_t = 0.0
        self._last_record: dict[str, Any] | None = None
        self._start_line: dict[str, Any] = {}
        self._next_game = wall() if first_game_at is None else first_game_at

    # -- the board's side of the link -------------------------------------------------------
    def attach(self, publish: Publish) -> None:
        self.publish = publish

    def topic(self, leaf: str) -> str:
        return self.topics.board(self.number, leaf)

    def connected(self) -> None:
        """On every (re)connection: the heads and the state, retained (PROTOCOL.md)."""
        self.publish_status()
        self.publish_state()

    @property
    def game_id(self) -> str | None:
        return self.heads[-1][0] if self.heads and not self.heads[-1][2] else None

    @property
    def lines(self) -> int:
        return int(self.heads[-1][1]) if self.heads else 0

    def publish_status(self) -> None:
        games = [(g, n, f) for g, n, f in self.heads]
        current = self.game_id
        self.publish(self.topic("status"), protocol.status_payload(
            self.number, current, self.lines if current else 0, games,
            session=None if self.key is None else f"{self.number:08x}", key=self.key), True)

    def publish_state(self) -> None:
        self.publish(self.topic("state"), json.dumps(
            self.state(), separators=(",", ":")).encode(), True)

    # -- time -------------------------------------------------------------------------------
    def due(self) -> float:
        """Wall time of the next thing this board does (inf: nothing more)."""
        if self._next is not None:
            return self._t0 + self._next.t / self.pace
        if self._events is None and self.games_left != 0:
            return self._next_game
        return math.inf

    def run_due(self, now: float) -> None:
        """Does everything due by wall time ``now``: new games, the events of the one on."""
        while self.due() <= now:
            if self._events is None:
                self._begin(self._next_game)
                continue
            assert self._next is not None
            event = self._next
            self._next = next(self._events, None)
            self._feed(event)

    # -- a game -----------------------------------------------------------------------------
    def _begin(self, now: float) -> None:
        self._seq += 1
        when = datetime.fromtimestamp(now, timezone.utc)
        game_id = make_game_id(when, self._seq, self.number)
        self._path = self.root / "games" / game_id / "trace.jsonl"
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self._path, "xb", buffering=0)
        start: dict[str, Any] = {"type": "start", "variant": self.variant, "fen": None,
                                 "clock": True, "transcribed": True,
                                 "time_control": TIME_CONTROL,
                                 "white": self.pairing["white"], "black": self.pairing["black"],
                                 "event": self.pairing["event"], "round": self.pairing["round"],
                                 "board": self.number, "id": game_id,
                                 "started_at": when.isoformat(timespec="milliseconds")}
        self._start_line = start
        self._replay = Replay(start, RAISE)
        self._t0 = now
        self._last_t = 0.0
        self.heads.append([game_id, 0, False])
        del self.heads[:-protocol.MAX_GAMES]
        plies = self.rng.randint(*self.max_plies)
        self._events = natural_game(self.variant, self.rng, max_plies=plies,
                                    accomodo=self.accomodo, pace=self.think)
        self._write(start)
        self.publish_status()
        self._next = next(self._events, None)

    def _feed(self, event: Event) -> None:
        assert self._replay is not None
        if event.t < self._last_t:  # after a command journaled at its own time
            event = dataclasses.replace(event, t=self._last_t)
        record = event.to_dict()
        self._replay.take(record, event, self._write(record))
        over = self._replay.arbiter.game.outcome is not None
        if over or self._next is None:
            self._end()
        elif event.to_dict().get("name") in ("clock", "draw_offer"):
            self.publish_state()

    def _end(self) -> None:
        """The result is in (or the game generator ran out): ``end``, the heads, the state."""
        assert self._replay is not None
        t = round(self._last_t + 1.0, 3)
        record = TraceEnded(t).to_dict()
        self._replay.take(record, TraceEnded(t), self._write(record))
        self.heads[-1][2] = True
        self._file.close()
        self._events = None
        self._next = None
        if self.games_left is not None:
            self.games_left -= 1
        self._next_game = self._t0 + t / self.pace + self.pause / self.pace
        self.publish_status()
        self.publish_state()

    def _write(self, record: dict[str, Any]) -> int:
        data = encode_line(record)
        self._file.write(data)  # unbuffered: the bytes are in the file when this returns
        self.heads[-1][1] += 1
        line = int(self.heads[-1][1])
        self._last_t = max(self._last_t, float(record.get("t", 0.0)))
        self._last_record = record
        game = str(self.heads[-1][0])
        text = data[:-1].decode("utf-8")
        mac = None
        if self.key is not None:
            self._mac = line_mac(self.key, game, line, text, self._mac if line > 1 else "")
            mac = self._mac
        self.publish(self.topic("journal"), protocol.journal_payload(game, line, text, mac),
                     False)
        if self.on_line is not None:
            self.on_line(self.number, game, line, self.wall())
        return line

    # -- commands ---------------------------------------------------------------------------
    def on_command(self, payload: bytes, now: float) -> None:
        try:
            cmd = protocol.parse_command(payload)
        except BadMessage as exc:
            log.warning("board %s: %s", self.name, exc)
            return
        if isinstance(cmd, protocol.Resend):
            self.resend(cmd.game_id, cmd.start)
            return
        answer = self.answers.get(cmd.id)
        if answer is None:
            answer = protocol.ack_payload(self._carry_out(cmd, now), self.key)
            self.answers[cmd.id] = answer
        self.publish(self.topic("ack"), answer, False)

    def _carry_out(self, cmd: protocol.Command, now: float) -> protocol.Ack:
        if cmd.pairing is not None:
            self.pairing.update(cmd.pairing)
            return protocol.Ack(cmd.id, True)
        action = cmd.action or {}
        if self._events is None or self._replay is None:
            return protocol.Ack(cmd.id, False, error="no game in play")
        try:
            t = round(max(self._last_t, (now - self._t0) * self.pace), 3)
            record = ArbiterActed(t, str(action["action"]), action.get("result"),
                                  action.get("text")).to_dict()
            event = self._replay.read_event(record)  # the reader's refusal, before writing
        except (KeyError, InputError) as exc:
            return protocol.Ack(cmd.id, False, error=str(exc)[:200])
        line = self._write(record)
        self._replay.take(record, event, line)
        if self._replay.arbiter.game.outcome is not None:
            self._end()
        else:
            self.publish_state()
        return protocol.Ack(cmd.id, True, line=line)

    def resend(self, game: str, start: int) -> None:
        """Republishes lines ``start``… of ``game`` read back from the journal file."""
        path = self.root / "games" / game / "trace.jsonl"
        try:
            with open(path, "rb") as f:
                mac = ""
                for number, raw in enumerate(f, start=1):
                    if not raw.endswith(b"\n"):
                        break
                    text = raw[:-1].decode("utf-8")
                    if self.key is not None:
                        mac = line_mac(self.key, game, number, text, mac)
                    if number >= start:
                        self.publish(self.topic("journal"), protocol.journal_payload(
                            game, number, text, mac if self.key is not None else None), False)
        except OSError as exc:
            log.warning("board %s: resend of %s: %s", self.name, game, exc)

    # -- the state --------------------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        """The ``/api/state`` object (``pi/web/API.md``, arbiter view) of this board now."""
        s = self._start_line
        a = None if self._replay is None else self._replay.arbiter
        base: dict[str, Any] = {
            "line": self.lines, "phase": "setup", "view": "arbiter", "game_id": None,
            "metadata": {"event": s.get("event"), "round": s.get("round"), "site": None,
                         "date": None, "board": self.number, "white": s.get("white"),
                         "black": s.get("black"), "variant": self.variant,
                         "time_control": TIME_CONTROL, "started_at": s.get("started_at"),
                         "clock": True, "size": 10 if self.variant == "international" else 8},
            "fen": None, "moves": [], "flags": [], "clock": None, "result": "*",
            "result_reason": None, "squares_to_fix": [], "sensor_faults": [],
            "last_line": self._last_record, "message": ""}
        if a is None:
            return base
        game = a.game
        clock = None
        if a.clock is not None:
            r = a.clock.read(max(self._last_t, 0.0))
            clock = {"white": r.white.seconds, "black": r.black.seconds,
                     "running": None if r.running is None else r.running.label,
                     "state": str(r.state), "t": round(r.t, 3), "server_time": self.wall()}
        base.update({"phase": "over" if game.outcome is not None else "playing",
                     "game_id": s.get("id"), "fen": game.board.fen(),
                     "moves": [m.to_dict() for m in game.moves],
                     "flags": [f.to_dict() for f in a.flags], "clock": clock,
                     "result": game.result,
                     "result_reason": None if game.outcome is None else game.outcome.reason})
        return base
