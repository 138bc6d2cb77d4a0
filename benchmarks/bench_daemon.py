"""The board daemon end to end: latency, idle CPU, RSS, start-up and resume (issue 9 targets).

Run: ``.venv/bin/python benchmarks/bench_daemon.py [--quick]`` (``--help`` for the sizes).

1. **Latency** — the real :func:`pi.daemon.run_daemon` with its real threads (scan loop woken by
   the interrupt line, a gpiozero ``MockFactory`` pin; the OLED worker; gpiozero's callbacks) on
   the register-level fakes (``FakeI2CBus`` on the real monotonic clock, ``VirtualBoard``, luma's
   ``dummy`` OLED), in real time. A driver thread plays random games with natural physical events
   (``hardware_mocks.players.physical``) piece by piece on the virtual board and presses the
   clock button pin. Measured from the change (for a sensor: the moment it is stable, i.e. the
   change + the wiring's ``debounce_ms``; for a press: the pin edge) to

   * *journaled*: a controller listener is called (listeners run once the line is durable:
     the journal's writer thread wrote and fsync'd it, and the loop heard so);
   * *show()*: the controller hands the new state to the screen (``OledScreen.show``);
   * *frame*: the OLED worker finished drawing a frame begun after that ``show()`` (luma's dummy
     device: no wire time; a real SSD1306 frame adds ~23 ms at 400 kHz, on its own thread).

   Sensor changes are measured in a game without a clock (there a move is committed by the
   opponent's first lift: that change is journaled *and* shown) and in a game with a clock
   (journaled only: the move waits for the press); presses in the clock game.
2. **Idle CPU** — a fresh daemon process (``damiera run --simulate``, a game with a running clock
   on the board, no events: the screen redraws the clock every second, the scan loop's safety
   poll runs every ``poll_ms``): its CPU time (utime + stime of all threads, /proc) over the idle
   period.
3. **RSS** — the same process: VmRSS at the end of the idle period, and VmHWM (peak).
4. **Start to READY=1** — spawn to the READY=1 datagram on our own ``NOTIFY_SOCKET`` (a real
   AF_UNIX datagram socket), with an empty state directory and with an unfinished game of
   ``--resume-moves`` moves to resume.
5. **Resume** — a journal of a ``--resume-moves``-move game (natural physical events and clock
   presses, journaled through ``GameSession``): ``GameSession.resume`` and the whole
   ``BoardController.resume`` on a fresh copy each time.

Figures only, never assertions (tests/benchmarks/test_bench_daemon.py runs this with tiny sizes
so that it cannot rot). Linux only (/proc, AF_UNIX). The in-process half is
``benchmarks/daemon_rig.py``, the subprocess half ``benchmarks/daemon_proc.py``.
"""

from __future__ import annotations

import argparse
import bisect
import cProfile
import io
import logging
import os
import pstats
import random
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from daemon_proc import daemon_command, idle_run, start_runs
from daemon_rig import (CONFIG_TEXT, TIME_CONTROL, VARIANT, WIRING, Sample, Stages,
                        idle_breakdown, latency_run, now, shown_and_drawn)
from engine.board import Board
from engine.events import ButtonPressed, SnapshotTaken
from engine.colour import Colour
from engine.variants import find_variant
from hardware_mocks.players import physical
from pi.board.config import Config
from pi.board.controller import BoardController
from pi.board.session import GameSession
from pi.board.statedir import StateDir
from pi.drivers.timebase import GameTime


# ---------------------------------------------------------------------------- 5. resume

