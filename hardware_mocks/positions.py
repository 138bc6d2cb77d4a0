"""Occupancy of standard initial positions, for simulations and tests (the daemon computes the
expected occupancy from the rules engine instead)."""

from __future__ import annotations

from engine.squares import square_name


def initial_occupancy(size: int, dark_odd: bool) -> frozenset[str]:
    """Squares holding a man at the start: the dark squares of the 3 (8×8) or 4 (10×10) ranks
    nearest each side. ``dark_odd``: dark squares have (file + rank) odd (Italian); else even
    (English, Brazilian, international), with a = 0 and rank 1 = 0."""
    ranks = 3 if size == 8 else 4
    parity = 1 if dark_odd else 0
    return frozenset(square_name(f, r) for r in (*range(ranks), *range(size - ranks, size))
                     for f in range(size) if (f + r) % 2 == parity)


def light_squares(size: int, dark_odd: bool) -> frozenset[str]:
    parity = 0 if dark_odd else 1
    return frozenset(square_name(f, r) for r in range(size) for f in range(size)
                     if (f + r) % 2 == parity)
