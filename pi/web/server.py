"""The board's HTTP interface (``pi/web/API.md``): its pages, feeds and actions as one set of
routes, composed from four typed parts, and the daemon's server that serves them.

The parts (:class:`BoardParts`): the board's :class:`pi.board.view.BoardView` (what is shown),
its :class:`BoardFeed` (the live streams and the broadcast PDN: ``pi.web.feeds.LiveFeeds``),
its :class:`ActionSink` (the arbiter's ``POST /api/arbiter``) and its :class:`BoardGames` (the
past games and their files). :class:`BoardRoutes` adds the routes to a router under a prefix,
each request finding its board's parts through the ``parts`` function it was given: mounted as
they are by the board's daemon at ``/`` (:class:`WebServer`) and by the hall's hub under
``/boards/<N>/`` (``pi.hall.hall_http``, over the parts of the board's replica,
``pi.hall.boardview.ReplicaPages``). Who is the arbiter is the site's
:class:`pi.web.site.ArbiterAuth`, handed in.

:class:`WebServer` is the daemon's board: its controller as the view, its live feeds (the
board's listener: ``feeds.on_fed``, every journal line on the loop's thread), its actions
(:class:`BoardActionSink`: the board's :meth:`pi.board.view.BoardActions.act`, answered with
the action's journal line) and its games (:class:`StateDirGames`), served at ``/`` on a
:class:`pi.web.site.Site` (the listener, the error middleware, CORS, same-origin POSTs). SSE
fan-out is per-client bounded queues (``pi.web.feeds``): a slow client is dropped, the board
never waits for it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from aiohttp import web

from engine.trace import split_lines
from pi.board.arbiter_request import ArbiterRequest, check_arbiter_request
from pi.board.errors import ActionLate, ActionRefused, GameDirError
from pi.board.game_setup import GameSetup, check_game_setup
from pi.board.statedir import GameDir, StateDir
from pi.board.view import BoardActions, BoardView
from pi.web.auth import Throttle
from pi.web.errors import WebError
from pi.web.feeds import (PING, Client, LiveFeeds, Socket, Stream, encode, ping_loop,
                          replay_journal_events, serve_sse)
from pi.web.httputil import conditional, first_lines, http, line_of, read, whole_lines
from pi.web.i18n import catalog_response, choose_language
from pi.web.replay import game_replay
from pi.web.site import (COOKIE, MAX_BODY, STATIC, ArbiterAuth, Handler, Site, json_body, page,
                         static_files)
from pi.web.views import (PublicSnapshot, broadcast_pdn, clock_dict, decisions_json, flag_dict,
                          frozen_clock, game_type_tag, public_snapshot, state_dict)

if TYPE_CHECKING:  # the report's reader is loaded with its first report, off the start path
    from pi.board.report import GameReport

log = logging.getLogger(__name__)

__all__ = ["BoardFeed", "ActionSink", "BoardGames", "BoardParts", "BoardRoutes", "Route",
           "report_pdf_response", "check_action", "PDN", "WebServer", "Routes",
           "BoardActionSink", "StateDirGames", "MAX_BODY", "COOKIE", "STATIC", "WebError",
           # the feed a host builds for the routes (BoardParts.feed), the one SSE writer its
           # own streams share, and the board's JSON forms its own pages show alike (the
           # hall's board summaries, round feeds, commands): re-exported, so that a host of a
           # board's routes imports this module and the shared HTTP helpers, never the
           # modules behind it (tests/test_imports.py)
           "LiveFeeds", "Client", "Socket", "serve_sse", "ping_loop", "encode", "PING",
           "PublicSnapshot", "public_snapshot", "broadcast_pdn", "state_dict", "clock_dict",
           "flag_dict", "frozen_clock", "decisions_json", "game_type_tag"]

PDN = "application/x-chess-pdn; charset=utf-8"
#: An extra route of a board (the simulator's controls): method, path, handler, arbiter only.
Route = tuple[str, str, Callable[[web.Request], Awaitable[web.StreamResponse]], bool]


class BoardFeed(Protocol):
    """A board's live feeds (``pi.web.feeds.LiveFeeds``): its two SSE streams, the
    ``/api/state`` object, and the broadcast PDN."""

    @property
    def arbiter_stream(self) -> Stream: ...

    @property
    def public_stream(self) -> Stream: ...

    def state(self, arbiter_view: bool) -> dict[str, Any]:
        """The ``/api/state`` object as the arbiter or the public sees it now."""
        ...

    def stream_state(self, arbiter_view: bool, line: int) -> dict[str, Any]:
        """:meth:`state` as a stream's ``state`` event of ``line`` carries it."""
        ...

    def public_pdn_snapshot(self) -> PublicSnapshot | None:
        """The broadcast view as the public has it now."""
        ...

    def broadcast(self) -> tuple[str, float] | None:
        """The broadcast PDN of the board's game and when it last changed; None: no game."""
        ...


