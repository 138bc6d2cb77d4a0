"""TimeControl syntax (PDN/PGN TimeControl), the kinds of COMP 3.11, the minimums of COMP 5.3 and
5.6, PDN time values and the PDN 3.0 [%clock] comment."""

from __future__ import annotations

import pytest

from engine.errors import PdnTimeError, TimeControlError, UnknownVariantError
from engine.timecontrol import (
    Period, TimeControl, format_clock_comment, format_pdn_time, minimum_time_warnings,
    parse_clock_comment, parse_pdn_time, parse_time_control_tag,
)


# -- syntax and kinds -------------------------------------------------------------------------

@pytest.mark.parametrize("text, kind, article", [
    ("40/7200:3600", "moves_in_time", "COMP 3.11.1"),
    ("40/7200", "moves_in_time", "COMP 3.11.1"),
    ("7200", "whole_game", "COMP 3.11.2"),
    ("1800:1/30", "mosse_lampo", "COMP 3.11.3"),
    ("0:1/30", "mosse_lampo", "COMP 3.11.3"),
    ("1800+10", "fischer", "COMP 3.11.4"),
    ("40/7200:1800+10", "moves_then_fischer", "COMP 3.11.5"),
    ("40/7200:0+10", "moves_then_fischer", "COMP 3.11.5"),
    ("40/5400+30:1800+30", "custom", "PDN TimeControl"),
])
def test_comp_3_11_every_kind_parses_and_round_trips(text: str, kind: str, article: str) -> None:
    control = TimeControl.parse(text)
    assert str(control) == text
    assert control.kind == kind
    assert control.article == article
    assert eval(repr(control), {"TimeControl": TimeControl}) == control


def test_named_constructors_match_the_syntax() -> None:
    """COMP 3.11.1-3.11.5: each named constructor is the PDN string of its kind."""
    assert TimeControl.whole_game(7200) == TimeControl.parse("7200")
    assert TimeControl.moves_in_time(40, 7200, then=3600) == TimeControl.parse("40/7200:3600")
    assert TimeControl.moves_in_time(40, 7200) == TimeControl.parse("40/7200")
    assert TimeControl.fischer(1800, 10) == TimeControl.parse("1800+10")
    assert TimeControl.moves_then_fischer(40, 7200, 10, extra=1800) == TimeControl.parse(
        "40/7200:1800+10")


def test_comp_5_6_mosse_lampo_default_30_s_italian_60_s_international() -> None:
    assert str(TimeControl.mosse_lampo(1800)) == "1800:1/30"
    assert str(TimeControl.mosse_lampo(2700, game="international")) == "2700:1/60"
    assert str(TimeControl.mosse_lampo(2700, 45, game="international")) == "2700:1/45"


def test_surrounding_spaces_ignored() -> None:
    """PDN TimeControl: spaces around the value are not part of it."""
    assert TimeControl.parse("  1800+10 ") == TimeControl.fischer(1800, 10)


@pytest.mark.parametrize("text, words", [
    ("", "empty"),
    ("?", "unknown"),
    ("-", "no time control"),
    ("*300", "sandclock"),
    ("40/", "is not moves/seconds"),
    ("1.5", "whole seconds"),
    ("30 min", "is not moves/seconds"),
    ("1800+", "is not moves/seconds"),
    ("0/100", "at least 1 move"),
    ("0", "loses on time at once"),
    ("1800:3600", "only mosse lampo"),
    ("1800:1/30:1/30", "only mosse lampo"),
    ("1800:1/30+5", "only mosse lampo"),
    ("1800+10:1/30", "without increment"),
    ("1800:1/0", "at least 1 s"),
    ("99999999999", "too large"),
    ("0" * 5000 + "3600", "longer than 64 characters"),  # issue 35: past int()'s digit limit
    ("40/7200:" + "0" * 5000 + "3600", "longer than 64 characters"),
    ("４０/7200", "is not moves/seconds"),
])
def test_bad_strings_raise_time_control_error_with_one_line(text: str, words: str) -> None:
    """PDN TimeControl / COMP 3.11: bad strings refused with one clear line."""
    with pytest.raises(TimeControlError) as caught:
        TimeControl.parse(text)
    message = str(caught.value)
    assert words in message
    assert "\n" not in message
    assert isinstance(caught.value, ValueError)


def test_leading_zeros_within_the_length_are_the_number() -> None:
    """PDN TimeControl: 3,600 s written with leading zeros (64 characters at most) is 3,600 s."""
    control = TimeControl.parse("0" * 54 + "40/" + "0" * 3 + "3600")
    assert (control.periods[0].moves, control.periods[0].seconds) == (40, 3600)


def test_parse_rejects_non_strings() -> None:
    """PDN TimeControl: a tag value is a string."""
    with pytest.raises(TimeControlError):
        TimeControl.parse(1800)  # type: ignore[arg-type]


