"""The in-process half of benchmarks/bench_daemon.py: the daemon on the register-level fakes
with its real threads, a driver thread that plays on the virtual board, and the probes that time
what the daemon does (listener, screen, OLED worker, scan hand-over, the session's stages).
Also :func:`task_cpu` (a thread's CPU time from /proc) and the benchmark's constants."""

from __future__ import annotations

import asyncio
import bisect
import os
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest.mock import patch

from engine.board import Board
from engine.decisions import GameEnded, MoveCommitted
from engine.events import PieceLifted, PiecePlaced
from engine.replay import Fed
from engine.colour import Colour
from engine.variants import find_variant
from hardware_mocks.display import dummy_oled
from hardware_mocks.gpio import mock_factory, press, release
from hardware_mocks.players import physical
from hardware_mocks.smbus import FakeI2CBus
from hardware_mocks.serial import BroadcastPort
from hardware_mocks.virtual_board import VirtualBoard
from pi.board.config import Config, SpeechSpec
from pi.board.controller import BoardController
from pi.daemon import OledScreen, Parts, run_daemon
from pi.drivers.hardware import build_hardware
from pi.board.notify import Notifier
from pi.board.session import GameSession
from pi.board.statedir import StateDir
from pi.drivers.timebase import GameTime
from pi.drivers.wiring import Wiring, example_wiring, load_wiring

VARIANT = "italian"
TIME_CONTROL = "5400+30"
WIRING = "mcp23017_8x8.toml"  # interrupt-driven: every chip's INT on one GPIO
CONFIG_TEXT = f'variant = "{VARIANT}"\nclock = true\ntime_control = "{TIME_CONTROL}"\n'
#: Pause between two physical events once the first is journaled (a hand is slower than this).
GAP = 0.01
WAIT = 3.0  # longest wait for one journal line before the run is declared broken

now = time.perf_counter


@dataclass
class Probe:
    """Timestamps of what the daemon does, from the listener, the screen and the OLED worker."""

    lines: list[tuple[float, dict[str, Any], tuple[Any, ...]]] = field(default_factory=list)
    shows: list[float] = field(default_factory=list)
    frames: list[tuple[float, float]] = field(default_factory=list)  # (begun, drawn)
    cond: threading.Condition = field(default_factory=threading.Condition)
    #: called once the game is on (its first snapshot journaled), before the first move
    armed: Any = None

    def listener(self, fed: Any) -> None:
        t = now()
        with self.cond:
            self.lines.append((t, fed.record, fed.decisions))
            self.cond.notify_all()

    def wait_line(self, index: int, want: dict[str, Any]) -> int:
        """Index of the first journal line at or after ``index`` whose record has ``want``."""
        deadline = now() + WAIT
        with self.cond:
            while True:
                for i in range(index, len(self.lines)):
                    rec = self.lines[i][1]
                    if all(rec.get(k) == v for k, v in want.items()):
                        return i
                left = deadline - now()
                if left <= 0:
                    raise RuntimeError(f"{want} never journaled (last lines "
                                       f"{[x[1] for x in self.lines[-3:]]})")
                self.cond.wait(left)


class TimingScreen:
    """The controller's screen, timed: ``show`` calls, then the wrapped OledScreen's."""

    def __init__(self, inner: Any, probe: Probe) -> None:
        self.inner = inner
        self.probe = probe
        render = inner.display.render

        def timed_render(state: Any) -> None:
            begun = now()
            render(state)
            probe.frames.append((begun, now()))
        inner.display.render = timed_render  # the OLED worker's thread calls it

    def show(self, state: Any) -> None:
        self.probe.shows.append(now())
        self.inner.show(state)


class Sim:
    """The fakes behind ``build_hardware`` (as tests/pi/test_daemon.py), starting position set."""

    def __init__(self, wiring: Wiring, occupied: frozenset[str]) -> None:
        self.wiring = wiring
        self.bus = FakeI2CBus(time.monotonic)
        self.factory = mock_factory(pwm=wiring.buzzer_tonal)
        pin = self.factory.pin(wiring.interrupt_gpio) if wiring.interrupt_gpio is not None else None
        self.board = VirtualBoard(wiring, self.bus, interrupt_pin=pin)
        self.board.set_occupied(occupied)
        self.oled = dummy_oled()

        self.hardware: Any = None
        self.scan_loop: Any = None

    def parts(self, **options: Any) -> Parts:
        """The daemon's ``Parts`` on these fakes (``options``: its other fields); the daemon's
        scan loop is kept in ``scan_loop``."""
        def keep(loop: Any) -> None:
            self.scan_loop = loop
        return Parts(build=self.build, on_scan_loop=keep, **options)

    def build(self, out: Any) -> Any:
        self.hardware = build_hardware(
            self.wiring, out, GameTime(), bus_opener=lambda _b: self.bus.open(),
            pin_factory=self.factory, display_device=self.oled,
            serial_port=BroadcastPort() if self.wiring.serial is not None else None)
        return self.hardware


