"""The hub's side of nginx in front of it (issue 39): the events handed to nchan as the hub's
streams write them (``pi.hall.nchan``), nchan's publisher asked in order per channel and a
publisher that does not answer said once and passed over, ``hub init --nginx``'s
configuration (nginx itself reads it when installed), ``hub.toml``'s ``nchan`` on loopback
only, the pages' ``ETag`` (nginx revalidates by it), and the arbiter's wrong tokens throttled
per spectator's address behind nginx (``X-Real-IP``, ``behind_nginx``). nginx + nchan in front of a real hub:
tests/hall/test_hall_nginx.py."""

from __future__ import annotations

import asyncio
import logging
import shutil
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import given
from hypothesis import strategies as st

from pi.board.errors import ConfigError
from pi.hall.hall_http import HALL_STATIC, HallServer
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig, load_hub_config, parse_hub_config
from pi.hall.nchan import NchanPublisher, board_channel, split_events
from pi.web.feeds import PING, encode, encode_text
from pi.web.auth import Throttle
from pi.web.i18n import page_response
from pi.web.views import COMPACT
from tests.hall.broker import free_port

ROOT = Path(__file__).resolve().parents[2]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)

names = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12)
values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                      lambda kids: st.lists(kids, max_size=4)
                      | st.dictionaries(st.text(max_size=8), kids, max_size=4), max_leaves=12)


@given(st.lists(st.tuples(st.none() | st.integers(0, 10**16), names, values), max_size=6))
def test_the_events_nchan_is_given_are_those_the_hub_wrote(
        events: list[tuple[int | None, str, object]]) -> None:
    """Whatever the hub's streams write (``encode``: ``id``, ``event``, one line of JSON; pings
    between), nchan is given each event's name and data, in order, without the ids (it writes
    its own) or the pings."""
    written = PING.join(encode(i, n, {"v": v}) for i, n, v in events) + PING
    assert split_events(written) == [(n, COMPACT.encode({"v": v})) for _, n, v in events]
    assert split_events(encode_text(None, "hall", "{}")) == [("hall", "{}")]


def test_the_publisher_posts_in_order_per_channel_and_hears_the_subscribers() -> None:
    """Every event a POST to ``/pub/<channel>`` with its name in ``X-EventSource-Event``, one
    after the other per channel (nchan numbers them as they come); nchan's count of the
    channel's subscribers is handed to the listeners."""
    got: list[tuple[str, str, str]] = []
    heard: list[tuple[str, int]] = []

    async def pub(request: web.Request) -> web.Response:
        channel = request.match_info["channel"]
        got.append((channel, request.headers["X-EventSource-Event"], await request.text()))
        await asyncio.sleep(0.01 if channel == "hall" else 0)  # one channel slower
        return web.json_response({"messages": len(got), "subscribers": 3})

    async def scenario() -> None:
        app = web.Application()
        app.router.add_post("/pub/{channel}", pub)
        server = TestServer(app, host="127.0.0.1", port=free_port())
        await server.start_server()
        publisher = NchanPublisher(f"http://127.0.0.1:{server.port}/")
        publisher.answered.append(lambda channel, n, _sent: heard.append((channel, n)))
        await publisher.start()
        try:
            for k in range(5):
                publisher.publish("hall", "board", f'{{"k":{k}}}')
                publisher.publish(board_channel(7), "move", f'{{"ply":{k + 1}}}')
            for _ in range(200):
                if publisher.published == 10:
                    break
                await asyncio.sleep(0.01)
        finally:
            await publisher.close()
            await server.close()

    asyncio.run(scenario())
    assert [(e, d) for c, e, d in got if c == "hall"] == [("board", f'{{"k":{k}}}')
                                                         for k in range(5)]
    assert [(e, d) for c, e, d in got if c == "board-7"] == [("move", f'{{"ply":{k + 1}}}')
                                                            for k in range(5)]
    assert sorted(heard) == sorted([("hall", 3)] * 5 + [("board-7", 3)] * 5)


def test_a_publisher_that_does_not_answer_is_said_once_and_passed_over(
        caplog: pytest.LogCaptureFixture) -> None:
    """nginx stopped: what would be published is dropped (the hub's own pages go on), one
    warning names the publisher; nothing is tried again for a few seconds."""
    async def scenario() -> NchanPublisher:
        publisher = NchanPublisher(f"http://127.0.0.1:{free_port()}")
        await publisher.start()
        try:
            publisher.publish("hall", "board", "{}")
            for _ in range(300):
                if publisher.dropped:
                    break
                await asyncio.sleep(0.01)
            for _ in range(5):
                publisher.publish("hall", "board", "{}")
            await asyncio.sleep(0.05)
        finally:
            await publisher.close()
        return publisher

    with caplog.at_level(logging.WARNING, logger="pi.hall.nchan"):
        publisher = asyncio.run(scenario())
    assert (publisher.published, publisher.dropped) == (0, 6)
    said = [r.getMessage() for r in caplog.records if r.name == "pi.hall.nchan"]
    assert len(said) == 1 and "does not answer" in said[0], said


