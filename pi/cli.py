"""The ``damiera`` command line. Other tools rely on these exact forms and outputs:

* ``damiera perft --variant V [--fen FEN] --depth N [--divide]``: the last line printed is the node
  count at depth N; ``--divide`` first prints ``move: count`` for every root move.
* ``damiera moves --variant V [--fen FEN] --json``: one JSON line per position, a list of moves
  ``{"from", "to", "path", "captures", "notation"}``; without ``--fen``, FENs are read from
  standard input, one per line, and answered one line each, in order.
* ``damiera replay TRACE.jsonl [--json]``: the report of shared/TRACE.md.
* ``damiera pdn FILE [--variant V]``: read a PDN file, replay every move through the rules and
  print the game(s) as PDN.
* ``damiera bench``: perft leaves per second per variant, and the ratio to pydraughts.

Bad input (unknown variant, malformed FEN, impossible position, bad trace or PDN) gives one line
on standard error and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import NoReturn, Sequence

from engine.board import Board
from engine.errors import DamieraError
from engine.variants import VARIANTS, find_variant

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2 (argparse prints usage too)
        self.exit(EXIT_BAD_INPUT, f"damiera: {message}\n")


def _fail(message: str) -> int:
    print(f"damiera: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT


def _cmd_perft(args: argparse.Namespace) -> int:
    board = Board(args.fen, find_variant(args.variant))
    if args.depth < 0:
        return _fail("--depth must be 0 or more")
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
    for lineno, line in enumerate(sys.stdin, 1):
        fen = line.strip()
        try:
            board = Board(fen, variant)
        except DamieraError as exc:
            sys.stdout.flush()
            return _fail(f"standard input line {lineno}: {exc}")
        out = _moves_line(board) if args.json else " ".join(board.notation(m) for m in board.legal_moves)
        print(out, flush=True)
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    try:
        with open(args.trace, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        return _fail(f"cannot read {args.trace}: {exc.strerror}")
    except UnicodeDecodeError:
        return _fail(f"{args.trace}: not UTF-8 text")
    from engine.replay import replay_lines
    report = replay_lines(lines)
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False))
    else:
        print(report.to_text())
    return 0


def _cmd_pdn(args: argparse.Namespace) -> int:
    from engine.pdn import read_pdn, write_pdn
    try:
        with open(args.file, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        return _fail(f"cannot read {args.file}: {exc.strerror}")
    except UnicodeDecodeError:
        return _fail(f"{args.file}: not UTF-8 text")
    games = read_pdn(text, args.variant)
    print("\n".join(write_pdn(g) for g in games), end="")
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from pi.bench import run_perft_bench
    run_perft_bench(seconds=args.seconds, variants=args.variant or list(VARIANTS), out=sys.stdout)
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="damiera", description="Electronic draughts board: rules, arbiter, tools.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("perft", help="count leaf positions at a depth")
    s.add_argument("--variant", required=True, help=", ".join(VARIANTS))
    s.add_argument("--fen", default=None, help="PDN FEN (default: the initial position)")
    s.add_argument("--depth", type=int, required=True)
    s.add_argument("--divide", action="store_true", help="a count per root move")
    s.set_defaults(func=_cmd_perft)

    s = sub.add_parser("moves", help="legal moves of positions")
    s.add_argument("--variant", required=True, help=", ".join(VARIANTS))
    s.add_argument("--fen", default=None, help="PDN FEN; without it, FENs are read from stdin")
    s.add_argument("--json", action="store_true", help="one JSON list of moves per position")
    s.set_defaults(func=_cmd_moves)

    s = sub.add_parser("replay", help="replay a physical-event trace (shared/TRACE.md)")
    s.add_argument("trace")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_cmd_replay)

    s = sub.add_parser("pdn", help="read a PDN file, check every move, print it as PDN")
    s.add_argument("file")
    s.add_argument("--variant", default=None, help="variant of games without a GameType tag")
    s.set_defaults(func=_cmd_pdn)

    s = sub.add_parser("bench", help="perft speed per variant, and the ratio to pydraughts")
    s.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    s.add_argument("--variant", action="append", help="only these variants (repeatable)")
    s.set_defaults(func=_cmd_bench)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except DamieraError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
