"""The subprocess half of benchmarks/bench_daemon.py: a daemon in a process of its own (``damiera
run --simulate`` when the simulator is installed, else this file's entry: ``python
benchmarks/daemon_proc.py CONFIG STATE_DIR``, the fakes of :mod:`daemon_rig`), NOTIFY_SOCKET on
our own AF_UNIX datagram socket; its READY=1, CPU (/proc) and RSS."""

from __future__ import annotations

import http.client
import importlib.util
import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import time
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from daemon_rig import WIRING, Sim, now, task_cpu
from engine.board import Board
from engine.variants import find_variant
from pi.board.config import load_config
from pi.drivers.wiring import example_wiring, load_wiring

def daemon_command(config: Path, state_dir: Path, own: bool) -> tuple[list[str], str]:
    """The command that runs the daemon on the fakes: ``damiera run --simulate`` when the
    simulator is installed, else this file's own entry (the same fakes as the tests)."""
    have_sim = (importlib.util.find_spec("hardware_mocks.simulate") is not None
                and any(True for _ in entry_points(group="damiera", name="simulator")))
    if have_sim and not own:
        return ([sys.executable, "-m", "pi.cli", "run", "--simulate", "--quiet",
                 "--config", str(config), "--state-dir", str(state_dir)],
                "python -m pi.cli run --simulate --quiet --config CFG --state-dir DIR")
    return ([sys.executable, str(Path(__file__).resolve()), str(config), str(state_dir)],
            "python benchmarks/daemon_proc.py CFG DIR")


def child_main(config_path: str, state_dir: str) -> int:
    """The daemon on the fakes in a process of its own (when the simulator is not installed)."""
    from pi.run import run_board
    logging.basicConfig(level=logging.WARNING)
    config = load_config(config_path)
    wiring = load_wiring(example_wiring(WIRING))
    sim = Sim(wiring, Board(config.fen, find_variant(config.variant)).occupied_algebraic())
    return run_board(config, wiring, Path(state_dir), sim.parts())


class Daemon:
    """A daemon subprocess with NOTIFY_SOCKET on our own datagram socket."""

    def __init__(self, cmd: list[str], workdir: Path) -> None:
        self.sock_path = workdir / f"notify-{os.getpid()}-{id(self)}.sock"
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(self.sock_path))
        env = dict(os.environ, NOTIFY_SOCKET=str(self.sock_path))
        env.pop("WATCHDOG_USEC", None)
        self.started = now()
        # its standard error in a file, not a pipe read only at the stop: past 64 KiB of log
        # the daemon would block writing it, mid-benchmark
        self.err_path = workdir / f"daemon-{os.getpid()}-{id(self)}.err"
        with open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(cmd, env=env, cwd=str(ROOT), stdin=subprocess.DEVNULL,
                                         stdout=subprocess.DEVNULL, stderr=err)

    def wait_ready(self, timeout: float = 20.0) -> float:
        """Seconds from spawn to READY=1."""
        deadline = self.started + timeout
        while True:
            left = deadline - now()
            if left <= 0 or self.proc.poll() is not None:
                err = self.stop()
                raise RuntimeError(f"no READY=1 (exit {self.proc.returncode}): {err[-500:]}")
            self.sock.settimeout(min(left, 0.2))
            try:
                msg = self.sock.recv(4096).decode()
            except socket.timeout:
                continue
            if msg.startswith("READY=1"):
                return now() - self.started

    def cpu_seconds(self) -> float:
        """CPU seconds of all the process's threads (no thread starts or ends while idle)."""
        tasks = Path(f"/proc/{self.proc.pid}/task")
        return sum(task_cpu(t) for t in tasks.iterdir())

    def memory_mb(self) -> tuple[float, float]:
        """(VmRSS, VmHWM) in MB."""
        values = {}
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0]) / 1024
        return values["VmRSS"], values["VmHWM"]

    def stop(self) -> str:
        """SIGTERM (orderly stop), then the stderr tail."""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.sock.close()
        self.sock_path.unlink(missing_ok=True)
        err = self.err_path.read_text(errors="replace")
        self.err_path.unlink(missing_ok=True)
        return err


def idle_run(cmd_for: Any, work: Path, idle: float) -> dict[str, float]:
    """A fresh daemon, a game with a running clock on the board, no events for ``idle`` s."""
    d = Daemon(cmd_for(work / "idle-state"), work)
    try:
        ready = d.wait_ready()
        time.sleep(min(1.0, idle))  # the first frames and the game's files written
        c0, w0 = d.cpu_seconds(), now()
        time.sleep(idle)
        c1, w1 = d.cpu_seconds(), now()
        rss, hwm = d.memory_mb()
    finally:
        err = d.stop()
    if d.proc.returncode != 0:
        raise RuntimeError(f"daemon exit {d.proc.returncode}: {err[-500:]}")
    games = list((work / "idle-state" / "games").iterdir())
    lines = (games[0] / "trace.jsonl").read_text().splitlines()
    return {"ready": ready, "cpu": (c1 - c0) / (w1 - w0), "cpu_s": c1 - c0, "wall": w1 - w0,
            "rss": rss, "hwm": hwm, "lines": len(lines)}


def start_runs(cmd_for: Any, work: Path, runs: int, resume_src: Path | None) -> list[float]:
    """Spawn to READY=1, ``runs`` times, each on a fresh state directory (a copy of
    ``resume_src`` when given: an unfinished game resumed at start-up)."""
    times: list[float] = []
    for i in range(runs):
        state = work / f"start-{'resume' if resume_src else 'fresh'}-{i}"
        if resume_src is not None:
            shutil.copytree(resume_src, state)
        d = Daemon(cmd_for(state), work)
        try:
            times.append(d.wait_ready())
        finally:
            err = d.stop()
        if d.proc.returncode != 0:
            raise RuntimeError(f"daemon exit {d.proc.returncode}: {err[-500:]}")
    return times



if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1], sys.argv[2]))


class Controls:
    """The simulator's HTTP controls (``POST /api/sim/...``) with the arbiter's token, one
    kept-alive connection (``bench_web``, ``bench_daemon_cpu``)."""

    def __init__(self, port: int, token: str, timeout: float = 30) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def post(self, path: str, body: dict[str, Any]) -> None:
        """Raises RuntimeError (the path, the body, the answer) unless it is 200."""
        self.conn.request("POST", path, body=json.dumps(body), headers=self.headers)
        resp = self.conn.getresponse()
        data = resp.read()
        if resp.status != 200:
            raise RuntimeError(f"{path} {body}: {resp.status} {data[:200]!r}")
