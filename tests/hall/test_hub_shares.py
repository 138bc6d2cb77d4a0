"""Issue 19, the hub's scale-out: ``damiera hub --share K/N`` processes each owning the boards
whose number modulo N is K through their own subscriptions on one Mosquitto, and ``damiera hub
front``: one hall page, one round feed over every share. A share killed (-9) and restarted: the
boards play on, the page keeps every board, and at the end every replica is byte for byte its
board's journal."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from broker import Broker, free_port
from hub_rig import ROOT, SAMPLE, FakeBoard, request, trace_lines, wait
from shares_rig import ShareHall, fleet, fleet_log, unequal

from pi.board.errors import ConfigError
from pi.hall import protocol as P
from pi.hall.front import front_config_from_args, split_pdn
from pi.hall.hub_config import hub_config_from_args, parse_hub_config
from pi.hall.hub_init import acl_text, hub_toml_text, make_hall, passwd_text
from pi.hall.errors import ShareClaimError
from pi.hall.shares import Share, claim_share, parse_share, share_of

G = "2026-11-22T0900-b0{}-001"
CHROMIUM = "/usr/bin/chromium"


# ---------------------------------------------------------------------- the share function


def test_a_board_belongs_to_exactly_one_share_and_always_the_same() -> None:
    boards = [str(n) for n in range(1, 1001)] + ["A1", "hall-b"]
    for count in (2, 3, 7):
        shares = [Share(k, count) for k in range(count)]
        for b in boards:
            assert [s.owns(b) for s in shares].count(True) == 1
            assert share_of(b, count) == share_of(b, count)
        assert {share_of(str(n), count) for n in range(1, 1001)} == set(range(count))
    assert share_of("7", 2) == 1 and share_of("8", 2) == 0  # number modulo N


@pytest.mark.parametrize("text, problem", [("2", "K/N"), ("0/1", "out of range"),
                                           ("2/2", "K runs from 0 to 1"), ("a/b", "K/N"),
                                           ("0/65", "out of range")])
def test_a_bad_share_is_one_line(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_share(text)
    with pytest.raises(ConfigError, match="--share"):
        hub_config_from_args(None, "mqtt://127.0.0.1:1", None, "/tmp/x", ["1"], text)


def test_a_share_takes_its_address_and_broker_user_from_its_share_table(tmp_path: Path
                                                                         ) -> None:
    conf = tmp_path / "hub.toml"
    conf.write_text('hall = "h"\naccept_unsigned = ["1", "2", "3"]\n[mqtt]\n'
                    'url = "mqtt://hub:pw@127.0.0.1:1883"\n'
                    '[[share]]\nhttp = "127.0.0.1:9001"\nmqtt = "mqtt://hub-share-0:a@127.0.0.1:1883"\n'
                    '[[share]]\nhttp = "127.0.0.1:9002"\n', encoding="utf-8")
    one = hub_config_from_args(str(conf), None, None, str(tmp_path), None, "0/2")
    assert one.share == Share(0, 2) and one.http.port == 9001
    assert one.mqtt is not None and one.mqtt.username == "hub-share-0"
    two = hub_config_from_args(str(conf), None, "127.0.0.1:9100", str(tmp_path), None, "1/2")
    assert two.http.port == 9100  # the command line wins
    assert two.mqtt is not None and two.mqtt.username == "hub"  # no mqtt of its own: [mqtt]
    assert [b for b in two.boards() if two.owns(b)] == ["1", "3"]
    with pytest.raises(ConfigError, match="2 \\[\\[share\\]\\] tables, not 3"):
        hub_config_from_args(str(conf), None, None, str(tmp_path), None, "0/3")
    with pytest.raises(ConfigError, match="share\\[0\\].bogus"):
        parse_hub_config('[[share]]\nhttp = "127.0.0.1:1"\nbogus = 1\n')
    front = front_config_from_args(str(conf), None, None, str(tmp_path))
    assert [s.port for s in front.shares] == [9001, 9002]
    with pytest.raises(ConfigError, match="a front serves 2"):
        front_config_from_args(None, "127.0.0.1:9001", None, str(tmp_path))


def test_a_share_without_the_boards_named_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="name them in \\[keys\\]"):
        hub_config_from_args(None, "mqtt://127.0.0.1:1", None, str(tmp_path), None, "0/2")


def test_hub_init_shares_adds_a_user_and_a_share_table_each_and_nothing_for_one(
        tmp_path: Path) -> None:
    one = make_hall(3, tmp_path, host="127.0.0.1", tls=False)
    assert "[[share]]" not in hub_toml_text(one) and "hub-share" not in acl_text(one)
    assert set(one.passwords) == {"hub", "board-1", "board-2", "board-3"}
    two = make_hall(3, tmp_path, host="127.0.0.1", tls=False, shares=2)
    cfg = parse_hub_config(hub_toml_text(two))
    assert [s.http.port for s in cfg.shares] == [8091, 8092]
    assert [s.mqtt.username for s in cfg.shares if s.mqtt] == ["hub-share-0", "hub-share-1"]
    acl = acl_text(two)
    for k in (0, 1):
        block = acl.split(f"user hub-share-{k}\n", 1)[1].split("\n\n", 1)[0]
        assert block.splitlines() == ["topic read damiera/hall/#", "topic read $SYS/broker/log/E",
                                      "topic write damiera/hall/boards/+/cmd"]
        assert f"hub-share-{k}:$7$" in passwd_text(two)


def test_a_share_runs_once_and_in_one_layout_per_state_directory(tmp_path: Path) -> None:
    first = claim_share(tmp_path, Share(0, 2))
    try:
        with pytest.raises(ShareClaimError, match="share 0/2 is already running"):
            claim_share(tmp_path, Share(0, 2))
        with pytest.raises(ShareClaimError, match="run as 2 shares \\(share 0 of 2"):
            claim_share(tmp_path, Share(1, 3))  # would take some of share 0/2's boards
        other = claim_share(tmp_path, Share(1, 2))  # the same layout: fine
        os.close(other)
    finally:
        os.close(first)
    again = claim_share(tmp_path, Share(2, 3))  # nobody runs the old layout: a new one
    os.close(again)
    assert json.loads((tmp_path / "shares" / "layout.json").read_text()) == {"shares": 3}


def test_split_pdn_finds_each_game_and_its_board() -> None:
    text = ('[Event "E"]\n[Round "1.3"]\n[Board "3"]\n\n1. 22-18 10-14 *\n\n'
            '[Event "E"]\n[Round "1.5"]\n[Board "5"]\n[SetUp "1"]\n\n{a comment}\n*\n')
    games = split_pdn(text)
    assert [b for b, _ in games] == ["3", "5"]
    assert games[1][1].startswith('[Event "E"]') and games[1][1].endswith("*\n")
    assert "".join(g for _, g in games).count("[Event") == 2


# ---------------------------------------------------------------------- processes


def _boards_at(hall: ShareHall) -> dict[str, int]:
    try:
        return hall.lines()
    except (OSError, AssertionError):
        return {}


def _share_round(port: int, token: str) -> tuple[str | None, list[str]] | None:
    """A share's round started last and the boards of its pairings (None: not answering)."""
    try:
        status, _, body = request(port, "GET", "/api/rounds", token=token, timeout=3)
        _, _, rows = request(port, "GET", "/api/pairings", timeout=3)
    except OSError:
        return None
    if status != 200:
        return None
    return json.loads(body)["current"], [r["board"] for r in json.loads(rows)]


