"""The hub against a real Mosquitto with boards publishing as a board does (PROTOCOL.md):
replicas equal to the boards' journals whatever the delivery, views rebuilt after a restart,
resends, commands and acks, bad payloads dropped."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from tests.hall.broker import Broker
from tests.hall.hub_rig import SAMPLE, TRACES, FakeBoard, HubRig, trace_lines, wait

G1 = "2026-11-22T0900-b01-001"
G2 = "2026-11-22T0900-b02-001"
G3 = "2026-11-22T1100-b02-002"
OTHER = "2026-11-22T0900-b01-099"  # the fuzzer's game: never the board's real one


def replica_file(root: Path, board: str, game: str) -> Path:
    return root / "boards" / board / "games" / game / "trace.jsonl"


def journal_bytes(lines: list[str]) -> bytes:
    return "".join(t + "\n" for t in lines).encode()


@pytest.fixture
def broker(tmp_path):
    with Broker(tmp_path) as b:
        yield b


def test_shuffled_duplicated_lost_deliveries_end_equal_to_the_journal(tmp_path, broker):
    state = tmp_path / "hub"
    lines = trace_lines(SAMPLE, game=G1, board="1", white="Bianchi", black="Neri")
    board = FakeBoard(broker.url, "1")
    board.add_game(G1, lines)
    try:
        with HubRig(state, broker.url) as rig:
            rng = random.Random(11)
            order = [n for n in range(1, len(lines) + 1) if rng.random() > 0.3]
            order += rng.sample(order, len(order) // 3)
            rng.shuffle(order)
            board.publish_lines(G1, order)
            board.status()  # the heads: the hub asks for what it lacks
            wait(lambda: rig.held(1, G1) == len(lines), what="the replica caught up")
            wait(lambda: rig.hub.replica.take_dirty() is not None and
                 replica_file(state, "1", G1).read_bytes() == journal_bytes(lines),
                 what="replica on disk")
            assert board.resends, "the gap was asked for"
            status, hall = rig.json("GET", "/api/hall")
            assert status == 200
            (summary,) = hall["boards"]
            assert summary["board"] == "1" and summary["game_id"] == G1
            assert summary["white"] == "Bianchi" and summary["lines"] == len(lines)
            assert summary["missing"] == 0 and summary["result"] == "1-0"
            _, state_obj = rig.json("GET", "/boards/1/api/state", token=rig.token)
            from engine.replay import replay_lines
            report = replay_lines(lines)
            assert [m["notation"] for m in state_obj["moves"]] == \
                [m["notation"] for m in report.moves]
            assert state_obj["fen"] == report.game.board.fen()
    finally:
        board.close()


def _view(rig: HubRig, board: str) -> dict:
    status, obj = rig.json("GET", f"/boards/{board}/api/state", token=rig.token)
    assert status == 200
    obj.pop("clock", None)
    return obj


def test_a_restarted_hub_rebuilds_the_same_view_and_follows_new_games(tmp_path, broker):
    state = tmp_path / "hub"
    a = trace_lines(TRACES / "italian" / "d1_kept_by_accept_8_2.jsonl", game=G2, board="2",
                    rnd="1", white="Rossi", black="Verdi")
    b = trace_lines(SAMPLE, game=G3, board="2", rnd="2", white="Bianchi", black="Neri")
    board = FakeBoard(broker.url, "2")
    board.add_game(G2, a)
    try:
        with HubRig(state, broker.url) as rig:
            board.publish_lines(G2)
            board.status()
            wait(lambda: rig.held(2, G2) == len(a))
            before = _view(rig, "2")
            hall_before = rig.json("GET", "/api/hall", token=rig.token)[1]["boards"]
            flags_before = rig.json("GET", "/api/flags", token=rig.token)[1]
            r1 = rig.request("GET", "/rounds/1/games.pdn")
        with HubRig(state, broker.url) as rig:
            assert _view(rig, "2") == before
            after = rig.json("GET", "/api/hall", token=rig.token)[1]["boards"]
            for s in (hall_before[0], after[0]):
                s.pop("clock"), s.pop("last_heard"), s.pop("online")
            assert after == hall_before
            assert rig.json("GET", "/api/flags", token=rig.token)[1] == flags_before
            assert rig.request("GET", "/rounds/1/games.pdn")[2] == r1[2]
            # the board's next game: the hub follows it; round 1 keeps the first game
            board.add_game(G3, b)
            board.publish_lines(G3)
            board.status()
            wait(lambda: rig.held(2, G3) == len(b))
            wait(lambda: _view(rig, "2")["game_id"] == G3)
            assert rig.request("GET", "/rounds/1/games.pdn")[2] == r1[2]
            _, games = rig.json("GET", "/boards/2/api/games", token=rig.token)
            assert [g["id"] for g in games] == [G3, G2]
            assert games[0]["result"] == "1-0" and games[0]["lines"] == len(b)
            status, _, trace = rig.request("GET", f"/boards/2/api/games/{G2}/trace.jsonl",
                                           token=rig.token)
            assert status == 200 and trace == journal_bytes(a)
    finally:
        board.close()


def test_arbiter_actions_go_to_the_board_and_come_back_with_its_ack(tmp_path, broker):
    state = tmp_path / "hub"
    lines = trace_lines(TRACES / "italian" / "d1_kept_by_accept_8_2.jsonl", game=G2, board="2")
    board = FakeBoard(broker.url, "2")
    board.add_game(G2, lines)
    try:
        with HubRig(state, broker.url) as rig:
            board.publish_lines(G2)
            wait(lambda: rig.held(2, G2) == len(lines))
            body = {"action": "note", "text": "clock checked"}
            assert rig.json("POST", "/boards/2/api/arbiter", body)[0] == 401
            assert rig.json("POST", "/boards/2/api/arbiter", body, token="wrong")[0] == 401
            assert rig.json("POST", "/boards/2/api/arbiter", {"action": "dance"},
                            token=rig.token)[0] == 400
            status, got = rig.json("POST", "/boards/2/api/arbiter", body, token=rig.token)
            assert status == 200, got
            assert got["line"] == len(lines) + 1
            assert got["record"] == {"t": got["record"]["t"], "type": "arbiter", **body}
            assert board.commands[-1].action == {**body, "game": G2}  # the command names its game
            wait(lambda: rig.held(2, G2) == len(lines) + 1)
            board.refuse = "no game in play"
            status, got = rig.json("POST", "/boards/2/api/arbiter", body, token=rig.token)
            assert status == 409 and got["error"] == "no game in play"
            board.refuse, board.answer = None, False
            import pi.hall.commands as hubmod
            rig.call(lambda: setattr(hubmod, "ACK_TIMEOUT", 0.5))
            try:
                status, got = rig.json("POST", "/boards/2/api/arbiter", body, token=rig.token)
            finally:
                rig.call(lambda: setattr(hubmod, "ACK_TIMEOUT", 10.0))
            assert status == 504 and "queued" in got["error"]
            assert rig.json("POST", "/boards/9/api/arbiter", body, token=rig.token)[0] == 404
    finally:
        board.close()


BAD_PAYLOADS = [b"", b"\xff\xfe", b"[]", b"null", b'"x"', b"{", b"{}", b"NaN",
                b'{"game": "x", "line": 1, "text": "a"}',
                b'{"game": "2026-11-22T0900-b01-001", "line": 0, "text": "a"}',
                b'{"game": "2026-11-22T0900-b01-001", "line": true, "text": "a"}',
                b'{"game": "2026-11-22T0900-b01-001", "line": 1, "text": "a\\nb"}',
                b'{"online": "yes", "board": "1"}', b'{"online": true, "board": "2"}',
                b'{"online": true, "board": "1", "games": [[1, 2, 3]]}',
                b'{"online": true, "board": "1", "lines": -1}',
                b'{"id": 5, "ok": true}', b"[" * 100000, b"x" * 70000,
                b'{"sensor_faults": [1, {"squares": 5}], "clock": "no"}']


def test_bad_mqtt_payloads_are_dropped_and_the_hub_goes_on(tmp_path, broker):
    state = tmp_path / "hub"
    lines = trace_lines(SAMPLE, game=G1, board="1")
    board = FakeBoard(broker.url, "1")
    board.add_game(G1, lines)
    rng = random.Random(5)
    try:
        with HubRig(state, broker.url) as rig:
            for leaf in ("journal", "status", "state", "ack"):
                for p in BAD_PAYLOADS:
                    board.raw(leaf, p)
                for _ in range(30):  # random mutations of good messages
                    good = bytearray(json.dumps({"game": OTHER, "line": rng.randint(1, 5),
                                                 "text": lines[0], "online": True,
                                                 "board": "1", "id": "x", "ok": True}).encode())
                    for _ in range(rng.randint(1, 4)):
                        good[rng.randrange(len(good))] = rng.randrange(256)
                    board.raw(leaf, bytes(good))
            board.client.publish("damiera/testhall/boards/../journal", b"{}", qos=1)
            board.client.publish("damiera/testhall/boards/1/x/journal", b"{}", qos=1)
            board.publish_lines(G1)
            board.status()
            wait(lambda: rig.held(1, G1) >= len(lines))
            rig.call(rig.hub.replica.sync)
            assert replica_file(state, "1", G1).read_bytes() == journal_bytes(lines)
            assert rig.call(lambda: rig.hub.bad_messages) >= len(BAD_PAYLOADS)
            assert rig.json("GET", "/api/hall")[0] == 200
            assert rig.json("GET", "/boards/1/api/state")[0] == 200
    finally:
        board.close()


def test_broker_killed_mid_game_and_restarted_the_replica_catches_up(tmp_path, broker):
    state = tmp_path / "hub"
    lines = trace_lines(SAMPLE, game=G1, board="1")
    third = len(lines) // 3
    board = FakeBoard(broker.url, "1")
    board.add_game(G1, lines)
    try:
        with HubRig(state, broker.url) as rig:
            board.publish_lines(G1, range(1, third + 1))
            wait(lambda: rig.held(1, G1) == third)
            broker.kill()  # no save: whatever it held in memory is gone
            board.publish_lines(G1, range(third + 1, 2 * third + 1))  # into paho's queue
            broker.start()
            board.publish_lines(G1, range(2 * third + 1, len(lines) + 1))
            wait(lambda: board.client.is_connected(), 30, "the board's reconnection")
            board.status()  # a board republishes its heads on reconnection
            wait(lambda: rig.held(1, G1) == len(lines), 30, "the catch-up")
            rig.call(rig.hub.replica.sync)
            assert replica_file(state, "1", G1).read_bytes() == journal_bytes(lines)
    finally:
        board.close()


def test_resends_are_repeated_without_progress_and_state_and_will_are_shown(tmp_path, broker,
                                                                          monkeypatch):
    import pi.hall.replication as hubmod
    state = tmp_path / "hub"
    lines = trace_lines(SAMPLE, game=G1, board="1")
    board = FakeBoard(broker.url, "1")
    board.add_game(G1, lines)
    board.serve_resends = False  # a board that does not answer (yet)
    try:
        # resends asked again at the hub's tick (a second): every 0.1 s here
        with HubRig(state, broker.url, tick=0.1) as rig:
            rig.call(lambda: setattr(hubmod, "RESEND_AFTER", 0.3))
            try:
                board.publish_lines(G1, [1, 2, 5])
                wait(lambda: len(board.resends) >= 3, 30, "repeated resends")
                assert {(r.game_id, r.start) for r in board.resends} == {(G1, 3)}
                summary = rig.json("GET", "/api/hall")[1]["boards"][0]
                # line 5 ahead of the gap is not verified yet: it proves only that line 3 is missing
                assert summary["lines"] == 2 and summary["missing"] == 1
                board.serve_resends = True
                # the next repeat is answered: from line 3 to the journal's end
                wait(lambda: rig.held(1, G1) == len(lines), 30, "the resend answered")
            finally:
                rig.call(lambda: setattr(hubmod, "RESEND_AFTER", 5.0))
            board.state({"game_id": G1, "message": "sensor 33 stuck", "sensor_faults": [
                {"address": 33, "kind": "stuck", "message": "no answer", "squares": ["c3"]}]})
            wait(lambda: rig.json("GET", "/api/hall")[1]["boards"][0]["sensor_faults"] == 1)
            _, st = rig.json("GET", "/boards/1/api/state", token=rig.token)
            assert st["sensor_faults"][0]["squares"] == ["c3"]
            assert st["message"] == "sensor 33 stuck"
            board.status()
            wait(lambda: rig.json("GET", "/api/hall")[1]["boards"][0]["online"] is True)
            board.client.publish("damiera/testhall/boards/1/status",
                                 b'{"online": false, "board": "1"}', qos=1, retain=True)
            wait(lambda: rig.json("GET", "/api/hall")[1]["boards"][0]["online"] is False)
            assert rig.json("GET", "/api/hall")[1]["boards"][0]["last_heard"] is not None
    finally:
        board.close()


def test_a_board_offline_for_a_while_is_caught_up_from_its_heads(tmp_path, broker):
    state = tmp_path / "hub"
    lines = trace_lines(SAMPLE, game=G1, board="1")
    half = len(lines) // 2
    board = FakeBoard(broker.url, "1")
    board.add_game(G1, lines[:half])
    try:
        with HubRig(state, broker.url) as rig:
            board.publish_lines(G1)
            board.status()
            wait(lambda: rig.held(1, G1) == half)
            # the network goes: the board's will says so, and it plays on alone
            board.client.publish("damiera/testhall/boards/1/status",
                                 b'{"online": false, "board": "1"}', qos=1,
                                 retain=True).wait_for_publish(5)
            board.close()
            wait(lambda: rig.json("GET", "/api/hall")[1]["boards"][0]["online"] is False)
            back = FakeBoard(broker.url, "1")  # same client id: its session
            back.add_game(G1, lines)  # the journal grew meanwhile, nothing published
            back.status()  # on reconnection: its heads; the hub asks for the rest
            try:
                wait(lambda: rig.held(1, G1) == len(lines), 15, "the catch-up")
                assert back.resends[0].start == half + 1
                summary = rig.json("GET", "/api/hall")[1]["boards"][0]
                assert summary["online"] is True and summary["missing"] == 0
                rig.call(rig.hub.replica.sync)
                assert replica_file(state, "1", G1).read_bytes() == journal_bytes(lines)
            finally:
                back.close()
    finally:
        if board.client.is_connected():
            board.close()
