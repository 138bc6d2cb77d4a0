"""What the faces show and which cues are due (COMP 3.6.2 h-i, 4.3, 5.7)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.clock import FaceReading, GameClock
from engine.colour import BLACK, WHITE
from engine.clock_display import (
    DEFAULT_RULES, Cue, CueTracker, DisplayRules, cues_crossed, face_display, format_time,
    format_time_full, lampo_label, moves_text,
)
from engine.timecontrol import TimeControl


def started(text: str) -> GameClock:
    game = GameClock(TimeControl.parse(text))
    game.start(WHITE, 0.0)
    return game


# -- what a face shows ----------------------------------------------------------------------

@pytest.mark.parametrize("ms, text", [
    (7_200_000, "2h00"), (3_659_999, "1h00"), (3_660_000, "1h01"),  # hours and minutes, floored
    (3_600_000, "1h00"),
    (3_599_999, "59:59"), (1_200_000, "20:00"), (600_000, "10:00"),  # COMP 3.6.2 h: seconds
    (599_999, "9:59"), (60_000, "1:00"), (20_000, "0:20"),
    (19_999, "19.9"), (1_050, "1.0"), (99, "0.0"), (0, "0.0"),     # tenths in the last 20 s
])
def test_comp_3_6_2_h_seconds_shown_in_the_last_minutes(ms: int, text: str) -> None:
    assert format_time(ms) == text


def test_the_oled_face_moves_every_second_of_the_last_hour() -> None:
    """Issue 16: with an hour's control the OLED read ``0h59``, ``0h58`` … and nothing visibly
    changed for 50 minutes. COMP 3.6.2 h: in the last hour every second shows."""
    texts = [format_time(ms) for ms in range(3_599_999, 19_999, -1000)]
    assert len(set(texts)) == len(texts)
    assert not any("h" in text for text in texts)


@pytest.mark.parametrize("ms, text", [
    (36_000_000, "10:00:00"), (3_900_000, "1:05:00"), (3_600_000, "1:00:00"),  # h:mm:ss
    (3_599_999, "59:59"), (3_492_000, "58:12"), (598_999, "9:58"), (20_000, "0:20"),
    (19_999, "0:19.9"), (5_349, "0:05.3"), (99, "0:00.0"), (0, "0:00.0"),  # tenths under 20 s
])
def test_the_pages_face_is_a_dgt3000s(ms: int, text: str) -> None:
    """Issue 16: the pages show what a DGT3000 or a lichess board shows, floored."""
    assert format_time_full(ms) == text


@settings(max_examples=500, deadline=None)
@given(st.integers(1_000, 100 * 3_600_000))
def test_the_pages_face_ticks_every_second(ms: int) -> None:
    """Issue 16: at any time left, the pages' face changes every second, and what it says
    (``h:mm:ss``, ``m:ss``, ``m:ss.t``) is a span holding the time, never more than is left."""
    assert format_time_full(ms) != format_time_full(ms - 1000)
    text = format_time_full(ms)
    whole, _, tenth = text.partition(".")
    parts = [int(part) for part in whole.split(":")]
    assert all(part < 60 for part in parts[1:]) and all(len(p) == 2 for p in whole.split(":")[1:])
    seconds = sum(part * 60 ** i for i, part in enumerate(reversed(parts)))
    start = seconds * 1000 + (int(tenth) * 100 if tenth else 0)
    assert start <= ms < start + (100 if tenth else 1000)


def test_faces_once_ambiguous_now_differ() -> None:
    """Issue 8: 20 minutes and 20 seconds were both ``0:20``; 1 hour and 1 minute both ``1:00``;
    1 hour 1 minute and 1 minute 1 second both ``1:01``."""
    assert (format_time(1_200_000), format_time(20_000)) == ("20:00", "0:20")
    assert (format_time(3_600_000), format_time(60_000)) == ("1h00", "1:00")
    assert (format_time(3_660_000), format_time(61_000)) == ("1h01", "1:01")


def _denoted(text: str) -> tuple[str, int, int]:
    """What a face text says, read as a player reads it: (unit, first ms, first ms past it)."""
    for separator, (big, small, limit) in {"h": (3_600_000, 60_000, 60),
                                           ":": (60_000, 1_000, 60),
                                           ".": (1_000, 100, 10)}.items():
        if separator in text:
            left, right = text.split(separator)
            assert left.isdigit() and right.isdigit() and len(right) == len(str(limit - 1))
            assert int(right) < limit
            start = int(left) * big + int(right) * small
            return separator, start, start + small
    raise AssertionError(f"a face text without a unit separator: {text!r}")


RULES = st.builds(lambda tenths, extra: DisplayRules(seconds_below_ms=tenths + extra,
                                                     tenths_below_ms=tenths),
                  st.integers(0, 120_000), st.integers(0, 4 * 3_600_000))
TIMES_MS = st.integers(0, 100 * 3_600_000)


def _range(ms: int, rules: DisplayRules) -> str:
    if ms >= rules.seconds_below_ms:
        return "h"
    return ":" if ms >= rules.tenths_below_ms else "."


@settings(max_examples=500, deadline=None)
@given(TIMES_MS, RULES)
def test_every_face_text_denotes_one_span_holding_the_time(ms: int, rules: DisplayRules) -> None:
    """COMP 3.6.2 h: the text says its units by its separator and shows the time floored to them,
    so a player reading it can never take it for another range (hours for minutes, minutes for
    seconds) nor see more time than is left."""
    unit, start, end = _denoted(format_time(ms, rules))
    assert unit == _range(ms, rules)
    assert start <= ms < end


@settings(max_examples=500, deadline=None)
@given(TIMES_MS, TIMES_MS, RULES)
def test_times_in_different_ranges_never_show_the_same_text(a: int, b: int,
                                                            rules: DisplayRules) -> None:
    """Issue 8: distinct readings in different ranges never render the same string; in the same
    range, the same string means the same floored unit."""
    same_text = format_time(a, rules) == format_time(b, rules)
    if _range(a, rules) != _range(b, rules):
        assert not same_text
    elif same_text:
        assert _denoted(format_time(a, rules))[1] <= min(a, b)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 120_000), TIMES_MS)
def test_lampo_labels_are_never_taken_for_a_time(lampo: int, ms: int) -> None:
    """COMP 5.7: a mosse-lampo face (no separator) never reads like the player's time."""
    assert lampo_label(lampo) != format_time(ms)


