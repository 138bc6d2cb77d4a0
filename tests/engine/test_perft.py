"""Perft from the initial position, captures counted once per start, end and captured set
(rhalbersma/dctl perft tables, as quoted in issue 2)."""

import pytest

from engine.board import Board

PERFT = {
    "italian": [7, 49, 302, 1469, 7361, 36473, 177532],
    "english": [7, 49, 302, 1469, 7361, 36768, 179740],
    "international": [9, 81, 658, 4265, 27117, 167140],
    "brazilian": [7, 49, 302, 1469, 7473, 37628, 187302],
}
FAST_DEPTH = 5  # deeper depths run with -m slow


def _check(variant: str, depth: int) -> None:
    board = Board(variant=variant)
    expected = PERFT[variant][depth - 1]
    got = board.perft(depth)
    if got != expected:
        divide = "\n".join(f"  {board.notation(m)}: {n}" for m, n in board.divide(depth))
        pytest.fail(f"{variant} perft({depth}) = {got}, expected {expected}; divide:\n{divide}")


@pytest.mark.parametrize("variant", PERFT)
@pytest.mark.parametrize("depth", range(1, FAST_DEPTH + 1))
def test_perft_initial(variant: str, depth: int) -> None:
    _check(variant, depth)


@pytest.mark.slow
@pytest.mark.parametrize("variant,depth", [(v, d) for v, counts in PERFT.items()
                                           for d in range(FAST_DEPTH + 1, len(counts) + 1)])
def test_perft_initial_deep(variant: str, depth: int) -> None:
    _check(variant, depth)


def test_perft_depth_zero_is_one() -> None:
    assert Board(variant="italian").perft(0) == 1


def test_divide_sums_to_perft() -> None:
    b = Board(variant="international")
    assert sum(n for _, n in b.divide(3)) == b.perft(3)
