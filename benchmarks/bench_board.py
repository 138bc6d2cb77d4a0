"""The board's targets of issue 19 in one run, with the load average: the disk off the loop.

Run: ``.venv/bin/python benchmarks/bench_board.py [--quick] [--disk DIR] [--tmpfs DIR]``.

Every figure is printed twice, side by side: the daemon's state directory on tmpfs (``--tmpfs``,
default ``/dev/shm``: an fsync costs nothing) and on the disk (``--disk``, default the system's
temporary folder). Before each column, the **fsync p99 of that state disk** (a 100-byte line
written and fsync'd ``--fsyncs`` times, as the journal does), since the disk decides the
durable figures and a VM's disk changes from minute to minute.

1. **sensor stable → shown (OLED), p99** — ``benchmarks/daemon_rig.py``'s real daemon on the
   register-level fakes in real time, a game without a clock: the change stable (after the
   debounce) to the controller's ``show()`` of the move it commits (the screen shows a move as
   soon as it is decided; the journal writes behind). Target ≤ 3 ms on any disk. Beside it,
   stable → journaled (a listener called: the line durable), and the clock game's press →
   shown / journaled.
2. **press → SSE at a browser, 100 clients, p99** — ``benchmarks/bench_web.py``'s three
   processes (daemon, 100 SSE clients, driver): the clock button's pin edge to the arrival of
   its line at each client. Target ≤ 10 ms when the state disk's fsync p99 ≤ 5 ms. The 100
   clients share one process, which reads their sockets in turn with a byte search for the
   ``id:`` lines (``bench_web.SseReader``; a browser reads one socket, in native code): beside
   it the daemon's side, the pin edge to the line written to all 100 sockets.
3. **worst scan hand-off delay under a 200 ms fsync stall** — the daemon of (1) with every
   fsync of the journal held 200 ms (``daemon_rig.stalled_journal``), a player who does not
   wait for the disk (``daemon_rig.drive_unpaced``: the next change as soon as the loop took
   the last scan, so scans come while the journal is in its fsync): the longest a scan's
   outputs waited between the scan thread's hand-off and the controller taking them on the
   loop. Target ≤ 5 ms. Beside it, stable → shown under the same stall (a paced game).
4. **a committed move at ply 1,000 vs ply 10** — ``benchmarks/bench_length.py``'s second table
   (the loop's cost, through a real ``GameSession``). Target within 20 %.

Replay memory (1k to 1M events) is ``benchmarks/bench_trace.py``'s (minutes for 1M events).
Figures only, never assertions (tests/benchmarks/test_bench_board.py runs it with tiny sizes).
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

import bench_length
import bench_web
from daemon_rig import HandOff, Sample, latency_run, shown_and_drawn


def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * q))] if v else float("nan")


def fsync_probe(where: str, count: int) -> list[float]:
    """Seconds of ``count`` appends of a 100-byte line, each fsync'd, in a file under
    ``where``."""
    with tempfile.TemporaryDirectory(dir=where, prefix="bench-fsync-") as tmp:
        fd = os.open(Path(tmp) / "probe", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            out = []
            for _ in range(count):
                t0 = time.perf_counter()
                os.write(fd, b"x" * 99 + b"\n")
                os.fsync(fd)
                out.append(time.perf_counter() - t0)
        finally:
            os.close(fd)
    return out


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f})"


def ms(x: float) -> str:
    return "-" if x != x else f"{x * 1000:.2f}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--quick", action="store_true", help="tiny sizes (the test's run)")
    p.add_argument("--moves", type=int, default=None, help="moves per latency game (default 150)")
    p.add_argument("--presses", type=int, default=None, help="presses per SSE run (default 200)")
    p.add_argument("--clients", type=int, default=100, help="SSE clients (default 100)")
    p.add_argument("--stall-moves", type=int, default=None,
                   help="moves of the stalled game (default 12)")
    p.add_argument("--fsyncs", type=int, default=None, help="fsyncs per disk probe (default 500)")
    p.add_argument("--tmpfs", default="/dev/shm")
    p.add_argument("--disk", default=tempfile.gettempdir())
    args = p.parse_args(argv)
    q = args.quick
    moves = args.moves if args.moves is not None else (4 if q else 150)
    presses = args.presses if args.presses is not None else (4 if q else 200)
    stall_moves = args.stall_moves if args.stall_moves is not None else (2 if q else 12)
    fsyncs = args.fsyncs if args.fsyncs is not None else (20 if q else 500)
    clients = 3 if q else args.clients
    pi_log = logging.getLogger("pi")
    level = pi_log.level
    pi_log.setLevel(logging.ERROR)  # the games' info lines are not figures
    try:
        return _run(args, moves, presses, stall_moves, fsyncs, clients)
    finally:
        pi_log.setLevel(level)


def _run(args: argparse.Namespace, moves: int, presses: int, stall_moves: int, fsyncs: int,
         clients: int) -> int:
    places = {"tmpfs": args.tmpfs, "disk": args.disk}
    print(f"damiera board, issue 19 targets: Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, {load()}")
    print(f"state dir: tmpfs = {places['tmpfs']}, disk = {places['disk']}")
    cols: dict[str, dict[str, str]] = {name: {} for name in places}
    for name, where in places.items():
        col = cols[name]
        probe = fsync_probe(where, fsyncs)
        col["fsync"] = (f"{ms(statistics.median(probe))} / {ms(pct(probe, 0.99))} / "
                        f"{ms(max(probe))}")
        with tempfile.TemporaryDirectory(dir=where, prefix="bench-board-") as tmp:
            free, free_probe = latency_run(False, moves, 1, Path(tmp) / "noclock")
            clocked, clocked_probe = latency_run(True, moves, 2, Path(tmp) / "clock")
        shown, _ = shown_and_drawn(free, free_probe)
        presses_s = [s for s in clocked if s.kind == "press"]
        shown_press, _ = shown_and_drawn(presses_s, clocked_probe)
        col["shown"] = f"{ms(pct(shown, 0.5))} / {ms(pct(shown, 0.99))} / {len(shown)}"
        col["journaled"] = _p(free, lambda s: s.journaled - s.t0, lambda s: s.commits)
        col["press shown"] = (f"{ms(pct(shown_press, 0.5))} / {ms(pct(shown_press, 0.99))} / "
                              f"{len(shown_press)}")
        col["press journaled"] = _p(presses_s, lambda s: s.journaled - s.t0, lambda s: True)
        probe2 = fsync_probe(where, fsyncs)
        sse = bench_web.latency(clients, presses, where=where)
        col["sse"] = (f"{sse['p50']:.2f} / {sse['p99']:.2f} / {sse['n']} (fsync p99 "
                      f"{ms(pct(probe2, 0.99))})")
        col["sse sent"] = f"{sse['sent_p50']:.2f} / {sse['sent_p99']:.2f} / {sse['presses']}"
        col["sse lag"] = (f"{sse['loop_lag_max']:.2f} / {sse['scan_late_max']:.2f} / "
                          f"{sse['fsync_max']:.2f}")
        print(f"  {name} done, {load()}", flush=True)
    with tempfile.TemporaryDirectory(dir=args.disk, prefix="bench-stall-") as tmp:
        handoff = HandOff()
        latency_run(False, stall_moves, 3, Path(tmp) / "stall", handoff=handoff, stall=0.2,
                    paced=False)
        stalled, stalled_probe = latency_run(False, stall_moves, 4, Path(tmp) / "stall-paced",
                                             stall=0.2)
    stalled_shown, _ = shown_and_drawn(stalled, stalled_probe)
    cost = bench_length.committed_move_cost([10, 1000] if not args.quick else [10, 40])
    print()
    print("| figure (ms: p50 / p99 / n) | state dir on tmpfs | state dir on disk | target |")
    print("|---|---|---|---|")
    rows = (("state disk: append + fsync, p50 / p99 / max", "fsync", "-"),
            ("sensor stable → shown (OLED), move committed", "shown", "p99 ≤ 3 ms"),
            ("sensor stable → journaled (durable, listeners), move committed", "journaled", "-"),
            ("clock press → shown", "press shown", "-"),
            ("clock press → journaled (durable)", "press journaled", "-"),
            (f"clock press → SSE at a browser, {clients} clients", "sse",
             "p99 ≤ 10 ms (fsync p99 ≤ 5 ms)"),
            (f"clock press → written to all {clients} sockets (the daemon's side)", "sse sent",
             "-"),
            ("during it: loop lag max / scan late max / longest fsync on the loop", "sse lag",
             "scan ≤ 5 ms"))
    for label, key, target in rows:
        print(f"| {label} | {cols['tmpfs'][key]} | {cols['disk'][key]} | {target} |")
    print()
    print(f"every journal fsync held 200 ms (state dir on disk; the hand-off: {stall_moves} moves "
          f"played without waiting for the disk, {len(handoff.delays)} scans; stable → shown: "
          f"{stall_moves} moves, each change once journaled):")
    print(f"| worst scan hand-off delay | {ms(max(handoff.delays, default=float('nan')))} ms "
          f"(p99 {ms(pct(handoff.delays, 0.99))}) | target ≤ 5 ms |")
    print(f"| sensor stable → shown, move committed | p50 {ms(pct(stalled_shown, 0.5))} / p99 "
          f"{ms(pct(stalled_shown, 0.99))} ms ({len(stalled_shown)}) | - |")
    first, last = sorted(cost)
    a, b = cost[first][0], cost[last][0]
    print()
    print(f"| committed move on the loop, ply {first} vs ply {last} | {a * 1000:.3f} ms vs "
          f"{b * 1000:.3f} ms ({(b / a - 1) * 100:+.0f} %) | within 20 % |")
    print(f"| the files made afresh (before), ply {first} vs ply {last} | "
          f"{cost[first][1] * 1000:.3f} ms vs {cost[last][1] * 1000:.3f} ms | - |")
    tick, move = oled_frames(30 if args.quick else 600)
    print()
    print("| OLED frame on the OLED's thread (luma dummy), p50 / p99 ms | clock tick (one face "
          "changes) | move (header, last move, faces) |")
    print(f"| BoardDisplay.render | {ms(pct(tick, 0.5))} / {ms(pct(tick, 0.99))} | "
          f"{ms(pct(move, 0.5))} / {ms(pct(move, 0.99))} |")
    print()
    print(f"after: {load()}")
    return 0


def oled_frames(n: int) -> tuple[list[float], list[float]]:
    """Seconds of ``n`` frames of :class:`pi.drivers.display.BoardDisplay` on luma's ``dummy``
    device (the daemon's OLED thread draws them, sharing the interpreter with the event loop):
    a running clock's face changing every second, and a move (header, last move, message)."""
    from hardware_mocks.display import dummy_oled
    from pi.drivers.display import BoardDisplay, DisplayState
    out: list[list[float]] = []
    for moving in (False, True):
        display = BoardDisplay(dummy_oled())
        times = []
        for i in range(n):
            state = DisplayState(white_time=3000.0 - (0 if moving else i), black_time=2900.0,
                                 running="black" if moving and i % 2 else "white",
                                 move_number=(i // 2 + 1) if moving else 20,
                                 side_to_move="black" if moving and i % 2 else "white",
                                 last_move=f"{21 + i % 12}-{17 + i % 9}" if moving else "22-19")
            t0 = time.perf_counter()
            display.render(state)
            times.append(time.perf_counter() - t0)
        out.append(times)
    return out[0], out[1]


def _p(samples: list[Sample], value: Callable[[Sample], float],
       keep: Callable[[Sample], bool]) -> str:
    values = [value(s) for s in samples if keep(s)]
    return f"{ms(pct(values, 0.5))} / {ms(pct(values, 0.99))} / {len(values)}"


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    sys.exit(main())
