"""``damiera run [--config FILE] [--wiring FILE] [--state-dir DIR] [--time-control TAG]
[--simulate ...]``.

Reads and checks the config (``pi.board.config``) and the wiring (``pi.drivers.wiring``) before touching
anything: an error in either is one line on stderr and exit status 2. Then the state directory is
opened (and locked) and :func:`pi.daemon.run_daemon` runs until SIGTERM/SIGINT.

``--mqtt URL --board N [--hall NAME]`` put the board in a hall (``pi/hall/PROTOCOL.md``): over
the config's ``[mqtt]`` and ``board``; the hall defaults to the config's, else ``hall``.

``--simulate`` runs the same daemon on the register-level fakes. The simulator lives with the
fakes (``hardware_mocks.simulate``), which ``pi`` never imports: it is found through the
``damiera.simulator`` entry point of the installed package (pyproject.toml), so the dependency
rule (``pi`` does not import ``hardware_mocks``) holds in the code as in the imports test.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shlex
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import InputError, StateError
from engine.i18n import DEFAULT_LANGUAGE, environment_language, translations
from pi.board.config import MAX_BOARD, Config, load_config, parse_board, parse_http
from pi.daemon import Parts, run_daemon
from pi.board.errors import JournalError
from pi.board.statedir import StateDir, resolve_state_dir
from pi.drivers.faults import Inbox
from pi.drivers.wiring import Wiring, load_wiring

if TYPE_CHECKING:  # built lazily: the hardware drivers are loaded only for a real board
    from pi.drivers.hardware import Hardware

log = logging.getLogger(__name__)

__all__ = ["add_run_parser", "cmd_run", "run_board", "run_config", "hall_options", "DEFAULT_WIRING",
           "DEFAULT_CONFIG", "announce", "with_time_control", "check_clock_buttons"]

DEFAULT_CONFIG = Path("/etc/damiera/damiera.toml")
DEFAULT_WIRING = Path("/etc/damiera/wiring.toml")
DEFAULT_SIM_HTTP = "127.0.0.1:8080"
#: The hall's topic level when ``--mqtt`` is given and the config names none.
DEFAULT_HALL = "hall"


class RunError(InputError):
    """A refusal of ``damiera run``'s options before the board starts (one line, exit 2)."""


def add_run_parser(sub: Any, whole: Any) -> None:
    s = sub.add_parser("run", help="the board daemon (on the Pi, or --simulate on a PC)")
    s.add_argument("--config", default=None,
                   help=f"damiera.toml (default {DEFAULT_CONFIG} when it exists, else defaults)")
    s.add_argument("--wiring", default=None,
                   help=f"wiring file (default {DEFAULT_WIRING}; with --simulate the 8×8 or "
                        "10×10 MCP23017 example)")
    s.add_argument("--state-dir", default=None, help="where games are kept (default: the "
                   "config's state_dir, $STATE_DIRECTORY, or ./.state)")
    s.add_argument("--simulate", action="store_true",
                   help="run on the simulated board (fake I2C bus, gpiozero MockFactory, "
                        "luma dummy OLED), its pieces moved on the /simulator page")
    s.add_argument("--trace", default=None,
                   help="with --simulate: act out this trace's physical events (docs/trace-format.md); the "
                        "game's settings come from its start line; exit when it ends (default: none, "
                        "the game is played on /simulator)")
    s.add_argument("--speed", default=None, metavar="X",
                   help="with --trace: the time scale (default 1, real time; 4: four times as "
                        "fast), or 'max' (as fast as it goes, on a simulated clock)")
    s.add_argument("--time-control", default=None, metavar="TAG",
                   help="the game's time control, a PDN TimeControl: 3600 (an hour each), "
                        "300+3 (5 minutes, 3 s a move), 3600:1/30 (then mosse lampo), '-' for "
                        "none (over the config's time_control; default: the config's, else none)")
    s.add_argument("--http", default=None, metavar="HOST:PORT",
                   help="serve the live pages, feeds and arbiter console here (default "
                        f"{DEFAULT_SIM_HTTP} with --simulate; otherwise the config's http, else "
                        "none; 'off' for none)")
    s.add_argument("--mqtt", default=None, metavar="URL",
                   help="the hall's broker, mqtt://[user@]host[:port] or mqtts://… "
                        "(pi/hall/PROTOCOL.md; default: the config's [mqtt] url, else no hall); "
                        "a password here (user:password@) is visible to every user of the "
                        "machine (ps): give it with --mqtt-password-file or in the config")
    s.add_argument("--mqtt-password-file", default=None, metavar="FILE",
                   help="the broker password: the one line of FILE (mode 0600), for the user "
                        "of --mqtt's URL (default: the URL's or the config's, else none)")
    s.add_argument("--board", default=None, metavar="N",
                   help="this board's number in the hall (1..9999): its topics, its game ids "
                        "(default: the config's board)")
    s.add_argument("--hall", default=None, metavar="NAME",
                   help="the hall's topic level (over the config's [mqtt] hall; default "
                        f"{DEFAULT_HALL!r} with --mqtt)")
    s.add_argument("--quiet", action="store_true",
                   help="log warnings only (the pages' address is printed all the same)")
    s.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    config = hall_options(run_config(args.config), args.mqtt, args.board, args.hall,
                          args.mqtt_password_file)
    # the config's `simulate = true` (the installed service on the simulated board) as --simulate
    simulate = args.simulate or config.simulate
    if (args.trace is not None or args.speed is not None) and not simulate:
        raise RunError("--trace and --speed need --simulate (or simulate = true in the config)")
    if args.speed is not None and args.trace is None:
        raise RunError("--speed needs --trace (it paces the trace's events; a game played on "
                       "/simulator runs in real time)")
    if args.time_control is not None and args.trace is not None:
        raise RunError("--time-control and --trace: the trace's start line sets its time control")
    config = with_time_control(config, args.time_control)
    config = lone_board(config)
    http = _http(args.http, config, simulate)
    if simulate:
        simulator = _simulator()
        return int(simulator(config=config, wiring_path=args.wiring, state_dir=args.state_dir,
                             trace=args.trace, speed=args.speed or "1", http=http,
                             http_default=args.http is None and config.http is None,
                             announce=partial(announce, language=config.language)))
    wiring = load_wiring(args.wiring or DEFAULT_WIRING)
    check_clock_buttons(config, wiring)
    root = resolve_state_dir(args.state_dir, config.state_dir)
    from pi.drivers.hardware import build_hardware

    def build(out: Inbox) -> Hardware:
        return build_hardware(wiring, out, _game_time())

    return run_board(config, wiring, root, Parts(build=build, http=http,
                                                 announce=partial(announce, language=config.language)))