class ActionSink(Protocol):
    """Where the arbiter's actions go (the board itself, or the hub's command to it)."""

    async def act(self, action: ArbiterRequest) -> web.Response:
        """``action`` done: the answer of ``POST /api/arbiter`` (API.md). Raises an HTTP
        error (``pi.web.httputil.http``) saying why not."""
        ...

    async def setup(self, setup: GameSetup) -> web.Response:
        """``setup`` taken for the board's next game: the answer of ``POST /api/setup``
        (API.md). Raises an HTTP error saying why not (a 409 while a game is in play, or on
        a board whose games the hall's pairings set up)."""
        ...


class BoardGames(Protocol):
    """The board's games (its state directory, or the hub's replicas of them)."""

    async def listing(self) -> list[dict[str, Any]]:
        """``GET /api/games``: the games, newest first."""
        ...

    async def file(self, request: web.Request, game_id: str, name: str
                   ) -> web.StreamResponse:
        """``GET /api/games/{id}/{file}`` (the arbiter's: checked by the caller). A 404 for a
        game or file that is not there."""
        ...

    async def journal(self, game_id: str) -> bytes:
        """The whole lines of game ``game_id``'s journal as held (``GET /api/replay?game=``);
        a 404 (``pi.web.httputil.http``) for a game that is not there."""
        ...


def never() -> bool:
    return False


@dataclass(frozen=True)
class BoardParts:
    """What a board's routes serve: see the module docstring. ``about``: what ``whoami``
    says besides ``arbiter`` (``simulate``; in the hall ``hall`` and ``board``);
    ``crowded``: True when a new live client is refused whatever this board has (the hub's
    limit over all its boards)."""

    view: BoardView
    feed: BoardFeed
    actions: ActionSink
    games: BoardGames
    about: Mapping[str, object] = field(default_factory=dict)
    crowded: Callable[[], bool] = never


