"""Square names and board rotations, as plain ints and strings (python-chess style).

Squares are algebraic names seen from White's side ("e3", "j10"; a1 = White's left-hand corner).
``file`` and ``rank`` are 0-based: a = 0, rank 1 = 0. A *rotation* is a number of quarter turns
``k`` in 0..3 (wiring files write degrees: 0, 90, 180, 270). A physical square (its name printed on
the sensor board, as the wiring file uses it) maps to the logical square White sees by turning it
``k`` times a quarter turn anticlockwise about the centre: ``(f, r) -> (n-1-r, f)``. So with
rotation 90 the physical a-file edge faces White, with 180 the physical rank-n edge, with 270 the
physical last-file edge.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pi.drivers.errors import OrientationError

FILES = "abcdefghij"
BOARD_SIZES = (8, 10)
ROTATIONS = (0, 1, 2, 3)


def square_name(file: int, rank: int) -> str:
    """The algebraic name of the 0-based (file, rank)."""
    return f"{FILES[file]}{rank + 1}"


def parse_square(name: str, size: int) -> tuple[int, int]:
    """0-based (file, rank) of ``name`` on a ``size``×``size`` board; ValueError if not on it."""
    if not isinstance(name, str) or len(name) < 2 or name[0] not in FILES[:size] \
            or not name[1:].isdigit() or name[1:].startswith("0"):
        raise ValueError(f"{name!r} is not a square of a {size}×{size} board")
    rank = int(name[1:]) - 1
    if not 0 <= rank < size:
        raise ValueError(f"{name!r} is not a square of a {size}×{size} board")
    return FILES.index(name[0]), rank


def all_squares(size: int) -> list[str]:
    """Every square of the board, rank by rank from a1."""
    return [square_name(f, r) for r in range(size) for f in range(size)]


def square_sort_key(name: str) -> tuple[int, int]:
    """Sorts squares rank by rank, then by file ("c3" < "e3" < "b4")."""
    return int(name[1:]), FILES.index(name[0])


def rotate_square(name: str, quarter_turns: int, size: int) -> str:
    """The logical square a physical square becomes under ``quarter_turns`` (see module doc)."""
    f, r = parse_square(name, size)
    for _ in range(quarter_turns % 4):
        f, r = size - 1 - r, f
    return square_name(f, r)


def unrotate_square(name: str, quarter_turns: int, size: int) -> str:
    """Inverse of :func:`rotate_square`: the physical square under logical ``name``."""
    return rotate_square(name, -quarter_turns % 4, size)


def rotation_from_degrees(degrees: int) -> int:
    """Quarter turns for 0/90/180/270 degrees; ValueError otherwise."""
    if degrees not in (0, 90, 180, 270):
        raise ValueError(f"{degrees!r} is not one of 0, 90, 180, 270")
    return degrees // 90


def detect_orientation(physical_occupied: Iterable[str], expected_occupied: Iterable[str],
                       size: int, candidates: Sequence[int] = ROTATIONS) -> int:
    """The one rotation in ``candidates`` that turns the sensed occupancy into the expected one.

    ``physical_occupied`` are the sensed squares (physical names), ``expected_occupied`` the
    logical squares the caller expects (computed from the rules, e.g. the initial position).
    Raises OrientationError, with a one-line explanation, when none or several match. Note that
    the initial position of every variant is symmetric under a half turn, so on it 0 and 180 (or
    90 and 270) always both match: restrict ``candidates`` (e.g. ``(0, 1)``) to tell them apart.
    """
    physical = frozenset(physical_occupied)
    expected = frozenset(expected_occupied)
    matches = [k for k in candidates
               if frozenset(rotate_square(s, k, size) for s in physical) == expected]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise OrientationError(
            f"the pieces on the board ({len(physical)} squares) match no allowed orientation "
            f"({', '.join(f'{k * 90}°' for k in candidates)}): set up the position and retry")
    raise OrientationError(
        f"the pieces on the board match several orientations "
        f"({', '.join(f'{k * 90}°' for k in matches)}): occupancy cannot tell a half turn; "
        f"fix 'orientation' or narrow 'auto_candidates' in the wiring file")
