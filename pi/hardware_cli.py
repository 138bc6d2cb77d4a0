"""``damiera hardware probe|watch|map|test|diagram`` and ``damiera doctor``: bringing up a real
board. The forms are a contract:

* ``damiera hardware probe [--wiring FILE] [--bus N]``
* ``damiera hardware watch [--wiring FILE]`` (``--seconds S``: stop after S seconds; ``--http
  HOST:PORT``: the board on a web page too)
* ``damiera hardware map --variant V --out FILE``
* ``damiera hardware test --wiring FILE --variant V`` (``--free``: the squares in any order;
  ``--state-dir DIR``, ``--config FILE``: where the report goes, found as ``damiera token``
  finds the state directory)
* ``damiera doctor`` (``--state-dir DIR``, ``--config FILE``: the state directory whose free
  space and fsync latency count)
* ``damiera hardware diagram --wiring FILE [--out FILE]``: the wiring as an SVG drawing.
* ``damiera hardware calibrate --wiring FILE [--reads N]``: an analog Hall board's guided
  calibration (empty board, white men, black men, white kings, black kings), each square's
  levels written into the wiring file's ``[calibration]``; ``hardware test`` on such a board
  then names every square that cannot tell empty, man, king and colour apart with margin.

Each takes ``--simulate`` (the fakes of ``hardware_mocks``, found through the ``damiera/bench``
entry point: ``pi`` never imports them) with ``--fault KIND:ARG`` (repeatable:
``missing-chip:0x21``, ``swap:SQ,SQ``, ``dead:SQ``, ``stuck:SQ``, ``chatter:SQ``, ``bus-off``;
on an analog board ``gain:SQ:F``, ``clip:SQ:MT``).
Exit status 0 when all is well, 1 when the board (or the Pi) has a fault, 2 on bad input (one
line on stderr, through ``pi.cli``'s one catch).

The logic is in the drivers (:mod:`pi.drivers.probe`, :mod:`pi.drivers.bringup`,
:mod:`pi.drivers.wiring_map`, :mod:`pi.drivers.board_tester`, :mod:`pi.drivers.system`,
:mod:`pi.drivers.diagram`) and, for the doctor, :mod:`pi.board.doctor` (the Pi's checks, the
OLED, the state directory's free space and fsync latency); here are the options, the output
(each finding printed as it is found), the state directory (the test's report) and the choice
of bench.

What these commands print for a person is in the terminal's language
(:func:`terminal_language`: the standard gettext environment, ``LANG=it_IT.UTF-8`` is Italian);
the levels OK/WARN/FAIL, the files written (the wiring, the test's report) and the errors on
stderr stay English.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.board import Board
from engine.errors import InputError
from engine.i18n import N_, environment_language, translations
from engine.variants import VARIANTS, find_variant
from pi.drivers.board_tester import run_board_test
from pi.drivers.bringup import Bench, HostBench, PlantedFault, WatchView, parse_fault, watch
from pi.drivers.wiring_map import map_wiring, wiring_text
from pi.drivers.errors import BusUnavailableError
from pi.drivers.probe import FAIL, OK, WARN, Finding, probe_chips, propose_wiring, worst
from pi.drivers.wiring import Wiring, load_wiring

if TYPE_CHECKING:  # the command line parses every command: their modules load when run
    from pi.drivers.analog import AnalogGroup
    from http.server import ThreadingHTTPServer

__all__ = ["add_hardware_parsers", "EXIT_OK", "EXIT_FAULT", "REPORTS_DIR", "terminal_language"]

EXIT_OK, EXIT_FAULT = 0, 1
#: The test reports' folder in the state directory (one pair of files per test).
REPORTS_DIR = "board-tests"


def add_hardware_parsers(sub: Any, whole: Callable[[str], int], default_wiring: Path,
                         state_root: Callable[[str | None, str | None], Path]) -> None:
    """The ``hardware`` and ``doctor`` subcommands on ``damiera``'s subparsers;
    ``default_wiring``: ``watch``'s wiring file without ``--wiring`` (the daemon's);
    ``state_root(state_dir, config)``: the daemon's state directory as ``damiera token`` finds
    it (``--state-dir``, the config's, ``$STATE_DIRECTORY``, ``./.state``)."""
    hw = sub.add_parser("hardware", help="bring up a board: probe, watch, map, test, diagram")
    cmds = hw.add_subparsers(dest="hardware_command", required=True, parser_class=type(hw),
                             metavar="COMMAND", help="probe, watch, map, test or diagram")

    def common(p: Any) -> None:
        p.add_argument("--simulate", action="store_true",
                       help="on the register-level fakes instead of /dev/i2c-*")
        p.add_argument("--fault", action="append", default=None, metavar="KIND:ARG",
                       help="with --simulate: plant a fault (missing-chip:0x21, swap:SQ,SQ, "
                            "dead:SQ, stuck:SQ, chatter:SQ, bus-off; SQ a square's name, b1, or "
                            "with --variant its official number, 22; a square the wiring "
                            "senses); repeatable (default: none)")

    def state_options(p: Any, what: str) -> None:
        p.add_argument("--state-dir", default=None, help=f"{what} (default: the config's "
                       "state_dir, $STATE_DIRECTORY, or ./.state)")
        p.add_argument("--config", default=None,
                       help="damiera.toml, for its state_dir (default: none)")

    s = cmds.add_parser("probe", help="what answers on the bus, set against the wiring file")
    s.add_argument("--wiring", default=None,
                   help="the wiring file (default: none — propose one for what answers)")
    s.add_argument("--bus", type=whole, default=None, help="I²C bus number (default: the "
                   "wiring's, else 1)")
    common(s)
    s.set_defaults(func=cmd_probe)

    s = cmds.add_parser("watch", help="the live occupancy of every square")
    s.add_argument("--wiring", default=None, help=f"the wiring file (default {default_wiring}; "
                   "with --simulate the 8×8 MCP23017 example)")
    s.add_argument("--seconds", type=whole, default=None,
                   help="stop after this many seconds (default: Ctrl-C; 2 with --simulate)")
    s.add_argument("--http", default=None, metavar="HOST:PORT",
                   help="also show the board on a web page here, which reads /watch.json "
                        "(default: the terminal only)")
    common(s)
    s.set_defaults(func=cmd_watch, default_wiring=default_wiring)

    s = cmds.add_parser("map", help="learn the wiring, one square at a time")
    s.add_argument("--variant", required=True, help=", ".join(VARIANTS))
    s.add_argument("--out", required=True, help="the wiring file to write")
    s.add_argument("--interrupt", type=whole, default=None, metavar="GPIO",
                   help="the BCM GPIO the expanders' INT is wired to (default: none written; "
                        "the daemon then polls)")
    s.add_argument("--buzzer", type=whole, default=None, metavar="GPIO",
                   help="the BCM GPIO of the buzzer (default: none written)")
    common(s)
    s.set_defaults(func=cmd_map)

    s = cmds.add_parser("test", help="a guided test of a wired board, with a report")
    s.add_argument("--wiring", required=True, help="the board's wiring file")
    s.add_argument("--variant", required=True, help=", ".join(VARIANTS))
    s.add_argument("--free", action="store_true", help="the squares in any order, ticked "
                   "off as they are seen (swapped wires cannot be told then)")
    state_options(s, "where the report goes")
    common(s)
    s.set_defaults(func=cmd_test, state_root=state_root)

    s = cmds.add_parser("calibrate", help="an analog Hall board's levels, square by square, "
                        "into its wiring file")
    s.add_argument("--wiring", required=True, help="the board's wiring file (kind = "
                   "\"analog-hall\"); its [calibration] is rewritten")
    s.add_argument("--reads", type=whole, default=32, help="conversions averaged per square "
                   "and step (default 32)")
    common(s)
    s.set_defaults(func=cmd_calibrate)

    s = cmds.add_parser("diagram", help="the wiring file drawn as an SVG")
    s.add_argument("--wiring", required=True, help="the wiring file to draw")
    s.add_argument("--out", default=None, help="the SVG file (default: standard output)")
    s.set_defaults(func=cmd_diagram)

    s = sub.add_parser("doctor", help="check the Pi: I²C, groups, GPIO, OLED, disk, clock, unit")
    state_options(s, "the daemon's state directory, whose disk is measured")
    common(s)
    s.set_defaults(func=cmd_doctor, state_root=state_root)


# ---------------------------------------------------------------------------- helpers

def _faults(args: argparse.Namespace, size: int, wiring: Wiring | None) -> list[PlantedFault]:
    """``--fault``: squares by name, or by the variant's official numbers where the command
    takes ``--variant`` (map, test); on a wiring, only squares a sensor is wired to."""
    if args.fault and not args.simulate:
        raise InputError("--fault needs --simulate")
    name = getattr(args, "variant", None)
    variant = find_variant(name) if isinstance(name, str) else None
    wired = wiring.sensed_squares if wiring is not None else None
    return [parse_fault(text, size, variant, wired) for text in args.fault or ()]


def _bench(args: argparse.Namespace, wiring: Wiring | None, size: int = 8) -> Bench:
    faults = _faults(args, wiring.size if wiring is not None else size, wiring)
    if not args.simulate:
        return HostBench()
    from importlib.metadata import entry_points
    for ep in entry_points(group="damiera", name="bench"):
        make = ep.load()
        bench: Bench = make(wiring=wiring, size=size, faults=faults)
        return bench
    raise InputError("--simulate: the simulator is not installed (entry point "
                           "damiera/bench of the damiera package; pip install -e .)")


def terminal_language() -> str:
    """The language of what a command prints for a person: the process's environment, read as
    gettext reads it (:func:`engine.i18n.environment_language`)."""
    return environment_language(os.environ)


def _say(line: str) -> None:
    print(line, flush=True)


def _print(finding: Finding) -> None:
    print(finding.shown(terminal_language()), flush=True)


def _summary(findings: Sequence[Finding]) -> int:
    """The last line: the verdict and the count of each level (``OK: 10 ok, 0 warnings,
    0 faults``), the counts with their plural forms in the terminal's language."""
    counts = {level: sum(1 for f in findings if f.level == level) for level in (OK, WARN, FAIL)}
    verdict = worst(findings)
    t = translations(terminal_language())
    warnings = t.ngettext("{n} warning", "{n} warnings", counts[WARN]).format(n=counts[WARN])
    faults = t.ngettext("{n} fault", "{n} faults", counts[FAIL]).format(n=counts[FAIL])
    print(f"{verdict}: {counts[OK]} ok, {warnings}, {faults}", flush=True)
    return EXIT_FAULT if verdict == FAIL else EXIT_OK


def _default_wiring(path: str | None, simulate: bool, default: Path) -> Wiring:
    if path is not None:
        return load_wiring(path)
    if simulate:
        from pi.drivers.wiring import example_wiring
        return load_wiring(example_wiring("mcp23017_8x8"))
    return load_wiring(default)


def _bus_gone(exc: Exception) -> int:
    """The bus cannot be opened or went away: a board fault, said as one finding."""
    finding = Finding(FAIL, "bus", str(exc), N_("run damiera doctor"))
    _print(finding)
    return _summary([finding])

# ---------------------------------------------------------------------------- commands

def cmd_probe(args: argparse.Namespace) -> int:
    wiring = load_wiring(args.wiring) if args.wiring is not None else None
    if args.bus is not None and not 0 <= args.bus <= 255:
        raise InputError(f"--bus: an I²C bus number 0..255, got {args.bus}")
    bench = _bench(args, wiring)
    number: int | str = args.bus if args.bus is not None else (wiring.bus if wiring else 1)
    if wiring is not None and wiring.is_analog:
        from pi.drivers.calibration import probe_analog
        try:
            findings = probe_analog(wiring, bench.open_bus(number))
        except (BusUnavailableError, OSError) as exc:
            return _bus_gone(exc)
        for finding in findings:
            _print(finding)
        return _summary(findings)
    try:
        bus = bench.open_bus(number)
        findings, chips = probe_chips(bus, wiring)
    except (BusUnavailableError, OSError) as exc:
        return _bus_gone(exc)
    for finding in findings:
        _print(finding)
    if wiring is not None:
        from pi.drivers.bringup import BoardSquares
        from pi.drivers.probe import closed_squares
        from pi.drivers.probe import check_lines
        squares = BoardSquares(wiring, bus)
        squares.init()
        closed, changed = closed_squares(squares.read)
        more = [Finding(FAIL, s, N_("chattering"), N_("a loose joint or a broken switch"))
                for s in sorted(changed)]
        more += [Finding(FAIL, s, N_("closed with the board empty"), N_(
            "a stuck switch, or a piece left on it (probe wants an empty board)"))
            for s in sorted(closed)]
        more += check_lines(wiring, bench.pin_factory)
        for finding in more:
            _print(finding)
        findings += more
    elif chips:
        oled = next((int(f.subject, 16) for f in findings if "OLED" in f.text), None)
        print("# " + translations(terminal_language()).gettext(
            "no wiring file: a proposal for what answers"))
        print(propose_wiring(chips, display=oled))
    else:
        findings.append(Finding(FAIL, "bus", N_("no expander answers at 0x20-0x27"),
                                N_("check the supply and SDA/SCL")))
        _print(findings[-1])
    return _summary(findings)


def cmd_watch(args: argparse.Namespace) -> int:
    wiring = _default_wiring(args.wiring, args.simulate, args.default_wiring)
    bench = _bench(args, wiring)
    seconds = args.seconds if args.seconds is not None else (2 if args.simulate else None)
    view = WatchView(wiring.size)
    server = None
    if args.http is not None:
        from pi.board.config import parse_http
        spec = parse_http(args.http, lambda problem: InputError(f"--http: {problem}"))
        server = serve_watch(view, spec.host, spec.port, terminal_language())
        print(translations(terminal_language()).gettext("watch page: {url}").format(
            url=f"http://{spec.host}:{server.server_port}/"), flush=True)
    try:
        watch(bench, wiring, _say, seconds, view, language=terminal_language())
    except (BusUnavailableError, OSError) as exc:
        return _bus_gone(exc)
    except KeyboardInterrupt:
        pass
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()
    return EXIT_OK


#: The watch page's title and heading (in the terminal's language, :func:`watch_page`).
WATCH_TITLE = N_("damiera hardware watch")
#: The watch page: the board drawn from /watch.json four times a second, closed squares dark,
#: each square's bounces in it, the newest changes below (``{lang}``, ``{title}``: filled by
#: :func:`watch_page`).
WATCH_PAGE = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>
<style>body{font-family:sans-serif}td{width:44px;height:44px;border:1px solid #555;
text-align:center;font-size:11px}td.on{background:#333;color:#fff}pre{font-size:12px}</style>
</head><body><h1>{title}</h1><table id="board"></table><pre id="log"></pre>
<script>
async function tick() {
  const s = await (await fetch("watch.json")).json();
  const files = "abcdefghij".slice(0, s.size);
  let html = "";
  for (let r = s.size; r >= 1; r--) {
    html += "<tr>";
    for (const f of files) {
      const sq = f + r, on = s.closed.includes(sq), b = s.bounces[sq] || 0;
      html += `<td class="${on ? "on" : ""}">${sq}${b ? "<br>" + b : ""}</td>`;
    }
    html += "</tr>";
  }
  document.getElementById("board").innerHTML = html;
  document.getElementById("log").textContent = s.changes.slice().reverse().join("\n");
}
setInterval(tick, 250); tick();
</script></body></html>
"""


def watch_page(language: str) -> str:
    """The watch page, its title in ``language`` (the terminal's: its lines are too)."""
    from html import escape
    title = escape(translations(language).gettext(WATCH_TITLE))
    # the script's braces are the page's own: only the two fields are filled
    return WATCH_PAGE.replace("{lang}", escape(language)).replace("{title}", title)


def serve_watch(view: WatchView, host: str, port: int,
                language: str = "en") -> ThreadingHTTPServer:
    """The watch page on ``host:port``, served on a thread of its own until ``shutdown()``:
    ``/`` the page, ``/watch.json`` ``view.snapshot()``. Raises InputError (one line, exit 2) when
    the address cannot be taken."""
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    page = watch_page(language).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # the name http.server calls
            if self.path == "/":
                body, kind = page, "text/html; charset=utf-8"
            elif self.path == "/watch.json":
                body, kind = json.dumps(view.snapshot()).encode(), "application/json"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the terminal shows the board."""

    try:
        server = ThreadingHTTPServer((host, port), Handler)
    except OSError as exc:
        raise InputError(f"--http: cannot listen on {host}:{port} "
                               f"({exc.strerror or exc})") from None
    threading.Thread(target=server.serve_forever, name="watch-page", daemon=True).start()
    return server


def cmd_map(args: argparse.Namespace) -> int:
    variant = find_variant(args.variant)
    bench = _bench(args, None, variant.size)
    try:
        result = map_wiring(bench, variant, _say, language=terminal_language(),
                            interrupt=_gpio("--interrupt", args.interrupt),
                            buzzer=_gpio("--buzzer", args.buzzer))
    except (BusUnavailableError, OSError) as exc:
        return _bus_gone(exc)
    for finding in result.findings:
        _print(finding)
    if not result.ok:
        print(translations(terminal_language()).gettext("{file}: not written").format(
            file=args.out), flush=True)
        return _summary(result.findings)
    mapped = sum(len(pins) for pins in result.squares.values())
    Path(args.out).write_text(wiring_text(result), encoding="utf-8")
    load_wiring(args.out)  # what was written reads back as a wiring file
    findings = [*result.findings, Finding(OK, args.out, N_(
        "{squares} squares on {chips} expanders written").format(squares=mapped,
                                                                 chips=len(result.chips)))]
    _print(findings[-1])
    return _summary(findings)


def _gpio(option: str, value: int | None) -> int | None:
    """A BCM GPIO of the header (2..27), or None. Raises InputError (one line)."""
    if value is not None and not 2 <= value <= 27:
        raise InputError(f"{option}: a BCM GPIO 2..27, got {value}")
    return value


def _analog_bus(args: argparse.Namespace, wiring: Wiring) -> tuple[Bench, list[AnalogGroup]]:
    """The bench and the analog groups of an analog Hall wiring on its bus."""
    from pi.drivers.bus import ManagedBus
    from pi.drivers.hardware import analog_groups
    bench = _bench(args, wiring)
    bus = ManagedBus(bench.open_bus(wiring.bus), clock=bench.clock)
    groups, _identity = analog_groups(wiring, bus)
    return bench, groups


def cmd_calibrate(args: argparse.Namespace) -> int:
    from engine.events import piece_code
    from pi.drivers.bringup import Request
    from pi.drivers.calibration import calibrate, margins, plan, store_calibration
    from pi.drivers.errors import ChipFailure
    wiring = load_wiring(args.wiring)
    if not wiring.is_analog:
        raise InputError(f"{wiring.source}: not an analog Hall board (kind = \"analog-hall\"):"
                         " nothing to calibrate")
    if not 1 <= args.reads <= 4096:
        raise InputError(f"--reads: 1..4096, got {args.reads}")
    try:
        bench, groups = _analog_bus(args, wiring)
    except BusUnavailableError as exc:
        return _bus_gone(exc)
    t = translations(terminal_language())
    names = {"wm": N_("a white man"), "bm": N_("a black man"),
             "wk": N_("a white king (two white men stacked)"),
             "bk": N_("a black king (two black men stacked)")}
    steps = {"empty": N_("empty board"), "white": N_("white men"), "black": N_("black men"),
             "white_king": N_("white kings"), "black_king": N_("black kings")}
    men = 20 if wiring.size == 10 else 12

    def ready(level: str, piece: Any, squares: list[str]) -> None:
        if piece is None:
            text = t.gettext("take every piece off the board")
            request = Request("clear", text)
        else:
            code = piece_code(piece)
            text = t.gettext("put {piece} on each of {squares}, nothing elsewhere").format(
                piece=t.gettext(names[code]), squares=" ".join(squares))
            request = Request("put", text, tuple(squares), piece=code)
        step = t.gettext(steps[level])
        if args.simulate:
            _say(f"{step}: {text}")
            bench.act(request)
            return
        _say(t.gettext("{step}: {text}; then press Enter").format(step=step, text=text))
        if sys.stdin.readline() == "":
            raise InputError("calibration stopped (end of input): the wiring file is unchanged")

    try:
        table = calibrate(groups, plan(wiring.sensed_squares, men), ready, args.reads)
    except ChipFailure as exc:
        return _bus_gone(exc.error)
    except ValueError as exc:
        raise InputError(f"calibration: {exc}; the wiring file is unchanged") from None
    try:
        calibrated = store_calibration(args.wiring, table)
    except OSError as exc:
        raise InputError(f"{args.wiring}: cannot be written ({exc.strerror or exc})") from None
    found = margins(calibrated)
    named = [m for m in found if m.problems()]
    _say(t.ngettext("calibrated {n} square into {file}; {named} cannot tell the pieces apart "
                    "with margin (damiera hardware test names them)",
                    "calibrated {n} squares into {file}; {named} cannot tell the pieces apart "
                    "with margin (damiera hardware test names them)", len(table)).format(
        n=len(table), file=args.wiring, named=len(named)))
    return EXIT_FAULT if named else EXIT_OK


def analog_test(wiring: Wiring) -> int:
    """``hardware test`` on an analog Hall board: each square's margins from its calibration
    (:func:`pi.drivers.calibration.margins`); the squares that cannot tell empty, man, king
    and colour apart with margin are named, with by how much. Exit 1 when any is."""
    from pi.drivers.calibration import margins
    assert wiring.analog is not None
    t = translations(terminal_language())
    found = margins(wiring)
    if not wiring.analog.calibration:
        _say("WARN " + t.gettext("{file}: not calibrated (damiera hardware calibrate): the "
                                 "nominal levels are assumed").format(file=wiring.source))
    for m in found:
        for problem in m.problems(t):
            _say(f"FAIL {m.square}: {problem}")
    if found:
        _say(t.gettext("smallest margins (fraction of a man's field, after the worst piece and "
                       "noise): empty/man {empty}, man/king {king}, colour {colour}").format(
            empty=f"{min(m.empty_man for m in found) * 100:.0f} %",
            king=f"{min(m.man_king for m in found) * 100:.0f} %",
            colour=f"{min(m.colour for m in found) * 100:.0f} %"))
    squares = len({m.square for m in found if m.problems()})
    _say(("FAIL" if squares else "OK") + ": " + t.ngettext(
        "{n} square, {named} named", "{n} squares, {named} named", len(found)).format(
        n=len(found), named=squares))
    return EXIT_FAULT if squares else EXIT_OK


def cmd_test(args: argparse.Namespace) -> int:
    from pi.board.statedir import atomic_write
    variant = find_variant(args.variant)
    wiring = load_wiring(args.wiring)
    if wiring.size != variant.size:
        raise InputError(f"{wiring.source}: a {wiring.size}x{wiring.size} board cannot "
                               f"play {variant.name}")
    if wiring.is_analog:
        if args.fault:
            raise InputError("--fault: an analog board's test reads its calibration; plant "
                             "the fault when calibrating (hardware calibrate --simulate)")
        return analog_test(wiring)
    bench = _bench(args, wiring)
    expected = Board(None, variant).occupied_algebraic()
    try:
        report = run_board_test(bench, wiring, variant, expected, _say, free=args.free,
                                language=terminal_language())
    except (BusUnavailableError, OSError) as exc:
        return _bus_gone(exc)
    now = datetime.now(timezone.utc)
    report.when = now.isoformat(timespec="seconds")
    print(report.to_text(terminal_language()), end="", flush=True)
    folder = args.state_root(args.state_dir, args.config) / REPORTS_DIR
    try:
        folder.mkdir(parents=True, exist_ok=True)
        stamp = now.strftime("%Y%m%dT%H%M%SZ")
        base = folder / f"{stamp}-{Path(wiring.source).stem}"
        atomic_write(base.with_suffix(".txt"), report.to_text())
        atomic_write(base.with_suffix(".json"), report.json_text())
    except OSError as exc:
        raise InputError(f"{folder}: the report cannot be written "
                               f"({exc.strerror or exc})") from None
    print(translations(terminal_language()).gettext("report: {files}").format(
        files=f"{base}.txt, {base}.json"), flush=True)
    return EXIT_FAULT if report.verdict == FAIL else EXIT_OK


def cmd_diagram(args: argparse.Namespace) -> int:
    from pi.drivers.diagram import wiring_svg
    svg = wiring_svg(load_wiring(args.wiring), terminal_language())
    if args.out is None:
        sys.stdout.write(svg)
    else:
        Path(args.out).write_text(svg, encoding="utf-8")
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from pi.board.doctor import doctor_checks
    findings = []
    for finding in doctor_checks(_bench(args, None),
                                 lambda: args.state_root(args.state_dir, args.config)):
        _print(finding)
        findings.append(finding)
    return _summary(findings)
