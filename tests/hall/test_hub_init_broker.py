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
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from broker import CONNACK_OK, connect_packet, free_port, mosquitto_path
from paho.mqtt.enums import CallbackAPIVersion

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
    answered = threading.Event()
    answer: list[str] = []

    def on_connect(_c: object, _u: object, _f: object, reason: object, _p: object) -> None:
        answer.append(str(reason))
        answered.set()

    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="hub", protocol=mqtt.MQTTv311)
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


def start_as_written(conf: Path, port: int, prefix: list[str]) -> str:
    """``mosquitto -c conf`` (behind ``prefix``: setpriv for another user); waits until the
    hub logs in or the broker exits; stops it; returns the hub's answer or the broker's
    output."""
    proc = subprocess.Popen([*prefix, mosquitto_path(), "-c", str(conf)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                return hub_logs_in(conf.parent, port)
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
    import sys
    mosquitto = pwd.getpwnam("mosquitto")
    port = free_port()
    hall = hall_dir / "hall"
    init = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "init", "--boards", "2",
                           "--dir", str(hall), "--host", "127.0.0.1", "--port", str(port)],
                          cwd=Path(__file__).resolve().parents[2], capture_output=True,
                          text=True, timeout=60)
    assert init.returncode == 0, init.stderr
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
    assert start_as_written(hall / "mosquitto.conf", port, []) == "Success"
    assert (hall / "data" / "mosquitto.db").stat().st_uid == mosquitto.pw_uid


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
