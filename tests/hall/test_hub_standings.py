"""The hub's standings and the whole event's PDN (issue 37; HUB_API.md ``GET /api/standings``,
``GET /event.pdn``), through a real hub and broker: the standings after each round come from
the results as ``/results.csv`` has them (an arbiter's adjudication counted as adjudicated),
points as hub.toml scores them (COMP 6.14) and its tie-breaks (COMP 6.21); the event's PDN
holds every round's games, in round then board order."""

from __future__ import annotations

import csv
import io
import json
import re
from fractions import Fraction
from pathlib import Path

from pi.hall.standings import Scoring
from tests.hall.broker import Broker
from tests.hall.hub_rig import FakeBoard, HubRig, wait

CSV = ("round,board,white,black\n1,4,Anna,Bruno\n1,7,Carla,Dario\n"
       "2,4,Dario,Anna\n2,7,Bruno,Carla\n3,4,Anna,Carla\n3,7,Dario,Bruno\n")


def game(game_id: str, board: str, rnd: str, white: str, black: str, result: str) -> list[str]:
    """A game of round ``rnd`` played to its end: begun, its clock started, a move, then
    ``result`` adjudicated by the arbiter (COMP 6.16)."""
    start = {"type": "start", "variant": "italian", "fen": None, "clock": True,
             "transcribed": True, "time_control": "40/3600:1800", "white": white,
             "black": black, "event": "Test Open", "round": rnd, "board": int(board),
             "id": game_id, "started_at": "2026-11-22T09:00:00Z"}
    return [json.dumps(start),
            json.dumps({"t": 1.0, "type": "arbiter", "action": "start_clock"}),
            json.dumps({"t": 90.0, "type": "arbiter", "action": "adjudicate",
                        "result": result})]


def _play(rig: HubRig, board: FakeBoard, game_id: str, lines: list[str]) -> None:
    board.add_game(game_id, lines)
    board.status()
    board.publish_lines(game_id)
    wait(lambda: rig.held(board.board, game_id) == len(lines), what=f"{game_id} replicated")


def test_standings_per_round_from_the_results_and_the_events_pdn(tmp_path: Path) -> None:
    with Broker(tmp_path) as broker, \
            HubRig(tmp_path / "hub", broker.url,
                   standings=Scoring(tie_break=("buchholz", "direct-encounter"))) as rig:
        b4, b7 = FakeBoard(broker.url, "4"), FakeBoard(broker.url, "7")
        try:
            assert rig.request("GET", "/event.pdn")[0] == 404  # no game yet
            assert rig.json("POST", "/api/pairings", raw=CSV.encode(), token=rig.token)[0] == 200
            # paired, nothing played: every player listed, 0 points, round 1 shown
            status, got = rig.json("GET", "/api/standings")
            assert status == 200 and got["round"] == "1" and got["rounds"] == ["1", "2", "3"]
            assert got["points"] == "2-1-0" and got["tie_break"] == ["buchholz",
                                                                     "direct-encounter"]
            assert sorted(p["name"] for p in got["players"]) == ["Anna", "Bruno", "Carla",
                                                                 "Dario"]
            assert {p["points"] for p in got["players"]} == {0}
            _play(rig, b4, "2026-11-22T0900-b04-001", game("2026-11-22T0900-b04-001", "4", "1",
                                                           "Anna", "Bruno", "1-0"))
            _play(rig, b7, "2026-11-22T0900-b07-001", game("2026-11-22T0900-b07-001", "7", "1",
                                                           "Carla", "Dario", "1/2-1/2"))
            _play(rig, b4, "2026-11-22T1400-b04-002", game("2026-11-22T1400-b04-002", "4", "2",
                                                           "Dario", "Anna", "0-1"))
            _play(rig, b7, "2026-11-22T1400-b07-002", game("2026-11-22T1400-b07-002", "7", "2",
                                                           "Bruno", "Carla", "1-0"))
            # the newest round with a result is shown by default; round 3 is paired only
            status, got = rig.json("GET", "/api/standings")
            assert status == 200 and got["round"] == "2" and got["view"] == "public"
            table = {p["name"]: p for p in got["players"]}
            assert {n: p["points"] for n, p in table.items()} == \
                {"Anna": 4, "Bruno": 2, "Carla": 1, "Dario": 1}
            # Carla and Dario: 1 point each; Buchholz parts them (COMP 6.21 b): Dario's
            # opponents Carla and Anna scored 5, Carla's Dario and Bruno 3; direct encounter,
            # named second, has nobody left to part
            assert table["Dario"]["tie_breaks"] == {"buchholz": 5, "direct-encounter": None}
            assert table["Carla"]["tie_breaks"] == {"buchholz": 3, "direct-encounter": None}
            assert [(p["name"], p["rank"], p["tied"]) for p in got["players"]] == \
                [("Anna", 1, False), ("Bruno", 2, False), ("Dario", 3, False),
                 ("Carla", 4, False)]
            assert [(g["round"], g["opponent"], g["points"]) for g in table["Anna"]["rounds"]] \
                == [("1", "Bruno", 2), ("2", "Dario", 2)]  # after round 2: round 3 not yet
            # the points are the results.csv's, as it has them (adjudicated)
            rows = list(csv.DictReader(io.StringIO(
                rig.request("GET", "/results.csv")[2].decode())))
            scored: dict[str, Fraction] = {}
            for r in rows:
                s = Scoring()
                for name, colour in ((r["white"], "white"), (r["black"], "black")):
                    p = s.points(r["result"], "white" if colour == "white" else "black")
                    scored[name] = scored.get(name, Fraction(0)) + (p or 0)
            assert scored == {n: p["points"] for n, p in table.items()}
            # after round 1: round 2's games not counted
            status, got = rig.json("GET", "/api/standings?round=1")
            assert status == 200 and got["round"] == "1"
            assert {p["name"]: p["points"] for p in got["players"]} == \
                {"Anna": 2, "Bruno": 0, "Carla": 1, "Dario": 1}
            assert rig.json("GET", "/api/standings?round=9")[0] == 404
            assert rig.json("GET", "/api/standings?round=a%2Fb")[0] == 400
            assert rig.json("GET", "/api/standings", token=rig.token)[1]["view"] == "arbiter"

            # the event's PDN: round 1's then round 2's games, in board order
            status, headers, body = rig.request("GET", "/event.pdn")
            assert status == 200 and headers["content-type"].startswith("application/")
            pdn = body.decode()
            assert re.findall(r'\[Round "([^"]+)"\]', pdn) == ["1.4", "1.7", "2.4", "2.7"]
            assert re.findall(r'\[Result "([^"]+)"\]', pdn) == ["1-0", "1/2-1/2", "0-1", "1-0"]
            assert '[White "Dario"]' in pdn and '[Termination "adjudication"]' in pdn
            # each game as its round's feed has it
            for rnd in ("1", "2"):
                feed = rig.request("GET", f"/rounds/{rnd}/games.pdn")[2].decode()
                assert feed in pdn
            etag = headers["etag"]
            assert rig.request("GET", "/event.pdn", headers={"If-None-Match": etag})[0] == 304
        finally:
            b4.close()
            b7.close()
