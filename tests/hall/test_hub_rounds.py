"""Starting a round from the hall (issue 16; HUB_API.md ``POST /api/rounds/<r>/start``): a round
starts when the arbiter starts the clocks (COMP 4.4.2). Every board of the round gets its
pairing; once it has begun its game set up (IT 7.1, 7.2), the hub starts its clock for the
player to move, whether or not the players are there (COMP 6.9, 6.10); the boards not ready are
listed with the reason."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.hall.broker import Broker
from tests.hall.hub_rig import FakeBoard, HubRig, wait

CSV = ("round,board,white,black\n1,4,Anna,Bruno\n1,7,Carla,Dario\n1,9,Elena,Fabio\n"
       "2,4,Carla,Anna\n2,7,Bruno,Elena\n")
G4 = "2026-11-22T0900-b04-001"
G7 = "2026-11-22T0900-b07-001"
#: the hubs' tick here (a second in production): a round's clocks are started at a tick
TICK = 0.1


def _ticks(rig: HubRig, n: int) -> None:
    """Returns after ``n`` more ticks of the hub's rounds (``Rounds.tick``, counted as each
    one ends; 30 s at most)."""
    rounds = rig.hub.rounds
    tick = rounds.tick
    count = [0]

    def counted() -> None:
        tick()
        count[0] += 1
    rig.call(lambda: setattr(rounds, "tick", counted))
    try:
        wait(lambda: count[0] >= n, what=f"{n} ticks of the hub")
    finally:
        rig.call(lambda: delattr(rounds, "tick"))


def start_line(game: str, board: str, rnd: str, white: str, black: str) -> str:
    """The journal's first line of a game just begun on a set-up board (its clock not yet
    started: nothing has happened in the game)."""
    return json.dumps({"type": "start", "variant": "italian", "fen": None, "clock": True,
                       "transcribed": True, "time_control": "40/3600:1800", "white": white,
                       "black": black, "event": "Test Open", "round": rnd, "board": int(board),
                       "id": game, "started_at": "2026-11-22T09:00:00Z"})


def played_game(game: str, board: str, white: str, black: str) -> list[str]:
    """A game of round 1 played to its end: begun, its clock started by the arbiter,
    adjudicated 1-0."""
    return [start_line(game, board, "1", white, black),
            json.dumps({"t": 1.0, "type": "arbiter", "action": "start_clock"}),
            json.dumps({"t": 90.0, "type": "arbiter", "action": "adjudicate", "result": "1-0"})]


def _row(rig: HubRig, rnd: str, board: str) -> dict[str, Any]:
    status, got = rig.json("GET", f"/api/rounds/{rnd}", token=rig.token)
    assert status == 200, got
    return {b["board"]: b for b in got["boards"]}[board]


def _clock_starts(board: FakeBoard) -> list[dict[str, Any]]:
    return [c.action for c in board.commands
            if c.action is not None and c.action.get("action") == "start_clock"]


@contextmanager
def _paired_hall(tmp_path: Path, *numbers: str) -> Iterator[tuple[HubRig, list[FakeBoard]]]:
    """A broker, a hub, the fake boards ``numbers`` online, the event's pairings uploaded."""
    with Broker(tmp_path) as broker, HubRig(tmp_path / "hub", broker.url, tick=TICK) as rig:
        boards = [FakeBoard(broker.url, n) for n in numbers]
        try:
            for b in boards:
                b.status()
            assert rig.json("POST", "/api/pairings", raw=CSV.encode(), token=rig.token)[0] == 200
            yield rig, boards
        finally:
            for b in boards:
                b.close()


