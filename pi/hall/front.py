"""``damiera hub front``: the hall's one address over a hub of several processes
(``pi.hall.shares``; ``pi/hall/HUB_API.md`` unchanged: the same endpoints, whatever the number of
processes behind them).

The front holds no replica and no MQTT connection. It reads each share's hall stream
(``GET /events``) as the public, and as the arbiter while an arbiter's page is open here (a
share builds a view's summaries only for a page of that view: the console's are not built
while nobody looks; the shares' token is the front's, from a state directory they share or a
copy of ``arbiter.token``), and keeps every board's newest summary of each view, which it
serves as one hall (``/api/hall`` and its own ``/events``, its own ``id`` sequence, the hall
page's coalescing client of ``pi.hall.hall_http``). A share that stops leaves its boards' last
summaries on the page (never a blank hall); its stream is read again as soon as it answers, and
the whole of its boards comes with it.

Everything under ``/boards/<N>/`` is forwarded to the share owning board N (:func:`share_of`),
streams included (a board's live page). The round feeds, results, flags and alarms are asked
of every share and merged in board order (alarm ids made the hall's own: ``id × N + K``). The
pairings are kept whole here (``DIR/pairings.csv``) and each share sent its own boards' rows;
"start round" is kept here (``DIR/round.json``) and sent to every share with boards in the
round. Whenever a share's stream (re)connects, the share is brought up to date: the rows it
lacks, and the round started last if it has not started it.

One event loop; the shares are asked concurrently, each at most :data:`ASK_TIMEOUT` seconds: a
share that does not answer leaves its boards out of that answer (logged), never a 500.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import io
import json
import logging
import re
import signal
import sys
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, Awaitable, Iterable

import aiohttp
from aiohttp import web

from engine.errors import StateError
from pi.board.config import HttpSpec, TomlReader, parse_http
from pi.board.errors import ConfigError
from pi.board.notify import Notifier, keep_told
from pi.board.statedir import atomic_write
from pi.hall.hall_http import (MAX_CSV, HallClient, Shown, add_hall_routes,
                               admit_hall_client, catch_up, first_event_id, hall_event,
                               read_pairings, summary_key)
from pi.hall.hub_config import DEFAULT_HTTP, load_hub_config
from pi.hall.protocol import SEGMENT
from pi.hall.replica import board_key
from pi.hall.rounds import ROUND_FILE, Pairings, results_csv, round_order
from pi.hall.shares import MAX_SHARES, share_of
from pi.web.feeds import encode, encode_text, serve_sse
from pi.web.httputil import conditional, http
from pi.web.site import ArbiterAuth
from pi.web.site import Site

log = logging.getLogger(__name__)

__all__ = ["Front", "FrontConfig", "front_config_from_args", "split_pdn", "main_front",
           "ASK_TIMEOUT", "RETRY"]

#: Seconds a share has to answer one question of the front.
ASK_TIMEOUT = 10.0
#: Seconds between two attempts to read a share's stream that is not answering.
RETRY = 1.0
PDN = "application/x-chess-pdn; charset=utf-8"
#: Request headers a board's page sends that its share must see (the rest stays here).
_FORWARDED = ("Authorization", "Cookie", "Accept", "Content-Type", "Last-Event-ID",
              "If-None-Match", "If-Modified-Since", "Range")
#: Response headers that belong to one connection, not to the answer.
_HOP = frozenset({"connection", "keep-alive", "transfer-encoding", "upgrade",
                  "proxy-authenticate", "proxy-authorization", "te", "trailer"})
_BOARD_TAG = re.compile(r'^\[Board "([^"]*)"\]$', re.MULTILINE)


#: The longest event read from a share's stream (a board's summary is ~1 kB).
MAX_EVENT = 1 << 20


@dataclass(frozen=True, slots=True)
class FrontConfig:
    """The front's configuration: the hall's name and event (shown on the hall page), where it
    serves, its state directory, and the shares' HTTP addresses (share 0 first)."""

    shares: tuple[HttpSpec, ...]
    state_dir: Path
    hall: str = "hall"
    event: str | None = None
    http: HttpSpec = DEFAULT_HTTP


