"""The live feeds: every journal line becomes SSE events, kept in memory for resume and fanned
out to per-client bounded queues (a client that does not keep up is dropped, never waited for).

Two streams of a board: the arbiter's (everything, live) and the public one (the broadcast
policy of ``pi/web/API.md``: moves under a pending irregularity held, an optional delay). The
one SSE writer (:func:`serve_sse`) and the one pinger (:func:`ping_loop`) serve them and the
hall's stream (``pi.hall.hall_http``) alike.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Protocol

from aiohttp import web

from engine.replay import Fed
from engine.trace import split_lines
from pi.board.view import BoardView
from pi.web.httputil import read, whole_lines
from pi.web.views import (COMPACT, NOTE_CODE, JsonOnce, PublicSnapshot, RecordDicts,
                          board_snapshot, broadcast_pdn, changes_clock, clock_at, clock_dict,
                          journal_snapshot, line_events, note_flags, public_events, state_dict)

log = logging.getLogger(__name__)

__all__ = ["Client", "SseSource", "Socket", "Stream", "LiveFeeds", "encode", "encode_text",
           "encode_state",
           "replay_journal_events", "serve_sse", "ping_loop", "PING", "chunk"]

#: The SSE comment every client gets every ``ping`` seconds.
PING = b": ping\n\n"


def chunk(message: bytes) -> bytes:
    """``message`` framed as one chunk of HTTP/1.1's chunked encoding (as aiohttp frames a
    response's writes): made once per line, the same bytes written to every client."""
    return b"%x\r\n%s\r\n" % (len(message), message)


PING_CHUNK = chunk(PING)


def encode(line: int | None, name: str, data: dict[str, Any]) -> bytes:
    """One SSE message (``id`` omitted when None)."""
    return encode_text(line, name, COMPACT.encode(data))


def encode_text(line: int | None, name: str, text: str) -> bytes:
    """One SSE message whose data is ``text``, JSON already encoded on one line."""
    head = "" if line is None else f"id: {line}\n"
    return f"{head}event: {name}\ndata: {text}\n\n".encode()


#: The state's lists whose items :class:`pi.web.views.JsonOnce` encodes once each.
_LISTS = ("moves", "flags")


def encode_state(line: int | None, data: dict[str, Any], texts: JsonOnce | None = None
                 ) -> bytes:
    """The ``state`` message of ``data`` (an ``/api/state`` object); ``texts``: the server's
    :class:`pi.web.views.JsonOnce`, whose moves and flags are encoded once, not at every
    line (they are then written last in the object)."""
    if texts is None:
        return encode(line, "state", data)
    rest = COMPACT.encode({k: v for k, v in data.items() if k not in _LISTS})
    lists = ",".join(f'"{k}":{texts.array(k, data[k])}' for k in _LISTS if k in data)
    head = "" if line is None else f"id: {line}\n"
    sep = "," if rest != "{}" and lists else ""
    return f"{head}event: state\ndata: {rest[:-1]}{sep}{lists}}}\n\n".encode()


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

    def offer(self, message: bytes, framed: bytes | None = None) -> None:
        """``message`` to the client; ``framed``: its :func:`chunk`, when the caller made it
        once for all its clients."""
        if self.dropped:
            return
        if self.transport is not None:
            self._send(message, framed)
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

    def _send(self, message: bytes, framed: bytes | None = None) -> None:
        transport = self.transport
        assert transport is not None  # attached
        if transport.is_closing():
            self._drop("went away")
            return
        if transport.get_write_buffer_size() > self.limit:
            self._drop(f"left more than {self.limit} bytes unread")
            return
        if self.chunked:
            transport.write(chunk(message) if framed is None else framed)
        else:
            transport.write(message)

    def _drop(self, why: str) -> None:
        self.dropped = True
        log.info("an SSE client %s: dropped", why)
        self.close()

    async def next(self) -> bytes | None:
        """What the writer sends next (None: the end). Attached, only the end comes this way:
        a plain get (no ``asyncio.wait_for``: a task and a timer per message and client); the
        pings come from one task for all (:func:`ping_loop`)."""
        if self.dropped:
            return None
        return await self.queue.get()

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
    """The recent lines' events of one stream (``keep`` lines) and its clients. ``game_id`` is the
    id of the game the kept lines belong to (a new game empties the memory)."""

    keep: int = 4096
    game_id: str | None = None
    lines: deque[tuple[int, list[bytes] | LazyLine]] = field(default_factory=deque)
    clients: set[Client] = field(default_factory=set)
    last: int = 0

    def publish(self, game_id: str | None, line: int, messages: list[bytes],
                state: bytes | None) -> None:
        """Keeps ``messages`` (without the ``state``, rebuilt on resume) and sends them and
        ``state`` to every client."""
        self._keep(game_id, line, messages)
        # one queue item and one write per client for the whole line (not one per event),
        # the same bytes for all: joined and framed once
        whole = b"".join(messages) + (state or b"")
        if whole and self.clients:
            framed = chunk(whole)
            for client in list(self.clients):
                client.offer(whole, framed)

    def publish_events(self, game_id: str | None, line: int,
                       events: list[tuple[str, dict[str, Any]]],
                       state: Callable[[], bytes] | None = None) -> None:
        """:meth:`publish` of line ``line``'s ``events`` (name, data), encoded only when a
        client is there to take them: otherwise kept as they are and encoded if a resuming
        client asks for them (a hub's board nobody watches costs no JSON). ``state``: the
        line's ``state`` message, asked only when there are clients."""
        if self.clients:
            self.publish(game_id, line, [encode(line, n, d) for n, d in events],
                         None if state is None else state())
        else:
            self._keep(game_id, line, LazyLine(line, events) if events else [])

    def _keep(self, game_id: str | None, line: int, messages: list[bytes] | LazyLine) -> None:
        if game_id != self.game_id:
            self.game_id = game_id
            self.lines.clear()
        self.lines.append((line, messages))
        while len(self.lines) > self.keep:
            self.lines.popleft()
        self.last = line

    def since(self, after: int) -> list[bytes] | None:
        """The kept messages of the lines after ``after``, or None when some are no longer in
        memory."""
        if after >= self.last:
            return []
        if not self.lines or self.lines[0][0] > after + 1:
            return None
        return [m for line, msgs in self.lines if line > after
                for m in (msgs if isinstance(msgs, list) else msgs.messages())]


