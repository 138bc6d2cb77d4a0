"""systemd/install-hub.sh, in dry runs over a real `damiera hub init` folder: it copies hub.toml
root-only (root:damiera-hub 0640) and the hall's CA, never the keys, passwords or boards'
configs beside them; builds the venv as install-pi.sh does (apt updated first, only
hash-checked downloads, nothing built as root); installs, enables and starts the hub's unit
with its drop-ins; refuses a bad call in one line with exit 2. Its shellcheck:
tests/pi/test_systemd_unit.py.

A fake `systemctl` comes first on PATH: the script's questions to systemd (is-active,
is-enabled, list-units) get the answers a test sets, and the real systemctl is never run."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL_HUB = ROOT / "systemd" / "install-hub.sh"
UNIT_DIR = "/etc/systemd/system"
CONF = "/etc/damiera-hub"
DEFAULT_NETWORKS = "10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7 link-local"
#: What `damiera hub init` writes besides hub.toml and hall-ca.crt: none of it reaches the hub.
NOT_COPIED = ("hall-ca.key", "broker.key", "broker.crt", "passwd", "acl", "mosquitto.conf",
              "data", "board-1.toml", "board-2.toml")
PIP_ENV = "PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "
#: The hub's own venv (a board's is /opt/damiera/venv): the new one, venv-<stamp>, as
#: DryRun names it.
NEW_VENV = "/opt/damiera-hub/venv-STAMP"
STAMPED = re.compile(r"venv-[0-9]{8}-[0-9]{6}\b")
VENV_PIP = f"{NEW_VENV}/bin/python -m pip"
AS_HUB = ("setpriv --reuid=damiera-hub --regid=damiera-hub --clear-groups --no-new-privs "
          "env HOME=/tmp/damiera-build.XXXXXX ")

#: Answers systemd's questions from the environment: FAKE_ACTIVE, FAKE_ENABLED (units, space
#: separated), FAKE_LOADED (what list-units lists); anything else is a test failure (exit 99).
FAKE_SYSTEMCTL = r"""#!/bin/sh
case "$1" in
    is-active) units=$FAKE_ACTIVE ;;
    is-enabled) units=$FAKE_ENABLED ;;
    list-units) for unit in $FAKE_LOADED; do echo "$unit loaded active running x"; done; exit 0 ;;
    *) echo "fake systemctl: $*" >&2; exit 99 ;;
esac
[ "$2" = --quiet ] || exit 99
case " $units " in *" $3 "*) exit 0 ;; esac
exit 3
"""


@dataclass(frozen=True)
class Halls:
    one: Path  # `hub init --boards 2`


@pytest.fixture(scope="module")
def halls(tmp_path_factory: pytest.TempPathFactory) -> Halls:
    """A hall folder written by damiera's own `hub init`, as an organiser makes it."""
    base = tmp_path_factory.mktemp("halls")
    made = Halls(one=base / "one")
    proc = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "init", "--boards", "2",
                           "--dir", str(made.one), "--host", "127.0.0.1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return made


@pytest.fixture(scope="module")
def fake_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bin")
    systemctl = folder / "systemctl"
    systemctl.write_text(FAKE_SYSTEMCTL)
    systemctl.chmod(0o755)
    return folder


def script(*args: str, bin_dir: Path, systemd: dict[str, str] | None = None,
           ) -> subprocess.CompletedProcess[str]:
    """install-hub.sh ARGS, with the fake systemctl answering ``systemd``'s FAKE_* values."""
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "FAKE_ACTIVE": "", "FAKE_ENABLED": "", "FAKE_LOADED": "", **(systemd or {})}
    return subprocess.run(["bash", str(INSTALL_HUB), *args], capture_output=True, text=True,
                          timeout=30, env=env)


