"""The sd_notify protocol (pi/board/notify.py) against real AF_UNIX datagram sockets: a socket file in a
temporary folder and one in the abstract namespace; the watchdog's period from the environment; a
service's loop side (keep_told)."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pi.board.notify import MAX_STATUS_BYTES, Notifier, keep_told


@pytest.fixture
def path_socket(tmp_path: Path) -> Iterator[tuple[str, socket.socket]]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    address = str(tmp_path / "notify")
    sock.bind(address)
    sock.settimeout(5)
    yield address, sock
    sock.close()


@pytest.fixture
def abstract_socket() -> Iterator[tuple[str, socket.socket]]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    name = f"damiera-test-{uuid.uuid4().hex}"
    sock.bind("\0" + name)
    sock.settimeout(5)
    yield "@" + name, sock
    sock.close()


def received(sock: socket.socket) -> list[str]:
    return sock.recv(65536).decode("utf-8").split("\n")


@pytest.mark.parametrize("kind", ["path_socket", "abstract_socket"])
def test_messages_arrive_on_a_real_socket(kind: str, request: pytest.FixtureRequest) -> None:
    address, sock = request.getfixturevalue(kind)
    with Notifier({"NOTIFY_SOCKET": address}) as n:
        assert n.enabled
        assert n.ready("board up, game 2026-11-22T0512-b07-001 resumed")
        assert received(sock) == ["READY=1", "STATUS=board up, game 2026-11-22T0512-b07-001 resumed"]
        assert n.status("white to move\n12. 22-18") and received(sock) == [
            "STATUS=white to move 12. 22-18"]
        assert n.watchdog() and received(sock) == ["WATCHDOG=1"]
        assert n.stopping() and received(sock) == ["STOPPING=1"]
        assert n.extend_timeout(2.5) and received(sock) == ["EXTEND_TIMEOUT_USEC=2500000"]
        assert n.ready() and received(sock) == ["READY=1"]


def test_long_status_is_cut(path_socket: tuple[str, socket.socket]) -> None:
    address, sock = path_socket
    with Notifier({"NOTIFY_SOCKET": address}) as n:
        n.status("è" * 1000)
        (line,) = received(sock)
        assert line.startswith("STATUS=è") and len(line.encode()) <= MAX_STATUS_BYTES + 7


def test_without_notify_socket_everything_is_a_no_op() -> None:
    n = Notifier({})
    assert not n.enabled and n.watchdog_interval is None and n.ping_interval is None
    assert n.ready() is False and n.status("x") is False and n.watchdog() is False


def test_unsupported_socket_is_disabled(caplog: pytest.LogCaptureFixture) -> None:
    assert not Notifier({"NOTIFY_SOCKET": "vsock:2:1234"}).enabled
    assert "not a path or @name" in caplog.text
    assert not Notifier({"NOTIFY_SOCKET": "@"}).enabled


def test_a_dead_socket_is_logged_once_and_never_raises(tmp_path: Path,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    n = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone")})
    with caplog.at_level(logging.WARNING):
        assert n.watchdog() is False
        assert n.watchdog() is False
    assert caplog.text.count("cannot notify systemd") == 1
    n.close()


def test_bad_assignments_are_refused() -> None:
    n = Notifier({})
    for bad in ("READY", "STATUS=a\nREADY=1"):
        with pytest.raises(ValueError):
            n.notify(bad)


def test_watchdog_period_from_the_environment() -> None:
    me = str(os.getpid())
    n = Notifier({"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "20000000", "WATCHDOG_PID": me})
    assert n.watchdog_interval == 20.0 and n.ping_interval == 10.0
    assert Notifier({"WATCHDOG_USEC": "3000000"}).watchdog_interval == 3.0
    # Meant for another process (a parent that exec'd us without clearing it): not ours.
    assert Notifier({"WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "1"}).watchdog_interval is None
    for bad in ("0", "-5", "abc", "1e6", "9" * 40, ""):
        assert Notifier({"WATCHDOG_USEC": bad}).watchdog_interval is None


def test_unset_environment(monkeypatch: pytest.MonkeyPatch,
                           abstract_socket: tuple[str, socket.socket]) -> None:
    address, sock = abstract_socket
    monkeypatch.setenv("NOTIFY_SOCKET", address)
    monkeypatch.setenv("WATCHDOG_USEC", "1000000")
    with Notifier(unset_environment=True) as n:
        assert "NOTIFY_SOCKET" not in os.environ and "WATCHDOG_USEC" not in os.environ
        assert n.watchdog_interval == 1.0
        assert n.ready() and received(sock) == ["READY=1"]


def test_threads_share_one_notifier_and_close_ends_it(
        abstract_socket: tuple[str, socket.socket]) -> None:
    """What was reported sent arrived, whole, whichever thread sent it."""
    address, sock = abstract_socket
    n = Notifier({"NOTIFY_SOCKET": address})
    got: list[list[str]] = []
    done = threading.Event()

    def read() -> None:
        sock.settimeout(0.2)
        while True:
            try:
                got.append(received(sock))
            except TimeoutError:
                if done.is_set():
                    return

    sent: list[bool] = []
    reader = threading.Thread(target=read)
    reader.start()
    threads = [threading.Thread(target=lambda: sent.extend(n.watchdog() for _ in range(10)))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    done.set()
    reader.join(timeout=10)
    assert len(sent) == 40 and any(sent)
    assert got == [["WATCHDOG=1"]] * sent.count(True)
    n.close()
    assert not n.enabled and n.ready() is False


def test_a_listener_that_does_not_read_never_blocks_the_sender(
        abstract_socket: tuple[str, socket.socket], caplog: pytest.LogCaptureFixture) -> None:
    address, sock = abstract_socket
    with Notifier({"NOTIFY_SOCKET": address}) as n:
        results = [n.watchdog() for _ in range(200)]  # more than the queue holds
    assert results[0] is True and results[-1] is False
    assert caplog.text.count("cannot notify systemd") == 1


def _told_for(address: str, sock: socket.socket, status: Callable[[], str],
              seconds: float) -> list[str]:
    """What :func:`keep_told` sends in ``seconds`` with WATCHDOG_USEC 0.2 s, ``said`` "a" and a
    look every 0.05 s: the datagrams ``sock`` received, in order."""
    async def run() -> None:
        with Notifier({"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "200000"}) as n:
            task = asyncio.ensure_future(keep_told(n, status, "a", every=0.05))
            await asyncio.sleep(seconds)
            task.cancel()

    asyncio.run(run())
    sock.settimeout(0.2)
    got = []
    while True:
        try:
            got.append(sock.recv(65536).decode("utf-8"))
        except TimeoutError:
            return got


def test_keep_told_pings_from_the_loop_and_says_only_what_changed(
        path_socket: tuple[str, socket.socket]) -> None:
    """WATCHDOG=1 every half WATCHDOG_USEC (0.1 s here) and STATUS= only when the status reads
    otherwise than what was said last (with READY=1: ``said``)."""
    address, sock = path_socket
    texts = iter(["a", "a", "a", "b", "b", "b", "b", "b", "b", "b", "b", "b", "b", "b"])

    got = _told_for(address, sock, lambda: next(texts, "b"), 0.45)
    assert [m for m in got if m.startswith("STATUS=")] == ["STATUS=b"]
    assert 3 <= got.count("WATCHDOG=1") <= 6  # 5 on time; fewer when the machine is busy


def test_keep_told_returns_at_once_without_systemd() -> None:
    async def run() -> None:
        await asyncio.wait_for(keep_told(Notifier({}), lambda: "x"), 1)

    asyncio.run(run())


def test_keep_told_pings_on_when_the_status_fails(path_socket: tuple[str, socket.socket],
                                                  caplog: pytest.LogCaptureFixture) -> None:
    """A status that raises is logged once; the watchdog's pings go on (systemd would restart a
    service whose pings stopped)."""
    address, sock = path_socket

    def broken() -> str:
        raise KeyError("x")

    got = _told_for(address, sock, broken, 0.35)
    assert got and set(got) == {"WATCHDOG=1"}
    assert caplog.text.count("the status for systemd could not be made") == 1
