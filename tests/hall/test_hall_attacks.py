"""Issue 17's hall attacks, repeated on a real hall: the hall ``damiera hub init`` writes (TLS by
default, passwords, ACL, each board's signing key), a real Mosquitto with its configuration, the
hub in-process and a real board (the daemon's own ``run_daemon`` on the simulator, its link
``pi.hall.link``). The attacker holds board 7's broker password — what the plain listener used to
hand to anyone on the hall's network — and publishes as board 7:

1. a journal line numbered one past the hub's head (and then, being what it is, the same line
   number the real board writes next: a conflicting copy);
2. the start line of a game in 2099 with names of its choosing, and a status announcing it;
3. every connection it makes with the board's credentials throws the real board off the broker.

Every replica stays byte-equal to its journal, the hall page shows the real game and names, and
the hall's arbiter console (``GET /api/alarms``) has an alarm for each. The arbiter's actions
name their game and the line seen: the board refuses, with a clear ``ack``, one for another game
or one the game moved on past, and the console (the hub's answer) shows the refusal.
"""

from __future__ import annotations

import json
import threading
import urllib.parse
from dataclasses import replace
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from broker import Broker
from hall_rig import BOARD, HALL, NUMBER, HallRig

from pi.board.config import parse_mqtt_url
from pi.hall import protocol as P
from pi.hall.hub_init import CA_FILE, Hall, make_hall, write_hall
from tests.hall.hub_rig import HubRig, wait

FUTURE = "2099-12-31T2359-b07-001"


def _url(hall: Hall, user: str, port: int) -> str:
    return (f"mqtts://{user}:{urllib.parse.quote(hall.passwords[user], safe='')}"
            f"@127.0.0.1:{port}")


class Attacker:
    """A client with board 7's user name and password, over the hall's TLS (it trusts the CA,
    which is public)."""

    def __init__(self, hall: Hall, port: int) -> None:
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="mallory",
                             protocol=mqtt.MQTTv311)
        self.c.tls_set(ca_certs=str(hall.dir / CA_FILE))
        self.c.username_pw_set(f"board-{BOARD}", hall.passwords[f"board-{BOARD}"])
        ok = threading.Event()
        self.c.on_connect = lambda *a: ok.set()
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        assert ok.wait(10), "the attacker could not connect"
        self.topics = P.Topics(HALL)

    def send(self, leaf: str, payload: bytes) -> None:
        self.c.publish(self.topics.board(BOARD, leaf), payload, qos=1).wait_for_publish(10)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


@pytest.fixture
def hall(tmp_path: Path) -> Any:
    h = make_hall(int(BOARD), tmp_path / "hall", hall=HALL, host="127.0.0.1")
    write_hall(h)
    with Broker(tmp_path, conf=h.dir / "mosquitto.conf") as broker:
        hub = HubRig(tmp_path / "hub", _url(h, "hub", broker.port), hall=HALL)
        hub.config = replace(hub.config, mqtt=replace(hub.config.mqtt, ca=h.dir / CA_FILE),
                             keys={n: bytes.fromhex(k) for n, k in h.keys.items()})
        spec = parse_mqtt_url(_url(h, f"board-{BOARD}", broker.port), ValueError)
        spec = replace(spec, hall=HALL, board=BOARD, ca=h.dir / CA_FILE,
                       key=bytes.fromhex(h.keys[NUMBER]))
        with hub, HallRig(tmp_path / "board", broker.port, spec=spec) as board:
            yield h, broker, hub, board


def _replica(hub: HubRig, game: str) -> bytes:
    path = hub.config.state_dir / "boards" / BOARD / "games" / game / "trace.jsonl"
    hub.call(hub.hub.replica.sync)
    return path.read_bytes() if path.exists() else b""


def _caught_up(hub: HubRig, board: HallRig) -> None:
    game = board.link.game_id
    wait(lambda: _replica(hub, game) == board.trace().read_bytes(), 20,
         "the replica byte-equal to the board's journal")


def _alarms(hub: HubRig) -> list[dict[str, Any]]:
    status, got = hub.json("GET", "/api/alarms", token=hub.token)
    assert status == 200, got
    return list(got)