class LazyLine:
    """A kept line's events, encoded the first time a resuming client needs them."""

    __slots__ = ("line", "events", "_messages")

    def __init__(self, line: int, events: list[tuple[str, dict[str, Any]]]) -> None:
        self.line = line
        self.events: list[tuple[str, dict[str, Any]]] | None = events
        self._messages: list[bytes] | None = None

    def messages(self) -> list[bytes]:
        if self._messages is None:
            self._messages = [encode(self.line, n, d) for n, d in self.events or ()]
            self.events = None
        return self._messages


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


class SseSource(Protocol):
    """What :func:`serve_sse` writes: a board stream's :class:`Client` (messages straight to
    the socket once attached), or a hall page (``pi.hall.hall_http.HallClient``: what waits
    coalesced, written through the response so that a slow page is waited for, not dropped)."""

    def attach(self, transport: Socket, chunked: bool) -> None:
        """The headers are out: ``transport`` may take messages directly from now on."""

    async def next(self) -> bytes | None:
        """The next bytes to write through the response; None ends the stream."""


async def serve_sse(request: web.Request, source: SseSource, first: bytes,
                    gone: Callable[[], None]) -> web.StreamResponse:
    """The one SSE writer: the response to ``request``, ``first`` (the catch-up) after the
    ``retry`` line, then what ``source`` gives until it ends or the peer goes away. ``gone``:
    called once at the end, whatever ended it (the caller forgets the source)."""
    response = web.StreamResponse(headers={
        "Content-Type": "text/event-stream", "Cache-Control": "no-cache",
        "X-Accel-Buffering": "no"})
    try:
        await response.prepare(request)
        await response.write(b"retry: 2000\n\n" + first)
        transport = request.transport
        if transport is not None and not response.compression:
            # framed as aiohttp frames the response: chunked for HTTP/1.1, no Content-Length
            source.attach(transport, chunked=tuple(request.version) >= (1, 1))
        while True:
            msg = await source.next()
            if msg is None:
                break
            if msg:
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
            client.offer(PING, PING_CHUNK)


#: Journal lines that change the broadcast view only through a decision (a sensor's lift or
#: place, a crown put on or off: the record, the flags and the clock move by decisions alone).
_SENSOR_LINES = frozenset({"lift", "place", "piece"})


def _unchanged_view(board: BoardView, fed: Fed, prev: PublicSnapshot | None
                    ) -> PublicSnapshot | None:
    """The broadcast view after line ``fed`` without rebuilding it, when the line cannot have
    changed it (a lift or place that decided nothing): ``prev`` as :func:`pi.web.views.
    public_snapshot` would have made it again (the same moves, position, result and clock;
    this line's number; ``prev`` itself while it holds a move back). None: build it."""
    if prev is None or fed.decisions or fed.record.get("type") not in _SENSOR_LINES:
        return None
    g = board.game
    if g is None or prev.tags.get("_id") != g.id:
        return None
    if prev.held:
        return prev
    return prev.dated(fed.line, time.time())


