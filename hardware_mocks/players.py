"""Simulated players: natural physical ways of making a move on the board, as trace events.

Used by the arbiter's property tests and benchmark, and by the PC simulator: a move is shown
with its path or carried straight, with or without a brush on a neighbouring square, and its
captured pieces removed in the direct or the reverse order of a legal capture order (IT 5.10,
5.12; INT 4.9, 4.11).
"""

from __future__ import annotations

import random

from engine.board import Board, Move
from engine.events import Event, PieceLifted, PiecePlaced
from engine.squares import square_file, square_name, square_rank


def neighbours(name: str, size: int) -> list[str]:
    """The up to eight squares around ``name`` (algebraic) on a ``size``×``size`` board."""
    f, r = square_file(name), square_rank(name)
    out = []
    for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (-1, -1), (1, -1), (-1, 1)):
        ff, rr = f + df, r + dr
        if 0 <= ff < size and 0 <= rr < size:
            out.append(square_name(ff, rr))
    return out


def physical(board: Board, move: Move, rng: random.Random, t: float,
             occupied: set[str]) -> tuple[list[Event], float]:
    """Events of a natural way of playing ``move`` from ``board`` starting after time ``t``
    (0.1 s apart), given the squares the sensors see ``occupied``; returns (events, last t)."""
    g = board.variant.geometry
    alg = g.algebraic_of
    path, caps = rng.choice(move.alternatives)
    ev: list[Event] = []

    def add(e_type: type[PieceLifted] | type[PiecePlaced], sq: str) -> None:
        nonlocal t
        t += 0.1
        ev.append(e_type(round(t, 3), sq))

    start, end = alg[path[0]], alg[path[-1]]
    add(PieceLifted, start)
    here = {s for s in occupied if s != start}
    if rng.random() < 0.4:  # a brush on a square passed over
        n = rng.choice(neighbours(start, board.variant.size))
        if n in here:
            add(PieceLifted, n)
            add(PiecePlaced, n)
        else:
            add(PiecePlaced, n)
            add(PieceLifted, n)
    if caps and rng.random() < 0.5:  # IT 5.10: the jump squares shown one by one
        for sq in path[1:-1]:
            add(PiecePlaced, alg[sq])
            add(PieceLifted, alg[sq])
    add(PiecePlaced, end)
    order = list(caps) if rng.random() < 0.5 else list(reversed(caps))  # IT 5.12: either order
    for c in order:
        add(PieceLifted, alg[c])
    return ev, t