def test_constructor_validates() -> None:
    """COMP 3.11: periods in order, sudden death last, mosse lampo only after it."""
    with pytest.raises(TimeControlError):
        TimeControl(())
    with pytest.raises(TimeControlError):
        TimeControl((Period(None, 100), Period(None, 100)))
    with pytest.raises(TimeControlError):
        TimeControl((Period(40, -1),))
    with pytest.raises(TimeControlError):
        TimeControl((Period(40, 7200),), lampo=30)


def test_tag_reader_maps_unknown_and_none_to_none() -> None:
    """PGN 9.6.1: '?' unknown and '-' no control mean no clock."""
    assert parse_time_control_tag("?") is None
    assert parse_time_control_tag("-") is None
    assert parse_time_control_tag("") is None
    assert parse_time_control_tag("1800+10") == TimeControl.fischer(1800, 10)


# -- credits and periods ----------------------------------------------------------------------

def test_comp_4_1_next_period_credited_on_completing_the_last_move_of_a_period() -> None:
    control = TimeControl.parse("40/7200:3600")
    assert control.initial_ms == 7_200_000
    assert [control.credit_ms(n) for n in (1, 39, 40, 41, 80)] == [0, 0, 3_600_000, 0, 0]


def test_comp_4_1_last_period_with_a_move_count_repeats() -> None:
    control = TimeControl.parse("40/7200:20/3600")
    assert control.credit_ms(40) == 3_600_000
    assert control.credit_ms(60) == 3_600_000
    assert control.credit_ms(80) == 3_600_000
    assert control.credit_ms(70) == 0
    assert control.period_index(61) == 1


def test_comp_5_9_fischer_bonus_for_every_move() -> None:
    control = TimeControl.parse("1800+10")
    assert all(control.credit_ms(n) == 10_000 for n in range(1, 200))


def test_comp_3_11_5_bonus_only_after_the_first_period() -> None:
    control = TimeControl.parse("40/7200:1800+10")
    assert control.credit_ms(39) == 0
    assert control.credit_ms(40) == 1_800_000
    assert control.credit_ms(41) == 10_000


def test_credit_of_move_zero_raises() -> None:
    with pytest.raises(ValueError):
        TimeControl.parse("1800+10").credit_ms(0)


def test_comp_4_3_moves_to_control() -> None:
    control = TimeControl.parse("40/7200:20/3600")
    assert control.moves_to_control(0) == 40
    assert control.moves_to_control(39) == 1
    assert control.moves_to_control(40) == 20
    assert control.moves_to_control(65) == 15
    assert TimeControl.parse("40/7200:3600").moves_to_control(40) is None
    assert TimeControl.parse("1800+10").moves_to_control(3) is None


# -- COMP 5.3 minimums and COMP 5.6 -------------------------------------------------------------

@pytest.mark.parametrize("game, days, lampo_ok, lampo_short, fischer_ok, fischer_short", [
    ("italian", 2, "2100:1/30", "2040:1/30", "1800+10", "1800+9"),          # COMP 5.3.1
    ("italian", 1, "1800:1/30", "1740:1/30", "1800+10", "1740+10"),         # COMP 5.3.2
    ("international", 3, "2700:1/60", "2640:1/60", "2400+20", "2400+15"),   # COMP 5.3.3
    ("international", 1, "1800:1/60", "1799:1/60", "1800+15", "1800+14"),   # COMP 5.3.4
])
def test_comp_5_3_minimum_times(game: str, days: int, lampo_ok: str, lampo_short: str,
                                fischer_ok: str, fischer_short: str) -> None:
    assert minimum_time_warnings(TimeControl.parse(lampo_ok), game, days) == ()
    assert minimum_time_warnings(TimeControl.parse(fischer_ok), game, days) == ()
    (warning,) = minimum_time_warnings(TimeControl.parse(lampo_short), game, days)
    assert warning.startswith("COMP 5.3.")
    (warning,) = minimum_time_warnings(TimeControl.parse(fischer_short), game, days)
    assert warning.startswith("COMP 5.3.")


def test_comp_5_3_note_fischer_checks_both_initial_time_and_bonus() -> None:
    warnings = minimum_time_warnings(TimeControl.parse("1200+5"), "italian", 1)
    assert len(warnings) == 2
    assert "initial time" in warnings[0] and "bonus" in warnings[1]


def test_comp_5_3_applies_to_moves_then_fischer() -> None:
    assert minimum_time_warnings(TimeControl.parse("40/1200:0+5"), "italian", 1)


def test_comp_5_3_sets_no_minimum_for_other_controls() -> None:
    assert minimum_time_warnings(TimeControl.parse("40/600"), "italian", 1) == ()
    assert minimum_time_warnings(TimeControl.parse("300"), "international", 2) == ()