def build_journal(root: Path, moves: int, seed: int = 0) -> tuple[Path, int]:
    """A state directory holding one unfinished clock game of ``moves`` moves, journaled through
    GameSession from natural physical events (the first seed whose game lasts that long).
    Returns (root, journal lines)."""
    config = Config(variant=VARIANT, clock=True, time_control=TIME_CONTROL)
    variant = find_variant(VARIANT)
    for s in range(seed, seed + 200):
        shutil.rmtree(root, ignore_errors=True)
        rng = random.Random(s)
        with StateDir.open(root) as state:
            session = GameSession.begin(state, config.start_line(),
                                        when=datetime.now(timezone.utc))
            ref = Board(None, variant)
            session.feed(SnapshotTaken(0.0, ref.occupied_algebraic()))
            t = 0.0
            while len(session.arbiter.game.moves) < moves and ref.legal_moves \
                    and session.arbiter.game.outcome is None:
                move = rng.choice(ref.legal_moves)
                side = Colour(ref.turn).label
                events, t = physical(ref, move, rng, t, set(ref.occupied_algebraic()))
                for e in events:
                    session.feed(e)
                t += 0.8
                session.feed(ButtonPressed(round(t, 3), "clock", side))
                ref.push(move)
            done = len(session.arbiter.game.moves) >= moves and session.arbiter.game.outcome is None
            lines = session.journal.line_count
            session.close()
        if done:
            return root, lines
    raise RuntimeError(f"no random game of {moves} moves in 200 seeds")


def resume_runs(src: Path, work: Path, runs: int) -> tuple[list[float], list[float]]:
    """GameSession.resume and BoardController.resume, each on a fresh copy of ``src``."""
    session_times: list[float] = []
    controller_times: list[float] = []
    config = Config(variant=VARIANT, clock=True, time_control=TIME_CONTROL)
    for i in range(runs):
        for which, times in (("session", session_times), ("controller", controller_times)):
            root = work / f"resume-{which}-{i}"
            shutil.copytree(src, root)
            with StateDir.open(root) as state:
                if which == "session":
                    game = state.unfinished()
                    assert game is not None
                    t0 = now()
                    session = GameSession.resume(game, wall_now=time.time())
                    times.append(now() - t0)
                    session.close()
                else:
                    c = BoardController(config, state, GameTime())
                    t0 = now()
                    c.resume()
                    times.append(now() - t0)
                    assert c.session is not None
                    c.session.close()
    return session_times, controller_times


def profile_resume(src: Path, work: Path) -> str:
    root = work / "resume-profile"
    shutil.copytree(src, root)
    with StateDir.open(root) as state:
        game = state.unfinished()
        assert game is not None
        prof = cProfile.Profile()
        prof.enable()
        session = GameSession.resume(game, wall_now=time.time())
        prof.disable()
        session.close()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(15)
    return buf.getvalue()


# ---------------------------------------------------------------------------- the table

def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * q))]


def ms(x: float) -> str:
    return f"{x * 1000:.2f} ms"


def row(name: str, values: list[float], target: float | None, fmt: Any = ms) -> str:
    if not values:
        return f"| {name} | 0 | - | - | - | - |"
    p99 = pct(values, 0.99)
    verdict = "" if target is None else (" ok" if p99 <= target else " MISSED")
    return (f"| {name} | {len(values)} | {fmt(statistics.median(values))} | {fmt(p99)} | "
            f"{fmt(max(values))} | {'-' if target is None else fmt(target)}{verdict} |")


def print_stages(free: list[Sample], free_stages: Stages, clocked: list[Sample],
                 clock_stages: Stages) -> None:
    """Where the time to journaled goes (p50 / p99), by kind of line."""
    def fmt(values: list[float]) -> str:
        return (f"{ms(statistics.median(values))} / {ms(pct(values, 0.99))}" if values else "-")

    def handed(samples: list[Sample], stages: Stages) -> tuple[list[float], list[float]]:
        out: tuple[list[float], list[float]] = ([], [])
        times = sorted(stages.handed)
        for s in samples:
            if s.kind != "sensor":
                continue
            i = bisect.bisect_left(times, s.t0 - 0.005)
            if i < len(times):
                out[0 if s.commits else 1].append(times[i] - s.t0)
        return out

    hand_commit, hand_other = handed(free, free_stages)

    def parts(lines: list[dict[str, float]], key: str) -> list[float]:
        if key == "rest":
            return [x["feed"] - x["append"] - x["files"] for x in lines]
        return [x[key] for x in lines]

    commit = [x for x in free_stages.lines if x["commits"]]
    other = [x for x in free_stages.lines if not x["commits"]]
    press = [x for x in clock_stages.lines if x["commits"]]
    print("where the time goes, p50 / p99 (sensor lines: the game without a clock):")
    print("| stage | sensor change committing a move | other sensor change | clock press |")
    print("|---|---|---|---|")
    print(f"| stable → scan outputs handed to the event loop | {fmt(hand_commit)} | "
          f"{fmt(hand_other)} | - |")
    for name, key in (("journal submit (on the loop; written and fsync'd behind)", "append"),
                      ("parse + arbiter", "rest"),
                      ("game.pdn + report.json rewrite (atomic, fsync'd)", "files")):
        print(f"| {name} | {fmt(parts(commit, key))} | {fmt(parts(other, key))} | "
              f"{fmt(parts(press, key))} |")
    print(f"| total → journaled | {fmt([s.journaled - s.t0 for s in free if s.commits])} | "
          f"{fmt([s.journaled - s.t0 for s in free if s.kind == 'sensor' and not s.commits])} | "
          f"{fmt([s.journaled - s.t0 for s in clocked if s.kind == 'press'])} |")


