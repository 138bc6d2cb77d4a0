"""The board daemon on a Pi's CPU (issue 36): the real ``damiera run --simulate`` process under a
CPU quota (a cgroup of its own: ``--cpu 10`` ≈ a Pi Zero 2 W, ``--cpu 33`` ≈ a Pi 4, ``--cpu
100``: one whole core). Figures only, never assertions.

Run: ``.venv/bin/python benchmarks/bench_daemon_cpu.py --cpu 100,33,10 [--quick]``
(root, or a delegated cgroup hierarchy: :mod:`cpu_quota`; ``--cpu none`` runs without a quota).

For each quota, daemons in processes of their own, each in the cgroup from its first instruction
(``damiera run --simulate --quiet --http 127.0.0.1:<free>``, the venv's script as the unit runs
it, on the register-level fakes,
the web server on, NOTIFY_SOCKET on our own AF_UNIX datagram socket), driven from this process
(outside the quota) through the simulator's controls (``POST /api/sim/lift|place|button``), one
page open on the public ``GET /events``:

1. **start → READY=1** and **start → pages** (the first ``GET /`` answered 200; asked every
   20 ms from the spawn on), on an empty state directory, ``--starts`` times. The checkout's
   modules are compiled first (``compileall``, as ``pip install`` does for a board): a start
   that compiles them is not what a board does.
2. **latency**, in a game without a clock (a sensor change that commits a move: the opponent's
   first lift) and in a clock game (presses), random legal games played piece by piece at a
   hand's pace (``--gap`` between two physical events): from the change (a sensor's: the
   moment the virtual board changed + the wiring's debounce; a press: the pin's tap) to
   *journaled* (a controller listener), *show()* (the OLED screen handed the new state),
   *page* (the SSE message of that journal line read by the page's client, in this process)
   and *OLED frame drawn* (luma's dummy device: no wire time). Timed in the daemon by a thin
   wrapper (``--daemon-probe``) that records these instants (``time.perf_counter``:
   CLOCK_MONOTONIC, one clock for both processes) and runs ``pi.cli.main`` itself.
3. **idle CPU** (the clock game left running, no events, no page open: CPU seconds of every
   thread from /proc over ``--idle`` s) and **memory** (VmRSS and PSS, smaps_rollup, at its end),
   and the cgroup's throttling over the whole run (periods in which the quota ran out).

The machine's load (``os.getloadavg``) is printed beside every quota's figures: on a shared
machine a quota is a ceiling, not a promise of that share.
"""

from __future__ import annotations

import argparse
import atexit
import compileall
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

now = time.perf_counter

VARIANT = "italian"
TIME_CONTROL = "5400+30"
WIRING = "mcp23017_8x8.toml"  # interrupt-driven (every chip's INT on one GPIO), debounce 30 ms


# ---------------------------------------------------------------------- in the daemon's process

def damiera_command() -> list[str]:
    """The command a board's unit runs: the venv's ``damiera`` script (``ExecStart=``), beside
    this Python; ``python -m pi.cli`` only where no script is installed (``runpy`` and
    ``importlib.util`` are then ~35 ms more of a start at full speed)."""
    script = Path(sys.executable).with_name("damiera")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "pi.cli"]


