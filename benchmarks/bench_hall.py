"""The hall under load (issue 11): figures only, never assertions.

Run: ``.venv/bin/python benchmarks/bench_hall.py --boards 200 [--pace 1|10] [--seconds 60]``
     (without ``--pace``: at tournament pace, then 10x)
     ``.venv/bin/python benchmarks/bench_hall.py --sweep auto|200,400,800 [--pace 10]``

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
- **host**: the host's speed before the run and after it, the same fixed work every time
  (``hall_bench_rig.host_reference``: µs of CPU per journal line for the engine's replay of
  fixed games). This VM's host sometimes runs a quarter slower without stealing anything
  visible; every process's CPU per line then rises with this figure.
- ``--sweep 200,400,800``: one run per number of boards, a table, and the first count where
  p99 > 1 s; ``--sweep auto`` doubles from 100 boards until p99 passes 1 s, then tries halfway
  back once.

``--cpu 33``: the hub's process (only it) under a CPU quota of 33 % of one core, a cgroup of its
own made for the run and removed after it (``benchmarks/cpu_quota.py``, shared with
``bench_daemon_cpu.py``; cgroup v2 or v1, needs root): about a Raspberry Pi 4's speed against
this machine's, for a club that runs its hub on a Pi (issue 36). The cgroup's throttling over
the window is printed, and the machine's ``uptime``.

``--restart``: the hub killed (SIGKILL) mid-play and started again on its state: when it
answers, when it has read its live games back, and when the hall page (resuming with the first
hub's event id, as a browser does) shows every board where it was at the restart; lines lost.

``--hall-init``: over a hall made by ``damiera hub init --boards N`` instead of an anonymous
broker — what a hall runs: its own ``mosquitto.conf`` (TLS, a user per board and the
hub's, 100 messages in flight, ``set_tcp_nodelay``; the listener moved to a free loopback
port), each board logged in with its ``board-<N>.toml`` and signing its lines, the hub with
``hub.toml``, verifying every line. Without it the boards are anonymous, unsigned
(taken by name: ``--accept-unsigned``) and the broker runs Mosquitto's defaults (20 in flight).

Without ``damiera hub`` installed, ``--stand-in`` measures to a plain subscriber instead (the
broker's share of the path only): those figures are not the hub's.
The machine's cores are shared with whatever else runs: the boards' processes too. In a hall the
boards are other machines; here ``--boards-nice 10`` serves the hub and the broker first when
both want a core, and ``--boards-idle`` (Linux's ``SCHED_IDLE``) gives the boards only the
cycles nothing else wants: a hub's process that wakes takes the core at once instead of waiting
for a board's time slice. Either way a line's latency counts from the board's ``publish`` call,
so a board held back between that call and its socket adds to the figures, and the lines/s
shows whether the boards kept pace.
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
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "hall"), str(Path(__file__).resolve().parent)]

from broker import Broker
from cpu_quota import CpuQuota, QuotaError
from hall_bench_rig import (ProcStats, SseClient, StandInHub, compare_replicas, free_port,
                            host_line, host_reference, latencies, percentile, read_times,
                            replica_lines)

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


class Hall:
    """The benchmark's broker and how the hub and the boards reach it (module docstring): an
    anonymous private Mosquitto, or with ``made`` a hall written by ``damiera hub init`` in
    ``root/hall`` and its own configuration run."""

    def __init__(self, root: Path, boards: int, made: bool = False) -> None:
        self.made = made
        self.dir = root / "hall"
        if not made:
            self.broker = Broker(root)
            self.boards = boards
            return
        port = free_port()
        init = subprocess.run(
            [sys.executable, "-m", "pi.cli", "hub", "init", "--boards", str(boards), "--dir",
             str(self.dir), "--host", "127.0.0.1", "--port", str(port)],
            cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if init.returncode != 0:
            raise RuntimeError(f"damiera hub init failed: {init.stderr.strip()}")
        self.broker = Broker(root, conf=self.dir / "mosquitto.conf", port=port)
        self.boards = boards

    def start(self) -> Hall:
        self.broker.start()
        return self

    def hub_args(self) -> list[str]:
        """How ``damiera hub`` reaches the broker and takes the boards' lines."""
        if self.made:
            return ["--config", str(self.dir / "hub.toml")]
        # the light boards do not sign their lines: taken unsigned, by name (PROTOCOL.md)
        return ["--mqtt", self.broker.url,
                *(a for n in range(1, self.boards + 1) for a in ("--accept-unsigned", str(n)))]

    def fleet_args(self) -> list[str]:
        if self.made:
            return ["--hall-dir", str(self.dir)]
        return ["--mqtt", self.broker.url, "--hall", HALL]

    def name(self) -> str:
        return ("a hall made by damiera hub init: TLS, users, every line signed"
                if self.made else "an anonymous broker, unsigned boards")


