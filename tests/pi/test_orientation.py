"""Orientation detection: the rotation (engine.squares) turning the sensed pieces into the expected."""

import pytest

from engine.squares import parse_square, unrotate_square
from hardware_mocks.positions import initial_occupancy
from pi.drivers.errors import OrientationError
from pi.drivers.orientation import detect_orientation


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
