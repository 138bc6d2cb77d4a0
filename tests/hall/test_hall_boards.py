"""The light simulated boards of the hall's benchmark (hardware_mocks/hall_boards.py,
hall_fleet.py): their journals are real games — every one replays through ``damiera replay`` with
no flag and a result — published line for line as PROTOCOL.md says, and they answer ``resend``,
arbiter actions (once per command id) and pairings."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from broker import Broker

from hardware_mocks.hall_boards import LightBoard
from hardware_mocks.hall_fleet import Fleet, parse_boards
from pi.hall import protocol

ROOT = Path(__file__).resolve().parents[2]
DAMIERA = [sys.executable, "-c", "from pi.cli import main; raise SystemExit(main())"]


class Wire:
    """What a board published: (topic, payload, retained), in order."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes, bool]] = []

    def __call__(self, topic: str, payload: bytes, retained: bool) -> None:
        self.sent.append((topic, payload, retained))

    def journal(self) -> list[protocol.JournalLine]:
        return [protocol.parse_journal(p) for t, p, _ in self.sent if t.endswith("/journal")]

    def last(self, leaf: str) -> bytes:
        return [p for t, p, _ in self.sent if t.endswith("/" + leaf)][-1]


def play(tmp_path: Path, variant: str = "italian", seed: int = 1, games: int = 1,
         **kw: Any) -> tuple[LightBoard, Wire]:
    board = LightBoard(7, "h", tmp_path / "b7", seed=seed, variant=variant, games=games,
                       first_game_at=1_800_000_000.0, max_plies=(20, 60), **kw)
    wire = Wire()
    board.attach(wire)
    board.run_due(1e10)  # everything due: the whole game at once
    return board, wire


