"""The live feeds: every journal line becomes SSE events, kept in memory for resume and fanned
out to per-client bounded queues (a client that does not keep up is dropped, never waited for).

Two streams of a board: the arbiter's (everything, live) and the public one (the broadcast
policy of ``pi/web/API.md``: moves under a pending irregularity held, an optional delay). The
one SSE writer (:func:`serve_sse`) and the one pinger (:func:`ping_loop`) serve them and the
hall's stream (``pi.hall.hall_http``) alike.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Protocol

from aiohttp import web

from pi.web.views import MoveDicts, clock_at, line_events

log = logging.getLogger(__name__)

__all__ = ["Client", "Stream", "encode", "encode_state", "replay_journal_events", "serve_sse",
           "ping_loop", "PING"]

#: The SSE comment every client gets every ``ping`` seconds.
PING = b": ping\n\n"


def encode(line: int | None, name: str, data: dict[str, Any]) -> bytes:
    """One SSE message (``id`` omitted when None)."""
    head = "" if line is None else f"id: {line}\n"
    return f"{head}event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def encode_state(line: int | None, data: dict[str, Any], moves: MoveDicts | None = None
                 ) -> bytes:
    """The ``state`` message of ``data`` (an ``/api/state`` object); ``moves``: the server's
    :class:`pi.web.views.MoveDicts`, whose moves are encoded once, not at every line."""
    listed = data.get("moves")
    if moves is None or not listed:
        return encode(line, "state", data)
    rest = json.dumps({k: v for k, v in data.items() if k != "moves"}, separators=(",", ":"))
    head = "" if line is None else f"id: {line}\n"
    sep = "," if rest != "{}" else ""
    return (f'{head}event: state\ndata: {rest[:-1]}{sep}"moves":{moves.encode(listed)}}}\n\n'
            .encode())


class Socket(Protocol):
    """Where an attached client's messages are written (the response's asyncio transport)."""

    def write(self, data: bytes) -> None: ...

    def is_closing(self) -> bool: ...

    def get_write_buffer_size(self) -> int: ...


@dataclass(eq=False)
class Client:
    """One connected SSE client; ``dropped`` once it fell behind (its handler ends the response).

    Until :meth:`attach` (the response's headers and first messages are being written),
    messages wait in ``queue`` (bounded: ``maxsize`` messages). Once attached, each message goes
    straight to the client's socket (``transport.write``: non-blocking, buffered by asyncio),
    framed as the response's chunked encoding frames it: one write per client and line, no task
    woken for it (100 clients cost one pass over them); a client whose unsent bytes pass
    ``limit`` does not read: it is dropped, never waited for."""

    queue: asyncio.Queue[bytes | None]
    dropped: bool = False
    limit: int = 1 << 20
    transport: Socket | None = None
    chunked: bool = True

    def offer(self, message: bytes) -> None:
        if self.dropped:
            return
        if self.transport is not None:
            self._send(message)
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self._drop(f"fell {self.queue.maxsize} messages behind")

    def attach(self, transport: Socket, chunked: bool) -> None:
        """From now on messages go straight to ``transport``; those waiting go first."""
        self.transport, self.chunked = transport, chunked
        while not self.dropped:
            try:
                message = self.queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            if message is None:  # closed meanwhile: the handler must still see it
                self.queue.put_nowait(None)
                return
            self._send(message)

    def _send(self, message: bytes) -> None:
        transport = self.transport
        assert transport is not None  # attached
        if transport.is_closing():
            self._drop("went away")
            return
        if transport.get_write_buffer_size() > self.limit:
            self._drop(f"left more than {self.limit} bytes unread")
            return
        transport.write(b"%x\r\n%s\r\n" % (len(message), message) if self.chunked
                        else message)

    def _drop(self, why: str) -> None:
        self.dropped = True
        log.info("an SSE client %s: dropped", why)
        self.close()

    def close(self) -> None:
        """Ends the client's response: its handler wakes on None (a message dropped if full)."""
        try:
            if self.queue.full():
                self.queue.get_nowait()
            self.queue.put_nowait(None)
        except (asyncio.QueueEmpty, asyncio.QueueFull):
            pass


@dataclass
class Stream:
    """The recent lines' events of one stream (``keep`` lines) and its clients. ``game`` is the
    id of the game the kept lines belong to (a new game empties the memory)."""

    keep: int = 4096
    game: str | None = None
    lines: deque[tuple[int, list[bytes]]] = field(default_factory=deque)
    clients: set[Client] = field(default_factory=set)
    last: int = 0

    def publish(self, game: str | None, line: int, messages: list[bytes],
                state: bytes | None) -> None:
        """Keeps ``messages`` (without the ``state``, rebuilt on resume) and sends them and
        ``state`` to every client."""
        if game != self.game:
            self.game = game
            self.lines.clear()
        self.lines.append((line, messages))
        while len(self.lines) > self.keep:
            self.lines.popleft()
        self.last = line
        # one queue item and one write per client for the whole line (not one per event)
        whole = b"".join(messages) + (state or b"")
        if whole:
            for client in list(self.clients):
                client.offer(whole)

    def since(self, after: int) -> list[bytes] | None:
        """The kept messages of the lines after ``after``, or None when some are no longer in
        memory."""
        if after >= self.last:
            return []
        if not self.lines or self.lines[0][0] > after + 1:
            return None
        return [m for line, msgs in self.lines if line > after for m in msgs]


def replay_journal_events(trace: Path, after: int) -> Iterator[bytes]:
    """The arbiter stream's events of the lines after ``after``, rebuilt from the journal file
    (the lines older than the memory keeps): the journal replayed through a fresh arbiter, the
    same path as ``damiera replay``. Clock events carry the clock's reading at their line.
    Policy (``engine.replay``): the daemon's — an arbiter failure is logged and its line passed
    over; a line that cannot be read raises ``TraceError`` (the caller then sends the whole
    state instead)."""
    from engine.replay import ContainArbiter, Replay
    from pi.board.journal import read_journal

    replay = Replay.read(read_journal(trace).lines, ContainArbiter(log))
    flag_lines: dict[int, int] = {}
    for fed in replay:
        events = line_events(fed, flag_lines,
                             partial(clock_at, replay.arbiter.clock, replay.last_t, replay.last_t))
        if fed.line > after:
            for name, data in events:
                yield encode(fed.line, name, data)


async def serve_sse(request: web.Request, client: Client, first: bytes,
                    gone: Callable[[], None]) -> web.StreamResponse:
    """The one SSE writer: the response to ``request``, ``first`` (the catch-up) after the
    ``retry`` line, then every message offered to ``client`` until it is closed or dropped, or
    the peer goes away. ``gone``: called once at the end, whatever ended it (the caller forgets
    the client). Messages go straight to the socket once the headers are out
    (:meth:`Client.attach`); only the end comes through the client's queue."""
    response = web.StreamResponse(headers={
        "Content-Type": "text/event-stream", "Cache-Control": "no-cache",
        "X-Accel-Buffering": "no"})
    try:
        await response.prepare(request)
        await response.write(b"retry: 2000\n\n" + first)
        transport = request.transport
        if transport is not None and not response.compression:
            # from here on offers write to the socket itself (framed as aiohttp frames the
            # response: chunked for HTTP/1.1, no Content-Length)
            client.attach(transport, chunked=tuple(request.version) >= (1, 1))
        while not client.dropped:
            # a plain get (no asyncio.wait_for: a task and a timer per message and client);
            # attached, only the end (None) comes this way; the pings come from one task for
            # all (ping_loop)
            msg = await client.queue.get()
            if msg is None:
                break
            await response.write(msg)
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        gone()
    return response


async def ping_loop(every: float, clients: Callable[[], Iterable[Client]]) -> None:
    """:data:`PING` to every client of ``clients()`` every ``every`` seconds (keeps proxies and
    phones from closing a quiet stream; a client that does not read fills up and is dropped).
    One task for all the clients of a server."""
    while True:
        await asyncio.sleep(every)
        for client in list(clients()):
            client.offer(PING)


def monotonic() -> float:
    return time.monotonic()
