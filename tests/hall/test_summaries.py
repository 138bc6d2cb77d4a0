"""The hall's summaries (``pi.hall.summaries``, issue 39), on their own over a hub's registry:
a board with no game, a board in play as the arbiter and the public see it, the flags of the
boards' games (the live stream and the HTTP side: ``test_hall_sse.py``, ``test_hub_http.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from pi.hall import protocol as P
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from pi.hall.summaries import Summaries
from tests.hall.hub_rig import SAMPLE, trace_lines

BOARD = 7
GAME = "2026-11-22T0900-b07-001"
KEYS = ["board", "online", "last_heard", "game_id", "event", "round", "white", "black",
        "variant", "size", "fen", "moves", "last_move", "clock", "result", "pending_flags",
        "sensor_faults", "lines", "missing"]


def _hub(root: Path, lines: int) -> Hub:
    hub = Hub(HubConfig(hall="t", state_dir=root, accept_unsigned=frozenset({BOARD})), root)
    texts = trace_lines(SAMPLE, game=GAME, board=BOARD, white="Ann", black="Bob")[:lines]
    hub.deliver([(hub.topics.board(BOARD, "journal"), P.journal_payload(GAME, n, t))
                 for n, t in enumerate(texts, start=1)])
    return hub


def test_a_board_never_heard_is_summed_up_empty_and_registered(tmp_path: Path) -> None:
    hub = _hub(tmp_path, 0)
    summaries = Summaries(hub.boards, missing=lambda board: 3)
    s = summaries.summary(12, arbiter_view=False)
    hub.close()
    assert list(s) == KEYS
    assert s["board"] == "12" and s["game_id"] is None and s["moves"] == 0
    assert s["missing"] == 3 and 12 in hub.boards.views


def test_a_board_in_play_as_the_arbiter_and_the_public_see_it(tmp_path: Path) -> None:
    hub = _hub(tmp_path, 30)
    summaries = Summaries(hub.boards, missing=lambda board: 0)
    arbiter = summaries.summary(BOARD, arbiter_view=True)
    public = summaries.summary(BOARD, arbiter_view=False)
    game = hub.views[BOARD].game
    hub.close()
    assert game is not None and game.id == GAME
    assert list(arbiter) == KEYS and list(public) == KEYS
    played = len(game.arbiter.game.moves)
    assert played > 0 and arbiter["moves"] == played
    assert arbiter["white"] == public["white"] == "Ann" and arbiter["black"] == "Bob"
    assert arbiter["lines"] == 30 and arbiter["game_id"] == public["game_id"] == GAME
    assert arbiter["fen"] == game.arbiter.game.board.fen()
    assert public["moves"] <= played  # a move held from the public is never more


def test_the_flags_are_every_board_game_flag_with_its_board(tmp_path: Path) -> None:
    hub = _hub(tmp_path, 10_000)
    summaries = Summaries(hub.boards, missing=lambda board: 0)
    flags = summaries.flags()
    game = hub.views[BOARD].game
    hub.close()
    assert game is not None
    assert len(flags) == len(game.arbiter.flags)
    assert all(f["board"] == str(BOARD) and f["game_id"] == GAME for f in flags)
    assert json.dumps(flags)  # the JSON of /api/flags
