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
import shutil
import signal
import ssl
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from broker import free_port, mosquitto_path
from paho.mqtt.enums import CallbackAPIVersion

from pi.hall.hub_config import load_hub_config
from pi.hall.hub_init import make_hall, write_hall

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