def new_hall(prefix: str, boards: int, made: bool) -> tuple[Path, Path, Hall]:
    """A run's temporary folder (``prefix``), the hub's state directory in it, and its hall with
    the broker started."""
    root = Path(tempfile.mkdtemp(prefix=prefix))
    # reachable by every user (mkdtemp's is 0700): a hall `hub init` made as root has its
    # broker run as mosquitto, who reads the hall's files in it
    os.chmod(root, 0o755)
    hub_dir = root / "hub"
    hub_dir.mkdir()
    return root, hub_dir, Hall(root, boards, made).start()


def start_fleets(hall: Hall, boards: int, pace: float, root: Path, seed: int, stagger: float,
                 per_process: int, start_at: float | None = None, nice: int = 0,
                 idle: bool = False) -> list[tuple[subprocess.Popen[str], Path]]:
    """The simulated boards' processes; ``start_at``: the wall time their first games begin
    from (every process the same second), else each process's start; ``nice``: their
    niceness (``nice -n``); ``idle``: scheduled ``SCHED_IDLE`` (``chrt --idle``, module
    docstring)."""
    out = []
    for first in range(1, boards + 1, per_process):
        last = min(boards, first + per_process - 1)
        times = root / f"times-{first}.tsv"
        # ``chrt`` first: ``nice`` then sets the niceness under the policy (the policy set by
        # pid after the start raced ``nice`` and could put the niceness back to 0)
        cmd = [*(["chrt", "--idle", "0"] if idle else []),
               "nice", "-n", str(nice), sys.executable, "-m", "hardware_mocks.hall_fleet",
               *hall.fleet_args(),
               "--boards", f"{first}-{last}", "--dir", str(root / "boards"),
               "--pace", str(pace), "--seed", str(seed), "--times", str(times),
               "--stagger", str(stagger)]
        if start_at is not None:
            cmd += ["--start-at", f"{start_at:.3f}"]
        out.append((subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, text=True), times))
    return out


def stop_fleets(fleets: list[tuple[subprocess.Popen[str], Path]]) -> list[str]:
    """SIGTERM to every boards' process, each waited for; what each printed (its figures as
    JSON). RuntimeError when one failed (its error went to the terminal)."""
    for proc, _ in fleets:
        proc.send_signal(signal.SIGTERM)
    out = [proc.communicate(timeout=60)[0] or "" for proc, _ in fleets]
    if any(proc.returncode != 0 for proc, _ in fleets):
        raise RuntimeError("a process of simulated boards failed (its error is above)")
    return out


def kill_fleets(fleets: list[tuple[subprocess.Popen[str], Path]]) -> None:
    """The boards' processes still running killed (a run that failed half-way)."""
    for proc, _ in fleets:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def caught_up(root: Path, hub_dir: Path, timeout: float = 30.0) -> tuple[int, int, int]:
    """Once the boards stopped: the hub's replicas compared with the boards' journals until none
    misses a line, or ``timeout`` seconds (``compare_replicas``: lines, lost, games not equal)."""
    deadline = time.time() + timeout
    while True:
        total, lost, bad = compare_replicas(root / "boards", hub_dir)
        if lost == 0 or time.time() > deadline:
            return total, lost, bad
        time.sleep(0.5)