def front_config_from_args(config: str | None, shares: str | None, http_text: str | None,
                           state_dir: str | None) -> FrontConfig:
    """hub.toml's hall, event, http, state_dir and ``[[share]]`` addresses, with the command
    line's overrides. Raises ConfigError (one line)."""
    cli = TomlReader("command line", {})
    hall, event, http_spec, root = "hall", None, DEFAULT_HTTP, None
    addresses: tuple[HttpSpec, ...] = ()
    if config is not None:
        cfg = load_hub_config(config)
        hall, event, http_spec, root = cfg.hall, cfg.event, cfg.http, cfg.state_dir
        addresses = tuple(s.http for s in cfg.shares)
    if shares is not None:
        addresses = tuple(parse_http(a, lambda problem: cli.error("--shares", problem))
                          for a in shares.split(",") if a.strip())
    if http_text is not None:
        http_spec = parse_http(http_text, lambda problem: cli.error("--http", problem))
    if state_dir is not None:
        root = Path(state_dir).resolve()
    if not 2 <= len(addresses) <= MAX_SHARES:
        raise ConfigError("command line" if shares is not None else (config or "command line"),
                          "shares", f"{len(addresses)} share(s): a front serves 2..{MAX_SHARES} "
                          "(give --shares HOST:PORT,HOST:PORT or [[share]] tables in hub.toml)")
    if root is None:
        raise ConfigError(config or "command line", "state_dir",
                          "no state directory: give --state-dir DIR or state_dir")
    return FrontConfig(addresses, root, hall, event, http_spec)


def split_pdn(text: str) -> list[tuple[str, str]]:
    """A multi-game PDN (a share's round feed) as (board, game text) pairs: a game begins at
    a tag line that follows a blank line or the start (movetext never begins with ``[``);
    ``board`` is its ``[Board]`` tag ("" without one)."""
    games: list[list[str]] = []
    in_tags = False
    for line in text.split("\n"):  # PDN lines end at "\n" (a name may hold U+2028)
        is_tag = line.startswith("[")
        if is_tag and not in_tags:
            games.append([])
        in_tags = is_tag if line.strip() else in_tags and is_tag
        if games:
            games[-1].append(line)
    out = []
    for lines in games:
        body = "\n".join(lines).strip("\n") + "\n"
        m = _BOARD_TAG.search(body)
        out.append(("" if m is None else m.group(1), body))
    return out


