"""Property tests of the arbiter: natural physical orders reproduce the game without a flag;
noise never crashes it nor commits a move that is not on the board."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.arbiter import Arbiter
from engine.board import Board
from engine.events import (ArbiterActed, ButtonPressed, Event, GameStarted, PieceLifted,
                           PiecePlaced, SnapshotTaken, TraceEnded)
from engine.colour import Colour
from engine.variants import find_variant
from hardware_mocks.players import physical

VARIANTS = ("italian", "english", "international", "brazilian")


def play_random_game(variant: str, seed: int, clock: bool, plies: int) -> tuple[Arbiter, list[str]]:
    rng = random.Random(seed)
    v = find_variant(variant)
    start = GameStarted(variant=variant, clock=clock, settle=1.0)
    arb = Arbiter(start)
    ref = Board(None, v)
    played: list[str] = []
    t = 0.0
    for _ in range(plies):
        moves = ref.legal_moves
        if not moves or arb.game.is_over:
            break
        move = rng.choice(moves)
        side = Colour(ref.turn).label
        played.append(ref.notation(move))
        evs, t = physical(ref, move, rng, t, set(arb.sensed))
        for e in evs:
            arb.feed(e)
        t += 0.2
        if clock:
            arb.feed(ButtonPressed(round(t, 3), "clock", side))
        elif rng.random() < 0.5:
            t += 1.5
            arb.advance(round(t, 3))
        ref.push(move)
    arb.feed(TraceEnded(round(t + 5, 3)))
    return arb, played


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), clock=st.booleans())
def test_natural_orders_reproduce_the_game(variant: str, seed: int, clock: bool) -> None:
    arb, played = play_random_game(variant, seed, clock, plies=40)
    assert [m.notation for m in arb.game.moves] == played
    assert [f.to_dict() for f in arb.flags] == []


def noise_event(data: Any, names: list[str], t: float) -> Event:
    kind = data.draw(st.sampled_from(["lift", "place", "lift", "place", "button", "arbiter",
                                      "snapshot"]))
    if kind == "lift":
        return PieceLifted(t, data.draw(st.sampled_from(names)))
    if kind == "place":
        return PiecePlaced(t, data.draw(st.sampled_from(names)))
    if kind == "button":
        return ButtonPressed(t, data.draw(st.sampled_from(
            ["clock", "clock", "clock", "accomodo", "correct", "accept", "draw_offer",
             "draw_accept", "count", "repetition"])), data.draw(st.sampled_from(["white", "black"])))
    if kind == "arbiter":
        action = data.draw(st.sampled_from(["restore", "impose_count", "note", "stop_clock",
                                            "start_clock"]))
        return ArbiterActed(t, action, text="x" if action == "note" else None)
    return SnapshotTaken(t, frozenset(data.draw(st.lists(st.sampled_from(names), max_size=12))))


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), clock=st.booleans())
def test_noise_never_crashes_nor_commits_a_move_not_on_the_board(variant: str, data: Any,
                                                                  clock: bool) -> None:
    v = find_variant(variant)
    arb = Arbiter(GameStarted(variant=variant, clock=clock, settle=1.0,
                              time_control=data.draw(st.sampled_from([None, "600+5"]))))
    names = sorted(v.geometry.all_names)
    # mostly squares near the action, so that legal moves do happen
    t = 0.0
    for _ in range(data.draw(st.integers(1, 60))):
        t += data.draw(st.floats(0, 3))
        e = noise_event(data, names, round(t, 3))
        before = len(arb.game.moves)
        maintained_before = sum(f.status == "maintained" for f in arb.flags)
        arb.feed(e)
        if isinstance(e, ButtonPressed) and e.name == "clock" and len(arb.game.moves) > before:
            if sum(f.status == "maintained" for f in arb.flags) == maintained_before:
                # a regular move was committed: it is the one the board shows
                assert arb.board.occupied_algebraic() == arb.sensed
        arb.squares_to_fix  # noqa: B018 - must not raise
    arb.feed(TraceEnded(t + 10))