def stop_hub(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM (the hub closes its replicas), SIGKILL after 10 s."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


#: ``damiera`` under cProfile timed by the thread's own CPU clock (a loaded machine's waits are
#: not charged to whatever ran before them), its statistics written to ``argv[1]`` at the end.
_PROFILED = """import cProfile, sys, time
from pi.cli import main
prof = cProfile.Profile(time.thread_time)
prof.enable()
try:
    main(sys.argv[2:])
finally:
    prof.disable()
    prof.dump_stats(sys.argv[1])
"""


def hub_command(profile: Path | None, quota: CpuQuota | None = None) -> list[str]:
    """The hub's command line up to its ``hub`` subcommand; ``profile``: run under cProfile,
    its statistics written there when the hub stops (its event loop's thread only, in CPU
    seconds of that thread); ``quota``: the hub's process in that cgroup from its start (the
    hub only: not the broker, the boards or the page)."""
    cmd = ([sys.executable, "-m", "pi.cli", "hub"] if profile is None
           else [sys.executable, "-c", _PROFILED, str(profile), "hub"])
    return quota.wrap(cmd) if quota is not None else cmd


def run(boards: int, pace: float, seconds: float, warmup: float, stand_in: bool,
        seed: int = 1, keep: Path | None = None, per_process: int = 250,
        profile: Path | None = None, nice: int = 0, idle: bool = False,
        made: bool = False, quota: CpuQuota | None = None) -> dict[str, Any]:
    host_before = host_reference()
    root, hub_dir, hall = new_hall("bench-hall-", boards, made)
    broker = hall.broker
    hub: subprocess.Popen[bytes] | None = None
    stand: StandInHub | None = None
    sse: SseClient | None = None
    fleets: list[tuple[subprocess.Popen[str], Path]] = []
    try:
        if stand_in:
            stand = StandInHub(broker.port, HALL, hub_dir)
            stats = ProcStats(stand.pid)
        else:
            port = free_port()
            hub = subprocess.Popen([*hub_command(profile, quota), *hall.hub_args(),
                                    "--http", f"127.0.0.1:{port}", "--state-dir", str(hub_dir),
                                    "--quiet"], cwd=ROOT, stdin=subprocess.DEVNULL,
                                   stderr=open(root / "hub.log", "wb"))
            stats = ProcStats(hub.pid)
            wait_http(port)
            sse = SseClient(port)
            sse.start()
        # the first moves come after the players' first think: a few game seconds
        started = time.time()
        fleets = start_fleets(hall, boards, pace, root, seed, stagger=30.0,
                              per_process=per_process, nice=nice, idle=idle)
        time.sleep(warmup)
        since = time.time()
        cpu0, loop0, taken0 = stats.cpu(), stats.loop_cpu(), replica_lines(hub_dir)
        assert broker.proc is not None
        broker_stats = ProcStats(broker.proc.pid)
        broker0 = broker_stats.cpu()
        throttled0 = quota.throttling() if quota is not None else None
        time.sleep(seconds)
        throttled = ""
        if quota is not None and throttled0 is not None:
            t1 = quota.throttling()
            throttled = (f"the quota ran out in {t1.throttled - throttled0.throttled} of "
                         f"{t1.periods - throttled0.periods} periods of the window, "
                         f"{t1.throttled_s - throttled0.throttled_s:.1f} s waited")
        broker_cpu = (broker_stats.cpu() - broker0) / seconds * 100
        cpu = (stats.cpu() - cpu0) / seconds * 100
        loop_cpu = (stats.loop_cpu() - loop0) / seconds * 100
        # the lines the hub took in the window (behind the boards, it takes fewer than they
        # publish: its CPU per line is per line taken)
        taken = (replica_lines(hub_dir) - taken0) / seconds
        load = os.getloadavg()[0]
        rss, peak = stats.memory()
        fleet_out = [json.loads(out or "{}") for out in stop_fleets(fleets)]
        total, lost, bad = caught_up(root, hub_dir)
        host_after = host_reference()
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
                "cpu": cpu, "loop_cpu": loop_cpu, "taken": taken,
                "broker_cpu": broker_cpu,
                "load": load, "rss": rss, "peak": peak,
                "lines": total, "lost": lost,
                "games_bad": bad, "games": sum(f.get("games", 0) for f in fleet_out),
                "fleet_cpu": sum(f.get("cpu", 0.0) for f in fleet_out)
                / (time.time() - started) * 100,
                "fleet_rss": max((f.get("rss_mb", 0.0) for f in fleet_out), default=0.0),
                "fleets": len(fleets), "nice": nice, "idle": idle,
                "host": [host_before, host_after], "hall": hall.name(),
                "sse_error": sse.error if sse is not None else None,
                "reconnects": sse.reconnects if sse is not None else 0,
                "quota": quota.describe() if quota is not None else None,
                "throttled": throttled,
                "uptime": subprocess.run(["uptime"], capture_output=True,
                                         text=True).stdout.strip(),
                "hub": "stand-in subscriber" if stand_in else "damiera hub"}
    finally:
        kill_fleets(fleets)
        if sse is not None:
            sse.stop()
        if stand is not None:
            stand.stop()
        if hub is not None:
            stop_hub(hub)
        broker.stop()
        if keep is not None:
            shutil.copytree(root, keep, dirs_exist_ok=True)
        shutil.rmtree(root, ignore_errors=True)