class Front:
    """See the module docstring."""

    def __init__(self, config: FrontConfig) -> None:
        config.state_dir.mkdir(parents=True, exist_ok=True)
        self.site = Site(config.http.host, config.http.port)
        self.auth = ArbiterAuth.of(config.state_dir)
        self.token = self.auth.token
        self.max_clients = 500
        self.ping = 15.0
        self.config = config
        self.count = len(config.shares)
        self.bases = [f"http://{_host(s.host)}:{s.port}" for s in config.shares]
        self.pairings = Pairings(config.state_dir)
        self.round_path = config.state_dir / ROUND_FILE
        self.current: str | None = None
        self.seq = first_event_id()
        #: per share: how far its start's read-back is, from its public stream's ``hall``
        #: events (None: done, or not heard); and the sum the pages were last told
        self.share_reading: dict[int, dict[str, int] | None] = {}
        self._reading_said: dict[str, int] | None = None
        #: (board, arbiter view) → (seq, summary key, summary): the hall as last heard
        self.shown: Shown = {}
        self.hall_clients: set[HallClient] = set()
        #: (share, arbiter view) → its stream is being read
        self.up: dict[tuple[int, bool], bool] = {}
        self.session: aiohttp.ClientSession | None = None
        self._tasks: list[asyncio.Task[None]] = []
        #: the shares' arbiter streams, read while an arbiter's page is open here
        self._arbiter_streams: list[asyncio.Task[None]] = []
        self.app = self._make_app()

    # ------------------------------------------------------------------ life

    async def start(self) -> None:
        """Listens, and reads every share's streams (retried while a share does not answer).
        Raises WebError (one line) when the address cannot be had."""
        self.pairings.load()
        try:
            obj = json.loads(self.round_path.read_text(encoding="utf-8"))
            rnd = obj.get("round") if isinstance(obj, dict) else None
            self.current = rnd if isinstance(rnd, str) and rnd else None
        except (OSError, ValueError):
            self.current = None
        self.session = aiohttp.ClientSession(
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=5.0),
            auto_decompress=False, read_bufsize=1 << 20)
        await self.site.listen(self.app)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._stream(k, False)) for k in range(self.count)]
        self._tasks.append(loop.create_task(self._ping_loop()))
        log.warning("hall front on http://%s:%d/ over %d shares: %s", self.host, self.port,
                    self.count, ", ".join(self.bases))

    async def stop(self) -> None:
        for t in [*self._tasks, *self._arbiter_streams]:
            t.cancel()
        for client in list(self.hall_clients):
            client.close()
        await self.site.close()
        if self.session is not None:
            await self.session.close()

    def owner(self, board: str) -> int:
        return share_of(board, self.count)

    def status(self) -> str:
        """One line for systemd's ``STATUS=`` (``systemctl status damiera-front``): where it
        serves, the shares whose hall stream it reads, their read-backs' progress."""
        reading = [k for k in range(self.count) if self.up.get((k, False))]
        parts = [f"http {self.host}:{self.port}",
                 f"{len(reading)} of {self.count} shares answering"]
        summed = self.reading_back()
        if summed is not None:
            parts.append(f"reading the games back: {summed['boards']} of {summed['of']} boards")
        return "; ".join(parts)

    # ------------------------------------------------------------------ the shares' streams

    async def _stream(self, share: int, arbiter: bool) -> None:
        """Share ``share``'s hall stream of one view, read for ever."""
        url = self.bases[share] + "/events"
        headers = {"Accept": "text/event-stream"}
        if arbiter:
            headers["Authorization"] = f"Bearer {self.token}"
        assert self.session is not None
        while True:
            try:
                async with self.session.get(url, headers=headers, timeout=aiohttp.ClientTimeout(
                        total=None, sock_connect=5.0, sock_read=3 * self.ping + 5)) as resp:
                    if resp.status == 401:
                        raise aiohttp.ClientError(
                            "401: its arbiter token is not the front's (give them the same "
                            "arbiter.token: one state directory, or a copy)")
                    if resp.status != 200:
                        raise aiohttp.ClientError(f"GET /events: {resp.status}")
                    self.up[(share, arbiter)] = True
                    log.info("share %d (%s view): stream open", share,
                             "arbiter" if arbiter else "public")
                    if not arbiter:
                        self._spawn(self._sync(share))
                    await self._read(share, arbiter, resp)
            except asyncio.CancelledError:
                raise
            except (aiohttp.ClientError, asyncio.TimeoutError, OSError, ValueError) as exc:
                if self.up.get((share, arbiter), True):
                    log.warning("share %d at %s is not answering (%s): its boards keep their "
                                "last state; tried again every %g s", share, self.bases[share],
                                str(exc)[:120] or type(exc).__name__, RETRY)
            self.up[(share, arbiter)] = False
            if not arbiter:  # a share away reads nothing back as far as the hall can tell
                self._share_reading(share, None)
            await asyncio.sleep(RETRY)

    async def _read(self, share: int, arbiter: bool, resp: aiohttp.ClientResponse) -> None:
        """The stream read as it comes, whole events cut at their blank line (not a read per
        line: a share sends a slice of summaries at once)."""
        rest = b""
        async for data in resp.content.iter_any():
            data = rest + data
            if b"\r" in data:  # SSE allows CRLF (a share writes LF); a pair cut between reads
                data = data.replace(b"\r\n", b"\n")  # is whole here: the \r waited in rest
            *events, rest = data.split(b"\n\n")
            for raw in events:
                self._message(share, arbiter, raw)
            if len(rest) > MAX_EVENT:  # no share's event is that long: read it again
                raise ValueError(f"an event longer than {MAX_EVENT} bytes")

    def _message(self, share: int, arbiter: bool, raw: bytes) -> None:
        """One SSE event of a share (its lines without the blank one)."""
        event, data = "message", []
        for line in raw.decode("utf-8", "replace").split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
        if not data:
            return
        text = "\n".join(data)
        try:
            obj = json.loads(text)
        except ValueError:
            return
        if isinstance(obj, dict):
            self._event(share, arbiter, event, obj, text)

    def _event(self, share: int, arbiter: bool, event: str, obj: dict[str, Any],
               text: str) -> None:
        if event == "board":
            board = obj.get("board")
            if isinstance(board, str) and self.owner(board) == share:
                self._board(board, arbiter, obj, text)
        elif event == "hall" and not arbiter:
            self._share_reading(share, obj.get("reading_back"))
        elif event in ("flag", "alarm") and arbiter:
            if event == "alarm":
                obj = self._alarm(share, obj)
            self.seq += 1
            msg = encode(self.seq, event, obj)
            for client in list(self.hall_clients):
                if client.arbiter:
                    client.event(self.seq, msg)

    def reading_back(self) -> dict[str, int] | None:
        """The shares' read-backs summed (HUB_API.md ``reading_back``); None: none reading."""
        return _summed(self.share_reading.values())

    def _share_reading(self, share: int, value: object) -> None:
        """Share ``share`` says how far its read-back is: the pages told of the new sum."""
        self.share_reading[share] = _reading(value)
        now = self.reading_back()
        if now == self._reading_said:
            return
        self._reading_said = now
        self.seq += 1
        msg = hall_event(self.seq, now)
        for client in list(self.hall_clients):
            client.event(self.seq, msg)

    def _board(self, board: str, arbiter: bool, summary: dict[str, Any], text: str) -> None:
        """A share's summary of ``board`` under the front's own ``id``: its JSON (``text``) as
        the share wrote it, not encoded again."""
        key = summary_key(summary)
        old = self.shown.get((board, arbiter))
        if old is not None and old[1] == key:
            return
        self.seq += 1
        self.shown[(board, arbiter)] = (self.seq, key, summary)
        msg = (encode_text(self.seq, "board", text) if "\n" not in text
               else encode(self.seq, "board", summary))
        for client in list(self.hall_clients):
            if client.arbiter == arbiter:
                client.board(board, self.seq, msg)

    def _alarm(self, share: int, alarm: dict[str, Any]) -> dict[str, Any]:
        """A share's alarm with the hall's id (``id × N + K``: unique over the shares)."""
        n = alarm.get("id")
        if isinstance(n, int) and not isinstance(n, bool):
            return {**alarm, "id": n * self.count + share}
        return alarm

    async def _ping_loop(self) -> None:
        while True:
            await asyncio.sleep(self.ping)
            for client in list(self.hall_clients):
                client.ping()

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.append(task)
        task.add_done_callback(lambda t: self._tasks.remove(t) if t in self._tasks else None)

    async def _sync(self, share: int) -> None:
        """Share ``share`` brought up to date (it was down, or is new): the pairings rows of
        its boards it does not hold, and the round started last if it has not started it."""
        try:
            mine = [r for r in self.pairings.rows.values() if self.owner(r["board"]) == share]
            if mine:
                status, held = await self.ask(share, "GET", "/api/pairings")
                have = [] if status != 200 or not isinstance(held, list) else held
                missing = [r for r in mine if r not in have]
                if missing:
                    status, _ = await self.ask(share, "POST", "/api/pairings",
                                               raw=_csv(missing), content_type="text/csv")
                    log.info("share %d: %d pairing row(s) sent (%d)", share, len(missing), status)
            rnd = self.current
            if rnd is not None and any(r["round"] == rnd for r in mine):
                status, rounds = await self.ask(share, "GET", "/api/rounds")
                if status == 200 and isinstance(rounds, dict) and rounds.get("current") != rnd:
                    status, _ = await self.ask(share, "POST", f"/api/rounds/{rnd}/start")
                    log.info("share %d: round %s started there (%d)", share, rnd, status)
        except Exception:  # retried at the share's next connection: logged, never fatal
            log.exception("share %d could not be brought up to date", share)

    # ------------------------------------------------------------------ asking the shares

    async def ask(self, share: int, method: str, path: str, *, arbiter: bool = True,
                  raw: bytes | None = None, content_type: str | None = None
                  ) -> tuple[int, Any]:
        """One question to a share (as the arbiter, unless ``arbiter`` False): its status and
        JSON answer; (0, None) when it does not answer in :data:`ASK_TIMEOUT` s."""
        assert self.session is not None
        headers = {}
        if arbiter:
            headers["Authorization"] = f"Bearer {self.token}"
        if content_type is not None:
            headers["Content-Type"] = content_type
        try:
            async with self.session.request(
                    method, self.bases[share] + path, data=raw, headers=headers,
                    timeout=aiohttp.ClientTimeout(total=ASK_TIMEOUT)) as resp:
                body = await resp.read()
                if resp.content_type == "application/json":
                    return resp.status, json.loads(body or b"null")
                return resp.status, (body, resp.headers.get("Last-Modified"))
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError, ValueError) as exc:
            log.warning("share %d: %s %s not answered (%s)", share, method, path,
                        str(exc)[:120] or type(exc).__name__)
            return 0, None

    async def ask_all(self, method: str, path: str, *, arbiter: bool = True,
                      shares: list[int] | None = None) -> list[tuple[int, Any]]:
        """The same question to every share (or ``shares``), concurrently, in share order."""
        which = list(range(self.count)) if shares is None else shares
        return list(await asyncio.gather(*(self.ask(k, method, path, arbiter=arbiter)
                                           for k in which)))

    # ------------------------------------------------------------------ the app

    @property
    def host(self) -> str:
        return self.site.host

    @property
    def port(self) -> int:
        return self.site.port

    def _make_app(self) -> web.Application:
        app = self.site.app(MAX_CSV)
        add_hall_routes(app.router, self, self.auth, self.whoami)
        app.router.add_route("*", "/boards/{board}/{tail:.*}", self.forward)
        return app

    async def whoami(self, request: web.Request) -> web.Response:
        return web.json_response({"arbiter": await self.auth.is_arbiter(request), "simulate": False,
                                  "hall": True})

    # ------------------------------------------------------------------ the hall

    def _summaries(self, arbiter: bool) -> list[dict[str, Any]]:
        found = [(b, s) for (b, who), (_, _, s) in self.shown.items() if who is arbiter]
        return [s for _, s in sorted(found, key=lambda bs: board_key(bs[0]))]

    async def api_hall(self, request: web.Request) -> web.Response:
        """The public view from the hall as last heard (a share away: its boards' last
        summaries); the arbiter's asked of every share."""
        arbiter = await self.auth.is_arbiter(request)
        if arbiter:
            got = await self.ask_all("GET", "/api/hall")
            halls = [answer for status, answer in got
                     if status == 200 and isinstance(answer, dict)]
            boards = sorted((b for answer in halls for b in answer.get("boards", [])),
                            key=lambda b: board_key(str(b.get("board"))))
            read_back = _summed(_reading(answer.get("reading_back")) for answer in halls)
        else:  # the shares' boards as last heard: nothing asked of them
            boards, read_back = self._summaries(False), self.reading_back()
        return web.json_response({"hall": self.config.hall, "event": self.config.event,
                                  "view": "arbiter" if arbiter else "public",
                                  "server_time": time.time(), "boards": boards,
                                  "reading_back": read_back},
                                 headers={"Cache-Control": "no-store"})

    async def hall_events(self, request: web.Request) -> web.StreamResponse:
        """The hall's stream over every share (HUB_API.md ``GET /events``; ``id`` the front's)."""
        arbiter = await self.auth.is_arbiter(request)
        client, after = admit_hall_client(request, self.seq, self.hall_clients, self.max_clients,
                                          arbiter)
        if arbiter and not self._arbiter_streams:
            # the shares' whole halls come on these, and go to the page as they come
            loop = asyncio.get_running_loop()
            self._arbiter_streams = [loop.create_task(self._stream(k, True))
                                     for k in range(self.count)]
        first = catch_up(self.shown, arbiter, after)  # before ``gone`` may empty it
        first += hall_event(self.seq, self.reading_back())

        def gone() -> None:
            self.hall_clients.discard(client)
            if arbiter and not any(c.arbiter for c in self.hall_clients):
                for t in self._arbiter_streams:
                    t.cancel()
                self._arbiter_streams = []
                # not kept up to date from now on: the next console gets them anew
                self.shown = {k: v for k, v in self.shown.items() if not k[1]}
        return await serve_sse(request, client, first, gone)

    async def api_flags(self, request: web.Request) -> web.Response:
        await self.auth.require_arbiter(request)
        got = _read_back(await self.ask_all("GET", "/api/flags" + _query(request)))
        out = [f for status, items in got if status == 200 and isinstance(items, list)
               for f in items]
        out.sort(key=lambda x: (x.get("wall") or 0.0, x.get("flag", {}).get("t", 0.0)),
                 reverse=True)
        return web.json_response(out, headers={"Cache-Control": "no-store"})

    async def api_alarms(self, request: web.Request) -> web.Response:
        await self.auth.require_arbiter(request)
        got = await self.ask_all("GET", "/api/alarms" + _query(request))
        out = [self._alarm(k, a) for k, (status, items) in enumerate(got)
               if status == 200 and isinstance(items, list) for a in items]
        out.sort(key=lambda a: (a.get("time") or 0.0, a.get("id") or 0), reverse=True)
        return web.json_response(out[:500])

    # ------------------------------------------------------------------ pairings and rounds

    async def get_pairings(self, request: web.Request) -> web.Response:
        rows = sorted(self.pairings.rows.values(),
                      key=lambda r: (r["round"], board_key(r["board"])))
        return web.json_response(rows)

    async def post_pairings(self, request: web.Request) -> web.Response:
        """Kept whole here; each share is sent its own boards' rows (HUB_API.md)."""
        await self.auth.require_arbiter(request)
        rows = await read_pairings(request)
        self.pairings.merge(rows)
        per: dict[int, list[dict[str, str]]] = {}
        for row in rows:
            per.setdefault(self.owner(row["board"]), []).append(row)
        got = await asyncio.gather(*(self.ask(k, "POST", "/api/pairings", raw=_csv(part),
                                              content_type="text/csv")
                                     for k, part in sorted(per.items())))
        pushed = sum(int(a.get("pushed", 0)) for status, a in got
                     if status == 200 and isinstance(a, dict))
        rounds = sorted({row["round"] for row in rows}, key=round_order)
        return web.json_response({"kept": len(rows), "rounds": rounds, "pushed": pushed})

    def _round(self, request: web.Request) -> str:
        rnd = request.match_info["round"]
        if not rnd or len(rnd) > 32 or not SEGMENT.fullmatch(rnd):
            raise http(400, "not a round name")
        return rnd

    def _round_shares(self, rnd: str) -> list[int]:
        return sorted({self.owner(b) for b in self.pairings.of_round(rnd)})

    async def get_rounds(self, request: web.Request) -> web.Response:
        await self.auth.require_arbiter(request)
        return web.json_response({"rounds": self.pairings.rounds(), "current": self.current},
                                 headers={"Cache-Control": "no-store"})

    async def _table(self, rnd: str, method: str, path: str) -> list[dict[str, Any]]:
        got = _read_back(await self.ask_all(method, path, shares=self._round_shares(rnd)))
        boards = [b for status, answer in got if status == 200 and isinstance(answer, dict)
                  for b in answer.get("boards", [])]
        return sorted(boards, key=lambda b: board_key(str(b.get("board"))))

    async def get_round(self, request: web.Request) -> web.Response:
        await self.auth.require_arbiter(request)
        rnd = self._round(request)
        if not self.pairings.of_round(rnd):
            raise http(404, f"round {rnd} has no pairings")
        return web.json_response({"round": rnd, "started": self.current == rnd,
                                  "boards": await self._table(rnd, "GET", f"/api/rounds/{rnd}")},
                                 headers={"Cache-Control": "no-store"})

    async def start_round(self, request: web.Request) -> web.Response:
        """COMP 4.4.2: "start round r" of every share with boards in it (kept here: a share
        that does not answer now starts it when it next connects)."""
        await self.auth.require_arbiter(request)
        rnd = self._round(request)
        if not self.pairings.of_round(rnd):
            raise http(404, f"round {rnd[:32]!r} has no pairings (upload them first)")
        atomic_write(self.round_path, json.dumps({"round": rnd}) + "\n")
        self.current = rnd
        table = await self._table(rnd, "POST", f"/api/rounds/{rnd}/start")
        return web.json_response({"round": rnd, "started": True, "boards": table})

    async def _results(self, request: web.Request) -> list[dict[str, Any]]:
        got = _read_back(await self.ask_all("GET", "/api/results",
                                            arbiter=await self.auth.is_arbiter(request)))
        rows = [r for status, items in got if status == 200 and isinstance(items, list)
                for r in items]
        return sorted(rows, key=lambda r: (str(r.get("round")), board_key(str(r.get("board")))))

    async def api_results(self, request: web.Request) -> web.Response:
        return web.json_response(await self._results(request))

    async def results_csv(self, request: web.Request) -> web.Response:
        return web.Response(text=results_csv(await self._results(request)),
                            content_type="text/csv", charset="utf-8")

    async def round_pdn(self, request: web.Request) -> web.StreamResponse:
        """Every share's games of the round, one PDN in board-number order."""
        rnd = request.match_info["round"]
        if not rnd or len(rnd) > 32 or not SEGMENT.fullmatch(rnd):
            raise http(404, f"no board plays round {rnd[:20]}")
        got = _read_back(await self.ask_all("GET", f"/rounds/{rnd}/games.pdn",
                                            arbiter=False))
        games: list[tuple[str, str]] = []
        wall = 0.0
        for status, answer in got:
            if status != 200 or not isinstance(answer, tuple):
                continue
            body, modified = answer
            games += split_pdn(body.decode("utf-8", "replace"))
            with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
                wall = max(wall, parsedate_to_datetime(modified).timestamp())
        if not games:
            raise http(404, f"no board plays round {rnd[:20]}")
        games.sort(key=lambda bg: board_key(bg[0]))
        return conditional(request, "\n".join(g for _, g in games).encode(), PDN,
                           wall or time.time())

    # ------------------------------------------------------------------ a board's pages

    async def board_slash(self, request: web.Request) -> web.StreamResponse:
        board = request.match_info["board"]
        if not SEGMENT.fullmatch(board):
            raise http(404, "no such board in this hall")
        raise web.HTTPFound(f"/boards/{board}/")

    async def forward(self, request: web.Request) -> web.StreamResponse:
        """``/boards/<N>/…`` as the share owning board N answers it (streams as they come)."""
        board = request.match_info["board"]
        if not SEGMENT.fullmatch(board):
            raise http(404, "no such board in this hall")
        share = self.owner(board)
        assert self.session is not None
        headers = {h: request.headers[h] for h in _FORWARDED if h in request.headers}
        body = await request.read() if request.can_read_body else None
        try:
            upstream = await self.session.request(
                request.method, self.bases[share] + request.rel_url.path_qs, data=body,
                headers=headers, allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=5.0))
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError):
            raise http(503, f"board {board}'s share ({share}) is not answering; try again",
                       retry=True) from None
        try:
            out = web.StreamResponse(status=upstream.status, reason=upstream.reason)
            for name, value in upstream.headers.items():
                if name.lower() not in _HOP:
                    out.headers.add(name, value)
            await out.prepare(request)
            async for chunk in upstream.content.iter_any():
                await out.write(chunk)
            await out.write_eof()
            return out
        except (aiohttp.ClientError, asyncio.TimeoutError):
            return out  # the share went away mid-answer: the page's stream reconnects
        finally:
            upstream.release()


