"""Perft benchmark: leaves per second per variant, and the ratio to pydraughts measured in the
same run (both count the last ply in bulk, by the length of the legal-move list).

pydraughts is a test-only dependency (``pip install -e '.[test]'``); without it only our figures
are printed.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Sequence, TextIO

from engine.board import Board

PYDRAUGHTS_NAMES = {"italian": "italian", "english": "english", "international": "standard",
                    "brazilian": "brazilian"}


def _measure(perft: Callable[[int], int], seconds: float, max_depth: int = 12) -> tuple[int, int, float]:
    """(depth, leaves, elapsed) of the deepest perft that fits roughly in ``seconds``."""
    depth, leaves, elapsed = 0, 0, 0.0
    for d in range(1, max_depth + 1):
        start = time.perf_counter()
        n = perft(d)
        dt = time.perf_counter() - start
        depth, leaves, elapsed = d, n, dt
        if dt * 6 > seconds:  # the next depth would take several times longer
            break
    return depth, leaves, elapsed


def _pydraughts_perft(variant: str) -> Callable[[int], int] | None:
    try:
        import draughts  # test-only dependency
    except ImportError:
        return None
    board: Any = draughts.Board(variant=PYDRAUGHTS_NAMES[variant])

    def perft(depth: int) -> int:
        moves = board.legal_moves()
        if depth == 1:
            return len(moves)
        total = 0
        for m in moves:
            board.push(m)
            total += perft(depth - 1)
            board.pop()
        return total
    return perft


def run_perft_bench(seconds: float, variants: Sequence[str], out: TextIO) -> dict[str, dict[str, float]]:
    """Print one line per variant: our depth, leaves, leaves/s; pydraughts' the same; the ratio.

    Raises ValueError, before printing anything, unless ``seconds`` is a finite number above 0
    and every variant is known."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not (
            math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"seconds must be a finite number above 0, not {seconds!r}")
    boards = {name: Board(variant=name) for name in variants}  # UnknownVariantError before output
    results: dict[str, dict[str, float]] = {}
    out.write(f"{'variant':<14}{'damiera':>40}{'pydraughts':>36}{'ratio':>9}\n")
    for name in variants:
        board = boards[name]
        d, n, dt = _measure(board.perft, seconds)
        ours = n / dt
        row = f"{name:<14}{f'perft({d}) {n} in {dt:.2f}s = {ours:,.0f}/s':>40}"
        res = {"leaves_per_s": ours}
        theirs_fn = _pydraughts_perft(name)
        if theirs_fn is not None:
            d2, n2, dt2 = _measure(theirs_fn, seconds / 2, max_depth=6)
            theirs = n2 / dt2
            res.update(pydraughts_leaves_per_s=theirs, ratio=ours / theirs)
            row += f"{f'perft({d2}) {n2} in {dt2:.2f}s = {theirs:,.0f}/s':>36}{ours / theirs:>8.0f}x"
        else:
            row += f"{'(pydraughts not installed)':>34}"
        out.write(row + "\n")
        out.flush()
        results[name] = res
    return results
