"""The hub's board registry (``pi.hall.registry``, issue 39): a board named once has one view and
one set of page parts for good, its broadcast feed is the registry's own function of (view,
feed), and the hub's limit on live clients counts every board's streams."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

from pi.board.arbiter_request import check_arbiter_request
from pi.hall.boardview import BoardReplica
from pi.hall.registry import BoardRegistry
from pi.web.feeds import Client
from pi.web.server import BoardFeed


async def _act(board: int, command: dict[str, Any]) -> web.Response:
    return web.json_response({"board": str(board), "command": command})


def test_a_board_named_twice_is_one_board_with_its_own_pages() -> None:
    registry = BoardRegistry(delay_minutes=0.0, act=_act, broadcast=lambda view, feed: None)
    view = registry.board(7)
    assert registry.board(7) is view and list(registry.views) == [7]
    pages = registry.servers[7]
    assert pages.parts.view is view and pages.parts.feed is pages.feeds
    assert dict(pages.parts.about) == {"simulate": False, "hall": True, "board": "7"}
    assert registry.recent[7].maxlen == 64


def test_the_broadcast_feed_is_asked_of_the_board_and_its_feed() -> None:
    asked: list[tuple[BoardReplica, BoardFeed]] = []

    def broadcast(view: BoardReplica, feed: BoardFeed) -> tuple[str, float] | None:
        asked.append((view, feed))
        return ("[Event \"x\"]\n\n*\n", 12.0) if view.board == 3 else None
    registry = BoardRegistry(delay_minutes=0.0, act=_act, broadcast=broadcast)
    three, four = registry.board(3), registry.board(4)
    assert registry.servers[3].feeds.broadcast() == ("[Event \"x\"]\n\n*\n", 12.0)
    assert registry.servers[4].feeds.broadcast() is None
    assert asked == [(three, registry.servers[3].feeds), (four, registry.servers[4].feeds)]


def test_live_clients_of_every_board_count_towards_the_hall_limit() -> None:
    registry = BoardRegistry(delay_minutes=0.0, act=_act, broadcast=lambda view, feed: None,
                             max_live=3)
    for board in (1, 2):
        registry.board(board)
    one, two = registry.servers[1], registry.servers[2]
    assert registry.live_clients() == 0 and not one.crowded()
    one.feeds.public_stream.clients.add(Client(asyncio.Queue()))
    two.feeds.arbiter_stream.clients.add(Client(asyncio.Queue()))
    assert registry.live_clients() == 2 and not two.parts.crowded()
    two.feeds.public_stream.clients.add(Client(asyncio.Queue()))
    assert registry.live_clients() == 3
    assert one.parts.crowded() and two.parts.crowded()  # the limit is the hall's, not a board's


def test_an_action_on_a_board_page_goes_to_the_registry_act_with_its_board() -> None:
    registry = BoardRegistry(delay_minutes=0.0, act=_act, broadcast=lambda view, feed: None)
    registry.board(12)
    request = check_arbiter_request({"action": "note", "text": "checked"})
    answer = asyncio.run(registry.servers[12].parts.actions.act(request))
    assert isinstance(answer.body, bytes)
    assert json.loads(answer.body) == {"board": "12", "command": request.to_command()}
