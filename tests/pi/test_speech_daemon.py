"""The daemon on the simulated board with speech on (`[speech]` with `output = "wav:DIR"`): what it
says, captured as WAV files with their text, is the game's moves, irregularities, result and the
clock's warnings, in order and in the board's language, and every file is heard (not silent)."""

from __future__ import annotations

import array
import math
import shutil
import subprocess
import sys
import wave
from pathlib import Path

import pytest

from engine.decisions import Decision
from engine.i18n import translations
from engine.replay import Replay
from pi.board.session import POLICY
from pi.board.speech import phrases

ROOT = Path(__file__).resolve().parents[2]
DAMIERA = Path(sys.executable).parent / "damiera"
TRACES = ROOT / "tests" / "traces"

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                reason="Debian's espeak-ng is not installed (make system-deps)")


def run_trace(tmp_path: Path, trace: Path, speed: str, language: str) -> list[tuple[str, Path]]:
    """``damiera run --simulate --trace`` with speech written to WAV files; (text, wav) of
    every phrase said, in order."""
    config = tmp_path / "damiera.toml"
    config.write_text(f'language = "{language}"\n[speech]\nenabled = true\noutput = "wav:spoken"\n')
    done = subprocess.run([str(DAMIERA), "run", "--simulate", "--trace", str(trace), "--speed",
                           speed, "--config", str(config), "--state-dir", str(tmp_path / "state"),
                           "--http", "off", "--quiet"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "speech" not in done.stderr, done.stderr  # no fault logged
    spoken = tmp_path / "spoken"
    out = []
    for wav in sorted(spoken.glob("*.wav")):
        out.append((wav.with_suffix(".txt").read_text().rstrip("\n"), wav))
    return out


def expected(trace: Path, language: str) -> list[str]:
    """What the board should say of ``trace``: its decisions' phrases, one line at a time."""
    t = translations(language)
    batches: list[tuple[Decision, ...]] = [
        fed.decisions for fed in Replay.read(trace.read_text().splitlines(), POLICY)]
    return [p.text for batch in batches for p in phrases(batch, t)]


def loud(wav: Path) -> bool:
    with wave.open(str(wav)) as w:
        pcm = array.array("h", w.readframes(w.getnframes()))
    return math.sqrt(sum(x * x for x in pcm) / max(1, len(pcm))) > 500


def is_subsequence(part: list[str], whole: list[str]) -> bool:
    it = iter(whole)
    return all(any(x == y for y in it) for x in part)


def test_a_paced_game_says_every_move_and_flag_in_order_in_italian(tmp_path: Path) -> None:
    trace = TRACES / "italian" / "touch_move_corrected.jsonl"
    said = run_trace(tmp_path, trace, "2", "it")
    texts = [text for text, _ in said]
    assert texts == expected(trace, "it")
    assert texts[:3] == ["22 18", "11 15", "18 14"]
    # IT 8.1.3, flagged as the clock was pressed, its title in the regulation's words
    assert texts[3] == "irregolarità: toccare un proprio pezzo e muoverne un altro"
    assert texts[4:] == ["irregolarità corretta", "21 17"]
    assert all(loud(wav) for _, wav in said)


def test_the_sample_game_at_full_speed_drops_only_stale_phrases(tmp_path: Path) -> None:
    trace = ROOT / "pi" / "samples" / "italian_sample.jsonl"
    said = [text for text, _ in run_trace(tmp_path, trace, "max", "en")]
    want = expected(trace, "en")
    # a move said after the next was played is noise: moves may be dropped, never reordered
    assert said and is_subsequence(said, want), said
    for text in want:  # what is never stale: irregularities and the result
        if text.startswith(("irregularity", "game over")):
            assert text in said
    assert said[-1] == want[-1] and said[-1].startswith("game over")


def test_the_lampo_countdown_is_said(tmp_path: Path) -> None:
    trace = TRACES / "italian" / "d5_lampo_let_go_by_zero_comp_5_7.jsonl"  # COMP 5.6, 5.7
    # the countdown's steps 1 s apart on the clock, 500 ms here: espeak-ng, below the daemon's
    # priority, writes each within it even on a loaded machine (at 125 ms apart, a busy
    # machine's voice fell behind and dropped steps as stale, as it should)
    said = [text for text, _ in run_trace(tmp_path, trace, "2", "it")]
    countdown = ["meno 15", "meno 10", "meno 5", "4", "3", "2", "1", "zero"]
    assert said[:len(countdown)] == countdown, said
    assert said[len(countdown):] == ["22 18", "Nero: mosse lampo", "11 15"]


def test_without_espeak_the_game_goes_on_and_says_so_once(tmp_path: Path) -> None:
    config = tmp_path / "damiera.toml"
    config.write_text('[speech]\nenabled = true\n')
    trace = TRACES / "italian" / "touch_move_corrected.jsonl"
    done = subprocess.run([str(DAMIERA), "run", "--simulate", "--trace", str(trace), "--speed",
                           "max", "--config", str(config), "--state-dir", str(tmp_path / "state"),
                           "--http", "off", "--quiet"], capture_output=True, text=True,
                          timeout=120, env={"PATH": str(DAMIERA.parent), "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    faults = [line for line in done.stderr.splitlines() if "speech" in line]
    assert len(faults) == 1 and "espeak-ng not found" in faults[0], done.stderr
    journal = next((tmp_path / "state" / "games").glob("*/trace.jsonl")).read_text()
    # the whole game played and journaled: every press of the trace (clock, correct)
    assert journal.count('"button"') == trace.read_text().count('"button"') == 5
