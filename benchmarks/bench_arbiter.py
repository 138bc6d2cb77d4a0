"""Cost of the arbiter per physical event: mean, p99 and max over many replayed random games.

Target (issue 3): mean <= 200 us and worst <= 5 ms per event at any point of a game, all variants.
Run: ``.venv/bin/python benchmarks/bench_arbiter.py [games per variant]``.

Before each game the heap built so far is collected and frozen (``gc.freeze``), as a daemon would
after start-up: otherwise a full collection of the benchmark's own accumulated games (not the
arbiter's work) lands on a random event and dominates the maximum.
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

VARIANTS = ("italian", "english", "international", "brazilian")


def game_events(variant: str, seed: int, clock: bool, plies: int = 200) -> list[Event]:
    """The events of a random game played with natural physical orders (as the property tests)."""
    rng = random.Random(seed)
    ref = Board(None, find_variant(variant))
    occupied = set(ref.occupied_algebraic())
    events: list[Event] = []
    t = 0.0
    for _ in range(plies):
        moves = ref.legal_moves
        if not moves:
            break
        move = rng.choice(moves)
        side = Colour(ref.turn).label
        evs, t = physical(ref, move, rng, t, occupied)
        events.extend(evs)
        t += 0.2
        if clock:
            events.append(ButtonPressed(round(t, 3), "clock", side))
        ref.push(move)
        occupied = set(ref.occupied_algebraic())
    events.append(TraceEnded(round(t + 5, 3)))
    return events


def main(games: int = 20) -> None:
    timer = time.perf_counter_ns
    all_costs: list[int] = []
    for variant in VARIANTS:
        costs: list[int] = []
        for seed in range(games):
            clock = seed % 2 == 0
            events = game_events(variant, seed, clock)
            arb = Arbiter(GameStarted(variant=variant, clock=clock, settle=1.0,
                                      time_control="5400+30" if clock else None))
            gc.collect()
            gc.freeze()
            for e in events:
                t0 = timer()
                arb.feed(e)
                costs.append(timer() - t0)
        costs.sort()
        all_costs.extend(costs)
        report(variant, costs)
    all_costs.sort()
    report("all", all_costs)


def report(name: str, costs: list[int]) -> None:
    n = len(costs)
    mean = sum(costs) / n / 1000
    p99 = costs[min(n - 1, int(n * 0.99))] / 1000
    worst = costs[-1] / 1000
    print(f"{name:<14} events {n:>7}  mean {mean:7.1f} us  p99 {p99:7.1f} us  max {worst:8.1f} us")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
