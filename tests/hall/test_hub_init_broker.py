"""``damiera hub init`` then ``mosquitto -c DIR/mosquitto.conf``, exactly as the organiser's
guide says (docs/organiser.md):
the generated configuration starts unchanged, run as root (sudo on a Pi) and as a normal user,
and the hub logs in over TLS with its password from ``hub.toml`` (so the broker read the
password file and its key). Issue 16: run as root, Mosquitto dropped to its own user and could
not read the 0600 files ("Unable to open pwfile").

The broker listens on every interface (the file is not edited), on a free port, for a few
seconds; the test connects to 127.0.0.1 only.
"""

from __future__ import annotations

import os
import pwd
import resource
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from broker import CONNACK_OK, connect_packet, free_port, mosquitto_path
from paho.mqtt.enums import CallbackAPIVersion

from pi.board.config import MqttSpec, load_config
from pi.hall.hub_config import load_hub_config
from pi.hall.hub_init import broker_command, make_hall, write_hall

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="starts the broker as root and as "
                                "nobody: needs root")

NOBODY = pwd.getpwnam("nobody")


@pytest.fixture
def hall_dir() -> Iterator[Path]:
    """A folder under /tmp that ``nobody`` can reach (pytest's own are root's, mode 0700)."""
    d = Path(tempfile.mkdtemp(prefix="damiera-hall-", dir="/tmp"))
    os.chmod(d, 0o755)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def hub_logs_in(directory: Path, port: int, timeout: float = 10.0) -> str:
    """Connects as the hub with ``hub.toml``'s URL and CA; returns the broker's answer."""
    spec = load_hub_config(directory / "hub.toml").mqtt
    assert spec.tls and spec.ca is not None and spec.username == "hub"
    return logs_in(spec, port, timeout)


def logs_in(spec: MqttSpec, port: int, timeout: float = 10.0) -> str:
    """Connects with ``spec``'s user, password and CA (a hub's or a board's) to 127.0.0.1:
    ``port``; returns the broker's answer."""
    assert spec.tls and spec.ca is not None and spec.username is not None
    answered = threading.Event()
    answer: list[str] = []

    def on_connect(_c: object, _u: object, _f: object, reason: object, _p: object) -> None:
        answer.append(str(reason))
        answered.set()

    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=spec.username,
                    protocol=mqtt.MQTTv311)
    c.username_pw_set(spec.username, spec.password)
    c.tls_set(ca_certs=str(spec.ca), cert_reqs=ssl.CERT_REQUIRED)
    c.on_connect = on_connect
    c.connect("127.0.0.1", port, keepalive=10)
    c.loop_start()
    try:
        answered.wait(timeout)
    finally:
        c.disconnect()
        c.loop_stop()
    return answer[0] if answer else "no answer"