class Stages:
    """Where a journal line's time goes inside the daemon: the scan loop's hand-over to the event
    loop (its sink, wrapped), and inside ``GameSession._append_and_feed`` the journal's share on
    the loop (``Journal.submit``: the line handed to the journal's writer thread, which writes
    and fsyncs it), the game files' rewrite when done on the loop (``game.pdn`` +
    ``report.json``, atomic: at a game's start and end) and the rest (parsing, the arbiter). The
    session's methods are wrapped only inside :meth:`installed`."""

    def __init__(self) -> None:
        self.handed: list[float] = []  # when a scan's outputs were handed to the loop
        self.lines: list[dict[str, float]] = []  # per journaled line: feed, append, files, commits
        self._current: dict[str, float] | None = None

    def wrap_sink(self, scan_loop: Any) -> None:
        sink = scan_loop.sink

        def timed(outputs: Any) -> None:
            self.handed.append(now())
            sink(outputs)
        scan_loop.sink = timed

    @contextmanager
    def installed(self) -> Iterator[None]:
        from pi.board.journal import Journal
        saved = (GameSession._append_and_feed, GameSession._write_files, Journal.submit)
        feed, files, append = saved
        stages = self

        def timed_feed(session: GameSession, line: dict[str, Any]) -> Fed:
            stages._current = cur = {"append": 0.0, "files": 0.0}
            t0 = now()
            fed = feed(session, line)
            cur["feed"] = now() - t0
            cur["commits"] = float(any(isinstance(d, MoveCommitted) for d in fed.decisions))
            stages.lines.append(cur)
            stages._current = None
            return fed

        def timed_files(session: GameSession) -> None:
            t0 = now()
            files(session)
            if stages._current is not None:
                stages._current["files"] += now() - t0

        def timed_append(journal: Journal, obj: Any) -> int:  # what Journal.submit takes
            t0 = now()
            number = append(journal, obj)
            if stages._current is not None:
                stages._current["append"] += now() - t0
            return number

        # patch.object puts the originals back when the block ends, whatever happens
        with patch.object(GameSession, "_append_and_feed", timed_feed), \
                patch.object(GameSession, "_write_files", timed_files), \
                patch.object(Journal, "submit", timed_append):
            yield


@dataclass
class Sample:
    kind: str  # "sensor" or "press"
    t0: float  # the change (a sensor's: + debounce), or the press
    journaled: float
    commits: bool  # the line committed a move: the screen changes


def drive(sim: Sim, probe: Probe, clock: bool, plies: int, seed: int) -> list[Sample]:
    """Plays ``plies`` moves of random games on the virtual board (driver thread)."""
    rng = random.Random(seed)
    variant = find_variant(VARIANT)
    debounce = sim.wiring.scan.debounce
    buttons = sim.wiring.buttons
    samples: list[Sample] = []
    index = probe.wait_line(0, {"type": "snapshot"}) + 1
    if probe.armed is not None:
        probe.armed()
    ref = Board(None, variant)
    played = 0

    def journaled(i: int) -> tuple[float, bool, bool]:
        t, _rec, decisions = probe.lines[i]
        return (t, any(isinstance(d, MoveCommitted) for d in decisions),
                any(isinstance(d, GameEnded) for d in decisions))

    ended = False
    while played < plies:
        moves = ref.legal_moves
        if ended or not moves:
            if not ended:  # no clock: the last move is committed by the settle timer
                while not any(isinstance(d, GameEnded) for _t, _r, ds in probe.lines[index:]
                              for d in ds):
                    time.sleep(0.05)
            # the next game: the pieces taken off and set up again
            time.sleep(0.1)
            sim.board.set_occupied(())
            time.sleep(0.2)
            sim.board.set_occupied(Board(None, variant).occupied_algebraic())
            index = probe.wait_line(index, {"type": "start"}) + 1
            index = probe.wait_line(index, {"type": "snapshot"}) + 1
            ref = Board(None, variant)
            ended = False
            continue
        move = rng.choice(moves)
        side = Colour(ref.turn).label
        events, _ = physical(ref, move, rng, 0.0, set(ref.occupied_algebraic()))
        for e in events:
            t0 = now()
            if isinstance(e, PieceLifted):
                sim.board.lift(e.square)
                want = {"type": "lift", "square": e.square}
            else:
                assert isinstance(e, PiecePlaced)
                sim.board.place(e.square)
                want = {"type": "place", "square": e.square}
            index = probe.wait_line(index, want)
            t, commits, over = journaled(index)
            ended = ended or over
            samples.append(Sample("sensor", t0 + debounce, t, commits))
            index += 1
            time.sleep(GAP)
        if clock:
            gpio = buttons[side]["clock"]
            t0 = now()
            press(sim.factory, gpio)
            index = probe.wait_line(index, {"type": "button", "name": "clock", "side": side})
            t, commits, over = journaled(index)
            ended = ended or over
            samples.append(Sample("press", t0, t, commits))
            index += 1
            time.sleep(GAP)
            release(sim.factory, gpio)
            time.sleep(GAP)
        ref.push(move)
        played += 1
    return samples


