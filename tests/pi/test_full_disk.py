"""A full disk and a finished game's record (issue 17): ``game.pdn``/``report.json`` older than
their journal (a rewrite that failed) are rewritten at start; when they cannot be written the
screen says so and the daemon's exit status too; once space is free the next start writes them
and exits 0.

The full disk is a small tmpfs when this process may mount one (root), else a file-size limit
(``prlimit --fsize``: a write past it fails with EFBIG, as a full disk fails with ENOSPC). The
board is run by a child process (the daemon's own ``run_daemon`` on the simulator, with no
pieces on the board: no new game begins, so only the derived files are written)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "pi" / "samples" / "italian_sample.jsonl"
PRLIMIT = shutil.which("prlimit")

#: The child: the daemon on an empty simulated board for a moment, then an orderly stop; prints
#: the screen's header and message, exits with the status ``damiera run`` would give.
CHILD = r"""
import asyncio, sys, threading
from hardware_mocks.simulate import Simulation, default_wiring
from pi.board.config import Config
from pi.board.statedir import StateDir
from pi.daemon import run_daemon
from pi.drivers.wiring import load_wiring
from engine.errors import DamieraError

config = Config(source="(test)", time_control="600+5")
wiring = load_wiring(default_wiring("italian"))
sim = Simulation(wiring, frozenset())
state = StateDir.open(sys.argv[1])

async def main():
    stop = asyncio.Event()
    seen = []
    def look(controller, inbox):
        async def later():
            await asyncio.sleep(0.5)
            d = controller.display_state()
            seen.append((d.title, d.message))
            stop.set()
        return later()
    parts = sim.parts(companion=look)
    try:
        return await run_daemon(config, wiring, state, parts, stop=stop)
    finally:
        for title, message in seen:
            print("title:", title)
            print("message:", message)

try:
    rc = asyncio.run(main())
except DamieraError as exc:
    print("error:", exc)
    rc = 2
sys.stdout.flush()
sys.exit(rc)
"""


def child(state: Path, fsize: int | None = None) -> tuple[int, str]:
    limit = [] if fsize is None else [str(PRLIMIT), f"--fsize={fsize}"]
    proc = subprocess.run([*limit, sys.executable, "-c", CHILD, str(state)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    return proc.returncode, proc.stdout + proc.stderr


def finished_game(state: Path) -> Path:
    """The sample game played to its end by ``damiera run --simulate --trace`` in ``state``."""
    subprocess.run([sys.executable, "-m", "pi.cli", "run", "--simulate", "--trace", str(SAMPLE),
                    "--speed", "max", "--state-dir", str(state), "--http", "off", "--quiet"],
                   cwd=ROOT,
                   check=True, timeout=120)
    (game,) = [p.parent for p in state.glob("games/*/trace.jsonl")]
    assert (game / "finished").exists()
    return game


def make_stale(game: Path) -> dict[str, object]:
    """The record as a failed rewrite leaves it: the files of an earlier move, older than the
    journal. Returns the right report."""
    right: dict[str, object] = json.loads((game / "report.json").read_text())
    moves = right["moves"]
    assert isinstance(moves, list) and len(moves) > 31
    stale = dict(right, moves=moves[:31], result="*")
    (game / "report.json").write_text(json.dumps(stale))
    (game / "game.pdn").write_text("[Result \"*\"]\n\n*\n")
    journal = (game / "trace.jsonl").stat().st_mtime
    for name in ("report.json", "game.pdn"):
        os.utime(game / name, (journal - 60, journal - 60))
    return right


@pytest.fixture(params=["tmpfs", "fsize"])
def tmpfs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path | None]:
    """A 2 MiB tmpfs, or None: the file-size limit instead (asked for, or no tmpfs here)."""
    if request.param == "fsize":
        yield None
        return
    mnt = tmp_path / "disk"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mnt)],
                          capture_output=True)
    if done.returncode != 0:
        yield None
        return
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def fill(mnt: Path) -> Path:
    """Fills the file system (every block taken) with one file."""
    filler = mnt / "filler"
    with open(filler, "wb", buffering=0) as f:
        for block in (65536, 1):
            try:
                while True:
                    f.write(b"\0" * block)
            except OSError:
                pass
    return filler


def test_stale_record_rewritten_at_start_and_a_failure_told(tmp_path: Path,
                                                            tmpfs: Path | None) -> None:
    """Issue 17: a finished game left with a stale ``report.json`` (31 moves and ``*``) by a
    full disk: the next start cannot rewrite it either: the screen's header says "record not
    written" and the daemon exits 2 (one line naming the game); once space is free, the next
    start rewrites both files from the journal and exits 0."""
    if tmpfs is None and PRLIMIT is None:
        pytest.skip("no tmpfs (not root) and no prlimit here")
    state = (tmpfs or tmp_path) / "state"
    game = finished_game(state)
    right = make_stale(game)
    if tmpfs is not None:
        filler = fill(tmpfs)
        rc, out = child(state)
        reason = "No space left on device"
    else:
        rc, out = child(state, fsize=512)
        reason = "File too large"
    assert rc == 2, out
    assert f"title: record not written: {reason}" in out
    assert f"error: stopped: game {game.name}: game.pdn/report.json not written" in out
    assert json.loads((game / "report.json").read_text())["result"] == "*"
    if tmpfs is not None:
        filler.unlink()
    rc, out = child(state)
    assert rc == 0, out
    assert "record not written" not in out
    report = json.loads((game / "report.json").read_text())
    assert report == right and report["result"] != "*"
    assert (game / "game.pdn").read_text() == right["pdn"]
