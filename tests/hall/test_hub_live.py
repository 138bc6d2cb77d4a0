"""Live at the hub: a board's line reaches the hall's stream and the board's own stream under
/boards/<N>/ (the board's SSE code on the replica), and the board's pages work under the prefix
in a real browser (headless Chromium, as tests/web/test_pages.py)."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.hall.broker import Broker
from tests.hall.hub_rig import SAMPLE, FakeBoard, HubRig, trace_lines, wait

G = "2026-11-22T0900-b04-001"
CHROMIUM = "/usr/bin/chromium"


class Sse:
    def __init__(self, port: int, path: str, headers: dict[str, str] | None = None) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
        self.conn.request("GET", path, headers=headers or {})
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200
        self.buf = b""
        self.names: list[str] = []  # every event's name, in the order read

    def next(self) -> tuple[str | None, str, Any]:
        while b"\n\n" not in self.buf:
            self.buf += self.resp.read1(65536)
        msg, self.buf = self.buf.split(b"\n\n", 1)
        fields: dict[str, str] = {}
        for line in msg.decode().splitlines():
            if ": " in line:
                k, v = line.split(": ", 1)
                fields[k] = v
        if "event" not in fields:
            return self.next()
        self.names.append(fields["event"])
        return fields.get("id"), fields["event"], json.loads(fields["data"])

    def until(self, name: str, pred: Any = lambda d: True, limit: int = 2000) -> Any:
        for _ in range(limit):
            _, event, data = self.next()
            if event == name and pred(data):
                return data
        raise AssertionError(f"no {name} event")

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[tuple[HubRig, FakeBoard, list[str]]]:
    lines = trace_lines(SAMPLE, game=G, board="4", white="Bianchi", black="Neri")
    with Broker(tmp_path) as broker:
        board = FakeBoard(broker.url, "4")
        board.add_game(G, lines)
        try:
            with HubRig(tmp_path / "hub", broker.url) as rig:
                yield rig, board, lines
        finally:
            board.close()


def test_lines_reach_the_hall_stream_and_the_boards_stream(hall):
    rig, board, lines = hall
    board.publish_lines(G, range(1, 3))
    wait(lambda: rig.held(4, G) == 2)
    hall_sse = Sse(rig.port, "/events", {"Authorization": f"Bearer {rig.token}"})
    board_sse = Sse(rig.port, "/boards/4/events")
    first = hall_sse.until("board", lambda d: d["board"] == "4")
    assert first["moves"] == 0 and first["white"] == "Bianchi"
    state = board_sse.until("state")
    assert state["game_id"] == G and state["view"] == "public"
    board.publish_lines(G)  # the rest (and the first two again: duplicates dropped)
    move = board_sse.until("move", lambda d: not d["retracted"])
    assert move["move"]["notation"]
    done = hall_sse.until("board", lambda d: d["board"] == "4" and d["lines"] == len(lines))
    assert done["result"] == "1-0" and done["lines"] == len(lines)
    hall_sse.close()
    board_sse.close()


def test_board_pages_under_the_prefix_in_a_browser(hall):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} missing: apt-get install chromium (make system-deps)",
                    pytrace=False)
    from playwright import sync_api
    rig, board, lines = hall
    board.publish_lines(G)
    wait(lambda: rig.held(4, G) == len(lines))
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            page = browser.new_context().new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"http://127.0.0.1:{rig.port}/boards/4/")
            page.wait_for_function(
                "document.querySelector('#result').textContent.includes('1-0')", timeout=30000)
            assert "23-19" in page.text_content("#moves")
            page.goto(f"http://127.0.0.1:{rig.port}/boards/4/arbiter")
            page.fill("input[type=password]", rig.token)
            page.keyboard.press("Enter")
            page.wait_for_function("document.querySelector('#who') && "
                                   "document.querySelector('#who').textContent === 'arbiter'",
                                   timeout=30000)
            assert page.get_attribute("#dl-pdn", "href") == "record.pdn"
            assert errors == []
        finally:
            browser.close()


def test_live_clients_of_all_boards_are_bounded(hall):
    rig, board, lines = hall
    board.publish_lines(G, [1])
    wait(lambda: rig.held(4, G) == 1)
    rig.call(lambda: setattr(rig.hub.servers[4], "hall_max", 1))
    first = Sse(rig.port, "/boards/4/events")
    first.until("state")
    status, headers, body = rig.request("GET", "/boards/4/events")
    assert status == 503 and headers["retry-after"] and json.loads(body)["error"]
    first.close()


def test_the_arbiters_hall_stream_has_the_flags_the_publics_does_not(hall):
    rig, board, _ = hall
    from tests.hall.hub_rig import TRACES
    g = "2026-11-22T1000-b04-002"
    lines = trace_lines(TRACES / "italian" / "d1_kept_by_accept_8_2.jsonl", game=g, board="4")
    arbiter = Sse(rig.port, "/events", {"Authorization": f"Bearer {rig.token}"})
    public = Sse(rig.port, "/events")
    board.add_game(g, lines)
    board.publish_lines(g)
    flag = arbiter.until("flag")
    assert flag["board"] == "4" and flag["flag"]["code"].startswith("IT 8")
    last = public.until("board", lambda d: d["game_id"] == g and d["lines"] == len(lines))
    assert last["pending_flags"] == 0
    # nothing but board events on the public stream: a stream is written in id order, and a
    # flag's event is numbered as its line is taken, before the summary of the whole game
    # (pi.hall.hall_http.HallClient): one sent to the public would have come before ``last``
    assert public.names and "flag" not in public.names, public.names
    arbiter.close()
    public.close()
