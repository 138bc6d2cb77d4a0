"""``damiera run``: the board daemon's composition root.

:func:`run_daemon` wires the parts (mopidy's habit: one function builds, starts in order, stops
in reverse in ``finally``):

1. the state directory (locked: one daemon per directory), the hardware from the wiring file
   (``pi.drivers.hardware.build_hardware``; the simulator passes its fakes through ``parts``), the
   controller (``pi.board.controller``) with the OLED as its screen and the buzzer;
2. resume of an unfinished game (its journal replayed, a ``restart`` line journaled); the
   hall's MQTT link (``[mqtt]``, ``pi.hall.link``), a controller listener;
3. the board probed (``pi.drivers.bringup.startup_probe``: a chip missing or of the wrong type,
   a square stuck or chattering is the OLED's message until the first game), then the sensors
   powered up: their first snapshot goes to the controller, then the scan loop's
   thread (``pi.board.scan_loop``) hands every later scan to the event loop; buttons and serial
   commands, stamped on their own threads, arrive on the same queue, all through the one
   bridge into the loop (``pi.board.handoff.LoopInbox``);
4. READY=1 to systemd: the board plays; then the web server (``--http``), a controller
   listener primed with the game as it stands (its import is the start's largest: off the path
   to READY); then the heap frozen (``gc.freeze()``: a full collection of start-up objects cost
   18–43 ms on one event in the arbiter benchmark) and the collector, off since the command
   line began (``pi.cli.main``), on again;
5. the board's loop (``BoardController.run``): the next input, or the controller's deadline
   (settle timer, flag fall, lampo countdown), or the next visible change of the running
   clock's face (a minute, a second or a tenth, COMP 3.6.2 h), or the watchdog's ping —
   whichever comes first. Everything the
   game does happens on this one thread.

On SIGTERM/SIGINT the loop ends: the controller closes the journal (already durable), the screen
says "stopped", STOPPING=1, the scan loop stops, the hardware stops in reverse order.

Blocking work never runs on the loop: scans run on the scan loop's thread, OLED frames on one
worker thread (:class:`OledScreen`, the newest state only, under the bus lock that gives scans
priority), ``game.pdn``/``report.json`` on the game session's writer thread (both
``pi.board.handoff.LatestWorker``); the board's voice (``[speech]``) on its phrase queue's
thread (``pi.board.speech.PhraseQueue``: espeak-ng, one phrase at a time); the hall link
publishes and reads its files on threads of its own; the journal is written and fsync'd on its
own writer thread, which tells the loop through the same bridge when lines are durable: the
write-ahead rule holds what leaves the board (the web's and the hall's lines, an arbiter's
answer) until then, and the scans' hand-off never waits on the disk. Left on the loop: the
journal's creation at a game's start and the files and marker at its end.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import shlex
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.i18n import translations
from engine.squares import all_squares
from pi.board.config import Config
from pi.board.controller import BoardController, Input, Listener
from pi.board.errors import GameFilesError
from pi.board.handoff import LatestWorker, LoopInbox
from pi.board.notify import Notifier
from pi.board.scan_loop import ScanLoop
from pi.board.speech import BoardSpeech
from pi.board.statedir import StateDir
from pi.board.view import Phase
from pi.drivers.display import BoardDisplay, DisplayState
from pi.drivers.faults import Inbox
from pi.drivers.hardware import Hardware
from pi.drivers.speech import Espeak
from pi.drivers.wiring import Wiring

if TYPE_CHECKING:  # aiohttp and paho are loaded only when the web or the hall is on
    from pi.hall.link import BoardLink
    from pi.web.server import Routes, WebServer

log = logging.getLogger(__name__)

__all__ = ["run_daemon", "OledScreen", "Parts"]


class OledScreen:
    """The controller's screen on the OLED: frames are drawn on one worker thread, newest state
    only (a state that arrives while a frame is on the wire replaces any state still waiting)."""

    def __init__(self, display: BoardDisplay) -> None:
        self.display = display
        self._worker: LatestWorker[DisplayState] = LatestWorker(self._draw, "oled")
        self.frames = 0

    def show(self, state: DisplayState) -> None:
        self._worker.submit(state)

    def _draw(self, state: DisplayState) -> None:
        self.display.render(state)
        self.frames += 1

    def flush(self) -> None:
        """Returns once the state last shown is drawn (a newer one, shown meanwhile, instead)."""
        self._worker.flush()

    def close(self) -> None:
        """Draws the state still waiting, then ends the thread."""
        self._worker.close()


@dataclass(frozen=True)
class LinkTimers:
    """The hall link's timers where they are not its own (``pi.hall.link.BoardLink``):
    paho's wait between attempts to reach the broker (first, longest seconds) and how long a
    stop waits for a connection to carry what was published (seconds)."""

    reconnect: tuple[int, int]
    connect_grace: float


@dataclass
class Parts:
    """What the composition needs besides the config: the hardware builder (real or fakes),
    where to log the board's state for systemd, and hooks for the simulator and the tests."""

    #: The hardware, its drivers putting what they sense on the inbox given.
    build: Callable[[Inbox], Hardware]
    notifier: Notifier = field(default_factory=Notifier)
    listeners: list[Listener] = field(default_factory=list)
    #: Called on the loop once the board is ready, with the controller and the inbox; a
    #: coroutine the daemon awaits beside its loop (the simulator's player); its end stops
    #: the daemon.
    companion: Callable[[BoardController, asyncio.Queue[Input | Sequence[Input]]],
                        Any] | None = None
    wall: Callable[[], float | None] | None = None
    #: The web server's (host, port) (``pi.web``), None for none; ``web_routes``: the
    #: simulator's extra routes (``pi.web.server.Routes``), which pi cannot import.
    http: tuple[str, int] | None = None
    http_default: bool = False  # only the default address: another port when it is in use
    web_routes: Routes | None = None
    #: Called with the started web server (tests, benchmarks: its port, its token).
    on_web: Callable[[WebServer], None] | None = None
    #: Tells the user where the pages are, once the web server listens: called with their
    #: address (``http://HOST:PORT/``) and the state directory (where the arbiter's token is);
    #: the command line prints it, so that ``--quiet`` never hides it. None: logged at INFO.
    announce: Callable[[str, Path], None] | None = None
    #: Called with the started hall link (``pi.hall.link.BoardLink``; tests, benchmarks).
    on_link: Callable[[BoardLink], None] | None = None
    #: The hall link's timers; None: ``BoardLink``'s own (tests shorten them, never the
    #: command line).
    link_timers: LinkTimers | None = None
    #: False: the scan loop gets no thread; whoever gets it from ``on_scan_loop`` steps it (the
    #: simulator's trace player, on its simulated clock).
    scan_thread: bool = True
    #: Called with the scan loop over the sensors, before the sensors power up.
    on_scan_loop: Callable[[ScanLoop], None] | None = None