def print_idle(idle_in: dict[str, Any]) -> None:
    threads = ", ".join(f"{k} {v * 100:.2f} %" for k, v in
                        sorted(idle_in["threads"].items(), key=lambda kv: -kv[1]) if v >= 0.0005)
    print(f"idle in process ({idle_in['wall']:.0f} s, clock running): {idle_in['cpu'] * 100:.2f} % "
          f"of a core; OLED frames drawn {idle_in['frames']} "
          f"({idle_in['frames'] / idle_in['wall']:.1f}/s); main loop turns "
          f"{idle_in['turns'] / idle_in['wall']:.1f}/s; by thread: {threads}")
    print()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--quick", action="store_true", help="short run: 40 moves per latency game, "
                   "10 s idle, 2 starts, 3 resumes, 3 s idle breakdown")
    p.add_argument("--moves", type=int, default=None, help="moves per latency run (default 300)")
    p.add_argument("--idle", type=float, default=None, help="idle seconds (default 60)")
    p.add_argument("--starts", type=int, default=None, help="spawns to READY=1 on an empty "
                   "state dir (besides the idle run's) and on a game to resume (default 5)")
    p.add_argument("--idle-threads", type=float, default=None, help="seconds of the in-process "
                   "idle run that says where the idle CPU goes (default 10, --quick 3)")
    p.add_argument("--resume-moves", type=int, default=150, help="moves in the resumed journal")
    p.add_argument("--resumes", type=int, default=None, help="resume repetitions (default 10)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--own-entry", action="store_true", help="spawn benchmarks/daemon_proc.py's "
                   "own daemon entry "
                   "even when `damiera run --simulate` is installed")
    p.add_argument("--profile", action="store_true", help="print a profile of the resume")
    args = p.parse_args(argv)
    moves = args.moves if args.moves is not None else (40 if args.quick else 300)
    idle = args.idle if args.idle is not None else (10.0 if args.quick else 60.0)
    starts = args.starts if args.starts is not None else (2 if args.quick else 5)
    idle_threads = (args.idle_threads if args.idle_threads is not None
                    else (3.0 if args.quick else 10.0))
    resumes = args.resumes if args.resumes is not None else (3 if args.quick else 10)
    pi_log = logging.getLogger("pi")
    level = pi_log.level
    pi_log.setLevel(logging.ERROR)  # the games' info lines are not figures
    try:
        return _run(args, moves, idle, starts, idle_threads, resumes)
    finally:
        pi_log.setLevel(level)  # run from the tests: leave the logging as it was