class DryRun:
    """What `install-hub.sh --dry-run ARGS` would do, from its output ``proc``: its commands (as
    printed, `%q`-quoted) in order, the files it would write (path → (mode and owner, text))
    and what it says."""

    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        assert proc.returncode == 0, proc.stderr
        # the new venv's folder is named by the time of the run: venv-STAMP here
        self.stdout, self.stderr = STAMPED.sub("venv-STAMP", proc.stdout), proc.stderr
        self.commands: list[str] = []
        self.files: dict[str, tuple[str, str]] = {}
        path = ""
        for line in self.stdout.splitlines():
            if m := re.fullmatch(r"\+ write (\S+) \((.*)\)", line):
                path = m.group(1)
                self.files[path] = (m.group(2), "")
            elif line.startswith("| ") or line == "|":
                meta, text = self.files[path]
                self.files[path] = (meta, text + line[2:] + "\n")
            else:
                path = ""
                if line.startswith("+ "):
                    self.commands.append(line[2:])

    def index(self, command: str) -> int:
        return self.commands.index(command)

    def dropin(self, unit: str, name: str) -> str:
        """The drop-in as it will be after the run: written by it, or kept (a machine that ran
        the script before)."""
        path = f"{UNIT_DIR}/{unit}.d/{name}"
        if path not in self.files and Path(path).exists():
            return Path(path).read_text()
        meta, text = self.files[path]
        assert meta == "0644 root:root"
        return text

    def installs(self) -> list[str]:
        return [c for c in self.commands if c.startswith("install ")]


#: ``dry_run(*args, FAKE_ACTIVE=…, …)``, the fixture below.
Runner = Callable[..., DryRun]


@pytest.fixture
def dry_run(fake_bin: Path) -> Runner:
    """``dry_run(*args, FAKE_ACTIVE=…, …)``: the dry run of install-hub.sh ARGS, systemd's
    answers set by the keywords."""
    def make(*args: str, **systemd: str) -> DryRun:
        return DryRun(script("--dry-run", *args, bin_dir=fake_bin, systemd=systemd))
    return make


def body(dropin: str) -> list[str]:
    """A drop-in's lines but its comments."""
    return [line for line in dropin.splitlines() if not line.startswith("#")]


def test_one_process_hall_runs_as_damiera_hub_service(halls: Halls, dry_run: Runner) -> None:
    """apt updated first, the venv, hub.toml and the CA in /etc/damiera-hub,
    damiera-hub.service installed, reloaded, enabled and restarted, no other unit; the drop-ins
    allow the private ranges and serve on 0.0.0.0:8090."""
    run = dry_run("--hall", str(halls.one))
    unit = "damiera-hub.service"
    in_order = [
        "apt-get update",
        # no compiler: nothing is built on a 64-bit PC (the GPIO backends are left out)
        "apt-get install -y --no-install-recommends python3-venv",
        f"python3 -m venv {NEW_VENV}",
        f"install -d -m 0755 {CONF}",
        f"install -m 0640 -o root -g damiera-hub {halls.one}/hub.toml {CONF}/hub.toml",
        f"install -m 0644 -o root -g root {halls.one}/hall-ca.crt {CONF}/hall-ca.crt",
        f"install -m 0644 {ROOT}/systemd/{unit} {UNIT_DIR}/{unit}",
        f"install -d -m 0755 {UNIT_DIR}/{unit}.d",
        # the new venv switched to once built and checked, in one rename
        "ln -sfn venv-STAMP /opt/damiera-hub/venv.new",
        "mv -T /opt/damiera-hub/venv.new /opt/damiera-hub/venv",
        "systemctl daemon-reload",
        f"systemctl enable {unit}",
        f"systemctl restart {unit}",
    ]
    positions = [run.index(c) for c in in_order]
    assert positions == sorted(positions), run.commands
    assert not any(c.startswith("systemctl disable") for c in run.commands)
    if not Path(f"{UNIT_DIR}/{unit}.d/hall-network.conf").exists():
        assert body(run.dropin(unit, "hall-network.conf")) == [
            "[Service]", f"IPAddressAllow={DEFAULT_NETWORKS}"]
    if not Path(f"{UNIT_DIR}/{unit}.d/http.conf").exists():
        assert body(run.dropin(unit, "http.conf")) == [
            "[Service]", "Environment=DAMIERA_HUB_HTTP=0.0.0.0:8090"]
    assert "systemctl status damiera-hub" in run.stdout
    assert ("sudo -u damiera-hub /opt/damiera-hub/venv/bin/damiera token --state-dir "
            "/var/lib/damiera-hub") in run.stdout
    assert f"mosquitto -c {halls.one}/mosquitto.conf" in run.stdout