def _init(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pi.cli", "hub", "init", "--boards", "2",
                           "--dir", str(tmp_path / "hall"), "--host", "127.0.0.1", *extra],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_hub_init_nginx_writes_a_configuration_nginx_reads_and_the_hubs_nchan(
        tmp_path: Path) -> None:
    """``--nginx``: ``DIR/nginx.conf`` (TLS with the hall's certificate, the hub where
    ``--hub-http`` says, the publisher on loopback) that ``nginx -t`` takes, and ``nchan`` in
    ``hub.toml``, read back by the hub's own reader; the installer's line printed."""
    proc = _init(tmp_path, "--nginx", "--web-listen", "127.0.0.1:8443", "--hub-http",
                 "0.0.0.0:8095", "--nchan-port", "8097", "--nginx-root", str(tmp_path / "ng"))
    assert proc.returncode == 0, proc.stderr
    hall = tmp_path / "hall"
    conf = (hall / "nginx.conf").read_text()
    for line in ("listen 127.0.0.1:8443 ssl;", f"ssl_certificate {hall / 'broker.crt'};",
                 "server 127.0.0.1:8095;", "listen 127.0.0.1:8097;", "proxy_cache_lock on;",
                 "proxy_cache_revalidate on;", "nchan_subscriber eventsource;",
                 "worker_rlimit_nofile 65536;", "worker_connections 16384;",
                 f"pid {tmp_path / 'ng' / 'nginx.pid'};",
                 # the spectator's address, nginx's own (any the client sent replaced)
                 "proxy_set_header X-Real-IP $remote_addr;"):
        assert line in conf, line
    config = load_hub_config(hall / "hub.toml")
    assert config.nchan == "http://127.0.0.1:8097" and config.behind_nginx
    assert f"sudo install -m 0644 {hall / 'nginx.conf'} /etc/nginx/nginx.conf" in proc.stdout
    if NGINX is not None and Path("/usr/lib/nginx/modules/ngx_nchan_module.so").exists():
        test = subprocess.run([NGINX, "-t", "-c", str(hall / "nginx.conf")],
                              capture_output=True, text=True, timeout=60)
        assert test.returncode == 0, test.stderr


def test_hub_init_without_nginx_writes_neither(tmp_path: Path) -> None:
    proc = _init(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (tmp_path / "hall" / "nginx.conf").exists()
    config = load_hub_config(tmp_path / "hall" / "hub.toml")
    assert config.nchan is None and not config.behind_nginx


@pytest.mark.parametrize(("extra", "said"), [
    (("--web-listen", "443"), "give --nginx too"),
    (("--nginx", "--web-cert", "x.crt"), "--web-cert and --web-key go together"),
    (("--nginx", "--web-cert", "x.crt", "--web-key", "x.key"), "--web-cert: no such file"),
    (("--nginx", "--web-listen", "here"), "--web-listen: [HOST:]PORT"),
    (("--nginx", "--hub-http", "8090"), "--hub-http: HOST:PORT"),
])
def test_hub_init_refuses_bad_nginx_options_in_one_line(
        tmp_path: Path, extra: tuple[str, ...], said: str) -> None:
    proc = _init(tmp_path, *extra)
    assert proc.returncode == 2 and said in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "hall").exists()


@pytest.mark.parametrize("url", ["http://192.168.1.5:8091", "https://127.0.0.1:8091",
                                 "http://127.0.0.1", "http://127.0.0.1:8091/x", "nginx"])
def test_hub_toml_nchan_is_a_publisher_on_loopback_only(url: str) -> None:
    """Whoever takes the hub's events could publish to nginx's spectators: never another
    machine."""
    with pytest.raises(ConfigError, match="nchan"):
        parse_hub_config(f'nchan = "{url}"\n')
    assert parse_hub_config('nchan = "http://127.0.0.1:8091/"\n').nchan == "http://127.0.0.1:8091"


def test_a_page_has_an_etag_and_is_not_sent_again_when_named() -> None:
    """The hall page (as every page): an ``ETag`` per page and language; ``If-None-Match``
    naming it is a 304 (nginx's cache revalidates so every second), another language's is not."""
    async def scenario() -> None:
        app = web.Application()
        app.router.add_get("/", _page)
        async with TestClient(TestServer(app, host="127.0.0.1", port=free_port())) as client:
            first = await client.get("/", headers={"Accept-Language": "it"})
            body = await first.text()
            tag = first.headers["ETag"]
            assert first.status == 200 and body and first.headers["Content-Language"] == "it"
            again = await client.get("/", headers={"Accept-Language": "it",
                                                   "If-None-Match": tag})
            assert again.status == 304 and await again.read() == b""
            assert again.headers["ETag"] == tag
            other = await client.get("/", headers={"Accept-Language": "en",
                                                   "If-None-Match": tag})
            assert other.status == 200 and other.headers["ETag"] != tag

    asyncio.run(scenario())