def test_display_thresholds_must_be_in_order() -> None:
    with pytest.raises(ValueError):
        DisplayRules(seconds_below_ms=10_000, tenths_below_ms=20_000)
    with pytest.raises(ValueError):
        DisplayRules(tenths_below_ms=-1)


def test_display_thresholds_are_configurable() -> None:
    """COMP 3.6.2 h: 'the last minutes' is a setting."""
    rules = DisplayRules(seconds_below_ms=3_600_000, tenths_below_ms=10_000)
    assert format_time(3_599_000, rules) == "59:59"
    assert format_time(10_000, rules) == "0:10"
    assert format_time(9_999, rules) == "9.9"


def test_negative_time_raises() -> None:
    """COMP 4.8 b: a face stops at zero, never below."""
    with pytest.raises(ValueError):
        format_time(-1)
    with pytest.raises(ValueError):
        lampo_label(-1)


@pytest.mark.parametrize("ms, label", [
    (30_000, "30"), (15_001, "15"), (15_000, "-15"), (10_001, "-15"), (10_000, "-10"),
    (5_000, "-5"), (4_500, "-5"), (4_000, "4"), (3_000, "3"), (2_000, "2"), (1_000, "1"),
    (1, "1"), (0, "0"),
])
def test_comp_5_7_lampo_face_follows_the_arbiters_countdown(ms: int, label: str) -> None:
    assert lampo_label(ms) == label


def test_comp_4_3_move_count_on_the_face() -> None:
    game = started("40/7200:3600")
    game.press(WHITE, 1.0)
    now = game.read(2.0)
    assert moves_text(now.white) == "1/40" and moves_text(now.black) == "0/40"
    fischer = started("1800+10")
    fischer.press(WHITE, 1.0)
    assert moves_text(fischer.read(1.0).white) == "1"


def test_face_display_of_a_running_lampo_face() -> None:
    """COMP 5.7, 4.3: the lampo countdown and the move count on the face."""
    game = started("60:1/30")
    shown = face_display(game.read(80.0).white)
    assert (shown.time, shown.in_lampo, shown.running, shown.moves) == ("-10", True, True, "0")
    assert face_display(game.read(80.0).black).time == "1:00"


# -- cues -----------------------------------------------------------------------------------

def _cues_over(game: GameClock, start_ms: int, end_ms: int, step_ms: int,
               tracker: CueTracker) -> list[Cue]:
    cues: list[Cue] = []
    for ms in range(start_ms, end_ms + 1, step_ms):
        cues.extend(tracker.update(game.read(ms / 1000)))
    return cues


def test_comp_5_7_lampo_countdown_cues_fire_once_each_in_order() -> None:
    game = started("60:1/30")
    tracker = CueTracker()
    cues = _cues_over(game, 0, 95_000, 100, tracker)
    main = [cue.screen for cue in cues if cue.kind == "beep"]
    assert main == ["10", "5", "4", "3", "2", "1"]  # the last seconds of the main time
    assert [cue.kind for cue in cues if cue.kind in ("lampo_start", "flag")] == ["lampo_start"]
    lampo = [cue for cue in cues if cue.kind == "lampo"]
    assert [cue.screen for cue in lampo] == ["-15", "-10", "-5", "4", "3", "2", "1", "0"]
    assert [cue.buzzer for cue in lampo] == ["short"] * 7 + ["long"]
    assert all(cue.side == WHITE for cue in cues)