def replay(path: Path) -> dict[str, Any]:
    proc = subprocess.run(DAMIERA + ["replay", str(path), "--json"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("variant", ["italian", "english", "international", "brazilian"])
def test_a_boards_games_replay_with_no_flag_and_a_result(tmp_path: Path, variant: str) -> None:
    board, wire = play(tmp_path, variant, seed=3, games=2, accomodo=0.3)
    assert [h[2] for h in board.heads] == [True, True]
    for game_id, lines, _ in board.heads:
        path = tmp_path / "b7" / "games" / game_id / "trace.jsonl"
        text = path.read_text(encoding="utf-8").splitlines()
        assert len(text) == lines
        start = json.loads(text[0])
        assert (start["type"], start["variant"], start["board"], start["id"]) == \
            ("start", variant, 7, game_id)
        assert json.loads(text[1])["type"] == "snapshot" and json.loads(text[-1])["type"] == "end"
        kinds = {json.loads(t).get("name") for t in text}
        assert "clock" in kinds
        report = replay(path)
        assert report["flags"] == []
        assert report["result"] != "*" and len(report["moves"]) >= 20
        # published exactly as written, numbered from 1
        sent = [j for j in wire.journal() if j.game_id == game_id]
        assert [j.line for j in sent] == list(range(1, lines + 1))
        assert [j.text for j in sent] == text
    heads = protocol.parse_status(wire.last("status"))
    assert heads.game_id is None and [list(g) for g in heads.games] == board.heads


def test_adjustments_are_announced_and_not_flagged(tmp_path: Path) -> None:
    board, _ = play(tmp_path, seed=5, accomodo=1.0)
    path = next((tmp_path / "b7" / "games").glob("*/trace.jsonl"))
    names = [json.loads(t).get("name") for t in path.read_text().splitlines()]
    assert names.count("accomodo") >= 20
    assert replay(path)["flags"] == []


def test_commands_resend_action_once_and_pairing(tmp_path: Path) -> None:
    board = LightBoard(3, "h", tmp_path / "b3", seed=2, games=2, first_game_at=1000.0,
                       max_plies=(20, 30))
    wire = Wire()
    board.attach(wire)
    board.run_due(1000.0 + 60.0)  # one minute into the first game
    game = board.game_id
    assert game is not None and board.lines >= 3
    n = board.lines
    board.on_command(protocol.resend_payload(game, 2), 1060.0)
    again = wire.journal()[-(n - 1):]
    path = tmp_path / "b3" / "games" / game / "trace.jsonl"
    assert [(j.line, j.text) for j in again] == list(
        enumerate(path.read_text().splitlines(), start=1))[1:]
    note = protocol.action_payload("c1", {"action": "note", "text": "phone rang"})
    board.on_command(note, 1061.0)
    ack = protocol.parse_ack(wire.last("ack"))
    assert ack.ok and ack.line == n + 1
    board.on_command(note, 1062.0)  # QoS 1 repeats it: same answer, not journaled twice
    assert protocol.parse_ack(wire.last("ack")) == ack and board.lines == n + 1
    assert json.loads(path.read_text().splitlines()[-1])["text"] == "phone rang"
    board.on_command(protocol.action_payload("c2", {"action": "adjudicate", "result": "9-9"}),
                     1063.0)
    bad = protocol.parse_ack(wire.last("ack"))
    assert not bad.ok and bad.error and board.lines == n + 1
    board.on_command(protocol.pairing_payload("p1", {"round": "2", "white": "Anna",
                                                     "black": "Marco"}), 1064.0)
    assert protocol.parse_ack(wire.last("ack")).ok
    board.on_command(protocol.action_payload("c3", {"action": "adjudicate", "result": "1-0"}),
                     1065.0)
    assert protocol.parse_ack(wire.last("ack")).ok and board.heads[-1][2]  # the game is over
    report = replay(path)
    assert report["result"] == "1-0"
    board.run_due(1e10)
    second = tmp_path / "b3" / "games" / board.heads[1][0] / "trace.jsonl"
    start = json.loads(second.read_text().splitlines()[0])
    assert (start["round"], start["white"], start["black"]) == ("2", "Anna", "Marco")


def test_parse_boards() -> None:
    assert parse_boards("1-3,7,10-11") == [1, 2, 3, 7, 10, 11]
    for bad in ("", "3-1", "a", "1-2-3"):
        with pytest.raises(ValueError):
            parse_boards(bad)


def test_a_fleet_through_a_real_broker_delivers_every_line_and_resends(tmp_path: Path) -> None:
    with Broker(tmp_path) as broker:
        got: dict[tuple[int, str], dict[int, str]] = {}
        status: dict[int, bytes] = {}
        lock = threading.Lock()

        def on_message(_c: Any, _u: Any, msg: Any) -> None:
            board, leaf = protocol.parse_topic(protocol.Topics("h"), msg.topic)
            with lock:
                if leaf == "journal":
                    j = protocol.parse_journal(msg.payload)
                    got.setdefault((board, j.game_id), {})[j.line] = j.text
                elif leaf == "status":
                    status[board] = msg.payload

        hub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="test-hub")
        hub.on_message = on_message
        hub.connect("127.0.0.1", broker.port)
        hub.subscribe("damiera/h/boards/+/#", 1)
        hub.loop_start()
        boards = [LightBoard(n, "h", tmp_path / str(n), seed=4, pace=20000.0, games=1,
                             max_plies=(20, 40)) for n in (1, 2, 3, 4, 5)]
        fleet = Fleet(broker.url, boards)
        runner = threading.Thread(target=fleet.run, args=(time.time() + 30,))
        runner.start()
        deadline = time.time() + 30
        while time.time() < deadline and not all(b.heads and b.heads[-1][2] for b in boards):
            time.sleep(0.05)
        # the hub lost its copy of board 1's game: it asks for all of it again
        game = boards[0].heads[0][0]
        with lock:
            got.pop((1, game), None)
        hub.publish("damiera/h/boards/1/cmd", protocol.resend_payload(game, 1), qos=1)
        lines = boards[0].heads[0][1]
        deadline = time.time() + 30  # the whole game sent again: at once here, later if loaded
        while time.time() < deadline:
            with lock:
                if len(got.get((1, game), {})) >= lines:
                    break
            time.sleep(0.05)
        fleet.stop()
        runner.join(10)
        hub.disconnect()  # first: it wakes paho's loop (loop_stop() waits for it)
        hub.loop_stop()
    for b in boards:
        game_id, lines, finished = b.heads[0]
        assert finished
        disk = (tmp_path / b.name / "games" / game_id / "trace.jsonl").read_text().splitlines()
        assert got[(b.number, game_id)] == dict(enumerate(disk, start=1))
        heads = protocol.parse_status(status[b.number])
        assert heads.online and heads.games == ((game_id, lines, True),)


def test_a_light_board_with_a_key_signs_as_a_real_board(tmp_path: Path) -> None:
    from pi.hall.hub import Hub
    from pi.hall.hub_config import HubConfig
    key = bytes(range(32))
    board, wire = play(tmp_path, key=key)
    game, lines = str(board.heads[-1][0]), int(board.heads[-1][1])
    root = tmp_path / "hub"
    root.mkdir()
    hub = Hub(HubConfig(hall="h", state_dir=root, keys={7: key}), root)
    hub.deliver([(t, p) for t, p, _ in wire.sent])
    assert hub.replica.held(7, game) == lines and not hub.alarms
    assert hub.heads[7].mac is not None
    macs = [j.mac for j in wire.journal()]
    n = len(wire.sent)
    board.resend(game, 3)  # read back from its journal: the same macs
    assert [j.mac for j in wire.journal()[len(macs):]] == macs[2:] and len(wire.sent) > n
    hub.close()
    other = tmp_path / "other-hub"
    other.mkdir()
    wrong = Hub(HubConfig(hall="h", state_dir=other, keys={7: bytes(32)}), other)
    wrong.deliver([(t, p) for t, p, _ in wire.sent])  # another key: nothing verifies
    assert wrong.replica.held(7, game) == 0 and {a["kind"] for a in wrong.alarms} == \
        {"forged", "status"}
    wrong.close()


def test_touch_of_reads_each_line_once_and_again_from_a_new_list(tmp_path: Path) -> None:
    """BoardReplica.touch_of walks a growing game on from where it stopped (a summary asks at
    every line: each line read once), and from the start again when the replica's list is a new
    one (lines taken back after a failed write, the game read back): the answer is always the
    first touch of the lines held."""
    from engine.trace import CLOCK_START_ARBITER
    from pi.board.supersede import first_touch
    from pi.hall.boardview import BoardReplica
    from pi.hall.replica import GameReplica

    def text(obj: dict[str, object]) -> str:
        return json.dumps(obj)

    view = BoardReplica(7)
    start = text({"type": "start", "t": 0.0, "clock_start": CLOCK_START_ARBITER})
    g = GameReplica(7, "20260101-0900-0001", tmp_path / "trace.jsonl", [start])
    assert view.touch_of(g) is None
    # waiting for the arbiter's start: lifts and places touch nothing
    g.extend([text({"type": "lift", "t": 1.0, "square": "a1"}),
              text({"type": "place", "t": 2.0, "square": "a1"})])
    assert view.touch_of(g) is None
    press = {"type": "button", "t": 3.0, "name": "clock", "side": "white"}
    g.extend([text(press)])
    assert view.touch_of(g) == press
    # a new list (lines taken back): read from its start, the start line's waiting included
    other = GameReplica(7, "20260101-0900-0002", tmp_path / "trace2.jsonl",
                        [text({"type": "start", "t": 0.0}),
                         text({"type": "snapshot", "t": 0.5, "occupied": []})])
    assert view.touch_of(other) is None
    lift = {"type": "lift", "t": 1.0, "square": "a1"}
    other.lines = other.lines[:1] + [text(lift)]
    assert view.touch_of(other) == lift == first_touch(
        [json.loads(t) for t in other.lines[1:]], waiting=False)
