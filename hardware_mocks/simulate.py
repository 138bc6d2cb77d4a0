"""``damiera run --simulate``: the board daemon on the register-level fakes.

:func:`main` (the ``damiera/simulator`` entry point that ``pi.run`` loads) builds a
:class:`Simulation` — a fake I²C bus behind a :class:`~hardware_mocks.virtual_board.VirtualBoard`
laid out by the wiring file, gpiozero's ``MockFactory`` for the interrupt line, the buttons and
the buzzer, luma's ``dummy`` OLED, pyserial's ``loop://`` when the wiring has a serial link —
and runs the daemon's own :func:`pi.daemon.run_daemon` on it through :meth:`Simulation.parts`: the
daemon's code is the same as on the Pi, only the hardware under it is fake.

Without a trace the board is set up in the starting position and the daemon runs in real time
until SIGTERM/SIGINT (a program can drive ``Simulation.board`` and ``Simulation.factory``); when
the state directory holds an unfinished game (``make run`` stopped mid-game), the pieces stand
where its journal left them, as a real board's do through a power cut, and the game resumes
(issue 37: no IT 7.8 "position disturbed" for a board that was never touched).
With ``--trace`` the virtual board acts the trace out (:mod:`hardware_mocks.trace_player`) on a
simulated clock, paced by ``--speed`` (``max``: as fast as the CPU goes), and the daemon stops
when the trace ends. After a crash the same command resumes: the virtual board is put back in
the physical state of the journal's last line and the rest of the trace is played from there.
A trace never plays into another game: an unfinished game whose start line is not the trace's
(the game ``make run`` left) is refused in one line (issue 37).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.board import Board, Piece
from engine.errors import InputError, TraceError
from engine.events import Event, GameStarted, PieceLifted, PiecePlaced, SnapshotTaken
from engine.squares import unrotate_square
from engine.trace import parse_trace
from engine.variants import find_variant
from hardware_mocks.calibrated import calibrated
from hardware_mocks.clock import FakeClock
from hardware_mocks.display import dummy_oled
from hardware_mocks.gpio import mock_factory
from hardware_mocks.positions import pieces_on
from hardware_mocks.serial import BroadcastPort
from hardware_mocks.smbus import FakeI2CBus
from hardware_mocks.terminal import TerminalDisplay
from hardware_mocks.trace_player import TracePlayer, resume_point
from hardware_mocks.virtual_board import VirtualBoard
from pi.board.config import Config
from pi.board.controller import BoardController
from pi.board.scan_loop import ScanLoop
from pi.daemon import Parts
from pi.drivers.faults import Inbox
from pi.drivers.hardware import Hardware, build_hardware
from pi.board.errors import JournalError
from pi.board.journal import read_journal
from pi.board.statedir import StateDir, resolve_state_dir
from pi.drivers.timebase import GameTime
from pi.drivers.wiring import Wiring, example_wiring, load_wiring

if TYPE_CHECKING:  # paho is loaded only when the hall is on
    from pi.hall.link import BoardLink
    from hardware_mocks.simulated import Simulated

log = logging.getLogger(__name__)

__all__ = ["main", "Simulation", "SimulateError", "parse_speed", "config_from_start", "read_trace",
           "run_trace", "left_on_board"]

#: Where the simulated clock starts (any value: only differences count).
SIM_START = 1000.0


class SimulateError(InputError):
    """Bad simulator input (speed, trace, a missing wiring file): one line, exit 2."""


def parse_speed(text: str) -> float | None:
    """``--speed``: a positive finite factor, or ``max`` (None: no pacing at all)."""
    if text.strip().lower() == "max":
        return None
    try:
        value = float(text)
    except ValueError:
        raise SimulateError(f"--speed: expected a positive number or 'max', got {text!r}") \
            from None
    if not math.isfinite(value) or value <= 0 or value > 1e6:
        raise SimulateError(f"--speed: expected a positive number or 'max', got {text!r}")
    return value


def config_from_start(config: Config, start: GameStarted, raw: dict[str, Any],
                      source: str) -> Config:
    """The game's settings from a trace's start line (variant, clock, time control, who starts
    the clock, settle, transcription, FEN, tags) over ``config`` (a lone board's
    ``clock_start``, ``pi.run.lone_board``, included: the trace says when its clock started).
    The config's state directory, board number and site stay: they say where this board is
    (``board-<N>.toml`` of a hall: its game ids, its start lines, its topics); the trace's
    ``board`` and ``site`` fill in only what the config leaves out."""
    tags = dict(start.tags)
    board = config.board if config.board is not None else raw.get("board")
    site = config.site if config.site is not None else raw.get("site")
    return dataclasses.replace(
        config, source=source, variant=start.variant, clock=start.clock,
        time_control=start.time_control, clock_start=start.clock_start, settle=start.settle,
        transcribed=start.transcribed,
        fen=start.fen, white=tags.get("white"), black=tags.get("black"),
        event=tags.get("event"), round=tags.get("round"),
        site=site if isinstance(site, str) else None,
        board=board if isinstance(board, int) and not isinstance(board, bool) else None)


class Simulation:
    """The fakes for one run of the daemon: ``bus``, ``factory``, ``board`` (set up with
    ``occupied``), the clock (``clock`` is a FakeClock when ``stepped``, else None and the time
    is real) and ``hardware`` once :meth:`build` ran (``Parts(build=sim.build)``).

    ``stepped``: no scan thread; whoever drives the simulation calls ``scan_loop.step`` (the
    trace player). ``terminal``: the OLED's frames are also printed as text lines.
    :meth:`parts` is how the daemon gets it: the fakes, and the scan loop back (``scan_loop``)."""

    def __init__(self, wiring: Wiring, occupied: frozenset[str], *, stepped: bool = False,
                 terminal: bool = False, pieces: Mapping[str, Piece] | None = None) -> None:
        # The mock pins have no contact bounce, and gpiozero measures its bounce time on the
        # real clock: presses a few simulated ms apart would be dropped at high speed. An analog
        # board not calibrated yet is calibrated on its fakes first, as its builder would.
        self.wiring = dataclasses.replace(calibrated(wiring), button_bounce=0.0)
        self.occupied = occupied
        #: On an analog Hall board, which piece stands where (logical squares; else the side
        #: whose half the square is on, :class:`~hardware_mocks.virtual_board.VirtualBoard`).
        self.pieces = dict(pieces or {})
        self.stepped = stepped
        self.terminal = terminal
        self.clock: FakeClock | None = FakeClock(SIM_START) if stepped else None
        self.time = GameTime(self.clock) if self.clock is not None else GameTime()
        self.bus = FakeI2CBus(None)
        self.factory = mock_factory(pwm=wiring.buzzer_tonal)
        self.board: VirtualBoard | None = None
        self.hardware: Hardware | None = None
        self.scan_loop: ScanLoop | None = None
        self._out: Inbox | None = None

    def parts(self, **options: Any) -> Parts:
        """The daemon's ``Parts`` on this simulation (``options``: its other fields): the
        hardware built on the fakes, the scan loop kept in ``scan_loop`` and, when ``stepped``,
        given no thread."""
        def keep(loop: ScanLoop) -> None:
            self.scan_loop = loop
        return Parts(build=self.build, scan_thread=not self.stepped, on_scan_loop=keep,
                     **options)

    def build(self, out: Inbox) -> Hardware:
        """``Parts.build``: the daemon's hardware on the fakes, the pieces already set up."""
        self._out = out
        device = dummy_oled()
        hw = build_hardware(self.wiring, out, self.time, bus_opener=lambda _b: self.bus.open(),
                            pin_factory=self.factory, display_device=device,
                            serial_port=BroadcastPort() if self.wiring.serial is not None else None)
        if self.terminal and hw.display is not None:
            # held until the board is up (release_terminal): a daemon that refuses to start
            # (its address taken) leaves nothing on standard output
            hw.display = TerminalDisplay(hw.display.device, held=True)
        pin = (self.factory.pin(self.wiring.interrupt_gpio)
               if self.wiring.interrupt_gpio is not None else None)
        self.board = VirtualBoard(self.wiring, self.bus, interrupt_pin=pin,
                                  rotation=_lying(self.wiring, self.occupied))
        self.board.set_occupied(self.occupied, self.pieces)
        self.hardware = hw
        return hw

    def release_terminal(self) -> None:
        """The terminal's lines start (the board is up); nothing without a terminal."""
        display = self.hardware.display if self.hardware is not None else None
        if isinstance(display, TerminalDisplay):
            display.release()

    def press(self, item: Any) -> None:
        """An input put where the drivers put theirs (a press of a control no pin is wired
        for). Raises RuntimeError before :meth:`build`."""
        if self._out is None:
            raise RuntimeError("the simulation's hardware is not built yet")
        self._out.put(item)