def test_only_hub_toml_and_the_ca_leave_the_halls_folder(halls: Halls, dry_run: Runner) -> None:
    """hub.toml (the hub's broker password, the boards' keys) root:damiera-hub 0640, the CA
    0644, and nothing else of the folder: no command names the CA's or broker's key, the
    passwords, the ACL, the broker's config, its data or a board's config."""
    hall = halls.one
    run = dry_run("--hall", str(hall))
    from_hall = [c for c in run.installs() if str(hall) in c]
    assert from_hall == [
        f"install -m 0640 -o root -g damiera-hub {hall}/hub.toml {CONF}/hub.toml",
        f"install -m 0644 -o root -g root {hall}/hall-ca.crt {CONF}/hall-ca.crt"]
    for name in NOT_COPIED:
        assert (hall / name).exists(), name  # hub init wrote it …
        assert not any(name in c for c in run.commands), name  # … and it stays there
    assert not any(str(hall) in text for _, text in run.files.values())


def test_venv_is_built_from_the_locks_and_nothing_as_root(halls: Halls, dry_run: Runner) -> None:
    """The venv as on a board (install-lib.sh's build_venv): every download checked against
    the lock's SHA-256 from PyPI alone; as root only wheels, the checkout and the wheels the
    build made; the build and `pip check` as damiera-hub without new privileges."""
    commands = dry_run("--hall", str(halls.one)).commands
    pips = [c for c in commands if re.search(r" -m pip (install|wheel|download) ", c)]
    assert len(pips) == 4, commands
    for c in pips:
        words = c.split()
        assert PIP_ENV in c and "--upgrade" not in words
        if "--no-index" not in words:
            assert "--require-hashes" in words, c
            assert words[words.index("--index-url") + 1] == "https://pypi.org/simple", c
            assert words[words.index("-r") + 1].endswith(
                ("/requirements-pi.txt", "/requirements-build.txt")), c
        if c.startswith("setpriv "):
            assert c.startswith(AS_HUB) and f"{VENV_PIP} wheel " in c, c
            assert "--no-build-isolation" in words and "--only-binary=:all:" in words, c
            assert " --no-binary=:none: " in c, c  # nothing built from source here
        else:
            assert c.startswith(f"env {PIP_ENV}{VENV_PIP} install "), c
            assert "--no-index" in words or ("--only-binary=:all:" in words and not any(
                w.startswith("--no-binary") for w in words)), c
    assert commands.index("chown damiera-hub:damiera-hub /tmp/damiera-build.XXXXXX") < (
        commands.index(pips[2]))
    assert commands.index(f"python3 -m venv {NEW_VENV}") < commands.index(pips[0])
    # the venv's Python run as damiera-hub before anything is installed in it: one made from
    # a Python in root's home (pyenv's, on root's PATH outside sudo) is refused in one line
    assert commands.index(AS_HUB.split(" env ")[0] + f" env {NEW_VENV}/bin/python -c ''") \
        == commands.index(f"python3 -m venv {NEW_VENV}") + 1
    assert commands[commands.index(pips[3]) + 1] == f"{AS_HUB}{PIP_ENV}{VENV_PIP} check"
    # and damiera imports from it as damiera-hub, before the venv is switched to
    check = commands[commands.index(pips[3]) + 2]
    assert check.startswith(f"{AS_HUB}LG_WD=/tmp/damiera-build.XXXXXX {NEW_VENV}/bin/python -I -c ") \
        and "pi.hall.hub" in check
    assert commands.index(check) < commands.index("mv -T /opt/damiera-hub/venv.new "
                                                  "/opt/damiera-hub/venv")
    assert f"install --quiet --no-index --no-deps --no-build-isolation {ROOT}" in pips[1]