def round_start(boards: int, pace: float, seconds: float, lead: float, per_process: int,
                seed: int = 1, nice: int = 0, idle: bool = False, made: bool = False
                ) -> dict[str, Any]:
    """A synchronised round start: the hub up and one hall page on its stream, then every
    board's first game begun at the same second (its start line and its set-up, the power-up
    snapshot, published at once), played on for ``seconds``. ``lead``: seconds given to the
    boards' processes to start and connect before that second. Measured: per board, from the
    round's second to the hall page's first ``board`` event of its new game; the lines per
    second of the first seconds; lines lost (every replica against its journal)."""
    root, hub_dir, hall = new_hall("bench-hall-round-", boards, made)
    broker = hall.broker
    hub: subprocess.Popen[bytes] | None = None
    sse: SseClient | None = None
    fleets: list[tuple[subprocess.Popen[str], Path]] = []
    host_before = host_reference()
    try:
        port = free_port()
        hub = subprocess.Popen([*hub_command(None), *hall.hub_args(), "--http",
                                f"127.0.0.1:{port}", "--state-dir", str(hub_dir), "--quiet"],
                               cwd=ROOT, stdin=subprocess.DEVNULL,
                               stderr=open(root / "hub.log", "wb"))
        stats = ProcStats(hub.pid)
        wait_http(port)
        sse = SseClient(port)
        sse.start()
        start_at = time.time() + lead
        fleets = start_fleets(hall, boards, pace, root, seed, stagger=0.0,
                              per_process=per_process, start_at=start_at, nice=nice,
                              idle=idle)
        cpu0 = stats.cpu()
        time.sleep(max(0.0, start_at - time.time()) + seconds)
        cpu = stats.cpu() - cpu0
        load = os.getloadavg()[0]
        rss, peak = stats.memory()
        stop_fleets(fleets)
        total, lost, bad = caught_up(root, hub_dir)
        host_after = host_reference()
        times = read_times([t for _, t in fleets])
        first: dict[str, tuple[float, str]] = {}  # board -> (its line 1's publish, game)
        for (board, game), lines in times.items():
            if 1 in lines and (board not in first or lines[1] < first[board][0]):
                first[board] = (lines[1], game)
        shown: dict[str, float] = {}
        for wall, board, seen_game, _ in sse.seen:
            if board not in shown and board in first and first[board][1] == seen_game:
                shown[board] = wall - start_at
        published = [w - start_at for w, _ in first.values()]
        # boards the page had before the second (connected, no game): all of them, or the
        # lead was too short for the boards to connect
        ready = len({board for wall, board, _, _ in sse.seen if wall < start_at})
        burst = sum(1 for v in times.values() for w in v.values()
                    if start_at <= w < start_at + 5.0) / 5.0
        waits = sorted(shown.values())
        return {"boards": boards, "pace": pace, "seconds": seconds, "load": load,
                "shown": len(shown), "never": boards - len(shown), "ready": ready,
                "first": min(waits) if waits else math.nan,
                "p50": percentile(waits, 50), "p99": percentile(waits, 99),
                "max": max(waits) if waits else math.nan,
                "published_max": max(published) if published else math.nan,
                "burst": burst, "cpu": cpu / seconds * 100, "rss": rss, "peak": peak,
                "lines": total, "lost": lost, "games_bad": bad,
                "reconnects": sse.reconnects, "sse_error": sse.error,
                "fleets": len(fleets), "nice": nice, "idle": idle,
                "host": [host_before, host_after], "hall": hall.name()}
    finally:
        kill_fleets(fleets)
        if sse is not None:
            sse.stop()
        if hub is not None:
            stop_hub(hub)
        broker.stop()
        shutil.rmtree(root, ignore_errors=True)


