"""The hub's public live streams handed to nginx's nchan module, which fans them out to every
spectator past the hall's network (docs/organiser.md, "Spectators past the hall's network";
``damiera hub init`` writes nginx's configuration, ``hub.toml``'s ``nchan`` names its publisher).

The hub publishes each event once, an HTTP POST over loopback to nchan's publisher
(``<nchan>/pub/<channel>``, the event's name in ``X-EventSource-Event``, its JSON as the body);
nchan serves every subscriber as EventSource at the URLs the pages use (``/events``,
``/boards/<N>/events``), so a page works the same behind nginx and straight from the hub, whose
own streams stay as they are. Two kinds of channel:

- ``hall``: the hall page's public stream (HUB_API.md ``GET /events``), always published: the
  publisher is one page of the hub's (:class:`pi.hall.hall_http.HallClient`, the public side),
  its summaries coalesced per board while a POST is on its way, as a slow page's are.
- ``board-<N>``: board N's public stream (``/boards/<N>/events``), published while nchan has
  subscribers for it: nchan's subscribe hook (``GET /nchan/watch/<N>``, internal to nginx)
  starts it — the board's current ``state`` first, then every line's events as its own
  clients get them (a :class:`pi.web.feeds.Client` on the board's public stream); a board
  asked for before the hub heard of it is started when it is (:meth:`NchanFeed.on_board`, a
  hub listener) — and a publish that nchan answers with no subscriber left stops it (nothing
  built for a board nobody watches).

Events go out in order per channel, channels concurrently. While nchan does not answer (nginx
stopped), what would be published is dropped and said once in the log; the hub's own pages are
unaffected. Everything runs on the hub's event loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Callable, Protocol

import aiohttp
from aiohttp import web

from pi.hall.hall_http import HallClient
from pi.hall.protocol import parse_board
from pi.web.server import Client, LiveFeeds, encode
from pi.web.httputil import http

log = logging.getLogger(__name__)

__all__ = ["NchanPublisher", "NchanFeed", "split_events", "HALL_CHANNEL", "board_channel",
           "WATCH_PATH", "RETRY_AFTER", "MAX_PENDING"]

#: The hall page's channel.
HALL_CHANNEL = "hall"
#: The hub's route that nchan's subscribe hook asks (``/nchan/watch/<board>``).
WATCH_PATH = "/nchan/watch/{board}"
#: Seconds without publishing after nchan did not answer (then one POST tries again).
RETRY_AFTER = 5.0
#: Bytes waiting for one channel at most: past it the board's tap is dropped (as a page that
#: does not read is) and started again by the next subscriber.
MAX_PENDING = 1 << 20
#: Boards asked for before the hub heard of them, remembered at most (the oldest forgotten).
MAX_WANTED = 10_000
#: Seconds one POST may take.
POST_TIMEOUT = 10.0
#: POSTs on their way at once (connections to nchan's publisher).
CONNECTIONS = 16


def board_channel(board: int) -> str:
    """Board ``board``'s channel (nginx's site names it ``board-$1`` from the URL)."""
    return f"board-{board}"


def split_events(data: bytes) -> list[tuple[str, str]]:
    """The ``(event, data)`` of each SSE message of ``data`` as :func:`pi.web.feeds.encode_text`
    writes them (``id``, ``event``, one ``data`` line, a blank line): what the hub's streams
    send, taken apart for nchan, which writes its own ``id``. Comments (pings) are left out;
    a message without a name is a ``message``."""
    out = []
    for block in data.decode("utf-8").split("\n\n"):
        name, text = "message", None
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                text = line[6:]
        if text is not None:
            out.append((name, text))
    return out


class NchanPublisher:
    """POSTs to nchan's publisher at ``url`` (``http://127.0.0.1:PORT``), in order per channel.
    ``answered(channel, subscribers, sent_at)`` is told nchan's count of a channel's
    subscribers after each POST (``sent_at``: ``time.monotonic()`` when it was sent)."""

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self._waiting: dict[str, deque[tuple[str, str]]] = {}
        self._bytes: dict[str, int] = {}
        self._senders: dict[str, asyncio.Task[None]] = {}
        self._session: aiohttp.ClientSession | None = None
        self._down_until = 0.0
        self.answered: list[AnsweredListener] = []
        #: events nchan took, and those dropped while it did not answer (the benchmark's)
        self.published = 0
        self.dropped = 0

    def publish(self, channel: str, event: str, data: str) -> None:
        """Event ``event`` with ``data`` (one line of JSON) to ``channel``'s subscribers, after
        what waits for that channel."""
        if self._session is None or time.monotonic() < self._down_until:
            self.dropped += 1
            return
        self._waiting.setdefault(channel, deque()).append((event, data))
        self._bytes[channel] = self._bytes.get(channel, 0) + len(data)
        if channel not in self._senders:
            self._senders[channel] = asyncio.get_running_loop().create_task(self._send(channel))

    def pending(self, channel: str) -> int:
        """Bytes of ``channel``'s events not yet taken by nchan."""
        return self._bytes.get(channel, 0)

    async def start(self) -> None:
        self._session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=CONNECTIONS),
            timeout=aiohttp.ClientTimeout(total=POST_TIMEOUT))

    async def close(self) -> None:
        for task in list(self._senders.values()):
            task.cancel()
        self._senders.clear()
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def _send(self, channel: str) -> None:
        waiting = self._waiting[channel]
        url = f"{self.url}/pub/{channel}"
        try:
            while waiting and self._session is not None:
                event, data = waiting.popleft()
                self._bytes[channel] -= len(data)
                sent = time.monotonic()
                try:
                    async with self._session.post(url, data=data.encode("utf-8"), headers={
                            "X-EventSource-Event": event, "Accept": "application/json",
                            "Content-Type": "application/json"}) as r:
                        answer = await r.json(content_type=None) if r.status < 300 else None
                        if answer is None:
                            raise aiohttp.ClientResponseError(
                                r.request_info, (), status=r.status, message=r.reason or "")
                except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as exc:
                    self.dropped += 1
                    self._gone(exc)
                    return
                self.published += 1
                subscribers = answer.get("subscribers") if isinstance(answer, dict) else None
                if isinstance(subscribers, int):
                    for listener in self.answered:
                        listener(channel, subscribers, sent)
        finally:
            self._senders.pop(channel, None)
            if not waiting:
                self._waiting.pop(channel, None)
                self._bytes.pop(channel, None)

    def _gone(self, exc: BaseException) -> None:
        """nchan did not answer: what waits is dropped and nothing is published for
        :data:`RETRY_AFTER` seconds (said once per outage)."""
        if time.monotonic() >= self._down_until + RETRY_AFTER:
            log.warning("nginx's nchan publisher at %s does not answer (%s): the spectators "
                        "behind nginx get no live events until it does", self.url,
                        str(exc) or type(exc).__name__)
        self._down_until = time.monotonic() + RETRY_AFTER
        for channel, waiting in self._waiting.items():
            self.dropped += len(waiting)
            waiting.clear()
            self._bytes[channel] = 0