def test_the_hubs_lock_is_the_boards_without_its_gpio_backends(halls: Halls,
                                                               dry_run: Runner) -> None:
    """The lock the build reads is systemd/requirements-pi.txt but the entries of lgpio and
    RPi.GPIO (the board's `pi` extra: the hub drives no pin; RPi.GPIO has no wheel and would
    need a compiler): every other pin and hash as the board's."""
    run = dry_run("--hall", str(halls.one))
    meta, text = run.files["/tmp/damiera-build.XXXXXX/requirements-pi.txt"]
    assert meta == "0644 root:root"
    lock = (ROOT / "systemd" / "requirements-pi.txt").read_text()
    entries = re.split(r"\n(?=[^ #])", lock.rstrip("\n"))
    kept = [e for e in entries if not e.startswith(("lgpio==", "rpi-gpio=="))]
    assert len(kept) == len(entries) - 2
    assert text == "\n".join(kept) + "\n"


def test_the_command_hub_init_prints_is_one_the_installer_takes(
        tmp_path: Path, fake_bin: Path) -> None:
    """`damiera hub init` prints the installer's command for the folder it wrote; run as
    printed (from the checkout, in a dry run) it installs that hall."""
    hall = tmp_path / "hall"
    init = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "init", "--boards", "2",
                           "--dir", str(hall), "--host", "127.0.0.1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "LANG": "C"})
    assert init.returncode == 0, init.stderr
    line = next(x for x in init.stdout.splitlines() if "install-hub.sh" in x)
    command = line.split("(")[0].split()
    assert command == ["sudo", "systemd/install-hub.sh", "--hall", str(hall)]
    proc = subprocess.run(["bash", *command[1:], "--dry-run"], cwd=ROOT, capture_output=True,
                          text=True, timeout=30,
                          env={**os.environ, "PATH": f"{fake_bin}{os.pathsep}{os.environ['PATH']}",
                               "FAKE_ACTIVE": "", "FAKE_ENABLED": "", "FAKE_LOADED": ""})
    run = DryRun(proc)
    assert f"install -m 0640 -o root -g damiera-hub {hall}/hub.toml {CONF}/hub.toml" in (
        run.commands)
    assert "systemctl enable damiera-hub.service" in run.commands


def test_user_is_made_without_groups_unless_it_exists(halls: Halls, dry_run: Runner) -> None:
    """The system user damiera-hub, home /var/lib/damiera-hub, no login, no extra group."""
    commands = dry_run("--hall", str(halls.one)).commands
    exists = subprocess.run(["id", "damiera-hub"], capture_output=True).returncode == 0
    useradd = ("useradd --system --user-group --home-dir /var/lib/damiera-hub --no-create-home "
               "--shell /usr/sbin/nologin damiera-hub")
    assert (useradd in commands) != exists
    assert not any(c.startswith(("usermod", "groupadd")) for c in commands)


def test_no_start_enables_without_starting(halls: Halls, dry_run: Runner) -> None:
    """--no-start: the unit is enabled (it starts with the machine), not started now."""
    units = "damiera-hub.service"
    run = dry_run("--hall", str(halls.one), "--no-start")
    assert f"systemctl enable {units}" in run.commands
    assert not any(c.startswith(("systemctl restart", "systemctl start")) for c in run.commands)
    assert f"not started (--no-start): systemctl start {units}" in run.stdout


def test_hall_folder_without_a_ca_installs_none(
        tmp_path: Path, halls: Halls, dry_run: Runner) -> None:
    """A hub.toml naming no CA (a plain mqtt:// broker): nothing but hub.toml is copied."""
    text = (halls.one / "hub.toml").read_text()
    (tmp_path / "hub.toml").write_text(re.sub(r'(?m)^ca = .*\n', "", text))
    run = dry_run("--hall", str(tmp_path))
    assert [c for c in run.installs() if str(tmp_path) in c] == [
        f"install -m 0640 -o root -g damiera-hub {tmp_path}/hub.toml {CONF}/hub.toml"]


