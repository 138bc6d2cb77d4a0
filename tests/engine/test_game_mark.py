"""Game.mark()/undo_to(): an irregular move written in while the opponent decides (IT 8.2) leaves
no trace once corrected (IT 8.4): moves, position, repetition counts, the move count, the end."""

from __future__ import annotations

import random

import pytest

from engine.game import Game
from engine.variants import VARIANTS


def state(g: Game) -> tuple[object, ...]:
    return (g.board.fen(), list(g.moves), g.repetition_count(), g.count_status, g.outcome,
            g.start_fen, g.custom_start)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_undo_to_restores_the_record_after_a_provisional_move(variant: str) -> None:
    rng = random.Random(7)
    g = Game(variant)
    for _ in range(40):
        if g.is_over:
            break
        before = state(g)
        mark = g.mark()
        move = rng.choice(g.legal_moves())
        if rng.random() < 0.5:
            g.play(move, provisional=True)
        else:  # kept as an irregular move: the game goes on from another position
            other = g.board.copy(stack=False)
            other.push(move)
            g.record_irregular(move, g.board.notation(move), g.turn, other.fen(),
                               provisional=True)
        g.undo_to(mark)
        assert state(g) == before
        g.play(rng.choice(g.legal_moves()))


def test_repetition_counts_follow_the_record() -> None:
    g = Game("italian", "W:WK29,K32:BK1,K4")
    for _ in range(3):
        for text in ("29-25", "4-8", "25-29", "8-4"):
            g.play_notation(text)
    assert g.repetition_count() == 4  # IT 9.3b: the fourth occurrence, on request
    mark = g.mark()
    g.play(g.board.parse_move("29-25"), provisional=True)
    assert g.repetition_count() == 4  # the position after 29-25, a fourth time
    g.undo_to(mark)
    assert len(g.moves) == 12 and g.repetition_count() == 4
    g.play_notation("29-25")  # for real now: still its fourth occurrence, not a fifth
    assert g.repetition_count() == 4 and g.claim_repetition()
    assert g.outcome is not None and g.outcome.code == "IT 9.3b"


def test_forgotten_moves_still_count_and_a_mark_after_them_undoes() -> None:
    # issue 35: a streaming reader (damiera replay) has the game forget the moves it wrote out;
    # plies go on counting them, a correction after them still takes its move back (IT 8.4),
    # and one that would need a forgotten move refuses
    g = Game("italian")

    def play(plies: int) -> None:
        for _ in range(plies):
            g.play(g.legal_moves()[0])

    play(3)
    earlier = g.mark()  # at ply 3: undoing to it rewrites ply 3
    play(2)
    early = g.mark()
    fifth = g.moves[-1]
    play(1)
    sixth = g.moves[-1]
    g.forget(3)
    assert g.ply == 6 and len(g.moves) == 3 and [m.ply for m in g.moves] == [4, 5, 6]
    mark = g.mark()
    g.play(g.legal_moves()[0], provisional=True)
    assert g.moves[-1].ply == 7
    g.undo_to(mark)
    assert g.ply == 6 and g.moves[-1] is sixth
    g.undo_to(early)
    assert g.ply == 5 and g.moves[-1] is fifth
    with pytest.raises(ValueError):
        g.forget(len(g.moves))  # the last move is never forgotten
    with pytest.raises(ValueError):
        g.undo_to(earlier)  # ply 3 was forgotten
