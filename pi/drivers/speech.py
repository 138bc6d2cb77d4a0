"""The board's voice: espeak-ng (the Debian package ``espeak-ng``) run once per phrase.

:class:`Espeak` says one phrase at a time, blocking its caller until it is said: on the default
ALSA device (the Pi's audio output), or, with ``wav_dir``, written there as a WAV file beside a
text file holding the phrase (a PC without audio, the tests). It is called from the speech
queue's thread (``pi.board.speech``), never from the event loop.

Faults are never exceptions here: espeak-ng missing, a voice it does not have, no audio device
(espeak-ng then prints ALSA's complaints and still exits 0), a phrase that hangs — each is one
logged line, said once until the voice works again, and the game goes on without it. A missing
program turns the voice off for the rest of the run.

The text goes to espeak-ng's standard input (``--stdin``), never on its command line: a phrase
starting with ``-`` is never taken for an option.
"""

from __future__ import annotations

import logging
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

__all__ = ["Espeak", "PROGRAM", "TIMEOUT", "DEFAULT_RATE", "DEFAULT_VOLUME", "VOICE_PATTERN"]

#: The synthesizer, found on $PATH.
PROGRAM = "espeak-ng"
#: Seconds a phrase may take before espeak-ng is killed (a stuck audio device).
TIMEOUT = 30.0
#: espeak-ng's words a minute (``-s``) and amplitude (``-a``, 0..200) when the config says none.
DEFAULT_RATE = 160
DEFAULT_VOLUME = 100
#: An espeak-ng voice name: a language (``it``, ``en``, ``en-gb``), optionally ``+variant``
#: (``it+f3``); nothing a shell or espeak-ng's options could read otherwise.
VOICE_PATTERN = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]{1,8})*(?:\+[A-Za-z0-9_-]{1,16})?")
#: What espeak-ng (through ALSA) writes to stderr when it could not play: it still exits 0.
_FAILED = re.compile(r"^(?:error|alsa lib|.*cannot open)", re.IGNORECASE | re.MULTILINE)


@dataclass
class Espeak:
    """espeak-ng with ``voice`` (``-v``), ``rate`` in words a minute (``-s``) and ``volume``
    (``-a``, 0..200). ``wav_dir``: write each phrase to ``NNNNNN.wav`` (and its text to
    ``NNNNNN.txt``) there, numbered on from the files already in it, instead of playing it.
    ``program``: the synthesizer's command (a test's stand-in). Not thread-safe: one caller
    thread (the speech queue's)."""

    voice: str
    rate: int = DEFAULT_RATE
    volume: int = DEFAULT_VOLUME
    wav_dir: Path | None = None
    program: str = PROGRAM
    #: phrases said (played or written)
    said: int = 0
    #: the fault last logged (logged once until a phrase is said again), None when it works
    fault: str | None = None
    #: False once the program was found missing: nothing more is tried
    available: bool = True
    _next: int | None = None

    def command(self, wav: Path | None = None) -> list[str]:
        """espeak-ng's command line for one phrase read from standard input; ``wav``: written
        there instead of played."""
        argv = [self.program, "-v", self.voice, "-s", str(self.rate), "-a", str(self.volume),
                "-b", "1"]  # -b 1: the input is UTF-8
        if wav is not None:
            argv += ["-w", str(wav)]
        argv.append("--stdin")
        return argv

    def check(self) -> bool:
        """At start: whether the program is there; when it is not, says so (the one line) and
        turns the voice off, so that a board set up without espeak-ng says it before the first
        move."""
        if shutil.which(self.program) is None:
            self.available = False
            return self._failed(self._missing())
        return True

    def render(self, text: str) -> bytes:
        """``text`` as WAV bytes (espeak-ng's ``--stdout``), for a test or a file. Raises
        OSError when espeak-ng cannot be run, RuntimeError when it fails (its last line)."""
        argv = self.command()
        argv.insert(-1, "--stdout")
        done = subprocess.run(argv, input=text.encode("utf-8"), capture_output=True,
                              timeout=TIMEOUT, check=False)
        if done.returncode != 0 or not done.stdout:
            raise RuntimeError(_last_line(done.stderr) or f"exit status {done.returncode}")
        return done.stdout

    def say(self, text: str) -> bool:
        """Says ``text`` (played, or written to ``wav_dir``), returning once it is said. False
        when it could not be: the reason logged in one line (once until the voice works
        again)."""
        if not self.available:
            return False
        wav = None
        if self.wav_dir is not None:
            try:
                wav = self._wav_path()
            except OSError as exc:
                return self._failed(f"cannot write to {self.wav_dir}: {exc.strerror or exc}")
        try:
            done = subprocess.run(self.command(wav), input=text.encode("utf-8"),
                                  capture_output=True, timeout=TIMEOUT, check=False)
        except FileNotFoundError:
            self.available = False
            return self._failed(self._missing())
        except subprocess.TimeoutExpired:
            return self._failed(f"{self.program} took over {TIMEOUT:g} s for one phrase; killed")
        except OSError as exc:
            return self._failed(f"{self.program} cannot be run: {exc.strerror or exc}")
        err = done.stderr.decode("utf-8", "replace")
        if done.returncode != 0 or (wav is None and _FAILED.search(err)):
            hint = "" if wav is not None else " (no audio device? output = \"wav:DIR\" in " \
                "[speech] writes files instead)"
            reason = _last_line(done.stderr) or f"exit status {done.returncode}"
            return self._failed(f"{self.program} -v {self.voice} failed: {reason}{hint}")
        if wav is not None:
            try:
                wav.with_suffix(".txt").write_text(text + "\n", encoding="utf-8")
            except OSError as exc:
                return self._failed(f"cannot write to {self.wav_dir}: {exc.strerror or exc}")
        self.said += 1
        if self.fault is not None:
            log.info("speech works again (%s)", self.fault)
            self.fault = None
        return True

    def _wav_path(self) -> Path:
        assert self.wav_dir is not None
        if self._next is None:
            self.wav_dir.mkdir(parents=True, exist_ok=True)
            numbers = [int(p.stem) for p in self.wav_dir.glob("*.wav") if p.stem.isdigit()]
            self._next = max(numbers, default=0) + 1
        path = self.wav_dir / f"{self._next:06d}.wav"
        self._next += 1
        return path

    def _missing(self) -> str:
        return (f"{self.program} not found: the board does not speak (install the Debian "
                "package espeak-ng)")

    def _failed(self, line: str) -> bool:
        if line != self.fault:
            log.warning("speech: %s", line)
            self.fault = line
        return False


def _last_line(data: bytes) -> str:
    lines = [x.strip() for x in data.decode("utf-8", "replace").splitlines() if x.strip()]
    return lines[-1][:200] if lines else ""
