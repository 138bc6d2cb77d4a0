"""``damiera hub`` under systemd (``systemd/damiera-hub.service``, ``Type=notify``): the process
as the unit runs it, told by a real datagram socket in ``$NOTIFY_SOCKET`` as systemd's is — READY=1 only
once the hall page answers, STATUS= saying where it serves, the broker and the boards online,
WATCHDOG=1 every half ``$WATCHDOG_USEC`` from the loop, STOPPING=1 on SIGTERM and exit 0."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.hall.broker import Broker, free_port
from tests.hall.hub_rig import FakeBoard, hub_process, request

#: systemd's WATCHDOG_USEC for the tests: a ping every 0.5 s.
WATCHDOG_USEC = 1_000_000


class Systemd:
    """The notification socket's listening side, as systemd holds it."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.got: list[tuple[float, dict[str, str]]] = []

    def env(self) -> dict[str, str]:
        return {"NOTIFY_SOCKET": self.path, "WATCHDOG_USEC": str(WATCHDOG_USEC)}

    def until(self, want: str, timeout: float = 20.0) -> dict[str, str]:
        """The next message with the assignment ``want`` (``KEY=value``, or ``KEY=`` for any
        value of KEY); every message read kept in :attr:`got`."""
        key, _, value = want.partition("=")
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {want} within {timeout} s; got {self.got}"
            self.sock.settimeout(left)
            data = self.sock.recv(65536).decode("utf-8")
            msg = dict(line.split("=", 1) for line in data.split("\n"))
            self.got.append((time.monotonic(), msg))
            if key in msg and (not value or msg[key] == value):
                return msg

    def status(self, ok: Callable[[str], bool], timeout: float = 20.0) -> str:
        """The first STATUS= from now on that ``ok`` accepts (the others read past)."""
        deadline = time.monotonic() + timeout
        while True:
            text = self.until("STATUS=", max(0.01, deadline - time.monotonic()))["STATUS"]
            if ok(text):
                return text

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def systemd(tmp_path: Path) -> Iterator[Systemd]:
    s = Systemd(tmp_path / "notify")
    yield s
    s.close()


def _stop(proc: subprocess.Popen[bytes], systemd: Systemd) -> None:
    """SIGTERM as systemd stops a unit: STOPPING=1, then exit 0."""
    proc.send_signal(signal.SIGTERM)
    assert systemd.until("STOPPING=1")["STATUS"] == "stopping"
    assert proc.wait(15) == 0


def _kill(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_the_hub_is_ready_once_it_serves_then_says_how_it_goes(tmp_path: Path,
                                                               systemd: Systemd) -> None:
    with Broker(tmp_path) as broker:
        port = free_port()
        hub = hub_process(tmp_path / "hub", broker.url, port, env=systemd.env())
        board: FakeBoard | None = None
        try:
            ready = systemd.until("READY=1")
            # ready means serving: the hall page answers the moment systemd is told
            assert request(port, "GET", "/api/hall", timeout=5)[0] == 200
            assert ready["STATUS"].startswith(f"http 127.0.0.1:{port}; ")
            # looked at every 2 s (pi.board.notify.STATUS_EVERY), told when it reads otherwise
            linked = ready["STATUS"] if "; broker linked;" in ready["STATUS"] else \
                systemd.status(lambda s: "; broker linked;" in s)
            assert linked == (
                f"http 127.0.0.1:{port}; broker linked; 0 of 0 boards online")
            board = FakeBoard(broker.url, "8")
            board.status()
            assert systemd.status(lambda s: s.endswith("; 1 of 1 boards online"))
            # the watchdog, from the loop, every half WATCHDOG_USEC
            first = systemd.until("WATCHDOG=1")
            assert first == {"WATCHDOG": "1"}
            start = systemd.got[-1][0]
            systemd.until("WATCHDOG=1")
            systemd.until("WATCHDOG=1")
            assert 0.6 < systemd.got[-1][0] - start < 3.0
            _stop(hub, systemd)
        finally:
            _kill(hub)
            if board is not None:
                board.close()


def test_without_the_broker_the_hub_is_ready_and_says_it_retries(tmp_path: Path,
                                                                  systemd: Systemd) -> None:
    """A broker not up yet is retried, never fatal (the unit starts before mosquitto may):
    the hub is ready — its pages answer — and its status says so."""
    port = free_port()
    hub = hub_process(tmp_path / "hub", f"mqtt://127.0.0.1:{free_port()}", port,
                      env=systemd.env())
    try:
        assert systemd.until("READY=1")["STATUS"] == (
            f"http 127.0.0.1:{port}; broker not linked (retrying); 0 of 0 boards online")
        _stop(hub, systemd)
    finally:
        _kill(hub)