def test_comp_5_6_lampo_length_per_game() -> None:
    (warning,) = minimum_time_warnings(TimeControl.parse("1800:1/60"), "italian", 1)
    assert warning.startswith("COMP 5.6")
    assert minimum_time_warnings(TimeControl.parse("1800:1/30"), "international", 1) == ()
    (warning,) = minimum_time_warnings(TimeControl.parse("1800:1/90"), "international", 1)
    assert warning.startswith("COMP 5.6")


def test_minimums_map_english_and_brazilian_and_refuse_unknown_games() -> None:
    """COMP 5.3: only the Italian and international tables exist."""
    control = TimeControl.parse("1740:1/30")
    assert minimum_time_warnings(control, "english", 1) == minimum_time_warnings(
        control, "italian", 1)
    assert minimum_time_warnings(TimeControl.parse("1800+14"), "brazilian", 1)
    with pytest.raises(UnknownVariantError):
        minimum_time_warnings(control, "chess")
    with pytest.raises(ValueError):
        minimum_time_warnings(control, "italian", 0)


# -- PDN time values --------------------------------------------------------------------------

@pytest.mark.parametrize("seconds, text", [
    (0, "0:00:00"), (5, "0:00:05"), (4.97, "0:00:04.9"), (3723.4, "1:02:03.4"),
    (7200, "2:00:00"), (0.1, "0:00:00.1"), (36000.05, "10:00:00"),
])
def test_format_pdn_time_floors_to_the_tenth(seconds: float, text: str) -> None:
    """PDN WhiteTime/BlackTime: h:mm:ss, tenths floored (never more than left)."""
    assert format_pdn_time(seconds) == text


@pytest.mark.parametrize("text, seconds", [
    ("1:02:03", 3723.0), ("1:02:03.4", 3723.4), ("0:00:00.05", 0.05), ("1:36", 5760.0),
    ("2.23", 8580.0), (" 0:05:00 ", 300.0),
])
def test_parse_pdn_time(text: str, seconds: float) -> None:
    """PDN WhiteTime/BlackTime: h:mm:ss[.t], and h:mm / h.mm as in the PDN 3.0 examples."""
    assert parse_pdn_time(text) == seconds


@pytest.mark.parametrize("text", ["", "1:60:00", "1:00:60", "abc", "1:2:3", "-0:00:01", "1.5"])
def test_parse_pdn_time_rejects(text: str) -> None:
    """PDN WhiteTime/BlackTime: anything else is refused."""
    with pytest.raises(PdnTimeError):
        parse_pdn_time(text)


@pytest.mark.parametrize("seconds", [-1, float("nan"), float("inf")])
def test_format_pdn_time_rejects(seconds: float) -> None:
    """PDN WhiteTime/BlackTime: no negative or non-finite times."""
    with pytest.raises(PdnTimeError):
        format_pdn_time(seconds)


# -- [%clock] comments (PDN 3.0 "PDN Extensions", lidraughts) ----------------------------------

def test_clock_comment_as_written_by_lidraughts() -> None:
    """PDN 3.0 clock command: White first, running face upper case."""
    # lidraughts: after White's move Black's face runs (upper-case B), and vice versa.
    assert format_clock_comment(600, 600, running="black") == "[%clock w0:10:00 B0:10:00]"
    assert format_clock_comment(597.9, 598, running="white") == "[%clock W0:09:57 b0:09:58]"
    assert format_clock_comment(3723.9, 0) == "[%clock w1:02:03 b0:00:00]"


def test_clock_comment_rejects_out_of_range() -> None:
    """PDN 3.0 clock command: hours have at most two digits."""
    with pytest.raises(PdnTimeError):
        format_clock_comment(100 * 3600, 0)
    with pytest.raises(PdnTimeError):
        format_clock_comment(-1, 0)
    with pytest.raises(PdnTimeError):
        format_clock_comment(1, 0, running="red")


@pytest.mark.parametrize("text, expected", [
    ("[%clock w0:10:00 B0:09:58]", (600.0, 598.0)),
    ("Optional leading comments [%clock W0:05:40 b0:05:45] trailing", (340.0, 345.0)),
    ("[%clock b0:00:03 w0:00:10]", (10.0, 3.0)),
    ("[%clk w0:00:10 B0:00:03]", (10.0, 3.0)),  # the standard's own example
    ("[%clock 0:49:11]", None),                   # one time: whose?
    ("[%clock w0:49:11 w0:01:00]", None),
    ("[%clock w0:61:00 b0:00:00]", None),
    ("no clock here", None),
])
def test_parse_clock_comment(text: str, expected: tuple[float, float] | None) -> None:
    """PDN 3.0 clock command: both sides read, in either order, inside any comment."""
    assert parse_clock_comment(text) == expected


def test_parse_clock_comment_keeps_fractions_written_by_others() -> None:
    """PDN 3.0 clock command: a writer that adds tenths is read exactly."""
    assert parse_clock_comment("[%clock w0:00:04.5 B0:01:00.25]") == (4.5, 60.25)