def test_start_round_pairs_every_board_and_starts_each_clock_once_set_up(
        tmp_path: Path) -> None:
    with _paired_hall(tmp_path, "4", "7") as (rig, (b4, b7)):
        assert rig.json("POST", "/api/rounds/1/start")[0] == 401  # the arbiter's only
        assert rig.json("GET", "/api/rounds/1")[0] == 401
        assert rig.json("POST", "/api/rounds/5/start", token=rig.token)[0] == 404
        status, got = rig.json("POST", "/api/rounds/1/start", token=rig.token)
        assert status == 200 and got["round"] == "1" and got["started"] is True
        assert [b["board"] for b in got["boards"]] == ["4", "7", "9"]
        # every board of round 1 gets round 1's pairing (not round 2's, the CSV's last rows)
        for b, white in ((b4, "Anna"), (b7, "Carla")):
            wait(lambda b=b: [c.pairing for c in b.commands if c.pairing], what="pairing")
            # (sent again with the same id when the board's status is seen: done once)
            assert {(c.id, c.pairing["white"]) for c in b.commands if c.pairing} == \
                {(next(c.id for c in b.commands if c.pairing), white)}
        wait(lambda: rig.call(lambda: not rig.hub.pairing_out.get(4)
                              and not rig.hub.pairing_out.get(7)), what="the acks")
        # board 9 never connected; board 4's pieces are not set up yet (IT 7.1)
        assert _row(rig, "1", "9")["why"].startswith("offline")
        b4.state({"phase": "setup", "game_id": None, "message": "put right: 22 23",
                  "sensor_faults": []})
        wait(lambda: "put right: 22 23" in _row(rig, "1", "4")["why"], what="board 4")
        row = _row(rig, "1", "4")
        assert row["state"] == "not_ready" and "IT 7.1" in row["why"]
        # board 7 is set up: its game of round 1 begins; the hub starts its clock, no
        # player's press needed (COMP 6.9, 6.10: the face of the player to move runs)
        b7.add_game(G7, [start_line(G7, "7", "1", "Carla", "Dario")])
        b7.status()
        b7.publish_lines(G7)
        wait(lambda: _clock_starts(b7), what="board 7's start_clock")
        assert _clock_starts(b7) == [{"action": "start_clock", "game": G7}]
        wait(lambda: _row(rig, "1", "7")["state"] == "started", what="board 7 started")
        assert _row(rig, "1", "7")["game_id"] == G7
        # board 4 set up later: its clock is started then, once
        b4.add_game(G4, [start_line(G4, "4", "1", "Anna", "Bruno")])
        b4.status()
        b4.publish_lines(G4)
        wait(lambda: _row(rig, "1", "4")["state"] == "started", what="board 4 started")
        _ticks(rig, 5)  # more ticks of the hub: nothing sent twice
        assert len(_clock_starts(b4)) == 1 and len(_clock_starts(b7)) == 1
        # round 2 is round 2: kept, not sent, until it starts
        assert all(c.pairing["round"] == "1" for c in b4.commands if c.pairing)


def test_a_round_keeps_its_played_game_when_a_touched_one_follows_under_its_names(
        tmp_path: Path) -> None:
    """Round 1's game on board 4 ended 1-0; the players set up again and one pressed his clock
    before round 2 was started, so that game kept round 1's start line (pi.board.supersede):
    round 1's row, feed and results stay its played game's (1-0), not the stray game's ``*``."""
    g4b = "2026-11-22T1030-b04-002"
    with _paired_hall(tmp_path, "4") as (rig, (b4,)):
        played = played_game(G4, "4", "Anna", "Bruno")
        stray = [start_line(g4b, "4", "1", "Anna", "Bruno"),
                 json.dumps({"t": 5.0, "type": "button", "name": "clock", "side": "white"})]
        b4.add_game(G4, played)
        b4.publish_lines(G4)
        wait(lambda: rig.held(4, G4) == 3, what="the played game")
        b4.add_game(g4b, stray)
        b4.status()
        b4.publish_lines(g4b)
        wait(lambda: rig.held(4, g4b) == 2, what="the stray game")
        _, results = rig.json("GET", "/api/results", token=rig.token)
        row = {(r["round"], r["board"]): r for r in results}[("1", "4")]
        assert (row["game_id"], row["result"]) == (G4, "1-0")
        feed = rig.request("GET", "/rounds/1/games.pdn")[2].decode()
        four = [g for g in feed.split("\n\n[") if '[Board "4"]' in g or 'Round "1.4"' in g]
        assert four and '[Result "1-0"]' in four[0]


def test_a_game_set_up_again_after_the_rounds_game_ended_is_not_started_by_the_hub(
        tmp_path: Path) -> None:
    """Round 1's game on board 7 ended 1-0; the players set the pieces up again at once, so
    the board begins a game under round 1's pairing, waiting for the arbiter (COMP 4.4.2).
    The round's game on that board is over: the hub does not start that game's clock (its
    start would touch the game, and round 2's pairing could no longer supersede it,
    ``pi.board.supersede``); round 1's row says over, with the played game."""
    g7b = "2026-11-22T1030-b07-002"
    with _paired_hall(tmp_path, "7") as (rig, (b7,)):
        assert rig.json("POST", "/api/rounds/1/start", token=rig.token)[0] == 200
        played = played_game(G7, "7", "Carla", "Dario")
        b7.add_game(G7, played)
        b7.status()
        b7.publish_lines(G7)
        wait(lambda: rig.held(7, G7) == 3, what="the played game")
        b7.add_game(g7b, [start_line(g7b, "7", "1", "Carla", "Dario")])  # set up again
        b7.status()
        b7.publish_lines(g7b)
        wait(lambda: rig.held(7, g7b) == 1, what="the game set up again")
        _ticks(rig, 5)  # ticks of the hub: none starts that game's clock
        assert _clock_starts(b7) == []
        row = _row(rig, "1", "7")
        assert (row["state"], row["game_id"]) == ("over", G7), row
        assert "1-0" in row["why"]