def probe_main(out: str, argv: list[str]) -> int:
    """``--daemon-probe OUT -- ARGS``: ``pi.cli.main(ARGS)`` with the instants that the benchmark
    reads recorded (the virtual board's changes, the button taps, the journal's lines as the
    controller's listeners get them, the screen's ``show()``, the OLED's frames), written to OUT
    as JSON when the process ends."""
    from unittest.mock import patch

    from hardware_mocks import sim_web
    from hardware_mocks.gpio import tap
    from hardware_mocks.simulate import Simulation
    from hardware_mocks.virtual_board import VirtualBoard
    from pi.cli import main as cli_main
    from pi.daemon import OledScreen
    from pi.drivers.display import BoardDisplay
    from engine.decisions import MoveCommitted

    rec: dict[str, list[Any]] = {"changes": [], "taps": [], "lines": [], "shows": [],
                                 "frames": []}
    lift, place, show, render = (VirtualBoard.lift, VirtualBoard.place, OledScreen.show,
                                 BoardDisplay.render)
    parts = Simulation.parts

    def timed_lift(self: Any, *squares: str, **options: Any) -> None:
        rec["changes"].append([now(), "lift", squares[0]])
        lift(self, *squares, **options)

    def timed_place(self: Any, *squares: str, **options: Any) -> None:  # piece= (analog boards)
        rec["changes"].append([now(), "place", squares[0]])
        place(self, *squares, **options)

    def timed_show(self: Any, state: Any) -> None:
        rec["shows"].append(now())
        show(self, state)

    def timed_render(self: Any, state: Any) -> None:
        begun = now()
        render(self, state)
        rec["frames"].append([begun, now()])

    def timed_tap(*args: Any, **kwargs: Any) -> None:
        rec["taps"].append(now())
        tap(*args, **kwargs)

    def listener(fed: Any) -> None:
        rec["lines"].append([now(), fed.line, fed.record.get("type"), fed.record.get("square"),
                             any(isinstance(d, MoveCommitted) for d in fed.decisions)])

    def with_listener(self: Any, **options: Any) -> Any:
        options.setdefault("listeners", []).append(listener)
        return parts(self, **options)

    # for the rest of the process (it ends with the daemon); the simulator's button route taps
    # through sim_web's name
    for owner, name, timed in ((VirtualBoard, "lift", timed_lift),
                               (VirtualBoard, "place", timed_place),
                               (OledScreen, "show", timed_show),
                               (BoardDisplay, "render", timed_render), (sim_web, "tap", timed_tap),
                               (Simulation, "parts", with_listener)):
        patch.object(owner, name, timed).start()

    def dump() -> None:
        Path(out).write_text(json.dumps(rec))
    atexit.register(dump)
    return cli_main(argv)


# ---------------------------------------------------------------------- this process: the rig

def load() -> str:
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Page:
    """One page's SSE client on the public ``GET /events`` (a thread reading a raw socket): the
    arrival of each journal line's first message, by line (the SSE ``id``)."""

    def __init__(self, port: int) -> None:
        self.arrivals: dict[int, float] = {}
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.sendall(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                          "Accept: text/event-stream\r\n\r\n".encode())
        self.connected = threading.Event()
        self.thread = threading.Thread(target=self._read, name="page", daemon=True)
        self.thread.start()
        if not self.connected.wait(30):
            raise RuntimeError("the page's /events never answered")

    def _read(self) -> None:
        rest = b""
        head = True
        while True:
            try:
                data = self.sock.recv(1 << 16)
            except OSError:
                return
            if not data:
                return
            t = now()
            rest += data
            if head:
                end = rest.find(b"\r\n\r\n")
                if end < 0:
                    continue
                if not rest.startswith(b"HTTP/1.1 200"):
                    raise RuntimeError(f"/events answered {rest[:40]!r}")
                rest = rest[end + 4:]
                head = False
                self.connected.set()
            cut = rest.rfind(b"\n") + 1
            for line in rest[:cut].split(b"\n"):
                if line.startswith(b"id: "):
                    self.arrivals.setdefault(int(line[4:]), t)
            rest = rest[cut:]

    def close(self) -> None:
        self.sock.close()


def pages_answer(port: int, since: float, deadline: float, found: list[float]) -> None:
    """Asks ``GET /`` every 20 ms until it is answered 200; appends the seconds since ``since``."""
    while now() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=max(0.1, deadline - now()))
            conn.request("GET", "/")
            resp = conn.getresponse()
            resp.read()
            conn.close()
            if resp.status == 200:
                found.append(now() - since)
                return
        except OSError:
            pass
        time.sleep(0.02)


@dataclass
class Run:
    """What one quota's runs gave."""

    ready: list[float] = field(default_factory=list)
    pages: list[float] = field(default_factory=list)
    figures: dict[str, list[float]] = field(default_factory=dict)
    idle_cpu: float = float("nan")
    idle_wall: float = 0.0
    rss: float = float("nan")
    pss: float = float("nan")
    hwm: float = float("nan")
    throttled: str = "-"
    #: while the games were played (periods, of which the quota ran out, seconds waited)
    play: list[int | float] = field(default_factory=lambda: [0, 0, 0.0])
    load_before: str = ""
    load_after: str = ""
    events: int = 0


