"""Arbiter replay time against game length: the cost per event must not grow with the game.

A long king endgame (Italian, kings shuttling far apart so nothing is ever captured and no rule
ends the game) is played with natural physical events (``hardware_mocks.players``: brushes,
squares shown one by one) and a clock press after every move, under a Fischer time control.
For each length the whole trace is replayed through a fresh arbiter; the report prints the total
time and the time per event, which stays flat when replay is linear (issue 8: before, 100,000
events took 22 s and 200,000 took 78 s, because every press copied the whole move stack), with
Python's cyclic garbage collector on and off: what growth remains with it on is the collector
walking a heap that grows with the record (the game's moves), not the arbiter's work.

Run: ``.venv/bin/python benchmarks/bench_length.py [events ...]`` (default 1k 10k 100k 200k).
"""

from __future__ import annotations

import gc
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.arbiter import Arbiter
from engine.board import Board
from engine.events import ButtonPressed, Event, GameStarted, TraceEnded
from engine.colour import Colour
from engine.variants import find_variant
from hardware_mocks.players import physical

FEN = "W:WK29,K32:BK1,K4"  # two kings each, in opposite corners


def king_endgame(events: int, seed: int = 1) -> list[Event]:
    """About ``events`` physical events of a king endgame in which every king shuttles between
    its square and a neighbour (never near an enemy piece: no capture, no forced end)."""
    rng = random.Random(seed)
    ref = Board(FEN, find_variant("italian"))
    home = {sq: sq for sq in ref.pieces()}
    occupied = set(ref.occupied_algebraic())
    out: list[Event] = []
    t = 0.0
    while len(out) < events:
        moves = [m for m in ref.legal_moves if home.get(m.from_square) is not None]
        back = [m for m in moves if home[m.from_square] != m.from_square
                and m.to_square == home[m.from_square]]
        away = [m for m in moves if home[m.from_square] == m.from_square
                and _far(ref, m.to_square)]
        move = rng.choice(back or away)
        origin = home.pop(move.from_square)
        home[move.to_square] = origin
        side = Colour(ref.turn).label
        evs, t = physical(ref, move, rng, t, occupied)
        out.extend(evs)
        t += 0.2
        out.append(ButtonPressed(round(t, 3), "clock", side))
        ref.push(move)
        occupied = set(ref.occupied_algebraic())
    out.append(TraceEnded(round(t + 5, 3)))
    return out


def _far(board: Board, square: int) -> bool:
    """No enemy piece within two rows or columns of ``square``."""
    g = board.variant.geometry
    f, r = g.coords[square]
    mover = board.turn
    for n, p in board.pieces().items():
        if p.color != mover:
            ef, er = g.coords[n]
            if abs(ef - f) <= 2 and abs(er - r) <= 2:
                return False
    return True


def replay(events: list[Event], collector: bool) -> tuple[float, int]:
    """Seconds to feed ``events`` to a new arbiter, and the moves it recorded. ``collector``:
    Python's cyclic garbage collector runs (the trace built beforehand frozen, as a daemon
    freezes its start-up heap, see bench_arbiter.py); off, the arbiter's own cost alone."""
    arb = Arbiter(GameStarted(variant="italian", fen=FEN, time_control="5400+30"))
    gc.collect()
    gc.freeze()
    if not collector:
        gc.disable()
    try:
        t0 = time.perf_counter()
        for e in events:
            arb.feed(e)
        elapsed = time.perf_counter() - t0
    finally:
        gc.enable()
        gc.unfreeze()
    return elapsed, len(arb.game.moves)


def main(lengths: list[int]) -> None:
    print(f"{'events':>8} {'moves':>7} {'total s':>9} {'us/event':>9} {'gc off s':>9} "
          f"{'us/event':>9}")
    for n in lengths:
        events = king_endgame(n)
        elapsed, moves = replay(events, collector=True)
        bare, _ = replay(events, collector=False)
        per = 1e6 / len(events)
        print(f"{len(events):>8} {moves:>7} {elapsed:>9.2f} {elapsed * per:>9.1f} {bare:>9.2f} "
              f"{bare * per:>9.1f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1_000, 10_000, 100_000, 200_000])