def hall_answer(port: int) -> dict[str, Any] | None:
    """``GET /api/hall`` now; None when the hub does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/hall", timeout=30) as r:
            got: dict[str, Any] = json.loads(r.read())
            return got
    except OSError:
        return None


def restart(boards: int, pace: float, seconds: float, warmup: float, down: float,
            per_process: int, seed: int = 1, nice: int = 0, idle: bool = False,
            made: bool = False) -> dict[str, Any]:
    """The hub killed (SIGKILL) after ``warmup`` seconds of play and started again ``down``
    seconds later on the same state directory and address, the boards playing on throughout;
    then ``seconds`` more of play. Measured from the restart: the hub's first ``/api/hall``
    answer and the end of its read-back (``reading_back`` null, asked every 0.1 s); a hall
    page that followed the first hub and resumes with its ``Last-Event-ID`` (as a browser's
    EventSource does): when each board reached, on it, the line its game was at when the hub
    came back; after that, publish -> hall page as in a steady run; lines lost."""
    root, hub_dir, hall = new_hall("bench-hall-restart-", boards, made)
    broker = hall.broker
    hub: subprocess.Popen[bytes] | None = None
    pages: list[SseClient] = []
    fleets: list[tuple[subprocess.Popen[str], Path]] = []
    host_before = host_reference()
    port = free_port()

    def start_hub() -> subprocess.Popen[bytes]:
        return subprocess.Popen([*hub_command(None), *hall.hub_args(), "--http",
                                 f"127.0.0.1:{port}", "--state-dir", str(hub_dir), "--quiet"],
                                cwd=ROOT, stdin=subprocess.DEVNULL,
                                stderr=open(root / "hub.log", "ab"))
    try:
        hub = start_hub()
        wait_http(port)
        pages.append(SseClient(port))
        pages[0].start()
        fleets = start_fleets(hall, boards, pace, root, seed, stagger=30.0,
                              per_process=per_process, nice=nice, idle=idle)
        time.sleep(warmup)
        hub.kill()
        hub.wait()
        held = replica_lines(hub_dir)
        time.sleep(down)
        restarted = time.time()
        hub = start_hub()
        answered = finished = math.nan
        reading: dict[str, Any] | None = None
        while time.time() - restarted < 300:
            got = hall_answer(port)
            if got is not None:
                if math.isnan(answered):
                    answered = time.time() - restarted
                    reading = got.get("reading_back")
                    page = SseClient(port)  # the page back, with the first hub's last id
                    page.last_id = pages[0].last_id
                    page.start()
                    pages.append(page)
                if got.get("reading_back") is None:
                    finished = time.time() - restarted
                    break
            time.sleep(0.1)
        time.sleep(seconds)
        load = os.getloadavg()[0]
        stop_fleets(fleets)
        total, lost, bad = caught_up(root, hub_dir)
        host_after = host_reference()
        times = read_times([t for _, t in fleets])
        # per board: its game and line at the restart (the newest line published before it)
        at: dict[str, tuple[float, str, int]] = {}
        for (board, game), lines in times.items():
            for line, wall in lines.items():
                if wall <= restarted and (board not in at or wall > at[board][0]):
                    at[board] = (wall, game, line)
        back: dict[str, float] = {}
        seen = pages[-1].seen if len(pages) > 1 else []
        for wall, board, shown_game, shown_lines in seen:
            want = at.get(board)
            if board not in back and want is not None and shown_game == want[1] \
                    and shown_lines >= want[2]:
                back[board] = wall - restarted
        waits = sorted(back.values())
        since = restarted + (max(waits) if waits else 0.0) + 1.0
        lat, unseen = latencies(times, seen, since=since)
        return {"boards": boards, "pace": pace, "warmup": warmup, "down": down,
                "seconds": seconds, "load": load, "held": held, "answered": answered,
                "reading": reading, "finished": finished, "playing": len(at),
                "back": len(back), "back_p50": percentile(waits, 50),
                "back_max": max(waits) if waits else math.nan,
                "p99": percentile(lat, 99) * 1000, "measured": len(lat), "unseen": unseen,
                "after": time.time() - since, "lines": total, "lost": lost, "games_bad": bad,
                "reconnects": pages[-1].reconnects if len(pages) > 1 else 0,
                "sse_error": pages[-1].error if len(pages) > 1 else "no hall page",
                "fleets": len(fleets), "nice": nice, "idle": idle,
                "host": [host_before, host_after], "hall": hall.name()}
    finally:
        kill_fleets(fleets)
        for page in pages:
            page.stop()
        if hub is not None:
            stop_hub(hub)
        broker.stop()
        shutil.rmtree(root, ignore_errors=True)


def show_restart(r: dict[str, Any]) -> None:
    print(f"hub restart: {r['boards']} boards at {r['pace']:g}x pace, the hub killed (SIGKILL) "
          f"after {r['warmup']:g} s of play and started again {r['down']:g} s later; machine's "
          f"load average {r['load']:.1f} on {os.cpu_count()} cores")
    print(f"  hall: {r['hall']}")
    reading = r["reading"]
    print(f"  at the kill: {r['held']} journal lines in the replicas; the restarted hub "
          f"answered /api/hall after {r['answered']:.2f} s"
          + (f" ({reading['boards']} of {reading['of']} boards read back then)"
             if isinstance(reading, dict) else " (every board read back then)")
          + f", every live game read back after {r['finished']:.2f} s")
    print(f"  the hall page, resuming with the first hub's last event id: {r['back']} of "
          f"{r['playing']} boards at their line of the restart, p50 {r['back_p50']:.2f} s, "
          f"the last {r['back_max']:.2f} s after it")
    print(f"  then publish -> hall page: p99 {r['p99']:.1f} ms over {r['measured']} lines "
          f"({r['after']:.0f} s; {r['unseen']} never shown)")
    show_boards_host_lost(r)


def show_boards_host_lost(r: dict[str, Any]) -> None:
    """The last lines of a round start's and a restart's figures: the boards, the host, the
    lines lost, the hall page's reconnections."""
    print(f"  boards: {boards_where(r)}")
    print(host_line(*r["host"]))
    print(f"  lines lost: {r['lost']} of {r['lines']} ({r['games_bad']} replicas not "
          "byte-equal; target 0)")
    if r["reconnects"] or r["sse_error"]:
        print(f"  hall page: reconnected {r['reconnects']} time(s)"
              + (f"; last error: {r['sse_error']}" if r["sse_error"] else ""))


