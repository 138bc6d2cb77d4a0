"""The hall under load (issue 11): figures only, never assertions.

Run: ``.venv/bin/python benchmarks/bench_hall.py --boards 200 [--pace 1|10] [--seconds 60]``
     (without ``--pace``: at tournament pace, then 10x)
     ``.venv/bin/python benchmarks/bench_hall.py --sweep auto|200,400,800 [--pace 10]``
     ``--shares 2``: the hub as 2 processes and a front (``pi.hall.shares``), measured at the
     front's hall page; CPU and memory summed over the three processes

A private Mosquitto (tests/hall/broker.py), the hub as a subprocess (``damiera hub --mqtt …
--http 127.0.0.1:<free> --state-dir <tmp>``), the light simulated boards
(hardware_mocks/hall_fleet.py: random legal games with natural physical events, ~250 boards per
process, their paho clients on one selectors loop each) and one hall page: an SSE client on the
hub's ``GET /events``. Printed:

- **latency**: from a board's publish of a journal line to the hall page's ``board`` event whose
  ``lines`` reaches it (p50/p99/max over every line published after the warm-up; lines never
  shown are counted apart). Targets: p99 <= 100 ms at 200 boards at 10x pace.
- **hub CPU** (percent of one core over the measured window, every thread) and **RSS** (now and
  peak). Target: RSS <= 200 MB.
- **hub CPU per journal line** (the hub's CPU over the window / the lines published in it).
  Target: <= 0.3 ms.
- **lines lost**: after the boards stop and the hub has caught up, every board's journal
  compared with its replica ``<state-dir>/boards/<N>/games/<id>/trace.jsonl`` (must be 0).
- ``--sweep 200,400,800``: one run per number of boards, a table, and the first count where
  p99 > 1 s; ``--sweep auto`` doubles from 100 boards until p99 passes 1 s, then tries halfway
  back once.

Without ``damiera hub`` installed, ``--stand-in`` measures to a plain subscriber instead (the
broker's share of the path only): those figures are not the hub's.
The machine's cores are shared with whatever else runs: the boards' processes too.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "hall"), str(Path(__file__).resolve().parent)]

from broker import Broker
from hall_bench_rig import (ProcStats, SseClient, StandInHub, compare_replicas, free_port,
                      latencies, percentile, read_times)

HALL = "hall"


def have_hub() -> bool:
    return importlib.util.find_spec("pi.hall.hub_run") is not None


def wait_http(port: int, timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/hall", timeout=1) as r:
                r.read()
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the hub did not answer on 127.0.0.1:{port} in {timeout} s")


def start_fleets(url: str, boards: int, pace: float, root: Path, seed: int, stagger: float,
                 per_process: int) -> list[tuple[subprocess.Popen[str], Path]]:
    out = []
    for first in range(1, boards + 1, per_process):
        last = min(boards, first + per_process - 1)
        times = root / f"times-{first}.tsv"
        cmd = [sys.executable, "-m", "hardware_mocks.hall_fleet", "--mqtt", url, "--hall", HALL,
               "--boards", f"{first}-{last}", "--dir", str(root / "boards"),
               "--pace", str(pace), "--seed", str(seed), "--times", str(times),
               "--stagger", str(stagger)]
        out.append((subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True), times))
    return out


class Procs:
    """The hub's processes (one, or ``--shares N`` and the front) as one for the figures: CPU
    seconds and memory summed over them."""

    def __init__(self, pids: list[int]) -> None:
        self.stats = [ProcStats(pid) for pid in pids]

    def cpu(self) -> float:
        return sum(s.cpu() for s in self.stats)

    def memory(self) -> tuple[float, float]:
        got = [s.memory() for s in self.stats]
        return sum(m[0] for m in got), sum(m[1] for m in got)


def start_shares(url: str, boards: int, shares: int, port: int, hub_dir: Path, root: Path
                 ) -> list[subprocess.Popen[bytes]]:
    """``damiera hub --share K/N`` for K in 0..N-1 (one state directory) and ``damiera hub
    front`` on ``port`` over them: the hall as several processes (pi.hall.shares)."""
    unsigned = [a for n in range(1, boards + 1) for a in ("--accept-unsigned", str(n))]
    ports = [free_port() for _ in range(shares)]
    procs = [subprocess.Popen([sys.executable, "-m", "pi.cli", "hub", "--mqtt", url,
                               "--http", f"127.0.0.1:{p}", "--state-dir", str(hub_dir),
                               "--share", f"{k}/{shares}", "--quiet", *unsigned], cwd=ROOT,
                              stdin=subprocess.DEVNULL, stderr=open(root / f"share-{k}.log", "wb"))
             for k, p in enumerate(ports)]
    for p in ports:
        wait_http(p)
    procs.append(subprocess.Popen(
        [sys.executable, "-m", "pi.cli", "hub", "front", "--shares",
         ",".join(f"127.0.0.1:{p}" for p in ports), "--http", f"127.0.0.1:{port}",
         "--state-dir", str(hub_dir), "--quiet"], cwd=ROOT, stdin=subprocess.DEVNULL,
        stderr=open(root / "front.log", "wb")))
    return procs


def run(boards: int, pace: float, seconds: float, warmup: float, stand_in: bool,
        seed: int = 1, keep: Path | None = None, per_process: int = 250,
        shares: int = 1) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="bench-hall-"))
    hub_dir = root / "hub"
    hub_dir.mkdir()
    broker = Broker(root).start()
    hub: subprocess.Popen[bytes] | None = None
    share_procs: list[subprocess.Popen[bytes]] = []
    stand: StandInHub | None = None
    sse: SseClient | None = None
    fleets: list[tuple[subprocess.Popen[str], Path]] = []
    try:
        if stand_in:
            stand = StandInHub(broker.port, HALL, hub_dir)
            stats: ProcStats | Procs = ProcStats(stand.pid)
        elif shares > 1:
            port = free_port()
            share_procs = start_shares(broker.url, boards, shares, port, hub_dir, root)
            stats = Procs([p.pid for p in share_procs])
            wait_http(port)
            time.sleep(1.0)  # the front's streams of the shares
            sse = SseClient(port)
            sse.start()
        else:
            port = free_port()
            # the light boards do not sign their lines: taken unsigned, by name (PROTOCOL.md)
            unsigned = [a for n in range(1, boards + 1) for a in ("--accept-unsigned", str(n))]
            hub = subprocess.Popen([sys.executable, "-m", "pi.cli", "hub", "--mqtt", broker.url,
                                    "--http", f"127.0.0.1:{port}", "--state-dir", str(hub_dir),
                                    "--quiet", *unsigned], cwd=ROOT, stdin=subprocess.DEVNULL,
                                   stderr=open(root / "hub.log", "wb"))
            stats = ProcStats(hub.pid)
            wait_http(port)
            sse = SseClient(port)
            sse.start()
        # the first moves come after the players' first think: a few game seconds
        started = time.time()
        fleets = start_fleets(broker.url, boards, pace, root, seed, stagger=30.0,
                              per_process=per_process)
        time.sleep(warmup)
        since = time.time()
        cpu0 = stats.cpu()
        front0 = stats.stats[-1].cpu() if isinstance(stats, Procs) else 0.0
        time.sleep(seconds)
        cpu = (stats.cpu() - cpu0) / seconds * 100
        front_cpu = (stats.stats[-1].cpu() - front0) / seconds * 100 \
            if isinstance(stats, Procs) else None
        load = os.getloadavg()[0]
        rss, peak = stats.memory()
        for proc, _ in fleets:
            proc.send_signal(signal.SIGTERM)
        fleet_out = [json.loads(proc.communicate(timeout=60)[0] or "{}") for proc, _ in fleets]
        if any(proc.returncode != 0 for proc, _ in fleets):
            raise RuntimeError("a process of simulated boards failed (its error is above)")
        # the hub catches up: replicas equal to the journals, or 30 s
        deadline = time.time() + 30
        while True:
            total, lost, bad = compare_replicas(root / "boards", hub_dir)
            if lost == 0 or time.time() > deadline:
                break
            time.sleep(0.5)
        seen = stand.seen if stand is not None else (sse.seen if sse is not None else [])
        times = read_times([t for _, t in fleets])
        published = sum(len(v) for v in times.values())
        lat, unseen = latencies(times, seen, since=since)
        return {"boards": boards, "pace": pace, "seconds": seconds, "published": published,
                "rate": sum(1 for v in times.values() for w in v.values()
                            if since <= w <= since + seconds) / seconds,
                "measured": len(lat), "unseen": unseen,
                "p50": percentile(lat, 50) * 1000, "p90": percentile(lat, 90) * 1000,
                "p99": percentile(lat, 99) * 1000,
                "max": (max(lat) if lat else math.nan) * 1000,
                "mean": (statistics.fmean(lat) if lat else math.nan) * 1000,
                "cpu": cpu, "front_cpu": front_cpu, "load": load, "rss": rss, "peak": peak,
                "lines": total, "lost": lost,
                "games_bad": bad, "games": sum(f.get("games", 0) for f in fleet_out),
                "fleet_cpu": sum(f.get("cpu", 0.0) for f in fleet_out)
                / (time.time() - started) * 100,
                "fleet_rss": max((f.get("rss_mb", 0.0) for f in fleet_out), default=0.0),
                "fleets": len(fleets),
                "sse_error": sse.error if sse is not None else None,
                "reconnects": sse.reconnects if sse is not None else 0,
                "hub": "stand-in subscriber" if stand_in else
                f"damiera hub, {shares} shares and a front" if shares > 1 else "damiera hub"}
    finally:
        for proc, _ in fleets:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if sse is not None:
            sse.stop()
        if stand is not None:
            stand.stop()
        for hub_proc in [*([] if hub is None else [hub]), *reversed(share_procs)]:
            hub_proc.send_signal(signal.SIGTERM)
            try:
                hub_proc.wait(10)
            except subprocess.TimeoutExpired:
                hub_proc.kill()
                hub_proc.wait()
        broker.stop()
        if keep is not None:
            shutil.copytree(root, keep, dirs_exist_ok=True)
        shutil.rmtree(root, ignore_errors=True)


def show(r: dict[str, Any]) -> None:
    print(f"{r['boards']} boards at {r['pace']:g}x pace, {r['seconds']:g} s measured "
          f"({r['hub']}): {r['rate']:.0f} journal lines/s, {r['games']} games; machine's load "
          f"average {r['load']:.1f} on {os.cpu_count()} cores")
    print(f"  publish -> hall page: p50 {r['p50']:.1f} ms, p90 {r['p90']:.1f} ms, "
          f"p99 {r['p99']:.1f} ms, "
          f"max {r['max']:.1f} ms over {r['measured']} lines ({r['unseen']} never shown)")
    print(f"  hub: CPU {r['cpu']:.0f}% of a core, RSS {r['rss']:.0f} MB (peak {r['peak']:.0f} MB)"
          + (f"; of which the front {r['front_cpu']:.0f}%" if r.get("front_cpu") is not None
             else ""))
    per_line = r["cpu"] / 100 / r["rate"] * 1000 if r["rate"] else math.nan
    print(f"  hub CPU per journal line: {per_line:.3f} ms (target <= 0.3 ms)")
    print(f"  boards: {r['fleets']} process(es), CPU {r['fleet_cpu']:.0f}% of a core in all, "
          f"RSS {r['fleet_rss']:.0f} MB the largest")
    print(f"  lines lost: {r['lost']} of {r['lines']} ({r['games_bad']} replicas not byte-equal)")
    if r["reconnects"] or r["sse_error"]:
        print(f"  hall page: dropped by the hub and reconnected {r['reconnects']} time(s)"
              + (f"; last error: {r['sse_error']}" if r["sse_error"] else ""))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--boards", type=int, default=200)
    p.add_argument("--pace", type=float, default=None,
                   help="game seconds per wall second (default: 1 then 10; a sweep: 10)")
    p.add_argument("--seconds", type=float, default=60.0, help="the measured window")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    p.add_argument("--sweep", default=None,
                   help="board counts, e.g. 200,400,800, or 'auto' (doubling from 100)")
    p.add_argument("--stand-in", action="store_true",
                   help="a plain subscriber instead of the hub (automatic without the hub)")
    p.add_argument("--per-process", type=int, default=250,
                   help="simulated boards per process (default 250)")
    p.add_argument("--shares", type=int, default=1,
                   help="the hub as this many processes (damiera hub --share K/N) and a front "
                   "(damiera hub front) whose hall page is measured (default 1: one hub)")
    p.add_argument("--keep", default=None, help="copy the run's files here")
    p.add_argument("--json", action="store_true", help="also print each run as JSON")
    args = p.parse_args()
    stand_in = args.stand_in or not have_hub()
    if stand_in and not args.stand_in:
        print("damiera hub is not installed: measuring to a stand-in subscriber")
    results = []

    def one(n: int, pace: float = args.pace or 10.0) -> dict[str, Any]:
        r = run(n, pace, args.seconds, args.warmup, stand_in,
                keep=Path(args.keep) / str(n) if args.keep else None,
                per_process=args.per_process, shares=args.shares)
        show(r)
        if args.json:
            print(json.dumps(r))
        results.append(r)
        return r

    if args.sweep == "auto":
        # doubling from 100 until p99 passes 1 s (at most 6400), then halfway back once
        n, passed = 100, 0
        while n <= 6400 and one(n)["p99"] <= 1000:
            passed, n = n, n * 2
        if passed and n <= 6400:
            one((passed + n) // 2)
    else:
        for n in [int(x) for x in args.sweep.split(",")] if args.sweep else [args.boards]:
            for pace in [args.pace or 10.0] if args.pace or args.sweep else [1.0, 10.0]:
                one(n, pace)
    if args.sweep:
        results.sort(key=lambda r: r["boards"])
        print("\nboards  lines/s  p50 ms  p99 ms  hub CPU%  RSS MB  lost  load")
        for r in results:
            print(f"{r['boards']:>6}  {r['rate']:>7.0f}  {r['p50']:>6.1f}  {r['p99']:>6.1f}  "
                  f"{r['cpu']:>8.0f}  {r['rss']:>6.0f}  {r['lost']:>4}  {r['load']:>4.1f}")
        over = [r["boards"] for r in results if not r["p99"] <= 1000]
        print("p99 passes 1 s at " + (f"{over[0]} boards" if over else
                                      f"none of these (up to {results[-1]['boards']} boards)"))

if __name__ == "__main__":
    main()
