"""A hub of several processes on a real Mosquitto (``pi.hall.shares``, issue 19): ``damiera hub
--share K/N`` processes sharing one state directory, ``damiera hub front`` over them, and the
light simulated boards (``hardware_mocks.hall_fleet``) signing their lines with the rigs' keys.
Every process on 127.0.0.1 free ports; ``kill`` is SIGKILL of the process's group."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from broker import free_port
from hub_rig import HALL, ROOT, request, rig_keys_toml


def hub_toml(path: Path, url: str, boards: int, ports: list[int]) -> Path:
    """A hub.toml for the hall: the broker, every board's key, a ``[[share]]`` per port."""
    shares = "".join(f'[[share]]\nhttp = "127.0.0.1:{p}"\n\n' for p in ports)
    path.write_text(f'hall = "{HALL}"\nevent = "Shares Open"\n[mqtt]\nurl = "{url}"\n\n'
                    + shares + rig_keys_toml(range(1, boards + 1)), encoding="utf-8")
    return path


class Proc:
    """A ``damiera`` process (its stderr in ``log``)."""

    def __init__(self, args: list[str], log: Path) -> None:
        self.args = args
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Proc:
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        with open(self.log, "ab") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "pi.cli", *self.args], cwd=ROOT,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=err, env=env, start_new_session=True)
        return self

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        if self.running:
            assert self.proc is not None
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> int:
        """SIGTERM, the exit status (killed after 15 s)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                return self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        return self.proc.returncode

    def tail(self) -> str:
        try:
            return " | ".join(self.log.read_text(errors="replace").splitlines()[-8:])
        except OSError:
            return ""


class ShareHall:
    """``shares`` share processes and a front, one state directory, over ``url``."""

    def __init__(self, root: Path, url: str, boards: int, shares: int = 2) -> None:
        self.root = root
        self.state = root / "hub"
        self.boards = boards
        self.ports = [free_port() for _ in range(shares)]
        self.port = free_port()
        self.conf = hub_toml(root / "hub.toml", url, boards, self.ports)
        self.shares = [Proc(["hub", "--config", str(self.conf), "--state-dir", str(self.state),
                             "--share", f"{k}/{shares}", "--quiet"], root / f"share-{k}.log")
                       for k in range(shares)]
        self.front = Proc(["hub", "front", "--config", str(self.conf), "--state-dir",
                           str(self.state), "--http", f"127.0.0.1:{self.port}", "--quiet"],
                          root / "front.log")

    def start(self) -> ShareHall:
        for p in [*self.shares, self.front]:
            p.start()
        for port in [*self.ports, self.port]:
            self.wait_http(port)
        return self

    def wait_http(self, port: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if request(port, "GET", "/api/hall", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise AssertionError(f"nothing answers on port {port}: "
                             + " / ".join(p.tail() for p in [*self.shares, self.front]))

    def hall(self) -> dict[str, Any]:
        status, _, body = request(self.port, "GET", "/api/hall", timeout=5)
        assert status == 200, body[:200]
        return dict(json.loads(body))

    def lines(self) -> dict[str, int]:
        """Board → its journal lines as the front's hall shows them."""
        return {b["board"]: b["lines"] for b in self.hall()["boards"]}

    def stop(self) -> list[int]:
        return [p.stop() for p in [self.front, *self.shares] if p.proc is not None]


def fleet(url: str, boards: int, journals: Path, conf: Path, pace: float = 20.0
          ) -> subprocess.Popen[bytes]:
    """The light boards 1..``boards``, signing with the keys of ``conf`` (hub.toml); their
    output in ``fleet.log`` beside ``journals`` (:func:`fleet_log`), never a pipe nobody reads
    while they play (past 64 KiB of log every board would block)."""
    journals.parent.mkdir(parents=True, exist_ok=True)
    with open(fleet_log(journals), "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "hardware_mocks.hall_fleet", "--mqtt",
                                 url, "--hall", HALL, "--boards", f"1-{boards}", "--dir",
                                 str(journals), "--pace", str(pace), "--stagger", "2",
                                 "--hub-config", str(conf)],
                                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                                env=dict(os.environ, PYTHONPATH=str(ROOT)),
                                start_new_session=True)


def fleet_log(journals: Path) -> Path:
    """What :func:`fleet` said (its standard output and error)."""
    return journals.parent / "fleet.log"


def unequal(journals: Path, state: Path) -> list[str]:
    """Every board game whose replica is not byte-equal to the board's journal."""
    out = []
    for trace in sorted(journals.glob("*/games/*/trace.jsonl")):
        board, game = trace.parts[-4], trace.parts[-2]
        replica = state / "boards" / board / "games" / game / "trace.jsonl"
        if not replica.is_file() or replica.read_bytes() != trace.read_bytes():
            out.append(f"{board}/{game}")
    return out