def _lying(wiring: Wiring, occupied: frozenset[str]) -> int:
    """How the board lies: turned so that the pieces stand on sensed squares (an analog board
    senses its dark squares only; an Italian game turns it a quarter), else as wired."""
    sensed = wiring.sensed_squares
    for k in range(4):
        if all(unrotate_square(s, k, wiring.size) in sensed for s in occupied):
            return k
    return 0


def default_wiring(variant: str) -> Path:
    """The example wiring for the variant's board: MCP23017s, 8×8 or 10×10."""
    size = find_variant(variant).size
    return example_wiring("mcp23017_10x10" if size == 10 else "mcp23017_8x8")


def main(*, config: Config, wiring_path: str | None = None, state_dir: str | None = None,
         trace: str | None = None, speed: str = "1", http: tuple[str, int] | None = None,
         http_default: bool = False, announce: Callable[[str, Path], None] | None = None) -> int:
    """``damiera run --simulate``. Returns the exit status (0). Raises DamieraError (one line,
    exit 2) for a bad trace, speed, wiring or state directory. ``http``: where the web server
    listens (with the simulator's controls, ``hardware_mocks.sim_web``), None for none;
    ``http_default``: it is only the default address (another port when it is in use);
    ``announce``: ``Parts.announce`` (the pages' address told to the user). A trace's game is
    printed on the terminal as the OLED shows it, at every speed (``max`` included)."""
    from pi.run import run_board  # the daemon's own runner
    pace = parse_speed(speed)
    raw_start: dict[str, Any] = {}
    events: list[Event] = []
    if trace is not None:
        start, events, raw_start = read_trace(trace)
        config = config_from_start(config, start, raw_start, trace)
    try:  # a bad wiring file is a WiringError (a DamieraError): the command line prints it
        wiring = load_wiring(wiring_path or default_wiring(config.variant))
    except FileNotFoundError as exc:
        raise SimulateError(str(exc)) from None
    if wiring.size != find_variant(config.variant).size:
        raise SimulateError(f"{wiring.source}: a {wiring.size}x{wiring.size} board cannot play "
                            f"{config.variant}")
    root = resolve_state_dir(state_dir, config.state_dir)
    if trace is None:
        journal = _unfinished_journal(root)
        sim = Simulation(wiring, _expected(config) if journal is None
                         else left_on_board(journal, _expected(config)),
                         pieces=pieces_on(Board(config.fen, find_variant(config.variant)))
                         if journal is None else None)
        return run_board(config, wiring, root, sim.parts(http=http, http_default=http_default,
                                                         web_routes=_web_routes(sim, config, http),
                                                         announce=announce))
    return run_trace(config, wiring, root, events, pace, http=http, http_default=http_default,
                     terminal=True, announce=announce)


