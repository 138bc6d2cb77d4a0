"""The ``damiera`` command line. Other tools rely on these exact forms and outputs:

* ``damiera perft --variant V [--fen FEN] --depth N [--divide]``: the last line printed is the node
  count at depth N; ``--divide`` first prints ``move: count`` for every root move.
* ``damiera moves --variant V [--fen FEN] --json``: one JSON line per position, a list of moves
  ``{"from", "to", "path", "captures", "notation"}``; without ``--fen``, FENs are read from
  standard input, one per line, and answered one line each, in order.
* ``damiera replay TRACE.jsonl [--json]``: the report of docs/trace-format.md.
* ``damiera pdn FILE [--variant V]``: read a PDN file, replay every move through the rules and
  print the game(s) as PDN. A game holding a capture written short that the rest of the game
  cannot decide (``3x26`` fitting two captures) is left out, named on standard error with its
  move, and the file's other games are printed: exit status ``EXIT_PARTIAL`` (3).
* ``damiera report GAME_DIR [--pdf FILE] [--html FILE] [--lang it|en]``: a game's printable
  report for decisions and appeals (``pi.board.report``), from the journal in ``GAME_DIR``
  (``STATE/games/<id>/``, or a hub's ``DIR/boards/<N>/games/<id>/``); prints the files written.
* ``damiera bench``: perft leaves per second per variant, and the ratio to pydraughts.
* ``damiera hardware probe|watch|map|test`` and ``damiera doctor``: bringing up a board
  (``pi.hardware_cli``); exit 0 all well, 1 a fault of the board or the Pi, 2 bad input.

Bad input (unknown variant, malformed FEN, impossible position, bad trace or PDN, an option out of
its range, a file with no game) gives one line on standard error quoting at most an excerpt of
the bad input, exit status 2 and nothing on standard output (``moves`` reading standard input
keeps the answers to the lines before the bad one), never a traceback. Inputs are read with
limits no real one reaches (``engine.pdn.MAX_PDN_CHARS`` for a PDN file,
``engine.trace.MAX_LINE_CHARS`` for a line of a trace or of standard input), so ``/dev/zero`` is
refused, not read until the memory runs out; a trace is replayed as it is read.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import IO, Iterator, NoReturn, Sequence

from engine.board import Board
from engine.errors import (DamieraError, InputError, InputTooLargeError, UndecidedCaptureError,
                           excerpt)
from engine.trace import MAX_LINE_CHARS
from engine.variants import VARIANTS, find_variant

EXIT_BAD_INPUT = 2
#: ``damiera pdn``: the games printed are not all the file's (each one left out is named).
EXIT_PARTIAL = 3
#: Deepest perft counted: far beyond any count that finishes, and well inside the recursion limit.
MAX_PERFT_DEPTH = 64
#: Longest ``damiera bench --seconds``: an hour per measurement.
MAX_BENCH_SECONDS = 3600.0
#: Longest error line written (an argparse message quotes the bad value whole).
_MAX_MESSAGE = 200


def _one_line(message: str, limit: int = _MAX_MESSAGE) -> str:
    text = " ".join(message.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2 (argparse prints usage too)
        self.exit(EXIT_BAD_INPUT, _one_line(f"damiera: {message}") + "\n")


def _fail(message: str) -> int:
    print(_one_line(f"damiera: {message}"), file=sys.stderr)
    return EXIT_BAD_INPUT


def _whole(text: str) -> int:
    """An option's whole number: ASCII digits, an optional sign, a few digits (``int()`` would
    also take ``²``, Arabic-Indic digits and thousands of digits)."""
    body = text.strip().removeprefix("-")
    if not (body.isascii() and body.isdigit() and len(body) <= 9):
        raise argparse.ArgumentTypeError(f"not a whole number: {excerpt(text)}")
    return int(text)


_DECIMAL = re.compile(r"[0-9]{1,9}(?:\.[0-9]{0,9})?|\.[0-9]{1,9}")


def _seconds(text: str) -> float:
    """``--seconds``: a finite number of seconds, more than 0, at most ``MAX_BENCH_SECONDS``."""
    plain = _DECIMAL.fullmatch(text.strip()) is not None  # no '1_0', 'nan', '²', '1e308'
    value = float(text) if plain else math.nan
    if not (math.isfinite(value) and 0 < value <= MAX_BENCH_SECONDS):
        raise argparse.ArgumentTypeError(
            f"not a number of seconds above 0 and up to {MAX_BENCH_SECONDS:g}: {excerpt(text)}")
    return value


def _capped_lines(fh: IO[str]) -> Iterator[str]:
    """The lines of ``fh``, each read with a cap: a line longer than ``MAX_LINE_CHARS`` comes as
    its first ``MAX_LINE_CHARS + 1`` characters, and reading stops there (the consumer refuses
    it; it is never read whole into memory)."""
    while True:
        line = fh.readline(MAX_LINE_CHARS + 1)
        if not line:
            return
        yield line
        if len(line) > MAX_LINE_CHARS:
            return


def _cmd_perft(args: argparse.Namespace) -> int:
    board = Board(args.fen, find_variant(args.variant))
    if args.depth < 0:
        return _fail("--depth must be 0 or more")
    if args.depth > MAX_PERFT_DEPTH:
        return _fail(f"--depth must be {MAX_PERFT_DEPTH} or less")
    if args.divide and args.depth >= 1:
        total = 0
        for move, count in board.divide(args.depth):
            print(f"{board.notation(move)}: {count}")
            total += count
        print(total)
    else:
        print(board.perft(args.depth))
    return 0


def _moves_line(board: Board) -> str:
    return json.dumps([m.to_dict(board.notation(m)) for m in board.legal_moves])


def _cmd_moves(args: argparse.Namespace) -> int:
    variant = find_variant(args.variant)
    if args.fen is not None:
        board = Board(args.fen, variant)
        print(_moves_line(board) if args.json else " ".join(board.notation(m) for m in board.legal_moves))
        return 0
    if sys.stdin is None:  # started with standard input closed (``<&-``)
        return _fail("no --fen and standard input is closed: give --fen FEN or FENs on "
                     "standard input")
    lineno = 0
    lines = _capped_lines(sys.stdin)
    while True:
        try:
            line = next(lines, None)
            if line is None:
                break
            lineno += 1
            if len(line) > MAX_LINE_CHARS:
                raise InputTooLargeError(f"longer than {MAX_LINE_CHARS:,} characters")
            board = Board(line.strip(), variant)
        except InputError as exc:
            sys.stdout.flush()
            return _fail(f"standard input line {lineno}: {exc}")
        except UnicodeDecodeError:
            sys.stdout.flush()
            return _fail(f"standard input line {lineno + 1}: not UTF-8 text")
        out = _moves_line(board) if args.json else " ".join(board.notation(m) for m in board.legal_moves)
        print(out, flush=True)
    return 0


def _spool() -> tempfile.SpooledTemporaryFile[str]:
    """Text kept aside until it is printed: in memory up to 4 MB, then in a temporary file."""
    return tempfile.SpooledTemporaryFile(max_size=4 * 1024 * 1024, mode="w+", encoding="utf-8")


class _Gathered:
    """Pieces of text handed to ``spool`` 64 kB at a time: a spool checks its size at every
    write (a ``tell()``), which cost a third of ``damiera replay --json``'s time write by write."""

    def __init__(self, spool: tempfile.SpooledTemporaryFile[str]) -> None:
        self._spool = spool
        self._parts: list[str] = []
        self._size = 0

    def write(self, text: str) -> None:
        self._parts.append(text)
        self._size += len(text)
        if self._size >= 65536:
            self.flush()

    def flush(self) -> None:
        self._spool.write("".join(self._parts))
        self._parts.clear()
        self._size = 0


