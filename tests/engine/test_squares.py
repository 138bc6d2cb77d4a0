"""engine.squares: the one vocabulary of squares (names, parsing, sort key, mirror, rotations)."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from engine.errors import InputError, InvalidSquareError
from engine.squares import (BOARD_SIZES, all_squares, numbered_squares, parse_square, rotate_square,
                            rotation_from_degrees, square_file, square_mirror, square_name,
                            square_rank, square_sort_key, unrotate_square)
from engine.variants import VARIANTS

sizes = st.sampled_from(BOARD_SIZES)


@st.composite
def squares(draw: st.DrawFn) -> tuple[int, str]:
    size = draw(sizes)
    return size, draw(st.sampled_from(all_squares(size)))


@given(sizes, st.data())
def test_parse_then_name_is_the_identity(size: int, data: st.DataObject) -> None:
    file, rank = data.draw(st.integers(0, size - 1)), data.draw(st.integers(0, size - 1))
    name = square_name(file, rank)
    assert parse_square(name, size) == (file, rank)
    assert (square_file(name), square_rank(name)) == (file, rank)


@given(squares())
def test_name_then_parse_is_the_identity(case: tuple[int, str]) -> None:
    size, name = case
    assert square_name(*parse_square(name, size)) == name


@given(squares())
def test_mirror_twice_is_the_identity_and_keeps_the_rank(case: tuple[int, str]) -> None:
    size, name = case
    mirrored = square_mirror(name, size)
    assert square_mirror(mirrored, size) == name
    assert square_rank(mirrored) == square_rank(name)
    assert square_file(mirrored) == size - 1 - square_file(name)


def test_mirror_turns_the_italian_start_into_the_english_one() -> None:
    # IT 7.2: an 8x8 board turned by 90° shows the starting position mirrored along the files
    italian = numbered_squares(8, first_dark_file_even=True)
    english = numbered_squares(8, first_dark_file_even=False)
    assert {square_mirror(s, 8) for s in italian} == set(english)


@given(squares(), st.integers(0, 3))
def test_unrotate_inverts_rotate(case: tuple[int, str], k: int) -> None:
    size, name = case
    assert unrotate_square(rotate_square(name, k, size), k, size) == name
    assert rotate_square(name, 4, size) == name


def test_rotation_quarter_turn_is_documented() -> None:
    # 90°: the physical a-file faces White, physical a8 becomes White's a1.
    assert rotate_square("a8", 1, 8) == "a1"
    assert rotate_square("a1", 1, 8) == "h1"
    assert rotate_square("a1", 2, 8) == "h8"
    assert [rotation_from_degrees(d) for d in (0, 90, 180, 270)] == [0, 1, 2, 3]
    with pytest.raises(InputError):
        rotation_from_degrees(45)


@pytest.mark.parametrize("bad", ["j10", "a9", "a0", "i1", "a01", "", "e", "A1", "a²", "e 3", 31, None])
def test_parse_refuses_what_is_not_a_square_as_bad_input(bad: object) -> None:
    with pytest.raises(InvalidSquareError) as caught:
        parse_square(bad, 8)
    assert isinstance(caught.value, ValueError)  # the input family is a ValueError too


def test_sort_key_orders_rank_by_rank_then_by_file() -> None:
    assert sorted(["g3", "b4", "c3", "e3", "a10", "b9"], key=square_sort_key) == \
        ["c3", "e3", "g3", "b4", "b9", "a10"]


@pytest.mark.parametrize("variant", sorted(VARIANTS.values(), key=lambda v: v.name),
                         ids=lambda v: v.name)
def test_sort_key_is_consistent_with_the_official_numbering(variant) -> None:  # type: ignore[no-untyped-def]
    # IT 2.4, EN 2.4, INT 2.6: numbers run along each row, rows from the far side to White's;
    # the sort key runs along each row too, rows from White's side: the same rows, reversed.
    names = numbered_squares(variant.size, variant.first_dark_file_even)
    half = variant.size // 2
    rows = [names[i:i + half] for i in range(0, len(names), half)]
    assert sorted(names, key=square_sort_key) == [s for row in reversed(rows) for s in row]
    assert names == tuple(variant.geometry.algebraic_of[n] for n in range(1, variant.squares + 1))


@pytest.mark.parametrize(("variant", "one", "last"), [
    ("italian", "a8", "h1"), ("english", "b8", "g1"),  # IT 2.4: 1 = a8; EN 2.4: 1 = b8
    ("international", "b10", "i1"), ("brazilian", "b8", "g1")])  # INT 2.6: 1 = b10
def test_square_one_and_the_last_square_of_each_numbering(variant: str, one: str, last: str) -> None:
    v = VARIANTS[variant]
    names = numbered_squares(v.size, v.first_dark_file_even)
    assert (names[0], names[-1]) == (one, last)
    # every numbered square is dark: no two share a diagonal neighbour's colour
    assert len({(square_file(s) + square_rank(s)) % 2 for s in names}) == 1


@given(st.one_of(st.text(max_size=6), st.integers(), st.none()), sizes)
def test_parse_takes_any_value_and_raises_only_bad_input(value: object, size: int) -> None:
    try:
        file, rank = parse_square(value, size)
    except InvalidSquareError:
        return
    assert 0 <= file < size and 0 <= rank < size and square_name(file, rank) == value
