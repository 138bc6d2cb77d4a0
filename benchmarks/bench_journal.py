"""Cost of journaling one event (pi.board.journal.Journal.append: encode, write, fsync): p50, p99, max;
and of reading back a long journal at resume (pi.board.journal.Journal.resume).

The daemon shows nothing before the event is on disk, so this is the floor of the latency from a
sensor change to the move on the screen (issue 9 targets p99 <= 5 ms in total on a PC). On a Pi
the figure depends on the SD card: run it there, in the state directory's filesystem.
Run: ``.venv/bin/python benchmarks/bench_journal.py [events] [directory]``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.events import GameStarted, PieceLifted, PiecePlaced
from pi.board.journal import Journal


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    where = sys.argv[2] if len(sys.argv) > 2 else None
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        path = Path(tmp) / "trace.jsonl"
        costs = []
        with Journal.create(path, GameStarted(variant="italian")) as journal:
            for i in range(count):
                event = (PieceLifted if i % 2 == 0 else PiecePlaced)(t=i * 0.5, square="e3")
                start = time.perf_counter()
                journal.append(event)
                costs.append(time.perf_counter() - start)
        costs.sort()
        p99 = costs[min(len(costs) - 1, int(len(costs) * 0.99))]
        print(f"append+fsync, {count} events in {tmp}: p50 {statistics.median(costs) * 1e3:.3f} ms, "
              f"p99 {p99 * 1e3:.3f} ms, max {costs[-1] * 1e3:.3f} ms")
        start = time.perf_counter()
        journal, recovered = Journal.resume(path)
        journal.close()
        print(f"resume of {len(recovered.lines)} lines ({path.stat().st_size} bytes): "
              f"{(time.perf_counter() - start) * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
