"""A board that speaks (pi/board/speech.py, pi/drivers/speech.py, [speech] in damiera.toml).

What is spoken is rendered to WAV by the real espeak-ng (Debian's espeak-ng: `make system-deps`)
and checked: not silent, as long as its words, louder or quieter and faster or slower as the
config says, and in the board's language (the phrase handed to the synthesizer, the voice it is
given, and the phonemes espeak-ng reads it as). The queue's dropping of stale phrases is tested
with a slow stand-in synthesizer (a script held on a gate file), and its faults (no espeak-ng, no
audio device) are one logged line each.
"""

from __future__ import annotations

import array
import gettext
import io
import logging
import math
import os
import shutil
import subprocess
import sys
import threading
import time
import wave
from pathlib import Path
from typing import Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.clock_display import Cue
from engine.colour import Colour
from engine.decisions import Decision, FlagRaised, MoveCommitted
from engine.replay import Replay
from engine.i18n import translations
from pi.board.config import SpeechSpec, parse_config
from pi.board.errors import ConfigError
from pi.board.session import POLICY
from pi.board.speech import (SUPERSEDES, BoardSpeech, Phrase, PhraseKind, PhraseQueue, cue_phrase,
                             flag_phrase, move_phrase, phrases)
from pi.drivers.speech import Espeak

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "tests" / "traces"
EN = gettext.NullTranslations()
WAIT = 10.0
CueKind = Literal["beep", "flag", "lampo", "lampo_start"]

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="Debian's espeak-ng is not installed (make system-deps)")


def batches_of(trace: Path) -> list[tuple[Decision, ...]]:
    """The decisions the arbiter takes on each line of ``trace`` (the daemon's own replay)."""
    return [fed.decisions for fed in Replay.read(trace.read_text().splitlines(), POLICY)]


def decisions_of(trace: Path) -> list[Decision]:
    """Every decision the arbiter takes on ``trace``, in order."""
    return [d for batch in batches_of(trace) for d in batch]


# ---------------------------------------------------------------------- the words

def test_moves_are_said_in_the_variants_notation() -> None:
    moves = [d for d in decisions_of(TRACES / "italian" / "multi_capture_direct.jsonl")
             if isinstance(d, MoveCommitted)]
    said = [move_phrase(d, EN).text for d in moves]
    for d, text in zip(moves, said, strict=True):
        if "x" in d.notation:
            squares = d.notation.split("x")
            assert text == " takes ".join(squares), (d.notation, text)  # "22 takes 13 takes 6"
        else:
            assert text == d.notation.replace("-", " ")  # "22 18"
    assert any("takes" in text for text in said)


def test_brazilian_moves_are_said_algebraic() -> None:
    trace = next(p for p in sorted((TRACES / "brazilian").glob("*.jsonl"))
                 if any(isinstance(d, MoveCommitted) for d in decisions_of(p)))
    move = next(d for d in decisions_of(trace) if isinstance(d, MoveCommitted))
    text = move_phrase(move, EN).text
    assert text[0] in "abcdefgh" and text[1].isdigit(), text  # "c3 d4", never numbers


def test_an_irregularity_is_said_with_its_articles_title_after_its_move() -> None:
    ds = decisions_of(TRACES / "italian" / "touch_move_corrected.jsonl")
    flag = next(d.flag for d in ds if isinstance(d, FlagRaised) and d.flag.code == "IT 8.1.3")
    phrase = flag_phrase(flag, EN)
    assert phrase == Phrase("irregularity: touching one piece and moving another", "flag")
    said = [p.text for batch in batches_of(TRACES / "italian" / "touch_move_corrected.jsonl")
            for p in phrases(batch, EN)]  # as the controller hands them: one input's at a time
    assert said == ["22 18", "11 15", "18 14",  # the irregular move, then its flag (IT 8.1.3)
                    "irregularity: touching one piece and moving another",
                    "irregularity corrected", "21 17"]


def test_notices_are_not_said() -> None:
    ds = decisions_of(TRACES / "italian" / "notices_3_10_3_11.jsonl")
    flags = [d.flag for d in ds if isinstance(d, FlagRaised)]
    assert flags and all(f.kind == "notice" for f in flags)
    assert all(flag_phrase(f, EN) is None for f in flags)


