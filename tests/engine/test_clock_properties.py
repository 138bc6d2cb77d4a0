"""Property tests of the clock (hypothesis): random games of presses, refused presses,
interruptions and long thinks, on a fake time source in whole milliseconds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.clock import ClockPressed, ClockState, FlagFell, GameClock, MosseLampoBegan
from engine.colour import BLACK, COLOURS, WHITE, Colour
from engine.timecontrol import (
    Period, TimeControl, format_clock_comment, format_pdn_time, parse_clock_comment,
    parse_pdn_time,
)

CONTROLS = ["7200", "60", "40/7200:3600", "2/100", "3/50:20/40", "1800+10", "300+2", "2/100:50+10",
            "5/30:10+3", "40/5400+30:1800+30"]
LAMPO_CONTROLS = ["60:1/30", "0:1/30", "20/100:30:1/5", "10:1/60"]

OPS = st.lists(
    st.tuples(st.sampled_from(["press", "press", "press", "other", "refused", "stop", "resume",
                               "poll", "correct", "end"]),
              st.integers(min_value=0, max_value=70_000),  # ms before the operation
              st.booleans()),
    max_size=80)


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def _play(control: TimeControl, first: Colour, ops: list[tuple[str, int, bool]],
          check_remaining: bool) -> None:
    game = GameClock(control)
    game.start(first, 0.0)
    now = 0
    elapsed = 0  # ms during which a face ran, computed here independently of the clock
    for op, delta, choice in ops:
        was_running = game.state in (ClockState.RUNNING, ClockState.CORRECTING)
        had_flag = game.flag is not None
        now += delta
        t = now / 1000
        flag = game.check_flag(t)
        if was_running:
            end = _ms(flag.t) if flag is not None and not had_flag else now
            elapsed += end - (now - delta)
        before = game.read(t)
        if op in ("press", "other", "refused"):
            side = game.running if op != "other" and game.running is not None else (
                WHITE if choice else BLACK)
            result = game.press(side, t, move_complete=op != "refused")
            after = game.read(t)
            if isinstance(result, ClockPressed):
                # A press never gives time to the wrong player.
                mover, other = before.face(side), after.face(side)
                assert after.face(_other(side)).ms == before.face(_other(side)).ms or (
                    after.face(_other(side)).in_lampo)
                if not mover.in_lampo:
                    assert other.ms == mover.ms + _ms(result.credit)
                assert result.credit == 0 or result.counted
            else:
                assert (after.white.ms, after.black.ms) == (before.white.ms, before.black.ms)
                assert after.running == before.running
        elif op == "stop" and game.state == ClockState.RUNNING:
            game.stop_both(t)
        elif op == "resume" and game.state == ClockState.STOPPED:
            game.resume(t, sealed_move=choice)
        elif op == "poll":
            game.poll(t)
        elif op == "correct" and game.state in (ClockState.RUNNING, ClockState.STOPPED):
            offender = WHITE if choice else BLACK
            retract = game.to_move != offender and game.moves(offender) > 0
            game.begin_correction(offender, t, retract_last_move=retract)
        elif op == "end" and game.state == ClockState.CORRECTING:
            game.end_correction(t)
        reading = game.read(t)
        for side in COLOURS:
            face = reading.face(side)
            # Times are never negative, and readings floor to the tenth.
            assert face.ms >= 0
            assert face.seconds * 10 == face.ms // 100
            # Increments are credited exactly once per completed move.
            assert _ms(game.credited_seconds(side)) == sum(
                control.credit_ms(n) for n in range(1, game.moves(side) + 1))
            if check_remaining:
                assert face.ms == (control.initial_ms + _ms(game.credited_seconds(side))
                                   - _ms(game.consumed_seconds(side)))
        # Never both faces running (COMP 3.6.1 c).
        assert not (reading.white.running and reading.black.running)
        # The total time elapsed is the sum of both faces' consumption.
        assert elapsed == _ms(game.consumed_seconds(WHITE)) + _ms(game.consumed_seconds(BLACK))


def _other(side: Colour) -> Colour:
    return BLACK if side == WHITE else WHITE


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(CONTROLS), st.sampled_from(COLOURS), OPS)
def test_invariants_of_every_game(text: str, first: Colour, ops: list[tuple[str, int, bool]]) -> None:
    """COMP 3.6.1, 4.1, 4.5, 4.8, 4.13, 5.9.3, 7.3-7.4 under any sequence of operations."""
    _play(TimeControl.parse(text), first, ops, check_remaining=True)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(LAMPO_CONTROLS), st.sampled_from(COLOURS), OPS)
def test_invariants_with_mosse_lampo(text: str, first: Colour,
                                     ops: list[tuple[str, int, bool]]) -> None:
    """COMP 5.6, 5.7: the same invariants when mosse lampo follow."""
    _play(TimeControl.parse(text), first, ops, check_remaining=False)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(LAMPO_CONTROLS), st.lists(st.integers(0, 40_000), max_size=40))
def test_lampo_begins_once_per_player_and_flags_only_in_lampo(
        text: str, thinks: list[int]) -> None:
    """COMP 5.6: the phase begins once per player; a flag then falls only in it (COMP 5.7)."""
    game = GameClock(TimeControl.parse(text))
    game.start(WHITE, 0.0)
    now = 0
    events = []
    for think in thinks:
        now += think
        if game.running is not None:
            game.press(game.running, now / 1000)
        events.extend(game.poll(now / 1000))
    began = [e.side for e in events if isinstance(e, MosseLampoBegan)]
    assert len(began) == len(set(began))
    for event in events:
        if isinstance(event, FlagFell):
            assert event.in_lampo and event.side in began


# -- round trips ------------------------------------------------------------------------------

PERIODS = st.builds(Period, st.one_of(st.none(), st.integers(1, 99)), st.integers(1, 99999),
                    st.integers(0, 120))


@st.composite
def time_controls(draw: st.DrawFn) -> TimeControl:
    periods = draw(st.lists(PERIODS, min_size=1, max_size=4))
    cut = next((i for i, p in enumerate(periods) if p.moves is None), len(periods) - 1)
    periods = periods[:cut + 1]
    lampo = None
    if periods[-1].moves is None and periods[-1].increment == 0 and draw(st.booleans()):
        lampo = draw(st.integers(1, 120))
    return TimeControl(tuple(periods), lampo)


@given(time_controls())
def test_time_control_format_parse_round_trip(control: TimeControl) -> None:
    """PDN TimeControl: every valid control is written and read back unchanged."""
    assert TimeControl.parse(str(control)) == control


TIMES = st.integers(0, 99 * 3600 * 1000 + 3599_999).map(lambda ms: ms / 1000)


@given(TIMES)
def test_pdn_time_round_trip(seconds: float) -> None:
    """PDN WhiteTime/BlackTime: read back as written, floored to the tenth."""
    text = format_pdn_time(seconds)
    assert _ms(parse_pdn_time(text)) == _ms(seconds) // 100 * 100
    assert format_pdn_time(parse_pdn_time(text)) == text


@given(TIMES, TIMES, st.sampled_from([None, "white", "black"]))
def test_clock_comment_round_trip(white: float, black: float, running: str | None) -> None:
    """PDN 3.0 clock command: read back as written, floored to the second. (Its ``running`` is
    the PDN side name, a string: ``engine.timecontrol`` does not take a ``Colour``.)"""
    text = format_clock_comment(white, black, running)
    assert parse_clock_comment("{" + text + "}") == (_ms(white) // 1000, _ms(black) // 1000)
    assert format_clock_comment(*parse_clock_comment(text) or (0, 0), running) == text
