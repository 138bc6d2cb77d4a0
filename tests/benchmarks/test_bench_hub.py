"""The hub's benchmarks run and print their figures (issue 19); nothing is timed here. The shell
commands of ``docs/developer-hub-load.md`` are run as written, from the repository's root.

The block it runs: docs/developer-hub-load.md, under ## The benchmarks."""

from __future__ import annotations

import importlib
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "developer-hub-load.md"


def doc_commands() -> list[str]:
    """Every command of the document's ``sh`` blocks (one a line)."""
    blocks = re.findall(r"```sh\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def run(command: str, timeout: float) -> str:
    argv = shlex.split(command)
    assert argv[0] == ".venv/bin/python"  # the repository's own interpreter, as written
    done = subprocess.run([sys.executable, *argv[1:]], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _bench_hall() -> ModuleType:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return importlib.import_module("bench_hall")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_the_document_lists_the_commands_run_here() -> None:
    commands = doc_commands()
    assert any("bench_hub_cpu.py" in c for c in commands)
    assert any("bench_hall.py" in c and "--round-start" in c for c in commands)
    assert any("bench_hall.py" in c and "--round-start" not in c for c in commands)
    assert any("bench_hall.py" in c and "--hall-init" in c for c in commands)
    assert any("bench_hall.py" in c and "--restart" in c for c in commands)


def test_bench_hub_cpu_as_documented() -> None:
    for command in [c for c in doc_commands() if "bench_hub_cpu.py" in c]:
        out = run(command, 300)
        per_line = float(out.split("hub CPU per journal line: ")[1].split(" ms")[0])
        assert per_line > 0
        assert "load average" in out
        assert re.search(r"host: the reference replay \d+\.\d µs per line before the run, "
                         r"\d+\.\d after", out), out


def test_bench_hall_schedules_the_boards_idle(tmp_path: Path) -> None:
    """``--boards-idle``: every boards' process is SCHED_IDLE (and keeps its niceness) from its
    start; nothing listens at the broker's address, the boards retry meanwhile."""
    bench_hall = _bench_hall()
    hall = bench_hall.Hall(tmp_path, 2)  # its broker not started
    fleets = bench_hall.start_fleets(hall, 2, 10.0, tmp_path, 1,
                                     stagger=0.0, per_process=1, nice=5, idle=True)
    try:
        for proc, _ in fleets:  # ``chrt`` and ``nice`` done: the boards' Python runs
            deadline = time.monotonic() + 30
            cmdline = Path(f"/proc/{proc.pid}/cmdline")
            while cmdline.read_bytes().split(b"\0")[0] != sys.executable.encode():
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.05)
        assert [os.sched_getscheduler(p.pid) for p, _ in fleets] == [os.SCHED_IDLE] * 2
        own = os.getpriority(os.PRIO_PROCESS, 0)  # nice -n 5: five above the bench's own
        assert [os.getpriority(os.PRIO_PROCESS, p.pid) for p, _ in fleets] == [min(19, own + 5)] * 2
        plain = bench_hall.start_fleets(hall, 1, 10.0, tmp_path / "p",
                                        1, stagger=0.0, per_process=1)
        fleets += plain
        assert os.sched_getscheduler(plain[0][0].pid) == os.SCHED_OTHER
    finally:
        for proc, _ in fleets:
            proc.kill()
            proc.communicate()


def test_bench_hall_over_a_hall_made_by_hub_init(tmp_path: Path) -> None:
    """``--hall-init``: the broker runs the configuration ``damiera hub init`` wrote (TLS, no
    anonymous client, 100 messages in flight, TCP_NODELAY; only its listener moved to a free
    loopback port), the hub reads ``hub.toml`` (no board taken unsigned) and each board logs in
    with its own ``board-<N>.toml`` (its user, the CA, its signing key)."""
    bench_hall = _bench_hall()
    hall = bench_hall.Hall(tmp_path, 3, made=True)
    conf = hall.broker.conf.read_text(encoding="utf-8")
    assert f"listener {hall.broker.port} 127.0.0.1\n" in conf
    for line in ("allow_anonymous false", "max_inflight_messages 100", "set_tcp_nodelay true",
                 f"certfile {hall.dir / 'broker.crt'}", f"password_file {hall.dir / 'passwd'}"):
        assert line + "\n" in conf
    assert f"@127.0.0.1:{hall.broker.port}" in (hall.dir / "board-3.toml").read_text()
    assert hall.hub_args() == ["--config", str(hall.dir / "hub.toml")]
    assert hall.fleet_args() == ["--hall-dir", str(hall.dir)]
    anonymous = bench_hall.Hall(tmp_path / "anonymous", 2)
    assert anonymous.hub_args() == ["--mqtt", anonymous.broker.url, "--accept-unsigned", "1",
                                    "--accept-unsigned", "2"]
    assert anonymous.fleet_args() == ["--mqtt", anonymous.broker.url, "--hall", "hall"]


@pytest.mark.slow
def test_bench_hall_as_documented() -> None:
    """A private Mosquitto, the hub, light boards and a hall page: every line of the boards'
    journals reaches the hub's replicas."""
    for command in [c for c in doc_commands() if "bench_hall.py" in c]:
        out = run(command, 600)
        assert re.search(r"lines lost: 0 of [1-9]", out), out
        assert "host: the reference replay" in out, out
        if "--round-start" in command:
            boards = int(command.split("--boards ")[1].split()[0])
            assert f"on the hall page: {boards} of {boards} boards" in out, out
        elif "--restart" in command:
            # the hall page, resuming with the killed hub's event id, has every board back
            boards = int(command.split("--boards ")[1].split()[0])
            assert re.search(rf"{boards} of {boards} boards at their line of the restart", out), out
            assert "the restarted hub answered /api/hall after" in out, out
        else:
            assert "hub CPU per journal line" in out and "load average" in out
            assert "the broker: CPU" in out, out
        if "--boards-idle" in command:
            assert "process(es) under SCHED_IDLE" in out, out
        if "--hall-init" in command:
            assert "hall: a hall made by damiera hub init" in out, out
        else:
            assert "hall: an anonymous broker" in out, out