def test_the_result_is_said() -> None:
    ds = decisions_of(TRACES / "italian" / "art_no_pieces_9_2_3.jsonl")
    assert [p for p in phrases(ds, EN) if p.kind == "result"] == [
        Phrase("game over: White wins", "result")]


@pytest.mark.parametrize("kind, ms, side, text", [
    ("beep", 60_000, Colour.WHITE, "White: last minute"),          # COMP 3.6.2 h
    ("beep", 10_000, Colour.BLACK, "Black: 10 seconds"),           # COMP 3.6.2 i
    ("lampo_start", 0, Colour.BLACK, "Black: mosse lampo"),         # COMP 5.6
    ("lampo", 15_000, Colour.WHITE, "minus 15"),                    # COMP 5.7
    ("lampo", 5_000, Colour.WHITE, "minus 5"),
    ("lampo", 4_000, Colour.WHITE, "4"),
    ("lampo", 1_000, Colour.WHITE, "1"),
    ("lampo", 0, Colour.WHITE, "zero"),
    ("flag", 0, Colour.WHITE, None),  # the result says it
])
def test_clock_warnings(kind: CueKind, ms: int, side: Colour, text: str | None) -> None:
    cue = Cue(side, kind, "", "short", ms)
    phrase = cue_phrase(cue, EN)
    assert (phrase.text if phrase is not None else None) == text


# ---------------------------------------------------------------------- the queue

def fake_synthesizer(tmp_path: Path, *, stderr: str = "", status: int = 0) -> tuple[Path, Path, Path]:
    """A stand-in for espeak-ng: a script that logs ``start TEXT`` (its standard input), waits
    for the gate file, logs ``done TEXT``, writes ``stderr`` and exits ``status``. Returns
    (script, log, gate)."""
    log, gate = tmp_path / "said.log", tmp_path / "gate"
    script = tmp_path / "fake-espeak"
    script.write_text(f"""#!{sys.executable}
import os, sys, time, pathlib
text = sys.stdin.read().strip()
log = pathlib.Path({str(log)!r})
with log.open("a") as f:
    f.write("start " + text + "\\n")
    f.write("nice " + str(os.nice(0)) + "\\n")
gate = pathlib.Path({str(gate)!r})
while not gate.exists():
    time.sleep(0.005)
with log.open("a") as f:
    f.write("done " + text + "\\n")
sys.stderr.write({stderr!r})
sys.exit({status})
""")
    script.chmod(0o755)
    return script, log, gate


def wait_for(predicate: object, what: str) -> None:
    assert callable(predicate)
    deadline = time.monotonic() + WAIT
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.005)


def test_stale_phrases_are_dropped_while_one_is_said(tmp_path: Path) -> None:
    script, log, gate = fake_synthesizer(tmp_path)
    speaker = Espeak("en", program=str(script))
    queue = PhraseQueue(lambda p: speaker.say(p.text), "speech-test")
    queue.put(Phrase("22 18", "move"))
    wait_for(lambda: log.exists() and "start 22 18" in log.read_text(), "the first phrase said")
    t0 = time.perf_counter()
    queue.put(Phrase("11 15", "move"))          # made stale by the next move
    queue.put(Phrase("minus 15", "clock"))      # made stale by the irregularity, then the move
    queue.put(Phrase("irregularity: touching one piece and moving another", "flag"))
    queue.put(Phrase("minus 10", "clock"))      # made stale by the move after it
    queue.put(Phrase("21 17", "move"))
    put_time = time.perf_counter() - t0
    gate.touch()
    assert queue.flush(WAIT)
    done = [line[5:] for line in log.read_text().splitlines() if line.startswith("done ")]
    assert done == ["22 18", "irregularity: touching one piece and moving another", "21 17"]
    assert queue.dropped == 3 and speaker.said == 3
    assert put_time < 0.05  # put never waits for the voice (the loop's thread calls it)
    queue.close()
    assert "speech-test" not in {t.name for t in threading.enumerate()}