@pytest.mark.parametrize("args, message", [
    ([], "--hall DIR is needed: the folder damiera hub init wrote (see --help)"),
    (["--hall"], "--hall needs the folder damiera hub init wrote"),
    (["--hall", "{empty}"], "no {empty}/hub.toml (--hall: the folder damiera hub init wrote)"),
    (["--hall", "{no_ca}"], "no CA file {no_ca}/hall-ca.crt ([mqtt] ca of {no_ca}/hub.toml)"),
    (["--hall", "{ca_elsewhere}"], "{ca_elsewhere}/hub.toml: [mqtt] ca names a file beside it "
                                   "(hub init: hall-ca.crt), not ../hall-ca.crt"),
    (["--hall", "{not_toml}"], "{not_toml}/hub.toml: Invalid value (at end of document)"),
    (["--hall", "{one}", "--http"], "--http needs HOST:PORT (e.g. 0.0.0.0:8090)"),
    *[(["--hall", "{one}", "--http", bad], "--http wants HOST:PORT (e.g. 0.0.0.0:8090 or "
       f"[::]:8090, port 1..65535): {bad}")
      for bad in ("8090", "0.0.0.0:0", "0.0.0.0:65536", ":8090", "a b:80", "host:80 x",
                  "[::1:80")],
    (["--hall", "{one}", "--hall-network"],
     "--hall-network needs an address range (e.g. 192.168.10.0/24)"),
    (["--hall", "{one}", "--hall-network", "hall"], "--hall-network: not an address range: hall"),
    (["--hall", "{one}", "--hall-network", "10.0.0.0/33"],
     "--hall-network: not an address range: 10.0.0.0/33"),
    (["--hall", "{one}", "--bogus"], "unknown option --bogus (see --help)"),
])
def test_bad_calls_are_refused_in_one_line(
        tmp_path: Path, halls: Halls, fake_bin: Path, args: list[str], message: str) -> None:
    """Each mistake: exit 2, nothing on stdout (nothing done), one line on stderr saying it."""
    places = {"one": halls.one}
    for name in ("empty", "no_ca", "ca_elsewhere", "not_toml"):
        places[name] = tmp_path / name
        places[name].mkdir()
    hub_toml = (halls.one / "hub.toml").read_text()
    (places["no_ca"] / "hub.toml").write_text(hub_toml)
    (places["ca_elsewhere"] / "hub.toml").write_text(
        hub_toml.replace('ca = "hall-ca.crt"', 'ca = "../hall-ca.crt"'))
    shutil.copy(halls.one / "hall-ca.crt", tmp_path / "hall-ca.crt")
    (places["not_toml"] / "hub.toml").write_text("hall = [\n")
    proc = script("--dry-run", *(a.format(**places) for a in args), bin_dir=fake_bin)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"install-hub.sh: {message.format(**places)}\n"


def test_help_is_its_whole_header(fake_bin: Path) -> None:
    """-h/--help prints the header comment (what it does and why), as install-pi.sh's does."""
    lines = INSTALL_HUB.read_text().splitlines()[1:]
    header = [re.sub(r"^# ?", "", line) for line in lines[:next(
        i for i, line in enumerate(lines) if not line.startswith("#"))]]
    for flag in ("-h", "--help"):
        proc = script(flag, bin_dir=fake_bin)
        assert (proc.returncode, proc.stderr) == (0, "")
        assert proc.stdout.splitlines() == header
    assert header[0].startswith("Installs the hall's hub") and header[-1].startswith("--dry-run")
    for words in ("--hall DIR", "--http", "--hall-network", "--no-start", "0640",
                  "root:damiera-hub", "--require-hashes"):
        assert words in proc.stdout, words
