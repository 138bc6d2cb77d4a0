"""What every HTTP site of ours shares (the board's, the hall's): the listener and the one
middleware, composed around an aiohttp application, never inherited.

:class:`Site` serves an application on (host, port) behind the connection guard
(``pi.web.guard``); :meth:`Site.app` makes an application with :func:`errors` as its
middleware and :func:`cors` on its responses: short JSON with a 4xx/503 status, never a
traceback (anything unexpected is a logged 503), CORS for GETs, same-origin POSTs; behind
nginx (``behind_proxy``), :func:`real_address` first.
:class:`ArbiterAuth` says who is the arbiter (the token as a bearer header or the login
cookie, its throttle, the login and logout handlers): every site is handed one, and the board's
routes mounted in the hall use the hall's. :func:`json_body` reads a bounded JSON body;
:func:`page` and :func:`static_files` serve a folder's pages (in the viewer's language) and
files.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from pi.web.auth import Throttle, load_or_create_token, same
from pi.web.errors import WebError
from pi.web.guard import (HEADER_TIMEOUT, ConnectionGuard, GuardedHandler, GuardedSite,
                          OneLineHttpErrors, RateLimitedLog, accept_error_handler)
from pi.web.httputil import error, http, keep_auth
from pi.web.i18n import page_response

log = logging.getLogger(__name__)

__all__ = ["Site", "ArbiterAuth", "Handler", "errors", "cors", "page", "static_files",
           "json_body", "real_address", "STATIC", "COOKIE", "MAX_BODY", "REAL_IP", "PROXY_PEERS"]

#: Request bodies larger than this are refused (413): an arbiter action is a few dozen bytes.
MAX_BODY = 16 * 1024
#: The login cookie (``POST /api/login``).
COOKIE = "damiera_arbiter"
#: Wrong tokens from one address are one log line per this many seconds (the first at once,
#: the next saying how many came meanwhile).
WRONG_TOKEN_EVERY = 60.0
#: Addresses whose wrong tokens are counted at most (the memory cleared when full).
MAX_TOKEN_LOGS = 1024
#: The header nginx sets to the address it was asked from (``proxy_set_header X-Real-IP
#: $remote_addr``, ``pi.hall.nginx_conf``: its own value, any the client sent replaced).
REAL_IP = "X-Real-IP"
#: Where nginx asks from: the hub's loopback (``hub init --nginx`` points nginx at 127.0.0.1).
PROXY_PEERS = frozenset({"127.0.0.1", "::1"})

#: An aiohttp request handler.
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
#: The board's pages and their files (``pi/web/static``).
STATIC = Path(__file__).parent / "static"


class Site:
    """Serves one application on (``host``, ``port``) (``port`` 0: any free one, read back
    after :meth:`listen`), its connections under ``guard`` (capped, the header deadline
    :attr:`header_timeout`). ``behind_proxy``: nginx is in front (:func:`real_address`)."""

    def __init__(self, host: str, port: int, guard: ConnectionGuard | None = None, *,
                 behind_proxy: bool = False) -> None:
        self.host, self.port = host, port
        self.behind_proxy = behind_proxy
        self.guard = guard if guard is not None else ConnectionGuard()
        self.header_timeout = HEADER_TIMEOUT
        self._runner: web.AppRunner | None = None
        # aiohttp's handlers log through this one (its own filter, its own rate limit: one per
        # site, not registered by name, its records handled as pi.web's)
        self._http_log = logging.Logger("pi.web.http")
        self._http_log.parent = logging.getLogger("pi.web")
        self._http_log.addFilter(OneLineHttpErrors(log))
        self._handler_set = False

    def app(self, client_max_size: int) -> web.Application:
        """A new application with this site's middleware (:func:`errors`, the guard told of
        requests in progress) and :func:`cors`; bodies above ``client_max_size`` refused.
        Behind a proxy, :func:`real_address` before them all."""
        guard = self.guard

        @web.middleware
        async def guarded(request: web.Request, handler: Handler) -> web.StreamResponse:
            return await errors(request, handler, guard)
        middlewares = [real_address, guarded] if self.behind_proxy else [guarded]
        app = web.Application(client_max_size=client_max_size, middlewares=middlewares)
        app.on_response_prepare.append(cors)
        return app

    async def listen(self, app: web.Application, fallback: bool = False) -> None:
        """Serves ``app`` on (host, port). ``fallback``: the address is only the default
        one: when it is in use, any free port of the host is taken instead. Raises WebError
        (one line) when the address cannot be had."""
        # handler_cancellation: a client that goes away ends its SSE handler at once (it would
        # otherwise hold its place until the next write), freeing its place under the limit
        # shutdown_timeout: a stopping server waits at most 2 s for slow clients (systemd's
        # stop must not wait on a phone's connection)
        self._runner = web.AppRunner(app, handle_signals=False, handler_cancellation=True,
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
async def real_address(request: web.Request, handler: Handler) -> web.StreamResponse:
    """The middleware of a site behind nginx: a request nginx forwarded (its peer one of
    :data:`PROXY_PEERS`, one :data:`REAL_IP` holding an address) goes on as from that address
    (``request.remote``: the arbiter's throttle and the log count the spectator, not nginx);
    any other request — another peer's, whatever it claims — as from its peer."""
    values = request.headers.getall(REAL_IP, [])
    if request.remote in PROXY_PEERS and len(values) == 1:
        try:
            address = ipaddress.ip_address(values[0].strip())
        except ValueError:
            return await handler(request)
        return await handler(request.clone(remote=str(address)))
    return await handler(request)


async def errors(request: web.Request, handler: Handler,
                 guard: ConnectionGuard | None = None) -> web.StreamResponse:
    """The middleware of every site: CORS preflights answered, cross-site POSTs refused, an
    HTTP error as one line of JSON, anything unexpected a logged 503. ``guard``: told that a
    request is in progress on its connection (not closed for room meanwhile)."""
    protocol = request.protocol
    if guard is not None and isinstance(protocol, GuardedHandler):
        guard.busy(protocol)
    try:
        if request.method == "OPTIONS":  # CORS preflight, for GETs only
            return options()
        if request.method == "POST":
            check_same_origin(request)
        return await handler(request)
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
        if guard is not None and isinstance(protocol, GuardedHandler):
            guard.idle(protocol)


async def cors(request: web.Request, response: web.StreamResponse) -> None:
    """``on_response_prepare``: GETs may be read by any site (the broadcasters' pages)."""
    if request.method in ("GET", "HEAD", "OPTIONS"):
        response.headers["Access-Control-Allow-Origin"] = "*"
        response.headers["Access-Control-Expose-Headers"] = "ETag, Last-Modified"


def options() -> web.Response:
    """The answer to a CORS preflight: GETs only."""
    return web.Response(status=204, headers={
        "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
        "Access-Control-Allow-Headers": "If-None-Match, If-Modified-Since, Last-Event-ID",
        "Access-Control-Max-Age": "600"})


def check_same_origin(request: web.Request) -> None:
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


async def json_body(request: web.Request) -> dict[str, Any]:
    """The request's body, a JSON object of at most :data:`MAX_BODY` bytes; a 413 or a 400
    saying why not."""
    if request.content_length is not None and request.content_length > MAX_BODY:
        raise http(413, f"body larger than {MAX_BODY} bytes")
    raw = await request.read()
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise http(400, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise http(400, "expected a JSON object")
    return body


def page(folder: Path, name: str) -> Handler:
    """The handler of page ``name`` of ``folder``, in the viewer's language
    (``pi.web.i18n``); a 404 when it is not installed."""
    async def handle(request: web.Request) -> web.StreamResponse:
        if not (folder / name).is_file():
            raise http(404, f"{name} is not installed")
        return page_response(request, folder / name)
    return handle


def static_files(folder: Path) -> Handler:
    """The handler of ``…/{name}``: the file ``name`` of ``folder`` (no sub-folders, no hidden
    files; a 404 otherwise)."""
    async def handle(request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        if "/" in name or name.startswith(".") or not (folder / name).is_file():
            raise http(404, "no such file")
        return web.FileResponse(folder / name)
    return handle


class ArbiterAuth:
    """Who is the arbiter, for one site: ``token`` (the state directory's, or given), checked
    from a ``Authorization: Bearer`` header or the login cookie; wrong tokens throttled per
    address (``throttle``, shared by the hub's sites) and logged one line a minute per
    address. Loop thread only."""

    def __init__(self, token: str, throttle: Throttle | None = None) -> None:
        self.token = token
        self.throttle = throttle if throttle is not None else Throttle()
        #: per address: its wrong tokens' log line, at most one a minute
        self._wrong_tokens: dict[str, RateLimitedLog] = {}

    @classmethod
    def of(cls, root: Path, throttle: Throttle | None = None) -> ArbiterAuth:
        """The auth of state directory ``root`` (its token created when missing)."""
        return cls(load_or_create_token(root), throttle)

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
        return await self.verify(request, given)

    async def verify(self, request: web.Request, given: str) -> bool:
        """True when ``given`` is the token; else a 401 (after the throttle's wait)."""
        who = request.remote or "?"
        if same(given, self.token):
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
        """A 401 unless the request is the arbiter's."""
        if not await self.is_arbiter(request):
            raise http(401, "the arbiter's token is needed", bearer=True)

    async def login(self, request: web.Request) -> web.Response:
        """``POST /api/login`` ``{"token"}``: the login cookie set (a 401 for a wrong one)."""
        body = await json_body(request)
        token = body.get("token")
        if not isinstance(token, str) or not token:
            raise http(400, "expected {\"token\": \"…\"}")
        await self.verify(request, token)
        response = web.json_response({"arbiter": True})
        response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict", path="/")
        return response

    async def logout(self, request: web.Request) -> web.Response:
        """``POST /api/logout``: the login cookie cleared."""
        response = web.json_response({"arbiter": False})
        response.del_cookie(COOKIE, path="/")
        return response
