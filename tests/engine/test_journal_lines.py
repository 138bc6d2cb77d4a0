"""The journal's own lines (docs/trace-format.md): ``fault``, ``fault_cleared`` and ``restart`` are read,
written back identically, and reported as ``BOARD`` notices; a restart stops the clocks with the
readings of the last line before it, until the arbiter's ``start_clock`` (COMP 7.3-7.4)."""

from __future__ import annotations

import json

import pytest

from engine.errors import TraceError
from engine.events import DaemonRestarted, SensorsFailed, SensorsRecovered
from engine.replay import replay_lines
from engine.trace import parse_trace

START = {"type": "start", "variant": "italian", "fen": None, "clock": True, "transcribed": True,
         "time_control": "600"}


def _lines(*events: dict[str, object]) -> list[str]:
    return [json.dumps(START)] + [json.dumps(e) for e in events]


OPENING = ({"t": 1.0, "type": "lift", "square": 22}, {"t": 1.5, "type": "place", "square": 18},
           {"t": 2.0, "type": "button", "name": "clock", "side": "white"})


def test_lines_read_and_written_back() -> None:
    lines = _lines({"t": 3.0, "type": "fault", "squares": ["c3", 22], "message": "sensor fault: 0x21"},
                   {"t": 4.0, "type": "fault_cleared", "squares": ["c3"]},
                   {"t": 9.5, "type": "restart", "down": 5.5},
                   {"t": 12.0, "type": "restart", "down": None})
    _, events = parse_trace(lines)
    assert events[0] == SensorsFailed(3.0, ("c3", "d3"), "sensor fault: 0x21")  # 22 = d3 (IT 2.4)
    assert events[1] == SensorsRecovered(4.0, ("c3",))
    assert events[2] == DaemonRestarted(9.5, 5.5)
    assert events[3] == DaemonRestarted(12.0, None)
    assert events[2].to_dict() == {"t": 9.5, "type": "restart", "down": 5.5}
    assert events[0].to_dict()["squares"] == ["c3", "d3"]


@pytest.mark.parametrize("bad", [
    {"t": 3.0, "type": "fault"},
    {"t": 3.0, "type": "fault", "squares": ["z9"]},
    {"t": 3.0, "type": "fault_cleared", "squares": "c3"},
    {"t": 3.0, "type": "restart", "down": -1},
    {"t": 3.0, "type": "restart", "down": "long"},
])
def test_bad_journal_lines_refused(bad: dict[str, object]) -> None:
    with pytest.raises(TraceError, match="line 2"):
        parse_trace(_lines(bad))


def test_board_notices_in_the_report() -> None:
    report = replay_lines(_lines(*OPENING,
                                 {"t": 3.0, "type": "fault", "squares": ["c3"],
                                  "message": "sensor fault: 0x21, squares c3"},
                                 {"t": 4.0, "type": "fault_cleared", "squares": ["c3"]},
                                 {"t": 30.0, "type": "restart", "down": 25.0}))
    flags = [(f.code, f.kind, f.status) for f in report.flags]
    assert flags == [("BOARD", "notice", "noted")] * 3
    assert "sensor fault: 0x21" in report.flags[0].text


def test_restart_stops_the_clocks_until_the_arbiter_restarts_them() -> None:
    # COMP 7.3-7.4: Black's face ran 2.0 -> 4.0 before the stop; the 100 s away cost nothing.
    report = replay_lines(_lines(*OPENING,
                                 {"t": 4.0, "type": "lift", "square": 9},
                                 {"t": 104.0, "type": "restart", "down": 100.0},
                                 {"t": 104.5, "type": "snapshot",
                                  "occupied": list(range(1, 9)) + list(range(10, 13))
                                  + [18, 21] + list(range(23, 33))},
                                 {"t": 150.0, "type": "place", "square": 13},
                                 {"t": 151.0, "type": "arbiter", "action": "start_clock"},
                                 {"t": 153.0, "type": "button", "name": "clock", "side": "black"}))
    assert [m.notation for m in report.game.moves] == ["22-18", "9-13"]
    white, black = report.game.moves[-1].clock
    assert black == pytest.approx(600 - 2.0 - 2.0, abs=0.11)  # 2.0-4.0 and 151-153 only
    assert white == pytest.approx(600 - 1.0, abs=0.11)  # started at the first event, t = 1


