"""Time to make a game's printable report (issue 20: a 300-move game with 20 flags renders in
under 2 s on this machine). The game: ``hardware_mocks.sample_game.flagged_trace`` — 600 plies
(300 moves) played with natural physical events, the clock pressed after each, and 20 flags of
every kind (touch-move irregularities kept and corrected, sensor faults, restarts, the
arbiter's notes), written as a game folder ``games/<id>/trace.jsonl``.

Figures, each with the load average (the machine is shared): reading the journal through the
replay (``pi.board.report.read_game_dir``), wording it (``compose``), the PDF (fpdf2), the HTML;
the first report of a process (which imports fpdf2) apart from the next ones (median of
``--repeat``); and ``damiera report GAME_DIR --pdf FILE`` as a command, a fresh Python each time.

Run: ``.venv/bin/python benchmarks/bench_report.py [--plies N] [--flags N] [--repeat N]``
(``--quick``: a short game, for the test that keeps it from rotting).

Figures (2-core machine shared with other jobs, load average 5.5, 2026-11-26): 600 plies, 20
flags, 2,340 journal lines: read 0.56 s, compose 0.02 s, PDF 0.50 s, report 1.09 s (first of a
process 1.29 s, fpdf2 imported); HTML 0.02 s; ``damiera report`` as a process 4.2 s.
"""

from __future__ import annotations

import argparse
import gettext
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hardware_mocks.sample_game import flagged_trace
from pi.board.report import GameReport, read_game_dir
from pi.board.report_layout import compose
from pi.board.report_render import html_text, pdf_bytes

GAME_ID = "2026-11-26T0900-b07-001"
TARGET = 2.0


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f})"


def one_report(folder: Path) -> tuple[dict[str, float], GameReport, bytes]:
    times: dict[str, float] = {}
    start = time.perf_counter()
    report = read_game_dir(folder)
    times["read the journal (replay)"] = time.perf_counter() - start
    mark = time.perf_counter()
    doc = compose(report, gettext.NullTranslations())
    times["compose (words, diagrams)"] = time.perf_counter() - mark
    mark = time.perf_counter()
    pdf = pdf_bytes(doc)
    times["PDF (fpdf2)"] = time.perf_counter() - mark
    times["report: read + compose + PDF"] = time.perf_counter() - start
    mark = time.perf_counter()
    html_text(doc)
    times["HTML (apart)"] = time.perf_counter() - mark
    return times, report, pdf


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--plies", type=int, default=600, help="plies of the game (default 600)")
    p.add_argument("--flags", type=int, default=20, help="flags raised (default 20)")
    p.add_argument("--repeat", type=int, default=5, help="warm reports timed (default 5)")
    p.add_argument("--quick", action="store_true", help="60 plies, 4 flags, once")
    args = p.parse_args(argv)
    if args.quick:
        args.plies, args.flags, args.repeat = 60, 4, 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "games" / GAME_ID
        folder.mkdir(parents=True)
        (folder / "trace.jsonl").write_text("".join(flagged_trace(plies=args.plies,
                                                                  flags=args.flags)),
                                            encoding="utf-8")
        print(load(), flush=True)
        first, report, pdf = one_report(folder)
        d = report.digest
        print(f"game: {len(report.moves)} plies, {len(report.flags)} flags, {d.lines} journal "
              f"lines, {d.size:,} bytes; PDF {len(pdf):,} bytes", flush=True)
        print(f"| {'step':<30} | {'first (imports)':>15} | {'next (median)':>13} | load |")
        runs = [one_report(folder)[0] for _ in range(max(1, args.repeat))]
        for step, seconds in first.items():
            median = statistics.median(r[step] for r in runs)
            print(f"| {step:<30} | {seconds:>13.3f} s | {median:>11.3f} s | {load()} |",
                  flush=True)
        out = Path(tmp) / "r.pdf"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pi.cli", "report", str(folder), "--pdf",
                        str(out)], cwd=ROOT, check=True, capture_output=True, timeout=300)
        command = time.perf_counter() - start
        print(f"| {'damiera report (a process)':<30} | {command:>13.3f} s | {'':>13} | {load()} |")
        total = statistics.median(r["report: read + compose + PDF"] for r in runs)
        verdict = "met" if total < TARGET else "NOT met"
        print(f"target: {len(report.moves) // 2} moves, {len(report.flags)} flags in under "
              f"{TARGET:g} s: {verdict} ({total:.2f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