def check_clock_buttons(config: Config, wiring: Wiring) -> None:
    """A clocked game (``clock = true``: a move is completed by pressing the clock, COMP 4.5;
    or a time control) needs both players' clock buttons in the wiring (``[buttons.white]
    clock``, ``[buttons.black] clock``), or the serial link that brings a broadcast PC's
    presses. Raises RunError (one line): the daemon started such a game on a board without
    buttons without a word (issue 37), and no move could ever be completed."""
    if not (config.clock or config.time_control) or wiring.serial is not None:
        return
    missing = [side for side in ("white", "black")
               if "clock" not in wiring.buttons.get(side, {})]
    if missing:
        raise RunError(f"{wiring.source}: no clock button for {' and '.join(missing)} "
                       f"([buttons.{missing[0]}] clock = GPIO): a clocked game (clock = true, "
                       "COMP 4.5, or a time control) cannot be played; wire them and map them "
                       "(damiera hardware map), or set clock = false without a time control")


def announce(url: str, state_dir: Path, language: str = DEFAULT_LANGUAGE) -> None:
    """``Parts.announce``: the pages' address and the full command that prints the arbiter's
    token, on stderr whatever the log level (``--quiet`` hides INFO, never this). The command is
    the one this process was started as (``.venv/bin/damiera`` after ``make run``), with the
    state directory this daemon uses; in the board's ``language``."""
    program = sys.argv[0] if Path(sys.argv[0]).name == "damiera" else "damiera"
    t = translations(language)
    command = f"{shlex.quote(program)} token --state-dir {shlex.quote(str(state_dir.resolve()))}"
    print("damiera: " + t.gettext("web pages on {url} (the arbiter's console: {url}arbiter, its "
                                  "token: {command})").format(url=url, command=command),
          file=sys.stderr, flush=True)


def lone_board(config: Config) -> Config:
    """A lone board's games (no hall: no ``[mqtt]``) with a clock wait for the arbiter's start
    (COMP 4.4.2: "at the scheduled time the arbiter starts the face of the player to move"):
    their start line says ``clock_start: "arbiter"``, so the clock runs from the console's
    ``start_clock``, not from the set-up (a daemon started on a board already set up, minutes
    before play). A hall's boards take theirs from the pairing."""
    if config.mqtt is not None or not config.clock or config.clock_start is not None:
        return config
    from dataclasses import replace

    from engine.trace import CLOCK_START_ARBITER
    return replace(config, clock_start=CLOCK_START_ARBITER)


