"""Reading the clock is a pure computation (issue 8: the OLED and the web read it often): it
changes nothing, copies nothing, and shows exactly what running the clock would; and no clock
operation costs time that grows with the number of moves (COMP 3.6.1, 4.1, 4.8, 5.6, 5.9.3,
7.4.2)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.clock import ClockPressed, ClockRecord, ClockState, GameClock
from engine.clock_run import credits_total_ms
from engine.colour import BLACK, COLOURS, WHITE, Colour
from engine.errors import ClockError
from engine.timecontrol import Period, TimeControl

CONTROLS = ["60", "40/7200:3600", "2/100", "3/50:20/40", "1800+10", "2/100:50+10",
            "5/30:10+3", "60:1/30", "0:1/30", "20/100:30:1/5", "10:1/60"]

OPS = st.lists(
    st.tuples(st.sampled_from(["press", "press", "press", "other", "refused", "stop", "resume",
                               "poll", "correct", "end", "late"]),
              st.integers(min_value=0, max_value=70_000),   # ms before the operation
              st.integers(min_value=0, max_value=90_000),   # how far ahead a reading looks
              st.booleans()),
    max_size=60)


def _apply(game: GameClock, op: str, t: float, choice: bool) -> object:
    """One operation; returns its result (or None when the state does not allow it)."""
    if op in ("press", "other", "refused"):
        side = game.running if op != "other" and game.running is not None else (
            WHITE if choice else BLACK)
        return game.press(side, t, move_complete=op != "refused")
    if op == "late" and game.running is not None:
        # COMP 5.7: the piece let go a little before the press.
        return game.press(game.running, t, completed_at=max(0.0, t - 0.5) if choice else t)
    if op == "stop" and game.state == ClockState.RUNNING:
        return game.stop_both(t)
    if op == "resume" and game.state == ClockState.STOPPED:
        return game.resume(t, sealed_move=choice)
    if op == "poll":
        return game.poll(t)
    if op == "correct" and game.state in (ClockState.RUNNING, ClockState.STOPPED):
        offender = WHITE if choice else BLACK
        retract = game.to_move != offender and game.moves(offender) > 0
        return game.begin_correction(offender, t, retract_last_move=retract)
    if op == "end" and game.state == ClockState.CORRECTING:
        return game.end_correction(t)
    return None


@settings(max_examples=250, deadline=None)
@given(st.sampled_from(CONTROLS), st.sampled_from(COLOURS), OPS)
def test_reading_has_no_effect_on_later_behaviour(text: str, first: Colour,
                                                  ops: list[tuple[str, int, int, bool]]) -> None:
    """Two clocks run the same operations; one is also read (read, face, reading, record) at
    any time not before the last one given, even past the next operation: every result and
    every later reading is the same, and each reading is what the clock shows once told that
    time (the pure projection agrees with running the clock)."""
    control = TimeControl.parse(text)
    plain, read = GameClock(control), GameClock(control)
    plain.start(first, 0.0)
    read.start(first, 0.0)
    now = 0
    for op, delta, ahead, choice in ops:
        now += delta
        t, later = now / 1000, (now + ahead) / 1000
        seen = read.read(later)
        assert read.face(WHITE, later) == seen.white and read.face(BLACK, later) == seen.black
        assert read.reading(later) == (seen.white.seconds, seen.black.seconds)
        record = read.record(later)
        # What running the clock to ``later`` would show, on a third clock in the same state.
        told = copy.deepcopy(read)
        told.check_flag(later)
        assert told.read(later) == seen
        assert told.record(later) == record
        assert _apply(read, op, t, choice) == _apply(plain, op, t, choice)
        assert read.read(t) == plain.read(t)
        assert repr(read) == repr(plain)
    assert read.poll(now / 1000) == plain.poll(now / 1000)


def test_reading_copies_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a clock must not copy it: no deepcopy/copy of the clock on any read."""
    game = GameClock(TimeControl.parse("1800+10"))
    game.start(WHITE, 0.0)
    for n in range(1, 201):
        game.press(game.to_move, n / 10)

    def refuse(*args: object) -> object:
        raise AssertionError("the clock was copied to be read")
    monkeypatch.setattr(copy, "deepcopy", refuse)
    monkeypatch.setattr(copy, "copy", refuse)
    reading = game.read(25.0)
    assert reading.black.moves == 100 and game.face(WHITE, 25.0) == reading.white
    assert game.record(25.0).white_moves == 100
    assert game.reading(25.0) == (reading.white.seconds, reading.black.seconds)


def test_readings_are_colours_that_read_as_text() -> None:
    """One colour type: sides are ``Colour``; their text is docs/trace-format.md's; text is no side."""
    game = GameClock(TimeControl.parse("60"))
    started = game.start(Colour.parse("black"), 0.0)
    assert started.to_move is Colour.BLACK and str(started.running) == "black"
    pressed = game.press(BLACK, 1.0)
    assert isinstance(pressed, ClockPressed) and f"{pressed.side}" == "black"
    assert game.read(2.0).running is Colour.WHITE
    for not_a_side in ("white", 1, True, None):
        with pytest.raises(ClockError, match="a side is a Colour"):
            game.press(not_a_side, 3.0)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(CONTROLS + ["1/10:2/20:1+5", "3/60+2:30+1", "15+0"]),
       st.integers(0, 400), st.integers(0, 400))
def test_restore_credits_what_the_presses_would_have(text: str, white_moves: int,
                                                     black_moves: int) -> None:
    """COMP 7.4.2: a restored clock holds the credits of every move counted (COMP 4.1, 5.9.3),
    worked out from the control (not a list rebuilt per move), and a retraction after it gives
    back exactly the last move's credit (COMP 4.13)."""
    control = TimeControl.parse(text)
    game = GameClock(control)
    game.restore(ClockRecord(0.0, 30_000, 30_000, white_moves, black_moves, BLACK, BLACK), 0.0)
    for side, moves in ((WHITE, white_moves), (BLACK, black_moves)):
        expected = sum(control.credit_ms(n) for n in range(1, moves + 1))
        assert round(game.credited_seconds(side) * 1000) == expected
    if white_moves:
        before = game.record(0.0).white_ms
        game.begin_correction(WHITE, 0.0, retract_last_move=True)
        assert game.record(0.0).white_ms == max(0, before - control.credit_ms(white_moves))
        assert game.moves(WHITE) == white_moves - 1 and game.to_move == WHITE


PERIODS = st.builds(Period, st.one_of(st.none(), st.integers(1, 50)), st.integers(1, 9999),
                    st.integers(0, 120))


@settings(max_examples=300, deadline=None)
@given(st.lists(PERIODS, min_size=1, max_size=4), st.integers(0, 600))
def test_credits_total_is_the_sum_of_every_press_credit(periods: list[Period], moves: int) -> None:
    """COMP 4.1, 5.9.3: the closed form restore uses equals the credits the presses would have
    made one by one, for any control (periods in order, the last with a count repeating)."""
    cut = next((i for i, p in enumerate(periods) if p.moves is None), len(periods) - 1)
    control = TimeControl(tuple(periods[:cut + 1]))
    assert credits_total_ms(control, moves) == sum(
        control.credit_ms(n) for n in range(1, moves + 1))
