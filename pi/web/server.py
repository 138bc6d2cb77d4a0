"""The board's HTTP server (aiohttp, on the daemon's own event loop): ``pi/web/API.md``.

:class:`WebServer` is a controller listener (``on_fed``: every journal line, on the loop's
thread) and an aiohttp application served by ``web.AppRunner``/``TCPSite`` on the running loop.
Handlers only read the controller's state; the one write, ``POST /api/arbiter``, goes through the
daemon's inbox like a button press, and is answered once the controller journaled it. SSE
fan-out is per-client bounded queues: a slow client is dropped, the board never waits for it.

Errors are always short JSON with a 4xx/503 status (never a traceback): the error middleware
turns anything unexpected into a logged 503.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable

from aiohttp import web

from engine.events import ArbiterActed
from pi.board.session import Fed
from pi.web import auth
from pi.web.httputil import (MAX_BODY, check_action, conditional, error, http, json_body,
                             keep_auth, line_of, read, whole_lines)
from pi.web.errors import WebError
from pi.web.feeds import Client, Stream, encode, encode_state, replay_journal_events
from pi.web.replay import replay_states
from pi.web.views import (MoveDicts, PublicSnapshot, broadcast_pdn, clock_dict,
                          decisions_json, line_events, public_events, public_snapshot,
                          state_dict)

log = logging.getLogger(__name__)

__all__ = ["WebServer", "Routes", "MAX_BODY", "COOKIE"]

COOKIE = "damiera_arbiter"
STATIC = Path(__file__).parent / "static"

#: The simulator's extra routes: called with the server, returns (method, path, handler, arbiter
#: only) tuples (``Parts.web_routes``).
Routes = Callable[["WebServer"], list[tuple[str, str, Callable[[web.Request], Awaitable[Any]], bool]]]


@dataclass
class _Waiting:
    action: dict[str, Any]
    future: asyncio.Future[Fed]


class WebServer:
    """See the module docstring. ``controller``: the daemon's BoardController; ``inbox``: the
    daemon's input queue; ``root``: the state directory (the token, the past games)."""

    def __init__(self, controller: Any, inbox: asyncio.Queue[Any], root: Path, host: str,
                 port: int, *, delay_minutes: float = 0.0, simulate: bool = False,
                 routes: Routes | None = None, max_clients: int = 200, client_queue: int = 512,
                 ping: float = 15.0, serve: bool = True) -> None:
        self.controller = controller
        self.inbox = inbox
        self.root = Path(root)
        self.host, self.port = host, port
        self.delay = max(0.0, delay_minutes) * 60.0
        self.simulate = simulate
        self.max_clients = max_clients
        self.client_queue = client_queue
        self.ping = ping
        self.token = auth.load_or_create_token(self.root)
        self.throttle = auth.Throttle()
        self.arbiter_stream = Stream()
        self.public_stream = Stream()
        self.flag_lines: dict[int, int] = {}
        self.moves = MoveDicts()  # the game's move dicts, made once each
        self.last_line = 0
        self.last_record: dict[str, Any] | None = None
        self.snapshot: PublicSnapshot | None = None
        self.public_state: dict[str, Any] | None = None
        self._delayed: deque[tuple[float, int, str | None, list[bytes], dict[str, Any] | None,
                                   PublicSnapshot | None]] = deque()
        self._waiting: deque[_Waiting] = deque()
        self.public_snap: PublicSnapshot | None = None
        self._runner: web.AppRunner | None = None
        self._release: asyncio.Task[None] | None = None
        self._pinger: asyncio.Task[None] | None = None
        # serve False: the handlers only, mounted by another server (the hall's hub)
        self.app = self._make_app(routes) if serve else web.Application()

    # ------------------------------------------------------------------ life

    async def start(self, fallback: bool = False) -> None:
        """Listens on (host, port). ``fallback``: the address is only the default one (with
        --simulate): when it is in use, any free port of the host is taken instead. Raises
        WebError (one line) when the address cannot be had."""
        # handler_cancellation: a client that goes away ends its SSE handler at once (it would
        # otherwise hold its place until the next write), freeing its place under the limit
        # shutdown_timeout: a stopping board waits at most 2 s for slow clients (systemd's stop
        # must not wait on a phone's connection)
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False,
                                     handler_cancellation=True, shutdown_timeout=2.0)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, reuse_address=True)
        try:
            await site.start()
        except OSError as exc:
            if not fallback:
                await self._runner.cleanup()
                raise WebError(f"--http {self.host}:{self.port}: cannot listen "
                               f"({exc.strerror or exc})") from None
            log.warning("http %s:%d in use (%s): another free port taken", self.host, self.port,
                        exc.strerror or exc)
            site = web.TCPSite(self._runner, self.host, 0, reuse_address=True)
            await site.start()
        sockets = getattr(site._server, "sockets", None) or []  # noqa: SLF001 - the bound port
        if sockets:
            self.port = sockets[0].getsockname()[1]
        self.start_feeds()
        log.warning("web pages on http://%s:%d/ (arbiter token: damiera token)", self.host,
                    self.port)

    def start_feeds(self) -> None:
        """Starts the clients' pings, and releasing the delayed public lines (when a broadcast
        delay is set). RuntimeError (and nothing made) without a running loop."""
        loop = asyncio.get_running_loop()
        if self.delay > 0 and self._release is None:
            self._release = loop.create_task(self._release_loop())
        if self._pinger is None:
            self._pinger = loop.create_task(self._ping_loop())

    async def stop(self) -> None:
        for task in (self._release, self._pinger):
            if task is not None:
                task.cancel()
        for stream in (self.arbiter_stream, self.public_stream):
            for c in list(stream.clients):
                c.close()
        for w in self._waiting:
            if not w.future.done():
                w.future.cancel()
        if self._runner is not None:
            await self._runner.cleanup()

    def prime(self) -> None:
        """Picks up a game resumed before the server started: its line count and broadcast view
        (the lines themselves are read back from the journal by a resuming client)."""
        c = self.controller
        if c.session is None:
            return
        line = c.session.journal.line_count
        self.last_line = line
        self.snapshot = public_snapshot(c, line, None, self.moves)
        self.public_snap = self.snapshot
        for stream in (self.arbiter_stream, self.public_stream):
            stream.game, stream.last = c.session.game.id, line

    # ------------------------------------------------------------------ the controller's lines

    def on_fed(self, fed: Fed, received: float | None = None) -> None:
        """Listener: one journaled line (on the loop's thread). Builds its events, keeps them,
        offers them to the clients, answers the arbiter's request that caused it. ``received``:
        when the line happened (``time.monotonic()`` clock; default now), for the delay."""
        c = self.controller
        game = None if c.session is None else c.session.game.id
        if fed.line == 1:
            self.flag_lines = {}
        self.last_line = fed.line
        self.last_record = fed.record
        events = line_events(c, fed, self.flag_lines)
        msgs = [encode(fed.line, n, d) for n, d in events]
        state = None
        if self.arbiter_stream.clients:  # nobody listening: no state built (the board's time)
            state = encode_state(fed.line, state_dict(
                c, fed.line, arbiter_view=True, snap=None, last_record=fed.record,
                flag_lines=self.flag_lines, cache=self.moves), self.moves)
        self.arbiter_stream.publish(game, fed.line, msgs, state)
        # the public stream: events derived from the broadcast view (held moves stay out)
        prev = self.snapshot
        snap = public_snapshot(c, fed.line, prev, self.moves)
        self.snapshot = snap
        pub = public_events(fed, events, prev, snap)
        pub_state = None
        if self.delay > 0 or self.public_stream.clients:
            pub_state = state_dict(c, fed.line, arbiter_view=False, snap=snap, last_record=None,
                                   flag_lines=self.flag_lines, cache=self.moves)
        pub_msgs = [encode(fed.line, n, d) for n, d in pub]
        if self.delay > 0:
            at = time.monotonic() if received is None else received
            self._delayed.append((at, fed.line, game, pub_msgs, pub_state, snap))
        else:
            self._public_publish(fed.line, game, pub_msgs, pub_state, snap)
        if fed.record.get("type") == "arbiter":
            # the oldest waiting request for this very action (another source - a trace acted
            # by the simulator, a serial command - may journal arbiter lines too)
            for w in self._waiting:
                if all(fed.record.get(k) == w.action.get(k) for k in ("action", "result", "text")):
                    self._waiting.remove(w)
                    if not w.future.done():
                        w.future.set_result(fed)
                    break

    def _public_publish(self, line: int, game: str | None, msgs: list[bytes],
                        state: dict[str, Any] | None, snap: PublicSnapshot | None) -> None:
        if self.delay > 0:
            self.public_state = state
        self.public_snap = snap
        self.public_stream.publish(game, line, msgs,
                                   None if state is None else encode_state(line, state,
                                                                           self.moves))

    async def _ping_loop(self) -> None:
        """``: ping`` to every SSE client every ``ping`` seconds (keeps proxies and phones from
        closing a quiet stream; a client that does not read fills its queue and is dropped)."""
        while True:
            await asyncio.sleep(self.ping)
            for stream in (self.arbiter_stream, self.public_stream):
                for client in list(stream.clients):
                    client.offer(b": ping\n\n")

    async def _release_loop(self) -> None:
        while True:
            now = time.monotonic()
            while self._delayed and now - self._delayed[0][0] >= self.delay:
                _, line, game, msgs, state, snap = self._delayed.popleft()
                self._public_publish(line, game, msgs, state, snap)
            await asyncio.sleep(1.0)

    # ------------------------------------------------------------------ the app

    def _make_app(self, routes: Routes | None) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._errors])
        r = app.router
        r.add_get("/", self._page("index.html"))
        r.add_get("/arbiter", self._page("arbiter.html"))
        if self.simulate:
            r.add_get("/simulator", self._page("simulator.html"))
        r.add_get("/static/{name}", self.static)
        r.add_get("/api/state", self.api_state)
        r.add_get("/api/whoami", self.whoami)
        r.add_get("/events", self.events)
        r.add_get("/broadcast.pdn", self.broadcast)
        r.add_get("/api/trace.jsonl", self.trace)
        r.add_get("/game.pdn", self.game_pdn)
        r.add_get("/record.pdn", self.game_pdn)  # the pages' name for it (the hall's too)
        r.add_get("/api/replay", self.replay)
        r.add_get("/api/games", self.games)
        r.add_get("/api/games/{id}/{file}", self.game_file)
        r.add_post("/api/arbiter", self.arbiter_action)
        r.add_post("/api/login", self.login)
        r.add_post("/api/logout", self.logout)
        for method, path, handler, guarded in (routes(self) if routes is not None else []):
            r.add_route(method, path, self._guard(handler) if guarded else handler)
        app.on_response_prepare.append(self._cors)
        return app

    @web.middleware
    async def _errors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        try:
            if request.method == "OPTIONS":  # CORS preflight, for GETs only
                return await self.options(request)
            if request.method == "POST":
                self._check_same_origin(request)
            response: web.StreamResponse = await handler(request)
            return response
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            reason = exc.text if exc.text and not exc.text.startswith(f"{exc.status}:") \
                else exc.reason
            if exc.content_type == "application/json":
                reason = json.loads(exc.text or "{}").get("error", exc.reason)
            return error(exc.status, reason, headers=keep_auth(exc.headers))
        except (asyncio.CancelledError, ConnectionResetError):
            raise
        except Exception:
            log.exception("web request %s %s failed", request.method, request.path)
            return error(503, "the server could not answer this request (logged)")

    async def _cors(self, request: web.Request, response: web.StreamResponse) -> None:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            response.headers["Access-Control-Allow-Origin"] = "*"
            response.headers["Access-Control-Expose-Headers"] = "ETag, Last-Modified"

    async def options(self, request: web.Request) -> web.Response:
        return web.Response(status=204, headers={
            "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
            "Access-Control-Allow-Headers": "If-None-Match, If-Modified-Since, Last-Event-ID",
            "Access-Control-Max-Age": "600"})

    # ------------------------------------------------------------------ auth

    def _check_same_origin(self, request: web.Request) -> None:
        """POSTs from other sites are refused (CSRF): ``Sec-Fetch-Site`` when sent must be
        same-origin (or none: typed by the user), ``Origin`` when sent must be this host."""
        site = request.headers.get("Sec-Fetch-Site")
        if site is not None and site not in ("same-origin", "none"):
            raise http(403, "cross-site request refused")
        origin = request.headers.get("Origin")
        if origin is not None:
            host = request.headers.get("Host", "")
            if origin == "null" or origin.split("://", 1)[-1].rstrip("/") != host:
                raise http(403, "cross-site request refused")

    async def is_arbiter(self, request: web.Request) -> bool:
        """True with the right token, False with none; a wrong token is a 401 (logged, slowed
        down after a few)."""
        given = None
        header = request.headers.get("Authorization")
        if header is not None:
            scheme, _, value = header.partition(" ")
            given = value.strip() if scheme.lower() == "bearer" else header
        elif COOKIE in request.cookies:
            given = request.cookies[COOKIE]
        if given is None:
            return False
        return await self._verify(request, given)

    async def _verify(self, request: web.Request, given: str) -> bool:
        who = request.remote or "?"
        if auth.same(given, self.token):
            self.throttle.succeeded(who)
            return True
        wait = self.throttle.delay(who)
        self.throttle.failed(who)
        log.warning("wrong arbiter token from %s on %s %s", who, request.method, request.path)
        if wait:
            await asyncio.sleep(wait)
        raise http(401, "wrong token", bearer=True)

    async def require_arbiter(self, request: web.Request) -> None:
        if not await self.is_arbiter(request):
            raise http(401, "the arbiter's token is needed", bearer=True)

    def _guard(self, handler: Callable[[web.Request], Awaitable[Any]]
               ) -> Callable[[web.Request], Awaitable[Any]]:
        async def guarded(request: web.Request) -> Any:
            await self.require_arbiter(request)
            return await handler(request)
        return guarded

    async def login(self, request: web.Request) -> web.Response:
        body = await json_body(request)
        token = body.get("token")
        if not isinstance(token, str) or not token:
            raise http(400, "expected {\"token\": \"…\"}")
        await self._verify(request, token)
        response = web.json_response({"arbiter": True})
        response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict", path="/")
        return response

    async def logout(self, request: web.Request) -> web.Response:
        response = web.json_response({"arbiter": False})
        response.del_cookie(COOKIE, path="/")
        return response

    async def whoami(self, request: web.Request) -> web.Response:
        return web.json_response({"arbiter": await self.is_arbiter(request),
                                  "simulate": self.simulate})

    # ------------------------------------------------------------------ read-only endpoints

    def state(self, arbiter_view: bool) -> dict[str, Any]:
        c = self.controller
        if arbiter_view or self.delay <= 0:
            return state_dict(c, self.last_line, arbiter_view=arbiter_view,
                              snap=None if arbiter_view else self.snapshot,
                              last_record=self.last_record, flag_lines=self.flag_lines,
                              cache=self.moves)
        if self.public_state is not None:
            return dict(self.public_state)
        # delayed and nothing old enough yet: the game's start, no moves, no flags
        out = state_dict(c, 0, arbiter_view=False, snap=None, last_record=None, flag_lines={})
        game = None if c.session is None else c.session.arbiter.game
        out.update(moves=[], flags=[], result="*", result_reason=None, squares_to_fix=[],
                   fen=None if game is None else game.start_fen)
        return out

    async def api_state(self, request: web.Request) -> web.Response:
        return web.json_response(self.state(await self.is_arbiter(request)),
                                 headers={"Cache-Control": "no-store"})

    def public_pdn_snapshot(self) -> PublicSnapshot | None:
        if self.delay > 0:
            return self.public_snap
        return self.snapshot

    async def broadcast(self, request: web.Request) -> web.StreamResponse:
        snap = self.public_pdn_snapshot()
        if snap is None or self.controller.session is None:
            raise http(404, "no game yet")
        text = broadcast_pdn(snap, self.controller.session.variant)
        return conditional(request, text.encode(), "application/x-chess-pdn; charset=utf-8",
                            snap.wall)

    async def game_pdn(self, request: web.Request) -> web.StreamResponse:
        await self.require_arbiter(request)
        session = self.controller.session
        if session is None:
            raise http(404, "no game yet")
        text = session.report().pdn()
        return conditional(request, text.encode(), "application/x-chess-pdn; charset=utf-8",
                            time.time())

    async def replay(self, request: web.Request) -> web.Response:
        """Arbiter only: the state after each journal line of the current game, computed by a
        fresh arbiter on a worker thread (``pi.web.replay``)."""
        await self.require_arbiter(request)
        session = self.controller.session
        if session is None:
            raise http(404, "no game yet")
        path = session.game.trace

        def compute() -> list[dict[str, Any]]:
            text = whole_lines(read(path)).decode("utf-8")
            return replay_states(text.splitlines())

        try:
            states = await asyncio.get_running_loop().run_in_executor(None, compute)
        except ValueError as exc:  # a journal the reader refuses (damaged by hand): say so
            raise http(409, f"the journal cannot be replayed: {exc}") from None
        return web.json_response({"game_id": session.game.id, "states": states})

    async def trace(self, request: web.Request) -> web.StreamResponse:
        arbiter_view = await self.is_arbiter(request)
        session = self.controller.session
        if session is None:
            raise http(404, "no game yet")
        data = await asyncio.get_running_loop().run_in_executor(None, read, session.game.trace)
        if not arbiter_view:
            snap = self.public_pdn_snapshot()
            keep = 0 if snap is None else self._public_cut(snap)
            data = b"".join(data.splitlines(keepends=True)[:keep])
        data = whole_lines(data)
        return web.Response(body=data, content_type="application/jsonl", charset="utf-8")

    def _public_cut(self, snap: PublicSnapshot) -> int:
        """Public traces stop before the first line the broadcast does not show yet."""
        return snap.line

    async def games(self, request: web.Request) -> web.Response:
        await self.require_arbiter(request)
        return web.json_response(await asyncio.get_running_loop().run_in_executor(
            None, self._list_games))

    def _list_games(self) -> list[dict[str, Any]]:
        out = []
        for g in reversed(self.controller.state.game_dirs()):
            info = g.finished_info() or {}
            start: dict[str, Any] = {}
            try:
                with open(g.trace, encoding="utf-8") as f:
                    start = json.loads(f.readline() or "{}")
            except (OSError, ValueError):
                pass
            report: dict[str, Any] = {}
            try:
                report = json.loads(g.report.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                pass
            out.append({"id": g.id, "finished": g.is_finished(),
                        "result": info.get("result", report.get("result")),
                        "started_at": start.get("started_at"), "white": start.get("white"),
                        "black": start.get("black"), "variant": start.get("variant"),
                        "moves": len(report.get("moves", []))})
        return out

    async def game_file(self, request: web.Request) -> web.Response:
        await self.require_arbiter(request)
        game_id, name = request.match_info["id"], request.match_info["file"]
        files = {"game.pdn": ("pdn", "application/x-chess-pdn"),
                 "report.json": ("report", "application/json"),
                 "trace.jsonl": ("trace", "application/jsonl")}
        if name not in files or game_id not in self.controller.state.game_ids():
            raise http(404, "no such game or file")
        g = self.controller.state.game(game_id)
        path = getattr(g, files[name][0])
        try:
            data = await asyncio.get_running_loop().run_in_executor(None, read, path)
        except OSError:
            raise http(404, "not written yet") from None
        return web.Response(body=data, content_type=files[name][1], charset="utf-8")

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if "/" in name or name.startswith(".") or not (STATIC / name).is_file():
            raise http(404, "no such file")
        return web.FileResponse(STATIC / name)

    def _page(self, name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def page(request: web.Request) -> web.StreamResponse:
            if not (STATIC / name).is_file():
                raise http(404, f"{name} is not installed")
            return web.FileResponse(STATIC / name, headers={"Cache-Control": "no-cache"})
        return page

    # ------------------------------------------------------------------ SSE

    async def events(self, request: web.Request) -> web.StreamResponse:
        arbiter_view = await self.is_arbiter(request)
        stream = self.arbiter_stream if arbiter_view else self.public_stream
        raw = request.headers.get("Last-Event-ID", request.query.get("last_event_id"))
        after: int | None = None
        if raw is not None and raw.strip().isdigit() and len(raw.strip()) < 12:
            after = int(raw.strip())
        # ids are the journal's line numbers and restart with each game: an id from another
        # game (``game``: the game_id the client last saw) says nothing of this one: the whole
        # state, as to a new client
        game = request.query.get("game")
        if game is not None and stream.game is not None and game != stream.game:
            after = None
        if len(self.arbiter_stream.clients) + len(self.public_stream.clients) >= self.max_clients:
            raise http(503, "too many live clients", retry=True)
        client = Client(asyncio.Queue(maxsize=self.client_queue))
        first = self._catch_up(stream, arbiter_view, after)
        stream.clients.add(client)  # from here on every new line reaches the queue, in order
        response = web.StreamResponse(headers={
            "Content-Type": "text/event-stream", "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no"})
        try:
            await response.prepare(request)
            await response.write(b"retry: 2000\n\n" + b"".join(first))
            if request.transport is not None and not response.compression:
                # from here on publish() writes to the socket itself (feeds.Client.attach)
                # (framed as aiohttp frames it: chunked for HTTP/1.1, no Content-Length)
                client.attach(request.transport, chunked=tuple(request.version) >= (1, 1))
            while not client.dropped:
                # a plain get (no asyncio.wait_for: a task and a timer per message and client);
                # attached, only the end (None) comes this way; the pings come from one task
                # for all (_ping_loop)
                msg = await client.queue.get()
                if msg is None:
                    break
                await response.write(msg)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            stream.clients.discard(client)
        return response

    def _catch_up(self, stream: Stream, arbiter_view: bool, after: int | None) -> list[bytes]:
        """What a new client gets first: the lines after ``after`` it missed (from memory, or
        the journal re-read for the arbiter), else the whole state."""
        line = stream.last
        if after is not None and after <= line:
            kept = stream.since(after)
            if kept is not None:
                return kept + [encode(line, "state", self._stream_state(arbiter_view, line))]
            session = self.controller.session
            if arbiter_view and session is not None:
                try:
                    older = list(replay_journal_events(session.game.trace, after))
                    older = [m for m in older if line_of(m) <= line]
                    return older + [encode(line, "state", self._stream_state(True, line))]
                except Exception:
                    log.exception("SSE resume from the journal failed; whole state sent")
        return [encode(line if line else None, "state", self._stream_state(arbiter_view, line))]

    def _stream_state(self, arbiter_view: bool, line: int) -> dict[str, Any]:
        state = self.state(arbiter_view)
        state["line"] = line
        return state

    # ------------------------------------------------------------------ arbiter actions

    async def arbiter_action(self, request: web.Request) -> web.Response:
        await self.require_arbiter(request)
        body = check_action(await json_body(request))
        action, result, text = body["action"], body.get("result"), body.get("text")
        c = self.controller
        if c.phase != "playing" or c.session is None:
            raise http(409, "no game in play")
        future: asyncio.Future[Fed] = asyncio.get_running_loop().create_future()
        waiting = _Waiting({"action": action, "result": result, "text": text}, future)
        self._waiting.append(waiting)
        self.inbox.put_nowait(ArbiterActed(c.time.stamp(), action, result, text))
        try:
            fed = await asyncio.wait_for(asyncio.shield(future), timeout=10.0)
        except asyncio.TimeoutError:
            raise http(503, "the board did not journal the action in time") from None
        finally:
            if waiting in self._waiting:  # not journaled (the game ended meanwhile): forgotten
                self._waiting.remove(waiting)
        return web.json_response({"line": fed.line, "record": fed.record,
                                  "decisions": decisions_json(fed)})

    @property
    def actions_waiting(self) -> int:
        """Arbiter requests waiting for their journal line."""
        return len(self._waiting)

    def clock_now(self) -> dict[str, Any] | None:
        return clock_dict(self.controller)


# ---------------------------------------------------------------------- helpers