class BoardRoutes:
    """A board's routes (API.md), for the boards that ``parts`` finds (a 404 raised there for
    none). ``auth``: the site's; ``max_clients``: live clients of one board's streams at most;
    ``client_queue``: messages a client not yet attached may fall behind; ``simulator``: the
    simulator's page; ``hall``: mounted in the hall, where a board's ``game.pdn`` is its
    broadcast feed (HUB_API.md) rather than the arbiter's record."""

    def __init__(self, parts: Callable[[web.Request], BoardParts], auth: ArbiterAuth, *,
                 max_clients: int = 200, client_queue: int = 512, simulator: bool = False,
                 hall: bool = False) -> None:
        self.parts = parts
        self.auth = auth
        self.max_clients = max_clients
        self.client_queue = client_queue
        self.simulator = simulator
        self.hall = hall

    def add_to(self, router: web.UrlDispatcher, prefix: str = "",
               extra: Sequence[Route] = ()) -> None:
        """The routes on ``router`` under ``prefix`` (``""``, ``"/boards/{board}"``), and the
        ``extra`` ones (the arbiter's only when so marked)."""
        r, p = router, prefix

        def shown(handler: Handler) -> Handler:
            async def found(request: web.Request) -> web.StreamResponse:
                self.parts(request)  # a board that is not there: a 404
                return await handler(request)
            return found
        r.add_get(f"{p}/", shown(page(STATIC, "index.html")))
        r.add_get(f"{p}/arbiter", shown(page(STATIC, "arbiter.html")))
        if self.simulator:
            r.add_get(f"{p}/simulator", page(STATIC, "simulator.html"))
        r.add_get(f"{p}/static/{{name}}", static_files(STATIC))
        r.add_get(f"{p}/i18n/{{lang}}.json", catalog_response)
        r.add_get(f"{p}/api/state", self.api_state)
        r.add_get(f"{p}/api/whoami", self.whoami)
        r.add_get(f"{p}/events", self.events)
        r.add_get(f"{p}/broadcast.pdn", self.broadcast)
        r.add_get(f"{p}/api/trace.jsonl", self.trace)
        r.add_get(f"{p}/game.pdn", self.broadcast if self.hall else self.record_pdn)
        r.add_get(f"{p}/record.pdn", self.record_pdn)  # the pages' name for it
        r.add_get(f"{p}/api/replay", self.replay)
        r.add_get(f"{p}/api/games", self.games)
        r.add_get(f"{p}/api/games/{{id}}/{{file}}", self.game_file)
        r.add_post(f"{p}/api/arbiter", self.arbiter_action)
        r.add_post(f"{p}/api/setup", self.setup)
        r.add_post(f"{p}/api/login", self.auth.login)
        r.add_post(f"{p}/api/logout", self.auth.logout)
        for method, path, handler, guarded in extra:
            r.add_route(method, f"{p}{path}", self._guard(handler) if guarded else handler)

    def _guard(self, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
               ) -> Handler:
        async def guarded(request: web.Request) -> web.StreamResponse:
            await self.auth.require_arbiter(request)
            return await handler(request)
        return guarded

    # ------------------------------------------------------------------ read-only endpoints

    async def whoami(self, request: web.Request) -> web.Response:
        parts = self.parts(request)
        return web.json_response({"arbiter": await self.auth.is_arbiter(request),
                                  **parts.about})

    async def api_state(self, request: web.Request) -> web.Response:
        parts = self.parts(request)
        return web.json_response(parts.feed.state(await self.auth.is_arbiter(request)),
                                 headers={"Cache-Control": "no-store"})

    async def broadcast(self, request: web.Request) -> web.StreamResponse:
        got = self.parts(request).feed.broadcast()
        if got is None:
            raise http(404, "no game yet")
        text, wall = got
        return conditional(request, text.encode(), PDN, wall)

    async def record_pdn(self, request: web.Request) -> web.StreamResponse:
        parts = self.parts(request)
        await self.auth.require_arbiter(request)
        session = parts.view.game
        if session is None:
            raise http(404, "no game yet")
        text = session.report().pdn()
        return conditional(request, text.encode(), PDN, time.time())

    async def replay(self, request: web.Request) -> web.Response:
        """Arbiter only: the state after each journal line of the current game, or of the game
        ``?game=<id>`` (a past one: its journal read through the board's games part, a 404 for
        an unknown id), computed by a fresh arbiter on a worker thread (``pi.web.replay``)."""
        parts = self.parts(request)
        await self.auth.require_arbiter(request)
        session = parts.view.game
        asked = request.query.get("game")
        loop = asyncio.get_running_loop()
        if asked is not None and (session is None or asked != session.id):
            game_id = asked
            data = await parts.games.journal(asked)
        elif session is None:
            raise http(404, "no game yet")
        else:
            game_id = session.id
            durable = session.line  # the journal writes behind: no line that is not on disk
            data = first_lines(await loop.run_in_executor(None, read, session.trace), durable)

        def compute() -> dict[str, Any]:
            return game_replay(split_lines(data.decode("utf-8", errors="replace")))

        try:
            replayed = await loop.run_in_executor(None, compute)
        except ValueError as exc:  # a journal the reader refuses (damaged by hand): say so
            raise http(409, f"the journal cannot be replayed: {exc}") from None
        return web.json_response({"game_id": game_id, **replayed})

    async def trace(self, request: web.Request) -> web.StreamResponse:
        parts = self.parts(request)
        arbiter_view = await self.auth.is_arbiter(request)
        session = parts.view.game
        if session is None:
            raise http(404, "no game yet")
        durable = session.line  # the journal writes behind: no line that is not on disk
        data = await asyncio.get_running_loop().run_in_executor(None, read, session.trace)
        data = first_lines(data, durable)
        if not arbiter_view:
            # public traces stop before the first line the broadcast does not show yet
            snap = parts.feed.public_pdn_snapshot()
            data = first_lines(data, 0 if snap is None else snap.line)
        data = whole_lines(data)
        return web.Response(body=data, content_type="application/jsonl", charset="utf-8")

    async def games(self, request: web.Request) -> web.Response:
        parts = self.parts(request)
        await self.auth.require_arbiter(request)
        return web.json_response(await parts.games.listing())

    async def game_file(self, request: web.Request) -> web.StreamResponse:
        parts = self.parts(request)
        await self.auth.require_arbiter(request)
        return await parts.games.file(request, request.match_info["id"],
                                      request.match_info["file"])

    # ------------------------------------------------------------------ SSE

    async def events(self, request: web.Request) -> web.StreamResponse:
        parts = self.parts(request)
        if parts.crowded():
            raise http(503, "too many live clients", retry=True)
        arbiter_view = await self.auth.is_arbiter(request)
        feed = parts.feed
        stream = feed.arbiter_stream if arbiter_view else feed.public_stream
        raw = request.headers.get("Last-Event-ID", request.query.get("last_event_id"))
        after: int | None = None
        if raw is not None and raw.strip().isdigit() and len(raw.strip()) < 12:
            after = int(raw.strip())
        # ids are the journal's line numbers and restart with each game: an id from another
        # game (the query's ``game``: the game id the client last saw) says nothing of this
        # one: the whole state, as to a new client
        game_id = request.query.get("game")
        if game_id is not None and stream.game_id is not None and game_id != stream.game_id:
            after = None
        if len(feed.arbiter_stream.clients) + len(feed.public_stream.clients) >= \
                self.max_clients:
            raise http(503, "too many live clients", retry=True)
        client = Client(asyncio.Queue(maxsize=self.client_queue))
        first = catch_up(parts, stream, arbiter_view, after)
        stream.clients.add(client)  # from here on every new line reaches the queue, in order
        return await serve_sse(request, client, b"".join(first),
                               lambda: stream.clients.discard(client))

    # ------------------------------------------------------------------ arbiter actions

    async def arbiter_action(self, request: web.Request) -> web.Response:
        """``POST /api/arbiter``: the board's :class:`ActionSink`."""
        parts = self.parts(request)
        await self.auth.require_arbiter(request)
        action = check_action(await json_body(request))
        return await parts.actions.act(action)

    async def setup(self, request: web.Request) -> web.Response:
        """``POST /api/setup``: the board's next game set up (``pi.board.game_setup``)."""
        parts = self.parts(request)
        await self.auth.require_arbiter(request)
        try:
            setup = check_game_setup(await json_body(request))
        except ValueError as exc:
            raise http(400, str(exc)) from None
        return await parts.actions.setup(setup)


