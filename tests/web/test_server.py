"""The board's HTTP server (pi/web/API.md): contracts, SSE resume, 304s, the token rules,
cross-site POSTs, limits. A simulated board with the daemon's own loop and the server on a free
loopback port (``web_rig.Rig``)."""

from __future__ import annotations

import json
import logging
import os
import stat
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from pi.board.supersede import SET_UP_NOTE, superseded
from pi.cli import main as cli
from pi.web.auth import Throttle
from pi.web.feeds import Client
from web_rig import SSE, Rig


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    with Rig(tmp_path_factory.mktemp("state")) as r:
        r.wait(lambda s: s["phase"] == "playing")
        yield r


def bearer(rig: Rig) -> dict[str, str]:
    return {"Authorization": f"Bearer {rig.token}"}


# ---------------------------------------------------------------------- state and files

def test_state_contract_public_and_arbiter(rig: Rig) -> None:
    status, headers, body = rig.request("GET", "/api/state")
    assert status == 200 and headers["access-control-allow-origin"] == "*"
    public = json.loads(body)
    for key in ("line", "phase", "metadata", "fen", "moves", "flags", "clock", "result",
                "squares_to_fix", "sensor_faults", "last_line", "game_id"):
        assert key in public
    assert public["view"] == "public" and public["last_line"] is None
    meta = public["metadata"]
    assert (meta["variant"], meta["white"], meta["black"], meta["event"],
            meta["time_control"]) == ("italian", "Ann", "Bob", "Test", "600+5")
    assert public["clock"]["server_time"] == pytest.approx(time.time(), abs=5)
    assert public["clock"]["running"] in ("white", "black", None)
    arbiter = rig.state_now()
    assert arbiter["view"] == "arbiter" and arbiter["last_line"]["type"] in (
        "snapshot", "lift", "place", "button", "arbiter")


def test_trace_is_the_journal_and_game_files_need_the_token(rig: Rig) -> None:
    status, _, body = rig.request("GET", "/api/trace.jsonl", token=rig.token)
    assert status == 200
    lines = [json.loads(x) for x in body.decode().splitlines()]
    assert lines[0]["type"] == "start" and lines[0]["id"] == rig.state_now()["game_id"]
    assert body == Path(rig.controller.session.game.trace).read_bytes()[:len(body)]
    for path in ("/game.pdn", "/api/games"):
        assert rig.request("GET", path)[0] == 401
        assert rig.request("GET", path, token=rig.token)[0] == 200
    _, games = rig.json("GET", "/api/games", token=rig.token)
    gid = games[0]["id"]
    assert games[0]["white"] == "Ann" and games[0]["finished"] is False
    for name in ("game.pdn", "report.json", "trace.jsonl"):
        rig.written(f"/api/games/{gid}/{name}")  # 200 (once written: they follow the journal)
        assert rig.request("GET", f"/api/games/{gid}/{name}")[0] == 401
    for sneaky in (f"/api/games/{gid}/../../arbiter.token", "/api/games/..%2f..%2farbiter.token/x",
                   "/static/..%2farbiter.token", "/static/.hidden"):
        status, _, body = rig.request("GET", sneaky, token=rig.token)
        assert status in (404, 405) and rig.token.encode() not in body
    assert rig.request("GET", "/api/games/nope/game.pdn", token=rig.token)[0] == 404


# ---------------------------------------------------------------------- the token

def test_token_file_is_private_and_printed_by_damiera_token(
        rig: Rig, capsys: pytest.CaptureFixture[str]) -> None:
    path = rig.root / "arbiter.token"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert cli(["token", "--state-dir", str(rig.root)]) == 0
    assert capsys.readouterr().out.strip() == rig.token


