"""The actions on an earlier game (``pi.board.earlier.EarlierGames``, issue 39: they left the
controller for an object of their own): refused in one line before anything is opened or asked.
A note and a result corrected on an earlier game, through the board, its files and its marker:
``test_result_correction_daemon.py`` (COMP 6.16)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from pi.board.arbiter_request import ArbiterRequest
from pi.board.config import Config
from pi.board.earlier import EarlierGames
from pi.board.errors import ActionRefused
from pi.board.session import GameSession
from pi.board.statedir import StateDir


def test_an_action_for_a_game_the_board_never_had_is_refused(tmp_path: Path) -> None:
    asked: list[str] = []
    told: list[str] = []

    def wall() -> float | None:
        asked.append("wall")
        return None
    earlier = EarlierGames(StateDir.open(tmp_path), [told.append])
    with pytest.raises(ActionRefused, match="no game nope on this board: not done"):
        asyncio.run(earlier.act(ArbiterRequest("note", text="late", game="nope"), wall,
                                closing=()))
    assert asked == [] and told == []


def test_a_game_not_over_or_still_closing_is_refused(tmp_path: Path) -> None:
    state = StateDir.open(tmp_path)
    session = GameSession.begin(state, Config().start_line())
    session.close()
    earlier = EarlierGames(state, [])
    request = ArbiterRequest("note", text="late", game=session.id)
    with pytest.raises(ActionRefused, match=f"game {session.id} is not over yet: not done"):
        asyncio.run(earlier.act(request, lambda: None, closing=()))
    state.game(session.id).mark_finished("*")
    assert state.game(session.id).is_finished()
    # finished on disk, but its close still running on its own thread (the next game began)
    with pytest.raises(ActionRefused, match="is not over yet"):
        asyncio.run(earlier.act(request, lambda: None, closing={session.id}))
