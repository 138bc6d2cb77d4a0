"""Replay memory bounded by the position and the record's essentials (issue 19): a game that
never ends (kings shuttling, a clock press after every move) replayed for longer and longer; what
stays in memory per move of the record is its entry (ply, side, notation, time, clock), not the
board's undo stack, one move object or one notation string per move, or a position per ply."""

from __future__ import annotations

import importlib.util
import json
import sys
import tracemalloc
from pathlib import Path
from types import ModuleType

from engine.replay import Replay

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_length.py"


def _bench_length() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_length", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def held_after(events: int) -> tuple[int, int]:
    """(bytes still allocated by a replay of ``events`` events, moves in its record)."""
    bench = _bench_length()
    lines = [json.dumps(e.to_dict()) for e in bench.king_endgame(events)]
    start = {"type": "start", "variant": "italian", "fen": bench.FEN, "time_control": "5400+30"}
    tracemalloc.start(1)
    try:
        before = tracemalloc.get_traced_memory()[0]
        replay = Replay(start)
        for number, line in enumerate(lines, start=2):
            replay.feed(line, number)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    return held, len(replay.arbiter.game.moves)


def test_memory_per_move_of_a_long_replay_is_the_records_entry() -> None:
    small, moves_small = held_after(1_500)
    large, moves_large = held_after(6_000)
    per_move = (large - small) / (moves_large - moves_small)
    # the entry: RecordedMove (~90 B), its ply, time and clock (~130 B), two list slots;
    # before issue 19 ~1,000 B (undo stack, a Move and a notation string per move, a
    # repetition key per ply)
    assert per_move < 400, f"{per_move:.0f} bytes per move"


def held_by_touches(pairs: int) -> int:
    """Bytes still allocated by a replay of one endless turn: a piece lifted and put back
    ``pairs`` times (every touch is kept: IT 3.7's first touch, IT 5.12's order)."""
    lines = []
    for i in range(pairs):
        lines.append(json.dumps({"t": i * 0.02, "type": "lift", "square": 22}))
        lines.append(json.dumps({"t": i * 0.02 + 0.01, "type": "place", "square": 22}))
    tracemalloc.start(1)
    try:
        before = tracemalloc.get_traced_memory()[0]
        replay = Replay({"type": "start", "variant": "italian", "clock": False})
        for number, line in enumerate(lines, start=2):
            replay.feed(line, number)
        held: int = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert not replay.arbiter.game.moves
    return held


def test_memory_per_touch_of_an_endless_turn_is_its_time_and_a_reference() -> None:
    per_touch = (held_by_touches(8_000) - held_by_touches(2_000)) / 12_000
    # an 8-byte time and an 8-byte reference (before issue 19: a Touch object and its time,
    # ~100 bytes)
    assert per_touch < 40, f"{per_touch:.0f} bytes per touch"