def start_as_written(conf: Path, port: int, prefix: list[str],
                     check: Callable[[int], str] | None = None) -> str:
    """``mosquitto -c conf`` (behind ``prefix``: setpriv for another user); waits until the
    hub logs in (or ``check(port)`` answers: another login) or the broker exits; stops it;
    returns the answer or the broker's output."""
    proc = subprocess.Popen([*prefix, mosquitto_path(), "-c", str(conf)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                return hub_logs_in(conf.parent, port) if check is None else check(port)
            except OSError:
                time.sleep(0.05)
        out = proc.stdout.read().decode(errors="replace") if proc.poll() is not None \
            and proc.stdout else ""
        return f"broker exited ({proc.returncode}): {out.strip()}"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(10)
        if proc.stdout is not None:
            proc.stdout.close()


def chown_tree(root: Path, uid: int, gid: int) -> None:
    for path in [root, *root.rglob("*")]:
        os.chown(path, uid, gid)


def test_hall_made_by_root_starts_as_root(hall_dir: Path) -> None:
    port = free_port()
    write_hall(make_hall(2, hall_dir / "hall", port=port, host="127.0.0.1"))
    conf = hall_dir / "hall" / "mosquitto.conf"
    assert start_as_written(conf, port, []) == "Success"
    assert (hall_dir / "hall" / "data" / "mosquitto.db").exists()  # its persistence written


def test_hub_init_run_as_root_gives_the_broker_to_mosquitto(hall_dir: Path) -> None:
    """`sudo damiera hub init` (issue 36): the broker never runs as root. Its password file,
    key and data are Mosquitto's own user's (0600 kept), the configuration names that user,
    and the broker started as root as written drops to it: the hub logs in (the broker read
    the password file and its key as mosquitto) and the data it saves are mosquitto's."""
    mosquitto = pwd.getpwnam("mosquitto")
    hall = hall_dir / "hall"
    port = root_made_hall(hall)
    conf = (hall / "mosquitto.conf").read_text()
    assert "\nuser mosquitto\n" in conf and "\nuser root\n" not in conf
    for name, mode in (("passwd", 0o600), ("broker.key", 0o600)):
        st = (hall / name).stat()
        assert (st.st_uid, st.st_gid, st.st_mode & 0o777) == (
            mosquitto.pw_uid, mosquitto.pw_gid, mode), name
    assert (hall / "data").stat().st_uid == mosquitto.pw_uid
    # the rest stays root's: the CA's key and the hub's and boards' configurations
    assert all((hall / name).stat().st_uid == 0 for name in ("hall-ca.key", "hub.toml",
                                                               "board-1.toml"))
    for _ in range(3):  # the hall's port taken meanwhile by another process: another hall
        answer = start_as_written(hall / "mosquitto.conf", port, [])
        if "Address already in use" not in answer:
            break
        port = root_made_hall(hall)
    assert answer == "Success"
    assert (hall / "data" / "mosquitto.db").stat().st_uid == mosquitto.pw_uid


def root_made_hall(hall: Path) -> int:
    """``damiera hub init`` run (as root) for 2 boards into ``hall`` (replaced if there), on a
    free port; returns the port."""
    import sys
    port = free_port()
    init = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "init", "--boards", "2",
                           "--dir", str(hall), "--host", "127.0.0.1", "--port", str(port),
                           "--force"], cwd=Path(__file__).resolve().parents[2],
                          capture_output=True, text=True, timeout=60)
    assert init.returncode == 0, init.stderr
    return port


