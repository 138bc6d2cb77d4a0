"""The one vocabulary of squares, as plain ints and strings (python-chess style).

A square has two names (SPEC §1):

* its *official number* (:data:`Square`, 1..N): the variant's numbering (IT 2.4, EN 2.4, INT 2.6),
  used by PDN and traces. Square 1 is on the row farthest from White, at its left-hand end when
  the variant's first dark square is on file a (Italian: 1 = a8), else one file further (English,
  international, Brazilian: 1 = b8 / b10); the numbers run along each row towards the right,
  row after row towards White. :func:`numbered_squares` gives a variant's names in that order.
* its *algebraic name* (:data:`SquareName`, "e3", "j10"): seen from White's side, a1 White's
  left-hand corner, light squares included (the sensors lie under every square).

``file`` and ``rank`` are 0-based (a = 0, rank 1 = 0). Squares sort rank by rank from White's
side, then by file (:func:`square_sort_key`: "c3" < "e3" < "b4"), the order of docs/trace-format.md's lists.

A *rotation* is a number of quarter turns ``k`` in 0..3 (wiring files write degrees: 0, 90, 180,
270). A physical square (its name printed on the sensor board) maps to the logical square White
sees by turning it ``k`` times a quarter turn anticlockwise about the centre:
``(f, r) -> (n-1-r, f)``. So with rotation 90 the physical a-file edge faces White, with 180 the
physical rank-n edge, with 270 the physical last-file edge.
"""

from __future__ import annotations

from engine.errors import InputError, InvalidSquareError, excerpt

__all__ = ["Square", "SquareName", "FILE_NAMES", "BOARD_SIZES", "ROTATIONS", "square_name",
           "square_file", "square_rank", "parse_square", "all_squares", "numbered_squares",
           "square_sort_key", "square_mirror", "rotate_square", "unrotate_square",
           "rotation_from_degrees"]

#: An official square number, 1..N of a variant.
Square = int
#: An algebraic square name seen from White's side: "e3".
SquareName = str

FILE_NAMES = "abcdefghij"
BOARD_SIZES = (8, 10)
ROTATIONS = (0, 1, 2, 3)


def square_name(file: int, rank: int) -> SquareName:
    """The algebraic name of the 0-based (``file``, ``rank``)."""
    return f"{FILE_NAMES[file]}{rank + 1}"


def square_file(name: SquareName) -> int:
    """0-based file of a well-formed name (a = 0). Use :func:`parse_square` on outside input."""
    return FILE_NAMES.index(name[0])


def square_rank(name: SquareName) -> int:
    """0-based rank of a well-formed name (rank 1 = 0). Use :func:`parse_square` on outside input."""
    return int(name[1:]) - 1


def parse_square(name: object, size: int) -> tuple[int, int]:
    """0-based (file, rank) of ``name`` on a ``size``×``size`` board: lower-case file letter, rank
    without a leading zero. Raises InvalidSquareError (a ValueError) for anything else."""
    if not isinstance(name, str) or not 2 <= len(name) <= 3 or name[0] not in FILE_NAMES[:size] \
            or not (name[1:].isascii() and name[1:].isdigit()) or name[1] == "0" \
            or not 1 <= int(name[1:]) <= size:
        raise InvalidSquareError(f"{excerpt(name)} is not a square of a {size}×{size} board")
    return FILE_NAMES.index(name[0]), int(name[1:]) - 1


def all_squares(size: int) -> list[SquareName]:
    """Every square of a ``size``×``size`` board, light ones included, rank by rank from a1."""
    return [square_name(f, r) for r in range(size) for f in range(size)]


def numbered_squares(size: int, first_dark_file_even: bool) -> tuple[SquareName, ...]:
    """The algebraic names of the official numbers 1..N, in order (``[n - 1]`` is square n).

    ``first_dark_file_even``: square 1 is on file a (Italian), else on file b (English,
    international, Brazilian)."""
    half = size // 2
    names = []
    for n in range(size * half):
        row, column = divmod(n, half)  # row 0 is the farthest from White
        offset = (row + (0 if first_dark_file_even else 1)) % 2
        names.append(square_name(2 * column + offset, size - 1 - row))
    return tuple(names)


def square_sort_key(name: SquareName) -> tuple[int, int]:
    """Sorts squares rank by rank from White's side, then by file ("c3" < "e3" < "b4")."""
    return int(name[1:]), FILE_NAMES.index(name[0])


def square_mirror(name: SquareName, size: int) -> SquareName:
    """The square seen in a mirror along the files (a ↔ h on 8×8): a board turned by 90° on an
    8×8 board shows the starting position mirrored (IT 7.2)."""
    return f"{FILE_NAMES[size - 1 - FILE_NAMES.index(name[0])]}{name[1:]}"


def rotate_square(name: SquareName, quarter_turns: int, size: int) -> SquareName:
    """The logical square a physical square becomes under ``quarter_turns`` (see the module doc).
    Raises InvalidSquareError for a name not on the board."""
    f, r = parse_square(name, size)
    for _ in range(quarter_turns % 4):
        f, r = size - 1 - r, f
    return square_name(f, r)


def unrotate_square(name: SquareName, quarter_turns: int, size: int) -> SquareName:
    """Inverse of :func:`rotate_square`: the physical square under logical ``name``."""
    return rotate_square(name, -quarter_turns % 4, size)


def rotation_from_degrees(degrees: int) -> int:
    """Quarter turns for 0/90/180/270 degrees; InputError (a ValueError) otherwise."""
    if degrees not in (0, 90, 180, 270):
        raise InputError(f"{degrees!r} is not one of 0, 90, 180, 270")
    return degrees // 90
