"""Issue 37: a lone board's clock started with the daemon — the simulated board (or a real one
already set up at power-on) begins its game at once, and the clock ran from that set-up, minutes
before the players sat down. COMP 4.4.2: "at the scheduled time the arbiter starts the face of
the player to move". A lone board's clocked games wait for the arbiter's start
(``pi.run.lone_board``: ``clock_start: "arbiter"`` in their start line); a hall's boards take
theirs from the pairing."""

from __future__ import annotations

from pathlib import Path

from engine.board import Board
from engine.events import ArbiterActed, ButtonPressed, PieceLifted, PiecePlaced, SnapshotTaken
from hardware_mocks.clock import FakeClock
from pi.board.config import Config
from pi.board.controller import BoardController, Phase
from pi.board.statedir import StateDir
from pi.drivers.timebase import GameTime
from pi.run import lone_board

INITIAL = Board(None, "italian").occupied_algebraic()


def test_the_clock_has_not_run_while_nobody_started_it(tmp_path: Path) -> None:
    clock = FakeClock(1000.0)
    time = GameTime(clock, epoch=900.0)
    config = lone_board(Config(time_control="600", white="Rossi", black="Bianchi"))
    with StateDir.open(tmp_path / "state") as state:
        c = BoardController(config, state, time, wall=lambda: None)
        c.handle(SnapshotTaken(time.stamp(), INITIAL))  # the daemon starts on a set-up board
        assert c.phase == Phase.PLAYING and c.session is not None
        assert c.session.start_line["clock_start"] == "arbiter"
        clock.advance(300.0)  # five minutes before anyone comes
        c.tick()
        c.handle([PieceLifted(time.stamp(), "d3"), PiecePlaced(time.stamp(), "d3")])
        clock.advance(120.0)
        c.tick()
        arbiter_clock = c.session.arbiter.clock
        assert arbiter_clock is not None
        reading = arbiter_clock.read(c.now())
        assert (reading.white.seconds, reading.black.seconds) == (600.0, 600.0)
        assert reading.running is None
        c.handle(ArbiterActed(time.stamp(), "start_clock"))  # COMP 4.4.2
        clock.advance(10.0)
        c.handle([PieceLifted(time.stamp(), "d3"), PiecePlaced(time.stamp(), "c4")])
        c.handle(ButtonPressed(time.stamp(), "clock", "white"))
        reading = arbiter_clock.read(c.now())
        assert reading.white.seconds == 590.0 and reading.running is not None
        assert reading.running.label == "black"


def test_only_a_lone_boards_clocked_games_wait_for_the_arbiter() -> None:
    plain = Config(time_control="600")
    assert lone_board(plain).game_started().clock_start == "arbiter"
    assert plain.game_started().clock_start is None  # a trace without it: its first event
    unclocked = Config(clock=False)
    assert lone_board(unclocked) is unclocked


def test_a_played_trace_keeps_its_own_clock_start() -> None:
    """``make sample`` (``run --simulate --trace``): the trace's start line says when its clock
    started; a lone board's waiting for the arbiter is not put on a trace that never has the
    arbiter start it (the sample's clocks would stand still)."""
    from engine.trace import parse_start
    from hardware_mocks.simulate import config_from_start
    lone = lone_board(Config(time_control="600"))
    raw = {"type": "start", "variant": "italian", "clock": True, "time_control": "3600"}
    config = config_from_start(lone, parse_start(1, raw)[0], raw, "sample.jsonl")
    assert config.game_started().clock_start is None
    waiting = {**raw, "clock_start": "arbiter"}
    config = config_from_start(Config(), parse_start(1, waiting)[0], waiting, "hall.jsonl")
    assert config.game_started().clock_start == "arbiter"
