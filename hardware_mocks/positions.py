"""Occupancy of standard initial positions, for simulations and tests (the daemon computes the
expected occupancy from the rules engine instead)."""

from __future__ import annotations

from engine.board import Board, Piece
from engine.squares import all_squares, numbered_squares


def initial_occupancy(size: int, dark_odd: bool) -> frozenset[str]:
    """Squares holding a man at the start: the dark squares of the 3 (8×8) or 4 (10×10) ranks
    nearest each side. ``dark_odd``: dark squares have (file + rank) odd (Italian); else even
    (English, Brazilian, international), with a = 0 and rank 1 = 0."""
    # the row farthest from White is dark on file a exactly when (file + rank) odd is dark
    dark = numbered_squares(size, first_dark_file_even=dark_odd)
    men = (3 if size == 8 else 4) * size // 2
    return frozenset(dark[:men] + dark[-men:])


def light_squares(size: int, dark_odd: bool) -> frozenset[str]:
    """The squares no piece stands on, under the same colouring as :func:`initial_occupancy`."""
    return frozenset(all_squares(size)) - frozenset(numbered_squares(size, dark_odd))


def pieces_on(board: Board) -> dict[str, Piece]:
    """The pieces of a position by algebraic square (what an analog board's set-up shows)."""
    geometry = board.variant.geometry
    return {geometry.algebraic(n): piece for n, piece in board.pieces().items()}
