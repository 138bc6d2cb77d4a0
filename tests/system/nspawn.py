"""A Debian root booted with systemd as PID 1 in a container (``systemd-nspawn --boot``), for the
tests that need real systemd: Type=notify, the watchdog, Restart=, the sandbox as installed.

The container shares the host's network (no private network: it reaches deb.debian.org and
PyPI as the host does, and the host reaches its services on loopback) and is not registered
with machined (the host may have no systemd as PID 1): commands run in it through ``nsenter``
into its PID 1's namespaces, as root, or as a user through ``runuser``. systemd 257 wants the
unified cgroup hierarchy: nspawn is asked for it (SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1); on a
host with the hybrid layout nspawn is run in a private mount namespace (``unshare -m``) so that
nothing it mounts reaches the host. Stopping it (``stop``, also on failure) powers it off, then
kills what is left."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

#: What a login shell inside has on PATH.
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def login_command(command: str, user: str | None, env: dict[str, str] | None) -> list[str]:
    """``command`` by bash in a login-like environment (PATH, HOME, LANG and ``env`` only), as
    root or, in its home, as ``user``: the argv to run inside a root (container or chroot)."""
    home = "/root" if user is None else f"/home/{user}"
    variables = {"PATH": PATH, "HOME": home, "LANG": "C.UTF-8", "TERM": "dumb", **(env or {})}
    inner = ["env", "-i", *(f"{k}={v}" for k, v in variables.items()), "bash", "-c",
             command if user is None else f"cd {home} && {command}"]
    return inner if user is None else ["runuser", "-u", user, "--", *inner]


class ContainerError(RuntimeError):
    """The container did not boot, or a command in it failed: the command and its output."""


@dataclass(frozen=True)
class Result:
    args: str
    returncode: int
    stdout: str
    stderr: str

    def check(self) -> Result:
        if self.returncode != 0:
            raise ContainerError(f"inside: {self.args}\nexit {self.returncode}\n"
                                 f"{self.stdout[-4000:]}\n{self.stderr[-4000:]}")
        return self


class Container:
    """``root`` booted as machine ``name``; its console (systemd's boot messages) in ``log``."""

    def __init__(self, root: Path, name: str, log: Path) -> None:
        self.root, self.name, self.log = root, name, log
        self.proc: subprocess.Popen[bytes] | None = None
        self.leader = 0  # PID 1 inside, as the host numbers it

    def boot(self, timeout: float = 60.0) -> float:
        """Boots it and waits until systemd says the system is up (running, or degraded: a
        unit of Debian's own that cannot start in a container); returns the seconds taken."""
        started = time.monotonic()
        env = {**os.environ, "SYSTEMD_NSPAWN_UNIFIED_HIERARCHY": "1"}
        nspawn = ["systemd-nspawn", "--quiet", "--boot", f"--directory={self.root}",
                  f"--machine={self.name}", "--register=no", "--keep-unit", "--console=pipe",
                  "--resolv-conf=copy-host", "--timezone=off"]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(["unshare", "--mount", "--propagation", "private",
                                          *nspawn], stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, env=env,
                                         start_new_session=True)
        deadline = started + timeout
        while not self.leader:
            self.leader = self.find_leader()
            self.fail_if_gone("did not start")
            if time.monotonic() > deadline:
                raise ContainerError(f"no PID 1 after {timeout} s: see {self.log}")
            time.sleep(0.05)
        while True:
            state = self.run("systemctl is-system-running --wait", timeout=timeout).stdout.strip()
            if state in ("running", "degraded"):
                return time.monotonic() - started
            self.fail_if_gone("stopped while booting")
            if time.monotonic() > deadline:
                raise ContainerError(f"system {state!r} after {timeout} s: see {self.log}")
            time.sleep(0.1)

    def fail_if_gone(self, what: str) -> None:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise ContainerError(f"systemd-nspawn {what} (exit {self.proc.returncode}):\n"
                                 + self.log.read_text(errors="replace")[-3000:])

    def find_leader(self) -> int:
        """The host's PID of the container's systemd: the process of ``unshare``'s tree whose
        command is /sbin/init or systemd and whose own PID namespace calls it 1."""
        assert self.proc is not None
        todo, seen = [self.proc.pid], set()
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            seen.add(pid)
            try:
                status = Path(f"/proc/{pid}/status").read_text()
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            except OSError:
                continue
            nspids = [line.split()[1:] for line in status.splitlines()
                      if line.startswith("NSpid:")]
            if nspids and len(nspids[0]) > 1 and nspids[0][-1] == "1":
                return pid
            todo.extend(int(child) for child in children)
        return 0

    def run(self, command: str, *, user: str | None = None, timeout: float = 600.0,
            env: dict[str, str] | None = None) -> Result:
        """``command`` by bash inside (a login-like environment: PATH, HOME, LANG), as root or
        as ``user``; its exit status and output, not checked (``.check()``)."""
        inner = login_command(command, user, env)
        args = ["nsenter", "--target", str(self.leader), "--all", "--root", "--wd", *inner]
        try:
            proc = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise ContainerError(f"in the container: {command}: no end after {timeout} s\n"
                                 f"{exc.stdout!r:.3000}\n{exc.stderr!r:.3000}") from exc
        return Result(command, proc.returncode, proc.stdout, proc.stderr)

    def ok(self, command: str, *, user: str | None = None, timeout: float = 600.0) -> str:
        """``command``'s output; a failure raises with both outputs."""
        return self.run(command, user=user, timeout=timeout).check().stdout

    def host_pid(self, unit: str) -> int:
        """The host's PID of ``unit``'s main process (0: none), so that the test can signal it
        from outside as a crash would."""
        inner = int(self.ok(f"systemctl show -P MainPID {shlex.quote(unit)}").strip() or 0)
        if inner == 0:
            return 0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("NSpid:"):
                    ids = line.split()[1:]
                    if len(ids) > 1 and ids[-1] == str(inner) and self.in_container(entry.name):
                        return int(entry.name)
        return 0

    def in_container(self, pid: str) -> bool:
        try:
            return (os.readlink(f"/proc/{pid}/ns/pid")
                    == os.readlink(f"/proc/{self.leader}/ns/pid"))
        except OSError:
            return False

    def stop(self, timeout: float = 20.0) -> None:
        """Powers it off (SIGRTMIN+4 to its systemd, as machinectl poweroff does), then kills
        nspawn's whole process group if it is still there after ``timeout`` s."""
        if self.proc is None or self.proc.poll() is not None:
            return
        if self.leader:
            try:
                os.kill(self.leader, signal.SIGRTMIN + 4)
            except ProcessLookupError:
                pass
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