def catch_up(parts: BoardParts, stream: Stream, arbiter_view: bool, after: int | None
             ) -> list[bytes]:
    """What a new client of ``stream`` gets first: the lines after ``after`` it missed (from
    memory, or the journal re-read for the arbiter), else the whole state."""
    feed = parts.feed
    line = stream.last
    if after is not None and after <= line:
        kept = stream.since(after)
        if kept is not None:
            return kept + [encode(line, "state", feed.stream_state(arbiter_view, line))]
        session = parts.view.game
        if arbiter_view and session is not None:
            try:
                older = list(replay_journal_events(session.trace, after))
                older = [m for m in older if line_of(m) <= line]
                return older + [encode(line, "state", feed.stream_state(True, line))]
            except Exception:
                log.exception("SSE resume from the journal failed; whole state sent")
    return [encode(line if line else None, "state", feed.stream_state(arbiter_view, line))]


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


def check_action(body: dict[str, Any]) -> ArbiterRequest:
    """The body of ``POST /api/arbiter`` checked (the TRACE.md arbiter object less ``t``):
    ``{"action", "result"?, "text"?}``; a 400 naming the problem otherwise. The checks are
    ``pi.board.arbiter_request``'s, the same for a hub's ``cmd``."""
    try:
        return check_arbiter_request(body)
    except ValueError as exc:
        raise http(400, str(exc)) from None


#: The simulator's extra routes: called with the server, returns (method, path, handler, arbiter
#: only) tuples (``Parts.web_routes``).
Routes = Callable[["WebServer"], list[Route]]


class BoardActionSink:
    """The daemon's :class:`pi.web.server.ActionSink`: the board's own
    :meth:`~pi.board.view.BoardActions.act` (None: a board that takes no actions, a 409)."""

    def __init__(self, actions: BoardActions | None) -> None:
        self.actions = actions

    async def act(self, action: ArbiterRequest) -> web.Response:
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

    async def setup(self, setup: GameSetup) -> web.Response:
        if self.actions is None:
            raise http(409, "this board takes no set-up here")
        try:
            self.actions.set_up(setup)
        except ActionRefused as exc:
            raise http(409, str(exc)) from None
        return web.json_response({"setup": setup.changes()})


#: A game's files served by ``/api/games/{id}/{file}``: where the game keeps it, content type.
GAME_FILES: dict[str, tuple[Callable[[GameDir], Path], str]] = {
    "game.pdn": (lambda g: g.pdn, "application/x-chess-pdn"),
    "report.json": (lambda g: g.report, "application/json"),
    "trace.jsonl": (lambda g: g.trace, "application/jsonl")}


