"""docs/organiser-shares.md's recipe ("## A hall as two processes on one PC"), a hall as two
hub processes and a front, run as written: the commands are read from its sh block
(tests/doc_blocks.py, not copied here) and run in order in an empty folder
(``pi`` linked in, for the sample trace): ``hub init --shares 2`` (TLS, the real users and ACL),
the broker, two shares, the front, the pairings and "start round 1" through the front, two
simulated boards playing the sample game, the results and the round feed from the front.

Only the ports change (8883, 8090, 8091, 8092: free loopback ports instead, in the options and
URLs that name them), and the broker's listener is bound to 127.0.0.1 (``tests/hall/broker.py``
runs ``hall/mosquitto.conf`` with only its ``listener`` line changed): tests listen on loopback
only. Checked: each board's result at the front, both games in the round feed in board order,
every replica byte-equal to its board's journal."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from broker import Broker, free_port
from hub_rig import ROOT

from tests.doc_blocks import blocks, reachable_folder

DOC = ROOT / "docs" / "organiser-shares.md"
HEADING = "## A hall as two processes on one PC"
PORTS = ("8883", "8090", "8091", "8092")

pytestmark = pytest.mark.slow  # a round played: some 20-30 s


def recipe() -> list[str]:
    found = [b for b in blocks(DOC) if b.heading == HEADING and b.info == "sh"]
    assert len(found) == 1, f"{DOC.name}: one sh block under {HEADING!r}"
    return list(found[0].commands)


def test_the_recipe_starts_shares_and_a_front() -> None:
    commands = recipe()
    assert commands[0].startswith("damiera hub init ") and "--shares 2" in commands[0]
    assert [c for c in commands if "--share " in c] == [c for c in commands[2:4]]
    assert commands[4].startswith("damiera hub front ")


def _replicas(hall: Path) -> list[str]:
    journals = sorted((hall / "boards").glob("*/games/*/trace.jsonl"))
    differ = [str(j) for j in journals
              if not (hall / "hub" / j.relative_to(hall)).is_file()
              or (hall / "hub" / j.relative_to(hall)).read_bytes() != j.read_bytes()]
    return ["no journal"] if not journals else differ


def test_the_recipe_run_as_written_plays_a_round_over_two_shares(tmp_path: Path) -> None:
    with reachable_folder() as folder:  # the broker, run as root, becomes mosquitto
        _plays_a_round(tmp_path, folder / "run")


def _plays_a_round(tmp_path: Path, cwd: Path) -> None:
    cwd.mkdir()
    (cwd / "pi").symlink_to(ROOT / "pi")
    ports = {p: str(free_port()) for p in PORTS}
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    env.pop("STATE_DIRECTORY", None)
    served: list[subprocess.Popen[bytes]] = []
    boards: list[subprocess.Popen[bytes]] = []
    broker: Broker | None = None
    out: dict[str, str] = {}
    try:
        for i, command in enumerate(recipe()):
            actual = re.sub(r"\b(8883|8090|8091|8092)\b", lambda m: ports[m.group(1)], command)
            if command.startswith("mosquitto -c "):
                broker = Broker(cwd.parent, conf=cwd / shlex.split(command)[2],
                                port=int(ports["8883"])).start()
                continue
            if command.startswith(("damiera hub --", "damiera hub front", "damiera run ")):
                with open(tmp_path / f"proc-{i}.log", "wb") as log:
                    p = subprocess.Popen(shlex.split(actual), cwd=cwd, env=env, stderr=log,
                                         stdout=log, stdin=subprocess.DEVNULL,
                                         start_new_session=True)
                (boards if command.startswith("damiera run ") else served).append(p)
                if command.startswith("damiera hub"):
                    _wait_http(re.search(r"--http 127.0.0.1:(\d+)", actual), tmp_path, i)
                continue
            if boards and command.startswith("curl"):
                for b in boards:
                    assert b.wait(120) == 0, (tmp_path / "proc-5.log").read_text()[-2000:]
                deadline = time.monotonic() + 60
                while _replicas(cwd / "hall") and time.monotonic() < deadline:
                    time.sleep(0.2)
                assert not _replicas(cwd / "hall"), _replicas(cwd / "hall")
            done = subprocess.run(["bash", "-c", actual], cwd=cwd, env=env, capture_output=True,
                                  text=True, timeout=60)
            assert done.returncode == 0, (command, done.stdout, done.stderr)
            out[command] = done.stdout
        assert all(p.poll() is None for p in served), "the shares and the front stayed up"
    finally:
        for p in [*boards, *reversed(served)]:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        if broker is not None:
            broker.stop()
    assert [p.returncode for p in served] == [0, 0, 0]
    got = {k.rsplit("/", 1)[-1]: v for k, v in out.items() if k.startswith("curl")}
    assert '"kept": 2' in got["pairings"] or '"kept":2' in got["pairings"]
    results = [row.split(",") for row in got["results.csv"].splitlines()[1:]]
    assert {r[1]: r[-1] for r in results if r[0] == "1"} == {"1": "1-0", "2": "1-0"}, results
    feed = got["games.pdn"]
    assert re.findall(r'\[Board "(\d+)"\]', feed) == ["1", "2"]
    assert feed.count('[Result "1-0"]') == 2
    # each share held its own board's files: its own pairings in hall/hub/shares/<K>/
    for k, board in ((0, "2"), (1, "1")):
        rows = (cwd / "hall" / "hub" / "shares" / str(k) / "pairings.csv").read_text()
        assert [r.split(",")[1] for r in rows.splitlines()[1:]] == [board]


def _wait_http(m: re.Match[str] | None, tmp_path: Path, i: int, timeout: float = 30) -> None:
    import http.client
    assert m is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", int(m.group(1)), timeout=2)
            conn.request("GET", "/api/whoami")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError((tmp_path / f"proc-{i}.log").read_text()[-2000:])
