"""A real hall for the fault tests (tests/hall/test_hall_faults.py): real board processes
(``damiera run --simulate --trace … --speed … --mqtt … --board N``, each reaching the broker
through a :class:`netcut.Cable` that can be pulled), a real hub process (``damiera hub``) and the
private Mosquitto of broker.py; each process can be killed (-9) and started again.

A board's trace is a random legal game (``hardware_mocks.hall_games``) at a fast players' pace,
its ``end`` an hour after the last move so that the board stays on line after its result, as a
board on a tournament table does (the test stops it).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from broker import free_port
from netcut import Cable

from engine.events import TraceEnded
from hardware_mocks.hall_games import TIME_CONTROL, Pace, natural_game

__all__ = ["BoardProc", "HubProc", "HALL", "make_trace", "differences", "wait_caught_up"]

ROOT = Path(__file__).resolve().parents[2]
HALL = "hall"
FAST = Pace(median=1.2, sigma=0.5, least=0.4)


def make_trace(path: Path, board: int, seed: int, plies: int = 40,
               variant: str = "italian") -> float:
    """Writes a board's trace; returns the game time of its last move's event."""
    rng = random.Random(seed)
    events = list(natural_game(variant, rng, max_plies=plies, pace=FAST))
    last = events[-1].t
    events.append(TraceEnded(round(last + 3600.0, 3)))
    start = {"type": "start", "variant": variant, "fen": None, "clock": True,
             "transcribed": True, "time_control": TIME_CONTROL, "white": f"White {board}",
             "black": f"Black {board}", "event": "fault tests", "round": "1", "board": board}
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(start) + "\n")
        for e in events:
            f.write(json.dumps(e.to_dict()) + "\n")
    return last


class _Proc:
    """A process started in its own session (kill -9 takes it whole), its output to a log."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        raise NotImplementedError

    def start(self) -> None:
        assert self.proc is None or self.proc.poll() is not None
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(self.command(), cwd=ROOT, stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=out, start_new_session=True)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """kill -9: no goodbye, no flush."""
        if self.running:
            assert self.proc is not None
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.running:
            assert self.proc is not None
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def tail(self) -> str:
        try:
            return " | ".join(self.log.read_text(errors="replace").splitlines()[-8:])
        except OSError:
            return ""


class BoardProc(_Proc):
    """Board ``number``: its state directory ``dir/state``, its trace ``dir/trace.jsonl``, the
    broker reached through ``cable``; ``key``: its signing key (``[mqtt] key`` of a
    ``dir/board.toml``), else it publishes unsigned; ``config``: its ``board-<n>.toml`` as
    ``damiera hub init`` wrote it (the broker's URL, user, password, CA and key: no cable)."""

    def __init__(self, root: Path, number: int, broker_port: int, seed: int,
                 speed: float = 10.0, plies: int = 40, key: bytes | None = None,
                 config: Path | None = None) -> None:
        self.number = number
        self.dir = root / f"board-{number}"
        self.dir.mkdir(parents=True)
        super().__init__(self.dir / "board.log")
        self.cable = Cable(broker_port)
        self.state = self.dir / "state"
        self.trace = self.dir / "trace.jsonl"
        self.last_t = make_trace(self.trace, number, seed, plies)
        self.speed = speed
        self.key = key
        self.config = config

    def command(self) -> list[str]:
        url = f"mqtt://127.0.0.1:{self.cable.port}"
        hall = ["--mqtt", url, "--hall", HALL]
        if self.config is not None:
            hall = ["--config", str(self.config)]
        elif self.key is not None:
            config = self.dir / "board.toml"
            config.write_text(f'[mqtt]\nurl = "{url}"\nhall = "{HALL}"\nboard = "{self.number}"\n'
                              f'key = "{self.key.hex()}"\n', encoding="utf-8")
            hall = ["--config", str(config)]
        return [sys.executable, "-m", "pi.cli", "run", "--simulate", "--trace", str(self.trace),
                "--speed", str(self.speed), *hall, "--board", str(self.number),
                "--state-dir", str(self.state), "--http", "off", "--quiet"]

    def journals(self) -> dict[str, Path]:
        return {p.parent.name: p for p in sorted(self.state.glob("games/*/trace.jsonl"))}

    def lines(self) -> int:
        return sum(len(p.read_bytes().splitlines()) for p in self.journals().values())

    def finished(self) -> bool:
        """Its game has a result (the daemon marks the game's folder)."""
        games = list(self.state.glob("games/*"))
        return bool(games) and all((g / "finished").exists() for g in games)

    def close(self) -> None:
        self.stop()
        self.cable.close()


class HubProc(_Proc):
    """The hub; ``keys``: the boards' signing keys (its ``hub.toml``'s ``[keys]``), else every
    board is taken unsigned; ``config``: a ``hub.toml`` as ``damiera hub init`` wrote it (the
    broker's URL, user, password, CA and the keys) instead of ``broker_url`` and ``keys``."""

    def __init__(self, root: Path, broker_url: str, keys: dict[int, bytes] | None = None,
                 config: Path | None = None) -> None:
        self.dir = root / "hub"
        self.dir.mkdir(parents=True)
        super().__init__(root / "hub.log")
        self.url = broker_url
        self.http = free_port()
        self.keys = keys
        self.config = config

    def command(self) -> list[str]:
        if self.config is not None:
            return [sys.executable, "-m", "pi.cli", "hub", "--config", str(self.config),
                    "--http", f"127.0.0.1:{self.http}", "--state-dir", str(self.dir), "--quiet"]
        if self.keys is not None:
            config = self.dir.parent / "hub.toml"
            config.write_text(f'hall = "{HALL}"\n[keys]\n' + "".join(
                f'"{n}" = "{k.hex()}"\n' for n, k in self.keys.items()), encoding="utf-8")
            signing = ["--config", str(config)]
        else:
            # the boards run from the command line (--mqtt, no key): taken unsigned, by name
            signing = [a for n in range(1, 10) for a in ("--accept-unsigned", str(n))]
        return [sys.executable, "-m", "pi.cli", "hub", "--mqtt", self.url, "--http",
                f"127.0.0.1:{self.http}", "--state-dir", str(self.dir), "--quiet", *signing]


def differences(boards: list[BoardProc], hub_dir: Path) -> list[str]:
    """Each board journal whose replica is not byte-equal, said in one line."""
    out = []
    for b in boards:
        games = b.journals()
        if not games:
            out.append(f"board {b.number}: no game yet")
        for game, path in games.items():
            mine = path.read_bytes()
            replica = hub_dir / "boards" / str(b.number) / "games" / game / "trace.jsonl"
            theirs = replica.read_bytes() if replica.exists() else b""
            if mine != theirs:
                out.append(f"board {b.number} game {game}: {len(mine.splitlines())} lines, "
                           f"replica {len(theirs.splitlines())}"
                           + ("" if mine.startswith(theirs) else " (differs)"))
    return out


def wait_caught_up(boards: list[BoardProc], hub_dir: Path, timeout: float) -> list[str]:
    """Waits until every board has its result and every replica equals its journal; returns
    what still differs after ``timeout`` seconds (empty: caught up)."""
    deadline = time.monotonic() + timeout
    while True:
        diff = [f"board {b.number}: no result yet" for b in boards if not b.finished()]
        diff += differences(boards, hub_dir)
        if not diff or time.monotonic() > deadline:
            return diff
        time.sleep(0.25)