def test_the_lampo_phase_begun_is_said_though_a_move_follows() -> None:
    """COMP 5.6: from the phase's start every move has the arbiter's countdown; its announcement
    waiting behind a phrase being said is no noise once the player moves (a countdown step
    is): a loaded machine's voice dropped it, the move said without it."""
    entered, release = threading.Event(), threading.Event()
    said: list[str] = []

    def say(p: Phrase) -> None:
        if not said:
            entered.set()
            assert release.wait(WAIT)
        said.append(p.text)
    queue = PhraseQueue(say, "speech-phase")
    queue.put(Phrase("22 18", "move"))
    assert entered.wait(WAIT)
    begun = cue_phrase(Cue(Colour.BLACK, "lampo_start", "", "long", 0),
                       gettext.NullTranslations())
    assert begun is not None and begun.kind == "phase"
    queue.put(begun)
    queue.put(Phrase("minus 15", "clock"))  # the countdown's step: stale once the move came
    queue.put(Phrase("11 15", "move"))
    release.set()
    assert queue.flush(WAIT)
    queue.close()
    assert said == ["22 18", "Black: mosse lampo", "11 15"]


def test_the_queue_keeps_at_most_limit_phrases(tmp_path: Path) -> None:
    script, log, gate = fake_synthesizer(tmp_path)
    speaker = Espeak("en", program=str(script))
    queue = PhraseQueue(lambda p: speaker.say(p.text), "speech-test", limit=2)
    queue.put(Phrase("first", "flag"))
    wait_for(lambda: log.exists() and "start first" in log.read_text(), "the first phrase said")
    for n in range(4):
        queue.put(Phrase(f"flag {n}", "flag"))
    gate.touch()
    assert queue.flush(WAIT)
    done = [line[5:] for line in log.read_text().splitlines() if line.startswith("done ")]
    assert done == ["first", "flag 2", "flag 3"] and queue.dropped == 2
    queue.close()


def test_the_synthesizer_runs_at_a_lower_priority(tmp_path: Path) -> None:
    script, log, gate = fake_synthesizer(tmp_path)
    gate.touch()
    speech = BoardSpeech(Espeak("en", program=str(script)), EN)
    speech.queue.put(Phrase("22 18", "move"))
    assert speech.queue.flush(WAIT)
    speech.close()
    own = os.nice(0)
    assert f"nice {min(19, own + 10)}" in log.read_text().splitlines()  # espeak-ng yields the CPU
    assert os.nice(0) == own  # the thread's niceness, not the daemon's


def test_a_failing_say_is_contained(caplog: pytest.LogCaptureFixture) -> None:
    said: list[str] = []

    def say(p: Phrase) -> None:
        if p.text == "bad":
            raise RuntimeError("boom")
        said.append(p.text)
    queue = PhraseQueue(say, "speech-test")
    queue.put(Phrase("bad", "flag"))
    queue.put(Phrase("good", "flag"))
    assert queue.flush(WAIT)
    assert said == ["good"]
    queue.close()


# ---------------------------------------------------------------------- faults: one line each