class _ReadOnce:
    """``read()`` called at most once, its answer kept: the clock of one journal line, which
    the arbiter's clock event, the broadcast view and the public clock event all show (one
    reading of one instant, not one each)."""

    __slots__ = ("_read", "_value", "_done")

    def __init__(self, read: Callable[[], dict[str, Any] | None]) -> None:
        self._read = read
        self._value: dict[str, Any] | None = None
        self._done = False

    def __call__(self) -> dict[str, Any] | None:
        if not self._done:
            self._value, self._done = self._read(), True
        return self._value


def monotonic() -> float:
    return time.monotonic()


class LiveFeeds:
    """A board's journal lines as live feeds: the arbiter's stream (every line) and the
    public one (the broadcast view: a move held while an irregularity is pending, COMP 6.16
    notes kept private, ``delay`` seconds late when a broadcast delay is set), with what a new
    client is sent first. :meth:`on_fed` is the board's listener (on the loop's thread); the
    web server (``pi.web.server``) and the hub's board pages serve what it keeps."""

    def __init__(self, board: BoardView, delay: float = 0.0,
                 broadcast: Callable[[], tuple[str, float] | None] | None = None) -> None:
        """``broadcast``: what :meth:`broadcast` serves instead of the broadcast view's PDN
        (the hall's feed of a board, with its round's tags)."""
        self.board = board
        self.delay = delay
        self._broadcast = broadcast
        self.arbiter_stream = Stream()
        self.public_stream = Stream()
        self._release: asyncio.Task[None] | None = None
        self._pinger: asyncio.Task[None] | None = None
        self.flag_lines: dict[int, int] = {}
        self.moves = RecordDicts()  # the game's move and flag dicts, made once each
        self.texts = JsonOnce()  # their JSON and the flags', made once each
        self.last_line = 0
        self.last_record: dict[str, Any] | None = None
        self.snapshot: PublicSnapshot | None = None
        #: the game's notes: flag id → public (COMP 6.16; None: unknown, all kept private)
        self.notes: dict[int, bool] | None = {}
        self.public_state: dict[str, Any] | None = None
        self._delayed: deque[tuple[float, int, str | None, list[bytes], dict[str, Any] | None,
                                   PublicSnapshot | None]] = deque()
        self.public_snap: PublicSnapshot | None = None

    def prime(self) -> None:
        """Picks up a game resumed before the server started: its line count and broadcast view
        (the lines themselves are read back from the journal by a resuming client). With an
        irregularity pending, the broadcast view is derived from the journal
        (:func:`pi.web.views.journal_snapshot`): the held move stays held after a restart."""
        g = self.board.game
        if g is None:
            return
        line = g.line
        self.last_line = line
        self.snapshot = board_snapshot(self.board, line, None, self.moves)
        held = g.arbiter.pending is not None or any(
            f.kind == "irregularity" and f.status == "pending" for f in g.arbiter.flags)
        if held or any(f.code == NOTE_CODE for f in g.arbiter.flags):
            try:
                text = whole_lines(read(g.trace)).decode("utf-8")
                view = journal_snapshot(g.id, split_lines(text))
                self.snapshot, self.notes = view.snapshot, view.notes
            except (OSError, ValueError) as exc:  # say so; the notes kept private
                self.notes = None
                log.error("broadcast view not derived from the journal (%s): %s", exc,
                          "the pending move is shown" if held else "notes kept private")
        self.public_snap = self.snapshot
        for stream in (self.arbiter_stream, self.public_stream):
            stream.game_id, stream.last = g.id, line

    def on_fed(self, fed: Fed, received: float | None = None) -> None:
        """Listener: one journaled line (on the loop's thread). Builds its events, keeps them,
        offers them to the clients. ``received``:
        when the line happened (``time.monotonic()`` clock; default now), for the delay."""
        c = self.board
        game_id = None if c.game is None else c.game.id
        if fed.line == 1:
            self.flag_lines = {}
            self.notes = {}
        if self.notes is not None:
            note_flags(fed, self.notes)
        self.last_line = fed.line
        self.last_record = fed.record
        clock = _ReadOnce(self.clock_now)
        events = line_events(fed, self.flag_lines, clock)
        # nobody listening: no state built and nothing encoded (the board's time, the hub's
        # CPU); the events are kept for a resuming client and encoded if one asks
        self.arbiter_stream.publish_events(game_id, fed.line, events, partial(
            self._state_message, fed.line, fed.record))
        # the public stream: events derived from the broadcast view (held moves stay out)
        prev = self.snapshot
        snap = _unchanged_view(c, fed, prev)
        if snap is None:
            snap = board_snapshot(c, fed.line, prev, self.moves, changes_clock(fed), clock)
        self.snapshot = snap
        pub = public_events(fed, events, prev, snap, clock, self.notes)
        if self.delay > 0:
            pub_state = state_dict(c, fed.line, arbiter_view=False, snap=snap, last_record=None,
                                   flag_lines=self.flag_lines, cache=self.moves,
                                   notes=self.notes)
            pub_msgs = [encode(fed.line, n, d) for n, d in pub]
            at = time.monotonic() if received is None else received
            self._delayed.append((at, fed.line, game_id, pub_msgs, pub_state, snap))
        else:
            self.public_snap = snap
            self.public_stream.publish_events(game_id, fed.line, pub, partial(
                self._public_state_message, fed.line, snap))

    def _state_message(self, line: int, record: dict[str, Any]) -> bytes:
        """The arbiter stream's ``state`` message after line ``line`` (``record``)."""
        return encode_state(line, state_dict(
            self.board, line, arbiter_view=True, snap=None, last_record=record,
            flag_lines=self.flag_lines, cache=self.moves), self.texts)

    def _public_state_message(self, line: int, snap: PublicSnapshot | None) -> bytes:
        """The public stream's ``state`` message after line ``line`` (no delay: live)."""
        return encode_state(line, state_dict(
            self.board, line, arbiter_view=False, snap=snap, last_record=None,
            flag_lines=self.flag_lines, cache=self.moves, notes=self.notes), self.texts)

    def _public_publish(self, line: int, game_id: str | None, msgs: list[bytes],
                        state: dict[str, Any] | None, snap: PublicSnapshot | None) -> None:
        if self.delay > 0:
            self.public_state = state
        self.public_snap = snap
        self.public_stream.publish(game_id, line, msgs,
                                   None if state is None else encode_state(line, state,
                                                                           self.texts))

    async def release_loop(self) -> None:
        """Hands the delayed public lines out once ``delay`` seconds old (runs until cancelled)."""
        while True:
            now = time.monotonic()
            while self._delayed and now - self._delayed[0][0] >= self.delay:
                _, line, game_id, msgs, state, snap = self._delayed.popleft()
                self._public_publish(line, game_id, msgs, state, snap)
            await asyncio.sleep(1.0)

    def clients(self) -> list[Client]:
        """Every live client of both streams."""
        return [*self.arbiter_stream.clients, *self.public_stream.clients]

    def start(self, ping: float) -> None:
        """Starts the clients' pings every ``ping`` seconds, and releasing the delayed public
        lines (when a broadcast delay is set); again: nothing more. RuntimeError (and nothing
        made) without a running loop."""
        loop = asyncio.get_running_loop()
        if self.delay > 0 and self._release is None:
            self._release = loop.create_task(self.release_loop())
        if self._pinger is None:
            self._pinger = loop.create_task(ping_loop(ping, self.clients))

    def stop(self) -> None:
        """Stops what :meth:`start` started and closes every live client."""
        for task in (self._release, self._pinger):
            if task is not None:
                task.cancel()
        self._release = self._pinger = None
        for c in self.clients():
            c.close()

    def state(self, arbiter_view: bool) -> dict[str, Any]:
        """The ``/api/state`` object as the arbiter or the public sees it now."""
        c = self.board
        if arbiter_view or self.delay <= 0:
            return state_dict(c, self.last_line, arbiter_view=arbiter_view,
                              snap=None if arbiter_view else self.snapshot,
                              last_record=self.last_record, flag_lines=self.flag_lines,
                              cache=self.moves, notes=self.notes)
        if self.public_state is not None:
            return dict(self.public_state)
        # delayed and nothing old enough yet: the game's start, no moves, no flags
        out = state_dict(c, 0, arbiter_view=False, snap=None, last_record=None, flag_lines={})
        game = None if c.game is None else c.game.arbiter.game
        out.update(moves=[], flags=[], result="*", result_reason=None, squares_to_fix=[],
                   fen=None if game is None else game.start_fen)
        return out

    def public_pdn_snapshot(self) -> PublicSnapshot | None:
        """The broadcast view as the public has it now (``/broadcast.pdn``)."""
        if self.delay > 0:
            return self.public_snap
        return self.snapshot

    def broadcast(self) -> tuple[str, float] | None:
        """The broadcast PDN (``/broadcast.pdn``) and when it last changed; None: no game."""
        if self._broadcast is not None:
            return self._broadcast()
        snap = self.public_pdn_snapshot()
        g = self.board.game
        if snap is None or g is None:
            return None
        return broadcast_pdn(snap, g.variant), snap.wall

    def stream_state(self, arbiter_view: bool, line: int) -> dict[str, Any]:
        """:meth:`state` as a stream's ``state`` event of ``line`` carries it."""
        state = self.state(arbiter_view)
        state["line"] = line
        return state

    def clock_now(self) -> dict[str, Any] | None:
        """The board's ``clock`` object now (API.md)."""
        return clock_dict(self.board)
