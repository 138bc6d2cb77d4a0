"""The board's durable read side (``pi.board.durable.DurableViews``) on a real session: what the
readers (the web, the hall) see is the game as the lines handed out so far leave it, while the
arbiter (and the screen) is already on the lines still waiting for their fsync. The controller
drives it (``pi.board.controller``); here each call is made by hand, in the controller's order:
a view kept before a line is fed, a line released once durable.

The end to end checks, on the daemon with the journal's fsync held, are
``tests/web/test_state_durable.py``; the controller's write-behind ones
``tests/pi/test_controller.py``."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.board import Board
from engine.decisions import MoveCommitted
from engine.events import ButtonPressed, PieceLifted, PiecePlaced, SnapshotTaken
from pi.board.durable import DurableViews, GameAt
from pi.board.session import GameSession
from pi.board.statedir import StateDir

START: dict[str, Any] = {"type": "start", "variant": "italian", "fen": None, "clock": True,
                         "transcribed": True, "time_control": "600", "white": "Rossi",
                         "black": "Bianchi"}
#: A game without clock: a move is committed after ``settle`` quiet seconds (docs/trace-format.md), by
#: time alone, with no line.
NO_CLOCK: dict[str, Any] = {**START, "clock": False, "time_control": None, "settle": 1.0}
INITIAL = Board(None, "italian").occupied_algebraic()


@pytest.fixture
def state(tmp_path: Path) -> Iterator[StateDir]:
    with StateDir.open(tmp_path / "state") as sd:
        yield sd


def _begun(views: DurableViews, session: GameSession) -> None:
    """The controller's ``_begin``: reset, the start line's view, the snapshot, line 1 out."""
    views.reset()
    views.keep(session)
    session.feed(SnapshotTaken(0.0, INITIAL))
    views.release(1)


def _kept(views: DurableViews) -> list[int]:
    """The lines of the views kept, oldest first."""
    return list(views.kept)


def _view(views: DurableViews, session: GameSession) -> GameAt:
    seen = views.current(session)
    assert isinstance(seen, GameAt), seen
    return seen


def test_readers_see_the_game_as_the_lines_handed_out_leave_it(state: StateDir) -> None:
    session = GameSession.begin(state, START)
    views = DurableViews()
    _begun(views, session)
    assert views.released == 1 and _kept(views) == [1]
    assert _view(views, session).line == 1
    # IT 22-18 (d3-c4, IT 2.4), completed by the press (COMP 4.5): a view before each line
    for event in (PieceLifted(1.0, "d3"), PiecePlaced(1.4, "c4"),
                  ButtonPressed(2.0, "clock", "white")):
        views.keep(session)
        views.keep(session)  # once per line
        session.feed(event)
    assert _kept(views) == [1, 2, 3, 4] and session.journal.line_count == 5
    assert len(session.arbiter.game.moves) == 1  # decided on (the screen shows it) ...
    seen = _view(views, session)
    assert seen.line == 1 and seen.arbiter.game.moves == []  # ... the readers see none of it
    # lines made durable, in order: the older views dropped, the readers move on
    views.release(2)
    assert views.released == 2 and _kept(views) == [2, 3, 4]
    assert _view(views, session).line == 2
    views.release(4)
    assert _kept(views) == [4] and _view(views, session).arbiter.game.moves == []
    views.release(5)
    assert _kept(views) == []
    assert views.current(session) is session  # everything out: the game itself, with the move
    # and the view of the next line is kept ahead, off the way from the sensors to the screen
    views.keep_ahead(session)
    assert _kept(views) == [5]
    views.keep(session)
    assert _kept(views) == [5]


def test_the_record_read_is_the_one_of_the_line_handed_out(state: StateDir) -> None:
    """``/game.pdn`` and the report read the game the readers see: a move decided on but still
    waiting for its fsync is not in them (nothing leaves the board before its line is
    durable)."""
    session = GameSession.begin(state, START)
    views = DurableViews()
    _begun(views, session)
    # IT 22-18 (d3-c4, IT 2.4), completed by the press (COMP 4.5)
    for event in (PieceLifted(1.0, "d3"), PiecePlaced(1.4, "c4"),
                  ButtonPressed(2.0, "clock", "white")):
        views.keep(session)
        session.feed(event)
    assert "1. 22-18" in session.report().pdn()  # the session has it ...
    views.release(4)
    seen = _view(views, session)
    report = seen.report()
    assert report.game.moves == [] and "22-18" not in report.pdn()  # ... the readers not yet
    assert report.flags == list(seen.arbiter.flags)
    views.release(5)
    assert views.current(session) is session  # the line out: the move is in the record read
    assert "1. 22-18" in views.current(session).report().pdn()


def test_keep_ahead_waits_for_every_line_and_an_open_journal(state: StateDir) -> None:
    session = GameSession.begin(state, START)
    views = DurableViews()
    _begun(views, session)
    views.keep(session)
    session.feed(PieceLifted(1.0, "d3"))
    views.release(2)
    views.keep_ahead(session)  # line 3 is not out: nothing kept ahead
    assert _kept(views) == [2]
    views.release(3)
    session.close()
    views.keep_ahead(session)  # a closed journal has no next line
    assert _kept(views) == []


def test_reset_starts_over_for_a_new_or_a_resumed_game(state: StateDir) -> None:
    session = GameSession.begin(state, START)
    views = DurableViews()
    _begun(views, session)
    views.keep(session)
    session.feed(PieceLifted(1.0, "d3"))
    assert _kept(views) == [1, 2]
    # a resume: every line so far durable and out, no view kept
    views.reset(session.journal.line_count)
    assert views.released == 3 and _kept(views) == []
    assert views.current(session) is session
    # a new game: nothing out yet
    views.reset()
    assert views.released == 0 and _kept(views) == []


def test_a_move_decided_by_time_alone_forgets_the_last_view(state: StateDir) -> None:
    """The controller's ``tick``: a view kept (for the ``end`` line a flag fall would journal),
    then the settle timer commits the move with no line. The view of the last line no longer
    is the game as it stands: dropped, kept anew (with the move) before the next line."""
    session = GameSession.begin(state, NO_CLOCK)
    views = DurableViews()
    _begun(views, session)
    for event in (PieceLifted(1.0, "d3"), PiecePlaced(1.4, "c4")):
        views.keep(session)
        session.feed(event)
    views.keep(session)  # tick
    assert _kept(views) == [1, 2, 3, 4]
    decisions, end = session.advance(3.0)
    assert end is None and any(isinstance(d, MoveCommitted) for d in decisions)
    views.forget_last(session)
    assert _kept(views) == [1, 2, 3]
    views.forget_last(session)  # the last view is of an older line: kept
    assert _kept(views) == [1, 2, 3]
    views.keep(session)  # before black's lift: line 4 as it stands, with the move
    session.feed(PieceLifted(4.0, "e6"))
    views.release(4)
    seen = _view(views, session)
    assert seen.line == 4 and len(seen.arbiter.game.moves) == 1


def test_without_a_view_of_the_line_out_the_game_is_shown_as_decided(
        state: StateDir, caplog: pytest.LogCaptureFixture) -> None:
    session = GameSession.begin(state, START)
    views = DurableViews()
    views.reset()
    session.feed(SnapshotTaken(0.0, INITIAL))  # fed with no view kept before it
    views.release(1)
    with caplog.at_level(logging.WARNING, logger="pi.board.session"):
        assert views.current(session) is session
    assert "no view of line 1 kept" in caplog.text