def test_damiera_token_without_a_token_is_one_line_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["token", "--state-dir", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1


def test_wrong_token_is_401_logged_and_slowed_down(rig: Rig, caplog: pytest.LogCaptureFixture,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    caplog.set_level(logging.WARNING, logger="pi.web.server")
    # the throttle's first wait 0.05 s (the daemon's: 0.25 s): the same doubling, 0.75 s of
    # waiting in all instead of 3.75 s
    monkeypatch.setattr(rig.server.auth, "throttle", Throttle(base=0.05))
    assert rig.request("GET", "/api/state", token="nope")[0] == 401
    assert any("wrong arbiter token" in r.message for r in caplog.records)
    waits = []
    for _ in range(6):
        started = time.monotonic()
        assert rig.request("GET", "/game.pdn", token="wrong")[0] == 401
        waits.append(time.monotonic() - started)
    assert max(waits[-2:]) >= 0.2  # after three failures each answer waits (0.05 s, doubling)
    daemons = Throttle()  # the daemon's own: 0.25 s, doubling
    schedule = []
    for _ in range(6):
        schedule.append(daemons.delay("127.0.0.1"))
        daemons.failed("127.0.0.1")
    assert schedule == [0, 0, 0, 0.25, 0.5, 1.0]
    assert rig.request("GET", "/game.pdn", token=rig.token)[0] == 200  # a success resets
    assert rig.server.throttle.delay("127.0.0.1") == 0


def test_login_sets_an_httponly_strict_cookie_that_works(rig: Rig) -> None:
    status, headers, _ = rig.request("POST", "/api/login", {"token": rig.token})
    assert status == 200
    cookie = headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    value = cookie.split(";", 1)[0]
    assert rig.request("GET", "/game.pdn", headers={"Cookie": value})[0] == 200
    assert rig.request("POST", "/api/login", {"token": "bad"})[0] == 401
    assert rig.request("GET", "/game.pdn", headers={"Cookie": "damiera_arbiter=bad"})[0] == 401
    _, who = rig.json("GET", "/api/whoami", headers={"Cookie": value})
    assert who == {"arbiter": True, "simulate": True}


@pytest.mark.parametrize("headers", [{"Origin": "http://evil.example"},
                                     {"Sec-Fetch-Site": "cross-site"},
                                     {"Sec-Fetch-Site": "same-site"},
                                     {"Origin": "null"}])
def test_cross_site_posts_are_refused(rig: Rig, headers: dict[str, str]) -> None:
    before = rig.state_now()["line"]
    status, data = rig.json("POST", "/api/arbiter", {"action": "note", "text": "csrf"},
                            token=rig.token, headers=headers)
    assert status == 403 and "cross-site" in data["error"]
    assert rig.request("POST", "/api/login", {"token": rig.token}, headers=headers)[0] == 403
    assert rig.state_now()["line"] == before


# ---------------------------------------------------------------------- arbiter actions

def test_arbiter_action_answers_once_journaled_with_its_line(rig: Rig) -> None:
    same = {"Origin": f"http://127.0.0.1:{rig.port}", "Sec-Fetch-Site": "same-origin"}
    status, data = rig.json("POST", "/api/arbiter", {"action": "note", "text": "clock checked"},
                            token=rig.token, headers=same)
    assert status == 200
    assert data["record"] == {"t": data["record"]["t"], "type": "arbiter", "action": "note",
                              "text": "clock checked"}
    journal = Path(rig.controller.session.game.trace).read_text().splitlines()
    assert json.loads(journal[data["line"] - 1]) == data["record"]
    assert any(d["type"] == "FlagRaised" for d in data["decisions"])


@pytest.mark.parametrize("body,status", [
    ({"action": "explode"}, 400), ({"action": "note"}, 400), ({"action": "note", "text": ""}, 400),
    ({"action": "adjudicate"}, 400), ({"action": "adjudicate", "result": "9-9"}, 400),
    ({"action": "stop_clock", "result": "1-0"}, 400), ({"action": "note", "text": "x", "t": 3}, 400),
    (["note"], 400), ("note", 400), (None, 400)])
def test_bad_arbiter_requests_are_400(rig: Rig, body: Any, status: int) -> None:
    before = rig.state_now()["line"]
    raw = b"" if body is None else json.dumps(body).encode()
    code, data = rig.json("POST", "/api/arbiter", raw=raw, token=rig.token)
    assert code == status and "error" in data
    assert rig.state_now()["line"] == before


def test_arbiter_post_needs_the_token(rig: Rig) -> None:
    assert rig.json("POST", "/api/arbiter", {"action": "note", "text": "x"})[0] == 401


def test_malformed_json_and_huge_bodies(rig: Rig) -> None:
    assert rig.json("POST", "/api/arbiter", raw=b"{not json", token=rig.token)[0] == 400
    assert rig.json("POST", "/api/arbiter", raw=b"\xff\xfe", token=rig.token)[0] == 400
    assert rig.json("POST", "/api/arbiter", raw=b"[" * 5000 + b"]" * 5000,
                    token=rig.token)[0] == 400
    huge = json.dumps({"action": "note", "text": "x" * 40_000}).encode()
    status, _, body = rig.request("POST", "/api/arbiter", raw=huge, token=rig.token)
    assert status == 413 and "error" in json.loads(body)


# ---------------------------------------------------------------------- broadcast.pdn

def test_broadcast_pdn_etag_and_last_modified_give_304(rig: Rig) -> None:
    status, headers, body = rig.request("GET", "/broadcast.pdn")
    assert status == 200 and headers["access-control-allow-origin"] == "*"
    assert b'[GameType "22,W,8,8,N2,1"]' in body
    etag, modified = headers["etag"], headers["last-modified"]
    assert rig.request("GET", "/broadcast.pdn", headers={"If-None-Match": etag})[0] == 304
    assert rig.request("GET", "/broadcast.pdn",
                       headers={"If-Modified-Since": modified})[0] == 304
    assert rig.request("GET", "/broadcast.pdn",
                       headers={"If-None-Match": '"other"'})[0] == 200
    assert rig.request("GET", "/broadcast.pdn",
                       headers={"If-Modified-Since": "garbage"})[0] == 200


def test_the_boards_records_name_site_date_round_and_board(tmp_path: Path) -> None:
    # issue 16: game.pdn and /broadcast.pdn wrote [Site "?"] and [Date "????.??.??"] although
    # the config has the site and the journal's start line started_at
    import datetime

    from engine.pdn import read_pdn
    from pi.board.config import Config
    config = Config(source="(test)", white="Ann", black="Bob", event="Test", site="Napoli",
                    round="4", board=7)
    with Rig(tmp_path, config) as rig:
        state = rig.wait(lambda s: s["phase"] == "playing")
        started = state["metadata"]["started_at"]
        day = datetime.datetime.fromisoformat(started).strftime("%Y.%m.%d")
        pdn = rig.written(f"/api/games/{state['game_id']}/game.pdn")
        texts = [rig.request("GET", "/broadcast.pdn")[2].decode(), pdn.decode()]
    for text in texts:
        tags = read_pdn(text)[0].tags
        assert (tags["Event"], tags["Site"], tags["Date"], tags["Round"]) == (
            "Test", "Napoli", day, "4")
        assert (tags["White"], tags["Black"], tags["Board"]) == ("Ann", "Bob", "7")


def test_options_preflight_and_unknown_paths(rig: Rig) -> None:
    status, headers, _ = rig.request("OPTIONS", "/api/state")
    assert status == 204 and "GET" in headers["access-control-allow-methods"]
    status, _, body = rig.request("GET", "/no/such/thing")
    assert status == 404 and "error" in json.loads(body)
    assert rig.request("DELETE", "/api/state")[0] == 405


# ---------------------------------------------------------------------- SSE

def test_slow_client_is_dropped_not_waited_for() -> None:
    import asyncio
    client = Client(asyncio.Queue(maxsize=2))
    for i in range(3):
        client.offer(f"m{i}".encode())
    assert client.dropped
    client.offer(b"later")  # ignored: nothing blocks, nothing grows
    assert client.queue.qsize() == 2


def test_bad_last_event_id_gets_the_whole_state(rig: Rig) -> None:
    for bad in ("abc", "-3", "9" * 40, ""):
        sse = SSE(rig.port, {"Last-Event-ID": bad})
        assert sse.status == 200
        _, name, data = sse.next()
        assert name == "state" and data["view"] == "public"
        sse.close()


def test_too_many_sse_clients_get_503(rig: Rig) -> None:
    rig.server.max_clients = 2
    end = time.monotonic() + 5
    while (rig.server.feeds.arbiter_stream.clients or rig.server.feeds.public_stream.clients) \
            and time.monotonic() < end:
        time.sleep(0.02)  # the clients of earlier tests went away
    try:
        first, second = SSE(rig.port), SSE(rig.port)
        assert first.next()[1] == "state" and second.next()[1] == "state"
        third = SSE(rig.port)
        assert third.status == 503
        third.close()
        first.close()
        second.close()
    finally:
        rig.server.max_clients = 200


def events_until_state(sse: SSE) -> list[tuple[str | None, str, Any]]:
    out = []
    while True:
        ev = sse.next()
        out.append(ev)
        if ev[1] == "state":
            return out


def _fresh_moves(tmp_path: Path, keep: int | None = None) -> None:
    with Rig(tmp_path) as rig:
        if keep is not None:
            rig.server.feeds.arbiter_stream.keep = keep
        rig.wait(lambda s: s["phase"] == "playing")
        live = SSE(rig.port, bearer(rig))
        events_until_state(live)
        rig.move("d3", "e4", "white")
        _, _, first = live.until("move")
        first_line = first["line"]
        seen: list[tuple[str | None, str, Any]] = []
        rig.move("c6", "d5", "black")  # black answers while a second client is away
        rig.move("e4", "c6", "white")  # a capture
        # the state shows a move as soon as it is decided; its lines reach the SSE once durable
        s = rig.wait(lambda s: len(s["moves"]) == 3 and s["line"] == _numbered(rig))
        while True:
            ev = live.next()
            seen.append(ev)
            if ev[1] == "state" and ev[2]["line"] == s["line"]:
                break
        live.close()
        expected = [e for e in seen if e[1] != "state" and int(e[0] or 0) > first_line]
        again = SSE(rig.port, {**bearer(rig), "Last-Event-ID": str(first_line)})
        got = events_until_state(again)
        again.close()
        assert [_same(e) for e in got if e[1] != "state"] == [_same(e) for e in expected]
        assert got[-1][2]["moves"] == s["moves"]
        ids = [int(e[0]) for e in got if e[0] is not None]
        assert ids == sorted(ids) and min(ids) > first_line


def _numbered(rig: Rig) -> int:
    """Lines the board's journal has numbered (some may not be durable yet: write-behind)."""
    session = rig.controller.session
    assert session is not None
    return session.journal.line_count


def _same(event: tuple[str | None, str, Any]) -> tuple[Any, ...]:
    """An event as compared: a clock event by who runs (its reading is taken when it is sent)."""
    ident, name, data = event
    if name == "clock":
        return ident, name, data["clock"]["running"], data["clock"]["state"]
    return ident, name, data


def test_sse_resume_from_memory_loses_and_repeats_nothing(tmp_path: Path) -> None:
    _fresh_moves(tmp_path)


def test_sse_resume_from_the_journal_when_memory_no_longer_has_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pi.web.server as server
    read: list[int] = []
    original = server.replay_journal_events

    def counted(trace: Path, after: int) -> Any:
        read.append(after)
        return original(trace, after)
    monkeypatch.setattr(server, "replay_journal_events", counted)
    _fresh_moves(tmp_path, keep=1)
    assert len(read) == 1  # the older lines came from the journal file


# ---------------------------------------------------------------------- the command line

@pytest.mark.parametrize("value", ["nope", "127.0.0.1:99999", "127.0.0.1:", ":80x"])
def test_bad_http_option_is_one_line_exit_2(tmp_path: Path, value: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["run", "--simulate", "--http", value, "--state-dir", str(tmp_path / "s")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "--http" in err


def test_http_address_in_use_is_one_line_exit_2(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    import socket
    trace = Path(__file__).resolve().parents[1] / "traces" / "italian"
    sample = sorted(trace.glob("*.jsonl"))[0]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        rc = cli(["run", "--simulate", "--quiet", "--trace", str(sample), "--speed", "max",
                  "--http", f"127.0.0.1:{port}", "--state-dir", str(tmp_path / "s")])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "cannot listen" in err


def test_arbiter_answer_is_its_own_line_when_others_journal_arbiter_lines(rig: Rig) -> None:
    """Another source's arbiter line (a trace acted by the simulator, a serial command), of the
    very same content, journaled first does not answer the web's request: the answer is the
    line the request itself became."""
    from engine.events import ArbiterActed
    controller = rig.controller
    assert rig.loop is not None
    rig.loop.call_soon_threadsafe(controller.submit,
                                  ArbiterActed(controller.time.stamp(), "note", None, "same"))
    status, data = rig.json("POST", "/api/arbiter", {"action": "note", "text": "same"},
                            token=rig.token)
    assert status == 200 and data["record"]["text"] == "same"
    journal = Path(controller.session.game.trace).read_text().splitlines()
    assert json.loads(journal[data["line"] - 1]) == data["record"]
    notes = [n for n, x in enumerate(journal, start=1) if json.loads(x).get("text") == "same"]
    assert notes == [data["line"] - 1, data["line"]]


def test_daemon_stops_promptly_with_live_clients(tmp_path: Path) -> None:
    rig = Rig(tmp_path).__enter__()
    clients = [SSE(rig.port), SSE(rig.port, bearer(rig))]
    for c in clients:
        assert c.next()[1] == "state"
    started = time.monotonic()
    rig.__exit__(None, None, None)
    assert not rig.thread.is_alive() and rig.error is None
    assert time.monotonic() - started < 10  # bounded by the 2 s shutdown timeout, not 60 s
    for c in clients:
        with pytest.raises((EOFError, OSError)):
            while True:
                c.next()
        c.close()


def test_replay_gives_the_arbiters_state_after_every_journal_line(tmp_path: Path) -> None:
    with Rig(tmp_path / "state") as r:
        r.wait(lambda s: s["phase"] == "playing")
        r.move("d3", "e4", "white")
        r.wait(lambda s: len(s["moves"]) == 1 and s["line"] == _numbered(r))
        assert r.request("GET", "/api/replay")[0] == 401
        _, body = r.json("GET", "/api/replay", token=r.token)
        states = body["states"]
        journal = Path(r.controller.session.game.trace).read_text().splitlines()
        assert body["game_id"] == r.state_now()["game_id"]
        assert [s["record"] for s in states] == [json.loads(x) for x in journal]
        assert [s["line"] for s in states] == list(range(1, len(journal) + 1))
        # after the set-up snapshot: the starting position, every piece known
        assert len(states[1]["pieces"]) == 24 and set(states[1]["pieces"].values()) == {"w", "b"}
        lifted = next(s for s in states if s["record"]["type"] == "lift")
        assert lifted["hand"] == 1 and "d3" not in lifted["pieces"] and lifted["moves"] == 0
        last = states[-1]
        assert last["moves"] == 1 and last["last_move"] == {"notation": "22-19", "ply": 1,
                                                            "side": "white"}
        assert last["pieces"]["e4"] == "w" and last["turn"] == "black" and last["result"] == "*"
        assert last["clock"] is not None and last["clock"]["running"] == "black"


def _sim(rig: Rig, *steps: str) -> None:
    """``-sq`` lifts, ``+sq`` places on the simulated board, each seen by the sensors."""
    rig.step(*steps)


def test_replay_of_a_past_game_once_the_next_has_begun(tmp_path: Path) -> None:
    """Issue 37: a game's flags and step replay were the game in play's only, lost when the next
    began. ``GET /api/replay?game=<id>`` replays any game of the board from its journal, with its
    flags (each with the line that raised it, IT 8.1.3 here) and moves; an unknown id is a 404;
    the game in play's id (or none) is the game in play."""
    with Rig(tmp_path / "state") as rig:
        first = rig.wait(lambda s: s["phase"] == "playing")["game_id"]
        _sim(rig, "-b3", "+b3", "-d3", "+c4")  # touched 21, moved 22 (IT 8.1.3)
        status, _ = rig.json("POST", "/api/sim/button", {"name": "clock", "side": "white"},
                             token=rig.token)
        assert status == 200
        rig.wait(lambda s: any(f["code"] == "IT 8.1.3" for f in s["flags"]))
        code, data = rig.json("POST", "/api/arbiter", {"action": "adjudicate", "result": "1-0"},
                              token=rig.token)
        assert code == 200, data
        rig.wait(lambda s: s["phase"] == "over")
        _sim(rig, "-c4", "+d3")  # the pieces set up again: the next game begins
        second = rig.wait(lambda s: s["game_id"] not in (None, first)
                          and s["phase"] == "playing")["game_id"]
        assert rig.request("GET", f"/api/replay?game={first}")[0] == 401
        code, body = rig.json("GET", f"/api/replay?game={first}", token=rig.token)
        assert code == 200 and body["game_id"] == first
        journal = (rig.root / "games" / first / "trace.jsonl").read_text().splitlines()
        assert [s["record"] for s in body["states"]] == [json.loads(x) for x in journal]
        assert body["states"][-1]["result"] == "1-0"
        flag = next(f for f in body["flags"] if f["code"] == "IT 8.1.3")
        assert flag["side"] == "white" and flag["title"] and "touched 21" in flag["text"]
        raised = body["states"][flag["line"] - 1]
        assert [f["id"] for f in raised["flags"]] == [flag["id"]]
        assert [f["id"] for f in body["states"][flag["line"] - 2]["flags"]] == []
        assert [m["notation"] for m in body["moves"]] == ["22-18"]
        # the game in play, by its id or by none
        for path in (f"/api/replay?game={second}", "/api/replay"):
            code, now = rig.json("GET", path, token=rig.token)
            assert code == 200 and now["game_id"] == second and now["flags"] == []
        for bad in ("2020-01-01-001", "nope", "..%2f..%2farbiter.token"):
            code, data = rig.json("GET", f"/api/replay?game={bad}", token=rig.token)
            assert code == 404 and "no such game" in data["error"], (bad, data)


@pytest.mark.parametrize("result", ["2-0", "1-1", "0-2", "*", "0-0"])
def test_adjudicate_takes_only_the_variants_results(tmp_path: Path, result: str) -> None:
    """Issue 37: ``adjudicate`` with "2-0" in an Italian game became 1-0 (the game read the
    international set's equivalents). A result outside the variant's set (COMP 6.14: 2/1/0 is
    the international scoring) is refused in one line, 409, nothing journaled; its own results
    are taken."""
    with Rig(tmp_path / "state") as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        before = rig.state_now()["line"]
        code, data = rig.json("POST", "/api/arbiter", {"action": "adjudicate", "result": result},
                              token=rig.token)
        assert code == 409, data
        assert f"{result} is not a result of italian" in data["error"]
        assert "1-0, 1/2-1/2, 0-1" in data["error"] and "\n" not in data["error"]
        assert rig.state_now()["line"] == before and rig.state_now()["phase"] == "playing"
        code, data = rig.json("POST", "/api/arbiter", {"action": "adjudicate", "result": "0-1"},
                              token=rig.token)
        assert code == 200 and data["record"]["result"] == "0-1", data


def test_a_lone_board_is_set_up_from_the_console_before_its_game(tmp_path: Path) -> None:
    """Issue 37: players, event, round and time control came only from damiera.toml and a
    restart. ``POST /api/setup`` (the arbiter's) puts them in the next game's start line: an
    untouched game gives way at once (the set-up's game begins from the same position), a
    touched one refuses it (409) until its result is in; a bad time control is a 400 of one
    line. The pages' state, the record's tags and the report's header follow the start line."""
    with Rig(tmp_path / "state") as rig:
        first = rig.wait(lambda s: s["phase"] == "playing")["game_id"]
        setup = {"white": "Carla Verdi", "black": "Dario Neri", "event": "Club night",
                 "round": "3", "time_control": "300+3"}
        assert rig.json("POST", "/api/setup", setup)[0] == 401
        for bad, words in (({"time_control": "5 minutes"}, "time_control: bad TimeControl"),
                           ({"white": "a\nb"}, "white: a control"), ({"colour": "x"},
                                                                    "not a set-up field"),
                           ({"round": ["3"]}, "round: a text is expected")):
            code, data = rig.json("POST", "/api/setup", bad, token=rig.token)
            assert code == 400 and words in data["error"] and "\n" not in data["error"], data
        assert rig.state_now()["game_id"] == first
        code, data = rig.json("POST", "/api/setup", setup, token=rig.token)
        assert code == 200, data
        s = rig.wait(lambda s: s["game_id"] not in (None, first) and s["phase"] == "playing")
        meta = s["metadata"]
        assert (meta["white"], meta["black"], meta["event"], meta["round"],
                meta["time_control"]) == ("Carla Verdi", "Dario Neri", "Club night", "3",
                                          "300+3")
        assert s["clock"]["white"] == pytest.approx(300, abs=2)
        start = json.loads((rig.root / "games" / s["game_id"] / "trace.jsonl").read_text()
                           .splitlines()[0])
        assert (start["white"], start["time_control"]) == ("Carla Verdi", "300+3")
        # the untouched game was voided by the set-up, and says so (not a hall's pairing)
        void = [json.loads(x) for x in
                (rig.root / "games" / first / "trace.jsonl").read_text().splitlines()]
        assert void[-2]["text"] == SET_UP_NOTE and void[-1]["type"] == "end"
        assert superseded(void[1:])
        pdn = rig.request("GET", "/game.pdn", token=rig.token)[2].decode()
        assert '[White "Carla Verdi"]' in pdn and '[TimeControl "300+3"]' in pdn
        second = s["game_id"]
        rig.move("d3", "e4", "white")
        rig.wait(lambda s: len(s["moves"]) == 1)
        code, data = rig.json("POST", "/api/setup", {"white": "Someone"}, token=rig.token)
        assert code == 409 and "a game is in play (a move was played)" in data["error"], data
        assert rig.state_now()["metadata"]["white"] == "Carla Verdi"
        code, _ = rig.json("POST", "/api/arbiter", {"action": "adjudicate", "result": "1-0"},
                           token=rig.token)
        assert code == 200
        code, data = rig.json("POST", "/api/setup", {"white": "Elena", "time_control": "-"},
                              token=rig.token)
        assert code == 200, data
        assert rig.state_now()["game_id"] == second  # the next game takes it
        _sim(rig, "-e4", "+d3")  # the pieces set up again
        s = rig.wait(lambda s: s["game_id"] not in (None, first, second))
        assert s["metadata"]["white"] == "Elena" and s["metadata"]["black"] == "Dario Neri"
        assert s["metadata"]["time_control"] is None
