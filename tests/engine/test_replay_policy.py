"""The one replay (engine/replay.py): journal lines in, each line with its decisions out, a bad
line raised, skipped with a note or stopping the replay as the caller's policy says
(python-chess's ``handle_error``), and lines read only as they are fed."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.decisions import MoveCommitted
from engine.errors import TraceError
from engine.events import Event, PieceLifted
from engine.replay import (RAISE, ContainArbiter, ErrorPolicy, Fed, LineFault, Replay, Stage,
                           Verdict, replay_lines)

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "pi" / "samples" / "italian_sample.jsonl"
START = {"type": "start", "variant": "italian", "fen": None, "clock": True, "transcribed": True}
# IT 22-18 (22 = d3, 18 = c4: IT 2.4) completed by the clock (COMP 4.5), then 11-15 (e6-f5)
OPENING = [{"t": 0.0, "type": "snapshot", "occupied": list(range(1, 13)) + list(range(21, 33))},
           {"t": 1.0, "type": "lift", "square": 22}, {"t": 1.4, "type": "place", "square": 18},
           {"t": 2.0, "type": "button", "name": "clock", "side": "white"},
           {"t": 3.0, "type": "lift", "square": 11}, {"t": 3.4, "type": "place", "square": 15},
           {"t": 4.0, "type": "button", "name": "clock", "side": "black"}]


def text(*objs: object) -> list[str]:
    return [json.dumps(o) for o in objs]


class Recording(ErrorPolicy):
    """Answers ``verdict`` and keeps every fault it was shown."""

    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict
        self.faults: list[LineFault] = []

    def handle_error(self, fault: LineFault) -> Verdict:
        self.faults.append(fault)
        return self.verdict


def moves(feds: list[Fed]) -> list[str]:
    return [d.notation for f in feds for d in f.decisions if isinstance(d, MoveCommitted)]


def test_each_line_comes_out_with_its_number_record_event_and_decisions() -> None:
    replay = Replay.read(text(START, *OPENING))
    assert replay.first == Fed(1, START, None, ())
    feds = list(replay)
    assert [f.line for f in feds] == list(range(2, 9))
    assert [f.record for f in feds] == OPENING
    assert feds[1].event == PieceLifted(1.0, "d3")
    assert moves(feds) == ["22-18", "11-15"]
    assert all(f.fault is None for f in feds)


def test_a_replay_fed_line_by_line_is_the_replay_read_whole() -> None:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    whole = Replay.read(lines)
    read = [(f.line, f.decisions) for f in whole]
    fed = Replay(json.loads(lines[0]))
    by_line = [(f.line, f.decisions) for f in (fed.feed(obj) for obj in lines[1:])
               if f is not None]
    assert by_line == read
    assert fed.finish().to_json() == whole.finish().to_json() == replay_lines(lines).to_json()


def test_raise_refuses_a_bad_line_with_its_number() -> None:
    bad = {"t": 1.0, "type": "lift", "square": 99}  # no square 99 on an 8x8 board (docs/trace-format.md)
    with pytest.raises(TraceError, match="line 3: no square 99"):
        list(Replay.read(text(START, OPENING[0], bad), RAISE))
    with pytest.raises(TraceError, match="line 3: time goes backwards"):
        list(Replay.read(text(START, OPENING[1], OPENING[0])))
    with pytest.raises(TraceError, match="line 1: no start line"):
        Replay.read(text(OPENING[0]))


def test_skip_passes_over_the_line_with_a_note_and_goes_on() -> None:
    policy = Recording(Verdict.SKIP)
    lines = text(START, *OPENING[:4]) + ["{not json"] + text(*OPENING[4:])
    feds = list(Replay.read(lines, policy))
    assert [f.line for f in feds] == list(range(2, 10))
    skipped = feds[4]
    assert skipped.line == 6 and skipped.event is None and skipped.decisions == ()
    assert skipped.fault is policy.faults[0]
    assert (skipped.fault.stage, skipped.fault.line) == (Stage.READ, 6)
    assert isinstance(skipped.fault.error, TraceError)
    assert moves(feds) == ["22-18", "11-15"]  # the lines after it are replayed


def test_stop_ends_the_replay_before_the_line_and_reads_no_further() -> None:
    read: list[int] = []

    def lines() -> Iterator[str]:
        for number, line in enumerate(text(START, *OPENING[:4]) + ["[]"] + text(*OPENING[4:]),
                                      start=1):
            read.append(number)
            yield line

    policy = Recording(Verdict.STOP)
    replay = Replay.read(lines(), policy)
    feds = list(replay)
    assert [f.line for f in feds] == [2, 3, 4, 5] and moves(feds) == ["22-18"]
    assert replay.stopped and replay.line == 5 and read == [1, 2, 3, 4, 5, 6]
    assert replay.feed(OPENING[4]) is None  # stopped: nothing more is fed


def test_lines_are_read_only_as_they_are_fed() -> None:
    """Memory is bounded by what is kept: the replay pulls one line at a time."""
    read: list[int] = []

    def lines() -> Iterator[str]:
        for number, line in enumerate(text(START, *OPENING), start=1):
            read.append(number)
            yield line

    replay = Replay.read(lines())
    assert read == [1]
    it = iter(replay)
    assert next(it).line == 2 and read == [1, 2]


class Failing:
    """Makes the replay's arbiter raise on the lift of e6 (a bug in the arbiter, simulated)."""

    def __init__(self, replay: Replay) -> None:
        self.real = replay.arbiter.feed
        replay.arbiter.feed = self.feed  # type: ignore[method-assign]

    def feed(self, event: Event) -> object:
        if isinstance(event, PieceLifted) and event.square == "e6":
            raise RuntimeError("boom")
        return self.real(event)