class StateDirGames:
    """The daemon's :class:`pi.web.server.BoardGames`: the games of its state directory
    (None: none), read on a worker thread."""

    def __init__(self, games: StateDir | None) -> None:
        self.games_dir = games

    async def listing(self) -> list[dict[str, Any]]:
        return await asyncio.get_running_loop().run_in_executor(None, self._list_games)

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

    async def file(self, request: web.Request, game_id: str, name: str
                   ) -> web.StreamResponse:
        state = self.games_dir
        if name == "report.pdf":
            if state is None or game_id not in state.game_ids():
                raise http(404, "no such game")
            trace = state.game(game_id).trace
            from pi.board.report import read_game
            return await report_pdf_response(request, lambda: read_game(trace, game_id))
        if name not in GAME_FILES or state is None or game_id not in state.game_ids():
            raise http(404, "no such game or file")
        where, content_type = GAME_FILES[name]
        path = where(state.game(game_id))
        try:
            data = await asyncio.get_running_loop().run_in_executor(None, read, path)
        except OSError:
            raise http(404, "not written yet") from None
        return web.Response(body=data, content_type=content_type, charset="utf-8")

    async def journal(self, game_id: str) -> bytes:
        state = self.games_dir
        if state is None or game_id not in state.game_ids():
            raise http(404, "no such game")
        try:
            data = await asyncio.get_running_loop().run_in_executor(
                None, read, state.game(game_id).trace)
        except OSError:
            raise http(404, "no journal for this game") from None
        return whole_lines(data)


class WebServer:
    """See the module docstring. ``board``: what is served; ``actions``: its writes
    (``POST /api/arbiter``; None: a 409); ``games``: the state directory of its past games;
    ``root``: where the arbiter's token is kept; ``host``, ``port``: where :meth:`start`
    listens (``port`` 0: any free one, read back); ``max_clients``: live SSE clients at most;
    ``client_queue``: messages a client not yet attached may fall behind; ``ping``: seconds
    between two pings of every SSE client; ``routes``: the simulator's controls."""

    def __init__(self, board: BoardView, root: Path, host: str, port: int, *,
                 actions: BoardActions | None = None, games: StateDir | None = None,
                 delay_minutes: float = 0.0, simulate: bool = False,
                 routes: Routes | None = None, max_clients: int = 200, client_queue: int = 512,
                 ping: float = 15.0) -> None:
        self.board = board
        self.root = Path(root)
        self.simulate = simulate
        self.ping = ping
        self.site = Site(host, port)
        self.auth = ArbiterAuth.of(self.root)
        #: the board's lines as live feeds (the board's listener is ``feeds.on_fed``)
        self.feeds = LiveFeeds(board, max(0.0, delay_minutes) * 60.0)
        self.parts = BoardParts(board, self.feeds, BoardActionSink(actions),
                                StateDirGames(games), about={"simulate": simulate})
        self.routes = BoardRoutes(lambda _request: self.parts, self.auth,
                                  max_clients=max_clients, client_queue=client_queue,
                                  simulator=simulate)
        self.app = self.site.app(MAX_BODY)
        self.routes.add_to(self.app.router, "", routes(self) if routes is not None else [])

    @property
    def host(self) -> str:
        return self.site.host

    @property
    def port(self) -> int:
        return self.site.port

    @property
    def token(self) -> str:
        return self.auth.token

    @property
    def throttle(self) -> Throttle:
        return self.auth.throttle

    @property
    def max_clients(self) -> int:
        """Live SSE clients at most (settable: a test's lower limit)."""
        return self.routes.max_clients

    @max_clients.setter
    def max_clients(self, value: int) -> None:
        self.routes.max_clients = value

    # ------------------------------------------------------------------ life

    async def start(self, fallback: bool = False) -> None:
        """Listens on (host, port) (:meth:`pi.web.site.Site.listen`) and starts the feeds.
        Raises WebError (one line) when the address cannot be had."""
        await self.site.listen(self.app, fallback)
        self.start_feeds()
        log.info("web pages on http://%s:%d/", self.host, self.port)

    def start_feeds(self) -> None:
        """Starts the live feeds' pings and delayed lines (``LiveFeeds.start``)."""
        self.feeds.start(self.ping)

    async def stop(self) -> None:
        self.feeds.stop()
        await self.site.close()
