"""A request fuzzer against the running server (simulated board, loopback): hypothesis makes
methods, paths, headers and bodies; no answer may be a 5xx or a traceback, and the board goes
on answering."""

from __future__ import annotations

import http.client
import json
import socket
from typing import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from web_rig import Rig

PATHS = ["/", "/arbiter", "/simulator", "/api/state", "/api/whoami", "/events",
         "/broadcast.pdn", "/api/trace.jsonl", "/game.pdn", "/api/games",
         "/api/games/x/game.pdn", "/api/arbiter", "/api/login", "/api/logout",
         "/api/sim/lift", "/api/sim/place", "/api/sim/button", "/api/sim/board",
         "/api/sim/oled.png", "/static/x.js"]
SAFE_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF,
                                  exclude_characters="\x7f"), max_size=60)
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | SAFE_TEXT,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(SAFE_TEXT, kids, max_size=4),
    max_leaves=12)
ACTIONS = st.fixed_dictionaries({"action": st.sampled_from(
    ["note", "start_clock", "stop_clock", "restore", "impose_count", "adjudicate", "x"])},
    optional={"text": SAFE_TEXT, "result": st.sampled_from(["1-0", "0-1", "*", "2-0", "z"]),
              "square": st.one_of(SAFE_TEXT, st.integers(-5, 120)), "token": SAFE_TEXT,
              "name": SAFE_TEXT, "side": st.sampled_from(["white", "black", "red"])})


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    with Rig(tmp_path_factory.mktemp("fuzz")) as r:
        r.wait(lambda s: s["phase"] == "playing")
        r.server.throttle.free = 10 ** 9  # wrong tokens are the fuzzer's daily bread: no waits
        yield r


def request(port: int, method: str, path: str, headers: dict[str, str], body: bytes | None
            ) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for k, v in headers.items():
            conn.putheader(k, v)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        if resp.getheader("Content-Type", "").startswith("text/event-stream"):
            return resp.status  # a live stream: its head is the answer
        data = resp.read()
        if resp.status >= 400 and data:
            assert b"Traceback" not in data
        return resp.status
    finally:
        conn.close()


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "BREW"]),
       path=st.one_of(st.sampled_from(PATHS),
                      st.builds(lambda p, tail: p + tail, st.sampled_from(PATHS),
                                st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E),
                                        max_size=30))),
       headers=st.dictionaries(
           st.sampled_from(["Authorization", "Cookie", "Last-Event-ID", "Origin",
                            "Sec-Fetch-Site", "If-None-Match", "If-Modified-Since",
                            "Content-Type", "Range", "Accept", "X-Forwarded-For"]),
           SAFE_TEXT, max_size=5),
       real_token=st.booleans(),
       body=st.one_of(st.none(), st.binary(max_size=300),
                      JSONISH.map(lambda v: json.dumps(v).encode()),
                      ACTIONS.map(lambda v: json.dumps(v).encode())))
def test_no_request_gets_a_5xx(rig: Rig, method: str, path: str, headers: dict[str, str],
                               real_token: bool, body: bytes | None) -> None:
    if real_token:
        headers = {**headers, "Authorization": f"Bearer {rig.token}"}
    headers = {k: v.strip() for k, v in headers.items()}
    status = request(rig.port, method, path, headers, body)
    assert status < 500, (method, path, headers, body)


def test_garbage_on_the_socket_and_the_board_answers_after(rig: Rig) -> None:
    for junk in (b"\x00\x01\x02\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n", b"G" * 20000 + b"\r\n\r\n",
                 b"POST /api/arbiter HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
                 b"GET /api/state HTTP/1.1\r\nHost: x\r\n" + b"X: y\r\n" * 300 + b"\r\n"):
        with socket.create_connection(("127.0.0.1", rig.port), timeout=5) as s:
            s.sendall(junk)
            try:
                head = s.recv(200)
            except (ConnectionResetError, TimeoutError):
                head = b""
        assert not head.startswith(b"HTTP/1.1 5") and not head.startswith(b"HTTP/1.0 5")
    status, data = rig.json("GET", "/api/state")
    assert status == 200 and data["phase"] in ("playing", "over")


def test_huge_body_declared_is_refused_before_it_is_read(rig: Rig) -> None:
    with socket.create_connection(("127.0.0.1", rig.port), timeout=5) as s:
        s.sendall(b"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                  b"\r\nContent-Length: 1000000000\r\n\r\n{")
        head = s.recv(200)
    assert head.startswith(b"HTTP/1.1 413"), head