def test_comp_5_7_each_lampo_move_counts_down_afresh() -> None:
    game = started("0:1/30")
    tracker = CueTracker()
    cues = _cues_over(game, 0, 22_000, 500, tracker)
    game.press(WHITE, 22.0)
    game.press(BLACK, 23.0)
    cues += _cues_over(game, 23_000, 53_000, 500, tracker)  # zero at 53 s
    white = [cue.screen for cue in cues if cue.side == WHITE and cue.kind == "lampo"]
    assert white == ["-15", "-10", "-15", "-10", "-5", "4", "3", "2", "1", "0"]


def test_comp_3_6_2_i_beeps_fire_again_after_a_fischer_bonus() -> None:
    game = started("12+10")
    tracker = CueTracker()
    cues = _cues_over(game, 0, 9_000, 1000, tracker)   # 10 s crossed at 2 s
    game.press(WHITE, 9.0)                            # 3 s (beep) + 10 s = 13 s
    game.press(BLACK, 9.5)
    cues += _cues_over(game, 9_500, 13_000, 250, tracker)  # crossed 10 s again at 12.5 s
    assert [cue.screen for cue in cues if cue.side == WHITE] == ["10", "5", "4", "3", "10"]


def test_flag_cue_at_zero_without_lampo() -> None:
    """COMP 3.6.2 i, 4.8 b: beeps in the last seconds, a long one at zero."""
    game = started("3")
    tracker = CueTracker()
    cues = _cues_over(game, 0, 5_000, 700, tracker)
    assert [cue.screen for cue in cues] == ["2", "1", "0.0"]
    assert cues[-1].kind == "flag" and cues[-1].buzzer == "long"


def test_sparse_readings_still_report_every_crossing_of_the_current_run() -> None:
    """COMP 5.7: no word of the countdown is lost between readings."""
    game = started("60:1/30")
    tracker = CueTracker()
    tracker.update(game.read(70.0))        # lampo move at 20 s left
    cues = tracker.update(game.read(88.5)) # 1.5 s left
    assert [cue.screen for cue in cues] == ["-15", "-10", "-5", "4", "3", "2"]


def test_beeps_can_be_switched_off() -> None:
    """COMP 3.6.2 i: the beeps are optional ('possono')."""
    game = started("12")
    tracker = CueTracker(DisplayRules(beeps=False))
    cues = _cues_over(game, 0, 13_000, 500, tracker)
    assert [cue.kind for cue in cues] == ["flag"]


def test_cues_crossed_refuses_two_different_faces() -> None:
    """COMP 3.6.1: each face has its own cues."""
    reading = started("60").read(1.0)
    with pytest.raises(ValueError):
        cues_crossed(reading.white, reading.black)


def _face(ms: int, run: int, run_start: int, in_lampo: bool = False) -> FaceReading:
    return FaceReading(WHITE, ms, True, 0, in_lampo, False, run, run_start, None)


@settings(max_examples=300, deadline=None)
@given(st.integers(1_000, 40_000), st.lists(st.integers(0, 40_000), min_size=1, max_size=30),
       st.booleans())
def test_cues_fire_exactly_once_per_threshold_crossed(start: int, samples: list[int],
                                                       in_lampo: bool) -> None:
    """Whatever readings of one run are taken, each threshold crossed fires exactly once."""
    times = sorted(min(sample, start) for sample in samples)
    shown = [start - t for t in times]
    cues: list[Cue] = []
    previous = _face(start, 1, start, in_lampo)
    for ms in shown:
        now = _face(ms, 1, start, in_lampo)
        cues.extend(cues_crossed(previous, now, DEFAULT_RULES))
        previous = now
    thresholds = [cue.threshold_ms for cue in cues]
    assert len(thresholds) == len(set(thresholds))
    table = ([s * 1000 for s in (15, 10, 5, 4, 3, 2, 1, 0)] if in_lampo
             else [s * 1000 for s in (10, 5, 4, 3, 2, 1, 0)])
    lowest = shown[-1]
    assert sorted(thresholds, reverse=True) == [t for t in table if start > t >= lowest]


def test_tracker_reports_both_faces() -> None:
    """COMP 3.6.2 i: both faces beep, each for itself."""
    game = started("11")
    tracker = CueTracker()
    tracker.update(game.read(0.0))
    game.press(WHITE, 1.5)
    cues = tracker.update(game.read(3.0))  # White crossed 10 s at 1 s, in his still-last run
    assert [(cue.side, cue.screen) for cue in cues] == [(WHITE, "10"), (BLACK, "10")]
    assert tracker.update(game.read(3.5)) == ()
