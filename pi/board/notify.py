"""systemd's service notification protocol (sd_notify(3)): READY=1, STATUS=…, WATCHDOG=1, STOPPING=1.

Why our own few lines and not a library: the protocol is one datagram of ``KEY=value`` lines sent
to the AF_UNIX socket named by ``$NOTIFY_SOCKET`` (a path, or ``@name`` in the abstract namespace),
stable since systemd 209 and documented in sd_notify(3). ``python-systemd`` would do it but builds
against libsystemd's headers (a C toolchain and ``libsystemd-dev`` on every Pi); ``sdnotify``
(last release 2017) and ``sd-notify`` are unmaintained and swallow every error, so nothing would
tell us that READY=1 never left. These ~100 lines are tested against real datagram sockets, in a
folder and in the abstract namespace (tests/pi/test_notify.py).

Without ``$NOTIFY_SOCKET`` (a PC, a terminal, ``--simulate``) every call is a no-op that returns
False. Sending never raises: a failure is logged (once per kind of error) and reported by the
return value, because the board must keep recording a game even if systemd cannot be told.

The watchdog: with ``WatchdogSec=`` systemd sets ``$WATCHDOG_USEC`` (and ``$WATCHDOG_PID``, the
process it is meant for). :attr:`Notifier.watchdog_interval` is that period in seconds (None when
there is no watchdog for this process); :attr:`Notifier.ping_interval` is half of it, how often the
main loop should call :meth:`Notifier.watchdog` (sd_watchdog_enabled(3) advises half).

Thread-safety: calls may come from any thread (each is one ``sendto`` on a datagram socket).
Sending never blocks: when the listener's queue is full the message is dropped and logged.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Callable, Mapping

log = logging.getLogger(__name__)

__all__ = ["Notifier", "MAX_STATUS_BYTES", "keep_told", "STATUS_EVERY"]

#: STATUS= text longer than this is cut (systemd shows one line in ``systemctl status``).
MAX_STATUS_BYTES = 512
#: Seconds between two looks at a service's status (:func:`keep_told`).
STATUS_EVERY = 2.0


class Notifier:
    """A client of the notification socket named in ``environ`` (``os.environ`` by default).

    ``unset_environment``: remove NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID from
    ``os.environ`` after reading them, so that child processes do not talk to systemd in our name
    (sd_notify(3)'s ``unset_environment``); only when ``environ`` is None.
    """

    def __init__(self, environ: Mapping[str, str] | None = None,
                 unset_environment: bool = False) -> None:
        env = os.environ if environ is None else environ
        self._address = _socket_address(env.get("NOTIFY_SOCKET", ""))
        self._watchdog_usec = _watchdog_usec(env)
        if environ is None and unset_environment:
            for key in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"):
                os.environ.pop(key, None)
        self._logged: set[int | None] = set()
        # Made here, not on first use, so that threads never race to create it.
        self._sock: socket.socket | None = None
        if self._address is not None:
            try:
                # Non-blocking: when systemd's queue is full (net.unix.max_dgram_qlen, often
                # 10) a send fails with EAGAIN instead of hanging the main loop it reports on.
                self._sock = socket.socket(
                    socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK)
            except OSError as exc:
                log.warning("cannot create a socket to notify systemd: %s", exc)
                self._address = None

    @property
    def enabled(self) -> bool:
        """True when systemd (or a test) listens and the notifier is open: messages are sent."""
        return self._address is not None and self._sock is not None

    @property
    def watchdog_interval(self) -> float | None:
        """``WatchdogSec=`` in seconds when the watchdog is on for this process, else None."""
        return None if self._watchdog_usec is None else self._watchdog_usec / 1_000_000

    @property
    def ping_interval(self) -> float | None:
        """How often to call :meth:`watchdog`, in seconds: half the watchdog period."""
        interval = self.watchdog_interval
        return None if interval is None else interval / 2

    def notify(self, *assignments: str) -> bool:
        """Sends ``KEY=value`` assignments in one datagram. True when sent; False when disabled
        or the send failed (logged). Raises ValueError for an assignment without ``=`` or with a
        line break (it would read as two assignments)."""
        for a in assignments:
            if "=" not in a or "\n" in a:
                raise ValueError(f"not a KEY=value assignment: {a!r}")
        sock, address = self._sock, self._address
        if sock is None or address is None:
            return False
        payload = "\n".join(assignments).encode("utf-8", errors="replace")
        try:
            sock.sendto(payload, address)
        except OSError as exc:
            if exc.errno not in self._logged:  # a dead socket must not flood the log
                self._logged.add(exc.errno)
                log.warning("cannot notify systemd at %r: %s", self._address, exc)
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        """READY=1: start-up is finished (the hardware is up, any game resumed)."""
        return self.notify("READY=1", *(_status(status),) if status is not None else ())

    def status(self, text: str) -> bool:
        """STATUS=: one line on what the board is doing, shown by ``systemctl status``."""
        return self.notify(_status(text))

    def watchdog(self) -> bool:
        """WATCHDOG=1: the main loop is alive (call every :attr:`ping_interval` seconds)."""
        return self.notify("WATCHDOG=1")

    def stopping(self, status: str | None = None) -> bool:
        """STOPPING=1: an orderly stop has begun."""
        return self.notify("STOPPING=1", *(_status(status),) if status is not None else ())

    def extend_timeout(self, seconds: float) -> bool:
        """EXTEND_TIMEOUT_USEC=: the start (or stop) needs ``seconds`` more than the unit allows,
        e.g. while a long journal is replayed."""
        return self.notify(f"EXTEND_TIMEOUT_USEC={max(0, int(seconds * 1_000_000))}")

    def close(self) -> None:
        """Closes the socket; later calls are no-ops returning False."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self) -> Notifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


async def keep_told(notifier: Notifier, status: Callable[[], str], said: str | None = None,
                    every: float = STATUS_EVERY) -> None:
    """A service's side of the protocol on its event loop, until cancelled (the hall's hub;
    the board's controller pings from its own loop): WATCHDOG=1 every
    :attr:`Notifier.ping_interval` — sent from the loop, so a loop that hangs stops it and
    systemd restarts the service — and STATUS= whenever ``status()`` reads differently from
    what was said last (``said``: with READY=1), looked at every ``every`` seconds. Returns at
    once when systemd does not listen."""
    if not notifier.enabled:
        return
    loop = asyncio.get_running_loop()
    ping = notifier.ping_interval
    next_ping = loop.time()
    failed = False
    text: str | None
    while True:
        now = loop.time()
        if ping is not None and now >= next_ping:
            notifier.watchdog()
            next_ping = now + ping
        try:
            text = status()
        except Exception:  # a status that cannot be said must not stop the watchdog's pings
            if not failed:
                log.exception("the status for systemd could not be made")
            failed, text = True, said
        if text is not None and text != said:
            notifier.status(text)
            said = text
        wake = every if ping is None else min(every, max(0.0, next_ping - loop.time()))
        await asyncio.sleep(wake)


def _status(text: str) -> str:
    line = " ".join(text.split())  # one line: the protocol separates assignments by newlines
    data = line.encode("utf-8")
    if len(data) > MAX_STATUS_BYTES:
        line = data[:MAX_STATUS_BYTES].decode("utf-8", errors="ignore")
    return f"STATUS={line}"


def _socket_address(value: str) -> str | bytes | None:
    """The socket address of ``$NOTIFY_SOCKET``: a path, or ``@name`` for the abstract namespace
    (a leading NUL byte). Anything else (``vsock:``, a relative path) is not supported: None."""
    if value.startswith("/"):
        return value
    if value.startswith("@") and len(value) > 1:
        return b"\0" + value[1:].encode("utf-8")
    if value:
        log.warning("NOTIFY_SOCKET=%r is not a path or @name; systemd will not be notified", value)
    return None


def _watchdog_usec(env: Mapping[str, str]) -> int | None:
    """``$WATCHDOG_USEC`` when the watchdog is meant for this process (``$WATCHDOG_PID`` unset or
    our pid), as sd_watchdog_enabled(3) reads it; None otherwise or when malformed."""
    raw = env.get("WATCHDOG_USEC")
    if raw is None:
        return None
    pid = env.get("WATCHDOG_PID")
    if pid is not None and (not pid.isdigit() or int(pid) != os.getpid()):
        return None
    if not raw.isdigit() or len(raw) > 18 or int(raw) == 0:
        log.warning("WATCHDOG_USEC=%r is not a positive number of microseconds; ignored", raw)
        return None
    return int(raw)
