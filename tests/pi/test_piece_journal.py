"""Issue 40: the daemon journals what a board that knows the pieces saw — the game's first
snapshot with its pieces, ``piece``/``reading`` on a place, the ``piece`` line — exactly as
docs/trace-format.md writes them; an occupancy-only board's lines are unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

import pytest

from engine.board import Board
from engine.events import (PIECE_CODES, ButtonPressed, PieceChanged, PieceLifted, PiecePlaced,
                           SnapshotTaken)
from engine.replay import replay_lines
from engine.squares import square_sort_key
from hardware_mocks.clock import FakeClock
from pi.board.config import Config
from pi.board.controller import BoardController, Phase
from pi.board.statedir import StateDir
from pi.drivers.timebase import GameTime

START = Board(None, "italian")
INITIAL = START.occupied_algebraic()
NAMES = START.variant.geometry.algebraic_of
PIECES = {NAMES[n]: p for n, p in START.pieces().items()}


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[BoardController, FakeClock, GameTime]]:
    clock = FakeClock(1000.0)
    time = GameTime(clock, epoch=900.0)
    with StateDir.open(tmp_path / "state") as state:
        yield (BoardController(Config(time_control="600"), state, time, wall=lambda: None),
               clock, time)


def _journal(c: BoardController) -> list[dict[str, object]]:
    assert c.session is not None
    return [json.loads(x) for x in c.session.game.trace.read_text().splitlines()]


def test_the_pieces_seen_are_journaled(rig: tuple[BoardController, FakeClock, GameTime]) -> None:
    c, clock, time = rig
    # a black man on b3 (21) at power-up: the squares are right, the pieces not (IT 7.1): the
    # set-up screen names the square, and the game begins once it reads a white man
    c.handle(SnapshotTaken(time.stamp(), INITIAL, {**PIECES, "b3": PIECE_CODES["bm"]}))
    assert c.phase == Phase.SETUP and c.display_state().message == "wrong piece: 21"
    clock.advance(1.0)
    c.handle([PieceLifted(time.stamp(), "b3")])
    assert c.phase == Phase.SETUP and c.display_state().message == "set up: +21"
    c.handle([PiecePlaced(time.stamp(), "b3", PIECE_CODES["wm"], 0.99)])
    assert c.phase == Phase.PLAYING
    clock.advance(2.0)
    c.handle([PieceLifted(time.stamp(), "d3"),
              PiecePlaced(time.stamp(), "c4", PIECE_CODES["wm"], 1.03),
              PieceChanged(time.stamp(), "c4", PIECE_CODES["wk"], 2.04),
              ButtonPressed(time.stamp(), "clock", "white")])
    lines = _journal(c)
    assert lines[1]["type"] == "snapshot" and lines[1]["occupied"] == sorted(INITIAL,
                                                                               key=square_sort_key)
    assert lines[1]["pieces"]["b3"] == "wm" and len(lines[1]["pieces"]) == 24
    assert {k: v for k, v in lines[2].items() if k != "t"} == {"type": "lift", "square": "d3"}
    assert {k: v for k, v in lines[3].items() if k != "t"} == {
        "type": "place", "square": "c4", "piece": "wm", "reading": 1.03}
    assert {k: v for k, v in lines[4].items() if k != "t"} == {
        "type": "piece", "square": "c4", "piece": "wk", "reading": 2.04}
    # IT 8.1.17: a crown on 18, a man that is no king; `damiera replay` says what the board did
    flags = [("IT 8.1.17", "pending")]
    assert c.session is not None
    assert [(f.code, f.status) for f in c.session.arbiter.flags] == flags
    report = replay_lines(json.dumps(x) for x in lines)
    assert [(f.code, f.status) for f in report.flags] == flags


def test_an_occupancy_only_board_journals_as_before(
        rig: tuple[BoardController, FakeClock, GameTime]) -> None:
    c, clock, time = rig
    c.handle(SnapshotTaken(time.stamp(), INITIAL))
    clock.advance(2.0)
    c.handle([PieceLifted(time.stamp(), "d3"), PiecePlaced(time.stamp(), "c4")])
    lines = _journal(c)
    assert "pieces" not in lines[1]
    assert {k: v for k, v in lines[3].items() if k != "t"} == {"type": "place", "square": "c4"}