class Bench:
    def __init__(self, work: Path, quota: Any, timeout: float) -> None:
        self.work, self.quota, self.timeout = work, quota, timeout
        from pi.drivers.wiring import example_wiring, load_wiring
        self.wiring_path = str(example_wiring(WIRING))
        self.wiring = load_wiring(self.wiring_path)
        self.count = 0

    def config(self, clock: bool) -> Path:
        path = self.work / f"damiera-{'clock' if clock else 'free'}.toml"
        path.write_text(f'variant = "{VARIANT}"\nclock = {"true" if clock else "false"}\n'
                        + (f'time_control = "{TIME_CONTROL}"\n' if clock else ""))
        return path

    def spawn(self, clock: bool, probe: Path | None) -> tuple[Any, int, Path]:
        from daemon_proc import Daemon
        self.count += 1
        state = self.work / f"state-{self.count}"
        port = free_port()
        args = ["run", "--simulate", "--quiet", "--config", str(self.config(clock)),
                "--state-dir", str(state), "--wiring", self.wiring_path,
                "--http", f"127.0.0.1:{port}"]
        cmd = ([sys.executable, str(Path(__file__).resolve()), "--daemon-probe", str(probe),
                "--", *args] if probe is not None else [*damiera_command(), *args])
        if self.quota is not None:
            cmd = self.quota.wrap(cmd)
        return Daemon(cmd, self.work), port, state

    def start(self, run: Run) -> None:
        """One start on an empty state directory: READY=1 and the first page answered."""
        d, port, _state = self.spawn(True, None)
        found: list[float] = []
        asker = threading.Thread(target=pages_answer,
                                 args=(port, d.started, d.started + self.timeout, found))
        asker.start()
        try:
            run.ready.append(d.wait_ready(self.timeout))
            asker.join()
        finally:
            err = d.stop()
        if not found:
            raise RuntimeError(f"no page answered in {self.timeout:g} s: {err[-300:]}")
        run.pages.append(found[0])

    def game(self, run: Run, clock: bool, plies: int, gap: float, seed: int,
             idle: float) -> None:
        """One daemon (the probe's wrapper), ``plies`` moves of random games, then (``idle``)
        the idle figures."""
        from engine.board import Board
        from engine.colour import Colour
        from engine.events import PieceLifted, PiecePlaced
        from engine.variants import find_variant
        from hardware_mocks.players import physical
        probe_file = self.work / f"probe-{self.count + 1}.json"
        d, port, state = self.spawn(clock, probe_file)
        page: Page | None = None
        arrivals: dict[int, float] = {}
        try:
            d.wait_ready(self.timeout)
            found: list[float] = []
            pages_answer(port, now(), now() + self.timeout, found)
            token = (state / "arbiter.token").read_text().strip()
            from daemon_proc import Controls
            controls = Controls(port, token)
            page = Page(port)
            time.sleep(1.0)  # the first frames, the game's files
            before = self.quota.throttling() if self.quota is not None else None
            rng = random.Random(seed)
            variant = find_variant(VARIANT)
            ref = Board(None, variant)
            for _ in range(plies):
                if not ref.legal_moves:
                    break
                move = rng.choice(ref.legal_moves)
                side = Colour(ref.turn).label
                events, _ = physical(ref, move, rng, 0.0, set(ref.occupied_algebraic()))
                for e in events:
                    assert isinstance(e, (PieceLifted, PiecePlaced))
                    kind = "lift" if isinstance(e, PieceLifted) else "place"
                    controls.post(f"/api/sim/{kind}", {"square": e.square})
                    run.events += 1
                    time.sleep(gap)
                if clock:
                    controls.post("/api/sim/button", {"name": "clock", "side": side})
                    run.events += 1
                    time.sleep(gap)
                ref.push(move)
            time.sleep(max(gap, 0.5))  # the last line's page
            if self.quota is not None and before is not None:
                after = self.quota.throttling()
                run.play[0] += after.periods - before.periods
                run.play[1] += after.throttled - before.throttled
                run.play[2] += after.throttled_s - before.throttled_s
            arrivals = dict(page.arrivals)
            page.close()
            page = None
            controls.conn.close()
            if idle > 0:
                time.sleep(1.0)
                c0, w0 = d.cpu_seconds(), now()
                time.sleep(idle)
                c1, w1 = d.cpu_seconds(), now()
                run.idle_cpu, run.idle_wall = (c1 - c0) / (w1 - w0), w1 - w0
                run.rss, run.hwm = d.memory_mb()
                run.pss = pss_mb(d.proc.pid)
        finally:
            if page is not None:
                page.close()
            err = d.stop()
        if d.proc.returncode != 0 or not probe_file.exists():
            raise RuntimeError(f"daemon exit {d.proc.returncode}: {err[-500:]}")
        rec = json.loads(probe_file.read_text())
        self.figures(run, rec, arrivals, clock)

    def figures(self, run: Run, rec: dict[str, Any], arrivals: dict[int, float],
                clock: bool) -> None:
        debounce = self.wiring.scan.debounce
        lines = rec["lines"]  # [t, line, type, square, commits]
        shows = sorted(rec["shows"])
        frames = sorted(rec["frames"])
        begun = [f[0] for f in frames]

        def after(t0: float, line: list[Any], prefix: str) -> None:
            f = run.figures
            f.setdefault(f"{prefix} → journaled", []).append(line[0] - t0)
            if not line[4]:
                return
            f.setdefault(f"{prefix} → show()", [])
            f.setdefault(f"{prefix} → page (SSE)", [])
            f.setdefault(f"{prefix} → OLED frame drawn", [])
            i = bisect_left(shows, t0)
            if i < len(shows):
                f[f"{prefix} → show()"].append(shows[i] - t0)
                j = bisect_left(begun, shows[i])
                if j < len(frames):
                    f[f"{prefix} → OLED frame drawn"].append(frames[j][1] - t0)
            if line[1] in arrivals:
                f[f"{prefix} → page (SSE)"].append(arrivals[line[1]] - t0)

        k = 0
        if not clock:
            for t, kind, square in rec["changes"]:
                while k < len(lines) and not (lines[k][2] == kind and lines[k][3] == square
                                              and lines[k][0] >= t):
                    k += 1
                if k == len(lines):
                    raise RuntimeError(f"{kind} {square} never journaled")
                after(t + debounce, lines[k], "sensor stable")
                k += 1
        else:
            for t in rec["taps"]:
                while k < len(lines) and not (lines[k][2] == "button" and lines[k][0] >= t):
                    k += 1
                if k == len(lines):
                    raise RuntimeError("a press never journaled")
                after(t, lines[k], "clock press")
                k += 1


