"""Arbiter replay time against game length: the cost per event must not grow with the game.

A long king endgame (Italian, kings shuttling far apart so nothing is ever captured and no rule
ends the game) is played with natural physical events (``hardware_mocks.players``: brushes,
squares shown one by one) and a clock press after every move, under a Fischer time control.
For each length the whole trace is replayed through a fresh arbiter; the report prints the total
time and the time per event, which stays flat when replay is linear (issue 8: before, 100,000
events took 22 s and 200,000 took 78 s, because every press copied the whole move stack), with
Python's cyclic garbage collector on and off: what growth remains with it on is the collector
walking a heap that grows with the record (the game's moves), not the arbiter's work.

Second table (issue 19, "constant cost per move"): what a committed move costs the daemon's loop
at ply 10 and at ply 1,000 of the same game, through a real ``pi.board.session.GameSession`` (the
journal writing behind, as in the daemon): feeding the move's lines, then bringing
``game.pdn``/``report.json`` up to date (``write_files(wait=False)``) and handing the text to the
files' writer (``durable``), summed over the move's events, median over ``--window`` moves around
each ply; beside it, what making the files' text afresh costs at the same plies (the way before
issue 19: ``Report.to_json()`` and the PDN, rebuilt after every change). Target: ply 1,000
within 20 % of ply 10.

Run: ``.venv/bin/python benchmarks/bench_length.py [events ...] [--plies 10,1000]`` (default
1k 10k 100k 200k; ``--plies`` alone: only the second table).
"""

from __future__ import annotations

import gc
import random
import sys
import time
from collections.abc import Iterator
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
    return list(king_endgame_events(events, seed))


def king_endgame_events(events: int, seed: int = 1) -> Iterator[Event]:
    """:func:`king_endgame`'s events one by one (a long trace streamed, never all held)."""
    rng = random.Random(seed)
    ref = Board(FEN, find_variant("italian"))
    home = {sq: sq for sq in ref.pieces()}
    occupied = set(ref.occupied_algebraic())
    count = 0
    t = 0.0
    while count < events:
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
        yield from evs
        t += 0.2
        yield ButtonPressed(round(t, 3), "clock", side)
        count += len(evs) + 1
        ref.push(move)
        ref.set_fen(ref.fen())  # the reference board's own undo stack: not the record's
        occupied = set(ref.occupied_algebraic())
    yield TraceEnded(round(t + 5, 3))


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


def committed_move_cost(plies: list[int], window: int = 11) -> dict[int, tuple[float, float]]:
    """For each ply of ``plies``: (median seconds the loop spends on a committed move there,
    median seconds to make the files' text afresh there), over ``window`` moves centred on it."""
    import json
    import statistics
    import tempfile
    from datetime import datetime, timezone

    from engine.replay import Replay
    from pi.board.session import GameSession
    from pi.board.statedir import StateDir

    last = max(plies) + window
    events = king_endgame(last * 6)
    loop_cost: dict[int, float] = {}
    afresh: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="bench-length-") as tmp, \
            StateDir.open(Path(tmp) / "state") as state:
        session = GameSession.begin(state, {"type": "start", "variant": "italian", "fen": FEN,
                                            "time_control": "5400+30"},
                                    when=datetime.now(timezone.utc))
        session.write_behind(lambda: None, lambda _e: None)
        moves = session.arbiter.game.moves
        spent = 0.0
        gc.collect()
        gc.freeze()
        for e in events:
            if len(moves) > last:
                break
            before = len(moves)
            t0 = time.perf_counter()
            session.feed(e)
            session.write_files(wait=False)
            session.durable()
            spent += time.perf_counter() - t0
            if len(moves) > before:
                loop_cost[len(moves)] = spent
                spent = 0.0
        session.close()
        gc.unfreeze()
    # the way before, in a pass of its own (its garbage would weigh on the first's collector)
    replay = Replay({"type": "start", "variant": "italian", "fen": FEN,
                     "time_control": "5400+30"})
    wanted = {p for ply in plies for p in range(ply - window // 2, ply + window // 2 + 1)}
    for e in events:
        game = replay.arbiter.game
        if len(game.moves) > last:
            break
        before = len(game.moves)
        replay.take(e.to_dict(), e)
        if len(game.moves) > before and len(game.moves) in wanted:
            t0 = time.perf_counter()
            report = replay.report()
            report.pdn()
            json.dumps(report.to_json(), ensure_ascii=False, allow_nan=False)
            afresh[len(game.moves)] = time.perf_counter() - t0
    out: dict[int, tuple[float, float]] = {}
    for ply in plies:
        around = [p for p in range(ply - window // 2, ply + window // 2 + 1) if p in loop_cost]
        out[ply] = (statistics.median(loop_cost[p] for p in around),
                    statistics.median(afresh[p] for p in around))
    return out


def print_move_cost(plies: list[int]) -> None:
    costs = committed_move_cost(plies)
    first = costs[plies[0]][0]
    print(f"{'ply':>6} {'committed move, loop ms':>24} {'vs first':>9} "
          f"{'files afresh ms (before)':>25}")
    for ply in plies:
        loop, fresh = costs[ply]
        print(f"{ply:>6} {loop * 1000:>24.3f} {(loop / first - 1) * 100:>+8.0f}% "
              f"{fresh * 1000:>25.3f}")


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
    args = sys.argv[1:]
    plies = [10, 1000]
    if "--plies" in args:
        i = args.index("--plies")
        plies = [int(x) for x in args[i + 1].split(",")]
        del args[i:i + 2]
        if not args:
            print_move_cost(plies)
            sys.exit(0)
    import os
    print(f"load average {os.getloadavg()[0]:.2f}")
    main([int(a) for a in args] or [1_000, 10_000, 100_000, 200_000])
    print()
    print_move_cost(plies)