def test_an_arbiter_failure_goes_to_the_policy_as_such() -> None:
    policy = Recording(Verdict.SKIP)
    replay = Replay(START, policy)
    Failing(replay)
    feds = [replay.feed(obj) for obj in OPENING]
    fault = policy.faults[0]
    assert (fault.stage, fault.line, str(fault.error)) == (Stage.ARBITER, 6, "boom")
    failed = feds[4]
    assert failed is not None and failed.event == PieceLifted(3.0, "e6")
    assert failed.decisions == () and failed.fault is fault
    with pytest.raises(RuntimeError, match="boom"):
        raising = Replay(START)
        Failing(raising)
        for obj in OPENING:
            raising.feed(obj)


def test_contain_arbiter_logs_and_skips_arbiter_failures_and_raises_for_bad_lines(
        caplog: pytest.LogCaptureFixture) -> None:
    log = logging.getLogger("test.replay")
    replay = Replay(START, ContainArbiter(log, where="board 7"))
    Failing(replay)
    with caplog.at_level(logging.ERROR, logger="test.replay"):
        feds = [replay.feed(obj) for obj in OPENING]
    assert "board 7 line 6: the arbiter failed" in caplog.text and "boom" in caplog.text
    assert all(f is not None for f in feds)
    with pytest.raises(TraceError, match="line 9"):
        replay.feed({"t": 5.0, "type": "jump"})
    stopping = Replay(START, ContainArbiter(log, Verdict.STOP))
    assert stopping.feed({"t": 5.0, "type": "jump"}) is None and stopping.stopped


def test_finish_lets_time_pass_to_the_last_line_unless_the_trace_ended() -> None:
    """docs/trace-format.md: a move completed by letting go (``clock`` false, IT 3.5) is committed once
    ``settle`` seconds pass with no event; ``end`` lets pending settle timers fire."""
    start = {**START, "clock": False, "settle": 2.0}
    replay = Replay.read(text(start, *OPENING[:3]))
    list(replay)
    assert [m.notation for m in replay.finish().game.moves] == []  # 1.4 s: not settled yet
    ended = Replay.read(text(start, *OPENING[:3], {"t": 9.0, "type": "end"}))
    list(ended)
    assert ended.ended
    assert [m.notation for m in ended.finish().game.moves] == ["22-18"]
