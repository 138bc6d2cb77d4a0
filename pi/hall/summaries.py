"""The hall's summaries (HUB_API.md): each board summed up for the hall page (``/api/hall``
and the ``board`` events of its live stream), and the flags of every board's current game
(``/api/flags``, the ``flag`` events). Read only; loop thread only."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.decisions import FlagDecided, FlagRaised
from engine.replay import Fed
from pi.hall.boardview import ReplayedGame
from pi.hall.registry import BoardRegistry
from pi.web.server import clock_dict, flag_dict, frozen_clock

__all__ = ["Summaries"]


class Summaries:
    """The boards of ``boards`` summed up; ``missing(board)``: the lines known to exist at the
    board and not held."""

    def __init__(self, boards: BoardRegistry, missing: Callable[[int], int]) -> None:
        self.boards = boards
        self.missing = missing
        #: per board: the game it shows and what its summary says of it that never changes
        #: (event, round, white, black, variant, size), read from its start line once
        self._heads: dict[int, tuple[ReplayedGame, tuple[Any, str | None, Any, Any, str, int]]] \
            = {}

    def summary(self, board: int, arbiter_view: bool) -> dict[str, Any]:
        """The board summary of HUB_API.md (built for every journal line of every board with a
        hall page open: one dict made whole, its keys always in the same order)."""
        view = self.boards.views.get(board)
        if view is None:
            view = self.boards.board(board)
        s = view.game
        if s is None or view.superseded(s.replica):  # void: no game of a round
            return {"board": str(board), "online": view.online, "last_heard": view.last_heard,
                    "game_id": None, "event": None, "round": None, "white": None,
                    "black": None, "variant": None, "size": None, "fen": None, "moves": 0,
                    "last_move": None, "clock": None, "result": "*", "pending_flags": 0,
                    "sensor_faults": len(view.faults), "lines": 0,
                    "missing": self.missing(board)}
        game = s.arbiter.game
        heads = self._heads.get(board)
        if heads is None or heads[0] is not s:
            line = s.start_line
            heads = self._heads[board] = (s, (
                line.get("event"), _str(line.get("round")), line.get("white"),
                line.get("black"), s.variant.name, s.variant.size))
        event, round_, white, black, variant, size = heads[1]
        feeds = self.boards.servers[board].feeds
        clock: dict[str, Any] | None = None
        if arbiter_view:
            fen, moves, result = view.live_fen(), len(game.moves), game.result
            last_move = game.moves[-1].notation if game.moves else None
            clock = clock_dict(view)
        else:
            snap = feeds.snapshot if feeds.delay <= 0 else feeds.public_snap
            if feeds.delay > 0 and (snap is None or snap.tags.get("_id") != s.id):
                fen, moves, result, last_move = game.start_fen, 0, "*", None
            elif snap is None:
                fen, moves, result = view.live_fen(), len(game.moves), game.result
                last_move = game.moves[-1].notation if game.moves else None
            else:
                fen, moves, result = snap.fen, len(snap.moves), snap.result
                last_move = snap.moves[-1].get("notation") if snap.moves else None
            if feeds.delay <= 0:
                # the board page's public clock: frozen while a move is held (its count and
                # the face it set running would tell it)
                clock = frozen_clock(snap.clock) if snap is not None and snap.held else \
                    clock_dict(view)
            elif snap is not None and snap.tags.get("_id") == s.id and \
                    feeds.public_state is not None:
                clock = feeds.public_state.get("clock")
        return {"board": str(board), "online": view.online, "last_heard": view.last_heard,
                "game_id": s.id, "event": event, "round": round_, "white": white,
                "black": black, "variant": variant, "size": size, "fen": fen,
                "moves": moves, "last_move": last_move, "clock": clock, "result": result,
                "pending_flags": sum(1 for f in s.arbiter.flags if f.status == "pending"),
                "sensor_faults": len(view.faults), "lines": s.replica.held,
                "missing": self.missing(board)}

    def flags(self) -> list[dict[str, Any]]:
        """Every flag of the boards' current games, newest first (HUB_API.md)."""
        out: list[dict[str, Any]] = []
        for board, view in self.boards.views.items():
            s = view.game
            if s is None:
                continue
            ws = self.boards.servers[board]
            for f in s.arbiter.flags:
                out.append({"board": str(board), "round": _str(s.start_line.get("round")),
                            "game_id": s.id, "flag": flag_dict(f, ws.feeds.flag_lines.get(f.id)),
                            "wall": view.flag_walls.get(f.id)})
        out.sort(key=lambda x: (x["wall"] or 0.0, x["flag"]["t"]), reverse=True)
        return out

    def flag_events(self, board: int, feds: list[Fed]) -> list[dict[str, Any]]:
        ws = self.boards.servers[board]
        out = []
        for fed in feds:
            for d in fed.decisions:
                if isinstance(d, (FlagRaised, FlagDecided)):
                    out.append({"board": str(board), "flag": flag_dict(d.flag,
                                                                  ws.feeds.flag_lines.get(d.flag.id))})
        return out


def _str(value: Any) -> str | None:
    return None if value is None else str(value)
