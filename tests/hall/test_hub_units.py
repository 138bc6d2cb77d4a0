"""systemd/damiera-hub.service: `systemd-analyze verify` silent, `systemd-analyze security
--offline=yes` at 1.1 (the board's limit is 1.5), its command line accepted by damiera's own
parser as it will run (the environment's default substituted as systemd does), its state and
configuration where the unit gives them. What the process tells systemd:
tests/hall/test_hub_service.py.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pi.cli import build_parser
from tests.unit_paths import private_unit_path

ROOT = Path(__file__).resolve().parents[2]
SYSTEMD = ROOT / "systemd"
UNITS = ("damiera-hub.service",)
#: The exposure measured for each unit as shipped: any loosening shows.
EXPOSURE = 1.1
#: The hub's own venv (a board's is /opt/damiera/venv: install-hub.sh).
EXEC = "/opt/damiera-hub/venv/bin/damiera"
ANALYZE = shutil.which("systemd-analyze")


@pytest.fixture
def analyze() -> str:
    assert ANALYZE is not None, "systemd-analyze is missing: `make test` installs it (apt, systemd)"
    return ANALYZE


def directives(name: str) -> list[tuple[str, str]]:
    """The unit's ``key=value`` lines in order (comments and sections left out)."""
    out = []
    for line in (SYSTEMD / name).read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            out.append((key, value))
    return out


def value(name: str, key: str) -> str:
    found = [v for k, v in directives(name) if k == key]
    assert len(found) == 1, (name, key, found)
    return found[0]


def runnable_copy(tmp_path: Path, name: str) -> Path:
    """A copy whose ExecStart names an executable that exists here (`verify` checks it;
    /opt/damiera-hub exists once installed)."""
    text = (SYSTEMD / name).read_text()
    assert f"ExecStart={EXEC} " in text
    copy = tmp_path / name
    copy.write_text(text.replace(f"ExecStart={EXEC} ", f"ExecStart={sys.executable} "))
    return copy


@pytest.mark.parametrize("name", UNITS)
def test_verify_prints_nothing(tmp_path: Path, analyze: str, name: str) -> None:
    unit = runnable_copy(tmp_path, name)
    proc = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                          timeout=60, env=private_unit_path(unit))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


@pytest.mark.parametrize("name", UNITS)
def test_security_exposure_as_shipped(tmp_path: Path, analyze: str, name: str) -> None:
    unit = runnable_copy(tmp_path, name)
    proc = subprocess.run([analyze, "security", "--offline=yes", str(unit)],
                          capture_output=True, text=True, timeout=60,
                          env=private_unit_path(unit))
    m = re.search(rf"Overall exposure level for {re.escape(unit.name)}: ([0-9.]+)", proc.stdout)
    assert m is not None, proc.stdout + proc.stderr
    assert float(m.group(1)) <= EXPOSURE < 1.5


@pytest.mark.parametrize("name, command", [("damiera-hub.service", ["hub"])])
def test_the_command_line_is_damieras_as_it_will_run(name: str, command: list[str]) -> None:
    """ExecStart with ``${DAMIERA_HUB_HTTP}`` as the unit's Environment= sets it (install-hub.sh's
    drop-in replaces it): damiera's parser takes it, with the state and configuration where the
    unit puts them."""
    line = value(name, "ExecStart")
    env = dict(v.split("=", 1) for k, v in directives(name) if k == "Environment")
    line = re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], line)
    argv = shlex.split(line)
    assert argv[0] == EXEC and argv[1:1 + len(command)] == command
    args = build_parser().parse_args(argv[1:])
    assert args.state_dir == f"/var/lib/{value(name, 'StateDirectory')}"
    assert args.config == f"/etc/{value(name, 'ConfigurationDirectory')}/hub.toml"
    assert args.http == "127.0.0.1:8090"


@pytest.mark.parametrize("name", UNITS)
def test_the_unit_is_the_hubs_contract(name: str) -> None:
    """Type=notify from the main process (READY=1, STATUS=, WATCHDOG=1: pi.board.notify), a
    watchdog, a restart on failure, its own user."""
    for key, want in [("Type", "notify"), ("NotifyAccess", "main"), ("WatchdogSec", "30"),
                      ("Restart", "on-failure"), ("User", "damiera-hub"),
                      ("Group", "damiera-hub"), ("IPAddressDeny", "any"),
                      ("IPAddressAllow", "localhost"), ("LimitNOFILE", "65536")]:
        assert value(name, key) == want, key

