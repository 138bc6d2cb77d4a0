"""The game clock against the FID competition rules (COMP, Capo III), on a fake time source:
every test tells the clock the time, nothing reads the system time."""

from __future__ import annotations

import pytest

from engine.clock import (
    BothFlagsFell, ClockPressed, ClockRecord, ClockResumed, ClockStarted, ClockState,
    ClockStopped, CorrectionBegan, CorrectionEnded, ElapsedDivided, FlagFell, GameClock,
    MosseLampoBegan, PressIgnored, PressRefused, ResignedByStoppingClock, TimeAdjusted,
)
from engine.colour import BLACK, WHITE
from engine.errors import ClockError
from engine.timecontrol import TimeControl


class FakeTime:
    """A monotonic time source that moves only when told."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self, advance: float = 0.0) -> float:
        self.now += advance
        return self.now


def clock(text: str) -> GameClock:
    return GameClock(TimeControl.parse(text))


def started(text: str, to_move: str = WHITE, t: float = 0.0) -> GameClock:
    game = clock(text)
    game.start(to_move, t)  # type: ignore[arg-type]
    return game


# -- start, alternation (COMP 3.6.1, 4.4) ------------------------------------------------------

def test_comp_4_4_1_b_faces_show_the_exact_time_at_the_start() -> None:
    game = clock("1800+10")
    assert game.state == ClockState.READY
    assert game.reading(0) == (1800.0, 1800.0)
    assert game.running is None


def test_comp_4_4_2_arbiter_starts_the_face_of_the_player_to_move() -> None:
    game = clock("7200")
    assert game.start(BLACK, 10.0) == ClockStarted(10.0, BLACK, BLACK)
    assert game.running == BLACK and game.to_move == BLACK
    assert game.reading(70.0) == (7200.0, 7140.0)


def test_start_twice_raises() -> None:
    """COMP 4.4.2: the arbiter starts the clock once; a second start is a misuse."""
    game = started("7200")
    with pytest.raises(ClockError):
        game.start(WHITE, 1)


def test_comp_3_6_1_faces_alternate_and_never_run_together() -> None:
    now = FakeTime()
    game = started("7200")
    for ply in range(10):
        side = WHITE if ply % 2 == 0 else BLACK
        assert game.running == side
        result = game.press(side, now(3.0), move_complete=True)
        assert isinstance(result, ClockPressed)
        white, black = game.read(now()).white, game.read(now()).black
        assert white.running != black.running
    assert game.moves(WHITE) == 5 and game.moves(BLACK) == 5
    assert game.reading(now()) == (7185.0, 7185.0)


def test_comp_3_6_1_pressing_a_face_that_is_not_running_does_nothing() -> None:
    game = started("7200")
    result = game.press(BLACK, 5.0)
    assert isinstance(result, PressIgnored)
    assert game.running == WHITE and game.moves(BLACK) == 0


def test_comp_4_4_5_press_before_the_move_is_complete_is_reported_not_obeyed() -> None:
    game = started("1800+10")
    result = game.press(WHITE, 5.0, move_complete=False)
    assert isinstance(result, PressRefused)
    assert result.article == "COMP 4.4.5"
    assert game.running == WHITE and game.moves(WHITE) == 0
    assert game.reading(6.0) == (1794.0, 1800.0)  # no bonus either (COMP 5.9.3)


def test_comp_4_3_move_count_visible_at_any_time() -> None:
    game = started("40/7200:3600")
    game.press(WHITE, 1.0)
    game.press(BLACK, 2.0)
    game.press(WHITE, 3.0)
    now = game.read(4.0)
    assert (now.white.moves, now.black.moves) == (2, 1)
    assert (now.white.moves_to_control, now.black.moves_to_control) == (38, 39)


# -- absent players (COMP 6.9, 6.10) ------------------------------------------------------------

def test_comp_6_9_a_absent_player_not_on_move_may_invert_at_once() -> None:
    game = clock("7200")
    game.start(WHITE, 0.0, running=BLACK)  # White present and on move, Black absent
    assert game.running == BLACK
    result = game.press(BLACK, 600.0, move_complete=False)
    assert isinstance(result, ClockPressed) and not result.counted
    assert game.running == WHITE and game.to_move == WHITE
    assert game.moves(BLACK) == 0
    assert game.reading(600.0) == (7200.0, 6600.0)


def test_comp_6_9_b_absent_player_on_move_inverts_only_after_moving() -> None:
    game = started("7200", to_move=BLACK)
    assert isinstance(game.press(BLACK, 900.0, move_complete=False), PressRefused)
    result = game.press(BLACK, 930.0)
    assert isinstance(result, ClockPressed) and result.counted and result.move_number == 1


def test_comp_6_10_both_absent_elapsed_time_divided_equally() -> None:
    game = started("7200")  # both absent: the arbiter starts White's face, White to move
    result = game.divide_elapsed(600.0, still_absent=WHITE)  # Black arrives first
    assert result == ElapsedDivided(600.0, 300.0, WHITE)
    assert game.reading(600.0) == (6900.0, 6900.0)
    assert game.running == WHITE
    assert game.consumed_seconds(WHITE) + game.consumed_seconds(BLACK) == 600.0


def test_comp_6_10_division_of_an_odd_millisecond() -> None:
    game = started("7200")
    game.divide_elapsed(0.001, still_absent=BLACK)
    assert game.consumed_seconds(WHITE) == 0.001 and game.consumed_seconds(BLACK) == 0.0


def test_comp_6_10_division_only_once_and_before_any_move() -> None:
    game = started("7200")
    game.divide_elapsed(10.0, still_absent=WHITE)
    with pytest.raises(ClockError):
        game.divide_elapsed(20.0, still_absent=WHITE)
    game = started("7200")
    game.press(WHITE, 1.0)
    with pytest.raises(ClockError):
        game.divide_elapsed(2.0, still_absent=WHITE)


# -- modes ----------------------------------------------------------------------------------

def test_comp_3_11_1_and_4_1_unused_time_carried_to_the_next_period() -> None:
    game = started("40/7200:3600")
    t = 0.0
    for _ in range(40):
        t += 60.0
        game.press(WHITE, t)
        t += 30.0
        game.press(BLACK, t)
    # 40 moves each: White used 2400 s, Black 1200 s; both got 3600 s more, keeping the rest.
    assert game.reading(t) == (7200 - 2400 + 3600, 7200 - 1200 + 3600)
    assert game.read(t).white.moves_to_control is None


def test_comp_4_1_repeating_period_credited_again_at_each_control() -> None:
    game = started("2/100")
    for t, side in ((10, WHITE), (20, BLACK), (30, WHITE), (40, BLACK), (50, WHITE)):
        game.press(side, t)
    assert game.reading(50) == (100 - 30 + 100, 100 - 20 + 100)
    assert game.moves(WHITE) == 3


def test_comp_3_11_2_whole_game_flag_at_zero() -> None:
    game = started("60")
    assert game.check_flag(59.999) is None
    assert game.check_flag(60.0) == FlagFell(WHITE, 60.0)
    assert game.state == ClockState.FLAGGED and game.running is None


def test_comp_4_8_flag_found_at_the_exact_instant_even_when_told_late() -> None:
    game = started("60")
    game.press(WHITE, 10.0)
    flag = game.check_flag(500.0)
    assert flag == FlagFell(BLACK, 70.0)
    assert game.reading(600.0) == (50.0, 0.0)  # the clock stopped when the first face hit zero


def test_comp_4_8_b_a_press_when_the_display_shows_zero_is_too_late() -> None:
    game = started("60")
    result = game.press(WHITE, 60.0)
    assert result == FlagFell(WHITE, 60.0)
    assert game.moves(WHITE) == 0
    assert isinstance(game.press(WHITE, 61.0), PressIgnored)


def test_comp_4_8_a_press_one_millisecond_before_zero_is_in_time() -> None:
    game = started("60")
    result = game.press(WHITE, 59.999)
    assert isinstance(result, ClockPressed)
    assert game.read(59.999).white.ms == 1


def test_comp_4_8_flag_in_first_period_before_the_required_moves() -> None:
    game = started("40/100:3600")
    game.press(WHITE, 50.0)
    game.press(BLACK, 60.0)
    assert game.check_flag(200.0) == FlagFell(WHITE, 110.0)  # 50 s left from 60 s


def test_comp_5_9_fischer_bonus_credited_only_when_the_player_presses() -> None:
    game = started("1800+10")
    assert game.reading(0) == (1800.0, 1800.0)  # no bonus at the start
    result = game.press(WHITE, 12.3)
    assert isinstance(result, ClockPressed)
    assert result.credit == 10.0
    assert (result.white, result.black) == (1797.7, 1800.0)
    assert game.credited_seconds(WHITE) == 10.0 and game.credited_seconds(BLACK) == 0.0


def test_comp_5_9_no_bonus_for_an_inversion_without_a_move() -> None:
    game = GameClock(TimeControl.parse("1800+10"))
    game.start(WHITE, 0.0, running=BLACK)
    result = game.press(BLACK, 5.0)
    assert isinstance(result, ClockPressed) and result.credit == 0.0
    assert game.credited_seconds(BLACK) == 0.0


def test_comp_5_9_4_the_first_face_at_zero_loses_and_stops_the_clock() -> None:
    game = started("10+5")
    game.press(WHITE, 9.0)      # White 6 s left
    game.press(BLACK, 12.0)     # Black 12 s left
    flag = game.check_flag(100.0)
    assert flag == FlagFell(WHITE, 18.0)
    assert game.reading(100.0) == (0.0, 12.0)


def test_comp_3_11_5_moves_then_fischer() -> None:
    game = started("2/100:50+10")
    for t, side in ((10, WHITE), (20, BLACK), (30, WHITE)):
        game.press(side, t)
    assert game.reading(30) == (100 - 20 + 50, 100 - 10)   # White's 2nd move: +50, no bonus
    game.press(BLACK, 40)
    game.press(WHITE, 45)                                   # White's 3rd move: +10
    assert game.reading(45) == (130 - 5 + 10, 90 - 10 + 50)


# -- mosse lampo (COMP 3.11.3, 5.6, 5.7) ----------------------------------------------------

def test_comp_5_6_mosse_lampo_begin_when_the_time_runs_out() -> None:
    game = started("60:1/30")
    assert game.poll(59.0) == ()
    assert game.poll(61.0) == (MosseLampoBegan(WHITE, 60.0, 30.0),)
    face = game.read(61.0).white
    assert face.in_lampo and face.ms == 29_000 and game.state == ClockState.RUNNING


def test_comp_5_6_each_lampo_move_has_its_own_time_nothing_carried() -> None:
    game = started("60:1/30")
    game.press(WHITE, 70.0)                     # lampo move 1 in 10 s
    assert game.read(70.0).white.ms == 30_000   # ready for the next move, not 20 s + 30 s
    game.press(BLACK, 75.0)
    assert game.read(100.0).white.ms == 5_000   # a fresh 30 s from 75 s
    assert game.press(WHITE, 105.0) == FlagFell(WHITE, 105.0, in_lampo=True)


def test_comp_5_6_lampo_for_the_player_concerned_only() -> None:
    game = started("60:1/30")
    game.press(WHITE, 65.0)
    black = game.read(70.0).black
    assert not black.in_lampo and black.ms == 55_000


def test_comp_5_7_move_let_go_by_zero_is_in_time_even_if_pressed_after() -> None:
    game = started("60:1/30")
    result = game.press(WHITE, 91.0, completed_at=89.5)
    assert isinstance(result, ClockPressed) and result.counted
    late = started("60:1/30")
    assert late.press(WHITE, 91.0, completed_at=90.0) == FlagFell(WHITE, 90.0, in_lampo=True)
    with pytest.raises(ClockError):
        started("60:1/30").press(WHITE, 10.0, completed_at=11.0)


def test_comp_5_8_mosse_lampo_from_the_first_move() -> None:
    game = started("0:1/30")
    assert game.poll(0.0) == (MosseLampoBegan(WHITE, 0.0, 30.0),)
    game.press(WHITE, 20.0)
    assert game.poll(20.0) == (MosseLampoBegan(BLACK, 20.0, 30.0),)
    assert game.check_flag(50.0) == FlagFell(BLACK, 50.0, in_lampo=True)


# -- both at zero, resignation, interruption ----------------------------------------------------

def test_comp_5_9_4_both_faces_at_zero_with_no_telling_which_first_is_a_draw() -> None:
    game = clock("1800+10")
    game.restore(ClockRecord(0.0, 0, 0, 30, 30, WHITE, WHITE), 0.0)
    game.resume(1.0)
    assert game.check_flag(1.0) == BothFlagsFell(1.0)
    assert game.state == ClockState.FLAGGED


def test_comp_6_5_a_player_stopping_both_faces_resigns() -> None:
    game = started("7200")
    game.press(WHITE, 10.0)
    result = game.stop_both(20.0, by=BLACK)
    assert result == ResignedByStoppingClock(BLACK, 20.0)
    assert result.article == "COMP 6.5"
    assert game.state == ClockState.FINISHED and game.running is None
    with pytest.raises(ClockError):
        game.resume(30.0)


def test_comp_7_3_and_7_4_interruption_sealed_move_and_resumption() -> None:
    game = started("40/7200:3600")
    game.press(WHITE, 100.0)
    stopped = game.stop_both(400.0)                       # COMP 7.3.1
    assert isinstance(stopped, ClockStopped)
    assert stopped.record == ClockRecord(400.0, 7_100_000, 6_900_000, 1, 0, BLACK, BLACK)
    assert game.reading(5000.0) == (7100.0, 6900.0)       # nothing runs while stopped
    assert game.resume(5000.0) == ClockResumed(5000.0, BLACK, False)  # COMP 7.3.7: Black seals
    sealed = game.stop_both(5120.0)                       # COMP 7.3.10, 7.3.12
    assert isinstance(sealed, ClockStopped) and sealed.record.black_ms == 6_780_000
    result = game.resume(90000.0, sealed_move=True)       # COMP 7.4.3
    assert result == ClockResumed(90000.0, WHITE, True)
    assert game.moves(BLACK) == 1 and game.to_move == WHITE
    assert game.reading(90010.0) == (7090.0, 6780.0)


def test_comp_7_4_2_restore_recorded_times_into_another_clock() -> None:
    first = started("1800+10")
    first.press(WHITE, 100.0)
    record = first.record(150.0)
    second = clock("1800+10")
    second.restore(record, 0.0)
    second.resume(10.0)
    assert second.reading(10.0) == first.reading(150.0)
    assert second.running == BLACK and second.moves(WHITE) == 1


def test_stop_and_resume_need_the_right_state() -> None:
    """COMP 7.3.1, 7.4.3: only a running clock stops, only a stopped one resumes."""
    game = clock("7200")
    with pytest.raises(ClockError):
        game.stop_both(0.0)
    with pytest.raises(ClockError):
        game.resume(0.0)
    game.start(WHITE, 0.0)
    with pytest.raises(ClockError):
        game.resume(1.0)
    game.stop_both(2.0)
    assert isinstance(game.press(WHITE, 3.0), PressIgnored)
    with pytest.raises(ClockError):
        game.stop_both(4.0)


def test_stop_after_the_flag_returns_the_flag() -> None:
    """COMP 5.9.4: the clock stopped itself at the first zero."""
    game = started("60")
    assert game.stop_both(100.0) == FlagFell(WHITE, 60.0)


# -- corrections (COMP 4.13) ----------------------------------------------------------------

def test_comp_4_13_correction_time_charged_to_the_offender_then_back() -> None:
    game = started("1800+10")
    game.press(WHITE, 10.0)                               # Black's face runs
    began = game.begin_correction(WHITE, 20.0)            # White disturbed the position
    assert began == CorrectionBegan(WHITE, 20.0, False)
    assert game.running == WHITE and game.state == ClockState.CORRECTING
    assert isinstance(game.press(WHITE, 25.0), PressIgnored)
    ended = game.end_correction(35.0)
    assert ended == CorrectionEnded(WHITE, 35.0, 15.0, BLACK)
    assert game.running == BLACK and game.to_move == BLACK
    assert game.moves(WHITE) == 1 and game.credited_seconds(WHITE) == 10.0
    assert game.reading(35.0) == (1800 - 10 + 10 - 15, 1800 - 10)


def test_comp_4_13_irregular_move_retracted_and_replayed() -> None:
    game = started("1800+10")
    game.press(WHITE, 10.0)                               # an illegal move, pressed
    began = game.begin_correction(WHITE, 30.0, retract_last_move=True)
    assert isinstance(began, CorrectionBegan) and began.retracted_move
    assert game.moves(WHITE) == 0 and game.to_move == WHITE
    assert game.credited_seconds(WHITE) == 0.0            # the bonus of that press taken back
    ended = game.end_correction(40.0)
    assert isinstance(ended, CorrectionEnded) and ended.running == WHITE
    assert game.reading(40.0) == (1800 - 10 - 10, 1800 - 20)
    result = game.press(WHITE, 45.0)                       # the legal move
    assert isinstance(result, ClockPressed) and result.move_number == 1 and result.credit == 10.0


def test_comp_4_13_whatever_the_consequence_the_offender_can_lose_on_time() -> None:
    game = started("60")
    game.press(WHITE, 50.0)
    game.begin_correction(WHITE, 51.0)
    assert game.end_correction(70.0) == FlagFell(WHITE, 61.0)


def test_comp_4_13_correction_while_stopped_leaves_the_clock_stopped() -> None:
    game = started("7200")
    game.stop_both(10.0)
    game.begin_correction(BLACK, 20.0)
    ended = game.end_correction(30.0)
    assert isinstance(ended, CorrectionEnded) and ended.running is None
    assert game.state == ClockState.STOPPED
    assert game.reading(30.0) == (7190.0, 7190.0)
    game.resume(40.0)
    assert game.running == WHITE


def test_correction_errors() -> None:
    """COMP 4.13: no correction to end, no move to retract."""
    game = started("7200")
    with pytest.raises(ClockError):
        game.end_correction(1.0)
    with pytest.raises(ClockError):
        game.begin_correction(WHITE, 2.0, retract_last_move=True)


# -- arbiter adjustments (COMP 4.7, 4.9-4.11, IT 9.3 b) -----------------------------------------

def test_comp_4_7_arbiter_sets_a_time() -> None:
    game = started("7200")
    result = game.set_remaining(BLACK, 3000.0, 10.0)
    assert result == TimeAdjusted(BLACK, 10.0, 7200.0, 3000.0)
    assert game.reading(20.0) == (7180.0, 3000.0)


def test_charge_never_below_the_floor() -> None:
    """COMP 4.9-4.11, IT 9.3 b: time charged, never below the floor left."""
    game = started("7200")
    game.charge(WHITE, 900.0, 0.0, keep_at_least=180.0)
    assert game.reading(0.0) == (6300.0, 7200.0)
    game.set_remaining(WHITE, 200.0, 0.0)
    game.charge(WHITE, 900.0, 0.0, keep_at_least=180.0)
    assert game.reading(0.0) == (180.0, 7200.0)
    game.set_remaining(WHITE, 100.0, 0.0)
    game.charge(WHITE, 900.0, 0.0, keep_at_least=180.0)
    assert game.reading(0.0) == (100.0, 7200.0)


def test_setting_the_running_face_to_zero_drops_its_flag() -> None:
    """COMP 4.8 b: a face at zero has lost, however it got there."""
    game = started("7200")
    game.set_remaining(WHITE, 0.0, 5.0)
    assert game.flag == FlagFell(WHITE, 5.0)


# -- exactness, time and sides ----------------------------------------------------------------

def test_readings_floored_to_the_tenth_never_more_than_left() -> None:
    """COMP 4.8 b, 3.6.2 h: a face never shows more time than is left."""
    game = started("10")
    assert game.reading(0.01) == (9.9, 10.0)
    assert game.reading(0.1) == (9.9, 10.0)
    assert game.reading(0.101) == (9.8, 10.0)
    assert game.read(0.101).white.ms == 9899


def test_no_float_drift_over_many_tenths() -> None:
    """COMP 5.9: 2000 bonuses and presses at tenths, exact to the millisecond."""
    game = started("3600+1")
    t = 0.0
    for ply in range(2000):
        t += 0.1
        game.press(WHITE if ply % 2 == 0 else BLACK, t)
    assert game.read(t).white.ms == 3_600_000 - 100_000 + 1_000_000
    assert game.read(t).black.ms == 3_600_000 - 100_000 + 1_000_000


def test_time_going_backwards_raises() -> None:
    """Monotonic time only: a time before the last one is refused."""
    game = started("7200", t=10.0)
    with pytest.raises(ClockError):
        game.press(WHITE, 9.0)
    with pytest.raises(ClockError):
        game.reading(9.99)
    with pytest.raises(ClockError):
        game.check_flag(float("nan"))


def test_unknown_side_raises() -> None:
    """COMP 3.6.1: two faces, white and black; anything else is refused."""
    game = clock("7200")
    with pytest.raises(ClockError):
        game.start("red", 0.0)  # type: ignore[arg-type]
    game.start(WHITE, 0.0)
    with pytest.raises(ClockError):
        game.press("w", 1.0)  # type: ignore[arg-type]


def test_queries_change_nothing() -> None:
    """COMP 4.3: looking at the clock does not move it."""
    game = started("60")
    assert game.reading(100.0) == (0.0, 60.0)
    assert game.state == ClockState.RUNNING and game.flag is None
    assert game.check_flag(30.0) is None  # still allowed: the query did not move the time


def test_check_flag_idempotent_poll_exactly_once() -> None:
    """COMP 4.8: the flag is reported with its exact time; poll reports it once."""
    game = started("60")
    assert game.check_flag(70.0) == FlagFell(WHITE, 60.0)
    assert game.check_flag(80.0) == FlagFell(WHITE, 60.0)
    assert game.poll(90.0) == (FlagFell(WHITE, 60.0),)
    assert game.poll(100.0) == ()


def test_repr_mentions_the_state() -> None:
    """Debugging aid: the repr shows control, state and faces."""
    assert "running" in repr(started("1800+10"))


def test_comp_4_13_only_the_last_move_of_the_game_can_be_retracted() -> None:
    game = started("1800+10")
    game.press(WHITE, 10.0)
    game.press(BLACK, 20.0)                               # Black moved: White's move stands
    with pytest.raises(ClockError):
        game.begin_correction(WHITE, 30.0, retract_last_move=True)


def test_sides_are_colours_and_nothing_else() -> None:
    """COMP 3.6.1: the two faces, named by the engine's one colour type."""
    game = clock("1800+10")
    assert game.start(WHITE, 0.0) == ClockStarted(0.0, WHITE, WHITE)
    result = game.press(WHITE, 1.0)
    assert isinstance(result, ClockPressed) and result.side is WHITE
    assert game.running is BLACK and game.moves(WHITE) == 1
    for not_a_side in (0, True, 2, "black"):
        with pytest.raises(ClockError):
            game.press(not_a_side, 2.0)  # type: ignore[arg-type]


def test_comp_7_4_2_restored_moves_imply_their_credits() -> None:
    game = clock("2/100:50+10")
    game.restore(ClockRecord(0.0, 30_000, 40_000, 3, 2, WHITE, WHITE), 0.0)
    assert game.credited_seconds(WHITE) == 60.0 and game.credited_seconds(BLACK) == 50.0
    assert game.moves(WHITE) == 3 and game.reading(5.0) == (30.0, 40.0)
    game.resume(5.0)
    result = game.press(WHITE, 6.0)
    assert isinstance(result, ClockPressed) and result.move_number == 4 and result.credit == 10.0
