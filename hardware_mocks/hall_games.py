"""Whole games as a board's sensors and buttons see them, for the hall's simulated boards.

:func:`natural_game` plays a random LEGAL game of a variant (the engine's move generation) and
yields its events lazily, in the order and at the game times a real board would journal them
(docs/trace-format.md): the power-up ``snapshot`` at 0, then per move a think time drawn from a tournament's
distribution (long-tailed, shrunk when the clock runs low, the increment added back), the move
made with :func:`hardware_mocks.players.physical` (a brush here and there, a capture shown
square by square or carried straight, captured pieces removed in either legal order, IT 5.10,
5.12, INT 4.9, 4.11), now and then an adjustment announced first (``accomodo``, IT 3.9 /
INT 3.13: the player on move lifts one of his pieces and puts it back), and the clock pressed
(COMP 4.5). The game ends as the rules end it (no legal move: the arbiter sees it at the press)
or, after ``max_plies``, by a draw offered after a move and accepted (COMP 6.15) or by the
resignation of the side behind in material (IT 9.2.1).

Nothing here does I/O or reads a clock: the caller schedules the events (``t`` in game seconds).
Every game it makes replays through the arbiter with no flag at all (the tests check it).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass

from engine.board import Board
from engine.events import ButtonPressed, Event, PieceLifted, PiecePlaced, SnapshotTaken
from engine.colour import Colour
from engine.variants import find_variant
from hardware_mocks.players import physical

__all__ = ["Pace", "natural_game", "TIME_CONTROL"]

#: The time control written in the start lines: 90 minutes and 30 s a move (a tournament's).
TIME_CONTROL = "5400+30"


@dataclass(frozen=True, slots=True)
class Pace:
    """How long players think, in game seconds: log-normal around ``median`` (``sigma`` its
    spread), never below ``least``, and never more than ``share`` of what the clock has left."""

    median: float = 25.0
    sigma: float = 0.8
    least: float = 1.5
    share: float = 0.08
    base: float = 5400.0
    increment: float = 30.0


def natural_game(variant: str, rng: random.Random, *, max_plies: int = 100,
                 accomodo: float = 0.04, pace: Pace = Pace()) -> Iterator[Event]:
    """The events of one random legal game of ``variant`` (see the module docstring), ``t``
    non-decreasing from 0.0, rounded to the millisecond. ``max_plies``: moves made before the
    players agree a draw or the side behind resigns; ``accomodo``: the chance of an announced
    adjustment before a move."""
    ref = Board(None, find_variant(variant))
    occupied = set(ref.occupied_algebraic())
    yield SnapshotTaken(0.0, frozenset(occupied))
    left = [pace.base, pace.base]
    t = rng.uniform(2.0, 8.0)  # the players sit down and shake hands
    plies = 0
    while True:
        legal = ref.legal_moves
        if not legal:
            return  # the side to move has lost: the arbiter ended the game at the last press
        side = ref.turn
        name = Colour(side).label
        if plies >= max_plies:
            yield from _finish(ref, rng, t)
            return
        began = t  # the opponent's press started this side's clock
        think = math.exp(math.log(pace.median) + rng.gauss(0.0, pace.sigma))
        think = max(pace.least, min(think, pace.share * left[side]))
        t += think
        if rng.random() < accomodo:
            # IT 3.9 / INT 3.13: "accomodo", then one of one's own pieces lifted and put back.
            alg = ref.variant.geometry.algebraic_of
            square = rng.choice(sorted(alg[n] for n in ref.pieces(side)))
            yield ButtonPressed(round(t, 3), "accomodo", name)
            t += rng.uniform(0.4, 1.0)
            yield PieceLifted(round(t, 3), square)
            t += rng.uniform(0.3, 0.8)
            yield PiecePlaced(round(t, 3), square)
            t += rng.uniform(0.5, 2.0)
        move = rng.choice(legal)
        events, t = physical(ref, move, rng, t, occupied)
        yield from events
        t += rng.uniform(0.2, 0.8)
        yield ButtonPressed(round(t, 3), "clock", name)
        left[side] += pace.increment - (t - began)  # what the clock took, then the bonus
        ref.push(move)
        occupied = set(ref.occupied_algebraic())
        plies += 1
        t += rng.uniform(0.3, 1.0)  # the opponent's hand reaches the board


def _finish(ref: Board, rng: random.Random, t: float) -> Iterator[Event]:
    """The end of a long game: the side behind in material resigns on its turn; with equal
    material the side on move plays, offers a draw before pressing (COMP 6.15), and the
    opponent accepts."""
    side = ref.turn
    (wk, wm), (bk, bm) = ref.material()
    worth = (wm + 3 * wk, bm + 3 * bk)  # a king is worth about three men
    mine, theirs = worth[side], worth[1 - side]
    name, other = Colour(side).label, Colour(side).opponent.label
    t += rng.uniform(5.0, 30.0)
    if mine < theirs:
        yield ButtonPressed(round(t, 3), "resign", name)
        return
    occupied = set(ref.occupied_algebraic())
    events, t = physical(ref, rng.choice(ref.legal_moves), rng, t, occupied)
    yield from events
    t += rng.uniform(0.3, 1.0)
    yield ButtonPressed(round(t, 3), "draw_offer", name)
    t += rng.uniform(3.0, 20.0)
    yield ButtonPressed(round(t, 3), "draw_accept", other)

