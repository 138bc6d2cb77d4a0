"""A private Mosquitto for the hall's tests and benchmarks: the real broker (Debian's
``mosquitto`` package, which ``make test`` installs), started from a configuration file on a free
loopback port, stopped, killed (-9) and restarted on the same port with the same persistence.

    with Broker(tmp_path) as broker:          # anonymous, persistence in tmp_path/broker
        url = broker.url                      # "mqtt://127.0.0.1:<port>"
        broker.kill(); broker.start()          # a broker crash and its restart

    Broker(tmp_path, conf=path)               # a configuration written by ``damiera hub init``:
                                              # its ``listener`` line is given the free port and
                                              # bound to 127.0.0.1 (tests never listen elsewhere)

Nothing here reaches any address but 127.0.0.1.
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from tests.ports import free_port

__all__ = ["Broker", "free_port", "mosquitto_path", "BrokerError", "connect_packet", "CONNACK_OK"]


def tls_certs(d: Path) -> None:
    """A private CA (``ca.crt``) and a server certificate for 127.0.0.1 signed by it
    (``server.crt``, ``server.key``) made with openssl in ``d``."""
    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True, timeout=60)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test ca",
        "-keyout", "ca.key", "-out", "ca.crt")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout",
        "server.key", "-out", "server.csr")
    (d / "san.ext").write_text("subjectAltName = IP:127.0.0.1\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "2", "-extfile", "san.ext", "-out", "server.crt")


class BrokerError(RuntimeError):
    """Mosquitto is missing or would not start (its log is in the message)."""


class _PortTaken(Exception):
    """Mosquitto could not bind its port: another process has it."""


def mosquitto_path() -> str:
    """The broker's executable (Debian puts it in /usr/sbin, not always on PATH)."""
    found = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise BrokerError("mosquitto is not installed (make test installs Debian's package)")
    return found


#: The broker's CONNACK accepting a connection (MQTT 3.1.1, no session present).
CONNACK_OK = b"\x20\x02\x00\x00"


def connect_packet(client_id: bytes, user: str | None = None, password: str | None = None,
                   keepalive: int = 60) -> bytes:
    """An MQTT 3.1.1 CONNECT (clean session; the user and password when given), for tests that
    open many raw connections at once."""
    flags = 0x02 | (0xC0 if user is not None else 0)
    fields = [client_id] + ([user.encode(), (password or "").encode()] if user is not None
                            else [])
    body = (b"\x00\x04MQTT\x04" + bytes([flags]) + keepalive.to_bytes(2, "big")
            + b"".join(len(f).to_bytes(2, "big") + f for f in fields))
    length = bytearray()
    n = len(body)
    while True:
        n, digit = divmod(n, 128)
        length.append(digit | (0x80 if n else 0))
        if not n:
            return b"\x10" + bytes(length) + body


_LISTENER = re.compile(r"^\s*listener\s+\d+.*$", re.MULTILINE)
_USER = re.compile(r"^\s*user\s+(\S+)", re.MULTILINE)