def _web_routes(sim: Simulation, config: Config, http: tuple[str, int] | None) -> Any:
    """``Parts.web_routes``: the simulator's controls, their module (and aiohttp) loaded when
    the web server builds its routes — after READY=1, as on a board (``pi.daemon``)."""
    if http is None:
        return None

    def routes(server: Any) -> Any:
        from hardware_mocks.sim_web import sim_routes
        return sim_routes(sim, config.variant)(server)
    return routes


def run_trace(config: Config, wiring: Wiring, root: Path, events: list[Event],
              pace: float | None, *, hooks: Mapping[int, Callable[[Simulated], None]] | None = None,
              http: tuple[str, int] | None = None, http_default: bool = False,
              terminal: bool | None = None,
              announce: Callable[[str, Path], None] | None = None) -> int:
    """Runs the daemon on a simulation acting out ``events`` (resuming the unfinished game of
    ``root`` where its journal ends). ``hooks``: called with the simulation just before the
    event of that index is acted (a test's fault injection: ``sim.bus.fail(0x20)``);
    ``terminal``: print the OLED's frames on stdout (None: when paced)."""
    from pi.run import run_board
    journal = _unfinished_journal(root)
    if journal is not None and not _same_game(journal[0], config):
        raise SimulateError(
            f"{root}: its unfinished game ({_who(journal[0])}) is not this trace's: a trace "
            "plays in a game of its own (give another --state-dir, or finish that game)")
    point = resume_point(events, journal, _expected(config))
    # an analog board's pieces at the start: the trace's first snapshot's, else the position's
    # (resumed: each side's men on its half)
    start = None
    if not point.resumed:
        start = pieces_on(Board(config.fen, find_variant(config.variant)))
        first = events[0] if point.index == 1 and events else None
        if isinstance(first, SnapshotTaken) and first.pieces is not None:
            start.update(first.pieces)
    sim = Simulation(wiring, point.occupied, stepped=True,
                     terminal=pace is not None if terminal is None else terminal, pieces=start)
    shifted = {i - point.index: f for i, f in (hooks or {}).items() if i >= point.index}
    player = TracePlayer(sim, events[point.index:], pace=pace, resumed=point.resumed,
                         resumed_at=point.t,
                         settle=config.settle, journal=journal or (), hooks=shifted,
                         setup=point.setup)

    async def play(controller: BoardController, inbox: asyncio.Queue[Any]) -> None:
        """``Parts.companion``, called once the board is up: the terminal, then the trace."""
        sim.release_terminal()
        await player.play(controller, inbox)

    def linked(link: BoardLink) -> None:  # in a hall: the players wait for the round
        player.hall = link.subscribed

    return run_board(config, wiring, root, sim.parts(
        companion=play, http=http, http_default=http_default,
        web_routes=_web_routes(sim, config, http), announce=announce, on_link=linked))


