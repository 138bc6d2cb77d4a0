"""Pairings reach boards that were not connected when they were uploaded (the usual case: the
arbiter uploads the round before the boards are switched on). A board that never connected has
no session at the broker to queue the command in, so the hub keeps each board's pairing until
the board acks it and sends it again when the board's status says online; after a restart it
sends each board its pairing of the round started last again (the board does a repeated pairing
once). A CSV of several rounds is kept whole and a round's pairings go out when it starts."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import paho.mqtt.client as mqtt

from pi.board.config import parse_mqtt_url
from pi.hall import protocol as P
from tests.hall.broker import Broker
from tests.hall.hub_rig import HALL, FakeBoard, HubRig, wait

CSV = "round,board,white,black\n1,8,Anna,Marco\n2,8,Bruno,Carla\n"


def _pairings(board: FakeBoard) -> list[dict[str, str]]:
    return [c.pairing for c in board.commands if c.pairing]


@contextmanager
def _listening(url: str, topic: str) -> Iterator[threading.Event]:
    """Set once a message on ``topic`` has reached the broker (another client, subscribed)."""
    heard = threading.Event()
    spec = parse_mqtt_url(url, ValueError)
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="pairings-listener")
    subscribed = threading.Event()
    c.on_connect = lambda cl, *a: cl.subscribe(topic, qos=1)
    c.on_subscribe = lambda *a: subscribed.set()
    c.on_message = lambda *a: heard.set()
    c.connect(spec.host, spec.port)
    c.loop_start()
    try:
        assert subscribed.wait(10)
        yield heard
    finally:
        c.disconnect()
        c.loop_stop()


def test_a_pairing_waits_for_a_board_that_was_never_connected(tmp_path: Path) -> None:
    with Broker(tmp_path) as broker:
        with HubRig(tmp_path / "hub", broker.url) as rig:
            status, got = rig.json("POST", "/api/pairings", raw=CSV.encode(), token=rig.token,
                                   headers={"Content-Type": "text/csv"})
            assert status == 200 and got == {"kept": 2, "rounds": ["1", "2"], "pushed": 0}
            with _listening(broker.url, P.Topics(HALL).board(8, "cmd")) as heard:
                assert rig.json("POST", "/api/rounds/1/start", token=rig.token)[0] == 200
                # the hub's pairing at the broker before the board is on (else it is simply
                # delivered: a busy machine let the board subscribe first)
                assert heard.wait(10)
            board = FakeBoard(broker.url, "8")  # switched on after the round's start
            try:
                # subscribed: what the broker kept for it came first
                rig.sent_all_to(board)
                assert _pairings(board) == []  # nothing was queued for it at the broker
                board.status()  # signed with the board's key, as a board's status is
                wait(lambda: _pairings(board), what="the pairing sent again")
                # round 1's, not the CSV's last row (round 2: it has not started)
                assert _pairings(board)[-1]["white"] == "Anna"
                wait(lambda: rig.call(lambda: 8 not in rig.hub.pairing_out),
                     what="the ack")
                n = len(_pairings(board))
                # acked: going offline and online again sends nothing more
                heads = rig.call(lambda: rig.hub.heads.get(8))
                board.client.publish(board.topics.board(8, "status"),
                                     b'{"online": false, "board": "8"}', qos=1,
                                     retain=True).wait_for_publish(5)
                board.status()
                # the hub has taken the status (its heads replaced, online) and sent what it
                # sends on it (pi.hall.commands.repush_pairing: at once)
                wait(lambda: rig.call(lambda: (h := rig.hub.heads.get(8)) is not heads
                                      and h is not None and h.online), what="the status")
                rig.sent_all_to(board)
                assert len(_pairings(board)) == n
                # round 2 starts: its pairing goes out
                assert rig.json("POST", "/api/rounds/2/start", token=rig.token)[0] == 200
                wait(lambda: _pairings(board)[-1]["white"] == "Bruno", what="round 2's")
                wait(lambda: rig.call(lambda: 8 not in rig.hub.pairing_out), what="acked")
            finally:
                board.close()
        # a hub restart: the started round's pairing goes to the board again when it is seen
        board = FakeBoard(broker.url, "8")
        try:
            before = len(_pairings(board))
            with HubRig(tmp_path / "hub", broker.url):
                # the board's retained status says online: the hub sends it on subscribing
                wait(lambda: len(_pairings(board)) > before, what="the pairing after a restart")
                assert _pairings(board)[-1]["round"] == "2"
        finally:
            board.close()
