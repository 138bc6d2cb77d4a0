"""The start line's ``clock_start: "arbiter"`` (a hall's round, issue 16): COMP 4.4.2, the round
starts when the arbiter starts the clocks. The clock stands ready through the set-up snapshot
and whatever comes before the arbiter's ``start_clock``; then the face of the player to move
runs, whether or not he is there (COMP 6.9, 6.10). Without the key the clock starts at the first
event, as before."""

from __future__ import annotations

import json

import pytest

from engine.arbiter import Arbiter
from engine.clock_events import ClockState
from engine.colour import WHITE
from engine.events import ArbiterActed, GameStarted, SnapshotTaken
from engine.replay import RAISE, Replay
from engine.trace import TraceError, parse_start

START = {"type": "start", "variant": "italian", "fen": None, "clock": True,
         "transcribed": True, "time_control": "40/3600:1800"}


def _arbiter(**kw: object) -> Arbiter:
    start, _ = parse_start(1, {**START, **kw})
    return Arbiter(start)


def _occupied(a: Arbiter) -> frozenset[str]:
    return frozenset(a.board.occupied_algebraic())


def test_the_clock_waits_for_the_arbiter() -> None:
    a = _arbiter(clock_start="arbiter")
    a.feed(SnapshotTaken(0.0, _occupied(a)))
    a.feed(SnapshotTaken(30.0, _occupied(a)))
    assert a.clock is not None and a.clock.state == ClockState.READY
    a.feed(ArbiterActed(95.0, "start_clock"))
    r = a.clock.read(100.0)
    assert a.clock.state == ClockState.RUNNING and r.running == WHITE
    assert r.white.seconds == pytest.approx(3600 - 5) and r.black.seconds == 3600


def test_without_the_key_the_clock_starts_with_the_first_event() -> None:
    a = _arbiter()
    a.feed(SnapshotTaken(0.0, _occupied(a)))
    assert a.clock is not None and a.clock.state == ClockState.RUNNING


def test_the_key_round_trips_and_a_bad_value_is_refused() -> None:
    start, _ = parse_start(1, {**START, "clock_start": "arbiter"})
    assert start.to_dict()["clock_start"] == "arbiter"
    assert "clock_start" not in GameStarted("italian").to_dict()
    with pytest.raises(TraceError, match="clock_start"):
        parse_start(1, {**START, "clock_start": "first"})
    # the one replay reads it as the board wrote it
    replay = Replay(json.loads(json.dumps(start.to_dict())), RAISE)
    assert replay.arbiter.clock is not None
    assert replay.arbiter.start.clock_start == "arbiter"