def _first_events(port: int, path: str) -> bytes:
    """The first SSE events of ``path`` (a stream forwarded as it comes)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Accept": "text/event-stream"})
        resp = conn.getresponse()
        assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"
        data = b""
        while b"event: " not in data:
            data += resp.read1(65536)
        return data
    finally:
        conn.close()


def _page_boards(port: int, boards: int, token: str | None = None) -> dict[str, int]:
    """What a hall page opening the front's ``/events`` is sent first, until ``boards``
    boards: board → lines (the arbiter's view with ``token``)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Accept": "text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    try:
        conn.request("GET", "/events", headers=headers)
        resp = conn.getresponse()
        assert resp.status == 200
        data, out = b"", {}
        while len(out) < boards:
            data += resp.read1(65536)
            for block in data.decode().split("\n\n")[:-1]:
                if "event: board" in block:
                    s = json.loads(block.split("data: ", 1)[1])
                    out[s["board"]] = s["lines"]
        return out
    finally:
        conn.close()


def test_two_shares_and_a_front_serve_one_hall(tmp_path: Path) -> None:
    """Quick: two boards (one per share) publishing a game each; the front's hall lists both,
    forwards each board's page to its share, merges the round feed; the replicas are equal."""
    with Broker(tmp_path) as broker:
        hall = ShareHall(tmp_path, broker.url, boards=4).start()
        boards: list[FakeBoard] = []
        try:
            for n in ("3", "4"):
                b = FakeBoard(broker.url, n)
                lines = trace_lines(SAMPLE, game=G.format(n), board=n)
                b.add_game(G.format(n), lines)
                b.status()
                b.publish_lines(G.format(n))
                boards.append(b)
            want = {b.board: len(b.journals[G.format(b.board)]) for b in boards}
            wait(lambda: all(_boards_at(hall).get(n) == k for n, k in want.items()), 30,
                 "both boards on the front's hall")
            assert _page_boards(hall.port, 2) == want  # the hall page's stream: every board
            token = (tmp_path / "hub" / "arbiter.token").read_text().strip()
            assert _page_boards(hall.port, 2, token) == want  # and the console's
            status, _, body = request(hall.port, "GET", "/api/hall", token=token)
            assert [b["board"] for b in json.loads(body)["boards"]] == ["3", "4"]
            status, _, body = request(hall.port, "GET", "/boards/3/api/state")
            assert status == 200 and json.loads(body)["game_id"] == G.format(3)
            status, _, body = request(hall.port, "GET", "/rounds/1/games.pdn")
            assert status == 200
            assert re.findall(r'\[Board "(\d+)"\]', body.decode()) == ["3", "4"]
            assert b"event: state" in _first_events(hall.port, "/boards/4/events")
            status, _, body = request(hall.port, "GET", "/boards/4/api/state",
                                      headers={"Authorization": "Bearer nope"})
            assert status == 401  # the share checks the token (the front forwards it)
            # a second process of share 0 on the same state directory: refused, one line
            again = subprocess.run([sys.executable, "-m", "pi.cli", *hall.shares[0].args,
                                    "--http", f"127.0.0.1:{free_port()}"], cwd=ROOT,
                                   capture_output=True, text=True, timeout=60)
            assert again.returncode == 2 and "share 0/2 is already running" in again.stderr
            assert "Traceback" not in again.stderr
            # each share holds its own boards only (its own subscriptions)
            for k, mine in enumerate((["4"], ["3"])):
                status, _, body = request(hall.ports[k], "GET", "/api/hall")
                assert [b["board"] for b in json.loads(body)["boards"]] == mine
            # an arbiter's action through the front, to board 3's share, to the board and back
            status, _, body = request(hall.port, "POST", "/boards/3/api/arbiter",
                                      {"action": "note", "text": "seen by the front"},
                                      token=token)
            assert status == 200, body
            assert json.loads(body)["line"] == want["3"] + 1
            # pairings kept whole at the front, each share sent its own; a round started
            csv = "round,board,white,black\n2,3,Ann,Bob\n2,4,Cid,Dan\n"
            status, _, body = request(hall.port, "POST", "/api/pairings", token=token,
                                      raw=csv.encode(), headers={"Content-Type": "text/csv"})
            assert status == 200 and json.loads(body)["kept"] == 2, body
            for k, mine in enumerate(("4", "3")):
                status, _, body = request(hall.ports[k], "GET", "/api/pairings")
                assert [r["board"] for r in json.loads(body)] == [mine]
            status, _, body = request(hall.port, "POST", "/api/rounds/2/start", token=token)
            assert status == 200, body
            assert [b["board"] for b in json.loads(body)["boards"]] == ["3", "4"]
            for b in boards:
                wait(lambda b=b: any(c.pairing is not None and c.pairing.get("round") == "2"
                                     for c in b.commands), 15, f"board {b.board}'s pairing")
            status, _, body = request(hall.port, "GET", "/api/rounds", token=token)
            assert json.loads(body) == {"rounds": ["2"], "current": "2"}
            want["3"] += 1
            # the note's line held by board 3's share before the hall stops (the front's
            # answer waits LINE_WAIT for it, then answers anyway)
            wait(lambda: _boards_at(hall) == want, 15, "the note's line on the hall",
                 show=lambda: _boards_at(hall))
            for b in boards:
                b.close()
            journals, boards = boards, []
            assert hall.stop() == [0, 0, 0]
            for b in journals:
                replica = tmp_path / "hub" / "boards" / b.board / "games" / G.format(b.board) \
                    / "trace.jsonl"
                journal = b.journals[G.format(b.board)]
                assert replica.read_bytes() == "".join(t + "\n" for t in journal).encode()
            # each share's own files; the share subscribed to its own boards only
            assert (tmp_path / "hub" / "shares" / "0").is_dir()
            assert (tmp_path / "hub" / "shares" / "1").is_dir()
        finally:
            for b in boards:
                b.close()
            for p in [hall.front, *hall.shares]:
                p.kill()


@pytest.mark.slow
def test_a_share_killed_and_restarted_the_hall_plays_on_and_replicas_are_equal(
        tmp_path: Path) -> None:
    boards = 6
    with Broker(tmp_path) as broker:
        hall = ShareHall(tmp_path, broker.url, boards=boards).start()
        journals = tmp_path / "boards"
        boats = fleet(broker.url, boards, journals, hall.conf)
        try:
            everyone = {str(n) for n in range(1, boards + 1)}
            wait(lambda: {b for b, k in _boards_at(hall).items() if k > 0} == everyone, 60,
                 "every board on the front's hall")
            hall.shares[1].kill()  # odd boards
            at_kill = _boards_at(hall)
            # share 0's boards play on, shown on the page as they do
            wait(lambda: all(_boards_at(hall).get(b, 0) > at_kill[b] for b in ("2", "4", "6")),
                 60, "share 0's boards moving on while share 1 is down")
            during = _boards_at(hall)
            assert set(during) == everyone  # the page keeps every board
            status, _, _ = request(hall.port, "GET", "/boards/3/api/state")
            assert status == 503  # its share is away: a short answer, no 500
            # the arbiter uploads round 2 and starts it while share 1 is away
            token = (hall.state / "arbiter.token").read_text().strip()
            rows = "".join(f"2,{n},W{n},B{n}\n" for n in range(1, boards + 1))
            status, _, body = request(hall.port, "POST", "/api/pairings", token=token,
                                      raw=f"round,board,white,black\n{rows}".encode(),
                                      headers={"Content-Type": "text/csv"})
            assert status == 200 and json.loads(body)["kept"] == boards, body
            status, _, body = request(hall.port, "POST", "/api/rounds/2/start", token=token)
            assert status == 200, body
            hall.shares[1].start()
            # ... and share 1, back, is sent its rows and the round
            wait(lambda: _share_round(hall.ports[1], token) == ("2", ["1", "3", "5"]), 60,
                 "share 1 given round 2 and its pairings")
            assert _share_round(hall.ports[0], token) == ("2", ["2", "4", "6"])
            wait(lambda: all(_boards_at(hall).get(b, 0) > during[b] for b in ("1", "3", "5")),
                 60, "share 1's boards moving on the hall again")
            boats.send_signal(signal.SIGTERM)
            boats.wait(timeout=60)
            assert boats.returncode == 0, fleet_log(journals).read_text()[-500:]
            wait(lambda: not unequal(journals, hall.state), 90, "every replica equal: "
                 + ", ".join(unequal(journals, hall.state)[:5]))
            status, _, body = request(hall.port, "GET", "/rounds/1/games.pdn")
            assert status == 200
            assert sorted(set(re.findall(r'\[Board "(\d+)"\]', body.decode())), key=int) == \
                [str(n) for n in range(1, boards + 1)]
            assert hall.stop() == [0, 0, 0]
        finally:
            if boats.poll() is None:
                boats.kill()
                boats.wait()
            for p in [hall.front, *hall.shares]:
                p.kill()


def test_hub_front_help_and_a_bad_configuration_is_one_line(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "front", "--shares",
                           "127.0.0.1:1", "--state-dir", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "a front serves 2" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


@pytest.mark.slow  # a browser and three processes: some 10-15 s
def test_the_front_hall_page_in_a_browser_keeps_every_board_while_a_share_is_down(
        tmp_path: Path) -> None:
    """The hall page (Chromium) at the front: both shares' boards, in number order; share 1
    killed, the page — reloaded too — still shows its board, and share 0's board moves on
    live."""
    from playwright import sync_api
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} missing: apt-get install chromium (make system-deps)",
                    pytrace=False)
    with Broker(tmp_path) as broker:
        hall = ShareHall(tmp_path, broker.url, boards=4).start()
        boards = {n: FakeBoard(broker.url, n) for n in ("3", "4")}
        try:
            for n, b in boards.items():
                b.add_game(G.format(n), trace_lines(SAMPLE, game=G.format(n), board=n,
                                                    white=f"White{n}", black=f"Black{n}"))
                # online, as a board says on connecting; its lines follow
                b.client.publish(b.topics.board(n, "status"),
                                 P.status_payload(n, G.format(n), 0, [], session="00ff00ff",
                                                  key=b.key), qos=1, retain=True
                                 ).wait_for_publish(5)
            half = len(boards["4"].journals[G.format(4)]) // 2
            boards["3"].publish_lines(G.format(3))
            boards["4"].publish_lines(G.format(4), range(1, half + 1))
            wait(lambda: _boards_at(hall).get("4") == half and _boards_at(hall).get("3", 0) > 0,
                 30, "both boards at the front")
            with sync_api.sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=[
                    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"])
                try:
                    page = browser.new_context(viewport={"width": 900, "height": 700}).new_page()
                    errors: list[str] = []
                    page.on("pageerror", lambda e: errors.append(str(e)))
                    page.goto(f"http://127.0.0.1:{hall.port}/")
                    page.wait_for_selector("#board-3 .result:text('1-0')", timeout=15000)
                    assert "White4" in (page.text_content("#board-4 .white") or "")
                    hall.shares[1].kill()  # board 3's
                    page.reload()
                    page.wait_for_selector("#board-3 .result:text('1-0')", timeout=15000)
                    order = page.eval_on_selector_all("article.card",
                                                      "cs => cs.map(c => c.dataset.board)")
                    assert order == ["3", "4"]
                    before = page.text_content("#board-4 .moves")
                    rest = range(half + 1, len(boards["4"].journals[G.format(4)]) + 1)
                    boards["4"].publish_lines(G.format(4), rest)
                    page.wait_for_function(
                        "b => document.querySelector('#board-4 .moves').textContent !== b",
                        arg=before, timeout=15000)
                    assert errors == []
                finally:
                    browser.close()
        finally:
            for b in boards.values():
                b.close()
            for proc in [hall.front, *hall.shares]:
                proc.kill()
