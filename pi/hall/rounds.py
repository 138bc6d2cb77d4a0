"""The hall's rounds: the pairings (CSV in, kept whole in ``DIR/pairings.csv``, every round in
it), the start of a round (:class:`RoundStart`: its boards' ``pairing`` commands, then each
board's clock started once it is set up), the round feeds for broadcasters
(``/rounds/<r>/games.pdn``, one PDN per board) and the results table (HUB_API.md).

Round feeds follow the broadcast policy (``pi.web.views.public_snapshot``: moves under a pending
irregularity held; the delay of ``broadcast_delay``), list the round's boards in board-number
order with a place for every paired board whose game has not begun (lidraughts' relay matches
games by position), and carry what relays read: ``Round "r.b"``, White/Black never empty,
``TimeControl``, ``[%clock]``, ``Termination`` for a loss on time or an adjudication, the
GameType lidraughts reads, and after a kept irregularity a ``[SetUp "1"] [FEN]`` restart.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from engine.articles import code as article_code
from engine.board import Board
from engine.i18n import N_
from engine.pdn import record_tags
from engine.trace import one_line_problem
from engine.variants import Variant, find_variant
from pi.board.statedir import atomic_write
from pi.board.supersede import waits_for_arbiter, why_touched
from pi.board.view import Phase
from pi.hall.boardview import BoardReplica, GameInfo, ReplicaPages, ReplicatedBoard
from pi.hall.errors import PairingError
from pi.hall.hub_config import HubConfig
from pi.hall.protocol import MAX_BOARD, SEGMENT, parse_board
from pi.hall.replica import GameReplica
from pi.hall.standings import Scoring, outcome, standings
from pi.web.server import (BoardFeed, PublicSnapshot, broadcast_pdn, clock_dict, game_type_tag,
                           public_snapshot)

__all__ = ["Pairings", "RoundsHub", "RoundStart", "pairing_command", "game_feed", "round_feed", "results",
           "results_csv", "csv_cell", "event_feed", "event_standings", "PAIRINGS_FILE",
           "ROUND_FILE"]

log = logging.getLogger(__name__)

PAIRINGS_FILE = "pairings.csv"
#: The round the arbiter started last (``{"round": "3"}``): its pairings go to the boards again
#: after a hub restart, and its boards' clocks are started as they become ready.
ROUND_FILE = "round.json"
#: Seconds before a ``start_clock`` the board did not carry out is sent again.
START_RETRY = 5.0
_HEADER = ["round", "board", "white", "black"]
_MAX_ROWS = 10_000


class Pairings:
    """(round, board's number) → the row {"round", "board", "white", "black"} as the CSV has
    it (text), kept in ``DIR/pairings.csv``."""

    def __init__(self, root: Path) -> None:
        self.path = Path(root) / PAIRINGS_FILE
        self.rows: dict[tuple[str, int], dict[str, str]] = {}

    def load(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        self.rows = {(r["round"], board): r for board, r in _numbered(parse_pairings(text))}

    def merge(self, rows: list[dict[str, str]]) -> list[tuple[int, dict[str, str]]]:
        """New rows (:func:`parse_pairings`'s) replace the same (round, board); the file is
        rewritten atomically. Returns them with their boards' numbers."""
        numbered = _numbered(rows)
        for board, r in numbered:
            self.rows[(r["round"], board)] = r
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(_HEADER)
        for _, r in sorted(self.rows.items()):
            w.writerow([r[k] for k in _HEADER])
        atomic_write(self.path, out.getvalue())
        return numbered

    def of_round(self, rnd: str) -> dict[int, dict[str, str]]:
        return {b: r for (rr, b), r in self.rows.items() if rr == rnd}

    def rounds(self) -> list[str]:
        """The rounds of the pairings, in their order."""
        return sorted({rr for rr, _ in self.rows}, key=round_order)


def round_order(rnd: str) -> tuple[int, float, str]:
    """Rounds in their order: numbers by value ("2" before "10", "3.1" after "3"), then names."""
    try:
        return (0, float(rnd), "")
    except ValueError:
        return (1, 0.0, rnd)


def pairing_command(row: dict[str, str], event: str | None) -> dict[str, str]:
    """A pairings.csv row as the board's ``pairing`` command of a started round (PROTOCOL.md):
    its game's clock waits for the arbiter (``clock_start``), whom the hub stands for once the
    board is set up (:class:`RoundStart`)."""
    pairing = {"round": row["round"], "white": row["white"], "black": row["black"],
               "clock_start": "arbiter"}
    if event:
        pairing["event"] = event
    return pairing


class RoundsHub(Protocol):
    """What the rounds read and do of the hub (``pi.hall.hub.Hub``, which holds the pairings
    and imports this module: a Protocol, so this module does not import it back)."""

    @property
    def files(self) -> Path: ...

    @property
    def pairings(self) -> Pairings: ...

    @property
    def config(self) -> HubConfig: ...

    @property
    def views(self) -> Mapping[int, BoardReplica]: ...

    @property
    def servers(self) -> Mapping[int, ReplicaPages]: ...

    @property
    def pairing_out(self) -> Mapping[int, tuple[str, dict[str, str]]]: ...

    @property
    def pairing_refused(self) -> Mapping[int, str]: ...

    def board(self, board: int) -> BoardReplica: ...

    def push_pairing(self, board: int, pairing: dict[str, str], *, send: bool = True) -> str: ...

    async def act(self, board: int, action: dict[str, Any]) -> object: ...


class RoundStart:
    """"Start round N" of the hall's console (HUB_API.md ``POST /api/rounds/<r>/start``).

    A round starts when the arbiter starts the clocks (COMP 4.4.2). :meth:`start` sends every
    board paired in the round its pairing (its next game's start line takes it) and remembers
    the round (``DIR/round.json``). From then on, once a second (:meth:`tick`), every board of
    that round that is ready — online, its pairing taken, a game of this round begun (the board
    begins one only once the pieces stand as they should, IT 7.1, and the right way round, IT
    7.2), no set-up flag pending — and whose clock has not been started is sent the arbiter
    action ``start_clock`` for that game: the face of the player to move runs, whether or not
    he is there (COMP 6.9, 6.10). :meth:`table` says, board by board, where each stands and,
    for a board not ready, why. Runs on the hub's loop."""

    def __init__(self, hub: RoundsHub) -> None:
        self.hub = hub
        self.path = hub.files / ROUND_FILE
        #: the round started last (None: none yet)
        self.current: str | None = None
        #: board → (game id, monotonic time) of the last ``start_clock`` sent for it
        self._sent: dict[int, tuple[str, float]] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    def load(self) -> None:
        """The round started last, from ``DIR/round.json`` (none when missing or unreadable);
        its boards' pairings kept again for them (sent when each is next seen online: the hub
        cannot know whether a board had it before the hub stopped)."""
        try:
            obj = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        rnd = obj.get("round") if isinstance(obj, dict) else None
        if isinstance(rnd, str) and rnd:
            self.current = rnd
            for board, row in self.hub.pairings.of_round(rnd).items():
                self.hub.board(board)
                self.hub.push_pairing(board, pairing_command(row, self.hub.config.event),
                                      send=False)

    def start(self, rnd: str) -> list[dict[str, Any]]:
        """Starts round ``rnd``: its pairings sent, the round kept; returns :meth:`table`.
        Raises PairingError when no board is paired in it."""
        rows = self.hub.pairings.of_round(rnd)
        if not rows:
            raise PairingError(f"round {rnd[:32]!r} has no pairings (upload them first)")
        atomic_write(self.path, json.dumps({"round": rnd}) + "\n")
        self.current = rnd
        self._sent.clear()
        for board, row in sorted(rows.items()):
            self.hub.board(board)  # listed in the hall before it is heard from
            self.hub.push_pairing(board, pairing_command(row, self.hub.config.event))
        log.info("round %s started: %d boards paired", rnd, len(rows))
        return self.table(rnd)

    def table(self, rnd: str) -> list[dict[str, Any]]:
        """Every board paired in round ``rnd``, in board order: ``board``, ``white``,
        ``black``, ``game_id``, ``state`` (``not_ready``, ``ready``: its clock is being
        started, ``started``, ``over``) and ``why`` (a board not ready: one line)."""
        rows = self.hub.pairings.of_round(rnd)
        return [{"board": str(b), "white": row["white"], "black": row["black"],
                 **self.readiness(b, rnd)}
                for b, row in sorted(rows.items())]

    def readiness(self, board: int, rnd: str) -> dict[str, Any]:
        """Where ``board`` stands in round ``rnd`` (see :meth:`table`)."""
        view = self.hub.board(board)
        s = view.game
        ours = s is not None and str(s.start_line.get("round")) == rnd
        game_id = s.id if s is not None and ours else None

        def out(state: str, why: str = "") -> dict[str, Any]:
            return {"game_id": game_id, "state": state, "why": why}
        if ours and s is not None and view.phase == Phase.OVER:
            return out("over", N_("game over: {result}").format(result=s.arbiter.game.result))
        if ours and s is not None and not s.arbiter.game.moves:
            # a game begun under the round's names after the round's game on this board was
            # played (the players set the pieces up again at once): the round's game is that
            # one, over; this one's clock is not the hub's to start (started, it would be
            # touched, and the next round's pairing could not supersede it)
            played = round_games({board: view}, rnd).get(board)
            if played is not None and played.id != s.id:
                return {"game_id": played.id, "state": "over",
                        "why": N_("game over: {result}").format(result=view.result_of(played))}
        if not view.online:
            return out("not_ready", N_("offline: the board is not connected"))
        pending = self.hub.pairing_out.get(board)
        if pending is not None and pending[1].get("round") == rnd:
            return out("not_ready", N_("its pairing is sent, the board has not taken it yet"))
        refused = self.hub.pairing_refused.get(board)
        if refused is not None:
            return out("not_ready", N_("the board refused its pairing: {why}").format(why=refused))
        if view.faults:
            first = next(iter(view.faults.values()))
            return out("not_ready", N_("sensor fault: {what}").format(
                what=first.message or first.kind))
        if not ours or s is None:
            st = view.retained or {}
            message = str(st.get("message") or "").strip()
            if s is not None and view.phase == Phase.PLAYING:
                # pi.board.supersede: an untouched game gives way to the pairing's at once; a
                # touched one keeps its start line until it ends
                was = s.start_line.get("round") or "?"
                touched = why_touched(s.arbiter, view.touch_of(s.replica),
                                      waits_for_arbiter(s.start_line))
                if touched is None:
                    return out("not_ready", N_(
                        "a game of round {round} begun before the pairing, untouched: the "
                        "board replaces it with round {new}'s game").format(round=was, new=rnd))
                return out("not_ready", N_(
                    "a game of round {round} is still in play ({why}): it keeps its start "
                    "line; round {new}'s game begins when it has ended and the pieces are set "
                    "up again").format(round=was, why=touched, new=rnd))
            # IT 7.1, 7.2: the board begins the game once the pieces stand right
            return out("not_ready", N_("not set up (IT 7.1, 7.2): {message}").format(
                message=message) if message else N_("not set up (IT 7.1, 7.2)"))
        setup = {article_code(s.variant, k) for k in ("setup", "orientation", "light_square")}
        flag = next((f for f in s.arbiter.flags if f.status == "pending" and f.code in setup),
                    None)
        if flag is not None:
            return out("not_ready", N_("{code} pending: {text}").format(code=flag.code,
                                                                         text=flag.text))
        clock = clock_dict(view)
        if clock is None:
            return out("started", N_("no clock on this board"))
        if clock.get("state") == "ready":
            return out("ready")
        return out("started")

    def tick(self) -> None:
        """Starts the clock of every board of the current round that is ready (at most one
        ``start_clock`` per board and game every ``START_RETRY`` s)."""
        rnd = self.current
        if rnd is None:
            return
        now = time.monotonic()
        for board in self.hub.pairings.of_round(rnd):
            r = self.readiness(board, rnd)
            game_id = r["game_id"]
            if r["state"] != "ready" or game_id is None:
                continue
            sent = self._sent.get(board)
            if sent is not None and sent[0] == game_id and now - sent[1] < START_RETRY:
                continue
            self._sent[board] = (game_id, now)
            task = asyncio.get_running_loop().create_task(self._start_clock(board, game_id))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _start_clock(self, board: int, game_id: str) -> None:
        try:
            await self.hub.act(board, {"action": "start_clock", "game": game_id})
            log.info("round %s: board %s's clock started (game %s)", self.current, board, game_id)
        except Exception as exc:  # noqa: BLE001 - an HTTP error or a timeout: tried again
            log.warning("round %s: board %s did not start its clock: %s", self.current, board,
                        getattr(exc, "text", None) or exc)


def _numbered(rows: list[dict[str, str]]) -> list[tuple[int, dict[str, str]]]:
    """The rows of :func:`parse_pairings`, each with its board's number."""
    out = []
    for r in rows:
        board = parse_board(r["board"])
        if board is None:  # parse_pairings refuses it: a row made otherwise
            raise PairingError(f"bad board {r['board'][:20]!r}")
        out.append((board, r))
    return out


def parse_pairings(text: str) -> list[dict[str, str]]:
    """The header line ``round,board,white,black``, then ``round,board,white,black`` rows. Raises
    PairingError (one line): a file whose first line is not the header is refused, not read
    with its first pairing taken for a header."""
    rows = []
    reader = csv.reader(io.StringIO(text))
    header = False
    try:
        for number, fields in enumerate(reader, start=1):
            if not fields or all(not f.strip() for f in fields):
                continue
            if not header:
                got = [f.strip().lstrip("\ufeff").lower() for f in fields]
                if got != _HEADER:
                    raise PairingError(
                        f"line {number}: expected the header {','.join(_HEADER)} "
                        f"first, not {','.join(fields)[:60]!r}")
                header = True
                continue
            if number > _MAX_ROWS:
                raise PairingError(f"more than {_MAX_ROWS} lines")
            if len(fields) != 4:
                raise PairingError(f"line {number}: expected round,board,white,black "
                                   f"({len(fields)} fields)")
            rnd, board, white, black = (f.strip() for f in fields)
            if not rnd or len(rnd) > 32 or not SEGMENT.fullmatch(rnd):
                raise PairingError(f"line {number}: bad round {rnd[:20]!r}")
            if parse_board(board) is None:
                raise PairingError(f"line {number}: bad board {board[:20]!r} (a board number "
                                   f"1..{MAX_BOARD}, as the hall names boards)")
            for name, value in (("white", white), ("black", black)):
                # issue 38: a separator (U+2028, U+0085) is journaled raw, and split at by
                # every reader that takes it for a line's end
                if len(value) > 200 or '"' in value or one_line_problem(value) is not None:
                    raise PairingError(f"line {number}: {name}: at most 200 characters, no "
                                       "quotes, control or line-separator characters")
            rows.append({"round": rnd, "board": board, "white": white, "black": black})
    except csv.Error as exc:
        raise PairingError(f"not CSV: {exc}") from None
    return rows


# ---------------------------------------------------------------------- feeds


def _termination(code: str | None, reason: str | None, variant: Variant) -> str | None:
    if code is None:
        return None
    if code == article_code(variant, "lost_on_time") or (reason or "").endswith("out of time"):
        return "time forfeit"
    if "adjudicated" in (reason or ""):
        return "adjudication"
    return None


def _placeholder(start: dict[str, Any], variant: Variant) -> PublicSnapshot:
    fen = start.get("fen") if isinstance(start.get("fen"), str) else None
    board = Board(fen, variant) if fen else Board(None, variant)
    tags = record_tags(start)
    if start.get("time_control"):
        tags["TimeControl"] = str(start["time_control"])
    return PublicSnapshot(0, time.time(), [], [], board.fen(), "*", None,
                          board.fen() if fen else None, tags,
                          game_type_tag(variant))


def _shown(view: ReplicatedBoard, feed: BoardFeed, g: GameReplica, delay: float
           ) -> tuple[PublicSnapshot | None, str | None, str | None]:
    """The public view of game ``g`` of the board: (snapshot, outcome code, reason)."""
    s = view.game
    if s is not None and s.id == g.id:
        snap = feed.public_pdn_snapshot()
        if snap is None or snap.tags.get("_id") != g.id:
            return None, None, None
        o = s.arbiter.game.outcome
        return snap, None if o is None else o.code, None if o is None else o.reason
    info: GameInfo = view.info(g, report=True)
    if delay > 0:
        try:
            age = time.time() - g.path.stat().st_mtime
        except OSError:
            age = 0.0
        if age < delay:  # ended within the delay: what the public had when the board moved on
            kept = view.kept.get(g.id)
            return kept, None, None
    if info.report is None:
        return None, None, None
    snap = public_snapshot(g.id, info.report.game, info.report.flags, g.held, None)
    return snap, info.code, info.reason


def game_feed(view: ReplicatedBoard, feed: BoardFeed, g: GameReplica | None, rnd: str | None,
              pairing: dict[str, str] | None, event: str | None, delay: float
              ) -> tuple[str, float]:
    """One game's broadcast PDN (``g`` None: the paired board's game not begun) and when it
    last changed."""
    start = view.start_of(g) if g is not None else {}
    try:
        variant = find_variant(str(start.get("variant") or "italian"))
    except Exception:  # noqa: BLE001 - a start line the engine refuses: shown as Italian
        variant = find_variant("italian")
    snap, code, reason = (None, None, None)
    if g is not None:
        snap, code, reason = _shown(view, feed, g, delay)
    # what names the game: its start line, else the pairing and the hall's event
    known: dict[str, Any] = {"event": event, **(pairing or {})}
    known.update({k: v for k, v in start.items() if v not in (None, "")})
    if rnd is not None:
        known["round"] = rnd
    known["board"] = view.board
    if snap is None:
        snap = _placeholder(known, variant)
    tags = {**snap.tags, **record_tags(known, board_in_round=True)}
    tags.setdefault("TimeControl", "-")
    term = _termination(code, reason, variant) if snap.result != "*" else None
    if term is not None:
        tags["Termination"] = term
    return broadcast_pdn(replace(snap, tags=tags), variant), snap.wall


def round_games(views: Mapping[int, ReplicatedBoard], rnd: str) -> dict[int, GameReplica]:
    """Per board, its game of round ``rnd``: the newest game of the round that was played (a
    move or a result), else its newest. A game superseded by a pairing before play is no game
    of a round (``pi.board.supersede``); nor does a game begun after the round's game ended,
    still under its names and touched before the next round started (a player's press: it
    keeps its start line), take the played game's row, feed and result."""
    out = {}
    for board, view in views.items():
        ours = [g for g in reversed(view.games())
                if str(view.start_of(g).get("round")) == rnd and not view.superseded(g)]
        if len(ours) > 1:  # rare: only then is a game replayed to tell
            out[board] = next((g for g in ours if _played(view.info(g))), ours[0])
        elif ours:
            out[board] = ours[0]
    return out


def _played(info: GameInfo) -> bool:
    return info.moves > 0 or info.result != "*"


def round_feed(hub: RoundsHub, rnd: str) -> tuple[str, float] | None:
    """The round's multi-game PDN in board-number order; None when the round has no board."""
    games = round_games(hub.views, rnd)
    paired = hub.pairings.of_round(rnd)
    boards = sorted(set(games) | set(paired))
    if not boards:
        return None
    texts, last = [], 0.0
    for b in boards:
        view = hub.board(b)
        text, wall = game_feed(view, hub.servers[b].feeds, games.get(b), rnd, paired.get(b),
                               hub.config.event, hub.config.broadcast_delay * 60.0)
        texts.append(text)
        last = max(last, wall)
    return "\n".join(texts), last


def _played_rounds(hub: RoundsHub) -> set[tuple[str, int]]:
    """Every (round, board) a game of a round was begun on (a superseded one is none)."""
    keys: set[tuple[str, int]] = set()
    for board, view in hub.views.items():
        for g in view.games():
            rnd = view.start_of(g).get("round")
            if rnd is not None and not view.superseded(g):
                keys.add((str(rnd), board))
    return keys


def event_feed(hub: RoundsHub) -> tuple[str, float] | None:
    """``GET /event.pdn``: every round's games, one PDN after another in round then board
    order, each as its round feed has it (:func:`game_feed`: the broadcast policy's public
    view); a paired board whose game has not begun has no place here. None: no game yet."""
    rounds = sorted({rnd for rnd, _ in _played_rounds(hub)}, key=round_order)
    texts, last = [], 0.0
    for rnd in rounds:
        games = round_games(hub.views, rnd)
        paired = hub.pairings.of_round(rnd)
        for b in sorted(games):
            text, wall = game_feed(hub.board(b), hub.servers[b].feeds, games[b], rnd,
                                   paired.get(b), hub.config.event,
                                   hub.config.broadcast_delay * 60.0)
            texts.append(text)
            last = max(last, wall)
    if not texts:
        return None
    return "\n".join(texts), last


def event_standings(rows: list[dict[str, Any]], rnd: str | None, scoring: Scoring
                    ) -> dict[str, Any] | None:
    """``GET /api/standings``: the standings after round ``rnd`` (its games and the earlier
    rounds' counted, :func:`pi.hall.standings.standings`) of the results ``rows``
    (:func:`results`). ``rnd`` None: the newest round with a result, else the first. None: a
    round ``rnd`` the results do not have."""
    rounds = sorted({str(r["round"]) for r in rows}, key=round_order)
    if rnd is None:
        decided = [r["round"] for r in rows if outcome(str(r["result"])) is not None]
        rnd = max(decided, key=round_order) if decided else (rounds[0] if rounds else None)
    elif rnd not in rounds:
        return None
    counted = [] if rnd is None else \
        sorted((r for r in rows if round_order(str(r["round"])) <= round_order(rnd)),
               key=lambda r: (round_order(str(r["round"])), r["board"]))
    return {"round": rnd, "rounds": rounds, "points": scoring.points_text,
            "tie_break": list(scoring.tie_break), "players": standings(counted, scoring)}


def results(hub: RoundsHub, arbiter_view: bool) -> list[dict[str, Any]]:
    """Every paired or played (round, board): players and result (HUB_API.md; ``board`` the
    board's number, written as text by the HTTP side)."""
    keys: set[tuple[str, int]] = set(hub.pairings.rows) | _played_rounds(hub)
    out = []
    for rnd, board in sorted(keys):
        view = hub.board(board)
        played = round_games({board: view}, rnd).get(board)
        pairing = hub.pairings.rows.get((rnd, board), {})
        result = "*"
        start: dict[str, Any] = {}
        if played is not None:
            start = view.start_of(played)
            if arbiter_view:
                result = view.result_of(played)
            else:
                snap, _, _ = _shown(view, hub.servers[board].feeds, played,
                                    hub.config.broadcast_delay * 60.0)
                result = "*" if snap is None else snap.result
        out.append({"round": rnd, "board": board,
                    "white": start.get("white") or pairing.get("white") or "?",
                    "black": start.get("black") or pairing.get("black") or "?",
                    "result": result, "game_id": None if played is None else played.id})
    return out


#: A spreadsheet reads a cell beginning with one of these as a formula (OWASP, "CSV
#: Injection"): ``=cmd|' /C calc'!A0`` as a player's name.
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> str:
    """``value`` as a cell a spreadsheet shows as text: one that would begin a formula is
    prefixed with ``'`` (OWASP's advice; the cell still shows the name)."""
    text = "" if value is None else str(value)
    return "'" + text if text.startswith(_FORMULA) else text


def results_csv(rows: list[dict[str, Any]]) -> str:
    """``GET /results.csv``: every cell through :func:`csv_cell`."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["round", "board", "white", "black", "result"])
    for r in rows:
        w.writerow([csv_cell(r[k]) for k in ("round", "board", "white", "black", "result")])
    return out.getvalue()
