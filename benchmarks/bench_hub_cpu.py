"""The hub's CPU per journal line without MQTT or HTTP (issue 19): figures only.

Run: ``.venv/bin/python benchmarks/bench_hub_cpu.py [--boards 200] [--pace 10] [--seconds 60]
[--page public|arbiter|none] [--profile N]``

Light simulated boards (``hardware_mocks.hall_boards.LightBoard``) play ``--seconds`` of wall
time at ``--pace`` on a simulated clock (no sleeping); every message they publish (journal
lines, retained ``status`` and ``state``) is recorded, cut into the batches the MQTT link hands
over (what arrives within ``--batch`` seconds), then fed to a :class:`pi.hall.hub.Hub` with its
hall server (:class:`pi.hall.hall_http.HallServer`, not listening) on a running event loop: each
batch delivered, the hall's summaries flushed to one page (``--page``) every ``COALESCE``
seconds of the recording (as the running hub's timer), the once-a-second ticks run. While a
batch is fed the hub's wall clock (``time.time``) reads the simulated time it was published at,
as a hall's hub and boards share one (NTP): a board's retained clock reading is dated by it,
and the hub carries it forward by the difference (on the real clock, the recording's dates were
hours behind: every clock read an hour ahead, flags fell, and the tick
re-summed those boards). Printed: the process CPU per journal line over the feeding (the hub's
work only: the recording is not counted), the garbage collections while fed (each holds the
loop: the longest is a floor under the hall page's worst latency), the load average and the
host's speed before and after (``hall_bench_rig.host_reference``: the same fixed work each time).
``--profile N``: cProfile's N costliest functions (cumulative), the feeding run again under the
profiler.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import math
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable
from unittest.mock import patch

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

from hall_bench_rig import host_line, host_reference
from hardware_mocks.hall_boards import LightBoard
from pi.hall.collector import Collector
from pi.hall.hall_http import COALESCE, HallClient, HallServer
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig

HALL = "hall"
Batch = list[tuple[str, bytes]]
#: The simulated wall time the boards begin at (any: the hub reads the same clock while fed).
T0 = 1_790_000_000.0


def record(boards: int, pace: float, seconds: float, root: Path, batch: float,
           stagger: float) -> tuple[list[tuple[float, Batch]], int]:
    """The boards' messages over ``seconds`` of simulated wall time, in batches of ``batch``
    seconds, each with the simulated wall time at its end; and the number of journal lines
    among them."""
    t0 = T0
    out: list[tuple[float, Batch]] = []
    current: Batch = []
    clock = [t0]
    made = [LightBoard(n, HALL, root / str(n), seed=1, pace=pace,
                       first_game_at=t0 + (n - 1) / boards * stagger / pace,
                       wall=lambda: clock[0])
            for n in range(1, boards + 1)]
    for b in made:
        b.attach(lambda topic, payload, retained: current.append((topic, payload)))
        b.connected()
    journal = 0
    now = t0
    while now < t0 + seconds:
        now += batch
        clock[0] = now
        for b in made:
            b.run_due(now)
        if current:
            journal += sum(1 for topic, _ in current if topic.endswith("/journal"))
            out.append((now, list(current)))
            current.clear()
    return out, journal


async def feed(batches: list[tuple[float, Batch]], root: Path, boards: int, page: str,
               profile: cProfile.Profile | None = None,
               full_heap: Callable[[], float] | None = None) -> tuple[float, float | None]:
    """Feeds ``batches`` to a fresh hub; the CPU seconds it took, and what ``full_heap()``
    returns once it is fed, every game still held (the seconds the hub's collection of the
    whole heap takes, pi.hall.collector)."""
    config = HubConfig(hall=HALL, state_dir=root,
                       accept_unsigned=frozenset(range(1, boards + 1)))
    root.mkdir(parents=True, exist_ok=True)
    hub = Hub(config, root)
    server = HallServer(hub, "127.0.0.1", 0)
    client = None
    if page != "none":
        client = HallClient(arbiter=page == "arbiter")
        server.hall_clients.add(client)
    cpu0 = time.process_time()
    if profile is not None:
        profile.enable()
    wall = [T0]
    flushed = ticked = -math.inf
    with patch("time.time", lambda: wall[0]):
        for i, (at, b) in enumerate(batches):
            wall[0] = at
            hub.deliver(b)
            # as the running hub: the summaries flushed every COALESCE seconds, whatever
            # the batches (the first batch after that time flushes), the tick once a second
            if at - flushed >= COALESCE:
                server.flush()
                flushed = at
                if client is not None:
                    client.take()
            if at - ticked >= 1.0:
                hub.tick()
                server.tick()
                ticked = at
            if i % 50 == 0:
                await asyncio.sleep(0)
        server.flush()
    if profile is not None:
        profile.disable()
    cpu = time.process_time() - cpu0
    full = None if full_heap is None else full_heap()
    hub.close()
    await server.stop()
    return cpu, full


class GcPauses:
    """The garbage collector's collections, each timed (``gc.callbacks``): a collection holds
    the hub's loop for as long as it walks, so its longest pause is a floor under the hall
    page's worst latency."""

    def __init__(self) -> None:
        self.started = 0.0
        self.pauses: dict[int, list[float]] = {0: [], 1: [], 2: []}
        #: objects each generation's collections found unreachable (cyclic garbage: the rest
        #: is freed by reference counting, no collection needed)
        self.collected: dict[int, int] = {0: 0, 1: 0, 2: 0}

    def callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        else:
            self.pauses[info["generation"]].append(time.perf_counter() - self.started)
            self.collected[info["generation"]] += info["collected"]

    def summary(self) -> str:
        return "; ".join(f"generation {g}: {len(p)}, longest {max(p) * 1000:.1f} ms, "
                         f"{sum(p) * 1000:.0f} ms in all, {self.collected[g]:,} objects freed"
                         if p else f"generation {g}: none" for g, p in self.pauses.items())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--boards", type=int, default=200, help="simulated boards (default 200)")
    p.add_argument("--pace", type=float, default=10.0,
                   help="game seconds per wall second (default 10)")
    p.add_argument("--seconds", type=float, default=60.0,
                   help="simulated wall seconds recorded (default 60)")
    p.add_argument("--batch", type=float, default=0.02,
                   help="seconds of messages per delivered batch (default 0.02)")
    p.add_argument("--stagger", type=float, default=30.0,
                   help="game seconds over which the first games begin (default 30)")
    p.add_argument("--page", choices=("public", "arbiter", "none"), default="public",
                   help="the hall page connected (default public)")
    p.add_argument("--gc", choices=("hub", "python"), default="hub",
                   help="the garbage collector: the hub process's (pi.hall.collector: young "
                   "collections only, survivors frozen) or Python's defaults (default hub)")
    p.add_argument("--profile", type=int, default=0,
                   help="print cProfile's N costliest functions (default 0: no profile)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-hub-cpu-") as tmp:
        batches, lines = record(args.boards, args.pace, args.seconds, Path(tmp) / "boards",
                                args.batch, args.stagger)
        messages = sum(len(b) for _, b in batches)
        host_before = host_reference()
        collector = Collector()
        if args.gc == "hub":
            collector.install()
        pauses = GcPauses()
        gc.callbacks.insert(0, pauses.callback)  # timed before the collector freezes the survivors

        def full_heap() -> float:
            gc.callbacks.remove(pauses.callback)  # not one of the collections while fed
            return collector.full()[1]
        try:
            cpu, full = asyncio.run(feed(batches, Path(tmp) / "hub", args.boards, args.page,
                                         full_heap=full_heap if args.gc == "hub" else None))
        finally:
            if pauses.callback in gc.callbacks:
                gc.callbacks.remove(pauses.callback)
            collector.uninstall()
        print(f"{args.boards} boards at {args.pace:g}x, {args.seconds:g} s: {lines} journal "
              f"lines ({messages} messages, {len(batches)} batches); page {args.page}, "
              f"GC {args.gc}; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"  hub CPU per journal line: {cpu / lines * 1000:.3f} ms "
              f"({cpu:.2f} s in all; target <= 0.3 ms)")
        host_after = host_reference()
        print(f"  garbage collections while fed: {pauses.summary()}")
        if full is not None:
            print(f"  then the whole heap collected (the hub's between rounds, at the latest "
                  f"every {collector.full_at_latest / 60:g} minutes): {full * 1000:.0f} ms")
        print(host_line(host_before, host_after))
        if args.profile:
            prof = cProfile.Profile(time.thread_time)
            asyncio.run(feed(batches, Path(tmp) / "hub2", args.boards, args.page, prof))
            pstats.Stats(prof).sort_stats("cumulative").print_stats(args.profile)
            pstats.Stats(prof).sort_stats("tottime").print_stats(args.profile)


if __name__ == "__main__":
    main()