def _cmd_replay(args: argparse.Namespace) -> int:
    from engine.replay import RAISE, Replay, StreamedReport
    from pi.hardware_cli import terminal_language
    # Streamed both ways: each line is parsed and fed as it is read, and each move, once
    # settled, goes into the report's body (in memory up to 4 MB, then on disk) and leaves the
    # game's memory; the report is printed only once the whole trace has been read (a bad line
    # late in it prints nothing). A trace of any length in the memory of a short one.
    with _spool() as body, _spool() as pdn_body:
        try:
            with open(args.trace, encoding="utf-8") as fh:
                replay = Replay.read(_capped_lines(fh), RAISE)
                # the readable summary in the terminal's language (gettext's environment)
                moves, pdn = _Gathered(body), _Gathered(pdn_body)
                stream = StreamedReport(replay, "json" if args.json else "text", moves.write,
                                        pdn.write, language=terminal_language())
                for _ in replay:
                    stream.settle()
                head, middle, tail = stream.finish()
                moves.flush()
                pdn.flush()
        except OSError as exc:
            return _fail(f"cannot read {args.trace}: {exc.strerror}")
        except UnicodeDecodeError:
            return _fail(f"{args.trace}: not UTF-8 text")
        sys.stdout.write(head)
        for part, text in ((body, middle), (pdn_body, tail + "\n")):
            part.seek(0)
            shutil.copyfileobj(part, sys.stdout)
            sys.stdout.write(text)
    sys.stdout.flush()
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from pi.board.report import read_game_dir
    from pi.board.report_render import report_html, report_pdf
    report = read_game_dir(Path(args.game_dir))  # GameDirError: one line, exit 2
    pdf, html = args.pdf, args.html
    if pdf is None and html is None:
        pdf = f"{report.game_id}-report.pdf"
    outputs: list[tuple[str, bytes]] = []
    if pdf is not None:
        outputs.append((pdf, report_pdf(report, args.lang)))
    if html is not None:
        outputs.append((html, report_html(report, args.lang).encode("utf-8")))
    for name, data in outputs:
        if name == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
            continue
        try:
            Path(name).write_bytes(data)
        except OSError as exc:
            return _fail(f"cannot write {name}: {exc.strerror or exc}")
        print(name)
    return 0


