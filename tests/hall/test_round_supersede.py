"""Boards set up before the arbiter starts the round (issue 16, "Starting a round"), on a real
hall: Mosquitto, the hub in-process and two simulated boards (the daemon itself, its link).

The players set the pieces up again as soon as a round ends, so each board begins a game (IT
7.1, 7.2) with the previous pairing's start line long before "start round N". The round's
pairing supersedes such a game while it is untouched (``pi.board.supersede``): the board begins
round N's game at once, with round N's start line, and the hub starts its clock (COMP 4.4.2,
6.9). A game already touched keeps its start line and the round's table says why. The void
games are in no round's feed, results or hall summary, and every replica stays byte-equal to
its board's journal."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pi.board.supersede import SUPERSEDED_NOTE
from tests.hall.broker import Broker
from tests.hall.hall_rig import HallRig, hall_config
from tests.hall.hub_rig import HALL, HubRig, rig_key, wait

CSV = ("round,board,white,black\n1,7,Rossi,Bianchi\n1,8,Verdi,Neri\n"
       "2,7,Neri,Rossi\n2,8,Bianchi,Verdi\n")


def _board(root: Path, port: int, number: str) -> HallRig:
    spec = hall_config(port).mqtt
    assert spec is not None
    spec = replace(spec, hall=HALL, board=number, key=rig_key(number))
    return HallRig(root / f"board-{number}", port, spec=spec, board=int(number))


def _table(hub: HubRig, rnd: str) -> dict[str, dict[str, Any]]:
    status, got = hub.json("GET", f"/api/rounds/{rnd}", token=hub.token)
    assert status == 200, got
    return {b["board"]: b for b in got["boards"]}


def _start(rig: HallRig) -> dict[str, Any]:
    return dict(json.loads(rig.lines_on_disk()[0]))


def _lines(rig: HallRig, game: str) -> list[dict[str, Any]]:
    return [json.loads(x) for x in rig.lines_on_disk(game)]


def _finished(rig: HallRig, game: str) -> Any:
    path = rig.root / "games" / game / "finished"
    return json.loads(path.read_text()) if path.exists() else None


def _set_up_again(rig: HallRig) -> str:
    """The game over, the players take a piece off and put it back: the next game begins."""
    over = rig.link.game_id
    rig.json("POST", "/api/sim/lift", {"square": "b1"}, token=rig.token)
    time.sleep(0.2)
    rig.json("POST", "/api/sim/place", {"square": "b1"}, token=rig.token)
    wait(lambda: rig.link.game_id != over, 10, "the next game")
    return str(rig.link.game_id)


def _replicas_equal(hub: HubRig, rigs: list[HallRig]) -> list[str]:
    hub.call(hub.hub.replica.sync)
    differ = []
    for rig in rigs:
        board = str(rig.config.board)
        for journal in sorted((rig.root / "games").glob("*/trace.jsonl")):
            replica = (hub.config.state_dir / "boards" / board / "games" / journal.parent.name
                       / "trace.jsonl")
            if not replica.is_file() or replica.read_bytes() != journal.read_bytes():
                differ.append(f"board {board} game {journal.parent.name}")
    return differ


@pytest.mark.slow  # two boards, a hub and a broker through two rounds: ~20 s
def test_boards_set_up_before_the_round_begin_its_games_when_it_starts(tmp_path: Path) -> None:
    with Broker(tmp_path) as broker, HubRig(tmp_path / "hub", broker.url) as hub, \
            _board(tmp_path, broker.port, "7") as b7, _board(tmp_path, broker.port, "8") as b8:
        rigs = [b7, b8]
        # switched on set up, before any pairing: each began a game (its clock running from
        # the set-up, started by nobody) with the configuration's players and no round
        power_on = {b.config.board: b.link.game_id for b in rigs}
        assert all(_start(b).get("round") is None for b in rigs)
        assert hub.json("POST", "/api/pairings", raw=CSV.encode(), token=hub.token)[0] == 200
        status, got = hub.json("POST", "/api/rounds/1/start", token=hub.token)
        assert status == 200 and got["started"] is True
        # round 1's pairing supersedes the untouched games: round 1 begins, the hub starts
        # the clocks
        wait(lambda: all(r["state"] == "started" for r in _table(hub, "1").values()), 30,
             "round 1 started on both boards", show=lambda: _table(hub, "1"))
        round1 = {b.config.board: b.link.game_id for b in rigs}
        for b in rigs:
            assert round1[b.config.board] != power_on[b.config.board]
            start = _start(b)
            assert (start["round"], start["clock_start"]) == ("1", "arbiter")
            void = _lines(b, power_on[b.config.board])
            assert [x["type"] for x in void] == ["start", "snapshot", "arbiter", "end"]
            assert void[2]["text"] == SUPERSEDED_NOTE
            assert _finished(b, power_on[b.config.board]) == {"result": "*"}
        assert (_start(b7)["white"], _start(b8)["white"]) == ("Rossi", "Verdi")
        b7.wait(lambda s: s["clock"]["state"] == "running")

        # round 1 played to its results; the players set up again at once
        b7.sim_action({"action": "adjudicate", "result": "1-0"})
        b8.sim_action({"action": "adjudicate", "result": "0-1"})
        early7, early8 = _set_up_again(b7), _set_up_again(b8)
        assert _start(b7)["round"] == "1" and _start(b8)["round"] == "1"  # the pairing in force
        # on board 7 a player straightens a piece before the round (lifted, put back): no play
        # before the arbiter's start (COMP 4.4.2); on board 8 a player presses his clock:
        # touched
        b7.json("POST", "/api/sim/lift", {"square": "d3"}, token=b7.token)
        time.sleep(0.2)
        b7.json("POST", "/api/sim/place", {"square": "d3"}, token=b7.token)
        b8.json("POST", "/api/sim/button", {"name": "clock", "side": "white"}, token=b8.token)
        wait(lambda: any(json.loads(x)["type"] == "place" for x in b7.lines_on_disk()), 10,
             "board 7's straightening journaled")
        wait(lambda: any(json.loads(x)["type"] == "button" for x in b8.lines_on_disk()), 10,
             "board 8's touch journaled")

        status, got = hub.json("POST", "/api/rounds/2/start", token=hub.token)
        assert status == 200 and got["started"] is True
        # board 7, untouched: round 2's game begun at once, its clock started by the hub
        wait(lambda: _table(hub, "2")["7"]["state"] == "started", 30, "board 7 in round 2",
             show=lambda: (_table(hub, "2")["7"], b7.lines_on_disk()[-4:]))
        round2 = b7.link.game_id
        assert round2 != early7 and _table(hub, "2")["7"]["game_id"] == round2
        start = _start(b7)
        assert (start["round"], start["white"], start["black"], start["clock_start"]) == \
            ("2", "Neri", "Rossi", "arbiter")
        assert start["event"] == "Test Open"
        assert _finished(b7, early7) == {"result": "*"}
        assert _lines(b7, early7)[-2]["text"] == SUPERSEDED_NOTE
        b7.wait(lambda s: s["clock"]["state"] == "running" and s["clock"]["running"] == "white")
        # board 8, touched: its game keeps round 1's start line; the table says why
        wait(lambda: b8.link.game_id == early8 and "control" in _table(hub, "2")["8"]["why"], 15,
             "board 8 not ready, and why")
        row = _table(hub, "2")["8"]
        assert row["state"] == "not_ready" and "keeps its start line" in row["why"], row
        assert _start(b8)["round"] == "1" and _finished(b8, early8) is None

        # the void games are no games of a round: results, feeds, the hall's summaries
        wait(lambda: not _replicas_equal(hub, rigs), 20, "the replicas caught up")
        status, results = hub.json("GET", "/api/results", token=hub.token)
        assert status == 200
        rows = {(r["round"], r["board"]): r for r in results}
        assert rows[("1", "7")]["game_id"] == round1[7]
        assert (rows[("1", "7")]["white"], rows[("1", "7")]["result"]) == ("Rossi", "1-0")
        assert rows[("2", "7")]["game_id"] == round2
        assert (rows[("2", "7")]["white"], rows[("2", "7")]["black"]) == ("Neri", "Rossi")
        void_ids = {power_on[7], power_on[8], early7}
        assert not void_ids & {r["game_id"] for r in results}
        assert set(rows) == {("1", "7"), ("1", "8"), ("2", "7"), ("2", "8")}
        status, _, feed = hub.request("GET", "/rounds/1/games.pdn")
        assert status == 200
        games = [g for g in feed.decode().split("[Event ") if g.strip()]
        assert len(games) == 2 and '[Result "1-0"]' in games[0], feed.decode()[:1500]
        status, _, feed = hub.request("GET", "/rounds/2/games.pdn")
        assert status == 200 and '[White "Neri"]' in feed.decode()
        status, hall = hub.json("GET", "/api/hall", token=hub.token)
        assert status == 200
        summaries = {s["board"]: s for s in hall["boards"]}
        assert summaries["7"]["game_id"] == round2 and summaries["7"]["round"] == "2"