def bench_quota(work: Path, percent: float | None, args: argparse.Namespace) -> Run:
    from cpu_quota import CpuQuota
    run = Run(load_before=load())
    quota = CpuQuota.create(percent) if percent is not None else None
    try:
        bench = Bench(work, quota, args.timeout)
        before = quota.throttling() if quota is not None else None
        for _ in range(args.starts):
            bench.start(run)
        bench.game(run, False, args.moves, args.gap, args.seed, 0.0)
        bench.game(run, True, args.moves, args.gap, args.seed + 1, args.idle)
        if quota is not None and before is not None:
            after = quota.throttling()
            periods = after.periods - before.periods
            run.throttled = (f"{after.throttled - before.throttled} of {periods} periods, "
                             f"{after.throttled_s - before.throttled_s:.1f} s waited")
    finally:
        if quota is not None:
            quota.remove()
    run.load_after = load()
    return run


def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * q))]


def cell(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values) * 1000:.2f} / {pct(values, 0.99) * 1000:.2f} ms"


def secs(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.2f} s (max {max(values):.2f})"


TARGETS = {"start → READY=1": "≤ 3 s at 10 %", "sensor stable → page (SSE)": "p99 ≤ 5 ms",
           "sensor stable → show()": "p99 ≤ 5 ms", "clock press → show()": "p99 ≤ 5 ms",
           "sensor stable → OLED frame drawn": "p99 ≤ 25 ms at 10 %",
           "idle CPU": "≤ 1 %", "memory": "≤ 60 MB"}


