"""The hall's rounds: the pairings (CSV in, ``pairing`` commands out, kept in
``DIR/pairings.csv``), the round feeds for broadcasters (``/rounds/<r>/games.pdn``, one PDN per
board) and the results table (HUB_API.md).

Round feeds follow the broadcast policy (``pi.web.views.public_snapshot``: moves under a pending
irregularity held; the delay of ``broadcast_delay``), list the round's boards in board-number
order with a place for every paired board whose game has not begun (lidraughts' relay matches
games by position), and carry what relays read: ``Round "r.b"``, White/Black never empty,
``TimeControl``, ``[%clock]``, ``Termination`` for a loss on time or an adjudication, the
GameType lidraughts reads, and after a kept irregularity a ``[SetUp "1"] [FEN]`` restart.
"""

from __future__ import annotations

import csv
import io
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.articles import code as article_code
from engine.board import Board
from engine.pdn import record_tags
from engine.variants import Variant, find_variant
from pi.board.statedir import atomic_write
from pi.hall.boardview import BoardReplica, GameInfo, ReplicaServer
from pi.hall.errors import PairingError
from pi.hall.protocol import SEGMENT
from pi.hall.replica import GameReplica, board_key
from pi.web.views import PublicSnapshot, broadcast_pdn, game_type_tag, public_snapshot

if TYPE_CHECKING:  # the hub holds the pairings: it imports this module
    from pi.hall.hub import Hub

__all__ = ["Pairings", "game_feed", "round_feed", "results", "results_csv",
           "PAIRINGS_FILE"]

PAIRINGS_FILE = "pairings.csv"
_HEADER = ["round", "board", "white", "black"]
_MAX_ROWS = 10_000


class Pairings:
    """(round, board) → {"round", "board", "white", "black"}, kept in ``DIR/pairings.csv``."""

    def __init__(self, root: Path) -> None:
        self.path = Path(root) / PAIRINGS_FILE
        self.rows: dict[tuple[str, str], dict[str, str]] = {}

    def load(self) -> None:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        self.rows = {(r["round"], r["board"]): r for r in parse_pairings(text)}

    def merge(self, rows: list[dict[str, str]]) -> None:
        """New rows replace the same (round, board); the file is rewritten atomically."""
        for r in rows:
            self.rows[(r["round"], r["board"])] = r
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(_HEADER)
        for r in sorted(self.rows.values(), key=_row_key):
            w.writerow([r[k] for k in _HEADER])
        atomic_write(self.path, out.getvalue())

    def of_round(self, rnd: str) -> dict[str, dict[str, str]]:
        return {b: r for (rr, b), r in self.rows.items() if rr == rnd}


def _row_key(r: dict[str, str]) -> tuple[Any, ...]:
    return (r["round"], board_key(r["board"]))


def parse_pairings(text: str) -> list[dict[str, str]]:
    """A header line, then ``round,board,white,black`` rows. Raises PairingError (one line)."""
    rows = []
    reader = csv.reader(io.StringIO(text))
    try:
        for number, fields in enumerate(reader, start=1):
            if number == 1 or not fields or all(not f.strip() for f in fields):
                continue
            if number > _MAX_ROWS:
                raise PairingError(f"more than {_MAX_ROWS} lines")
            if len(fields) != 4:
                raise PairingError(f"line {number}: expected round,board,white,black "
                                   f"({len(fields)} fields)")
            rnd, board, white, black = (f.strip() for f in fields)
            if not rnd or len(rnd) > 32 or not SEGMENT.fullmatch(rnd):
                raise PairingError(f"line {number}: bad round {rnd[:20]!r}")
            if not SEGMENT.fullmatch(board):
                raise PairingError(f"line {number}: bad board {board[:20]!r}")
            for name, value in (("white", white), ("black", black)):
                if len(value) > 200 or '"' in value or any(ord(c) < 32 for c in value):
                    raise PairingError(f"line {number}: {name}: at most 200 characters, no "
                                       "quotes or control characters")
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


def _shown(view: BoardReplica, ws: ReplicaServer, g: GameReplica, delay: float
           ) -> tuple[PublicSnapshot | None, str | None, str | None]:
    """The public view of game ``g`` of the board: (snapshot, outcome code, reason)."""
    s = view.game
    if s is not None and s.id == g.id:
        snap = ws.public_pdn_snapshot()
        if snap is None or snap.tags.get("_id") != g.id:
            return None, None, None
        o = s.arbiter.game.outcome
        return snap, None if o is None else o.code, None if o is None else o.reason
    info: GameInfo = view.info(g)
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


def game_feed(view: BoardReplica, ws: ReplicaServer, g: GameReplica | None, rnd: str | None,
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
        snap, code, reason = _shown(view, ws, g, delay)
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


def round_games(views: dict[str, BoardReplica], rnd: str) -> dict[str, GameReplica]:
    """Per board, its newest game of round ``rnd``."""
    out = {}
    for board, view in views.items():
        for g in reversed(view.games()):
            if str(view.start_of(g).get("round")) == rnd:
                out[board] = g
                break
    return out


def round_feed(hub: Hub, rnd: str) -> tuple[str, float] | None:
    """The round's multi-game PDN in board-number order; None when the round has no board."""
    games = round_games(hub.views, rnd)
    paired = hub.pairings.of_round(rnd)
    boards = sorted(set(games) | set(paired), key=board_key)
    if not boards:
        return None
    texts, last = [], 0.0
    for b in boards:
        view = hub.board(b)
        text, wall = game_feed(view, hub.servers[b], games.get(b), rnd, paired.get(b),
                               hub.config.event, hub.config.broadcast_delay * 60.0)
        texts.append(text)
        last = max(last, wall)
    return "\n".join(texts), last


def results(hub: Hub, arbiter_view: bool) -> list[dict[str, Any]]:
    """Every paired or played (round, board): players and result (HUB_API.md)."""
    keys: set[tuple[str, str]] = set(hub.pairings.rows)
    for board, view in hub.views.items():
        for g in view.games():
            rnd = view.start_of(g).get("round")
            if rnd is not None:
                keys.add((str(rnd), board))
    out = []
    for rnd, board in sorted(keys, key=lambda k: (k[0], board_key(k[1]))):
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
                snap, _, _ = _shown(view, hub.servers[board], played,
                                    hub.config.broadcast_delay * 60.0)
                result = "*" if snap is None else snap.result
        out.append({"round": rnd, "board": board,
                    "white": start.get("white") or pairing.get("white") or "?",
                    "black": start.get("black") or pairing.get("black") or "?",
                    "result": result, "game_id": None if played is None else played.id})
    return out


def results_csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["round", "board", "white", "black", "result"])
    for r in rows:
        w.writerow([r["round"], r["board"], r["white"], r["black"], r["result"]])
    return out.getvalue()