def test_a_flag_does_not_fall_while_the_board_was_away() -> None:
    # 700 s away on a 600 s control: the clocks stood stopped (docs/trace-format.md restart), no loss on time
    report = replay_lines(_lines(*OPENING, {"t": 702.0, "type": "restart", "down": 700.0}))
    assert report.game.result == "*"


NO_CLOCK = dict(START, clock=False, time_control=None)


def test_a_snapshot_after_a_restart_showing_a_piece_still_in_the_hand_is_no_news() -> None:
    after_move = [n for n in range(1, 33) if n not in (9,) and (n <= 12 or n >= 21)]
    lines = [json.dumps(START)] + [json.dumps(e) for e in (
        *OPENING,
        {"t": 3.0, "type": "lift", "square": 9},  # Black's piece in the hand ...
        {"t": 9.0, "type": "restart", "down": 6.0},
        {"t": 9.2, "type": "snapshot", "occupied": [18] + [n for n in after_move if n != 22]},
        {"t": 10.0, "type": "arbiter", "action": "start_clock"},
        {"t": 11.0, "type": "place", "square": 13},  # ... is played on
        {"t": 12.0, "type": "button", "name": "clock", "side": "black"})]
    report = replay_lines(lines)
    assert [m.notation for m in report.game.moves] == ["22-18", "9-13"]
    assert [f.code for f in report.flags] == ["BOARD"]  # no IT 7.8 disturbance


def test_a_move_shown_before_a_restart_without_clock_is_committed_there() -> None:
    # IT 3.5: complete once let go; the settle timer ran out while the board was away
    lines = [json.dumps(NO_CLOCK)] + [json.dumps(e) for e in (
        {"t": 1.0, "type": "lift", "square": 22}, {"t": 1.5, "type": "place", "square": 18},
        {"t": 30.0, "type": "restart", "down": None})]
    report = replay_lines(lines)
    assert [m.notation for m in report.game.moves] == ["22-18"]
    assert report.game.moves[0].t == 1.5


def test_a_lampo_move_let_go_by_zero_waits_for_its_press_when_time_alone_passes() -> None:
    # COMP 5.7 through the daemon's path: advance() at the face's zero, then the press
    from engine.arbiter import Arbiter
    from engine.events import ArbiterActed, ButtonPressed, GameStarted, PieceLifted, PiecePlaced
    a = Arbiter(GameStarted("italian", time_control="0:1/30"))
    a.feed(ArbiterActed(0.0, "start_clock"))  # COMP 4.4.2
    a.feed(PieceLifted(29.0, "d3"))
    a.feed(PiecePlaced(29.5, "c4"))  # let go by zero (the face started at 0 with 30 s)
    assert a.next_deadline() is None or a.next_deadline() > 30.0
    a.advance(31.0)
    assert a.game.result == "*"
    a.feed(ButtonPressed(31.5, "clock", "white"))
    assert [m.notation for m in a.game.moves] == ["22-18"] and a.game.result == "*"


def test_a_lampo_move_let_go_after_zero_loses_at_zero() -> None:
    from engine.arbiter import Arbiter
    from engine.events import ArbiterActed, GameStarted, PieceLifted, PiecePlaced
    a = Arbiter(GameStarted("italian", time_control="0:1/30"))
    a.feed(ArbiterActed(0.0, "start_clock"))  # COMP 4.4.2
    a.feed(PieceLifted(29.0, "d3"))
    a.feed(PiecePlaced(30.5, "c4"))  # let go after zero
    a.advance(31.0)
    assert a.game.result == "0-1"  # COMP 4.8, 5.7
