"""The shell commands of the README and the guides (docs/*.md), read from their fenced blocks,
and a way to run them as written: in a folder holding the checkout's files, with the venv's
``bin`` first on PATH, the long-running ones (a daemon, the broker, the hub) started, checked to
come up and stopped. Used by tests/test_docs_commands.py and tests/hall/test_readme_hall_recipe.py.

Blocks: ```sh (or ```bash, ```shell) holds commands for a PC; ```sh pi commands for a Raspberry
Pi; ```text, ```python, ```toml, ```json, ```csv are not commands. A line ending with ``\\``
goes on on the next; a line that is only a comment is skipped.

Ports: a block's fixed ports are replaced by free loopback ones, and only where an option or a
URL names them — the value of ``--port N``, of ``--http HOST:N`` (``0.0.0.0`` becomes
``127.0.0.1``: tests listen on loopback only) and ``http://HOST:N`` in a URL — the same free
port for the same port throughout the block; ``make hall`` gets its documented ``HTTP``
variable from the environment. Nothing a command generates is edited.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO
from tests.ports import free_port

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent
SHELL_INFO = frozenset({"sh", "bash", "shell"})
PI_INFO = "sh pi"
OTHER_INFO = frozenset({"text", "python", "toml", "json", "csv"})
#: The checkout's files a command may name (pi/samples/…, pi/drivers/wiring/…, the Makefile).
CHECKOUT = ("pi", "engine", "hardware_mocks", "systemd", "benchmarks", "docs", "tests",
            "Makefile", "pyproject.toml", ".ci")

#: Commands that serve until stopped: started, checked to come up, stopped at the block's end.
LONG_RUNNING = re.compile(r"^(make (run|hall|sample)\b|mosquitto |damiera hub (?!init)|"
                          r"damiera run\b(?!.*--speed max))")


@dataclass(frozen=True)
class Block:
    """One fenced block: its file, the line of its fence, its info string, its commands."""
    path: Path
    line: int
    info: str
    heading: str
    commands: tuple[str, ...]
    lines: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def guides() -> list[Path]:
    """The README and every guide in docs/ (the lead's incoming-*.md too)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def command_key(command: str) -> str:
    """The command without a trailing comment (two spaces or more, then ``#``), its whitespace
    made single."""
    return " ".join(re.split(r"\s{2,}#", command, maxsplit=1)[0].split())


def blocks(path: Path) -> list[Block]:
    """Every fenced block of ``path``, in order. Raises ValueError for a fence left open."""
    out: list[Block] = []
    heading = ""
    lines = path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#") and not line.startswith("#!"):
            heading = line.strip()
        if not line.startswith("```"):
            i += 1
            continue
        info = line[3:].strip()
        start = i + 1
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise ValueError(f"{path.name}:{start}: a fence left open")
        i += 1
        out.append(Block(path, start, info, heading, tuple(join_commands(body)), tuple(body)))
    return out


def join_commands(body: list[str]) -> list[str]:
    """The commands of a block's lines: continuations joined, comment-only lines skipped."""
    commands: list[str] = []
    current = ""
    for raw in body:
        line = raw.strip()
        if not current and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            current += line[:-1].rstrip() + " "
            continue
        commands.append(current + line)
        current = ""
    if current:
        commands.append(current.strip())
    return commands


class Ports:
    """A block's ports, each replaced by a free loopback one (module docstring)."""

    def __init__(self) -> None:
        self.map: dict[str, str] = {}

    def _free(self, port: str) -> str:
        if port not in self.map:
            self.map[port] = str(free_port())
        return self.map[port]

    def port(self, documented: int) -> int:
        """The free port standing for the ``documented`` one in this block (``make hall``'s
        HTTP default, 8090, which later commands name in their URLs)."""
        return int(self._free(str(documented)))

    def apply(self, command: str) -> str:
        command = re.sub(r"(--port[ =])(\d+)", lambda m: m.group(1) + self._free(m.group(2)),
                         command)
        command = re.sub(r"(--http[ =])(?:[\w.]+|\[[^\]]*\]):(\d+)",
                         lambda m: f"{m.group(1)}127.0.0.1:{self._free(m.group(2))}", command)
        return re.sub(r"http://(?:127\.0\.0\.1|localhost|0\.0\.0\.0):(\d+)",
                      lambda m: f"http://127.0.0.1:{self._free(m.group(1))}", command)


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The shell's environment: the venv's bin first on PATH (as after ``. .venv/bin/activate``),
    the venv for make (``VENV``), no state directory inherited; ``extra`` over it."""
    env = {k: v for k, v in os.environ.items() if k not in ("STATE_DIRECTORY", "VIRTUAL_ENV")}
    env["PATH"] = f"{VENV / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}:/usr/sbin:/sbin"
    env["VIRTUAL_ENV"] = str(VENV)
    env["VENV"] = str(VENV)
    return {**env, **(extra or {})}


@contextlib.contextmanager
def reachable_folder() -> Iterator[Path]:
    """A fresh folder under /tmp that every user can reach (pytest's own are root's, mode
    0700), removed afterwards: `damiera hub init` run as root gives the broker's files to
    Mosquitto's own user, who must reach the hall's folder once the broker drops to it."""
    import shutil
    import tempfile
    folder = Path(tempfile.mkdtemp(prefix="damiera-hall-", dir="/tmp"))
    os.chmod(folder, 0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def make_sandbox(folder: Path) -> Path:
    """``folder`` holding the checkout's files (symbolic links), as a user's checkout."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in CHECKOUT:
        if (ROOT / name).exists():
            (folder / name).symlink_to(ROOT / name)
    return folder


@dataclass
class Finished:
    command: str
    returncode: int
    stdout: str
    stderr: str


def run_finishing(command: str, cwd: Path, timeout: float = 180,
                  env: dict[str, str] | None = None) -> Finished:
    """``bash -c COMMAND`` to its end (``env``: over :func:`environment`)."""
    proc = subprocess.run(["bash", "-c", command], cwd=cwd, env=environment(env),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=timeout)
    return Finished(command, proc.returncode, proc.stdout, proc.stderr)


class Served:
    """A long-running command, started in its own process group; its output in a file."""

    def __init__(self, command: str, cwd: Path, log: Path,
                 env: dict[str, str] | None = None) -> None:
        self.command = command
        self.cwd = cwd
        self.log_path = log
        self._log: IO[bytes] = open(log, "wb")
        self.proc = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=environment(env),
                                     stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_up(self, timeout: float = 60) -> str:
        """Waits until it serves: the broker's listener takes a connection, the page at
        ``--http`` or at the first loopback URL it prints answers. Returns what answered.
        Raises AssertionError when it exits first or does not come up in ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() == 0:
                return "ran to its end (0)"  # a board acting out a short trace
            if self.proc.poll() is not None:
                raise AssertionError(f"{self.command!r} exited ({self.proc.returncode}) before "
                                     f"it came up:\n{self.output()[-3000:]}")
            answered = self._answers()
            if answered:
                return answered
            time.sleep(0.05)
        raise AssertionError(f"{self.command!r} did not come up in {timeout:g} s:\n"
                             f"{self.output()[-3000:]}")

    def _answers(self) -> str:
        conf = re.search(r"^mosquitto .*-c (\S+)", self.command)
        if conf is not None:
            text = (self.cwd / conf.group(1)).read_text()
            port = re.search(r"^listener (\d+)", text, re.MULTILINE)
            assert port is not None, "the configuration has a listener"
            with contextlib.suppress(OSError):
                with socket.create_connection(("127.0.0.1", int(port.group(1))), timeout=0.5):
                    return f"mosquitto listening on {port.group(1)}"
            return ""
        http = re.search(r"--http[ =]127\.0\.0\.1:(\d+)", self.command)
        if http is not None:
            url = f"http://127.0.0.1:{http.group(1)}/"
        else:
            printed = re.search(r"http://127\.0\.0\.1:\d+/", self.output())
            if printed is None:
                return ""
            url = printed.group(0)
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return f"{url} answered {r.status}"
        except urllib.error.HTTPError as e:
            return f"{url} answered {e.code}" if e.code < 500 else ""
        except OSError:
            return ""

    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 30) -> int:
        """SIGINT to its process group (Ctrl-C), SIGKILL after ``timeout`` s. Its exit status."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self._log.close()
        return self.proc.returncode


@contextlib.contextmanager
def serving() -> Iterator[list[Served]]:
    """A list to put started commands in; each is stopped at the end, the last started first."""
    started: list[Served] = []
    try:
        yield started
    finally:
        for served in reversed(started):
            served.stop()
