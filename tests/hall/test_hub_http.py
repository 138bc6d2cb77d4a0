"""The hub's HTTP interface (HUB_API.md) against a real broker and boards publishing real
traces: the round feed read back by the engine's PDN reader (``damiera pdn``), stable board
order, the broadcast policy (held moves), Termination, [FEN] restarts, ETag/304, pairings and
results, the token rules, and a request fuzzer (never a 500)."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine.pdn import read_pdn
from tests.hall.broker import Broker
from tests.hall.hub_rig import ROOT, TRACES, FakeBoard, HubRig, trace_lines, wait

IT = TRACES / "italian"
GAMES = {  # board: (trace, lines published: None = all)
    "3": (IT / "d1_kept_by_accept_8_2.jsonl", None),
    "4": (IT / "art_lost_on_time_comp_4_8.jsonl", None),
    "5": (IT / "d1_pending_stands_in_transcript.jsonl", 7),  # an irregularity pending
    "10": (TRACES / "international" / "d1_kept_by_accept_5_4.jsonl", None),
}


def gid(board: str) -> str:
    return f"2026-11-22T0900-b{int(board):02d}-001"


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hall")
    with Broker(tmp) as broker:
        boards = []
        with HubRig(tmp / "hub", broker.url) as rig:
            for b, (trace, upto) in GAMES.items():
                fb = FakeBoard(broker.url, b)
                clocked = {"time_control": "3600"} if b == "5" else {}  # a held move's clock
                lines = trace_lines(trace, game=gid(b), board=b, rnd="1",
                                    white=f"White {b}", black="" if b == "4" else f"Black {b}",
                                    **clocked)
                fb.add_game(gid(b), lines[:upto] if upto else lines)
                fb.publish_lines(gid(b))
                boards.append(fb)
            for fb in boards:
                wait(lambda fb=fb: rig.held(fb.board, gid(fb.board)) ==
                     len(fb.journals[gid(fb.board)]))
            yield rig, boards
        for fb in boards:
            fb.close()


def damiera_pdn(tmp: Path, text: str) -> str:
    path = tmp / "feed.pdn"
    path.write_text(text, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pi.cli", "pdn", str(path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_round_feed_is_read_back_by_the_engine_in_stable_board_order(hall, tmp_path):
    rig, _ = hall
    status, headers, body = rig.request("GET", "/rounds/1/games.pdn")
    assert status == 200 and headers["content-type"].startswith("application/x-chess-pdn")
    assert headers["access-control-allow-origin"] == "*"
    text = body.decode()
    games = read_pdn(text)
    assert [g.tags["Round"] for g in games] == ["1.3", "1.4", "1.5", "1.10"]
    damiera_pdn(tmp_path, text)  # every move legal for the engine's own reader
    for g in games:
        assert g.tags["White"] and g.tags["Black"] and g.tags["Event"]
    assert text.count("[TimeControl ") == len(games)  # the reader takes it out of the tags
    by_round = {g.tags["Round"]: g for g in games}
    assert by_round["1.4"].tags["Black"] == "?"  # never empty
    assert by_round["1.4"].tags["Termination"] == "time forfeit"
    three = text.split("[Event ")[1]  # board 3: a kept irregularity, then a [FEN] restart
    assert '[SetUp "1"]' in three and "[FEN " in three and "/FEN/" not in three
    assert by_round["1.3"].start_fen != read_pdn(text)[1].start_fen
    assert '[GameType "20' in text  # international as lidraughts reads it
    assert "[%clock" in text or all(not g.moves for g in games)


@pytest.mark.parametrize("path", ["/rounds/1/games.pdn", "/boards/3/game.pdn",
                                  "/boards/3/broadcast.pdn"])
def test_every_record_names_site_date_round_players_and_board(hall, path):
    # issue 16: the start line's site and started_at were written "?" and "????.??.??"
    rig, _ = hall
    text = rig.request("GET", path)[2].decode()
    game = read_pdn(text)[0]
    assert game.tags["Site"] == "Sala Roma" and game.tags["Date"] == "2026.11.22"
    assert game.tags["White"] == "White 3" and game.tags["Black"] == "Black 3"
    assert game.tags["Board"] == "3"
    assert game.tags["Round"] == "1.3"  # the hall's form, HUB_API.md


def test_a_move_under_a_pending_irregularity_is_held_from_the_feeds(hall):
    rig, _ = hall
    _, live = rig.json("GET", "/boards/5/api/state", token=rig.token)
    _, public = rig.json("GET", "/boards/5/api/state")
    assert len(public["moves"]) == len(live["moves"]) - 1
    board_pdn = rig.request("GET", "/boards/5/game.pdn")[2].decode()
    record = rig.request("GET", "/boards/5/record.pdn", token=rig.token)[2].decode()
    held = live["moves"][-1]["notation"]
    assert held in record and held not in board_pdn.split("]")[-1]
    assert rig.request("GET", "/boards/5/record.pdn")[0] == 401
    hall_public = rig.json("GET", "/api/hall")[1]["boards"]
    hall_arbiter = rig.json("GET", "/api/hall", token=rig.token)[1]["boards"]
    five = [b for b in hall_public if b["board"] == "5"][0]
    five_a = [b for b in hall_arbiter if b["board"] == "5"][0]
    assert five["moves"] == five_a["moves"] - 1 and five_a["pending_flags"] == 1
    # the hall's public clock is the board page's: frozen where the public view stands (the
    # held move's count and the face it set running stay out of it)
    assert public["clock"] is not None and public["clock"]["running"] is None
    assert five_a["clock"]["running"] is not None
    drop = ("server_time",)
    assert ({k: v for k, v in five["clock"].items() if k not in drop}
            == {k: v for k, v in public["clock"].items() if k not in drop})
    _, flags = rig.json("GET", "/api/flags?status=pending", token=rig.token)
    assert [f["board"] for f in flags] == ["5"]
    assert rig.json("GET", "/api/flags")[0] == 401


def test_etag_and_last_modified_give_304(hall):
    rig, _ = hall
    for path in ("/rounds/1/games.pdn", "/boards/3/game.pdn", "/boards/3/broadcast.pdn"):
        status, headers, body = rig.request("GET", path)
        assert status == 200 and headers["etag"]
        again = rig.request("GET", path, headers={"If-None-Match": headers["etag"]})
        assert again[0] == 304 and again[2] == b""
        since = rig.request("GET", path, headers={"If-Modified-Since": headers["last-modified"]})
        assert since[0] == 304
    assert rig.request("GET", "/rounds/77/games.pdn")[0] == 404


def test_pairings_are_pushed_kept_and_give_results(hall):
    rig, boards = hall
    csv = "round,board,white,black\n1,3,White 3,Black 3\n1,6,Anna,Marco\n2,3,X,Y\n"
    assert rig.request("POST", "/api/pairings", raw=csv.encode(),
                       headers={"Content-Type": "text/csv"})[0] == 401
    status, got = rig.json("POST", "/api/pairings", raw=csv.encode(), token=rig.token,
                           headers={"Content-Type": "text/csv"})
    # kept whole, every round; nothing goes to the boards before its round starts (issue 16)
    assert status == 200 and got == {"kept": 3, "rounds": ["1", "2"], "pushed": 0}
    three = [b for b in boards if b.board == "3"][0]
    rig.sent_all_to(three)
    assert [c for c in three.commands if c.pairing] == []
    status, got = rig.json("POST", "/api/rounds/1/start", token=rig.token)
    assert status == 200 and [b["board"] for b in got["boards"]] == ["3", "6"]
    wait(lambda: len([c for c in three.commands if c.pairing]) == 1)
    assert {c.pairing["round"] for c in three.commands if c.pairing} == {"1"}
    assert all(c.pairing["event"] == "Test Open" for c in three.commands if c.pairing)
    kept = (rig.app.root / "pairings.csv").read_text()
    assert kept.splitlines()[0] == "round,board,white,black" and "1,6,Anna,Marco" in kept
    bad = "round,board,white,black\n1,3,a,b\n1,3 3,a,b\n"
    status, got = rig.json("POST", "/api/pairings", raw=bad.encode(), token=rig.token)
    assert status == 400 and "line 3" in got["error"]
    # board 6 is paired without a game: it has its place in the round's feed
    games = read_pdn(rig.request("GET", "/rounds/1/games.pdn")[2].decode())
    assert [g.tags["Round"] for g in games] == ["1.3", "1.4", "1.5", "1.6", "1.10"]
    six = games[3]
    assert (six.tags["White"], six.tags["Black"], six.result) == ("Anna", "Marco", "*")
    _, results = rig.json("GET", "/api/results", token=rig.token)
    row = {(r["round"], r["board"]): r for r in results}
    assert row[("1", "4")]["result"] == "1-0" and row[("1", "6")]["result"] == "*"
    assert row[("2", "3")]["game_id"] is None
    status, headers, body = rig.request("GET", "/results.csv")
    lines = body.decode().splitlines()
    assert lines[0] == "round,board,white,black,result" and "1,4,White 4,?,1-0" in lines


def test_token_rules_and_login_cookie(hall):
    rig, _ = hall
    assert rig.json("GET", "/api/whoami")[1]["arbiter"] is False
    assert rig.json("GET", "/api/whoami", token=rig.token)[1]["arbiter"] is True
    assert rig.json("GET", "/api/hall", token="nope")[0] == 401
    status, headers, _ = rig.request("POST", "/api/login", {"token": rig.token})
    assert status == 200 and "HttpOnly" in headers["set-cookie"]
    cookie = headers["set-cookie"].split(";")[0]
    assert rig.json("GET", "/boards/3/api/whoami", headers={"Cookie": cookie})[1]["arbiter"]
    assert rig.json("POST", "/api/pairings", raw=b"round,board,white,black\n1,3,a,b\n",
                    token=rig.token, headers={"Origin": "http://evil.example"})[0] == 403
    status, headers, _ = rig.request("GET", "/boards/3")  # the pages' relative URLs need the /
    assert status == 302 and headers["location"] == "/boards/3/"
    assert rig.request("GET", "/boards/99/api/state")[0] == 404
    status, _, page = rig.request("GET", "/boards/3/")
    assert status == 200 and b'src="static/' in page
    assert rig.request("GET", "/boards/3/static/board.js")[0] == 200
    assert rig.request("GET", "/boards/3/api/replay", token=rig.token)[0] == 200


def test_hall_events_resume_with_last_event_id(hall):
    rig, _ = hall
    import http.client
    expected = {b["board"] for b in rig.json("GET", "/api/hall")[1]["boards"]}
    assert set(GAMES) <= expected
    conn = http.client.HTTPConnection("127.0.0.1", rig.port, timeout=10)
    conn.request("GET", "/events")
    resp = conn.getresponse()
    assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"
    seen = {}
    buf = b""
    while len(seen) < len(expected):
        buf += resp.read1(65536)
        while b"\n\n" in buf:
            msg, buf = buf.split(b"\n\n", 1)
            fields = dict(line.split(": ", 1) for line in msg.decode().splitlines()
                          if ": " in line)
            if fields.get("event") == "board":
                import json
                seen[json.loads(fields["data"])["board"]] = int(fields["id"])
    conn.close()
    assert set(seen) == expected
    last = max(seen.values())
    conn = http.client.HTTPConnection("127.0.0.1", rig.port, timeout=3)
    conn.request("GET", "/events", headers={"Last-Event-ID": str(last)})
    resp = conn.getresponse()
    first = resp.read1(65536)
    assert b"event: board" not in first  # nothing changed since
    conn.close()


def test_request_fuzzer_never_gets_a_500(hall):
    rig, _ = hall
    rng = random.Random(7)
    paths = ["/", "/arbiter", "/api/hall", "/api/flags", "/api/pairings", "/api/results",
             "/results.csv", "/rounds/1/games.pdn", "/rounds/%00/games.pdn", "/boards/3/",
             "/boards/3/api/state", "/boards/3/api/games", "/boards/3/api/games/x/y",
             f"/boards/3/api/games/{gid('3')}/game.pdn", "/boards/3/api/arbiter",
             "/boards/3/game.pdn", "/boards/3/static/..%2farbiter.token", "/boards/x%20y/",
             "/boards/3/api/games/..%2f..%2farbiter.token/game.pdn",
             "/api/login", "/boards/3/api/trace.jsonl", "/boards/3/api/replay"]
    bodies = [b"", b"{", b"[]", b"null", b'{"action": "note"}', b'{"token": 5}',
              b"round,board\n", b"\xff" * 10, b"a" * 40000, b"round,board,white,black\n1,3,\"a"]
    for _ in range(250):
        method = rng.choice(["GET", "POST", "PUT", "DELETE", "OPTIONS", "HEAD"])
        path = rng.choice(paths)
        if rng.random() < 0.2:
            path += "?" + rng.choice(["board=3", "round=%ff", "status=x", "last_event_id=-1"])
        headers = {}
        if rng.random() < 0.3:
            headers["Authorization"] = rng.choice(["Bearer x", "Basic y", f"Bearer {rig.token}"])
        if rng.random() < 0.2:
            headers["If-None-Match"] = rng.choice(['"x"', "*", ""])
        status, _, _ = rig.request(method, path, raw=rng.choice(bodies) if method == "POST"
                                   else None, headers=headers)
        assert status < 500 or status in (503, 504), (method, path, status)


def test_a_boards_past_game_is_replayed_under_the_hall(tmp_path):
    """Issue 37: the console opens any game of a board, under the hub's ``/boards/N/`` as on the
    board: ``api/replay?game=<id>`` replays the replica's journal of a game the board has left
    (its flags with their lines), the game in play without one; an unknown id is a 404."""
    first, second = "2026-11-22T0900-b07-001", "2026-11-22T1000-b07-002"
    with Broker(tmp_path) as broker, HubRig(tmp_path / "hub", broker.url) as rig:
        fb = FakeBoard(broker.url, "7")
        try:
            for game, trace in ((first, IT / "d1_kept_by_accept_8_2.jsonl"),
                                (second, IT / "art_lost_on_time_comp_4_8.jsonl")):
                fb.add_game(game, trace_lines(trace, game=game, board="7"))
                fb.publish_lines(game)
                wait(lambda game=game: rig.held(7, game) == len(fb.journals[game]))
            assert rig.request("GET", f"/boards/7/api/replay?game={first}")[0] == 401
            status, body = rig.json("GET", f"/boards/7/api/replay?game={first}",
                                    token=rig.token)
            assert status == 200 and body["game_id"] == first
            assert [s["record"]["type"] for s in body["states"]][0] == "start"
            assert len(body["states"]) == len(fb.journals[first])
            assert body["flags"] and all(f["line"] for f in body["flags"])
            for f in body["flags"]:
                assert f["id"] in [g["id"] for g in body["states"][f["line"] - 1]["flags"]]
            status, now = rig.json("GET", "/boards/7/api/replay", token=rig.token)
            assert status == 200 and now["game_id"] == second
            status, err = rig.json("GET", "/boards/7/api/replay?game=2026-11-22T1100-b07-003",
                                   token=rig.token)
            assert status == 404 and "no such game" in err["error"]
            # the hall's boards take their players from the pairings, not a console's set-up
            status, err = rig.json("POST", "/boards/7/api/setup", {"white": "X"},
                                   token=rig.token)
            assert status == 409 and "pairings" in err["error"]
        finally:
            fb.close()
