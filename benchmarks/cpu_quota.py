"""A CPU quota for one process of a benchmark: a child cgroup of its own, made for the run and
removed after it, with a share of one core (``--cpu 10``: 10 % of a core ≈ a Raspberry Pi Zero
2 W's speed against this machine's, ``--cpu 33`` ≈ a Pi 4's).

Both hierarchies: cgroup v2 (a Pi's, systemd's default: ``cpu.max`` at the unified root, the
cpu controller enabled in the root's ``cgroup.subtree_control``) and cgroup v1 (this VM's: the
cpu controller at ``/sys/fs/cgroup/cpu``, ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``). Making a
cgroup needs root (or a delegated hierarchy); :class:`QuotaError` says in one line when neither
hierarchy is writable. Used by bench_daemon_cpu.py (the board daemon) and bench_hall.py (the
hub): the quota is applied to the measured process only, from its first instruction —
:meth:`CpuQuota.wrap` puts a command's process into the cgroup before it ``exec``s.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["CpuQuota", "QuotaError", "PERIOD_US"]

CGROUP_ROOT = Path("/sys/fs/cgroup")
#: The scheduler's period: the quota is ``percent`` % of it, each period (the kernel's default).
PERIOD_US = 100_000


class QuotaError(RuntimeError):
    """No cgroup could be made (one line: which hierarchies were tried, and why)."""


@dataclass
class Throttling:
    """The cgroup's ``cpu.stat``: periods run, periods in which the quota ran out, and the time
    its processes waited for the next period (s)."""

    periods: int
    throttled: int
    throttled_s: float


class CpuQuota:
    """A child cgroup with ``percent`` % of one core; :meth:`remove` (or the ``with`` block's
    end) takes it away again once its processes have ended."""

    def __init__(self, path: Path, version: int, percent: float) -> None:
        self.path, self.version, self.percent = path, version, percent

    @classmethod
    def create(cls, percent: float, name: str | None = None,
               root: Path = CGROUP_ROOT) -> CpuQuota:
        """A new cgroup ``name`` (default ``damiera-bench-<pid>``) with the quota set. Raises
        QuotaError (one line) when neither a v2 nor a v1 cpu hierarchy is writable, and
        ValueError for a share outside (0, 100 × cores]."""
        if not 0 < percent <= 100 * (os.cpu_count() or 1):
            raise ValueError(f"--cpu: a share of one core in percent, 0 < N <= "
                             f"{100 * (os.cpu_count() or 1)}, got {percent:g}")
        name = name or f"damiera-bench-{os.getpid()}"
        quota_us = max(1000, round(PERIOD_US * percent / 100))  # the kernel's least: 1 ms
        tried: list[str] = []
        v2 = root / "cgroup.controllers"
        if v2.exists() and "cpu" in v2.read_text().split():
            try:
                control = root / "cgroup.subtree_control"
                if "cpu" not in control.read_text().split():
                    control.write_text("+cpu")
                path = _cgroup(root / name, {"cpu.max": f"{quota_us} {PERIOD_US}"})
                return cls(path, 2, percent)
            except OSError as exc:
                tried.append(f"cgroup v2 at {root}: {exc.strerror or exc}")
        else:
            tried.append(f"cgroup v2: no cpu controller at {root}")
        v1 = root / "cpu"
        if (v1 / "cpu.cfs_quota_us").exists():
            try:
                path = _cgroup(v1 / name, {"cpu.cfs_period_us": str(PERIOD_US),
                                           "cpu.cfs_quota_us": str(quota_us)})
                return cls(path, 1, percent)
            except OSError as exc:
                tried.append(f"cgroup v1 at {v1}: {exc.strerror or exc}")
        else:
            tried.append(f"cgroup v1: no cpu controller at {v1}")
        raise QuotaError("--cpu: cannot make a cgroup with a CPU quota (run as root, or on a "
                         "delegated hierarchy): " + "; ".join(tried))

    def describe(self) -> str:
        limit = ("cpu.max" if self.version == 2 else "cpu.cfs_quota_us")
        return f"{self.percent:g} % of a core (cgroup v{self.version} {self.path}, {limit})"

    def wrap(self, cmd: list[str]) -> list[str]:
        """``cmd`` run inside the cgroup from its start: a shell writes its own pid into
        ``cgroup.procs`` and ``exec``s the command (the same process: its pid is the one
        ``Popen`` gives)."""
        return ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', str(self.path / "cgroup.procs"),
                *cmd]

    def add(self, pid: int) -> None:
        """Moves a running process (all its threads: v2's and v1's ``cgroup.procs``) in."""
        (self.path / "cgroup.procs").write_text(str(pid))

    def throttling(self) -> Throttling:
        values: dict[str, int] = {}
        for line in (self.path / "cpu.stat").read_text().splitlines():
            key, _, value = line.partition(" ")
            values[key] = int(value)
        waited = (values.get("throttled_usec", 0) / 1e6 if self.version == 2
                  else values.get("throttled_time", 0) / 1e9)
        return Throttling(values.get("nr_periods", 0), values.get("nr_throttled", 0), waited)

    def remove(self) -> None:
        """The cgroup removed; a process still in it (one that outlived its benchmark) is moved
        back to the parent first."""
        if not self.path.exists():
            return
        parent = self.path.parent / "cgroup.procs"
        for pid in (self.path / "cgroup.procs").read_text().split():
            try:
                parent.write_text(pid)
            except OSError:
                pass  # ended meanwhile
        self.path.rmdir()

    def __enter__(self) -> CpuQuota:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def _cgroup(path: Path, files: dict[str, str]) -> Path:
    """The cgroup ``path`` made with ``files`` written in order; removed again if one cannot be
    written. Raises OSError."""
    path.mkdir()
    try:
        for name, value in files.items():
            (path / name).write_text(value)
    except OSError:
        path.rmdir()
        raise
    return path
