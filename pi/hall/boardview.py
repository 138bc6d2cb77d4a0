"""One board as the hub sees it: an engine view rebuilt from the replica (the journal's lines fed
into a fresh :class:`engine.arbiter.Arbiter`, as ``damiera replay`` and a board's resume do) and
the board's retained ``state`` (clock reading, sensor faults, online) — and the parts the board's
own routes (``pi.web.server``) are mounted on in the hall.

:class:`BoardReplica` is a :class:`pi.board.view.BoardView` (its current game a
:class:`ReplayedGame`, a :class:`pi.board.view.GameView`), so the board's views, feeds and
routes serve the replica unchanged (:class:`ReplicaPages`: its live feeds, its games from the
replicas, its actions sent to the board as commands).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Awaitable, Callable, Protocol, TypeVar

from aiohttp import web

from engine.decisions import FlagRaised
from engine.errors import TraceError
from engine.replay import ContainArbiter, Replay, Report, Verdict
from engine.variants import Variant, find_variant
from pi.board.config import Config
from pi.board.report import game_report
from pi.board.supersede import first_touch, superseded, waits_for_arbiter
from engine.replay import Fed
from pi.board.view import BoardView, Phase
from pi.hall.replica import SUPERSEDED_FILE, GameReplica, game_order
from pi.board.arbiter_request import ArbiterRequest
from pi.board.game_setup import GameSetup
from pi.web.server import (BoardFeed, BoardParts, LiveFeeds, PublicSnapshot, report_pdf_response)
from pi.web.httputil import http, read

log = logging.getLogger(__name__)

V = TypeVar("V")

__all__ = ["ReplicatedBoard", "BoardReplica", "ReplayedGame", "ReportedFault", "ReplicaPages",
           "ReplicaGames", "ReplicaActions", "GameInfo",
           "game_info", "wall_of"]


@dataclass(frozen=True, slots=True)
class ReportedFault:
    """A sensor fault as the board's ``state`` reported it (a :class:`pi.board.view.FaultView`)."""

    address: int
    kind: str
    message: str
    squares: tuple[str, ...]


class ReplayedGame:
    """One game of the board fed from its replica (a :class:`pi.board.view.GameView`): ``line``
    is the number of the last line fed (read or not)."""

    def __init__(self, replica: GameReplica, start_line: dict[str, Any]) -> None:
        # policy (engine.replay): an arbiter failure is logged and its line passed over, as the
        # board does; a line that cannot be read raises (BoardReplica.replay_line logs and skips it)
        self.replay = Replay(start_line, ContainArbiter(
            log, where=f"board {replica.board} game {replica.id}"))
        self.replica = replica
        self.start_line = dict(start_line)
        self.variant: Variant = self.replay.variant
        self.arbiter = self.replay.arbiter
        self.last_t = 0.0
        self.line = 1
        self.started = _epoch(start_line.get("started_at"))
        self.down = 0.0  # seconds the board was away (restart lines), for wall times

    def replay_line(self, number: int, obj: dict[str, Any]) -> Fed:
        """Line ``number`` (≥ 2) fed to the arbiter. Raises the trace reader's errors for a line
        it cannot read; an arbiter failure is contained as the board contains it."""
        event = self.replay.read_event(obj, number)
        self.line = number
        fed = self.replay.take(obj, event, number)
        self.last_t = max(self.last_t, float(obj.get("t", self.last_t)))
        if obj.get("type") == "restart" and isinstance(obj.get("down"), (int, float)):
            self.down += max(0.0, float(obj["down"]))
        return fed

    @property
    def id(self) -> str:
        return self.replica.id

    @property
    def trace(self) -> Path:
        """The replica's copy of the game's journal."""
        return self.replica.path

    @property
    def finished(self) -> bool:
        """The game has a result (the replica holds its end)."""
        return self.arbiter.game.outcome is not None

    def wall(self, t: float) -> float | None:
        """The Unix time of game time ``t`` (the start's ``started_at`` plus the time away), or
        None when the start line has no time."""
        return None if self.started is None else self.started + t + self.down

    def report(self) -> Report:
        return self.replay.report()


