"""The CPU quota of the benchmarks (issue 36: a Pi's CPU): ``benchmarks/cpu_quota.py`` on both
cgroup hierarchies (laid out in a temporary folder: what it writes where), and
``bench_daemon_cpu.py --cpu`` and ``bench_hall.py --cpu`` run briefly under a real quota where
this machine lets us make a cgroup (root). Nothing is timed: the tables' shape is checked."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from cpu_quota import PERIOD_US, CpuQuota, QuotaError  # noqa: E402


def _real_quota_possible() -> str | None:
    """None when a cgroup with a quota can be made here, else why not."""
    try:
        quota = CpuQuota.create(50, name=f"damiera-test-{os.getpid()}")
    except QuotaError as exc:
        return str(exc)
    quota.remove()
    return None


WHY_NOT = _real_quota_possible()
needs_cgroup = pytest.mark.skipif(WHY_NOT is not None, reason=f"no cgroup here: {WHY_NOT}")


@pytest.fixture
def v2_root(tmp_path: Path) -> Iterator[Path]:
    (tmp_path / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("memory\n")
    yield tmp_path


def test_v2_writes_cpu_max_and_enables_the_controller(v2_root: Path) -> None:
    quota = CpuQuota.create(10, name="bench", root=v2_root)
    assert quota.version == 2 and quota.path == v2_root / "bench"
    assert (v2_root / "bench" / "cpu.max").read_text() == f"10000 {PERIOD_US}"
    assert (v2_root / "cgroup.subtree_control").read_text() == "+cpu"
    assert "cgroup v2" in quota.describe() and "10 % of a core" in quota.describe()


def test_v1_writes_quota_and_period(tmp_path: Path) -> None:
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    quota = CpuQuota.create(33, name="bench", root=tmp_path)
    assert quota.version == 1
    assert (tmp_path / "cpu" / "bench" / "cpu.cfs_quota_us").read_text() == "33000"
    assert (tmp_path / "cpu" / "bench" / "cpu.cfs_period_us").read_text() == str(PERIOD_US)


def test_v1_throttling_read_from_cpu_stat(tmp_path: Path) -> None:
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")
    quota = CpuQuota.create(10, name="bench", root=tmp_path)
    (quota.path / "cpu.stat").write_text("nr_periods 40\nnr_throttled 12\n"
                                         "throttled_time 2500000000\n")
    t = quota.throttling()
    assert (t.periods, t.throttled, t.throttled_s) == (40, 12, 2.5)


def test_neither_hierarchy_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(QuotaError, match=r"^--cpu: cannot make a cgroup .*v2.*v1") as info:
        CpuQuota.create(10, root=tmp_path)
    assert "\n" not in str(info.value)


def test_a_share_out_of_range_is_refused(v2_root: Path) -> None:
    with pytest.raises(ValueError, match="--cpu: a share of one core"):
        CpuQuota.create(0, root=v2_root)


def test_wrap_puts_the_process_in_before_it_runs(v2_root: Path) -> None:
    quota = CpuQuota.create(10, name="bench", root=v2_root)
    procs = quota.path / "cgroup.procs"
    out = subprocess.run(quota.wrap([sys.executable, "-c", "import os; print(os.getpid())"]),
                         capture_output=True, text=True, check=True).stdout
    assert procs.read_text().strip() == out.strip()  # the same process: the shell exec'd
    shutil.rmtree(quota.path)  # a real cgroup's files vanish with it; these are plain files


def _run(script: str, *args: str) -> str:
    """The benchmark's standard output; its cgroup (named after its process) is gone after."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / script), *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-2000:]
    name = f"damiera-bench-{proc.pid}"
    assert not (Path("/sys/fs/cgroup") / name).exists()
    assert not (Path("/sys/fs/cgroup/cpu") / name).exists()
    return out


@pytest.mark.slow  # 10-25 s of one core: make test-slow, so that make test stays within 4 min
@needs_cgroup
def test_bench_daemon_cpu_runs_briefly_under_a_quota() -> None:
    out = _run("bench_daemon_cpu.py", "--cpu", "50", "--moves", "2", "--starts", "1",
               "--idle", "0.5", "--gap", "0.2")
    assert "| figure (p50 / p99) | --cpu 50 | goal |" in out
    assert re.search(r"^\| start → READY=1 \| \d+\.\d\d s", out, re.M)
    assert re.search(r"^\| start → pages answer \(GET / 200\) \| \d+\.\d\d s", out, re.M)
    assert re.search(r"^\| clock press → show\(\) \| [\d.]+ / [\d.]+ ms \(2\)", out, re.M)
    assert re.search(r"^\| sensor stable → journaled \| [\d.]+ / [\d.]+ ms \(\d+\)", out, re.M)
    assert re.search(r"^\| memory \| RSS [\d.]+ MB, PSS [\d.]+ MB", out, re.M)
    assert re.search(r"^\| quota ran out \(the whole run\) \| \d+ of \d+ periods", out, re.M)
    assert re.search(r"^\| quota ran out while the games were played \| \d+ of \d+ periods",
                     out, re.M)


@pytest.mark.slow  # 10-25 s of one core: make test-slow, so that make test stays within 4 min
@needs_cgroup
def test_bench_hall_runs_briefly_with_the_hub_under_a_quota() -> None:
    out = _run("bench_hall.py", "--cpu", "50", "--boards", "3", "--seconds", "2",
               "--warmup", "1", "--pace", "10")
    assert re.search(r"the hub's CPU quota: 50 % of a core \(cgroup v\d ", out)
    assert "lines lost: 0 of" in out