class HandOff:
    """How long each scan's outputs wait between the scan thread's hand-off (the scan loop's
    sink) and the controller taking them on the event loop: the scan's lateness a slow disk
    would cause if anything on the loop waited on it. Only scans handed after :meth:`arm`."""

    def __init__(self) -> None:
        self.delays: list[float] = []
        self._handed: dict[int, float] = {}
        self._armed = False

    def install(self, controller: BoardController, scan_loop: Any) -> None:
        sink = scan_loop.sink
        handle = controller.handle

        def timed_sink(outputs: Any) -> None:
            if self._armed:
                self._handed[id(outputs)] = now()
            sink(outputs)

        def timed_handle(item: Any) -> None:
            t = self._handed.pop(id(item), None)
            if t is not None:
                self.delays.append(now() - t)
            handle(item)
        scan_loop.sink = timed_sink
        # for the rest of the run (the rig's daemon ends with it): the instance's handle timed
        patch.object(controller, "handle", timed_handle).start()

    def arm(self) -> None:
        self._armed = True


@contextmanager
def stalled_journal(seconds: float, every_file: bool = False) -> Iterator[None]:
    """Every fsync of a game's journal (``trace.jsonl``) held ``seconds`` first: a state disk
    stalling under other tenants' writes (the other files' fsyncs are not held, unless
    ``every_file``: the folders', the game files' and the markers' too)."""
    real = os.fsync

    def slow(fd: Any) -> None:
        try:
            journal = every_file or os.readlink(f"/proc/self/fd/{fd}").endswith("trace.jsonl")
        except OSError:
            journal = False
        if journal:
            time.sleep(seconds)
        real(fd)
    with patch.object(os, "fsync", slow):
        yield


def drive_unpaced(sim: Sim, probe: Probe, handoff: HandOff, plies: int, seed: int) -> list[Sample]:
    """Plays ``plies`` moves of a game without a clock on the virtual board (driver thread),
    each physical event as soon as the loop has taken the scan of the one before — not once
    its line is durable: with a stalled disk, the next scans are handed over while the journal
    is still in its fsync (what a player does, who does not wait for the disk). No samples:
    the figure is ``handoff``'s."""
    rng = random.Random(seed)
    variant = find_variant(VARIANT)
    probe.wait_line(0, {"type": "snapshot"})
    handoff.arm()
    ref = Board(None, variant)
    for _ in range(plies):
        if not ref.legal_moves:
            break
        move = rng.choice(ref.legal_moves)
        events, _ = physical(ref, move, rng, 0.0, set(ref.occupied_algebraic()))
        for e in events:
            taken = len(handoff.delays)
            if isinstance(e, PieceLifted):
                sim.board.lift(e.square)
            else:
                assert isinstance(e, PiecePlaced)
                sim.board.place(e.square)
            deadline = now() + WAIT
            while len(handoff.delays) == taken:
                if now() > deadline:
                    raise RuntimeError(f"the scan of {e} never reached the controller")
                time.sleep(0.001)
            time.sleep(GAP)
        ref.push(move)
    return []