def table(runs: list[tuple[str, Run]]) -> str:
    names = [n for n, _ in runs]
    out = ["| figure (p50 / p99) | " + " | ".join(names) + " | goal |",
           "|---|" + "---|" * (len(names) + 1)]

    def row(name: str, values: list[str]) -> None:
        out.append(f"| {name} | " + " | ".join(values) + f" | {TARGETS.get(name, '')} |")
    row("start → READY=1", [secs(r.ready) for _, r in runs])
    row("start → pages answer (GET / 200)", [secs(r.pages) for _, r in runs])
    keys: list[str] = []
    for _, r in runs:
        keys += [k for k in r.figures if k not in keys]
    for k in sorted(keys, key=lambda k: (not k.startswith("sensor"), k)):
        row(k, [cell(r.figures.get(k, [])) + f" ({len(r.figures.get(k, []))})" for _, r in runs])
    row("idle CPU", [f"{r.idle_cpu * 100:.2f} % over {r.idle_wall:.0f} s" for _, r in runs])
    row("memory", [f"RSS {r.rss:.1f} MB, PSS {r.pss:.1f} MB (peak RSS {r.hwm:.1f})"
                   for _, r in runs])
    row("quota ran out (the whole run)", [r.throttled for _, r in runs])
    row("quota ran out while the games were played",
        [f"{r.play[1]} of {r.play[0]} periods, {r.play[2]:.2f} s waited" for _, r in runs])
    row("load (1/5/15 min) before → after", [f"{r.load_before} → {r.load_after}"
                                              for _, r in runs])
    return "\n".join(out)


def parse_cpu(text: str) -> list[float | None]:
    out: list[float | None] = []
    for part in text.split(","):
        part = part.strip().lower()
        if part in ("none", "off"):
            out.append(None)
            continue
        try:
            out.append(float(part))
        except ValueError:
            raise SystemExit(f"--cpu: a share of one core in percent (10, 33, 100) or none, "
                             f"got {part!r}") from None
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--daemon-probe"]:
        if len(argv) < 3 or argv[2] != "--":
            raise SystemExit("--daemon-probe OUT -- ARGS")
        return probe_main(argv[1], argv[3:])
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--cpu", default="100,33,10", help="the quotas, percent of one core, comma "
                   "separated ('none': no cgroup; default 100,33,10)")
    p.add_argument("--quick", action="store_true", help="short: 10 moves per game, 1 start, "
                   "10 s idle")
    p.add_argument("--moves", type=int, default=None, help="moves per game (default 40)")
    p.add_argument("--starts", type=int, default=None, help="starts per quota (default 3)")
    p.add_argument("--idle", type=float, default=None, help="idle seconds (default 30)")
    p.add_argument("--gap", type=float, default=0.25, help="seconds between two physical "
                   "events (a hand's pace; default 0.25)")
    p.add_argument("--timeout", type=float, default=60.0, help="longest wait for a start")
    p.add_argument("--state-in", default=None, metavar="DIR", help="where the state directories "
                   "are made (default: the system's temporary folder; /dev/shm takes the disk's "
                   "fsync out of journaled and page)")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    args.moves = args.moves if args.moves is not None else (10 if args.quick else 40)
    args.starts = args.starts if args.starts is not None else (1 if args.quick else 3)
    args.idle = args.idle if args.idle is not None else (10.0 if args.quick else 30.0)
    quotas = parse_cpu(args.cpu)
    from cpu_quota import QuotaError
    # the checkout compiled as pip compiles an installed board's modules
    for package in ("engine", "pi", "hardware_mocks"):
        compileall.compile_dir(str(ROOT / package), quiet=1)
    print(f"damiera daemon under a CPU quota: {VARIANT}, wiring {WIRING}, Python "
          f"{sys.version.split()[0]}, {os.cpu_count()} cores, uptime: "
          f"{subprocess.run(['uptime'], capture_output=True, text=True).stdout.strip()}")
    runs: list[tuple[str, Run]] = []
    with tempfile.TemporaryDirectory(prefix="bench-daemon-cpu-", dir=args.state_in) as tmp:
        for i, percent in enumerate(quotas):
            work = Path(tmp) / f"q{i}"
            work.mkdir()
            name = "no quota" if percent is None else f"--cpu {percent:g}"
            try:
                runs.append((name, bench_quota(work, percent, args)))
            except (QuotaError, ValueError) as exc:
                print(f"bench_daemon_cpu: {exc}", file=sys.stderr)
                return 2
            print(f"{name}: done (load {runs[-1][1].load_after})", flush=True)
    print()
    print(table(runs))
    print()
    print(f"{args.moves} moves per game, {args.gap:g} s between physical events, "
          f"{args.starts} starts per quota; page: one SSE client on /events; state in "
          f"{args.state_in or tempfile.gettempdir()} (journaled and page wait for its fsync)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