def test_a_boards_config_and_the_ca_as_install_pi_installs_them_log_in(hall_dir: Path) -> None:
    """`install-pi.sh --config board-1.toml --ca hall-ca.crt` (the files apart, as from a USB
    stick): the two files it installs, put where its dry run says (/etc/damiera, here a
    folder standing for it), make a configuration that reads (ca = "hall-ca.crt", beside it)
    and logs the board in to the hall's broker over TLS with its own password."""
    root = Path(__file__).resolve().parents[2]
    hall = hall_dir / "hall"
    port = root_made_hall(hall)
    stick, elsewhere = hall_dir / "stick", hall_dir / "elsewhere"
    stick.mkdir()
    elsewhere.mkdir()
    shutil.copy(hall / "board-1.toml", stick)
    shutil.copy(hall / "hall-ca.crt", elsewhere / "ca.pem")
    dry = subprocess.run(["bash", str(root / "systemd" / "install-pi.sh"), "--dry-run",
                          "--config", str(stick / "board-1.toml"), "--ca",
                          str(elsewhere / "ca.pem")], capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    etc = hall_dir / "etc-damiera"  # /etc/damiera
    etc.mkdir()
    wanted = {f"{stick / 'board-1.toml'} /etc/damiera/damiera.toml": "0640",
              f"{elsewhere / 'ca.pem'} /etc/damiera/hall-ca.crt": "0644"}
    done = set()
    for line in dry.stdout.splitlines():
        words = line.split()
        if words[:2] == ["+", "install"] and " ".join(words[-2:]) in wanted:
            mode = words[words.index("-m") + 1]
            assert mode == wanted[" ".join(words[-2:])], line
            source, target = words[-2:]
            subprocess.run(["install", "-m", mode, source,
                            str(etc / Path(target).name)], check=True, timeout=30)
            done.add(" ".join(words[-2:]))
    assert done == set(wanted), dry.stdout
    spec = load_config(etc / "damiera.toml").mqtt
    assert spec is not None and spec.ca == etc / "hall-ca.crt" and spec.username == "board-1"
    assert spec.port == port
    answer = start_as_written(hall / "mosquitto.conf", port, [], lambda p: logs_in(spec, p))
    assert answer == "Success"


def test_hub_init_as_root_without_mosquittos_user_is_refused(hall_dir: Path) -> None:
    """Run as root where Mosquitto (and its user) is not installed: one line saying so."""
    from pi.hall.errors import HallInitError
    with pytest.raises(HallInitError, match="install Mosquitto first"):
        make_hall(2, hall_dir / "hall", host="127.0.0.1", broker_user="no-such-user-36")


def test_hall_made_by_a_user_starts_as_that_user(hall_dir: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # 'hub init' run by nobody: its files, its name in the configuration.
    monkeypatch.setattr("pi.hall.hub_init.os.getuid", lambda: NOBODY.pw_uid)
    port = free_port()
    write_hall(make_hall(2, hall_dir / "hall", port=port, host="127.0.0.1"))
    chown_tree(hall_dir, NOBODY.pw_uid, NOBODY.pw_gid)
    conf = hall_dir / "hall" / "mosquitto.conf"
    assert "\nuser nobody\n" in conf.read_text()
    as_nobody = ["setpriv", f"--reuid={NOBODY.pw_uid}", f"--regid={NOBODY.pw_gid}",
                 "--clear-groups"]
    assert start_as_written(conf, port, as_nobody) == "Success"
    # ... and the same files started with sudo: the broker becomes nobody, who owns them.
    assert start_as_written(conf, port, []) == "Success"
    assert (hall_dir / "hall" / "data" / "mosquitto.db").stat().st_uid == NOBODY.pw_uid


def _connect_all(port: int, users: dict[str, str]) -> int:
    """Every user connected at once with its password (plain MQTT 3.1.1); how many the broker
    accepted. The connections stay open until all are tried."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < len(users) + 256:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, len(users) + 256), hard))
    socks: list[socket.socket] = []
    accepted = 0
    try:
        for user, password in users.items():
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            socks.append(s)
            try:
                s.sendall(connect_packet(user.encode(), user, password))
                accepted += s.recv(4) == CONNACK_OK
            except OSError:  # refused: the broker closed it
                pass
    finally:
        for s in socks:
            s.close()
    return accepted


@pytest.mark.slow  # 10-25 s of one core: make test-slow, so that make test stays within 4 min
def test_a_hall_past_the_usual_open_files_gets_its_broker_enough(hall_dir: Path) -> None:
    """Mosquitto keeps a file open per client and keeps the limit it is started with: at the
    usual 1,024 (a login shell's, a systemd unit's) it takes ~1,015 clients and refuses the
    rest. For a hall past that, ``hub init`` says to raise it first (``ulimit -n``, up to the
    hard limit: no root needed); its broker command, run as printed in a shell with the usual
    limits, takes every board and the hub; without the ``ulimit`` part it does not."""
    port = free_port()
    hall = make_hall(1100, hall_dir / "hall", port=port, host="127.0.0.1", tls=False)
    write_hall(hall)
    command = broker_command(hall)
    assert command == f"ulimit -n 2048 && mosquitto -c {hall.dir / 'mosquitto.conf'}"
    assert "LimitNOFILE=2048" in (hall.dir / "mosquitto.conf").read_text()
    users = {user: pw for user, pw in hall.passwords.items() if not user.startswith("hub-share")}
    assert len(users) == 1101
    prlimit = shutil.which("prlimit")
    assert prlimit is not None, "prlimit (util-linux) missing"
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # a shell's soft limit, this hard one
    assert hard == resource.RLIM_INFINITY or hard >= 2048, f"hard limit on open files {hard}"
    limit = "unlimited" if hard == resource.RLIM_INFINITY else str(hard)
    got = {}
    for name, line in (("as printed", command), ("without ulimit", command.split(" && ")[1])):
        proc = subprocess.Popen([prlimit, f"--nofile=1024:{limit}", "bash", "-c",
                                 line.replace("mosquitto -c", f"{mosquitto_path()} -c")],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            deadline = time.monotonic() + 10
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline and proc.poll() is None
                    time.sleep(0.05)
            got[name] = _connect_all(port, users)
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(10)
    assert got["as printed"] == 1101
    assert got["without ulimit"] < 1101  # what the ulimit is for