async def _page(request: web.Request) -> web.StreamResponse:
    return page_response(request, HALL_STATIC / "hall.html")


def test_hub_init_nginx_takes_the_organisers_certificate_or_none(tmp_path: Path) -> None:
    """``--web-cert``/``--web-key``: the organiser's certificate (one the spectators' browsers
    trust) instead of the hall's; a ``--plain-mqtt`` hall without one: plain HTTP on port 80,
    said in the file."""
    (tmp_path / "own.crt").write_text("certificate")
    (tmp_path / "own.key").write_text("key")
    own = _init(tmp_path, "--nginx", "--web-cert", str(tmp_path / "own.crt"), "--web-key",
                str(tmp_path / "own.key"))
    assert own.returncode == 0, own.stderr
    conf = (tmp_path / "hall" / "nginx.conf").read_text()
    assert f"ssl_certificate {tmp_path / 'own.crt'};" in conf and "listen 443 ssl;" in conf
    assert f"ssl_certificate_key {tmp_path / 'own.key'};" in conf
    plain = _init(tmp_path / "plain", "--plain-mqtt", "--nginx")
    assert plain.returncode == 0, plain.stderr
    conf = (tmp_path / "plain" / "hall" / "nginx.conf").read_text()
    assert "listen 80;" in conf and "PLAIN HTTP" in conf and "ssl_certificate" not in conf


def _wrong_logins(tmp_path: Path, behind_nginx: bool,
                  tries: list[tuple[str, str | None]]) -> tuple[Throttle, list[str]]:
    """Wrong tokens at ``POST /api/login`` of a hub (in-process, no broker), each from a peer
    address (all loopback: 127.0.0.1 is where nginx asks from) with an ``X-Real-IP`` or none;
    the hub's throttle and the wrong-token lines it logged."""
    lines: list[str] = []

    class Said(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "wrong arbiter token" in record.getMessage():
                lines.append(record.getMessage())

    async def scenario() -> Throttle:
        hub = Hub(HubConfig(hall="t", state_dir=tmp_path, behind_nginx=behind_nginx), tmp_path)
        server = HallServer(hub, "127.0.0.1", 0)
        await server.start()
        try:
            for peer, real in tries:
                connector = aiohttp.TCPConnector(local_addr=(peer, 0))
                async with aiohttp.ClientSession(connector=connector) as http:
                    async with http.post(f"http://127.0.0.1:{server.port}/api/login",
                                         json={"token": "wrong"},
                                         headers={} if real is None else {"X-Real-IP": real}
                                         ) as resp:
                        assert resp.status == 401
            return server.auth.throttle
        finally:
            await server.stop()
            hub.close()

    said = Said()
    logging.getLogger("pi.web.site").addHandler(said)
    try:
        throttle = asyncio.run(scenario())
    finally:
        logging.getLogger("pi.web.site").removeHandler(said)
    return throttle, lines


def test_behind_nginx_wrong_tokens_are_throttled_per_spectators_address(
        tmp_path: Path) -> None:
    """Behind nginx every request comes from 127.0.0.1: one stranger's wrong guesses slowed
    every arbiter's login, and the log named no one. With ``behind_nginx`` the hub takes the
    address nginx was asked from (``X-Real-IP``, nginx's own) for the requests nginx forwards:
    two spectators' wrong tokens are counted apart and logged by their addresses."""
    free = Throttle().free
    tries = [("127.0.0.1", "203.0.113.7")] * (free + 1) + [("127.0.0.1", "198.51.100.9")]
    throttle, lines = _wrong_logins(tmp_path, True, tries)
    assert throttle.delay("203.0.113.7") > 0  # its guesses past the free ones slowed down
    assert throttle.delay("198.51.100.9") == 0  # the other's not
    assert throttle.delay("127.0.0.1") == 0  # nginx's own address not
    assert [line.split(" from ")[1].split()[0] for line in lines] == ["203.0.113.7",
                                                                      "198.51.100.9"]


@pytest.mark.parametrize("behind_nginx", [True, False])
def test_a_forged_x_real_ip_is_ignored(tmp_path: Path, behind_nginx: bool) -> None:
    """``X-Real-IP`` is taken only from nginx (the peer 127.0.0.1) and only behind nginx: a
    client sending its own from another address (here 127.0.0.2), or a hub without
    ``behind_nginx``, is counted at its own address, whatever it claims."""
    free = Throttle().free
    peer = "127.0.0.2" if behind_nginx else "127.0.0.1"
    claims = [f"192.0.2.{n}" for n in range(free + 1)]  # a new address at each guess
    throttle, lines = _wrong_logins(tmp_path, behind_nginx, [(peer, c) for c in claims])
    assert throttle.delay(peer) > 0
    assert all(throttle.delay(c) == 0 for c in claims)
    assert lines and all(f"from {peer} " in line for line in lines), lines
