"""The board's latency and scan figures with its voice off and on (issue 20: "the daemon's latency
and scan figures unchanged with speech on"), with the load average.

Run: ``.venv/bin/python benchmarks/bench_speech.py [--quick] [--moves N] [--output wav|audio]``.

``benchmarks/daemon_rig.py``'s real daemon on the register-level fakes in real time, a clock game
(its moves committed by the clock's press) played twice with the same moves: ``[speech]`` off,
then on — espeak-ng saying every move on the speech queue's thread (``pi.board.speech``), written
to WAV files in a temporary folder (``--output wav``, the default: the whole synthesis, as on a
Pi) or played on the audio device (``--output audio``: on a PC without one, espeak-ng fails at
once and the figures show only the queue's cost). For each run:

- **press → shown (OLED), p50 / p99**: the clock's pin edge to the controller's ``show()`` of the
  move it committed (the speech is queued in the same turn of the loop, after the screen);
- **press → journaled, p50 / p99**: to the listener (the line durable);
- **scan hand-off delay, p99 / max**: how long each scan's outputs waited between the scan
  thread's hand-off and the controller taking them on the loop (``daemon_rig.HandOff``);
- the phrases said and dropped as stale.

Figures only, never assertions (tests/benchmarks/test_bench_speech.py runs it with tiny sizes).
"""

from __future__ import annotations

import argparse
import gettext
import logging
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from daemon_rig import HandOff, latency_run, shown_and_drawn

from pi.board.config import SpeechSpec
from pi.board.speech import phrases as said

EN = gettext.NullTranslations()


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f})"


def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * q))] if v else float("nan")


def ms(x: float) -> str:
    return "-" if x != x else f"{x * 1000:.2f}"


def run(moves: int, speech: SpeechSpec, root: Path) -> dict[str, str]:
    """One clock game of ``moves`` moves with ``speech``; its figures as table cells."""
    handoff = HandOff()
    samples, probe = latency_run(True, moves, 7, root, handoff=handoff, speech=speech)
    presses = [s for s in samples if s.kind == "press"]
    shown, _ = shown_and_drawn(presses, probe)
    journaled = [s.journaled - s.t0 for s in presses]
    phrases = "-"
    if speech.enabled:
        due = sum(len(said(decisions, EN)) for _t, _line, decisions in probe.lines)
        if speech.wav_dir is not None:
            written = len(list(speech.wav_dir.glob("*.wav")))
            phrases = f"{written} said, {due - written} dropped as stale"
        else:
            phrases = f"{due} queued"
    return {"shown": f"{ms(pct(shown, 0.5))} / {ms(pct(shown, 0.99))} ({len(shown)})",
            "journaled": f"{ms(pct(journaled, 0.5))} / {ms(pct(journaled, 0.99))}",
            "scan": (f"{ms(pct(handoff.delays, 0.99))} / "
                     f"{ms(max(handoff.delays, default=float('nan')))} ({len(handoff.delays)})"),
            "phrases": phrases,
            "load": load()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--quick", action="store_true", help="tiny sizes (the test's run; default off)")
    p.add_argument("--moves", type=int, default=None, help="moves per game (default 60)")
    p.add_argument("--output", choices=("wav", "audio"), default="wav",
                   help="speech written to WAV files (the whole synthesis) or played on the "
                        "audio device (default wav)")
    args = p.parse_args(argv)
    moves = args.moves if args.moves is not None else (4 if args.quick else 60)
    pi_log = logging.getLogger("pi")
    level = pi_log.level
    pi_log.setLevel(logging.ERROR)  # the games' info lines are not figures
    print(f"damiera board with and without its voice: Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores, {load()}")
    try:
        with tempfile.TemporaryDirectory(prefix="bench-speech-") as tmp:
            off = run(moves, SpeechSpec(), Path(tmp) / "off")
            print(f"  speech off done, {off['load']}", flush=True)
            wav = Path(tmp) / "spoken" if args.output == "wav" else None
            on = run(moves, SpeechSpec(enabled=True, wav_dir=wav), Path(tmp) / "on")
            print(f"  speech on done, {on['load']}", flush=True)
    finally:
        pi_log.setLevel(level)
    print()
    print(f"| figure (ms; {moves} moves of a clock game) | speech off | speech on "
          f"(espeak-ng, {args.output}) |")
    print("|---|---|---|")
    for label, key in (("clock press → shown (OLED), p50 / p99 (n)", "shown"),
                       ("clock press → journaled (durable), p50 / p99", "journaled"),
                       ("scan hand-off delay, p99 / max (scans)", "scan"),
                       ("phrases", "phrases"), ("load average after the run", "load")):
        print(f"| {label} | {off[key]} | {on[key]} |")
    return 0


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    sys.exit(main())
