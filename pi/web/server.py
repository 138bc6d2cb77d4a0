"""The board's HTTP server (aiohttp, on the daemon's own event loop): ``pi/web/API.md``.

:class:`WebServer` reads a board through its :class:`pi.board.view.BoardView` (the daemon's
controller, or the hub's replica of a board) and is its listener (``on_fed``: every journal
line, on the loop's thread); it is an aiohttp application served by
``web.AppRunner``/``TCPSite`` on the running loop. Handlers only read the board; the one write,
``POST /api/arbiter``, is the board's :meth:`pi.board.view.BoardActions.act`, answered with the
action's journal line. SSE fan-out is per-client bounded queues (``pi.web.feeds``): a slow client
is dropped, the board never waits for it.

:class:`ArbiterSite` is what every page server of ours shares (the board's, the hall's): the
error middleware (short JSON with a 4xx/503 status, never a traceback: anything unexpected is a
logged 503), CORS for GETs, same-origin POSTs, the arbiter's token and login cookie, the static
files.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from aiohttp import web

from pi.board.statedir import StateDir
from pi.board.errors import ActionLate, ActionRefused, GameDirError
from engine.trace import split_lines
from pi.board.view import BoardActions, BoardView
from pi.web import auth
from pi.web.errors import WebError
from pi.web.i18n import catalog_response, choose_language, page_response
from pi.web.httputil import (MAX_BODY, check_action, conditional, error, first_lines, http,
                             json_body, keep_auth, line_of, read, whole_lines)
from pi.web.guard import (HEADER_TIMEOUT, ConnectionGuard, GuardedHandler, GuardedSite,
                          OneLineHttpErrors, RateLimitedLog, accept_error_handler)
from pi.web.feeds import (Client, LiveFeeds, Stream, encode, ping_loop, replay_journal_events,
                          serve_sse)
from pi.web.replay import replay_states
from pi.web.views import (PublicSnapshot, broadcast_pdn,
                          decisions_json)

if TYPE_CHECKING:  # the report's reader is loaded with its first report, off the start path
    from pi.board.report import GameReport

log = logging.getLogger(__name__)

__all__ = ["WebServer", "ArbiterSite", "Routes", "MAX_BODY", "COOKIE", "STATIC", "WebError",
           "report_pdf_response"]

COOKIE = "damiera_arbiter"
#: Wrong tokens from one address are one log line per this many seconds (the first at once,
#: the next saying how many came meanwhile).
WRONG_TOKEN_EVERY = 60.0
#: Addresses whose wrong tokens are counted at most (the memory cleared when full).
MAX_TOKEN_LOGS = 1024
STATIC = Path(__file__).parent / "static"

#: The simulator's extra routes: called with the server, returns (method, path, handler, arbiter
#: only) tuples (``Parts.web_routes``).
Routes = Callable[["WebServer"], list[tuple[str, str, Callable[[web.Request], Awaitable[Any]], bool]]]
#: An aiohttp request handler.
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def report_pdf_response(request: web.Request,
                              read: Callable[[], GameReport]) -> web.Response:
    """``GET …/games/<id>/report.pdf`` (arbiter only, checked by the caller): the game's report
    (``pi.board.report``) made on a worker thread from what ``read`` reads, in the viewer's
    language (``?lang=``, the cookie, ``Accept-Language``: ``pi.web.i18n.choose_language``); a
    journal the reader refuses is a 409."""
    from pi.board.report_render import report_pdf
    language = choose_language(request)

    def make() -> bytes:
        return report_pdf(read(), language)

    try:
        data = await asyncio.get_running_loop().run_in_executor(None, make)
    except GameDirError as exc:
        raise http(409, f"the journal cannot be read: {exc}") from None
    return web.Response(body=data, content_type="application/pdf",
                        headers={"Cache-Control": "no-store"})


class ArbiterSite:
    """See the module docstring. ``root``: where the arbiter's token is kept; ``host``,
    ``port``: where :meth:`listen` listens (``port`` 0: any free one, read back);
    ``max_clients``: live SSE clients at most; ``client_queue``: messages a client not yet
    attached may fall behind; ``ping``: seconds between two pings of every SSE client."""

    def __init__(self, root: Path, host: str, port: int, *, max_clients: int = 200,
                 client_queue: int = 512, ping: float = 15.0) -> None:
        self.root = Path(root)
        self.host, self.port = host, port
        self.max_clients = max_clients
        self.client_queue = client_queue
        self.ping = ping
        self.token = auth.load_or_create_token(self.root)
        self.throttle = auth.Throttle()
        self.app = web.Application()
        self._runner: web.AppRunner | None = None
        self.guard = ConnectionGuard()
        self.header_timeout = HEADER_TIMEOUT
        # aiohttp's handlers log through this one (its own filter, its own rate limit: one per
        # site, not registered by name, its records handled as pi.web's)
        self._http_log = logging.Logger("pi.web.http")
        self._http_log.parent = logging.getLogger("pi.web")
        self._http_log.addFilter(OneLineHttpErrors(log))
        self._handler_set = False
        #: per address: its wrong tokens' log line, at most one a minute
        self._wrong_tokens: dict[str, RateLimitedLog] = {}

    async def listen(self, fallback: bool = False) -> None:
        """Serves :attr:`app` on (host, port). ``fallback``: the address is only the default
        one: when it is in use, any free port of the host is taken instead. Raises WebError
        (one line) when the address cannot be had."""
        # handler_cancellation: a client that goes away ends its SSE handler at once (it would
        # otherwise hold its place until the next write), freeing its place under the limit
        # shutdown_timeout: a stopping server waits at most 2 s for slow clients (systemd's
        # stop must not wait on a phone's connection)
        self._runner = web.AppRunner(self.app, handle_signals=False, handler_cancellation=True,
                                     shutdown_timeout=2.0)
        await self._runner.setup()
        # the connections: capped (per address, in all, below the descriptor budget), closed
        # when no whole request came within HEADER_TIMEOUT, malformed requests one INFO line
        handler_args: dict[str, Any] = {"access_log": None, "logger": self._http_log,
                                        "keepalive_timeout": self.header_timeout}
        site = GuardedSite(self._runner, self.host, self.port, self.guard, **handler_args)
        loop = asyncio.get_running_loop()
        if loop.get_exception_handler() is None:
            loop.set_exception_handler(accept_error_handler(self.guard.flood))
            self._handler_set = True
        try:
            await site.start()
        except OSError as exc:
            if not fallback:
                await self.close()
                raise WebError(f"--http {self.host}:{self.port}: cannot listen "
                               f"({exc.strerror or exc})") from None
            log.warning("http %s:%d in use (%s): another free port taken", self.host, self.port,
                        exc.strerror or exc)
            site = GuardedSite(self._runner, self.host, 0, self.guard, **handler_args)
            await site.start()
        self.port = site.port

    async def close(self) -> None:
        """Stops listening (clients still connected get up to 2 s)."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        if self._handler_set:
            asyncio.get_running_loop().set_exception_handler(None)
            self._handler_set = False

    @web.middleware
    async def _errors(self, request: web.Request, handler: Any) -> web.StreamResponse:
        protocol = request.protocol
        if isinstance(protocol, GuardedHandler):  # a request in progress: not closed for room
            self.guard.busy(protocol)
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
            # answered here: its frames let go. aiohttp's 404 and 405 are one exception kept
            # by the route that raises it, which its traceback's frame holds: a cycle through
            # the request and its connection (pi.web.guard.GuardedHandler's doc, issue 38)
            exc.__traceback__ = None
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
        finally:
            if isinstance(protocol, GuardedHandler):
                self.guard.idle(protocol)

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
        # one line a minute per address, counting the others (a stranger's guessing wrote
        # ~6,200 lines a minute to a board's log, issue 38)
        limited = self._wrong_tokens.get(who)
        if limited is None:
            if len(self._wrong_tokens) >= MAX_TOKEN_LOGS:
                self._wrong_tokens.clear()
            limited = self._wrong_tokens[who] = RateLimitedLog(log, logging.WARNING,
                                                               WRONG_TOKEN_EVERY)
        limited.note("wrong arbiter token from %s on %s %s", who, request.method, request.path)
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

    # ------------------------------------------------------------------ files

    async def static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if "/" in name or name.startswith(".") or not (STATIC / name).is_file():
            raise http(404, "no such file")
        return web.FileResponse(STATIC / name)

    def _page(self, name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def page(request: web.Request) -> web.StreamResponse:
            if not (STATIC / name).is_file():
                raise http(404, f"{name} is not installed")
            # in the viewer's language (pi/web/i18n.py)
            return page_response(request, STATIC / name)
        return page


class WebServer(ArbiterSite):
    """See the module docstring."""

    def __init__(self, board: BoardView, root: Path, host: str, port: int, *,
                 actions: BoardActions | None = None, games: StateDir | None = None,
                 delay_minutes: float = 0.0, simulate: bool = False,
                 routes: Routes | None = None, max_clients: int = 200, client_queue: int = 512,
                 ping: float = 15.0, serve: bool = True) -> None:
        """``board``: what is served; ``actions``: its writes (``POST /api/arbiter``; None: the
        handler is a subclass's); ``games``: the state directory of its past games (None: the
        handlers are a subclass's); ``root``: where the arbiter's token is kept. ``serve``
        False: the handlers only, mounted by another server (the hall's hub)."""
        super().__init__(root, host, port, max_clients=max_clients, client_queue=client_queue,
                         ping=ping)
        self.board = board
        self.actions = actions
        self.games_dir = games
        self.simulate = simulate
        #: the board's lines as live feeds (the board's listener is ``feeds.on_fed``)
        self.feeds = LiveFeeds(board, max(0.0, delay_minutes) * 60.0)
        self._release: asyncio.Task[None] | None = None
        self._pinger: asyncio.Task[None] | None = None
        if serve:
            self.app = self._make_app(routes)

    # ------------------------------------------------------------------ life

    async def start(self, fallback: bool = False) -> None:
        """Listens on (host, port) (:meth:`ArbiterSite.listen`) and starts the feeds. Raises
        WebError (one line) when the address cannot be had."""
        await self.listen(fallback)
        self.start_feeds()
        log.info("web pages on http://%s:%d/", self.host, self.port)

    def start_feeds(self) -> None:
        """Starts the clients' pings, and releasing the delayed public lines (when a broadcast
        delay is set). RuntimeError (and nothing made) without a running loop."""
        loop = asyncio.get_running_loop()
        if self.feeds.delay > 0 and self._release is None:
            self._release = loop.create_task(self.feeds.release_loop())
        if self._pinger is None:
            self._pinger = loop.create_task(ping_loop(self.ping, self.feeds.clients))

    async def stop(self) -> None:
        for task in (self._release, self._pinger):
            if task is not None:
                task.cancel()
        for stream in (self.feeds.arbiter_stream, self.feeds.public_stream):
            for c in list(stream.clients):
                c.close()
        await self.close()

    # ------------------------------------------------------------------ the app

    def _make_app(self, routes: Routes | None) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[self._errors])
        r = app.router
        r.add_get("/", self._page("index.html"))
        r.add_get("/arbiter", self._page("arbiter.html"))
        if self.simulate:
            r.add_get("/simulator", self._page("simulator.html"))
        r.add_get("/static/{name}", self.static)
        r.add_get("/i18n/{lang}.json", catalog_response)
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

    async def whoami(self, request: web.Request) -> web.Response:
        return web.json_response({"arbiter": await self.is_arbiter(request),
                                  "simulate": self.simulate})

    # ------------------------------------------------------------------ read-only endpoints

    async def api_state(self, request: web.Request) -> web.Response:
        return web.json_response(self.feeds.state(await self.is_arbiter(request)),
                                 headers={"Cache-Control": "no-store"})

    async def broadcast(self, request: web.Request) -> web.StreamResponse:
        snap = self.feeds.public_pdn_snapshot()
        g = self.board.game
        if snap is None or g is None:
            raise http(404, "no game yet")
        text = broadcast_pdn(snap, g.variant)
        return conditional(request, text.encode(), "application/x-chess-pdn; charset=utf-8",
                            snap.wall)

    async def game_pdn(self, request: web.Request) -> web.StreamResponse:
        await self.require_arbiter(request)
        session = self.board.game
        if session is None:
            raise http(404, "no game yet")
        text = session.report().pdn()
        return conditional(request, text.encode(), "application/x-chess-pdn; charset=utf-8",
                            time.time())

    async def replay(self, request: web.Request) -> web.Response:
        """Arbiter only: the state after each journal line of the current game, computed by a
        fresh arbiter on a worker thread (``pi.web.replay``)."""
        await self.require_arbiter(request)
        session = self.board.game
        if session is None:
            raise http(404, "no game yet")
        path = session.trace

        durable = session.line  # the journal writes behind: no line that is not on disk

        def compute() -> list[dict[str, Any]]:
            text = first_lines(read(path), durable).decode("utf-8")
            return replay_states(split_lines(text))

        try:
            states = await asyncio.get_running_loop().run_in_executor(None, compute)
        except ValueError as exc:  # a journal the reader refuses (damaged by hand): say so
            raise http(409, f"the journal cannot be replayed: {exc}") from None
        return web.json_response({"game_id": session.id, "states": states})

    async def trace(self, request: web.Request) -> web.StreamResponse:
        arbiter_view = await self.is_arbiter(request)
        session = self.board.game
        if session is None:
            raise http(404, "no game yet")
        durable = session.line  # the journal writes behind: no line that is not on disk
        data = await asyncio.get_running_loop().run_in_executor(None, read, session.trace)
        data = first_lines(data, durable)
        if not arbiter_view:
            snap = self.feeds.public_pdn_snapshot()
            keep = 0 if snap is None else self._public_cut(snap)
            data = first_lines(data, keep)
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
        out: list[dict[str, Any]] = []
        if self.games_dir is None:
            return out
        for g in reversed(self.games_dir.game_dirs()):
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
        if name == "report.pdf":
            state = self.games_dir
            if state is None or game_id not in state.game_ids():
                raise http(404, "no such game")
            trace = state.game(game_id).trace
            from pi.board.report import read_game
            return await report_pdf_response(request, lambda: read_game(trace, game_id))
        files = {"game.pdn": ("pdn", "application/x-chess-pdn"),
                 "report.json": ("report", "application/json"),
                 "trace.jsonl": ("trace", "application/jsonl")}
        state = self.games_dir
        if name not in files or state is None or game_id not in state.game_ids():
            raise http(404, "no such game or file")
        g = state.game(game_id)
        path: Path = getattr(g, files[name][0])
        try:
            data = await asyncio.get_running_loop().run_in_executor(None, read, path)
        except OSError:
            raise http(404, "not written yet") from None
        return web.Response(body=data, content_type=files[name][1], charset="utf-8")


    # ------------------------------------------------------------------ SSE

    async def events(self, request: web.Request) -> web.StreamResponse:
        arbiter_view = await self.is_arbiter(request)
        stream = self.feeds.arbiter_stream if arbiter_view else self.feeds.public_stream
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
        if len(self.feeds.arbiter_stream.clients) + len(self.feeds.public_stream.clients) >= self.max_clients:
            raise http(503, "too many live clients", retry=True)
        client = Client(asyncio.Queue(maxsize=self.client_queue))
        first = self._catch_up(stream, arbiter_view, after)
        stream.clients.add(client)  # from here on every new line reaches the queue, in order
        return await serve_sse(request, client, b"".join(first),
                               lambda: stream.clients.discard(client))

    def _catch_up(self, stream: Stream, arbiter_view: bool, after: int | None) -> list[bytes]:
        """What a new client gets first: the lines after ``after`` it missed (from memory, or
        the journal re-read for the arbiter), else the whole state."""
        line = stream.last
        if after is not None and after <= line:
            kept = stream.since(after)
            if kept is not None:
                return kept + [encode(line, "state", self.feeds.stream_state(arbiter_view, line))]
            session = self.board.game
            if arbiter_view and session is not None:
                try:
                    older = list(replay_journal_events(session.trace, after))
                    older = [m for m in older if line_of(m) <= line]
                    return older + [encode(line, "state", self.feeds.stream_state(True, line))]
                except Exception:
                    log.exception("SSE resume from the journal failed; whole state sent")
        return [encode(line if line else None, "state", self.feeds.stream_state(arbiter_view, line))]

    # ------------------------------------------------------------------ arbiter actions

    async def arbiter_action(self, request: web.Request) -> web.Response:
        """``POST /api/arbiter``: the board's :meth:`~pi.board.view.BoardActions.act`,
        answered with the action's own journal line."""
        await self.require_arbiter(request)
        action = check_action(await json_body(request))
        if self.actions is None:
            raise http(409, "this board takes no actions here")
        try:
            fed = await self.actions.act(action)
        except ActionLate as exc:
            raise http(503, str(exc)) from None
        except ActionRefused as exc:
            raise http(409, str(exc)) from None
        return web.json_response({"line": fed.line, "record": fed.record,
                                  "decisions": decisions_json(fed)})
