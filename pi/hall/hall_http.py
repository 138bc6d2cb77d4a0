"""The hub's HTTP server (``pi/hall/HUB_API.md``): the hall (summaries, live stream, flags,
pairings, results), the round feeds, and every board's own interface under ``/boards/<N>/``:
the board's own routes (``pi.web.server``) over the parts of its replica
(``pi.hall.boardview.ReplicaPages``).

The rules are the board's (``pi/web/API.md``), by the same parts: :class:`HallServer` serves on
a :class:`pi.web.site.Site` (its error middleware: short JSON 4xx/503, never a 500; CORS,
same-origin POSTs) with the hub's :class:`pi.web.auth.ArbiterAuth` (the token
``DIR/arbiter.token``, its throttle, the login cookie), the board's routes included.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any, Protocol

from aiohttp import web

from engine.replay import Fed
from pi.hall.errors import PairingError
from pi.hall.hub import TICK, Hub
from pi.hall.protocol import MAX_BOARD, SEGMENT, parse_board
from pi.hall.rounds import (event_feed, event_standings, pairing_command, parse_pairings,
                            results, results_csv, round_feed, round_order)
from pi.board.view import Phase
from pi.web.site import ArbiterAuth
from pi.web.server import (PDN, PING, BoardParts, BoardRoutes, Socket, clock_dict, encode,
                           serve_sse)
from pi.web.httputil import conditional, http
from pi.web.i18n import catalog_response
from pi.web.site import STATIC, Handler, Site, page, static_files

log = logging.getLogger(__name__)

__all__ = ["HallServer", "HallClient", "HALL_STATIC", "MAX_CSV", "MAX_EVENTS", "summary_key",
           "HallSite", "add_hall_routes", "read_pairings", "Shown", "admit_hall_client",
           "first_event_id", "hall_event", "catch_up"]

HALL_STATIC = Path(__file__).parent / "static"
#: A pairings upload larger than this is refused (a 9-round, 500-board event is ~200 kB).
MAX_CSV = 1024 * 1024
#: Flag and alarm events waiting for one slow hall client; past this it is closed (its page
#: reconnects and is sent the whole hall at once). Board summaries wait coalesced: one per board.
MAX_EVENTS = 10_000
#: A board's messages within this many seconds make one summary (a journal line and the
#: ``state`` that follows it are one change on the hall page, not two).
COALESCE = 0.02
#: The pages are told how far a start's read-back is at most this often (seconds).
READING_EVERY = 0.5
#: Live clients of one board's streams at most (the hub's limit over all boards is its own).
BOARD_MAX_CLIENTS = 200


class HallClient:
    """One page on the hall's live stream. What it has not been sent yet waits here coalesced:
    the newest summary of each board (an older one is replaced, not queued) and the flag and
    alarm events in order. Its writer (:meth:`HallServer.hall_events`) sends all that waits in
    one write, in ``id`` order, and awaits the socket's drain: a page that reads slowly gets the
    newest state of every board when it reads again, and is never dropped for being slow (what
    waits is bounded by the number of boards, and :data:`MAX_EVENTS`)."""

    def __init__(self, arbiter: bool) -> None:
        self.arbiter = arbiter
        self.closed = False
        self.wake = asyncio.Event()
        self._boards: dict[int, tuple[int, bytes]] = {}
        self._events: list[tuple[int, bytes]] = []

    def board(self, board: int, seq: int, message: bytes) -> None:
        """Board ``board``'s summary number ``seq``: replaces the one waiting, if any."""
        self._boards[board] = (seq, message)
        self.wake.set()

    def event(self, seq: int, message: bytes) -> None:
        """A flag or alarm event (never coalesced)."""
        if len(self._events) >= MAX_EVENTS:
            log.info("a hall client left %d events unread: closed (it reconnects)", MAX_EVENTS)
            self.close()
            return
        self._events.append((seq, message))
        self.wake.set()

    def ping(self) -> None:
        """A ping, when nothing else waits (anything waiting keeps the stream alive itself)."""
        if not self._boards and not self._events:
            self._events.append((0, PING))
            self.wake.set()

    def take(self) -> bytes:
        """Everything waiting, in ``id`` order (a page cut mid-write resumes from its last id
        and is sent every board newer than it: nothing is skipped)."""
        waiting = sorted([*self._boards.values(), *self._events], key=lambda x: x[0])
        self._boards, self._events = {}, []
        self.wake.clear()
        return b"".join(m for _, m in waiting)

    def attach(self, transport: Socket, chunked: bool) -> None:
        """Nothing: a hall page's writes go through the response, which waits for the socket
        to drain while what comes meanwhile is coalesced here."""

    async def next(self) -> bytes | None:
        """Everything waiting, once something does (None: closed)."""
        while not self.closed:
            await self.wake.wait()
            data = self.take()
            if data:
                return data
        return None

    def close(self) -> None:
        self.closed = True
        self.wake.set()