def with_time_control(config: Config, tag: str | None) -> Config:
    """``--time-control TAG`` over the config's ``time_control`` (None: the config's; ``-``,
    ``?`` or empty: none). Raises RunError (one line) for a tag that is no time control."""
    if tag is None:
        return config
    from dataclasses import replace

    from engine.errors import excerpt
    from engine.timecontrol import MAX_TIME_CONTROL_CHARS, parse_time_control_tag
    if len(tag) > MAX_TIME_CONTROL_CHARS:  # as the config's time_control
        raise RunError(f"--time-control: longer than {MAX_TIME_CONTROL_CHARS} characters: "
                       f"{excerpt(tag)}")
    try:
        control = parse_time_control_tag(tag)
    except InputError as exc:
        raise RunError(f"--time-control: {exc}") from None
    return replace(config, time_control=None if control is None else tag.strip())


def _http(option: str | None, config: Config, simulate: bool) -> tuple[str, int] | None:
    """``--http``: HOST:PORT, or 'off'; without it the config's ``http``, else with --simulate
    127.0.0.1:8080. Checked as the config's ``http`` is (one line, exit 2)."""
    if option is None:
        if config.http is not None:
            return (config.http.host, config.http.port)
        option = DEFAULT_SIM_HTTP if simulate else "off"
    if option.strip().lower() == "off":
        return None
    spec = parse_http(option, lambda problem: RunError(f"--http: {problem}"))
    return (spec.host, spec.port)


def hall_options(config: Config, url: str | None, board: str | None, hall: str | None,
                 password_file: str | None = None) -> Config:
    """``--mqtt``, ``--board``, ``--hall``, ``--mqtt-password-file`` over the config
    (``[mqtt]``, ``board``). Raises RunError (one line; never the URL's password); a password
    in ``--mqtt``'s URL is taken, with a warning that ``ps`` shows it."""
    from dataclasses import replace

    number = config.board
    if board is not None:
        given = parse_board(board.strip())
        if given is None:
            raise RunError(f"--board: a board number 1..{MAX_BOARD}, got {board[:20]!r}")
        number = given
        config = replace(config, board=number)
    spec = config.mqtt
    if url is None and spec is None:
        if hall is not None:
            raise RunError("--hall needs --mqtt (or [mqtt] in the config)")
        if password_file is not None:
            raise RunError("--mqtt-password-file needs --mqtt (or [mqtt] in the config)")
        return config
    # the hall's modules loaded only for a board in a hall: off a lone board's start (issue 36)
    from pi.board.config import PASSWORD_VISIBLE, parse_mqtt_url, with_password_file
    from pi.hall.protocol import SEGMENT
    if url is not None:
        fresh = parse_mqtt_url(url, lambda problem: RunError(f"--mqtt: {problem}"))
        if fresh.password is not None:
            log.warning(PASSWORD_VISIBLE)
        ca = spec.ca if spec is not None and fresh.tls else None
        spec = replace(fresh, hall=spec.hall if spec is not None else DEFAULT_HALL,
                       board=spec.board if spec is not None else None, ca=ca)
    assert spec is not None
    if hall is not None:
        if SEGMENT.fullmatch(hall) is None:
            raise RunError("--hall: letters, digits, '.', '_' or '-' only (an MQTT topic level)")
        spec = replace(spec, hall=hall)
    if board is not None:
        spec = replace(spec, board=number)
    if spec.board is None:
        if number is None:
            raise RunError("--mqtt needs --board N (or board in the config)")
        spec = replace(spec, board=number)
    if password_file is not None:
        spec = with_password_file(spec, password_file,
                                  lambda problem: RunError(f"--mqtt-password-file: {problem}"))
    return replace(config, mqtt=spec)


def run_board(config: Config, wiring: Wiring, root: Path, parts: Parts) -> int:
    """Opens (and locks) the state directory ``root`` and runs the daemon until it stops.
    Raises StateDirError (one line) for a state directory in use or unusable, StateError for a
    journal that cannot be written."""
    state = StateDir.open(root)
    try:
        return asyncio.run(run_daemon(config, wiring, state, parts))
    except JournalError as exc:  # said as what happened to the running board
        raise StateError(f"stopped: {exc}") from None
    finally:
        state.close()


def run_config(path: str | None) -> Config:
    """``--config``: the file ``path``, else ``/etc/damiera/damiera.toml`` when it exists, else
    the defaults, in the language of the environment (gettext's: ``LANG=it_IT.UTF-8``
    is Italian; a board's config file says its own ``language``, English when it says none).
    Raises ConfigError (one line)."""
    if path is None:
        if DEFAULT_CONFIG.exists():
            path = str(DEFAULT_CONFIG)
        else:
            return Config(source="(defaults)", language=environment_language(os.environ))
    return load_config(path)


def _game_time() -> Any:
    from pi.drivers.timebase import GameTime
    return GameTime()


def _simulator() -> Any:
    from importlib.metadata import entry_points  # ~10 ms of imports: only for --simulate
    found = entry_points(group="damiera", name="simulator")
    for ep in found:
        return ep.load()
    raise RunError("--simulate: the simulator is not installed (entry point damiera/simulator "
                   "of the damiera package; reinstall with pip install -e .)")