class AnsweredListener(Protocol):
    def __call__(self, channel: str, subscribers: int, sent_at: float) -> None: ...


class _ChannelSocket:
    """Where a board's tap (a :class:`pi.web.feeds.Client`, attached unchunked) writes: each
    SSE message it is given goes to the board's channel."""

    def __init__(self, publisher: NchanPublisher, channel: str) -> None:
        self.publisher = publisher
        self.channel = channel

    def write(self, data: bytes) -> None:
        for event, text in split_events(data):
            self.publisher.publish(self.channel, event, text)

    def is_closing(self) -> bool:
        return False

    def get_write_buffer_size(self) -> int:
        return self.publisher.pending(self.channel)


class NchanFeed:
    """The hall's channel and the watched boards' channels (module docstring), published by
    ``publisher`` from ``hall_clients`` (the hub's hall pages: the feed's page joins them) and
    the boards' feeds (``feeds_of(board)``: None for a board the hub does not know)."""

    def __init__(self, publisher: NchanPublisher, hall_clients: set[HallClient],
                 feeds_of: Callable[[int], LiveFeeds | None]) -> None:
        self.publisher = publisher
        self.hall_clients = hall_clients
        self.feeds_of = feeds_of
        self.taps: dict[int, tuple[Client, LiveFeeds]] = {}
        #: board → when nchan last said it has a new subscriber (``time.monotonic()``)
        self.watched: dict[int, float] = {}
        #: boards asked for that the hub has not heard of yet (oldest first)
        self.wanted: dict[int, None] = {}
        self._page: HallClient | None = None
        self._drain: asyncio.Task[None] | None = None
        publisher.answered.append(self._answered)

    def routes(self, app: web.Application) -> None:
        """The subscribe hook's route (``GET /nchan/watch/<board>``) added to the hub's app."""
        app.router.add_get(WATCH_PATH, self._watch_route)

    async def start(self) -> None:
        await self.publisher.start()
        self._page = HallClient(False)
        self.hall_clients.add(self._page)
        self._drain = asyncio.get_running_loop().create_task(self._drain_hall(self._page))

    async def stop(self) -> None:
        if self._drain is not None:
            self._drain.cancel()
        if self._page is not None:
            self.hall_clients.discard(self._page)
            self._page.close()
        for board in list(self.taps):
            self.unwatch(board)
        await self.publisher.close()

    async def _drain_hall(self, page: HallClient) -> None:
        """The hall page's events to the hall's channel: what waits is taken once the events
        before it are on their way (a summary replaced meanwhile is sent once, newest)."""
        while True:
            data = await page.next()
            if data is None:
                return
            for event, text in split_events(data):
                self.publisher.publish(HALL_CHANNEL, event, text)
            while self.publisher.pending(HALL_CHANNEL):
                await asyncio.sleep(0.01)

    async def _watch_route(self, request: web.Request) -> web.Response:
        board = parse_board(request.match_info["board"])
        if board is None:
            raise http(404, "no such board")
        if not self.watch(board):  # published once the hub hears of it
            self.wanted[board] = None
            while len(self.wanted) > MAX_WANTED:
                del self.wanted[next(iter(self.wanted))]
        return web.Response(status=204)

    def on_board(self, board: int, feds: object) -> None:
        """Hub listener (``Hub.listeners``): a board asked for before the hub knew it is
        published from now on."""
        if board in self.wanted and board not in self.taps:
            del self.wanted[board]
            self.watch(board)

    def watch(self, board: int) -> bool:
        """A subscriber came for ``board``'s channel: its tap started (its current ``state``
        published first) unless it runs. False: no such board."""
        feeds = self.feeds_of(board)
        if feeds is None:
            return False
        self.watched[board] = time.monotonic()
        tap = self.taps.get(board)
        if tap is not None and not tap[0].dropped and tap[1] is feeds:
            return True
        if tap is not None:
            self.unwatch(board)
        socket = _ChannelSocket(self.publisher, board_channel(board))
        client = Client(asyncio.Queue(maxsize=1), limit=MAX_PENDING)
        stream = feeds.public_stream
        line = stream.last
        socket.write(encode(line if line else None, "state", feeds.stream_state(False, line)))
        client.attach(socket, chunked=False)
        stream.clients.add(client)
        self.taps[board] = (client, feeds)
        return True

    def unwatch(self, board: int) -> None:
        """``board``'s tap stopped (nchan has no subscriber for it)."""
        tap = self.taps.pop(board, None)
        if tap is not None:
            tap[1].public_stream.clients.discard(tap[0])

    def _answered(self, channel: str, subscribers: int, sent_at: float) -> None:
        if subscribers or not channel.startswith("board-"):
            return
        board = parse_board(channel[len("board-"):])
        # no subscriber came since it was sent
        if board is not None and sent_at > self.watched.get(board, 0.0):
            self.unwatch(board)
