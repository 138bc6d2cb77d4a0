"""Peak memory of ``damiera replay`` over long traces: the trace is read as a stream (issue 8,
"Cost that grows with the game"), so the peak must not grow with the number of lines.

Two traces per length: snapshots of the unchanged initial position (one line each, the case the
issue measured at 2.5 GB for 1,000,000 lines when the whole file was parsed first), and clock-free
lift/place pairs of a piece put back where it was. Lines are generated on the fly (no file), fed
to ``engine.replay.replay_lines`` as the command line feeds an open file. Each measurement runs
in a fresh process and reports its peak resident memory (VmHWM, else ``ru_maxrss``; the
arbiter's own state and the interpreter's ~17 MB included); up to 100,000 lines, the old way
(every event parsed into a list first, ``parse_trace``) is measured too, for comparison.

Figures (2-core machine shared with other jobs, 2026-11-22): replaying 1,000,000 snapshot lines
took 74 s and peaked at 17 MB (parsing 100,000 into a list first peaked at 390 MB: the issue's
2.5 GB for 1,000,000); 1,000,000 lift/place lines, 9 s and 132 MB, all of it the arbiter's
touch records of one endless turn (``engine/arbiter.py``), none the reader's.

Run: ``.venv/bin/python benchmarks/bench_trace.py [lines ...]`` (default 100000 1000000).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from engine.board import Board
from engine.replay import replay_lines
from engine.trace import parse_trace


def snapshot_lines(n: int) -> Iterator[str]:
    occupied = sorted(Board(variant="italian").occupied_algebraic())
    yield json.dumps({"type": "start", "variant": "italian", "clock": False}) + "\n"
    for i in range(n):
        yield json.dumps({"t": i * 0.01, "type": "snapshot", "occupied": occupied}) + "\n"


def lift_place_lines(n: int) -> Iterator[str]:
    yield json.dumps({"type": "start", "variant": "italian", "clock": False}) + "\n"
    for i in range(n // 2):
        yield json.dumps({"t": i * 0.02, "type": "lift", "square": 22}) + "\n"
        yield json.dumps({"t": i * 0.02 + 0.01, "type": "place", "square": 22}) + "\n"


def move_lines(n: int) -> Iterator[str]:
    """A game of ``n`` events that never ends: ``bench_length``'s king endgame (kings shuttling
    far apart, natural physical events, a clock press after every move under a Fischer time
    control): the record grows by a move every four or five lines."""
    from bench_length import FEN, king_endgame_events
    yield json.dumps({"type": "start", "variant": "italian", "fen": FEN,
                      "time_control": "5400+30"}) + "\n"
    for i, e in enumerate(king_endgame_events(n)):
        if i >= n:
            break
        yield json.dumps(e.to_dict()) + "\n"


def child(kind: str, n: int, whole: bool) -> None:
    make = {"snapshots": snapshot_lines, "lift/place": lift_place_lines, "moves": move_lines}[kind]
    start = time.perf_counter()
    if whole:
        parse_trace(make(n))
    else:
        replay_lines(make(n))
    elapsed = time.perf_counter() - start
    try:  # this process's own peak (ru_maxrss also counts what a forked child inherits)
        with open("/proc/self/status") as status:
            peak_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))
    except (OSError, StopIteration):
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # kB on Linux
    peak_mb = peak_kb / 1024
    print(f"{elapsed} {peak_mb}")


def measure(kind: str, n: int, whole: bool = False) -> tuple[float, float]:
    """(seconds, peak MB) of replaying (or, ``whole``, of only parsing into a list)."""
    out = subprocess.run([sys.executable, __file__, "--child", kind, str(n), str(int(whole))],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1")
        return
    args = sys.argv[1:]
    kinds = ["snapshots", "lift/place", "moves"]
    if "--kinds" in args:
        i = args.index("--kinds")
        kinds = args[i + 1].split(",")
        del args[i:i + 2]
    sizes = [int(a) for a in args] or [1_000, 10_000, 100_000, 1_000_000]
    print(f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'trace':<14}{'lines':>10}{'replay s':>10}{'peak MB':>10}"
          f"{'parse-all s':>13}{'peak MB':>10}")
    for name in kinds:
        for n in sizes:
            t, peak = measure(name, n)
            row = f"{name:<14}{n:>10,}{t:>10.1f}{peak:>10.1f}"
            if n <= 100_000:  # the old way, all events in a list first, for comparison
                t2, peak2 = measure(name, n, whole=True)
                row += f"{t2:>13.1f}{peak2:>10.1f}"
            print(row, flush=True)


if __name__ == "__main__":
    main()