#: The start line's keys that make a game the trace's own (docs/trace-format.md): its rules, and, on a lone
#: board, its players (in a hall the round's pairing names them, not the trace).
_RULE_KEYS = ("variant", "fen", "clock", "time_control")
_TAG_KEYS = ("white", "black", "event", "round")


def _same_game(start: dict[str, Any], config: Config) -> bool:
    """The unfinished game's start line ``start`` is the one a trace's settings (``config``,
    from :func:`config_from_start`) begin."""
    mine = {"variant": config.variant, "fen": config.fen, "clock": config.clock,
            "time_control": config.time_control, "white": config.white, "black": config.black,
            "event": config.event, "round": config.round}
    keys = _RULE_KEYS if config.mqtt is not None else _RULE_KEYS + _TAG_KEYS
    return all(start.get(key) == mine[key] for key in keys)


def _who(start: dict[str, Any]) -> str:
    white, black = start.get("white"), start.get("black")
    players = f"{white or '?'} - {black or '?'}"
    game = start.get("id")
    return f"game {game}, {players}" if isinstance(game, str) else players


def left_on_board(journal: Sequence[dict[str, Any]], expected: frozenset[str]) -> frozenset[str]:
    """Where the pieces stand after the journal's lines (its start position, then every lift,
    place and snapshot): a board stopped mid-game keeps them there, as a real one does through a
    power cut. ``expected`` when the journal cannot be read as a trace (the daemon then abandons
    it and sets up a new game)."""
    import json
    try:
        start, events = parse_trace(json.dumps(line) for line in journal)
    except TraceError:
        return expected
    occupied = set(Board(start.fen, find_variant(start.variant)).occupied_algebraic())
    for event in events:
        if isinstance(event, PieceLifted):
            occupied.discard(event.square)
        elif isinstance(event, PiecePlaced):
            occupied.add(event.square)
        elif isinstance(event, SnapshotTaken):
            occupied = set(event.occupied)
    return frozenset(occupied)


def _expected(config: Config) -> frozenset[str]:
    return Board(config.fen, find_variant(config.variant)).occupied_algebraic()


def read_trace(path: str) -> tuple[GameStarted, list[Event], dict[str, Any]]:
    """The trace file ``path``: its start, its events and its start line as written. Raises
    SimulateError (one line: unreadable, not UTF-8, not a trace)."""
    import json
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as exc:
        raise SimulateError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise SimulateError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        start, events = parse_trace(lines)
    except TraceError as exc:
        raise SimulateError(f"{path}: {exc}") from None
    try:
        raw = json.loads(lines[0])
    except (ValueError, IndexError):
        raw = {}
    return start, events, raw if isinstance(raw, dict) else {}


def _unfinished_journal(root: Path) -> tuple[dict[str, Any], ...] | None:
    """The lines of the unfinished game's journal in ``root`` (a torn last line left out, as
    the resume drops it), or None: no such game, or a journal the daemon will abandon."""
    if not Path(root).is_dir():
        return None
    state = StateDir.open(root)  # StateDirError (a DamieraError): the command line prints it
    try:
        game = state.unfinished()
        if game is None:
            return None
        try:
            return read_journal(game.trace).lines
        except JournalError as exc:
            log.warning("%s: the daemon will keep it and begin a new game", exc)
            return None
    finally:
        state.close()
