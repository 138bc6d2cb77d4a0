"""The web server's cost to the board (issue 10 targets): figures only, never assertions.

Run: ``.venv/bin/python benchmarks/bench_web.py [--presses N] [--clients 0,1,100] [--quick]``.

Three processes, as on a real board: the daemon (``pi.daemon.run_daemon`` on the simulated
board in real time, the web server on a loopback port) in a process of its own
(``bench_web.py --daemon-mode STATE``), the N SSE clients in a second one (``--client-procs``:
in that many; ``--client-mode``:
raw SSE readers, see :class:`SseReader`), and this driver, which presses the clock buttons through
the simulator's controls (``POST /api/sim/button``: the button's GPIO pin tapped on gpiozero's
``MockFactory`` inside the daemon). Times are ``time.perf_counter`` (CLOCK_MONOTONIC: one clock
for all three processes).

1. **Clock press → SSE event at a client** — from the tap of the pin (timed in the daemon's
   process, on a thread of its own as the GPIO library's edges come on a Pi, so the HTTP request
   that asked for it is not counted: a real press is an edge on a pin) to the arrival at each
   client of the first SSE message of the press's journal line. p50/p99/max over presses ×
   clients (issue 19's target: p99 ≤ 10 ms at 100 clients). The clients share one Python
   process, which reads their sockets one after another (a byte search per socket, no HTTP
   library: :class:`SseReader`). "sent p99" is the daemon's side: from the tap
   until the line was handed to the kernel for every client.
2. **Sensor scan delay** — while presses stream to the clients and a piece is lifted and put
   back every fourth press: (a) the scan thread's lateness (a scan begun after the deadline it
   slept until), (b) the event loop's lag (a 2 ms timer on the daemon's loop: how late it runs is
   the longest a scan's output waits to reach the controller). Target: no scan delayed by more
   than 5 ms.
3. **RSS** — the daemon process's VmRSS at the end of each run (the clients still connected),
   and ``damiera run --simulate`` with ``--http off`` and with the server on after start-up.

``--profile FILE``: cProfile of the daemon's loop thread (the last client count's run).
``--slow MS``: asyncio debug mode in the daemon, logging every callback that holds the loop
longer than MS (stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest.mock import patch

if TYPE_CHECKING:
    from _typeshed import FileDescriptorLike

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "web"))
sys.path.insert(0, str(ROOT / "benchmarks"))  # daemon_proc's Controls, imported by the driver


# ---------------------------------------------------------------------- the daemon's process

def daemon_mode(state_dir: str, profile: str | None, slow_ms: float | None) -> int:
    """The daemon on the simulated board, web on; JSON on stdout: first ``{"port", "token"}``,
    then for each ``stats`` line on stdin the figures since the last one; ``stop`` ends it."""
    import logging

    import hardware_mocks.sim_web as sim_web
    from hardware_mocks.gpio import tap as original_tap
    from web_rig import Rig

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    taps: list[float] = []
    edges: queue.SimpleQueue[tuple[Any, int, bool]] = queue.SimpleQueue()

    def edge_thread() -> None:
        # A real press is an edge on a pin, sensed on the GPIO library's own thread (lgpio's
        # callback thread on a Pi), not on the loop's: the simulator's button route only asks
        # for it here, so the rest of that HTTP request is not counted in the press's time.
        while True:
            factory, gpio, pull_up = edges.get()
            taps.append(time.perf_counter())
            original_tap(factory, gpio, pull_up)
    threading.Thread(target=edge_thread, name="gpio-edges", daemon=True).start()

    def timed_tap(factory: Any, gpio: int, pull_up: bool = True) -> None:
        edges.put((factory, gpio, pull_up))
    # The simulator's button route taps through this name; the process ends with it patched.
    patch.object(sim_web, "tap", timed_tap).start()
    clock_lines: list[int] = []
    sent: list[float] = []  # when the web's listener had written the line to every client
    lags: list[float] = []
    late: list[float] = []
    fsyncs: list[float] = []  # those on the loop's thread (the journal's): how long they held it
    real_fsync = os.fsync

    def timed_fsync(fd: FileDescriptorLike) -> None:
        t = time.perf_counter()
        real_fsync(fd)
        if threading.current_thread() is loop_thread:
            fsyncs.append(time.perf_counter() - t)
    os.fsync = timed_fsync
    loop_thread: Any = None
    with Rig(Path(state_dir)) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        server = rig.server
        server.max_clients = 1000
        loop = rig.loop
        assert loop is not None
        loop_thread = rig.thread

        def fed(f: Any) -> None:
            if f.record.get("type") == "button" and f.record.get("name") == "clock":
                clock_lines.append(f.line)
                sent.append(time.perf_counter())  # after the web's own listener (added first)
        rig.controller.listeners.append(fed)

        def probe(expected: float) -> None:
            lags.append(time.perf_counter() - expected)
            loop.call_later(0.002, probe, time.perf_counter() + 0.002)
        loop.call_soon_threadsafe(probe, time.perf_counter())
        profiler: Any = None
        if slow_ms is not None:
            loop.call_soon_threadsafe(loop.set_debug, True)
            loop.slow_callback_duration = slow_ms / 1000
        if profile:
            import cProfile
            profiler = cProfile.Profile()
            loop.call_soon_threadsafe(profiler.enable)  # the loop's thread only
        scan_loop = rig.sim.scan_loop
        if scan_loop is None:
            raise RuntimeError("the rig's daemon has no scan loop")
        original_scan = scan_loop.scanner.scan

        def timed_scan() -> Any:
            planned = scan_loop.scanner.next_deadline()
            late.append(max(0.0, scan_loop.clock() - planned))
            return original_scan()
        patch.object(scan_loop.scanner, "scan", timed_scan).start()
        print(json.dumps({"port": rig.port, "token": rig.token}), flush=True)
        for command in sys.stdin:
            if command.strip() == "stats":
                # a tap still unjournaled: left out
                pairs = list(zip(clock_lines, taps, sent, strict=False))
                out = {"presses": pairs, "lags": lags[:], "late": late[:], "rss": _rss_kb(),
                       "fsync_max": max(fsyncs, default=0.0)}
                del clock_lines[:], taps[:], sent[:], lags[:], late[:], fsyncs[:]
                print(json.dumps(out), flush=True)
            elif command.strip() == "stop":
                break
        if profiler is not None:
            done = threading.Event()

            def off() -> None:
                profiler.disable()
                done.set()
            loop.call_soon_threadsafe(off)
            done.wait(5)
            profiler.dump_stats(profile)
    return 0


def _rss_kb(pid: int | str = "self") -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


class Daemon:
    """The ``--daemon-mode`` process."""

    def __init__(self, state_dir: str, profile: str | None, slow: float | None) -> None:
        cmd = [sys.executable, __file__, "--daemon-mode", state_dir]
        if profile:
            cmd += ["--profile", profile]
        if slow is not None:
            cmd += ["--slow", str(slow)]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, cwd=ROOT)
        first = self._read()
        self.port, self.token = int(first["port"]), str(first["token"])

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the daemon process ended (exit {self.proc.wait()})")
        value = json.loads(line)
        if not isinstance(value, dict):
            raise RuntimeError(f"the daemon process wrote {line!r}, not a JSON object")
        return value

    def stats(self) -> dict[str, Any]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("stats\n")
        self.proc.stdin.flush()
        return self._read()

    def stop(self) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write("stop\n")
            self.proc.stdin.flush()
            self.proc.wait(30)
        except (BrokenPipeError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


# ---------------------------------------------------------------------- the clients' process

class Clients:
    """N SSE clients in ``procs`` processes of their own (as even a share each as can be):
    ``bench_web.py --client-mode PORT N`` prints ``ready``, then on ``stop`` each journal line's
    arrival times (one per client: the first message of that line it got)."""

    def __init__(self, port: int, n: int, procs: int = 1) -> None:
        self.port, self.n = port, n
        self.shares = [n // procs + (1 if i < n % procs else 0) for i in range(max(1, procs))]
        self.procs: list[subprocess.Popen[str]] = []

    def start(self) -> None:
        for share in self.shares:
            if share:
                self.procs.append(subprocess.Popen(
                    [sys.executable, __file__, "--client-mode", str(self.port), str(share)],
                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
        for proc in self.procs:
            assert proc.stdout is not None
            line = proc.stdout.readline()
            if line.strip() != "ready":
                raise RuntimeError(f"SSE clients did not connect: {line!r}")

    def finish(self) -> dict[int, list[float]]:
        out: dict[int, list[float]] = {}
        for proc in self.procs:
            assert proc.stdin is not None
            proc.stdin.write("stop\n")
            proc.stdin.flush()
        for proc in self.procs:
            text, _ = proc.communicate(timeout=60)
            for k, v in json.loads(text or "{}").items():
                out.setdefault(int(k), []).extend(v)
        return out


class SseReader(asyncio.BufferedProtocol):
    """One SSE client on a raw connection: each line's first ``id:`` dated on arrival. A browser
    parses the stream in native code; this finds the ``id:`` lines with a byte search in a
    buffer of its own, read into (``recv_into``: no new bytes object per read, the stream's
    whole states copied once), so the clients' one process adds little between one socket's
    line and the next (an HTTP client library parsing each stream in Python added milliseconds
    per press at 100 clients; asyncio's plain protocol, a new bytes object of up to 256 KiB per
    read, then joined to the rest: p50 +0.7-1.3 ms at 100 clients)."""

    def __init__(self, port: int, arrivals: dict[int, list[float]],
                 connected: list[int], n: int, ready: asyncio.Event) -> None:
        self.port, self.arrivals, self.connected, self.n = port, arrivals, connected, n
        self.ready = ready
        self.head = True
        self.last = -1
        self.buf = bytearray(1 << 16)
        self.view = memoryview(self.buf)
        self.filled = 0  # bytes of buf not yet taken: the start of a line still coming

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                        "Accept: text/event-stream\r\n\r\n".encode())

    def get_buffer(self, sizehint: int) -> memoryview:
        if len(self.buf) - self.filled < 1 << 15:  # room for a whole state at least
            self.view.release()
            self.buf = self.buf + bytes(len(self.buf))
            self.view = memoryview(self.buf)
        return self.view[self.filled:]

    def buffer_updated(self, nbytes: int) -> None:
        now = time.perf_counter()
        buf = self.buf
        end = self.filled + nbytes
        start = 0
        if self.head:
            head = buf.find(b"\r\n\r\n", 0, end)
            if head < 0:
                self.filled = end
                return
            if not buf.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(f"/events answered {bytes(buf[:40])!r}")
            self.head = False
            start = head + 4
            self.connected.append(1)
            if len(self.connected) == self.n:
                self.ready.set()
        cut = buf.rfind(b"\n", start, end) + 1  # whole lines only; the rest waits
        at = buf.find(b"id: ", start, cut) if cut > start else -1
        while at >= 0:
            if at == start or buf[at - 1] == 10:
                line = int(buf[at + 4:buf.index(b"\n", at, cut)])
                if line != self.last:  # this client's first message of the line
                    self.last = line
                    self.arrivals.setdefault(line, []).append(now)
            at = buf.find(b"id: ", at + 4, cut)
        cut = max(cut, start)
        rest = end - cut
        if rest:
            buf[:rest] = buf[cut:end]  # same length: the buffer's export stays valid
        self.filled = rest


def client_mode(port: int, n: int) -> int:
    arrivals: dict[int, list[float]] = {}

    async def run() -> None:
        ready = asyncio.Event()
        connected: list[int] = []
        loop = asyncio.get_running_loop()
        transports = []
        for _ in range(n):
            transport, _reader = await loop.create_connection(
                lambda: SseReader(port, arrivals, connected, n, ready), "127.0.0.1", port)
            transports.append(transport)
        await asyncio.wait_for(ready.wait(), 30)
        print("ready", flush=True)
        await loop.run_in_executor(None, sys.stdin.readline)
        for t in transports:
            t.close()
        print(json.dumps(arrivals), flush=True)
    asyncio.run(run())
    return 0


# ---------------------------------------------------------------------- the driver

def latency(n_clients: int, presses: int, profile: str | None = None,
            slow: float | None = None, where: str | None = None,
            client_procs: int = 1) -> dict[str, Any]:
    from daemon_proc import Controls  # the driver's side only: the daemon's process never loads it
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        daemon = Daemon(tmp, profile, slow)
        try:
            clients = Clients(daemon.port, n_clients, client_procs)
            if n_clients:
                clients.start()
            controls = Controls(daemon.port, daemon.token, timeout=10)
            daemon.stats()  # start-up and connections not counted
            for i in range(presses):
                controls.post("/api/sim/button", {"name": "clock",
                                                  "side": ("white", "black")[i % 2]})
                time.sleep(0.05)  # beyond the buttons' 20 ms debounce
                # sensor traffic between presses: a piece lifted and put back (the scans
                # measured), slow enough not to look like chattering contacts
                if i % 4 == 3:
                    controls.post("/api/sim/lift", {"square": "h1"})
                    time.sleep(0.12)
                    controls.post("/api/sim/place", {"square": "h1"})
                    time.sleep(0.12)
            time.sleep(0.3)
            stats = daemon.stats()
            arrivals = clients.finish()
        finally:
            daemon.stop()
    samples: list[float] = []
    written = sorted((t1 - t0) * 1000 for _line, t0, t1 in stats["presses"])
    for line, t0, _t1 in stats["presses"]:
        samples.extend((t - t0) * 1000 for t in arrivals.get(line, []))
    samples.sort()
    lags, late = stats["lags"], stats["late"]

    def pct(p: float) -> float:
        return samples[min(len(samples) - 1, int(p * len(samples)))] if samples else float("nan")
    return {"clients": n_clients, "presses": len(stats["presses"]), "n": len(samples),
            "p50": pct(0.5), "p99": pct(0.99), "max": samples[-1] if samples else float("nan"),
            "loop_lag_max": max(lags) * 1000 if lags else float("nan"),
            "loop_lag_p99": statistics.quantiles(lags, n=100)[98] * 1000 if len(lags) > 100
            else float("nan"),
            "scan_late_max": max(late) * 1000 if late else float("nan"), "scans": len(late),
            "rss": stats["rss"], "fsync_max": stats["fsync_max"] * 1000,
            "sent_p99": written[min(len(written) - 1, int(0.99 * len(written)))]
            if written else float("nan"),
            "sent_p50": written[len(written) // 2] if written else float("nan")}


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
            return _rss_kb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(20)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--presses", type=int, default=200)
    p.add_argument("--clients", default="0,1,100",
                   help="SSE client counts (0: the server on, nobody listening: the baseline)")
    p.add_argument("--client-procs", type=int, default=1, metavar="N",
                   help="the SSE clients in N processes (default 1): a browser reads its one "
                   "socket; one process reads all of them in turn")
    p.add_argument("--rss-wait", type=float, default=4.0)
    p.add_argument("--quick", action="store_true", help="tiny sizes (the test's run)")
    p.add_argument("--profile", metavar="FILE", help="cProfile of the daemon's loop thread")
    p.add_argument("--slow", type=float, metavar="MS",
                   help="asyncio debug: log callbacks holding the daemon's loop > MS")
    p.add_argument("--state-in", metavar="DIR",
                   help="make the daemon's state directory here (default: the system's temporary "
                        "folder; /dev/shm: no disk under the journal's fsync)")
    p.add_argument("--client-mode", nargs=2, type=int, metavar=("PORT", "N"),
                   help=argparse.SUPPRESS)
    p.add_argument("--daemon-mode", metavar="STATE", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.client_mode:
        return client_mode(*args.client_mode)
    if args.daemon_mode:
        return daemon_mode(args.daemon_mode, args.profile, args.slow)
    presses = 4 if args.quick else args.presses
    print(f"clock press -> SSE event at a client ({presses} presses; ms); the daemon, the "
          f"clients ({args.client_procs} process(es)) and the driver in processes of their own; "
          f"state in {args.state_in or tempfile.gettempdir()}; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'clients':>8} {'n':>6} {'p50':>7} {'p99':>7} {'max':>7} | {'sent p99':>8} | "
          f"{'loop lag p99':>12} {'max':>7} | {'scan late max':>13} {'scans':>6} | "
          f"{'fsync max':>9} | {'RSS MiB':>7}")
    for n in [int(x) for x in args.clients.split(",") if x]:
        r = latency(n, presses, args.profile, args.slow, args.state_in, args.client_procs)
        print(f"{r['clients']:>8} {r['n']:>6} {r['p50']:>7.2f} {r['p99']:>7.2f} {r['max']:>7.2f} | "
              f"{r['sent_p99']:>8.2f} | {r['loop_lag_p99']:>12.2f} "
              f"{r['loop_lag_max']:>7.2f} | "
              f"{r['scan_late_max']:>13.2f} {r['scans']:>6} | {r['fsync_max']:>9.2f} | "
              f"{r['rss'] / 1024:>7.1f}")
    if not args.quick:
        off = rss("off", args.rss_wait)
        on = rss(f"127.0.0.1:{free_port()}", args.rss_wait)
        print(f"RSS of damiera run --simulate: web off {off / 1024:.1f} MiB, web on "
              f"{on / 1024:.1f} MiB (+{(on - off) / 1024:.1f} MiB)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