def boards_where(r: dict[str, Any]) -> str:
    """The boards' processes and how they were scheduled (``--boards-idle``, ``--boards-nice``)."""
    return (f"{r['fleets']} process(es)" + (" under SCHED_IDLE" if r.get("idle") else "")
            + (f" at nice {r['nice']}" if r.get("nice") else ""))


def show_round_start(r: dict[str, Any]) -> None:
    print(f"round start: {r['boards']} boards begin at the same second at {r['pace']:g}x pace, "
          f"{r['seconds']:g} s played; machine's load average {r['load']:.1f} on "
          f"{os.cpu_count()} cores")
    print(f"  hall: {r['hall']}")
    print(f"  before the second: {r['ready']} of {r['boards']} boards connected and on the "
          "hall page")
    print(f"  every start line published within {r['published_max']:.2f} s of the second; "
          f"{r['burst']:.0f} journal lines/s over the first 5 s")
    print(f"  on the hall page: {r['shown']} of {r['boards']} boards, the first "
          f"{r['first']:.2f} s, p50 {r['p50']:.2f} s, "
          f"p99 {r['p99']:.2f} s, the last {r['max']:.2f} s after the second "
          f"({r['never']} never; target: all within 5 s)")
    print(f"  hub: CPU {r['cpu']:.0f}% of a core, RSS {r['rss']:.0f} MB (peak {r['peak']:.0f} MB)")
    show_boards_host_lost(r)