def latency_run(clock: bool, plies: int, seed: int, state_root: Path,
                stages: Stages | None = None, handoff: HandOff | None = None,
                stall: float = 0.0, paced: bool = True,
                speech: SpeechSpec | None = None) -> tuple[list[Sample], Probe]:
    """One daemon, in this process, until the driver has played ``plies`` moves (``stages``:
    where the time goes, recorded on the way; ``handoff``: the scans' wait for the loop, from
    the first move on; ``stall``: every journal fsync held that many seconds; ``paced``: each
    physical event once the last one is journaled, else :func:`drive_unpaced`, which needs
    ``handoff`` and a game without a clock; ``speech``: the config's ``[speech]``, None: off)."""
    wiring = load_wiring(example_wiring(WIRING))
    variant = find_variant(VARIANT)
    sim = Sim(wiring, Board(None, variant).occupied_algebraic())
    probe = Probe()
    out: dict[str, list[Sample]] = {}
    config = Config(variant=VARIANT, clock=clock, time_control=TIME_CONTROL if clock else None,
                    speech=speech or SpeechSpec())

    async def companion(controller: BoardController, _inbox: Any) -> None:
        assert controller.screen is not None
        controller.screen = TimingScreen(controller.screen, probe)
        if stages is not None:
            stages.wrap_sink(sim.scan_loop)
        if handoff is not None:
            handoff.install(controller, sim.scan_loop)
            probe.armed = handoff.arm
        if paced:
            out["samples"] = await asyncio.to_thread(drive, sim, probe, clock, plies, seed)
        else:
            assert handoff is not None and not clock
            out["samples"] = await asyncio.to_thread(drive_unpaced, sim, probe, handoff, plies,
                                                     seed)

    with StateDir.open(state_root) as state, \
            (stages.installed() if stages is not None else nullcontext()), \
            (stalled_journal(stall) if stall > 0 else nullcontext()):
        asyncio.run(run_daemon(config, wiring, state,
                               sim.parts(notifier=Notifier({}), listeners=[probe.listener],
                                         companion=companion)))
    return out["samples"], probe


def idle_breakdown(seconds: float, state_root: Path) -> dict[str, Any]:
    """The daemon in this process, a clock game on the board and no events for ``seconds``:
    process CPU, CPU per thread (/proc/self/task, by Python thread name), OLED frames drawn
    and turns of the main loop (``controller.refresh`` calls)."""
    wiring = load_wiring(example_wiring(WIRING))
    sim = Sim(wiring, Board(None, find_variant(VARIANT)).occupied_algebraic())
    config = Config(variant=VARIANT, clock=True, time_control=TIME_CONTROL)
    res: dict[str, Any] = {}

    def per_thread() -> dict[str, float]:
        names = {t.native_id: t.name for t in threading.enumerate()}
        cpu: dict[str, float] = {}
        for tid in os.listdir("/proc/self/task"):
            name = names.get(int(tid), f"tid {tid}")
            name = "gpiozero held-threads" if name.endswith("(held)") else name
            cpu[name] = cpu.get(name, 0.0) + task_cpu(Path(f"/proc/self/task/{tid}"))
        return cpu

    async def companion(controller: BoardController, _inbox: Any) -> None:
        turns = [0]
        refresh = controller.refresh

        def counted() -> None:
            turns[0] += 1
            refresh()
        screen = controller.screen
        if not isinstance(screen, OledScreen):
            raise RuntimeError("the idle breakdown counts the OLED's frames: no OLED")
        with patch.object(controller, "refresh", counted):
            await asyncio.sleep(min(1.0, seconds))
            f0, th0, p0, w0 = screen.frames, per_thread(), time.process_time(), now()
            turns[0] = 0
            await asyncio.sleep(seconds)
            f1, th1, p1, w1 = screen.frames, per_thread(), time.process_time(), now()
        res.update(wall=w1 - w0, cpu=(p1 - p0) / (w1 - w0), frames=f1 - f0, turns=turns[0],
                   threads={k: (v - th0.get(k, 0.0)) / (w1 - w0) for k, v in th1.items()})

    with StateDir.open(state_root) as state:
        asyncio.run(run_daemon(config, wiring, state,
                               sim.parts(notifier=Notifier({}), companion=companion)))
    return res


def task_cpu(task: Path) -> float:
    """CPU seconds of one thread: schedstat's nanoseconds on the CPU (exact), else stat's
    utime + stime (clock ticks)."""
    try:
        return int((task / "schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def shown_and_drawn(samples: list[Sample], probe: Probe) -> tuple[list[float], list[float]]:
    """For each line that committed a move: the first ``show()`` after its ``t0`` (the screen
    shows a move as soon as it is decided, before its line is durable: the journal writes
    behind) and the first frame begun after it, as times after ``t0``."""
    shows = sorted(probe.shows)
    frames = sorted(probe.frames)
    begun = [f[0] for f in frames]
    shown: list[float] = []
    drawn: list[float] = []
    for s in samples:
        if not s.commits:
            continue
        i = bisect.bisect_left(shows, s.t0)
        if i == len(shows):
            continue
        shown.append(shows[i] - s.t0)
        j = bisect.bisect_left(begun, shows[i])
        if j < len(frames):
            drawn.append(frames[j][1] - s.t0)
    return shown, drawn


