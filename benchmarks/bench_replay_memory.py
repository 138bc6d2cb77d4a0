"""Peak memory of ``damiera replay`` against the trace's length (issue 35, item 5c): the report
is streamed — each settled move written out (a spool, on disk past 4 MB) and forgotten by the
game — so that a trace of any length is replayed in the memory of a short one.

The trace: ``bench_length.king_endgame`` (an Italian king endgame, kings shuttling, natural
physical events, a clock press after every move) under ``5400+1`` (the clock readings stay under
the 100 hours a PDN clock comment can write), written to a file. For each length, ``damiera
replay TRACE`` and ``damiera replay --json TRACE`` run as child processes (``python -m pi.cli``,
the output to /dev/null), and the table prints each one's peak resident memory (its
``ru_maxrss``, from ``os.wait4``) and its time. ``--checkout DIR``: the same command from
another checkout of damiera (what it was before), for comparison.

Run: ``.venv/bin/python benchmarks/bench_replay_memory.py [events ...] [--checkout DIR]``
(default 10k 100k 300k 1M events; ``--quick``: 2,000 events, for the test that keeps it from
rotting).

Figures (2-core machine shared with other jobs, 2026-11-28): see docs/developer.md, Benchmark figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_length import FEN, king_endgame_events

TIME_CONTROL = "5400+1"


def write_trace(path: Path, events: int) -> int:
    """A king endgame of about ``events`` events written to ``path``; its number of lines."""
    lines = 1
    with path.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps({"type": "start", "variant": "italian", "fen": FEN,
                             "time_control": TIME_CONTROL}) + "\n")
        for e in king_endgame_events(events):
            fh.write(json.dumps(e.to_dict()) + "\n")
            lines += 1
    return lines


def peak(trace: Path, json_report: bool, checkout: Path) -> tuple[float, float, int]:
    """(peak resident MB, seconds, exit status) of ``damiera replay [--json] trace`` run from
    ``checkout`` in a child process."""
    args = [sys.executable, "-m", "pi.cli", "replay", *(["--json"] if json_report else []),
            str(trace)]
    t0 = time.perf_counter()
    with open(os.devnull, "w") as sink:
        child = subprocess.Popen(args, cwd=checkout, stdout=sink, stderr=subprocess.PIPE,
                                 env={**os.environ, "PYTHONPATH": str(checkout)})
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        assert child.stderr is not None
        error = child.stderr.read().decode(errors="replace").strip()
        child.stderr.close()
    if child.returncode:
        print(f"  {'--json ' if json_report else ''}replay failed ({child.returncode}): "
              f"{error[-200:]}", file=sys.stderr)
    return usage.ru_maxrss / 1024, time.perf_counter() - t0, child.returncode


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("events", nargs="*", type=int, default=[10_000, 100_000, 300_000, 1_000_000])
    p.add_argument("--checkout", type=Path, default=ROOT,
                   help="the damiera checkout whose command runs (default: this one)")
    p.add_argument("--quick", action="store_true", help="2,000 events (the test's run)")
    args = p.parse_args(argv)
    lengths = [2_000] if args.quick else args.events
    print(f"damiera replay of a king endgame ({TIME_CONTROL}), from {args.checkout}; "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'events':>9} {'presses':>8} {'text MB':>8} {'text s':>7} {'json MB':>8} "
          f"{'json s':>7}")
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="bench-replay-memory-") as tmp:
        for n in lengths:
            trace = Path(tmp) / f"king-{n}.jsonl"
            lines = write_trace(trace, n)
            text_mb, text_s, text_rc = peak(trace, False, args.checkout)
            json_mb, json_s, json_rc = peak(trace, True, args.checkout)
            # each move is completed by a clock press: about the plies of the record
            presses = sum(1 for line in trace.open(encoding="utf-8") if '"clock"' in line)
            print(f"{lines - 1:>9} {presses:>8} {text_mb:>8.1f} {text_s:>7.1f} {json_mb:>8.1f} "
                  f"{json_s:>7.1f}" + ("  (failed)" if text_rc or json_rc else ""))
            worst = max(worst, text_mb, json_mb)
            trace.unlink()
    print(f"target: at most 100 MB at every length; worst {worst:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