def show(r: dict[str, Any]) -> None:
    print(f"{r['boards']} boards at {r['pace']:g}x pace, {r['seconds']:g} s measured "
          f"({r['hub']}): {r['rate']:.0f} journal lines/s, {r['games']} games; machine's load "
          f"average {r['load']:.1f} on {os.cpu_count()} cores")
    print(f"  hall: {r['hall']}")
    if r.get("quota"):
        print(f"  the hub's CPU quota: {r['quota']}; {r['throttled']}")
    if r.get("uptime"):
        print(f"  uptime at the window's end: {r['uptime']}")
    print(f"  publish -> hall page: p50 {r['p50']:.1f} ms, p90 {r['p90']:.1f} ms, "
          f"p99 {r['p99']:.1f} ms, "
          f"max {r['max']:.1f} ms over {r['measured']} lines ({r['unseen']} never shown)")
    print(f"  hub: CPU {r['cpu']:.0f}% of a core, RSS {r['rss']:.0f} MB (peak {r['peak']:.0f} MB)")
    per_line = r["cpu"] / 100 / r["taken"] * 1000 if r["taken"] else math.nan
    loop_line = r["loop_cpu"] / 100 / r["taken"] * 1000 if r["taken"] else math.nan
    print(f"  hub CPU per journal line: {per_line:.3f} ms (target <= 0.3 ms), of which its "
          f"event loop's thread {loop_line:.3f} ms (the rest: the executor's, the replicas' "
          f"fsyncs); per line taken into its replicas ({r['taken']:.0f} lines/s in the "
          "window)")
    print(f"  boards: {boards_where(r)}, CPU {r['fleet_cpu']:.0f}% of a core in all, "
          f"RSS {r['fleet_rss']:.0f} MB the largest; the broker: CPU {r['broker_cpu']:.0f}% of "
          "a core")
    print(f"  lines lost: {r['lost']} of {r['lines']} ({r['games_bad']} replicas not byte-equal)")
    print(host_line(*r["host"]))
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
    p.add_argument("--boards-nice", type=int, default=0, metavar="N",
                   help="run the boards' processes at niceness N (default 0): in a hall the "
                   "boards are other machines, here they share the cores with the hub and the "
                   "broker; at N > 0 those two are served first and starved boards publish "
                   "late, which the lines/s shows (latency counts from each line's actual "
                   "publish)")
    p.add_argument("--boards-idle", action="store_true",
                   help="schedule the boards' processes SCHED_IDLE (Linux): they run only on "
                   "cycles the hub, the broker and the page leave, as if they were other "
                   "machines (default off; the lines/s shows whether they kept pace)")
    p.add_argument("--hall-init", action="store_true",
                   help="over a hall made by 'damiera hub init' (TLS, a broker user per board "
                   "and hub process, the hall's broker configuration, every line signed and "
                   "verified) instead of an anonymous broker and unsigned boards (default off)")
    p.add_argument("--keep", default=None, help="copy the run's files here")
    p.add_argument("--json", action="store_true", help="also print each run as JSON")
    p.add_argument("--profile-hub", default=None, metavar="FILE",
                   help="run the hub under cProfile, its statistics written to FILE (default: "
                   "none; read them with python -m pstats FILE)")
    p.add_argument("--round-start", action="store_true",
                   help="a synchronised round start instead: every board's start line and "
                   "set-up at the same second, then --seconds of play (pace: --pace, default "
                   "1; default off)")
    p.add_argument("--lead", type=float, default=15.0,
                   help="--round-start: seconds for the boards' processes to connect before "
                   "the round's second (default 15)")
    p.add_argument("--restart", action="store_true",
                   help="the hub killed (SIGKILL) after --warmup seconds of play and started "
                   "again --down seconds later, then --seconds more of play: how soon the "
                   "restarted hub answers, reads its games back and has the hall page caught "
                   "up (pace: --pace, default 10; default off)")
    p.add_argument("--down", type=float, default=5.0,
                   help="--restart: seconds the hub stays down (default 5)")
    p.add_argument("--cpu", type=float, default=None, metavar="PERCENT",
                   help="the hub's process under a CPU quota of PERCENT %% of one core (a "
                   "cgroup of its own, v2 or v1, made for the run and removed after it: "
                   "benchmarks/cpu_quota.py; needs root). 33 ≈ a Raspberry Pi 4 (default: none)")
    args = p.parse_args()
    if args.cpu is not None and (args.restart or args.round_start or args.stand_in):
        p.error("--cpu: the steady run of the one hub process (not with --restart, "
                "--round-start or --stand-in)")
    quota: CpuQuota | None = None
    if args.cpu is not None:
        try:
            quota = CpuQuota.create(args.cpu)
        except (QuotaError, ValueError) as exc:
            p.exit(2, f"bench_hall: {exc}\n")
    try:
        _main(args, p, quota)
    finally:
        if quota is not None:
            quota.remove()