def test_the_three_attacks_leave_the_replica_equal_and_raise_alarms(hall: Any) -> None:
    h, broker, hub, board = hall
    assert hub.json("GET", "/api/alarms")[0] == 401  # the arbiter's only
    board.move("d3", "e4", "white")
    _caught_up(hub, board)
    game = board.link.game_id
    head = len(board.lines_on_disk())
    assert _alarms(hub) == []

    mallory = Attacker(h, broker.port)  # 3: the real board is thrown off the broker
    try:
        forged = json.dumps({"t": 30.0, "type": "arbiter", "action": "adjudicate",
                             "result": "0-1"})
        mallory.send("journal", P.journal_payload(game, head + 1, forged))  # 1: no mac
        mallory.send("journal", P.journal_payload(game, head + 2, forged, "ab" * 32))
        start = json.dumps({"type": "start", "variant": "italian", "id": FUTURE,
                            "white": "Mallory", "black": "Eve", "board": int(BOARD)})
        mallory.send("journal", P.journal_payload(FUTURE, 1, start, "cd" * 32))  # 2
        mallory.send("status", P.status_payload(BOARD, FUTURE, 1, [(FUTURE, 1, False)]))
    finally:
        mallory.close()

    # the real board, back on the broker once the intruder left
    wait(lambda: board.link.connected.is_set(), 20, "the board back on the broker")
    board.move("c6", "d5", "black")  # its real line head + 1 comes after the forged one
    board.move("e4", "c6", "white")
    _caught_up(hub, board)
    assert not (hub.config.state_dir / "boards" / BOARD / "games" / FUTURE).exists() or \
        _replica(hub, FUTURE) == b""

    def page() -> dict[str, Any]:
        status, got = hub.json("GET", "/api/hall")
        assert status == 200
        return dict(next(b for b in got["boards"] if b["board"] == BOARD))
    shown = wait(lambda: (lambda s: s if s["lines"] == len(board.lines_on_disk()) else None)(
        page()), 20, "the hall page at the board's head")
    assert (shown["game_id"], shown["white"], shown["black"]) == (game, "Ann", "Bob")
    assert shown["missing"] == 0

    alarms = wait(lambda: (lambda a: a if {"forged", "status", "taken_over"} <=
                           {x["kind"] for x in a} else None)(_alarms(hub)), 20,
                  "the three alarms on the console")
    for a in alarms:
        assert a["board"] == BOARD and isinstance(a["time"], float) and a["what"]
    whats = " | ".join(a["what"] for a in alarms)
    assert f"game {game}" in whats and f"game {FUTURE}" in whats
    assert "ahead of the one the board announced" in whats
    assert f"board-{BOARD}'s credentials are used by another client" in whats


def test_a_conflicting_copy_of_a_held_line_is_an_alarm_and_the_replica_keeps_the_board_s(
        hall: Any) -> None:
    h, broker, hub, board = hall
    board.move("d3", "e4", "white")
    _caught_up(hub, board)
    game = board.link.game_id
    mallory = Attacker(h, broker.port)
    try:
        mallory.send("journal", P.journal_payload(game, 2, '{"t": 1.0, "type": "x"}', "ef" * 32))
    finally:
        mallory.close()
    wait(lambda: any(a["kind"] == "conflict" for a in _alarms(hub)), 20, "the conflict alarm")
    wait(lambda: board.link.connected.is_set(), 20, "the board back")
    board.move("c6", "d5", "black")
    _caught_up(hub, board)


def test_actions_name_their_game_and_the_board_refuses_what_no_longer_fits(hall: Any) -> None:
    h, broker, hub, board = hall
    board.move("d3", "e4", "white")
    _caught_up(hub, board)
    game = board.link.game_id
    seen = len(board.lines_on_disk())
    path = f"/boards/{BOARD}/api/arbiter"

    # an adjudication meant for another game (round 3's, reaching round 4's board)
    status, got = hub.json("POST", path, {"action": "adjudicate", "result": "1-0",
                                          "game": "2026-01-01T0900-b07-001", "seen": seen},
                           token=hub.token)
    assert status == 409 and "for game 2026-01-01T0900-b07-001" in got["error"], got
    assert game in got["error"]

    # the game moves on past the line the arbiter saw: a decision on it no longer fits
    board.move("c6", "d5", "black")
    _caught_up(hub, board)
    status, got = hub.json("POST", path, {"action": "adjudicate", "result": "1-0",
                                          "game": game, "seen": seen}, token=hub.token)
    assert status == 409 and "moved on since line" in got["error"], got
    assert board.controller.game.arbiter.game.result == "*"

    # a note still fits; an action on what the arbiter sees now is done
    status, got = hub.json("POST", path, {"action": "note", "text": "checked", "game": game,
                                          "seen": seen}, token=hub.token)
    assert status == 200, got
    now = len(board.lines_on_disk())
    status, got = hub.json("POST", path, {"action": "adjudicate", "result": "1-0",
                                          "game": game, "seen": now}, token=hub.token)
    assert status == 200 and got["record"]["result"] == "1-0", got
    _caught_up(hub, board)