async def run_daemon(config: Config, wiring: Wiring, state: StateDir, parts: Parts,
                     stop: asyncio.Event | None = None) -> int:
    """Runs the board until ``stop`` is set (or SIGTERM/SIGINT, or the companion ends).
    Returns the exit status (0). Raises the journal's errors when the game cannot be recorded
    (nothing may be shown that is not on disk: systemd restarts the daemon, which resumes), and
    GameFilesError when it stops with a game's ``game.pdn``/``report.json`` unwritten (a full
    disk: the next start rewrites them from the journal)."""
    loop = asyncio.get_running_loop()
    stop = stop if stop is not None else asyncio.Event()
    inbox: asyncio.Queue[Input | Sequence[Input]] = asyncio.Queue()
    into_loop = LoopInbox(loop, inbox)
    hardware = parts.build(into_loop)
    scan = ScanLoop.for_hardware(hardware, into_loop.put)
    if parts.on_scan_loop is not None:
        parts.on_scan_loop(scan)
    if hardware.display is not None:
        hardware.display.language = config.language  # the board's language (damiera.toml)
    screen = OledScreen(hardware.display) if hardware.display is not None else None
    beeper = hardware.beeper
    speech = _speech(config)
    controller = BoardController(
        config, state, hardware.time, screen=screen,
        orient=_orienter(scan, wiring) if wiring.orientation is None else None,
        beep=beeper.play if beeper is not None else None,
        listeners=list(parts.listeners), submit=inbox.put_nowait, post=into_loop.put,
        speech=speech)
    if parts.wall is not None:
        controller.wall = parts.wall
    notifier = parts.notifier
    installed = _install_signals(loop, stop)
    companion: asyncio.Task[Any] | None = None
    web: WebServer | None = None
    link: BoardLink | None = None
    try:
        controller.resume()
        if config.mqtt is not None:
            link = _start_link(config, state, parts, controller, loop)
        controller.notice = _startup_probe(hardware, wiring, controller, config.language)
        first = hardware.start()
        if parts.scan_thread:
            scan.start()
            scan.wake()  # an edge between the first scan and the thread's start: scan again
        controller.handle(first)
        if hardware.serial_link is not None:
            controller.listeners.append(hardware.serial_link.on_fed)
        # READY=1 once the board plays (the hardware up, any game resumed, the sensors read):
        # the pages follow, their aiohttp import (~1 s of a Pi Zero 2 W's start) off the path
        # to a board that records its game (issue 36). A web server that then fails to start
        # stops the daemon, and systemd restarts it as for any failure.
        notifier.ready(controller.status)
        log.info("board ready: %s", controller.status)
        if parts.http is not None:
            # primed with the game as it stands (a game begun or resumed above included)
            web = await _start_web(config, state, parts, controller)
        gc.collect()
        gc.freeze()
        gc.enable()  # off since the command line began (pi.cli.main); a no-op otherwise
        if parts.companion is not None:
            companion = asyncio.ensure_future(parts.companion(controller, inbox))
            companion.add_done_callback(lambda _t: stop.set())
        await controller.run(inbox, stop, notifier)
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        if companion is not None and not companion.done():
            companion.cancel()
        notifier.stopping("stopping")
        try:
            # the game's last state drawn before the daemon's last word ("stopped") replaces
            # it: a result shown just before the stop (a trace played out) is never dropped
            if screen is not None:
                screen.flush()
            # first: the lines made durable while stopping are handed out to the listeners
            # (the hall link, the web) while they are still open to take them
            controller.stop()
        finally:
            try:
                if web is not None:
                    await web.stop()
                if link is not None:
                    await link.aclose()  # the network and the disk: off the loop
            finally:
                if screen is not None:
                    screen.close()
                if speech is not None:
                    speech.close()
                scan.stop()  # before the bus closes
                hardware.stop()
    if companion is not None and companion.done() and not companion.cancelled():
        exc = companion.exception()
        if exc is not None:
            raise exc
    failure = controller.files_failure()
    if failure is not None:  # the journal has the game; its record does not: say so
        raise GameFilesError(f"stopped: {failure}")
    return 0


