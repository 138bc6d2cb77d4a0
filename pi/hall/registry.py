"""The hall's boards (``pi.hall.hub``'s registry): each board the hub has heard of or that is
paired, as its view rebuilt from the replica (:class:`pi.hall.boardview.BoardReplica`), the
parts its own pages are served from (:class:`pi.hall.boardview.ReplicaPages`) and its last
lines taken (the answer of an arbiter's action names its decisions). Loop thread only."""

from __future__ import annotations

from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from engine.replay import Fed
from pi.hall.boardview import BoardReplica, ReplicaPages
from pi.web.server import BoardFeed

__all__ = ["BoardRegistry", "MAX_LIVE_CLIENTS", "RECENT"]

#: Live SSE clients of all boards' streams together (each board's own limit is 200).
MAX_LIVE_CLIENTS = 2000
#: A board's last lines kept (the decisions of an action's line, once acknowledged).
RECENT = 64


class BoardRegistry:
    """The boards by number. ``delay_minutes``: the hall's broadcast delay; ``act(board,
    command)``: an arbiter action sent to a board (the hub's commands); ``broadcast(view,
    feed)``: a board's broadcast PDN as the hall serves it."""

    def __init__(self, *, delay_minutes: float,
                 act: Callable[[int, dict[str, Any]], Awaitable[web.Response]],
                 broadcast: Callable[[BoardReplica, BoardFeed], tuple[str, float] | None],
                 max_live: int = MAX_LIVE_CLIENTS) -> None:
        self.delay_minutes = delay_minutes
        self.act = act
        self.broadcast = broadcast
        self.max_live = max_live
        self.views: dict[int, BoardReplica] = {}
        #: per board: the parts its own pages are served from (``/boards/<N>/``)
        self.servers: dict[int, ReplicaPages] = {}
        self.recent: dict[int, deque[Fed]] = {}

    def board(self, board: int) -> BoardReplica:
        """Board ``board``'s view, made (with its pages' parts) the first time it is named;
        its feeds started when a loop runs."""
        view = self.views.get(board)
        if view is None:
            view = BoardReplica(board)
            self.views[board] = view
            pages = ReplicaPages(view, delay_minutes=self.delay_minutes, act=self.act,
                                 broadcast=lambda feed: self.broadcast(view, feed),
                                 hall_clients=self.live_clients, hall_max=self.max_live)
            self.servers[board] = pages
            self.recent[board] = deque(maxlen=RECENT)
            try:
                pages.start_feeds()
            except RuntimeError:  # no running loop (a synchronous test): nothing to release
                pass
        return view

    def live_clients(self) -> int:
        """Live SSE clients of all boards' streams."""
        return sum(len(ws.feeds.arbiter_stream.clients) + len(ws.feeds.public_stream.clients)
                   for ws in self.servers.values())