def _decode_pdn(data: bytes) -> str:
    """PDN bytes as text: UTF-8 (a byte-order mark dropped), else Windows-1252 / Latin-1, the
    encodings of the PGN standard and of older Windows programs' archives (``Città``)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("cp1252")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _cmd_pdn(args: argparse.Namespace) -> int:
    from engine.pdn import MAX_PDN_CHARS, iter_pdn, write_pdn
    if args.variant is not None:
        find_variant(args.variant)  # checked even when every game names its own
    try:
        with open(args.file, "rb") as fh:
            data = fh.read(MAX_PDN_CHARS + 1)  # a cap: /dev/zero is refused, not read for ever
    except OSError as exc:
        return _fail(f"cannot read {args.file}: {exc.strerror}")
    if len(data) > MAX_PDN_CHARS:
        return _fail(f"{args.file}: larger than {MAX_PDN_CHARS // (1024 * 1024)} MB, not a PDN "
                     "file damiera reads")
    text = _decode_pdn(data)
    # One game at a time, its PDN kept aside (in memory up to 16 MB, then on disk) and printed
    # only once every game has been read: a bad game late in an archive prints nothing.
    left_out: list[UndecidedCaptureError] = []
    with tempfile.SpooledTemporaryFile(max_size=16 * 1024 * 1024, mode="w+",
                                       encoding="utf-8") as out:
        count = 0
        for game in iter_pdn(text, args.variant, on_undecided=left_out.append):
            out.write(("\n" if count else "") + write_pdn(game))
            count += 1
        del text
        if not count:
            if left_out:
                return _fail(str(left_out[0]))
            return _fail(f"{args.file}: no game in it")
        out.seek(0)
        shutil.copyfileobj(out, sys.stdout)
    sys.stdout.flush()
    for undecided in left_out:
        # the error quotes only excerpts: whole, so that the move and its readings are seen
        print(_one_line(f"damiera: {args.file}: left out: {undecided}",
                        2 * _MAX_MESSAGE + len(args.file)), file=sys.stderr)
    return EXIT_PARTIAL if left_out else 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from pi.bench import run_perft_bench
    names = [find_variant(name).name for name in args.variant or VARIANTS]  # before any output
    run_perft_bench(seconds=args.seconds, variants=names, out=sys.stdout)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="damiera", description="Electronic draughts board: rules, arbiter, tools.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser,
                           title="commands", metavar="COMMAND",
                           help="'damiera COMMAND --help' for its options")

    s = sub.add_parser("perft", help="count leaf positions at a depth")
    s.add_argument("--variant", required=True, help=", ".join(VARIANTS))
    s.add_argument("--fen", default=None, help="PDN FEN (default: the initial position)")
    s.add_argument("--depth", type=_whole, required=True, help=f"0 to {MAX_PERFT_DEPTH}")
    s.add_argument("--divide", action="store_true", help="a count per root move")
    s.set_defaults(func=_cmd_perft)

    s = sub.add_parser("moves", help="legal moves of positions")
    s.add_argument("--variant", required=True, help=", ".join(VARIANTS))
    s.add_argument("--fen", default=None,
                   help="PDN FEN (default: FENs read from standard input, one a line)")
    s.add_argument("--json", action="store_true", help="one JSON list of moves per position")
    s.set_defaults(func=_cmd_moves)

    s = sub.add_parser("replay", help="replay a physical-event trace (docs/trace-format.md)")
    s.add_argument("trace", help="the trace: JSON lines, a start line then physical events "
                   "(a game's STATE/games/<id>/trace.jsonl is one)")
    s.add_argument("--json", action="store_true",
                   help="the report as one JSON object (default: text)")
    s.set_defaults(func=_cmd_replay)

    s = sub.add_parser("pdn", help="read a PDN file, check every move, print it as PDN")
    s.add_argument("file", help="the PDN file (UTF-8, or Windows-1252 / Latin-1)")
    s.add_argument("--variant", default=None,
                   help="variant of games without a GameType tag (default: from the tag)")
    s.set_defaults(func=_cmd_pdn)

    s = sub.add_parser("report", help="a game's printable report for decisions and appeals "
                       "(PDF, HTML)")
    s.add_argument("game_dir", metavar="GAME_DIR",
                   help="the game's folder: STATE/games/<id>/ (or a hub's "
                   "DIR/boards/<N>/games/<id>/), holding its trace.jsonl")
    s.add_argument("--pdf", default=None, metavar="FILE",
                   help="write the PDF here, '-' for standard output (default: "
                   "<id>-report.pdf in the current folder when --html is not given)")
    s.add_argument("--html", default=None, metavar="FILE",
                   help="write the report as one HTML page here, '-' for standard output "
                   "(default: none)")
    s.add_argument("--lang", choices=("it", "en"), default="en",
                   help="the report's language (default: en)")
    s.set_defaults(func=_cmd_report)

    s = sub.add_parser("bench", help="perft speed per variant, and the ratio to pydraughts")
    s.add_argument("--seconds", type=_seconds, default=2.0,
                   help=f"time per measurement, in seconds (above 0, up to "
                        f"{MAX_BENCH_SECONDS:g}; default 2)")
    s.add_argument("--variant", action="append",
                   help="only this variant, repeatable (default: every one: "
                        f"{', '.join(VARIANTS)})")
    s.set_defaults(func=_cmd_bench)

    from pi.run import DEFAULT_WIRING, add_run_parser
    add_run_parser(sub, _whole)
    from pi.hall.hub_cli import add_hub_parser
    add_hub_parser(sub, _whole)
    from pi.hardware_cli import add_hardware_parsers
    add_hardware_parsers(sub, _whole, DEFAULT_WIRING, state_root)

    s = sub.add_parser("token", help="print the arbiter's web token (STATE/arbiter.token)")
    s.add_argument("--state-dir", default=None, help="the daemon's state directory (default: "
                   "the config's state_dir, $STATE_DIRECTORY, or ./.state)")
    s.add_argument("--config", default=None, help="damiera.toml, for its state_dir (default: "
                   "/etc/damiera/damiera.toml when it exists)")
    s.set_defaults(func=_cmd_token)
    return p


def state_root(state_dir: str | None, config: str | None) -> Path:
    """The daemon's state directory as the commands find it: ``--state-dir``, else the config's
    ``state_dir`` (``--config``, else /etc/damiera/damiera.toml when it exists), else
    ``$STATE_DIRECTORY``, else ``./.state``."""
    from pi.board.statedir import resolve_state_dir
    from pi.run import run_config
    return resolve_state_dir(state_dir, run_config(config).state_dir)


def _cmd_token(args: argparse.Namespace) -> int:
    from pi.web.auth import TOKEN_FILE, read_token
    root = state_root(args.state_dir, args.config)
    token = read_token(root)
    if token is None:
        return _fail(f"{root / TOKEN_FILE}: no token yet (the daemon creates it when it first "
                     "starts with the web server on)")
    print(token)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one command. Every error of ours (``engine.errors.DamieraError``: bad input, hardware,
    state, configuration, network) is caught here, once: its one line on stderr, exit status 2.
    No command at all: the usage and the list of commands on stderr, exit status 2."""
    # Start-up: the modules' objects live as long as the process, and collecting the growing
    # heap while they load is work for nothing (8 % of a board's start to READY=1, issue 36).
    # Collections resume once the command is parsed; for ``damiera run`` once the board is up
    # (``pi.daemon``: the heap collected once and frozen before READY=1).
    gc.disable()
    try:
        parser = build_parser()
        if not (sys.argv[1:] if argv is None else argv):
            parser.print_help(sys.stderr)
            return EXIT_BAD_INPUT
        args = parser.parse_args(argv)
        if args.command != "run":
            gc.enable()
        try:
            return int(args.func(args))
        except DamieraError as exc:
            return _fail(str(exc))
        except BrokenPipeError:
            return 0
    finally:
        gc.enable()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
