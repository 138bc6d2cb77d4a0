"""Which way the sensor board lies: the rotation (``engine.squares``: quarter turns from physical
to logical squares) that turns the sensed occupancy into the expected one."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.squares import ROTATIONS, rotate_square
from pi.drivers.errors import OrientationError

__all__ = ["detect_orientation"]


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