def _epoch(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def wall_of(view: ReplayedGame, t: float) -> float:
    w = view.wall(t)
    return time.time() if w is None else w


#: Finished games' reports kept per board (the newest asked for); older ones are replayed.
REPORTS_KEPT = 2
#: The games per board whose first touch (and whether it voided them) is kept once found: the
#: newest asked for (every summary asks about the game shown); an older game's is read again
#: from its replica when asked (a round's feed, the results), so a board's thousandth game
#: costs the hub what its first did.
TOUCHES_KEPT = 8
#: The fields of a board's retained ``state`` the hub keeps: the game it is of, and the board's
#: screen message (the round table's "not set up: …", the board's own page).
RETAINED = ("game_id", "message")


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A held game summed up (the games list, the results table, the round feeds)."""

    id: str
    lines: int
    start: dict[str, Any]
    result: str
    reason: str | None
    code: str | None
    moves: int
    report: Report | None


def game_info(g: GameReplica) -> GameInfo:
    """The game replayed from its replica. Policy (``engine.replay``): a line that cannot be
    read ends the replay there, an arbiter failure passes its line over; both logged."""
    try:
        replay = Replay.read(g.lines, ContainArbiter(
            log, Verdict.STOP, where=f"board {g.board} game {g.id}"))
    except (TraceError, ValueError, RecursionError, TypeError) as exc:
        log.warning("board %s game %s line 1 cannot be replayed: %s", g.board, g.id,
                    str(exc)[:80])
        try:
            start = json.loads(g.lines[0]) if g.lines else {}
        except (ValueError, RecursionError):
            start = {}
        return GameInfo(g.id, g.held, start if isinstance(start, dict) else {}, "*", None, None,
                        0, None)
    for _ in replay:
        pass
    game = replay.arbiter.game
    o = game.outcome
    return GameInfo(g.id, g.held, replay.start_line, game.result,
                    None if o is None else o.reason, None if o is None else o.code,
                    len(game.moves), replay.report())


class ReplicatedBoard(BoardView, Protocol):
    """A board as the hub holds it: a :class:`pi.board.view.BoardView`, and its games' history
    from the replica — what the round feeds read (:class:`BoardReplica` implements it)."""

    @property
    def board(self) -> int:
        """The board's number (its MQTT topic segment written in canonical decimal)."""
        ...

    @property
    def kept(self) -> Mapping[str, PublicSnapshot | None]:
        """Game id → what the public had of it when the board moved on (a broadcast delay)."""
        ...

    def games(self) -> list[GameReplica]:
        """The board's games held in the replica, oldest first."""
        ...

    def start_of(self, g: GameReplica) -> dict[str, Any]:
        """Game ``g``'s start line ({} when unreadable)."""
        ...

    def result_of(self, g: GameReplica) -> str:
        """Game ``g``'s result in the arbiter's view."""
        ...

    def info(self, g: GameReplica, report: bool = False) -> GameInfo:
        """Game ``g`` summed up (with its report when ``report``)."""
        ...

    def touch_of(self, g: GameReplica) -> Mapping[str, Any] | None:
        """Game ``g``'s first line past its start and set-up snapshots
        (``pi.board.supersede.first_touch``), None while it holds no such line."""
        ...

    def superseded(self, g: GameReplica) -> bool:
        """Game ``g`` was voided by a pairing before play (``pi.board.supersede``): never a
        game of a round."""
        ...


class BoardReplica:
    """One board rebuilt from its replica (see the module docstring): a
    :class:`pi.board.view.BoardView`. ``game``: the game it follows (its newest)."""

    def __init__(self, board: int) -> None:
        self.board = board
        self.game: ReplayedGame | None = None
        self.config = Config(source="hub")
        self.faults: dict[int, ReportedFault] = {}
        self.replica_games: dict[str, GameReplica] = {}
        #: of the board's retained ``state``, what the hub reads (:data:`RETAINED`; the rest,
        #: its moves and flags above all, is rebuilt from the replica)
        self.retained: dict[str, Any] | None = None
        #: the retained state's clock reading as (game id, game time, the board's wall time),
        #: None without one (read once per state: :meth:`now` runs several times per line)
        self._reading: tuple[Any, float, float] | None = None
        self.online = False
        self.last_heard: float | None = None
        self.flag_walls: dict[int, float] = {}
        self._infos: dict[str, GameInfo] = {}
        self._starts: dict[str, dict[str, Any]] = {}
        self._fen: tuple[tuple[str, int], str] | None = None
        #: the public view a game had when the board moved on to the next (the round feeds)
        self.kept: dict[str, PublicSnapshot | None] = {}
        self._reports: OrderedDict[str, GameInfo] = OrderedDict()
        #: game id → its first line past the set-up (final once found: lines only grow), the
        #: newest TOUCHES_KEPT games asked for
        self._touches: OrderedDict[str, Mapping[str, Any]] = OrderedDict()
        #: the game whose first touch is not found yet, as far as it was read: (game id, its
        #: lines' list, lines read, its start waits for the arbiter). A summary of the hall
        #: asks at every line: each line is read once, not every line at every line (a game
        #: waiting for the arbiter's start sees many lines before its first touch). The list
        #: is the replica's own, appended to only: a new list (the game parked and read back,
        #: lines taken back after a failed write) is read again from its start
        self._untouched: tuple[str, list[str], int, bool] | None = None
        #: game id → superseded or not, once its first touch is found (final: every summary
        #: of the hall asks), the newest TOUCHES_KEPT games asked for
        self._voided: OrderedDict[str, bool] = OrderedDict()

    # ------------------------------------------------------------------ what the views read

    @property
    def phase(self) -> Phase:
        if self.game is None:
            return Phase.SETUP
        return Phase.OVER if self.game.finished else Phase.PLAYING

    @property
    def variant(self) -> Variant:
        return self.game.variant if self.game is not None else find_variant("italian")

    def now(self) -> float:
        """Game time now: the board's last clock reading carried forward by the wall clock
        while the board is online in this game; else the last journaled time."""
        s = self.game
        if s is None:
            return 0.0
        r = self._reading
        if self.online and r is not None and r[0] == s.id:
            ahead = min(max(0.0, time.time() - r[2]), 3600.0)
            return max(s.last_t, r[1] + ahead)
        return s.last_t

    def live_fen(self) -> str | None:
        """The current game's position (computed once per journal line: the hall's summaries
        ask for it often)."""
        s = self.game
        if s is None:
            return None
        key = (s.id, s.line)
        if self._fen is None or self._fen[0] != key:
            self._fen = (key, s.arbiter.game.board.fen())
        return self._fen[1]

    @property
    def message(self) -> str:
        """The board's screen message as its last ``state`` of the current game said it."""
        st = self.retained
        if st is not None and self.game is not None and st.get("game_id") == \
                self.game.id and isinstance(st.get("message"), str):
            return str(st["message"])
        return ""

    # ------------------------------------------------------------------ the board's messages

    def take_state(self, obj: dict[str, Any]) -> None:
        """The board's retained ``state`` (its ``/api/state``, arbiter view): its fields in
        :data:`RETAINED` kept, its clock reading and sensor faults read. Not the whole object:
        its moves and flags (a dict per move, a state per line or so) would stay in memory until
        the next state replaced them, long enough for each young garbage collection to walk them
        (pi.hall.collector), for nothing."""
        self.retained = {k: obj[k] for k in RETAINED if k in obj}
        clock = obj.get("clock")
        self._reading = None
        if isinstance(clock, dict) and isinstance(clock.get("t"), (int, float)) \
                and isinstance(clock.get("server_time"), (int, float)):
            self._reading = (obj.get("game_id"), float(clock["t"]), float(clock["server_time"]))
        faults = {}
        raw = obj.get("sensor_faults")
        for i, f in enumerate(raw if isinstance(raw, list) else []):
            if isinstance(f, dict):
                squares = f.get("squares")
                address = f.get("address")
                key = address if isinstance(address, int) and not isinstance(address, bool) \
                    else i
                faults[key] = ReportedFault(
                    key, str(f.get("kind", "")), str(f.get("message", ""))[:200],
                    tuple(str(q) for q in squares) if isinstance(squares, list) else ())
        self.faults = faults

    def games(self) -> list[GameReplica]:
        return sorted(self.replica_games.values(), key=lambda g: game_order(g.id))

    def start_of(self, g: GameReplica) -> dict[str, Any]:
        """The game's start line (parsed once; {} when unreadable)."""
        cached = self._starts.get(g.id)
        if cached is None:
            try:
                obj = json.loads(g.lines[0]) if g.lines else None
            except (ValueError, RecursionError):
                obj = None
            cached = obj if isinstance(obj, dict) else {}
            if g.lines:
                self._starts[g.id] = cached
        return cached

    def result_of(self, g: GameReplica) -> str:
        """The game's result in the arbiter's view (the live one for the current game)."""
        s = self.game
        if s is not None and s.id == g.id:
            return s.arbiter.game.result
        return self.info(g).result

    def info(self, g: GameReplica, report: bool = False) -> GameInfo:
        """The game summed up (cached while it does not grow, without its report: the memory
        kept per game played is its few figures). ``report``: with the report, replayed from
        the replica when the cached one has none."""
        if report:
            kept = self._reports.get(g.id)
            if kept is not None and kept.lines == g.held:
                self._reports.move_to_end(g.id)
                return kept
        cached = self._infos.get(g.id)
        if cached is None or cached.lines != g.held or (report and cached.report is None):
            full = game_info(g)
            self._infos[g.id] = replace(full, report=None)
            if full.report is not None:
                # the board's last games' reports (a round's feed asks for them again and
                # again); older ones are replayed when asked
                _keep(self._reports, g.id, full, REPORTS_KEPT)
            return full
        return cached

    def touch_of(self, g: GameReplica) -> Mapping[str, Any] | None:
        """Game ``g``'s first line that touched it (``pi.board.supersede.first_touch``), None
        while it holds none (read once found; a line that cannot be read counts as a touch)."""
        found = self._touches.get(g.id)
        if found is not None:
            self._touches.move_to_end(g.id)
        else:
            lines = g.lines
            scan = self._untouched
            if scan is not None and scan[0] == g.id and scan[1] is lines:
                # the same list, only ever appended to: the lines read before touched nothing
                done, waiting = scan[2], scan[3]
            else:
                start = next(_records(itertools.islice(lines, 0, 1)), {})
                done, waiting = 1, waits_for_arbiter(start)
            held = len(lines)
            found = first_touch(_records(itertools.islice(lines, done, None)), waiting)
            if found is not None:
                _keep(self._touches, g.id, found, TOUCHES_KEPT)
                self._untouched = None
            elif held and not g.parked:  # the walk goes on from here next time
                self._untouched = (g.id, lines, held, waiting)
        return found

    def superseded(self, g: GameReplica) -> bool:
        """Game ``g`` was voided by a pairing before play (``pi.board.supersede``): its first
        touch is the board's fixed note."""
        known = self._voided.get(g.id)
        if known is not None:
            self._voided.move_to_end(g.id)
            return known
        first = self.touch_of(g)
        if first is None:
            return False
        voided = superseded((first,))
        _keep(self._voided, g.id, voided, TOUCHES_KEPT)
        return voided

    # ------------------------------------------------------------------ replaying

    def begin(self, g: GameReplica) -> Fed | None:
        """Follows game ``g`` from its start line (line 1 held). None: the start is unreadable
        (logged; the board shows no game)."""
        self.replica_games[g.id] = g
        self.flag_walls = {}
        try:
            obj = json.loads(g.lines[0])
            self.game = ReplayedGame(g, obj)
        except (ValueError, RecursionError, TypeError, IndexError) as exc:
            log.warning("board %s game %s: start line cannot be read: %s", self.board, g.id,
                        str(exc)[:80])
            self.game = None
            return None
        return Fed(1, obj, None, ())

    def replay_line(self, number: int, text: str) -> Fed | None:
        """Line ``number`` of the current game (lines arrive in order). None: unreadable
        (logged; the line is in the replica all the same)."""
        s = self.game
        if s is None:
            return None
        try:
            fed = s.replay_line(number, json.loads(text))
        except (ValueError, RecursionError, TypeError) as exc:
            s.line = number
            log.warning("board %s game %s line %d cannot be read: %s", self.board, s.id,
                        number, str(exc)[:80])
            return None
        for d in fed.decisions:
            if isinstance(d, FlagRaised):
                self.flag_walls.setdefault(d.flag.id, wall_of(s, d.flag.t))
        return fed


def _records(texts: Iterable[str]) -> Iterator[Mapping[str, Any]]:
    """Journal lines as objects, lazily; one that cannot be read is an unknown line."""
    for text in texts:
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            obj = None
        yield obj if isinstance(obj, dict) else {"type": "?"}


class ReplicaGames:
    """The board's games as the hub holds them (a :class:`pi.web.server.BoardGames`): its
    replicas, each game's files made from the replica's whole lines."""

    def __init__(self, replica: BoardReplica) -> None:
        self.replica = replica

    async def listing(self) -> list[dict[str, Any]]:
        out = []
        for g in reversed(self.replica.games()):
            start = self.replica.start_of(g)
            s = self.replica.game
            if s is not None and s.id == g.id:
                result, moves = s.arbiter.game.result, len(s.arbiter.game.moves)
            else:
                info = self.replica.info(g)
                result, moves = info.result, info.moves
            out.append({"id": g.id, "finished": result != "*", "result":
                        None if result == "*" else result,
                        "started_at": start.get("started_at"), "white": start.get("white"),
                        "black": start.get("black"), "variant": start.get("variant"),
                        "moves": moves, "lines": g.held})
        return out

    async def file(self, request: web.Request, game_id: str, name: str
                   ) -> web.StreamResponse:
        g = self.replica.replica_games.get(game_id)
        if g is None or name not in ("game.pdn", "report.json", "trace.jsonl", "report.pdf",
                                     SUPERSEDED_FILE):
            raise http(404, "no such game or file")
        if name == SUPERSEDED_FILE:  # the lines the board lost after publishing them
            path = g.path.parent / SUPERSEDED_FILE
            try:
                data = await asyncio.get_running_loop().run_in_executor(None, read, path)
            except FileNotFoundError:
                data = b""
            return web.Response(body=data, content_type="application/jsonl", charset="utf-8")
        if name == "report.pdf":  # from the replica's whole lines, as held
            lines = list(g.lines)
            return await report_pdf_response(request, lambda: game_report(
                game_id, "".join(t + "\n" for t in lines).encode("utf-8")))
        if name == "trace.jsonl":  # the replica's whole lines, as held
            data = "".join(t + "\n" for t in g.lines).encode("utf-8")
            return web.Response(body=data, content_type="application/jsonl", charset="utf-8")
        info = self.replica.info(g, report=True)
        if info.report is None:
            raise http(404, "the game cannot be replayed")
        if name == "game.pdn":
            return web.Response(text=info.report.pdn(), content_type="application/x-chess-pdn",
                                charset="utf-8")
        return web.json_response(info.report.to_json())

    async def journal(self, game_id: str) -> bytes:
        g = self.replica.replica_games.get(game_id)
        if g is None:
            raise http(404, "no such game")
        lines = await asyncio.get_running_loop().run_in_executor(None, lambda: list(g.lines))
        return "".join(t + "\n" for t in lines).encode("utf-8")


class ReplicaActions:
    """The arbiter's actions on a board of the hall (a :class:`pi.web.server.ActionSink`):
    sent to the board as a command, answered by ``act(board, command)`` (the hub's)."""

    def __init__(self, board: int, act: Callable[[int, dict[str, Any]], Awaitable[web.Response]]
                 ) -> None:
        self.board = board
        self._act = act

    async def act(self, action: ArbiterRequest) -> web.Response:
        return await self._act(self.board, action.to_command())

    async def setup(self, setup: GameSetup) -> web.Response:
        raise http(409, "a board of the hall is set up by the hub's pairings (HUB_API.md)")


class ReplicaPages:
    """One board's own pages in the hall: the parts (:class:`pi.web.server.BoardParts`)
    over its :class:`BoardReplica` that the hub's site mounts the board's routes on under
    ``/boards/<N>/``. ``feeds``: its live feeds (the hub feeds them the replica's lines);
    ``broadcast``: the board's broadcast PDN made from them (the hall's feed, with its round's
    tags); ``hall_clients``: live clients of all boards' streams, at most ``hall_max``."""

    def __init__(self, replica: BoardReplica, *, delay_minutes: float,
                 act: Callable[[int, dict[str, Any]], Awaitable[web.Response]],
                 broadcast: Callable[[BoardFeed], tuple[str, float] | None],
                 hall_clients: Callable[[], int] = lambda: 0, hall_max: int = 2000,
                 ping: float = 15.0) -> None:
        self.replica = replica
        self.hall_max = hall_max
        self.ping = ping
        self._hall_clients = hall_clients
        self.feeds = LiveFeeds(replica, max(0.0, delay_minutes) * 60.0,
                               lambda: broadcast(self.feeds))
        self.parts = BoardParts(replica, self.feeds, ReplicaActions(replica.board, act),
                                ReplicaGames(replica),
                                about={"simulate": False, "hall": True, "board": str(replica.board)},
                                crowded=self.crowded)

    def crowded(self) -> bool:
        """The hub's limit on live clients of all boards is reached."""
        return self._hall_clients() >= self.hall_max

    def start_feeds(self) -> None:
        """Starts the live feeds' pings and delayed lines (``LiveFeeds.start``)."""
        self.feeds.start(self.ping)

    async def stop(self) -> None:
        self.feeds.stop()


def _keep(kept: OrderedDict[str, V], key: str, value: V, limit: int) -> None:
    """``value`` kept under ``key`` as the newest of ``kept``, the oldest dropped past
    ``limit``."""
    kept[key] = value
    kept.move_to_end(key)
    while len(kept) > limit:
        kept.popitem(last=False)
