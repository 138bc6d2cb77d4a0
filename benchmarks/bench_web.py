"""The web server's cost to the board (issue 10 targets): figures only, never assertions.

Run: ``.venv/bin/python benchmarks/bench_web.py [--presses N] [--clients 1,100] [--quick]``.

1. **Clock press → SSE event at a client** — the real daemon (``pi.daemon.run_daemon``) on the
   simulated board in real time, the web server on a loopback port, N SSE clients connected (an
   aiohttp client in another process, as browsers would be). The clock button's GPIO pin is tapped (gpiozero
   ``MockFactory``); measured from the tap to the arrival at each client of the first SSE message
   of the press's journal line. p50/p99/max over presses × clients (target p99 ≤ 20 ms).
2. **Sensor scan delay with 100 clients** — while presses stream to the clients: (a) the scan
   thread's lateness (a scan begun after the deadline it slept until), (b) the event loop's lag
   (a 2 ms timer on the daemon's loop: how late it runs is the longest a scan's output waits to
   reach the controller). Target: no scan delayed by more than 5 ms.
3. **RSS** — ``damiera run --simulate`` processes with ``--http off`` and with the server on,
   VmRSS after start-up (a game on the board).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "web"))

import aiohttp

from hardware_mocks.gpio import tap
from web_rig import Rig


class Clients:
    """N SSE clients in a separate process (so that they do not share the daemon's GIL):
    ``bench_web.py --client-mode PORT N`` prints ``ready``, then on ``stop`` the arrival times
    (``time.perf_counter``: CLOCK_MONOTONIC, the same clock in both processes) of every line."""

    def __init__(self, port: int, n: int) -> None:
        self.port, self.n = port, n
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--client-mode", str(self.port),
                                      str(self.n)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"SSE clients did not connect: {line!r}")

    def finish(self) -> dict[int, list[float]]:
        if self.proc is None:
            return {}
        out, _ = self.proc.communicate("stop\n", timeout=60)
        return {int(k): v for k, v in json.loads(out or "{}").items()}


def client_mode(port: int, n: int) -> int:
    arrivals: dict[int, list[float]] = {}

    async def one(session: aiohttp.ClientSession, connected: list[int],
                  ready: asyncio.Event) -> None:
        async with session.get(f"http://127.0.0.1:{port}/events") as resp:
            connected.append(1)
            if len(connected) == n:
                ready.set()
            async for raw in resp.content:
                if raw.startswith(b"id: "):
                    seen = arrivals.setdefault(int(raw[4:]), [])
                    if len(seen) < n * 8:
                        seen.append(time.perf_counter())

    async def run() -> None:
        ready = asyncio.Event()
        connected: list[int] = []
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            tasks = [asyncio.ensure_future(one(session, connected, ready)) for _ in range(n)]
            await asyncio.wait_for(ready.wait(), 30)
            print("ready", flush=True)
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, sys.stdin.readline)
            for t in tasks:
                t.cancel()
        print(json.dumps(arrivals), flush=True)
    asyncio.run(run())
    return 0


def latency(n_clients: int, presses: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp, Rig(Path(tmp)) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        server = rig.server
        server.max_clients = n_clients + 10
        clients = Clients(rig.port, n_clients)
        if n_clients:
            clients.start()
        lags: list[float] = []
        late: list[float] = []
        loop = rig.loop
        assert loop is not None

        def probe(expected: float) -> None:
            lags.append(time.perf_counter() - expected)
            if len(lags) < 1_000_000:
                loop.call_later(0.002, probe, time.perf_counter() + 0.002)
        loop.call_soon_threadsafe(probe, time.perf_counter())
        scan_loop = rig.sim.hardware.scan_loop
        original = scan_loop.scanner.scan

        def timed_scan() -> Any:
            planned = scan_loop.scanner.next_deadline()
            late.append(max(0.0, scan_loop.clock() - planned))
            return original()
        scan_loop.scanner.scan = timed_scan
        wiring = rig.sim.wiring
        pressed: list[tuple[int, float]] = []
        sides = ["white", "black"]
        for i in range(presses):
            side = sides[i % 2]
            gpio = wiring.buttons[side]["clock"]
            before = server.last_line
            t0 = time.perf_counter()
            tap(rig.sim.factory, gpio, wiring.button_pull_up)
            end = time.monotonic() + 2
            while server.last_line == before and time.monotonic() < end:
                time.sleep(0.0005)
            line = server.last_line
            pressed.append((line, t0))
            # sensor traffic between presses: a piece lifted and put back (the scans measured)
            if i % 4 == 3:  # slow enough not to look like chattering contacts
                rig.sim.board.lift("h1")
                time.sleep(0.12)
                rig.sim.board.place("h1")
                time.sleep(0.12)
            else:
                time.sleep(0.03)
        time.sleep(0.3)
        arrivals = clients.finish()
        samples: list[float] = []
        for line, t0 in pressed:
            # the first message of the press's line at each client (one per client)
            samples.extend((t - t0) * 1000 for t in sorted(arrivals.get(line, []))[:n_clients])
        samples.sort()

        def pct(p: float) -> float:
            return samples[min(len(samples) - 1, int(p * len(samples)))] if samples else float("nan")
        return {"clients": n_clients, "n": len(samples), "p50": pct(0.5), "p99": pct(0.99),
                "max": samples[-1] if samples else float("nan"),
                "loop_lag_max": max(lags) * 1000 if lags else float("nan"),
                "loop_lag_p99": statistics.quantiles(lags, n=100)[98] * 1000 if len(lags) > 100
                else float("nan"),
                "scan_late_max": max(late) * 1000 if late else float("nan"), "scans": len(late)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss(http: str, wait: float) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([sys.executable, "-m", "pi.cli", "run", "--simulate", "--quiet",
                                 "--state-dir", tmp, "--http", http], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(wait)
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
            return -1
        finally:
            proc.terminate()
            proc.wait(20)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--presses", type=int, default=200)
    p.add_argument("--clients", default="0,1,100",
                   help="SSE client counts (0: the server on, nobody listening: the baseline)")
    p.add_argument("--rss-wait", type=float, default=4.0)
    p.add_argument("--quick", action="store_true", help="tiny sizes (the test's run)")
    p.add_argument("--client-mode", nargs=2, type=int, metavar=("PORT", "N"),
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.client_mode:
        return client_mode(*args.client_mode)
    presses = 4 if args.quick else args.presses
    print(f"clock press -> SSE event at a client ({presses} presses; ms)")
    print(f"{'clients':>8} {'n':>6} {'p50':>7} {'p99':>7} {'max':>7} | {'loop lag p99':>12} "
          f"{'max':>7} | {'scan late max':>13} {'scans':>6}")
    for n in [int(x) for x in args.clients.split(",") if x]:
        r = latency(n, presses)
        print(f"{r['clients']:>8} {r['n']:>6} {r['p50']:>7.2f} {r['p99']:>7.2f} {r['max']:>7.2f} | "
              f"{r['loop_lag_p99']:>12.2f} {r['loop_lag_max']:>7.2f} | {r['scan_late_max']:>13.2f} "
              f"{r['scans']:>6}")
    if not args.quick:
        off = rss("off", args.rss_wait)
        on = rss(f"127.0.0.1:{free_port()}", args.rss_wait)
        print(f"RSS of damiera run --simulate: web off {off / 1024:.1f} MiB, web on "
              f"{on / 1024:.1f} MiB (+{(on - off) / 1024:.1f} MiB)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
