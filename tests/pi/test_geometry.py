"""Square names, rotations and orientation detection."""

import pytest
from hypothesis import given, strategies as st

from hardware_mocks.positions import initial_occupancy
from pi.drivers.errors import OrientationError
from pi.drivers.geometry import (all_squares, detect_orientation, parse_square, rotate_square,
                         square_sort_key, unrotate_square)


def test_parse_and_sort():
    assert parse_square("a1", 8) == (0, 0)
    assert parse_square("j10", 10) == (9, 9)
    for bad in ("j10", "a9", "a0", "i1", "a01", "", "e"):
        with pytest.raises(ValueError):
            parse_square(bad, 8)
    assert sorted(["g3", "b4", "c3", "e3"], key=square_sort_key) == ["c3", "e3", "g3", "b4"]


def test_rotation_quarter_turn_is_documented():
    # 90°: the physical a-file faces White, physical a8 becomes White's a1.
    assert rotate_square("a8", 1, 8) == "a1"
    assert rotate_square("a1", 1, 8) == "h1"
    assert rotate_square("a1", 2, 8) == "h8"
    assert rotate_square("c3", 4, 8) == "c3"


@given(st.sampled_from([8, 10]), st.integers(0, 3), st.data())
def test_unrotate_inverts_rotate(size, k, data):
    s = data.draw(st.sampled_from(all_squares(size)))
    assert unrotate_square(rotate_square(s, k, size), k, size) == s


@pytest.mark.parametrize("size", [8, 10])
def test_a_quarter_turn_is_the_italian_english_difference(size):
    italian = initial_occupancy(size, dark_odd=True)
    english = initial_occupancy(size, dark_odd=False)
    # A board coloured for English play ((f+r) even dark), turned by 90° for an Italian game:
    # the Italian men stand on the board's own dark squares.
    physical = {unrotate_square(s, 1, size) for s in italian}
    assert all(sum(parse_square(s, size)) % 2 == 0 for s in physical)
    assert detect_orientation(physical, italian, size, (0, 1)) == 1
    assert detect_orientation(english, english, size, (0, 1)) == 0
    with pytest.raises(OrientationError):
        detect_orientation(english, italian, size, (0, 1))


def test_half_turn_ambiguity_and_no_match_are_clear_errors():
    italian = initial_occupancy(8, dark_odd=True)
    with pytest.raises(OrientationError, match="several orientations .*0°, 180°"):
        detect_orientation(italian, italian, 8)
    with pytest.raises(OrientationError, match="match no allowed orientation"):
        detect_orientation(italian - {"b1"}, italian, 8)


def test_an_asymmetric_position_finds_the_one_rotation_of_four():
    expected = {"a1", "b1", "c3"}
    for k in range(4):
        physical = {unrotate_square(s, k, 8) for s in expected}
        assert detect_orientation(physical, expected, 8) == k