class HallServer:
    """See the module docstring. ``max_clients``: hall pages on the live stream at most;
    ``ping``: seconds between two pings of every hall page; ``tick``: seconds between two
    ticks (:meth:`tick_loop`; the tests' hubs tick faster, not to wait a second a tick)."""

    def __init__(self, hub: Hub, host: str, port: int, *, max_clients: int = 500,
                 ping: float = 15.0, tick: float = TICK) -> None:
        self.hub = hub
        self.site = Site(host, port, behind_proxy=hub.config.behind_nginx)
        self.auth = ArbiterAuth(hub.token, hub.throttle)
        self.max_clients = max_clients
        self.ping = ping
        self.tick_every = tick
        self.pairings = hub.pairings
        self._pinger: asyncio.Task[None] | None = None
        self.seq = first_event_id()
        self.shown: Shown = {}
        self.hall_clients: set[HallClient] = set()
        #: boards changed since their summaries were last built (built at the next flush)
        self.dirty: set[int] = set()
        #: per side (arbiter or not): boards changed while that side had no page (built when
        #: a page of that side connects)
        self.stale: dict[bool, set[int]] = {False: set(), True: set()}
        self._flush: asyncio.TimerHandle | None = None
        #: per board in play: its clock's (running, state) at the last tick
        self._clock_key: dict[int, tuple[object, object]] = {}
        #: per board in play: no need to read its clock before this (monotonic) time
        self._clock_due: dict[int, float] = {}
        #: the read-back's progress the pages were last told, and when (:meth:`_say_reading`)
        self._reading_said: dict[str, int] | None = None
        self._reading_at = 0.0
        hub.listeners.append(self.on_board)
        hub.alarm_listeners.append(self.on_alarm)
        #: every board's own routes, under /boards/<N>/ (the board's parts found per request)
        self.boards = BoardRoutes(self.board_parts, self.auth, max_clients=BOARD_MAX_CLIENTS,
                                  hall=True)
        self.app = self._make_hall_app()

    @property
    def host(self) -> str:
        return self.site.host

    @property
    def port(self) -> int:
        return self.site.port

    # ------------------------------------------------------------------ life

    async def start(self, fallback: bool = False) -> None:
        """Listens (:meth:`pi.web.site.Site.listen`) and pings the hall's SSE clients. Raises
        WebError (one line) when the address cannot be had."""
        await self.site.listen(self.app, fallback)
        self._pinger = asyncio.get_running_loop().create_task(
            self._ping_loop())
        log.warning("hall on http://%s:%d/ (arbiter token: damiera token --state-dir %s)",
                    self.host, self.port, self.hub.root)

    async def stop(self) -> None:
        if self._pinger is not None:
            self._pinger.cancel()
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        for client in list(self.hall_clients):
            client.close()
        for ws in self.hub.servers.values():
            await ws.stop()
        await self.site.close()

    # ------------------------------------------------------------------ the hall's stream

    def on_board(self, board: int, feds: list[Fed]) -> None:
        """Hub listener: a board's messages were taken; its flags go out, its summaries at
        the next flush (one per board and side however many messages came meanwhile)."""
        self.dirty.add(board)
        if any(_may_change_clock(fed) for fed in feds):
            self._clock_due.pop(board, None)  # its clock may have started or stopped
        if self._flush is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # no loop (a synchronous caller): built now
                self.flush()
            else:
                self._flush = loop.call_later(COALESCE, self.flush)
        events = self.hub.flag_events(board, feds)
        for data in events:
            self.seq += 1
            msg = encode(self.seq, "flag", data)
            for client in list(self.hall_clients):
                if client.arbiter:
                    client.event(self.seq, msg)

    def on_alarm(self, alarm: dict[str, Any]) -> None:
        """Hub alarm listener: an ``alarm`` event to the arbiter's streams (HUB_API.md)."""
        self.seq += 1
        msg = encode(self.seq, "alarm", alarm)
        for client in list(self.hall_clients):
            if client.arbiter:
                client.event(self.seq, msg)

    def flush(self) -> None:
        """The summaries of the boards changed since the last flush, built and sent; then the
        read-back's progress if it moved on."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        dirty, self.dirty = self.dirty, set()
        if self.hub.unread:  # not summed before it is read back (then it is marked again)
            dirty -= self.hub.unread.keys()
        if dirty:
            sides = {client.arbiter for client in self.hall_clients}  # once, not per board
            for board in sorted(dirty):
                self.publish_board(board, sides)
        self._say_reading()

    def _say_reading(self) -> None:
        """A ``hall`` event to every page when the start's read-back moved on (at most every
        :data:`READING_EVERY` seconds) and when it ends (HUB_API.md)."""
        now = self.hub.reading_back()
        if now == self._reading_said or (
                now is not None and time.monotonic() - self._reading_at < READING_EVERY):
            return
        self._reading_said, self._reading_at = now, time.monotonic()
        self.seq += 1
        msg = hall_event(self.seq, now)
        for client in list(self.hall_clients):
            client.event(self.seq, msg)

    def publish_board(self, board: int, sides: set[bool] | None = None) -> None:
        """Board ``board``'s summaries, for each side with a page connected (a side without
        one: built when one connects). ``sides``: the sides with a page, when the caller knows
        them (a flush of many boards)."""
        if sides is None:
            sides = {client.arbiter for client in self.hall_clients}
        for arbiter in (False, True):
            if arbiter not in sides:
                self.stale[arbiter].add(board)
                continue
            self.stale[arbiter].discard(board)
            s = self.hub.summary(board, arbiter)
            key = summary_key(s)
            old = self.shown.get((board, arbiter))
            if old is not None and old[1] == key:
                continue
            self.seq += 1
            self.shown[(board, arbiter)] = (self.seq, key, s)
            msg = encode(self.seq, "board", s)
            for client in list(self.hall_clients):
                if client.arbiter == arbiter:
                    client.board(board, self.seq, msg)

    async def tick_loop(self) -> None:
        """Every ``tick`` s (a second): resends retried, delayed public views released, and
        the boards whose summaries time changes re-summed: a board shown with a broadcast
        delay (its public view is released by time), a board whose clock started, stopped or
        ran out (the page ticks a running clock itself). Messages re-sum a board as they
        come."""
        while True:
            await asyncio.sleep(self.tick_every)
            try:
                self.hub.tick()
                self.hub.rounds.tick()
                self.tick()
            except Exception:
                log.exception("hall tick failed")

    def tick(self) -> None:
        """See :meth:`tick_loop`: the boards time changes, re-summed."""
        delayed = self.hub.config.broadcast_delay > 0
        now = time.monotonic()
        sides = {client.arbiter for client in self.hall_clients}
        for board, view in self.hub.views.items():
            if view.phase != Phase.PLAYING:
                if self._clock_key.pop(board, None) is not None:
                    self.dirty.add(board)
                continue
            if delayed:
                self.dirty.add(board)
                continue
            if now < self._clock_due.get(board, now):
                continue  # its running clock cannot have run out yet
            clock = clock_dict(view)
            key = (None, None) if clock is None else (clock["running"], clock["state"])
            if self._clock_key.get(board) != key:
                self._clock_key[board] = key
                if board not in self.dirty and not self._shows_clock(board, key, sides):
                    self.dirty.add(board)
            left = None if clock is None or clock["running"] is None else \
                clock.get(clock["running"])
            if isinstance(left, (int, float)) and left > 1.0:
                # nothing but a journal line (which re-sums the board) changes it before then
                self._clock_due[board] = now + left - 1.0
        self.flush()

    def _shows_clock(self, board: int, key: tuple[object, object], sides: set[bool]) -> bool:
        """Board ``board``'s summaries already show its clock's (running, state) ``key`` on
        every side with a page (``sides``), as a summary made now would: the tick need not make
        them again. A board not dirty changed by no message since its summaries were made, and
        nothing but its clock changes them by time (``last_heard`` is no part of the key), so
        they would come out the same and send nothing; a side without a page gets the board
        marked stale, as :meth:`publish_board` would have. False: re-summed (a side never
        sent the board, a clock shown differently - a held view's frozen clock among them)."""
        for arbiter in sides:
            shown = self.shown.get((board, arbiter))
            if shown is None:
                return False
            clock = shown[2]["clock"]
            if not isinstance(clock, dict) or (clock.get("running"), clock.get("state")) != key:
                return False
        for arbiter in (False, True):
            if arbiter not in sides:
                self.stale[arbiter].add(board)
        return True

    async def hall_events(self, request: web.Request) -> web.StreamResponse:
        arbiter = await self.auth.is_arbiter(request)
        client, after = admit_hall_client(request, self.seq, self.hall_clients, self.max_clients,
                                          arbiter)
        self.flush()
        for board in self.hub.views:  # the whole hall read back, built now for this side
            if (board, arbiter) not in self.shown and board not in self.hub.unread:
                self.stale[arbiter].add(board)
        for board in sorted(self.stale[arbiter]):
            self.publish_board(board)
        client.take()  # what that sent it comes in the catch-up
        # then where the start's read-back is (null: done), on every connection
        hall = hall_event(self.seq, self.hub.reading_back())
        return await serve_sse(request, client, catch_up(self.shown, arbiter, after) + hall,
                               lambda: self.hall_clients.discard(client))

    async def _ping_loop(self) -> None:
        while True:
            await asyncio.sleep(self.ping)
            for client in list(self.hall_clients):
                client.ping()

    # ------------------------------------------------------------------ the app

    def _make_hall_app(self) -> web.Application:
        app = self.site.app(MAX_CSV)
        add_hall_routes(app.router, self, self.auth, self.hall_whoami)
        self.boards.add_to(app.router, "/boards/{board}")
        return app

    def board_parts(self, request: web.Request) -> BoardParts:
        """The parts of the board of the path (``{board}``), its game read back first if the
        start has not yet; a 404 for a board not in the hall (a path that names no board's
        number among them: ``/boards/abc/``)."""
        board = parse_board(request.match_info["board"])
        pages = None if board is None else self.hub.servers.get(board)
        if board is None or pages is None:
            raise http(404, "no such board in this hall")
        self.hub.read_back_board(board)
        return pages.parts

    def _whole_hall(self) -> None:
        """What reads every board's game (flags, rounds, results) waits for the start's
        read-back: 503 until then, with Retry-After (HUB_API.md)."""
        reading = self.hub.reading_back()
        if reading is not None:
            raise http(503, f"the hub is reading its games back after its start "
                            f"({reading['boards']} of {reading['of']} boards); try again in "
                            f"a few seconds", retry=True)

    async def board_slash(self, request: web.Request) -> web.StreamResponse:
        self.board_parts(request)
        raise web.HTTPFound(f"/boards/{request.match_info['board']}/")

    async def hall_whoami(self, request: web.Request) -> web.Response:
        return web.json_response({"arbiter": await self.auth.is_arbiter(request),
                                  "simulate": False, "hall": True})

    # ------------------------------------------------------------------ hall endpoints

    async def api_hall(self, request: web.Request) -> web.Response:
        arbiter = await self.auth.is_arbiter(request)
        hub = self.hub
        boards = [hub.summary(b, arbiter) for b in sorted(hub.views)
                  if b not in hub.unread]
        return web.json_response({"hall": hub.config.hall, "event": hub.config.event,
                                  "view": "arbiter" if arbiter else "public",
                                  "server_time": time.time(), "boards": boards,
                                  "reading_back": hub.reading_back()},
                                 headers={"Cache-Control": "no-store"})

    async def api_flags(self, request: web.Request) -> web.Response:
        await self.auth.require_arbiter(request)
        self._whole_hall()
        q = request.query
        board = board_query(request)
        out = [f for f in self.hub.flags()
               if (board is None or f["board"] == board)
               and ("round" not in q or f["round"] == q["round"])
               and ("status" not in q or f["flag"]["status"] == q["status"])]
        return web.json_response(out, headers={"Cache-Control": "no-store"})

    async def api_alarms(self, request: web.Request) -> web.Response:
        """The hall's alarms, newest first (arbiter; ``?board=7`` filters)."""
        await self.auth.require_arbiter(request)
        board = board_query(request, "hub")
        out = [a for a in reversed(self.hub.alarms) if board is None or a["board"] == board]
        return web.json_response(out)

    async def get_pairings(self, request: web.Request) -> web.Response:
        rows = [row for _, row in sorted(self.pairings.rows.items(),
                                         key=lambda kv: kv[0])]
        return web.json_response(rows)

    async def post_pairings(self, request: web.Request) -> web.Response:
        await self.auth.require_arbiter(request)
        rows = self.pairings.merge(await read_pairings(request))
        for board, _ in rows:  # a paired board is listed in the hall before it is heard from
            self.hub.board(board)
        # kept whole: each round's pairings go to its boards when the arbiter starts it
        # (POST /api/rounds/<r>/start); a row of the round in play goes at once
        current = self.hub.rounds.current
        pushed = [(board, row) for board, row in rows if row["round"] == current]
        for board, row in pushed:
            self.hub.push_pairing(board, self.pairing_command(row))
        rounds = sorted({row["round"] for _, row in rows}, key=round_order)
        return web.json_response({"kept": len(rows), "rounds": rounds, "pushed": len(pushed)})

    def pairing_command(self, row: dict[str, str]) -> dict[str, str]:
        """A pairings.csv row as the board's ``pairing`` command (PROTOCOL.md)."""
        return pairing_command(row, self.hub.config.event)

    def _round(self, request: web.Request) -> str:
        rnd = request.match_info["round"]
        if not rnd or len(rnd) > 32 or not SEGMENT.fullmatch(rnd):
            raise http(400, "not a round name")
        return rnd

    async def get_rounds(self, request: web.Request) -> web.Response:
        """The rounds of the pairings, in order, and the one started last."""
        await self.auth.require_arbiter(request)
        return web.json_response({"rounds": self.pairings.rounds(),
                                  "current": self.hub.rounds.current},
                                 headers={"Cache-Control": "no-store"})

    async def get_round(self, request: web.Request) -> web.Response:
        """The round's boards: where each stands, and why a board is not ready."""
        await self.auth.require_arbiter(request)
        rnd = self._round(request)
        self._whole_hall()
        if not self.pairings.of_round(rnd):
            raise http(404, f"round {rnd} has no pairings")
        return web.json_response({"round": rnd, "started": self.hub.rounds.current == rnd,
                                  "boards": self.hub.rounds.table(rnd)},
                                 headers={"Cache-Control": "no-store"})

    async def start_round(self, request: web.Request) -> web.Response:
        """COMP 4.4.2: the arbiter starts the round: its pairings to its boards, and each
        board's clock started once it is set up."""
        await self.auth.require_arbiter(request)
        rnd = self._round(request)
        try:  # a board not read back yet is started by the tick once read and ready
            table = self.hub.rounds.start(rnd)
        except PairingError as exc:
            raise http(404, str(exc)) from None
        return web.json_response({"round": rnd, "started": True, "boards": table})

    async def api_results(self, request: web.Request) -> web.Response:
        self._whole_hall()
        rows = results(self.hub, await self.auth.is_arbiter(request))
        return web.json_response([{**r, "board": str(r["board"])} for r in rows])

    async def results_csv(self, request: web.Request) -> web.Response:
        self._whole_hall()
        text = results_csv(results(self.hub, await self.auth.is_arbiter(request)))
        return web.Response(text=text, content_type="text/csv", charset="utf-8")

    async def api_standings(self, request: web.Request) -> web.Response:
        """The standings after ``?round=`` (default: the newest round with a result), from
        the results as ``/api/results`` gives them to this viewer; a 404 for a round the
        results do not have."""
        rnd = request.query.get("round")
        if rnd is not None and (not rnd or len(rnd) > 32 or not SEGMENT.fullmatch(rnd)):
            raise http(400, "not a round name")
        self._whole_hall()
        arbiter = await self.auth.is_arbiter(request)
        got = event_standings(results(self.hub, arbiter), rnd, self.hub.config.standings)
        if got is None:
            raise http(404, f"no round {rnd} in the results")
        return web.json_response({**got, "event": self.hub.config.event,
                                  "view": "arbiter" if arbiter else "public"},
                                 headers={"Cache-Control": "no-store"})

    async def event_pdn(self, request: web.Request) -> web.StreamResponse:
        self._whole_hall()
        got = event_feed(self.hub)
        if got is None:
            raise http(404, "no game of any round yet")
        text, wall = got
        return conditional(request, text.encode(), PDN, wall)

    async def round_pdn(self, request: web.Request) -> web.StreamResponse:
        rnd = request.match_info["round"]
        self._whole_hall()
        got = round_feed(self.hub, rnd)
        if got is None:
            raise http(404, f"no board plays round {rnd[:20]}")
        text, wall = got
        return conditional(request, text.encode(), PDN, wall)


#: Journal lines that may start, stop or set a clock without a decision saying so.
_CLOCK_LINES = frozenset({"start", "restart", "arbiter", "button"})


def _may_change_clock(fed: Fed) -> bool:
    """Line ``fed`` may have changed the board's clock (a lift or a place that decided nothing
    leaves the running face and its time as they were: the tick's due time still holds)."""
    return bool(fed.decisions) or fed.record.get("type") in _CLOCK_LINES



class HallSite(Protocol):
    """What answers the hall's own routes (HUB_API.md): the hub's :class:`HallServer`, through
    one table, :func:`add_hall_routes`."""

    async def api_hall(self, request: web.Request) -> web.StreamResponse: ...
    async def hall_events(self, request: web.Request) -> web.StreamResponse: ...
    async def api_flags(self, request: web.Request) -> web.StreamResponse: ...
    async def api_alarms(self, request: web.Request) -> web.StreamResponse: ...
    async def get_pairings(self, request: web.Request) -> web.StreamResponse: ...
    async def post_pairings(self, request: web.Request) -> web.StreamResponse: ...
    async def get_rounds(self, request: web.Request) -> web.StreamResponse: ...
    async def get_round(self, request: web.Request) -> web.StreamResponse: ...
    async def start_round(self, request: web.Request) -> web.StreamResponse: ...
    async def api_results(self, request: web.Request) -> web.StreamResponse: ...
    async def results_csv(self, request: web.Request) -> web.StreamResponse: ...
    async def round_pdn(self, request: web.Request) -> web.StreamResponse: ...
    async def api_standings(self, request: web.Request) -> web.StreamResponse: ...
    async def event_pdn(self, request: web.Request) -> web.StreamResponse: ...
    async def board_slash(self, request: web.Request) -> web.StreamResponse: ...


def add_hall_routes(r: web.UrlDispatcher, site: HallSite, auth: ArbiterAuth,
                    whoami: Handler) -> None:
    """The hall's routes of HUB_API.md (its pages, console API, pairings, rounds, results and
    feeds; a board's own routes under ``/boards/<N>/`` are the caller's) on ``r``, the login
    ``auth``'s."""
    r.add_get("/", page(HALL_STATIC, "hall.html"))
    r.add_get("/arbiter", page(HALL_STATIC, "hall-arbiter.html"))
    r.add_get("/standings", page(HALL_STATIC, "hall-standings.html"))
    r.add_get("/static/{name}", static_files(STATIC))
    r.add_get("/hall/{name}", static_files(HALL_STATIC))
    r.add_get("/i18n/{lang}.json", catalog_response)
    r.add_get("/api/whoami", whoami)
    r.add_post("/api/login", auth.login)
    r.add_post("/api/logout", auth.logout)
    r.add_get("/api/hall", site.api_hall)
    r.add_get("/events", site.hall_events)
    r.add_get("/api/flags", site.api_flags)
    r.add_get("/api/alarms", site.api_alarms)
    r.add_get("/api/pairings", site.get_pairings)
    r.add_post("/api/pairings", site.post_pairings)
    r.add_get("/api/rounds", site.get_rounds)
    r.add_get("/api/rounds/{round}", site.get_round)
    r.add_post("/api/rounds/{round}/start", site.start_round)
    r.add_get("/api/results", site.api_results)
    r.add_get("/results.csv", site.results_csv)
    r.add_get("/rounds/{round}/games.pdn", site.round_pdn)
    r.add_get("/api/standings", site.api_standings)
    r.add_get("/event.pdn", site.event_pdn)
    r.add_get("/boards/{board}", site.board_slash)


def board_query(request: web.Request, *also: str) -> str | None:
    """``?board=`` of ``request`` as the hall's JSON writes it: a board's number in canonical
    decimal (or one of ``also``); None without one; a 400 for anything else."""
    text = request.query.get("board")
    if text is None or text in also or parse_board(text) is not None:
        return text
    raise http(400, f"?board=: not a board number 1..{MAX_BOARD} (the hall names boards by "
                    "number)")


async def read_pairings(request: web.Request) -> list[dict[str, str]]:
    """The pairings CSV of a ``POST /api/pairings`` (HUB_API.md), its rows read; a 413 for a
    body over MAX_CSV, a 400 saying why for one that is not UTF-8, not a pairings CSV, or
    empty."""
    if request.content_length is not None and request.content_length > MAX_CSV:
        raise http(413, f"body larger than {MAX_CSV} bytes")
    raw = await request.read()
    try:
        rows = parse_pairings(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise http(400, "the CSV is not UTF-8") from None
    except PairingError as exc:
        raise http(400, str(exc)) from None
    if not rows:
        raise http(400, "no rows after the header line (round,board,white,black)")
    return rows


#: What a hall's stream has shown of each board, per side: (board, arbiter) → (its event id, its
#: :func:`summary_key`, the summary).
Shown = dict[tuple[int, bool], tuple[int, tuple[object, ...], dict[str, Any]]]


def admit_hall_client(request: web.Request, seq: int, clients: set[HallClient],
                      max_clients: int, arbiter: bool) -> tuple[HallClient, int | None]:
    """A page opening the hall's stream (HUB_API.md ``GET /events``): its client, added to
    ``clients``, and the event id it resumes after (``Last-Event-ID``; None: everything — no
    id, or one above ``seq``, from another life of the server). A 503 past ``max_clients``."""
    raw = request.headers.get("Last-Event-ID", request.query.get("last_event_id"))
    after: int | None = None
    if raw is not None and raw.strip().isdigit() and len(raw.strip()) <= 16:
        after = int(raw.strip())
        if after > seq:
            after = None
    if len(clients) >= max_clients:
        raise http(503, "too many live clients", retry=True)
    client = HallClient(arbiter)
    clients.add(client)
    return client, after


def hall_event(seq: int, reading: dict[str, int] | None) -> bytes:
    """The streams' ``hall`` event (HUB_API.md ``GET /events``): how far a start's read-back is
    (``reading_back``; None: done)."""
    return encode(seq, "hall", {"reading_back": reading})


def first_event_id() -> int:
    """The id a hall stream's events count up from: the microseconds since the epoch at its
    start. Every id of a life is then above every id of the lives before it (a stream sends far
    fewer than an event a microsecond), so a page resuming with an id of an earlier life is
    sent the whole hall — not only the boards that the new life happened to send under higher
    numbers, while the rest kept the summaries of before the restart (HUB_API.md ``GET
    /events``)."""
    return time.time_ns() // 1000


def catch_up(shown: Shown, arbiter: bool, after: int | None) -> bytes:
    """The ``board`` events of one side newer than ``after`` (all: None), in id order: what a
    page opening the stream is sent first."""
    first = sorted((seq, s) for (_, who), (seq, _, s) in shown.items()
                   if who == arbiter and (after is None or seq > after))
    return b"".join(encode(seq, "board", s) for seq, s in first)


def summary_key(summary: dict[str, Any]) -> tuple[object, ...]:
    """A summary's content without what changes every second by itself (a running clock is
    ticked by the page from its last reading: an event when it starts, stops or changes side).
    Compared for equality only (a summary's keys come in one order: :meth:`Hub.summary`)."""
    key = summary.copy()  # its order kept: a value replaced keeps its place
    key.pop("last_heard", None)
    clock = key.get("clock")
    if isinstance(clock, dict):
        key["clock"] = (clock.get("running"), clock.get("state"))
    return tuple(key.items())