async def _start_web(config: Config, state: StateDir, parts: Parts,
                     controller: BoardController) -> WebServer:
    """The web server (``pi.web.server``) on this loop, subscribed to the journal's lines."""
    from pi.web.server import WebServer  # aiohttp loaded only when the web is on
    assert parts.http is not None
    host, port = parts.http
    web = WebServer(controller, state.root, host, port, actions=controller, games=state,
                    delay_minutes=config.broadcast_delay,
                    simulate=parts.web_routes is not None, routes=parts.web_routes)
    web.feeds.prime()
    controller.listeners.append(web.feeds.on_fed)
    await web.start(fallback=parts.http_default)
    url = f"http://{web.host}:{web.port}/"
    if parts.announce is not None:
        parts.announce(url, state.root)
    else:
        log.info("web pages on %s (arbiter token: damiera token --state-dir %s)", url,
                 shlex.quote(str(state.root)))
    if parts.on_web is not None:
        parts.on_web(web)
    return web


def _start_link(config: Config, state: StateDir, parts: Parts, controller: BoardController,
                loop: asyncio.AbstractEventLoop) -> BoardLink:
    """The hall's MQTT link (``pi.hall.link``), subscribed to the journal's lines; started
    before the first snapshot so that the kept pairing is in the next game's start line."""
    from pi.hall.link import BoardLink  # paho loaded only when the hall is on
    assert config.mqtt is not None
    timers = parts.link_timers
    if timers is None:
        link = BoardLink(config.mqtt, controller, controller, state, loop)
    else:
        link = BoardLink(config.mqtt, controller, controller, state, loop,
                         reconnect=timers.reconnect, connect_grace=timers.connect_grace)
    link.start()
    controller.listeners.append(link.on_fed)
    controller.reissued.append(link.on_reissued)
    if parts.on_link is not None:
        parts.on_link(link)
    return link


def _speech(config: Config) -> BoardSpeech | None:
    """The board's voice when ``[speech]`` turns it on: espeak-ng (``pi.drivers.speech``) with
    the configured voice (else the board's language's), rate and volume, on a queue of its own
    (``pi.board.speech``)."""
    spec = config.speech
    if not spec.enabled:
        return None
    voice = spec.voice or config.language
    speaker = Espeak(voice, spec.rate, spec.volume, spec.wav_dir)
    speaker.check()  # no espeak-ng: said now, in one line, and the board plays on silently
    log.info("speech on: %s -v %s -s %d -a %d, %s", speaker.program, voice, spec.rate,
             spec.volume, "to the audio device" if spec.wav_dir is None
             else f"written to {spec.wav_dir}")
    return BoardSpeech(speaker, translations(config.language))


def _startup_probe(hardware: Hardware, wiring: Wiring, controller: BoardController,
                   language: str) -> str:
    """The board checked before the sensors power up (``pi.drivers.bringup.startup_probe``):
    every chip answers and is of its type, no square chatters and, while the pieces are being
    set up, none is closed outside every allowed start position (stuck). Returns the screen's
    line for what is wrong ("" when nothing), in the board's ``language``; every finding is
    logged (in English)."""
    from pi.drivers.bringup import probe_message, start_squares, startup_probe
    setting_up = controller.phase is Phase.SETUP
    allowed = (start_squares(wiring, controller.expected) if setting_up
               else frozenset(all_squares(wiring.size)))  # a game's pieces may be anywhere
    with hardware.lock.scan():
        findings = startup_probe(hardware.bus, wiring, allowed)
    for finding in findings:
        log.error("start-up probe: %s", finding.line())
    return probe_message(findings, language)


def _orienter(scan: ScanLoop, wiring: Wiring) -> Callable[[frozenset[str]], None]:
    """``orientation = "auto"``: the scanner finds the rotation on its own thread; a snapshot in
    the new orientation follows when it turned."""
    def orient(expected: frozenset[str]) -> None:
        future = scan.submit(lambda s: s.orient(expected, wiring.auto_candidates))

        def done(f: Any) -> None:
            exc = f.exception()
            if exc is not None:
                log.info("orientation not found yet: %s", exc)
        future.add_done_callback(done)
    return orient


def _install_signals(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> list[int]:
    installed: list[int] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # not the main thread (tests): the caller sets ``stop``
    return installed
