"""What a game's beginning and end cost the daemon's loop when the state disk stalls (issue 19:
"the disk off the loop", at the edges of a game as between them).

A ``pi.board.controller.BoardController`` writing behind, as in the daemon (its writer threads
post to a queue this script hands back to it, as the loop's bridge does), with **every** fsync
held ``--stall`` seconds (the journal's, the folders', ``game.pdn``/``report.json``'s and the
``finished`` marker's: a state disk stalling under other tenants' writes). For each of
``--games`` games it times the loop's calls: the set-up snapshot that begins the game, then —
once the game's last line (a resignation) is durable — the call that takes the writer's news
(where the record and the marker are handed on), and the set-up that begins the next game
(closing the one over). Target: the loop never waits for the disk (each call within a few
ms). Before the change that put them on threads (27 November, at 48bba9e, 200 ms per fsync):
the beginning held the loop 1.41 s (the game before closed, the new folder, the journal, both
files), the end 2.01 s (the end line waited for, the record, the marker).

Run: ``.venv/bin/python benchmarks/bench_game_edges.py [--games 5] [--stall 0.2]``.
"""

from __future__ import annotations

import argparse
import os
import queue
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.board import Board
from engine.events import ButtonPressed, SnapshotTaken
from pi.board.config import Config
from pi.board.controller import BoardController, Input
from pi.board.statedir import StateDir
from pi.drivers.timebase import GameTime

from daemon_rig import stalled_journal

INITIAL = Board(None, "italian").occupied_algebraic()


def timed(c: BoardController, item: Input) -> float:
    began = time.perf_counter()
    c.handle(item)
    return (time.perf_counter() - began) * 1000


def deliver(c: BoardController, posted: queue.SimpleQueue[Input]) -> float:
    """Hands the writers' news to ``c`` until every journaled line is durable: the longest
    call, ms."""
    worst = 0.0
    s = c.session
    assert s is not None
    while True:
        worst = max(worst, timed(c, posted.get(timeout=30)))
        if s.durable_line == s.journal.line_count and posted.empty():
            return worst


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=5)
    p.add_argument("--stall", type=float, default=0.2, help="seconds every fsync is held")
    p.add_argument("--dir", default=None, help="where the state directory goes (default: /tmp)")
    args = p.parse_args(argv)
    posted: queue.SimpleQueue[Input] = queue.SimpleQueue()
    begin: list[float] = []
    end: list[float] = []
    print(f"load average {os.getloadavg()[0]:.2f}; every fsync held {args.stall * 1000:.0f} ms; "
          f"{args.games} games")
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench-edges-") as tmp, \
            StateDir.open(Path(tmp) / "state") as state:
        gt = GameTime()
        c = BoardController(Config(clock=False), state, gt, wall=lambda: None,
                            post=posted.put)
        with stalled_journal(args.stall, every_file=True):
            for _ in range(args.games):
                begin.append(timed(c, SnapshotTaken(gt.stamp(), INITIAL)))
                deliver(c, posted)
                c.handle(ButtonPressed(gt.stamp(), "resign", "black"))
                end.append(deliver(c, posted))
                c.handle(SnapshotTaken(gt.stamp(), frozenset()))  # the pieces off
            c.stop()
    for name, xs in (("the set-up that begins a game (the game before closed)", begin),
                     ("the news of the last line durable (record and marker handed on)", end)):
        print(f"| {name} | median {statistics.median(xs):.2f} ms, max {max(xs):.2f} ms |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