def _host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _reading(value: object) -> dict[str, int] | None:
    """A share's ``reading_back`` as it said it (two counts); None for null or anything else."""
    if isinstance(value, dict):
        boards, of = value.get("boards"), value.get("of")
        if type(boards) is int and type(of) is int:  # not a bool, not a float
            return {"boards": boards, "of": of}
    return None


def _summed(readings: Iterable[dict[str, int] | None]) -> dict[str, int] | None:
    """The shares' read-backs added up; None when no share is reading back."""
    got = [r for r in readings if r is not None]
    if not got:
        return None
    return {key: sum(r[key] for r in got) for key in ("boards", "of")}


def _read_back(got: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    """The shares' answers, unless a share is reading its games back after its start (503): then
    the hall's answer is that 503 too, as what it lists would lack that share's boards (a share
    that does not answer at all is left out, as before)."""
    for status, answer in got:
        if status == 503:
            why = answer.get("error") if isinstance(answer, dict) else None
            raise http(503, str(why or "a share of the hub is starting; try again"), retry=True)
    return got


def _query(request: web.Request) -> str:
    return f"?{request.query_string}" if request.query_string else ""


def _csv(rows: list[dict[str, str]]) -> bytes:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["round", "board", "white", "black"])
    for r in rows:
        w.writerow([r["round"], r["board"], r["white"], r["black"]])
    return out.getvalue().encode("utf-8")


async def run_front(config: FrontConfig) -> None:
    """The front until SIGTERM/SIGINT; under systemd (``systemd/damiera-front.service``,
    ``Type=notify``) READY=1 once it listens, then STATUS= (:meth:`Front.status`) and
    WATCHDOG=1 from the loop, STOPPING=1 at the end."""
    front = Front(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    notifier = Notifier(unset_environment=True)
    await front.start()
    said = front.status()
    notifier.ready(said)
    told = asyncio.ensure_future(keep_told(notifier, front.status, said))
    try:
        await stop.wait()
    finally:
        notifier.stopping("stopping")
        told.cancel()
        await front.stop()
        notifier.close()


def main_front(args: argparse.Namespace) -> int:
    """``damiera hub front``: a bad configuration or an address that cannot be had is one line
    (exit 2)."""
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    config = front_config_from_args(args.config, args.shares, args.http, args.state_dir)
    try:
        asyncio.run(run_front(config))
    except OSError as exc:
        raise StateError(f"hub front: {exc.strerror or exc}: {exc.filename or ''}"
                         .rstrip(": ")) from None
    return 0

