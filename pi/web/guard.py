"""The web server's defences against a hall network full of strangers: connections capped per
peer address and in total below the process's descriptor budget, a connection that sends no
complete request within a few seconds closed (one that sends nothing is not even accepted:
Linux's TCP_DEFER_ACCEPT), the kernel's accept queue deep enough that a newcomer's SYN is not
dropped behind a burst, floods and malformed requests logged as one rate-limited line each
instead of a traceback per event.

Built from aiohttp's own parts: :class:`GuardedSite` is a ``web.BaseSite`` (the extension point
``TCPSite`` itself uses) whose protocol factory makes :class:`GuardedHandler`, an aiohttp
``web.RequestHandler`` that tells a :class:`ConnectionGuard` when its connection opens and
closes; the header deadline is the handler's own ``keepalive_timeout``, which aiohttp arms at
the connection's start and re-arms after each response (its ``_process_keepalive`` closes a
connection whose handler still waits for a whole request). Everything runs on the loop's thread.
"""

from __future__ import annotations

import asyncio
import logging
import os
import resource
import socket
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from aiohttp import web

log = logging.getLogger(__name__)

__all__ = ["ConnectionGuard", "GuardedHandler", "GuardedSite", "RateLimitedLog",
           "OneLineHttpErrors", "HEADER_TIMEOUT", "RESERVE", "BACKLOG", "PER_PEER", "LOCAL",
           "descriptor_budget", "accept_error_handler"]

#: Seconds a connection has to send a whole request (from its opening, or from the end of the
#: previous response): a phone sends its request in the same packet as the connection's
#: first byte; half a header line held open is an attack (slowloris).
HEADER_TIMEOUT = 5.0
#: Descriptors never given to web connections: the journal, the game files, the state
#: directory's lock, the hall link's socket, the hardware's buses, Python's own.
RESERVE = 128
#: The listening socket's backlog: also how many connections one accept burst may open before
#: the guard can close the extra ones (asyncio accepts up to ``backlog`` at a time), so it is
#: part of the reserve.
BACKLOG = 128
#: The kernel's queue of connections not yet accepted (capped by net.core.somaxconn).
ACCEPT_QUEUE = 4096
#: Open connections from one address at most (a browser opens 6 per host; the arbiter's console
#: and a few tabs fit many times over).
PER_PEER = 64
#: Addresses only the board itself connects from: not capped per address (a reverse proxy in
#: front of the board, the benchmarks' hundred clients), counted in the total.
LOCAL = frozenset({"127.0.0.1", "::1"})
#: Open connections in all at most, whatever the descriptor budget.
MAX_CONNECTIONS = 512

#: The clock of :class:`RateLimitedLog` (a test moves it on instead of sleeping an interval).
monotonic: Callable[[], float] = time.monotonic


