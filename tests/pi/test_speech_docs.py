"""Every shell command of docs/speech.md, run as written, in a folder of its own
that sees the checkout's Makefile, pyproject.toml, .venv and pi/ (so the files the commands make
land there): `make run CONFIG=speech.toml` comes up with the voice on in Italian (a move played
on the simulator is said; with no audio device that is the one line its fault is), and
`make sample CONFIG=speech-wav.toml SPEED=max` leaves the phrases said in spoken/.

The block it runs: docs/speech.md, under ## On a PC: `make run` with speech."""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "speech.md"
VENV = Path(sys.executable).parent.parent

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None or shutil.which("make") is None,
                                reason="needs Debian's espeak-ng and make")


def blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("Makefile", "pyproject.toml", "pi"):
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / ".venv").symlink_to(VENV)
    return tmp_path


def env(tmp_path: Path) -> dict[str, str]:
    """The environment of the commands: ALSA given a default device that does not exist, so that
    this test hears the same on a PC with audio as on one without."""
    conf = tmp_path / "no-audio.conf"
    conf.write_text("pcm.!default { type hw card 99 }\n")
    return {**os.environ, "ALSA_CONFIG_PATH": str(conf), "PYTHONUNBUFFERED": "1"}


def test_the_doc_has_the_two_blocks() -> None:
    assert [b.strip().splitlines()[-1] for b in blocks()] == [
        "make run CONFIG=speech.toml", "cat spoken/*.txt"]


def post(port: int, path: str, body: dict[str, object], token: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", path, body=json.dumps(body),
                     headers={"Authorization": f"Bearer {token}",
                              "Content-Type": "application/json"})
        resp = conn.getresponse()
        assert resp.status == 200, resp.read()
        resp.read()
    finally:
        conn.close()


def test_make_run_with_speech_on(folder: Path) -> None:
    block = blocks()[0]
    setup, _, last = block.strip().rpartition("\n")
    assert last == "make run CONFIG=speech.toml"
    e = env(folder)
    subprocess.run(["bash", "-euo", "pipefail", "-c", setup], cwd=folder, env=e, check=True,
                   timeout=30)
    proc = subprocess.Popen(["bash", "-c", last], cwd=folder, env=e, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    lines: list[str] = []
    stderr = proc.stderr
    assert stderr is not None
    reader = threading.Thread(target=lambda: lines.extend(iter(stderr.readline, "")), daemon=True)
    reader.start()

    def wait_for(pattern: str) -> re.Match[str]:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            for line in list(lines):
                m = re.search(pattern, line)
                if m is not None:
                    return m
            assert proc.poll() is None, "".join(lines)
            time.sleep(0.05)
        raise AssertionError(f"{pattern!r} never logged: {''.join(lines)}")
    try:
        # "web pages on http://…" in the board's language: "pagine web su http://…"
        port = int(wait_for(r"^damiera: .* http://127\.0\.0\.1:(\d+)/ ").group(1))
        token = subprocess.run([str(VENV / "bin" / "damiera"), "token", "--state-dir",
                                str(folder / ".state")], capture_output=True, text=True,
                               check=True).stdout.strip()
        time.sleep(0.5)  # the game begins on the first snapshot
        for path, body in (("/api/sim/lift", {"square": 22}), ("/api/sim/place", {"square": 18})):
            post(port, path, body, token)
            time.sleep(0.1)  # beyond the sensors' debounce
        post(port, "/api/sim/button", {"name": "clock", "side": "white"}, token)
        wait_for(r"speech: espeak-ng -v it failed: .*no audio device")
        time.sleep(0.5)
    finally:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C
        proc.wait(30)
    faults = [line for line in lines if "speech:" in line]
    assert len(faults) == 1, faults  # one line, not one per phrase


def test_make_sample_with_speech_written_to_wav_files(folder: Path) -> None:
    block = blocks()[1]
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=folder, env=env(folder),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stdout.splitlines() if not line.startswith("move ")]
    assert said[-1] == "partita finita: vince il Bianco", done.stdout[-2000:]
    assert sum(line.startswith("irregolarità: ") for line in said) == 2  # IT 8.1.3, twice
    assert "irregolarità corretta" in said and "irregolarità mantenuta" in said
    wavs = sorted((folder / "spoken").glob("*.wav"))
    assert len(wavs) == len(list((folder / "spoken").glob("*.txt"))) >= 6
