"""``Game.copy`` and ``GameClock.copy``: a copy is the original as it was, whatever the original
does next (the board's readers keep one while a journal line waits for its fsync,
``pi.board.durable.GameAt``). Property tests (hypothesis): random games, copied at a random
point, the original played on (moves, marks undone, the clock pressed, stopped, corrected); the
copy still reads exactly as a fresh object brought to that point."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.clock import ClockState, GameClock
from engine.colour import BLACK, WHITE
from engine.game import Game
from engine.timecontrol import TimeControl

VARIANTS = ["italian", "english", "international", "brazilian"]


def _game_reading(g: Game) -> tuple[object, ...]:
    return (g.board.fen(), [m.to_dict() for m in g.moves], g.result, g.outcome,
            g.repetition_count(), g.count_status, dict(g.tags), g.start_fen)


def _play(g: Game, picks: list[int]) -> None:
    for i, pick in enumerate(picks):
        moves = g.legal_moves()
        if not moves:
            return
        if i % 7 == 6 and g.moves:  # now and then an irregular move kept, then corrected
            mark = g.mark()
            g.play(moves[pick % len(moves)], provisional=True)
            g.undo_to(mark)
            continue
        g.play(moves[pick % len(moves)])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(VARIANTS), st.lists(st.integers(0, 1000), max_size=60),
       st.lists(st.integers(0, 1000), max_size=60))
def test_a_game_copy_is_the_game_as_it_was(variant: str, before: list[int],
                                           after: list[int]) -> None:
    g = Game(variant, tags={"White": "Ann"})
    _play(g, before)
    expected = _game_reading(g)
    kept = g.copy()
    g.tags["Black"] = "Bob"
    _play(g, after)
    assert _game_reading(kept) == expected
    # and the copy plays on by itself as the original would have from there
    fresh = Game(variant, tags={"White": "Ann"})
    _play(fresh, before)
    _play(kept, after)
    _play(fresh, after)
    assert _game_reading(kept) == _game_reading(fresh)


OPS = st.lists(st.tuples(st.sampled_from(["press", "press", "stop", "resume", "correct", "end"]),
                         st.integers(0, 20_000)), max_size=40)


def _operate(clock: GameClock, now_ms: int, ops: list[tuple[str, int]]) -> int:
    for op, delta in ops:
        now_ms += delta
        t = now_ms / 1000
        clock.check_flag(t)
        if op == "press" and clock.running is not None:
            clock.press(clock.running, t)
        elif op == "stop" and clock.state == ClockState.RUNNING:
            clock.stop_both(t)
        elif op == "resume" and clock.state == ClockState.STOPPED:
            clock.resume(t)
        elif op == "correct" and clock.state in (ClockState.RUNNING, ClockState.STOPPED):
            offender = clock.to_move
            clock.begin_correction(offender, t, retract_last_move=False)
        elif op == "end" and clock.state == ClockState.CORRECTING:
            clock.end_correction(t)
    return now_ms


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["1800+10", "60:1/30", "40/5400+30:1800+30", "2/100"]), OPS, OPS,
       st.integers(0, 100_000))
def test_a_clock_copy_is_the_clock_as_it_was(control: str, before: list[tuple[str, int]],
                                             after: list[tuple[str, int]], later: int) -> None:
    tc = TimeControl.parse(control)
    clock = GameClock(tc)
    clock.start(WHITE, 0.0)
    now = _operate(clock, 0, before)
    kept = clock.copy()
    fresh = GameClock(tc)
    fresh.start(WHITE, 0.0)
    _operate(fresh, 0, before)
    end = _operate(clock, now, after)
    for t in (now / 1000, (now + later) / 1000, end / 1000):
        assert kept.read(t) == fresh.read(t)
    assert (kept.moves(WHITE), kept.moves(BLACK)) == (fresh.moves(WHITE), fresh.moves(BLACK))