def _main(args: argparse.Namespace, p: argparse.ArgumentParser, quota: CpuQuota | None) -> None:
    # the single runs: a restart, a round start
    single: tuple[dict[str, Any], Callable[[dict[str, Any]], None]] | None = None
    if args.restart:
        single = (restart(args.boards, args.pace or 10.0, args.seconds, args.warmup, args.down,
                          args.per_process, nice=args.boards_nice, idle=args.boards_idle,
                          made=args.hall_init), show_restart)
    elif args.round_start:
        single = (round_start(args.boards, args.pace or 1.0, args.seconds, args.lead,
                              args.per_process, nice=args.boards_nice, idle=args.boards_idle,
                              made=args.hall_init), show_round_start)
    if single is not None:
        r, shown = single
        shown(r)
        if args.json:
            print(json.dumps(r))
        return
    stand_in = args.stand_in or not have_hub()
    if stand_in and args.hall_init:
        p.error("--hall-init: measures damiera hub (the stand-in subscriber is anonymous)")
    if stand_in and not args.stand_in:
        print("damiera hub is not installed: measuring to a stand-in subscriber")
    results = []

    def one(n: int, pace: float = args.pace or 10.0) -> dict[str, Any]:
        r = run(n, pace, args.seconds, args.warmup, stand_in,
                keep=Path(args.keep) / str(n) if args.keep else None,
                per_process=args.per_process,
                profile=Path(args.profile_hub) if args.profile_hub else None,
                nice=args.boards_nice, idle=args.boards_idle, made=args.hall_init,
                quota=quota)
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
        print("\nboards  lines/s  p50 ms  p99 ms  hub CPU%  ms/line  RSS MB  lost  load")
        for r in results:
            per_line = r["cpu"] / 100 / r["taken"] * 1000 if r["taken"] else math.nan
            print(f"{r['boards']:>6}  {r['rate']:>7.0f}  {r['p50']:>6.1f}  {r['p99']:>6.1f}  "
                  f"{r['cpu']:>8.0f}  {per_line:>7.3f}  {r['rss']:>6.0f}  {r['lost']:>4}  "
                  f"{r['load']:>4.1f}")
        over = [r["boards"] for r in results if not r["p99"] <= 1000]
        print("p99 passes 1 s at " + (f"{over[0]} boards" if over else
                                      f"none of these (up to {results[-1]['boards']} boards)"))

if __name__ == "__main__":
    main()