def descriptor_budget() -> int:
    """The process's soft limit on open descriptors (RLIMIT_NOFILE); 1024 when unlimited or
    unknown."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1024 if soft == resource.RLIM_INFINITY or soft <= 0 else int(soft)


class RateLimitedLog:
    """One log line per ``interval`` seconds at most for a recurring event: the first one at
    once, later ones counted and summed up in the next line once the interval has passed."""

    def __init__(self, logger: logging.Logger, level: int, interval: float = 60.0) -> None:
        self.logger, self.level, self.interval = logger, level, interval
        self._last = -float("inf")
        self._held = 0
        self.lines = 0  #: lines written (tests)

    def note(self, message: str, *args: object) -> None:
        """One more event: logged now (with the count of those held since the last line) when
        the interval has passed, else counted."""
        now = monotonic()
        if now - self._last < self.interval:
            self._held += 1
            return
        held, self._held, self._last = self._held, 0, now
        suffix = f" (and {held} more like it in the last {self.interval:.0f} s)" if held else ""
        self.lines += 1
        self.logger.log(self.level, message + suffix, *args)


class OneLineHttpErrors(logging.Filter):
    """On the logger given to aiohttp's request handlers: a request aiohttp's parser refused (a
    non-ASCII byte in the URL, ``Transfer-Encoding`` with ``Content-Length``…) is a stranger's
    malformed request, not the server's error: one INFO line without the traceback, at most one
    a minute (:class:`RateLimitedLog`). Other records pass as they are."""

    def __init__(self, out: logging.Logger, interval: float = 60.0) -> None:
        super().__init__()
        self.limited = RateLimitedLog(out, logging.INFO, interval)

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is None or not _is_http_protocol_error(exc):
            return True
        text = str(getattr(exc, "message", "") or exc)
        first = text.splitlines()[0] if text else ""
        self.limited.note("malformed HTTP request refused (400): %s: %s",
                          type(exc).__name__, first[:160])
        return False


def _is_http_protocol_error(exc: BaseException) -> bool:
    from aiohttp.http_exceptions import HttpProcessingError
    return isinstance(exc, HttpProcessingError)


class ConnectionGuard:
    """Counts the web server's open connections by peer address. One address's connection over
    ``per_peer`` is refused at once, before anything is built for it (:meth:`admit`: a reset;
    a stranger reconnecting in a loop costs an accept and a close, not a request handler). A
    connection over ``total`` makes room by closing the connection that has been waiting
    longest without a request in progress (a half-sent header, an idle keep-alive: a real
    client simply reconnects); when every one is busy (a request or an SSE stream in progress)
    the new connection is closed instead. ``total`` defaults to the descriptor budget less
    :data:`RESERVE` and :data:`BACKLOG` (at most :data:`MAX_CONNECTIONS`); ``exempt``: the
    addresses without a cap of their own (:data:`LOCAL`: the board itself, a reverse proxy
    or a benchmark on it; no stranger on the hall's network has them). Loop thread only."""

    def __init__(self, *, per_peer: int = PER_PEER, total: int | None = None,
                 exempt: frozenset[str] = LOCAL) -> None:
        if total is None:
            total = min(MAX_CONNECTIONS, descriptor_budget() - RESERVE - BACKLOG)
        self.per_peer = max(1, per_peer)
        self.exempt = exempt
        self.total = max(8, total)
        self._peer: dict[GuardedHandler, str] = {}
        self._by_peer: dict[str, int] = {}
        #: connections without a request in progress, the longest waiting first
        self._idle: OrderedDict[GuardedHandler, str] = OrderedDict()
        self.closed = 0  #: connections refused or closed by the caps (tests, the log line)
        self.flood = RateLimitedLog(log, logging.WARNING)

    @property
    def open(self) -> int:
        return len(self._peer)

    def admit(self, peer: str) -> bool:
        """A connection from ``peer`` was accepted: True when it may stay (under its
        address's cap); False: the caller resets it."""
        if peer in self.exempt or self._by_peer.get(peer, 0) < self.per_peer:
            return True
        self.closed += 1
        self.flood.note("web connections over the cap (%d from %s): refused; %d open",
                        self.per_peer, peer, len(self._peer))
        return False

    def opened(self, handler: GuardedHandler, peer: str) -> None:
        """A connection :meth:`admit` let in got its handler (``peer``: its address)."""
        self._peer[handler] = peer
        self._by_peer[peer] = self._by_peer.get(peer, 0) + 1
        self._idle[handler] = peer
        if len(self._peer) > self.total:
            victim = next((h for h in self._idle if h is not handler), handler)
            self.closed += 1
            self.flood.note("web connections over the cap (%d in all): the longest idle "
                            "closed", self.total)
            self.closed_connection(victim)
            victim.force_close()

    def busy(self, handler: GuardedHandler) -> None:
        """A request on this connection is being answered (it may not be closed for room)."""
        self._idle.pop(handler, None)

    def idle(self, handler: GuardedHandler) -> None:
        """The request is answered: the connection waits for the next (it may be closed)."""
        peer = self._peer.get(handler)
        if peer is not None:
            self._idle[handler] = peer

    def closed_connection(self, handler: GuardedHandler) -> None:
        """The connection is gone (idempotent)."""
        peer = self._peer.pop(handler, None)
        self._idle.pop(handler, None)
        if peer is None:
            return
        left = self._by_peer[peer] - 1
        if left:
            self._by_peer[peer] = left
        else:
            del self._by_peer[peer]


class GuardedHandler(web.RequestHandler):
    """aiohttp's request handler, reporting its connection to a :class:`ConnectionGuard`.

    It also lets go of the exceptions that end a connection or answer a malformed request:
    aiohttp keeps them where their tracebacks' frames reach back to them (the connection's
    task holds its cancellation, whose frame of ``start`` holds that task in a local while it
    lingers over an unread body; a malformed request's error sits in a list its own frame
    holds), each a reference cycle through this handler, its request, transport and buffers.
    The hub freezes what survives a young collection (``pi.hall.collector``): a slow
    connection lives long enough to be frozen, and its cycle would then wait for the next
    whole-heap collection (issue 38: 52 → 159 MB in a minute of slow connections, then a
    2.9 s stall). With the tracebacks dropped (and Python 3.11's transport let go of its own
    read callback, :func:`_release_read_callback`), a closed connection is freed by its
    reference count, whatever collector runs."""

    def __init__(self, guard: ConnectionGuard, manager: web.Server, **kwargs: Any) -> None:
        super().__init__(manager, **kwargs)
        self.guard = guard

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        self.guard.opened(self, address)

    def connection_lost(self, exc: BaseException | None) -> None:
        self.guard.closed_connection(self)
        transport = self.transport
        super().connection_lost(exc)
        if transport is not None:
            _release_read_callback(transport)

    async def start(self) -> None:
        """aiohttp's connection loop (the connection's task); the exception that ends it
        (a cancellation when the peer goes away) leaves without the frames it came through."""
        try:
            await super().start()
        except BaseException as exc:
            exc.__traceback__ = None  # its frames hold this task: a cycle (the class's doc)
            raise

    def handle_error(self, request: Any, status: int = 500, exc: BaseException | None = None,
                     message: str | None = None) -> web.StreamResponse:
        """aiohttp's answer to a malformed request (or a handler's failure); ``exc`` answered,
        its traceback let go (the class's doc)."""
        try:
            return super().handle_error(request, status, exc, message)
        finally:
            if exc is not None:
                exc.__traceback__ = None


def _release_read_callback(transport: asyncio.BaseTransport) -> None:
    """The closed ``transport`` lets go of the bound method it reads with: Python 3.11's
    selector transport keeps it in its ``_read_ready_cb`` — a cycle of the transport with
    itself, its socket and buffer, which Python 3.12 breaks at close (CPython gh-100348; the
    Pi's Debian runs 3.11). Its reader is removed by then: the callback is never called
    again. Other transports: nothing."""
    attributes = getattr(transport, "__dict__", None)
    if attributes is not None and "_read_ready_cb" in attributes:
        attributes["_read_ready_cb"] = None


class _Gate(asyncio.Protocol):
    """What a new connection first talks to: its address is checked (:meth:`ConnectionGuard.
    admit`); refused, it is reset; admitted, the transport is handed to a new
    :class:`GuardedHandler` (``transport.set_protocol``) before any byte is read."""

    def __init__(self, guard: ConnectionGuard, make: Callable[[], GuardedHandler]) -> None:
        self.guard, self.make = guard, make

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        address = str(peer[0]) if isinstance(peer, tuple) and peer else "?"
        if not self.guard.admit(address):
            if isinstance(transport, asyncio.Transport):
                transport.abort()  # a reset: nothing lingers
            else:
                transport.close()
            return
        handler = self.make()
        transport.set_protocol(handler)
        handler.connection_made(transport)


class GuardedSite(web.BaseSite):
    """A TCP site (as ``web.TCPSite``) whose connections are :class:`GuardedHandler`\\ s:
    ``handler_args`` are their ``web.RequestHandler`` arguments (``keepalive_timeout`` is the
    header deadline, :data:`HEADER_TIMEOUT` by default)."""

    def __init__(self, runner: web.BaseRunner, host: str, port: int, guard: ConnectionGuard,
                 *, backlog: int = BACKLOG, **handler_args: Any) -> None:
        super().__init__(runner, backlog=backlog)
        self.host, self.requested_port = host, port
        self.guard = guard
        handler_args.setdefault("keepalive_timeout", HEADER_TIMEOUT)
        self.handler_args = handler_args
        self.port = port
        self._listening: asyncio.AbstractServer | None = None

    @property
    def name(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def start(self) -> None:
        """Listens. Raises OSError when the address cannot be had."""
        await super().start()
        loop = asyncio.get_running_loop()
        manager = self._runner.server
        if manager is None:
            raise RuntimeError("the runner is not set up")

        def handler() -> GuardedHandler:
            return GuardedHandler(self.guard, manager, loop=loop, **self.handler_args)

        def protocol() -> _Gate:
            return _Gate(self.guard, handler)

        server = await loop.create_server(protocol, self.host, self.requested_port,
                                          backlog=self._backlog, reuse_address=True)
        self._server = self._listening = server
        for sock in server.sockets:
            _defer_accept(sock)
            _deepen_queue(sock)
        if server.sockets:
            self.port = int(server.sockets[0].getsockname()[1])


def _deepen_queue(sock: Any) -> None:
    """The kernel's accept queue made :data:`ACCEPT_QUEUE` deep, while asyncio still accepts
    at most :data:`BACKLOG` connections at a time (the ``backlog`` it was given: how many
    descriptors one burst may open before the guard closes the extra ones). A full queue
    drops a newcomer's SYN, and its retry comes a second later: under a flood the arbiter's
    request would wait for it. (``listen`` again on a duplicate of the descriptor: the same
    socket; asyncio's own wrapper does not offer it.)"""
    try:
        with socket.socket(fileno=os.dup(sock.fileno())) as same:
            same.listen(ACCEPT_QUEUE)
    except OSError as exc:
        log.info("accept queue left at %d (%s)", BACKLOG, exc)


def _defer_accept(sock: Any) -> None:
    """Linux's TCP_DEFER_ACCEPT on a listening socket: a connection is handed to the server
    only once its first bytes arrived (nginx's ``deferred``), for up to :data:`HEADER_TIMEOUT`
    seconds. A connection that sends nothing (thousands of them, from one laptop) then costs
    the kernel a half-open entry, not a descriptor, an accept and a handler in the daemon; the
    accept queue stays free for the clients that speak. Elsewhere: nothing (the header deadline
    closes them)."""
    option = getattr(socket, "TCP_DEFER_ACCEPT", None)
    if option is None:
        return
    try:
        sock.setsockopt(socket.IPPROTO_TCP, option, int(HEADER_TIMEOUT))
    except OSError as exc:
        log.info("TCP_DEFER_ACCEPT not set (%s): silent connections are accepted", exc)


def accept_error_handler(limited: RateLimitedLog
                         ) -> Any:
    """A loop exception handler: asyncio's "socket.accept() out of system resource" (no
    descriptor left: asyncio retries the accept a second later by itself) becomes one
    rate-limited line instead of a traceback per refused accept; anything else goes to the
    loop's default handler."""
    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        message = str(context.get("message", ""))
        if "accept" in message and isinstance(context.get("exception"), OSError):
            exc = context["exception"]
            limited.note("web: %s (%s): connections wait", message, exc.strerror or exc)
            return
        loop.default_exception_handler(context)
    return handle