class Broker:
    """A Mosquitto process on 127.0.0.1:``port`` (see the module docstring). ``conf``: a
    configuration to run instead of the default anonymous one; its ``listener`` line is replaced
    by ``listener <port> 127.0.0.1``, everything else (password file, ACL, persistence) kept."""

    def __init__(self, root: Path, conf: Path | None = None, port: int | None = None) -> None:
        self.root = Path(root)
        #: the port was picked here: another process may take it between free_port() and
        #: Mosquitto's bind; the first start then picks another (a later one keeps it)
        self._picked = port is None
        self._started_once = False
        self.port = port or free_port()
        self.dir = self.root / "broker"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.log = self.dir / "mosquitto.log"
        #: what the broker writes to its standard error (its early errors; a configuration's
        #: ``log_dest stderr``)
        self.stderr = self.dir / "stderr.log"
        self.conf = self.dir / "mosquitto.conf"
        self._base = None if conf is None else Path(conf).read_text(encoding="utf-8")
        self._write_conf()
        self.proc: subprocess.Popen[bytes] | None = None

    def _write_conf(self) -> None:
        if self._base is None:
            text = (f"listener {self.port} 127.0.0.1\n"
                    "allow_anonymous true\n"
                    "persistence true\n"
                    f"persistence_location {self.dir}/\n"
                    "autosave_interval 1\n"
                    "max_queued_messages 0\n")
        else:
            listener = f"listener {self.port} 127.0.0.1"
            text, n = _LISTENER.subn(listener, self._base, count=1)
            if n == 0:
                text = listener + "\n" + self._base
        user = _USER.search(text)
        if user is None:
            # Started as root, Mosquitto would drop to the ``mosquitto`` user, which cannot
            # read the test's private folders: it stays who runs the tests. A configuration
            # from ``hub init`` names its user itself, and keeps it (the line is its fix).
            text += f"user {pwd.getpwuid(os.getuid()).pw_name}\n"
        elif os.geteuid() == 0 and user.group(1) != "root":
            # `hub init` run as root: the broker becomes mosquitto, then opens its log here
            owner = pwd.getpwnam(user.group(1))
            os.chown(self.dir, owner.pw_uid, owner.pw_gid)
        text += (f"log_dest file {self.log}\nlog_type error\nlog_type warning\nlog_type notice\n"
                 "connection_messages true\n")
        self.conf.write_text(text, encoding="utf-8")

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def start(self, timeout: float = 10.0) -> Broker:
        """Starts the broker and waits until it accepts connections. Raises BrokerError."""
        if self.running:
            return self
        for _ in range(3):
            try:
                self._start(timeout)
            except _PortTaken:
                if not self._picked or self._started_once:
                    raise BrokerError(f"127.0.0.1:{self.port} is taken {self._log_tail()}") \
                        from None
                self.port = free_port()  # nobody knows the first one yet: another
                self._write_conf()
                continue
            self._started_once = True
            return self
        raise BrokerError(f"no free port for mosquitto in three tries {self._log_tail()}")

    def _start(self, timeout: float) -> None:
        """One start; ready once Mosquitto logs the connection made to check it (another
        process listening on the port would accept it too). Raises _PortTaken, BrokerError."""
        logged = self.log.stat().st_size if self.log.exists() else 0
        said = self.stderr.stat().st_size if self.stderr.exists() else 0
        # its standard error into a file, never a pipe: a configuration from ``hub init`` logs
        # there too (``log_dest stderr``), and a pipe nobody reads while it runs fills after
        # 64 KiB — a thousand boards' connections — and the broker blocks writing its log
        with open(self.stderr, "ab") as err_file:
            self.proc = subprocess.Popen([mosquitto_path(), "-c", str(self.conf)],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=err_file, start_new_session=True)
        # Mosquitto's word that it took the check's connection: "New connection from … on port
        # N." — or, on a TLS listener the check closed before its handshake, "Client connection
        # from 127.0.0.1 failed: … unexpected eof" (its only connections are the check's)
        marks = (f"on port {self.port}.", "Client connection from 127.0.0.1 failed")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                with open(self.stderr, "rb") as f:
                    f.seek(said)
                    err = f.read().decode(errors="replace")
                code = self.proc.returncode
                self._close()
                if "in use" in err + self._log_since(logged):
                    raise _PortTaken()
                raise BrokerError(f"mosquitto exited ({code}): {err.strip()} "
                                  f"{self._log_tail()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    pass
            except OSError:
                time.sleep(0.02)
                continue
            for _ in range(25):
                seen = self._log_since(logged)
                if any(mark in seen for mark in marks):
                    return
                if self.proc.poll() is not None:
                    break
                time.sleep(0.02)
        self.kill()
        raise BrokerError(f"mosquitto did not listen on 127.0.0.1:{self.port} in {timeout} s "
                          f"{self._log_tail()}")

    def _log_since(self, offset: int) -> str:
        try:
            with open(self.log, "rb") as f:
                f.seek(offset)
                return f.read().decode(errors="replace")
        except OSError:
            return ""

    def stop(self) -> None:
        """A clean stop (SIGTERM: Mosquitto saves its persistence file)."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._close()

    def kill(self) -> None:
        """A crash: SIGKILL, no save."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        self._close()

    def _close(self) -> None:
        self.proc = None

    def _log_tail(self) -> str:
        try:
            return "log: " + " | ".join(self.log.read_text(errors="replace").splitlines()[-5:])
        except OSError:
            return ""

    def __enter__(self) -> Broker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