def test_a_missing_espeak_is_one_logged_line(tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    speaker = Espeak("it", program=str(tmp_path / "no-such-espeak-ng"))
    with caplog.at_level(logging.WARNING, logger="pi.drivers.speech"):
        assert speaker.check() is False  # at start
        assert speaker.say("22 18") is False
        assert speaker.say("11 15") is False
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "not found" in lines[0] and "espeak-ng" in lines[0]
    assert "\n" not in lines[0] and not speaker.available


def test_a_program_vanished_after_start_is_one_logged_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    script, _log, gate = fake_synthesizer(tmp_path)
    gate.touch()
    speaker = Espeak("it", program=str(script))
    assert speaker.check() and speaker.say("22 18")
    script.unlink()  # uninstalled under the running daemon
    with caplog.at_level(logging.WARNING, logger="pi.drivers.speech"):
        assert speaker.say("11 15") is False
        assert speaker.say("21 17") is False
    assert len(caplog.records) == 1 and "not found" in caplog.records[0].getMessage()


def test_an_audio_failure_is_one_logged_line(tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    # espeak-ng without an audio device prints ALSA's complaints and exits 0 all the same
    script, _log, gate = fake_synthesizer(
        tmp_path, stderr="ALSA lib pcm.c:2666:(snd_pcm_open_noupdate) Unknown PCM default\n"
                         "error: No such file or directory\n")
    gate.touch()
    speaker = Espeak("it", program=str(script))
    with caplog.at_level(logging.WARNING, logger="pi.drivers.speech"):
        for text in ("22 18", "11 15", "21 17"):
            assert speaker.say(text) is False
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1, lines
    assert "error: No such file or directory" in lines[0] and "wav:DIR" in lines[0]
    assert speaker.available  # the device may come back: the next phrase is tried


@needs_espeak
def test_the_real_espeak_without_an_audio_device_is_one_logged_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    # ALSA given a configuration with no device at all: what a PC without audio does
    conf = tmp_path / "asound.conf"
    conf.write_text("pcm.!default { type hw card 99 }\n")
    monkeypatch.setenv("ALSA_CONFIG_PATH", str(conf))
    speaker = Espeak("en")
    with caplog.at_level(logging.WARNING, logger="pi.drivers.speech"):
        assert speaker.say("22 18") is False
        assert speaker.say("11 15") is False
    assert len(caplog.records) == 1, [r.getMessage() for r in caplog.records]


# ---------------------------------------------------------------------- what is heard

def samples(data: bytes) -> tuple[array.array[int], int]:
    """The 16-bit mono samples of a WAV (espeak-ng's --stdout header gives no length: read to
    the end) and its rate."""
    with wave.open(io.BytesIO(data)) as w:
        assert (w.getsampwidth(), w.getnchannels()) == (2, 1)
        rate = w.getframerate()
        pcm = array.array("h", w.readframes(2**31 - 1))
    return pcm, rate


def rms(pcm: array.array[int]) -> float:
    return math.sqrt(sum(x * x for x in pcm) / max(1, len(pcm)))


def heard(text: str, voice: str = "en", rate: int = 160, volume: int = 100) -> tuple[float, float]:
    """(seconds, RMS) of ``text`` rendered by espeak-ng."""
    pcm, hz = samples(Espeak(voice, rate, volume).render(text))
    return len(pcm) / hz, rms(pcm)


SPOKEN = ["zero", "22 18", "22 takes 13", "White: last minute",
          "irregularity: touching one piece and moving another"]


@needs_espeak
@pytest.mark.parametrize("text", SPOKEN)
def test_a_phrase_is_heard_for_as_long_as_its_words(text: str) -> None:
    seconds, loudness = heard(text)
    words = len(text.split())
    assert loudness > 500, f"{text!r} is silent (RMS {loudness:.0f})"
    # 160 words a minute is 0.375 s a word; numbers say two or three words each, and espeak-ng
    # ends every phrase with a short silence
    assert 0.2 * words <= seconds <= 0.4 + 0.9 * words, (text, seconds)


@needs_espeak
def test_more_words_take_longer_and_the_rate_and_volume_are_honoured() -> None:
    chain = ["zero", "22 takes 13", "irregularity: touching one piece and moving another"]
    lengths = [heard(text)[0] for text in chain]  # 1, 3 and 7 words
    assert lengths == sorted(lengths) and lengths[2] > 1.5 * lengths[1]
    slow, fast = heard("22 takes 13", rate=80)[0], heard("22 takes 13", rate=400)[0]
    assert slow > 1.8 * fast
    assert heard("22 takes 13", volume=0)[1] < 1.0
    assert heard("22 takes 13", volume=200)[1] > 1.5 * heard("22 takes 13", volume=50)[1]


def phonemes(speaker: Espeak, text: str) -> str:
    """What espeak-ng reads ``text`` as, with ``speaker``'s voice (its -x output)."""
    argv = speaker.command()
    argv[1:1] = ["-q", "-x"]
    return subprocess.run(argv, input=text.encode(), capture_output=True, check=True,
                          timeout=30).stdout.decode()


@needs_espeak
def test_the_voice_reads_the_numbers_in_its_language() -> None:
    assert Espeak("en").command()[:3] == ["espeak-ng", "-v", "en"]
    assert Espeak("it").command()[:3] == ["espeak-ng", "-v", "it"]
    english = phonemes(Espeak("en"), "22 takes 13")
    italian = phonemes(Espeak("it"), "22 per 13")
    assert "tw'Enti" in english and "T'3:ti:n" in english      # twenty-two, thirteen
    assert "v'entId'ue" in italian and "'editSI" in italian     # ventidue, tredici


@needs_espeak
def test_wav_output_numbers_the_phrases_and_keeps_their_text(tmp_path: Path) -> None:
    speaker = Espeak("en", wav_dir=tmp_path / "spoken")
    assert speaker.say("22 18") and speaker.say("minus 15")
    assert sorted(p.name for p in (tmp_path / "spoken").iterdir()) == [
        "000001.txt", "000001.wav", "000002.txt", "000002.wav"]
    assert (tmp_path / "spoken" / "000002.txt").read_text() == "minus 15\n"
    pcm, _hz = samples((tmp_path / "spoken" / "000001.wav").read_bytes())
    assert rms(pcm) > 500
    again = Espeak("en", wav_dir=tmp_path / "spoken")  # a restart numbers on
    assert again.say("11 15") and (tmp_path / "spoken" / "000003.txt").exists()


# ---------------------------------------------------------------------- [speech]

def test_speech_is_off_by_default() -> None:
    assert parse_config("").speech == SpeechSpec() and not SpeechSpec().enabled


def test_speech_table(tmp_path: Path) -> None:
    c = parse_config('language = "it"\n[speech]\nenabled = true\nvoice = "it+f3"\nrate = 200\nvolume = 150\n'
                     'output = "wav:spoken"\n', base=tmp_path)
    assert c.speech == SpeechSpec(True, "it+f3", 200, 150, tmp_path / "spoken")
    assert parse_config('[speech]\noutput = "audio"').speech.wav_dir is None


@pytest.mark.parametrize("text, key, problem", [
    ("speech = 3", "speech", "expected a table, got 3"),
    ("[speech]\nspeed = 3", "speech.speed", "unknown key"),
    ("[speech]\nenabled = \"yes\"", "speech.enabled", "expected true or false"),
    ("[speech]\nrate = 10", "speech.rate", "10 is out of range 80..450"),
    ("[speech]\nrate = 1e9", "speech.rate", "expected an integer"),
    ("[speech]\nrate = \"fast\"", "speech.rate", "expected an integer"),
    ("[speech]\nvolume = 201", "speech.volume", "201 is out of range 0..200"),
    ("[speech]\nvolume = -1", "speech.volume", "-1 is out of range 0..200"),
    ("[speech]\nvoice = \"it; rm -rf /\"", "speech.voice", "not an espeak-ng voice name"),
    ("[speech]\nvoice = \"-w /etc/passwd\"", "speech.voice", "not an espeak-ng voice name"),
    ("[speech]\nvoice = \"\"", "speech.voice", "empty"),
    ("[speech]\noutput = \"mp3:x\"", "speech.output", 'expected "audio" or "wav:DIR"'),
    ("[speech]\noutput = \"wav:\"", "speech.output", "wav: needs a folder"),
])
def test_bad_speech_values_are_one_line(text: str, key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(text, "damiera.toml")
    message = str(err.value)
    assert message.startswith(f"damiera.toml: {key}: ") and problem in message, message
    assert "\n" not in message


# ---------------------------------------------------------------------- the board's voice

def test_board_speech_says_the_clock_warnings_once_per_game() -> None:
    from engine.clock import GameClock
    from engine.timecontrol import parse_time_control_tag
    said: list[str] = []

    class Recorder:
        def say(self, text: str) -> bool:
            said.append(text)
            return True
    control = parse_time_control_tag("65:1/30")
    assert control is not None
    speech = BoardSpeech(Recorder(), EN)
    for game in ("g1", "g2"):
        clock = GameClock(control)
        clock.start(Colour.WHITE, 0.0)
        for tenth in range(0, 1000):  # 100 s of White's time read ten times a second
            speech.clock(clock.read(tenth / 10), game)
            assert speech.queue.flush(WAIT)  # a voice that keeps up: nothing goes stale
    assert speech.queue.flush(WAIT)
    speech.close()
    once = ["White: last minute", "White: 10 seconds", "White: mosse lampo", "minus 15",
            "minus 10", "minus 5", "4", "3", "2", "1", "zero"]
    assert said == once + once


# ---------------------------------------------------------------------- in Italian

IT = translations("it")


def test_italian_phrases() -> None:
    said = [p.text for batch in batches_of(TRACES / "italian" / "touch_move_corrected.jsonl")
            for p in phrases(batch, IT)]
    assert said[:3] == ["22 18", "11 15", "18 14"]
    # IT 8.1.3, its title in the regulation's words (engine/articles.py, the Italian catalog)
    assert said[3] == "irregolarità: toccare un proprio pezzo e muoverne un altro"
    assert said[4:] == ["irregolarità corretta", "21 17"]
    ds = decisions_of(TRACES / "italian" / "multi_capture_direct.jsonl")
    captures = [move_phrase(d, IT).text for d in ds
                if isinstance(d, MoveCommitted) and "x" in d.notation]
    assert captures and all(" per " in text and "takes" not in text for text in captures)
    assert [p.text for p in phrases(decisions_of(TRACES / "italian" / "art_no_pieces_9_2_3.jsonl"),
                                     IT) if p.kind == "result"] == ["partita finita: vince il Bianco"]


@pytest.mark.parametrize("kind, ms, side, text", [
    ("beep", 60_000, Colour.WHITE, "Bianco: ultimo minuto"),        # COMP 3.6.2 h
    ("beep", 10_000, Colour.BLACK, "Nero: 10 secondi"),             # COMP 3.6.2 i
    ("lampo_start", 0, Colour.BLACK, "Nero: mosse lampo"),          # COMP 5.6
    ("lampo", 15_000, Colour.WHITE, "meno 15"),                     # COMP 5.7: "meno 15…
    ("lampo", 10_000, Colour.WHITE, "meno 10"),                     # … meno 10…
    ("lampo", 5_000, Colour.WHITE, "meno 5"),                       # … meno 5, 4, 3, 2, 1, 0!"
    ("lampo", 3_000, Colour.WHITE, "3"),
    ("lampo", 0, Colour.WHITE, "zero"),
])
def test_italian_clock_warnings(kind: CueKind, ms: int, side: Colour, text: str) -> None:
    phrase = cue_phrase(Cue(side, kind, "", "short", ms), IT)
    assert phrase is not None and phrase.text == text


def test_the_voice_must_speak_the_boards_language() -> None:
    assert parse_config('language = "it"\n[speech]\nvoice = "it+f3"').speech.voice == "it+f3"
    assert parse_config('language = "en"\n[speech]\nvoice = "en-gb"').speech.voice == "en-gb"
    with pytest.raises(ConfigError) as err:
        parse_config('language = "it"\n[speech]\nvoice = "en-us"', "damiera.toml")
    assert str(err.value).startswith("damiera.toml: speech.voice: 'en-us' does not speak")
    with pytest.raises(ConfigError) as err:
        parse_config('language = "fr"', "damiera.toml")
    assert str(err.value).startswith("damiera.toml: language: unknown language 'fr'")


# ---------------------------------------------------------------------- the queue's invariant

KINDS: tuple[PhraseKind, ...] = ("move", "flag", "result", "clock", "phase")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(KINDS), max_size=20))
def test_only_stale_phrases_are_dropped(kinds: list[PhraseKind]) -> None:
    """Whatever comes while a phrase is being said: a phrase is said, in the order put, unless a
    phrase put after it makes it stale (SUPERSEDES); so irregularities and results are always
    said, and the last move put always is."""
    entered, release = threading.Event(), threading.Event()
    said: list[Phrase] = []

    def say(p: Phrase) -> None:
        if not said:
            entered.set()
            assert release.wait(WAIT)
        said.append(p)
    queue = PhraseQueue(say, "speech-property", limit=100)
    first = Phrase("first", "move")
    queue.put(first)
    assert entered.wait(WAIT)
    rest = [Phrase(f"{kind} {i}", kind) for i, kind in enumerate(kinds)]
    for p in rest:
        queue.put(p)
    release.set()
    assert queue.flush(WAIT)
    queue.close()
    fresh = [p for i, p in enumerate(rest)
             if not any(p.kind in SUPERSEDES[later.kind] for later in rest[i + 1:])]
    assert said == [first, *fresh]
    assert all(p in said for p in rest if p.kind in ("flag", "result", "phase"))
    moves = [p for p in rest if p.kind == "move"]
    assert not moves or moves[-1] in said
    assert queue.dropped == len(rest) - len(fresh)