def _run(args: argparse.Namespace, moves: int, idle: float, starts: int, idle_threads: float,
         resumes: int) -> int:
    with tempfile.TemporaryDirectory(prefix="bench-daemon-") as tmp:
        work = Path(tmp)
        cfg = work / "damiera.toml"
        cfg.write_text(CONFIG_TEXT)
        cmd_label = daemon_command(cfg, work / "STATE", args.own_entry)[1]

        def cmd_for(state: Path) -> list[str]:
            return daemon_command(cfg, state, args.own_entry)[0]

        print(f"damiera daemon benchmark: {VARIANT}, wiring {WIRING} (interrupt-driven, "
              f"debounce 30 ms), Python {sys.version.split()[0]}, {os.cpu_count()} cores, "
              f"load {os.getloadavg()[0]:.2f}")
        # 1. latency
        free_stages, clock_stages = Stages(), Stages()
        free, free_probe = latency_run(False, moves, args.seed, work / "lat-noclock",
                                       free_stages)
        clocked, clocked_probe = latency_run(True, moves, args.seed + 1, work / "lat-clock",
                                             clock_stages)
        idle_in = (idle_breakdown(idle_threads, work / "idle-in-process") if idle_threads > 0
                   else None)
        sensor_free = [s.journaled - s.t0 for s in free]
        sensor_clock = [s.journaled - s.t0 for s in clocked if s.kind == "sensor"]
        presses = [s for s in clocked if s.kind == "press"]
        commit_free = [s for s in free if s.commits]
        shown_free, drawn_free = shown_and_drawn(free, free_probe)
        shown_press, drawn_press = shown_and_drawn(presses, clocked_probe)
        # 5. resume (before the subprocesses: its journal is also resumed at start-up)
        src, journal_lines = build_journal(work / "journal-src", args.resume_moves)
        session_t, controller_t = resume_runs(src, work, resumes)
        # 2-4. subprocesses
        idle_fig = idle_run(cmd_for, work, idle)
        fresh = [idle_fig["ready"]] + start_runs(cmd_for, work, starts, None)
        resumed = start_runs(cmd_for, work, starts, src)
        profile = (profile_resume(src, work) if args.profile or max(controller_t) > 0.5
                   else None)

    target = 0.005
    print()
    print("| from → to | n | p50 | p99 | max | target (p99) |")
    print("|---|---|---|---|---|---|")
    print(row("sensor stable → journaled (no clock, every change)", sensor_free, target))
    print(row("sensor stable → journaled (clock game, every change)", sensor_clock, target))
    print(row("sensor stable → journaled (commits a move)",
              [s.journaled - s.t0 for s in commit_free], target))
    print(row("sensor stable → show() (commits a move)", shown_free, target))
    print(row("sensor stable → OLED frame drawn (dummy device)", drawn_free, None))
    print(row("clock press → journaled (commits a move)",
              [s.journaled - s.t0 for s in presses], target))
    print(row("clock press → show()", shown_press, target))
    print(row("clock press → OLED frame drawn (dummy device)", drawn_press, None))
    print()
    print("| figure | value | target |")
    print("|---|---|---|")
    cpu_ok = "ok" if idle_fig["cpu"] <= 0.01 else "MISSED"
    print(f"| idle CPU over {idle_fig['wall']:.0f} s (clock running, no events) | "
          f"{idle_fig['cpu'] * 100:.2f} % of a core ({idle_fig['cpu_s']:.2f} s CPU) | "
          f"≤ 1 % {cpu_ok} |")
    rss_ok = "ok" if idle_fig["hwm"] <= 60 else "MISSED"
    print(f"| RSS at the end of the idle period / peak | {idle_fig['rss']:.1f} MB / "
          f"{idle_fig['hwm']:.1f} MB | ≤ 60 MB {rss_ok} |")
    for name, values in ((f"start → READY=1, empty state dir ({len(fresh)} runs)", fresh),
                         (f"start → READY=1, resuming {args.resume_moves} moves "
                          f"({len(resumed)} runs)", resumed)):
        if not values:
            continue
        ok = "ok" if max(values) <= 2.0 else "MISSED"
        print(f"| {name} | median {statistics.median(values):.2f} s, max {max(values):.2f} s | "
              f"≤ 2 s {ok} |")
    for name, values in (("GameSession.resume", session_t),
                         ("BoardController.resume", controller_t)):
        ok = "ok" if max(values) <= 0.5 else "MISSED"
        print(f"| {name}, {args.resume_moves} moves / {journal_lines} journal lines "
              f"({len(values)} runs) | median {ms(statistics.median(values))}, max "
              f"{ms(max(values))} | ≤ 0.5 s {ok} |")
    print()
    print_stages(free, free_stages, clocked, clock_stages)
    print()
    if idle_in is not None:
        print_idle(idle_in)
    print(f"latency: {len(free)} + {len(clocked)} events journaled in real time, "
          f"{len(commit_free)} + {len(presses)} moves; subprocess: {cmd_label}")
    if profile is not None:
        print(profile)
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    sys.exit(main())
