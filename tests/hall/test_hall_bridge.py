"""A hall in two rooms on real parts (issue 39, "Growth on real parts"): the files ``damiera hub
init`` writes for the hall and ``hub init --bridge`` for a room run two real Mosquittos — the
hub's broker and the room's, bridged by Mosquitto's own bridge over TLS with the hall's CA —, a
real ``damiera hub`` on the hub's broker and real boards (``damiera run --simulate``) on the
room's, each with its ``board-<n>.toml`` as written. The room's broker killed (-9) mid-round and
restarted, or the link between the rooms down (the hub's broker killed and restarted), every
replica at the hub ends byte for byte its board's journal (PROTOCOL.md: persistent sessions,
line numbers, resend); and the bridge's user on the hub's broker may do
nothing but carry the room's boards' topics. Both brokers listen on 127.0.0.1 only
(tests/hall/broker.py), on ports below the ephemeral range (written into the files first).
"""

from __future__ import annotations

import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from broker import Broker, free_port
from faults_rig import BoardProc, HubProc, wait_caught_up
from paho.mqtt.enums import CallbackAPIVersion

from pi.hall.hub_config import load_hub_config
from pi.hall.hub_bridge import Room, make_room, write_room
from pi.hall.hub_init import make_hall, write_hall

CATCH_UP = 120.0  # seconds: generous, the two cores are shared with other tests
HALL = "hall"  # faults_rig's boards play in the hall of that name


class TwoRooms:
    """The hall of ``boards`` boards in ``root/hall``; its room ``east`` (boards 1..``room``)
    on a broker of its own bridged to the hub's; the hub on the hub's broker."""

    def __init__(self, root: Path, boards: int, room: int) -> None:
        self.root = root
        hub_port = free_port()
        room_port = free_port()
        while room_port == hub_port:
            room_port = free_port()
        self.dir = root / "hall"
        write_hall(make_hall(boards, self.dir, port=hub_port, hall=HALL, host="127.0.0.1"))
        self.room: Room = make_room(self.dir, f"127.0.0.1:{hub_port}", "east", f"1-{room}",
                                    host="127.0.0.1", port=room_port)
        write_room(self.room)
        self.hub_broker = Broker(root / "hub-broker", conf=self.dir / "mosquitto.conf",
                                 port=hub_port).start()
        self.room_broker = Broker(root / "room-broker", conf=self.room.dir / "mosquitto.conf",
                                  port=room_port)
        self.hub = HubProc(root, "", config=self.dir / "hub.toml")
        self.boards: list[BoardProc] = []

    def start(self, boards: int) -> None:
        """The room's broker (its bridge), the hub, then boards 1..``boards`` in the room."""
        self.room_broker.start()
        self.hub.start()
        deadline = time.monotonic() + 30
        while True:
            assert self.hub.running, self.hub.tail()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.hub.http}/api/hall",
                                            timeout=1) as r:
                    r.read()
                    break
            except OSError:
                assert time.monotonic() < deadline, f"the hub did not answer: {self.hub.tail()}"
                time.sleep(0.1)
        for n in range(1, boards + 1):
            b = BoardProc(self.root, n, self.room_broker.port, seed=n,
                          config=self.room.dir / f"board-{n}.toml")
            b.start()
            self.boards.append(b)

    def wait_lines(self, board: BoardProc, lines: int, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        while board.lines() < lines:
            assert board.running, board.tail()
            assert time.monotonic() < deadline, f"board {board.number}: {board.tail()}"
            time.sleep(0.1)

    def replica_lines(self, board: BoardProc) -> int:
        return sum(len(p.read_bytes().splitlines()) for p in
                   (self.hub.dir / "boards" / str(board.number)).glob("games/*/trace.jsonl"))

    def close(self) -> None:
        for b in self.boards:
            b.close()
        self.hub.stop()
        self.room_broker.stop()
        self.hub_broker.stop()


@pytest.fixture
def rooms(tmp_path: Path) -> Iterator[TwoRooms]:
    r = TwoRooms(tmp_path, boards=4, room=3)
    try:
        yield r
    finally:
        r.close()


# ~25 s (three boards' games, the room's broker killed and restarted, the catch-up)
@pytest.mark.slow
def test_the_rooms_broker_killed_mid_round_and_the_replicas_equal_the_journals(
        rooms: TwoRooms) -> None:
    rooms.start(boards=3)
    for b in rooms.boards:
        rooms.wait_lines(b, 20)
    # the lines crossed the bridge: the hub, on the other broker, holds some of every board's
    deadline = time.monotonic() + 30
    while not all(rooms.replica_lines(b) >= 10 for b in rooms.boards):
        assert time.monotonic() < deadline, f"nothing over the bridge: {rooms.hub.tail()} | " \
            f"{rooms.room_broker.stderr.read_text(errors='replace')[-600:]}"
        time.sleep(0.1)
    assert not any(b.finished() for b in rooms.boards)  # the fault comes mid-round
    rooms.room_broker.kill()
    time.sleep(3.0)  # the boards play on, their journals grow
    rooms.room_broker.start()
    diff = wait_caught_up(rooms.boards, rooms.hub.dir, CATCH_UP)
    assert diff == [], "; ".join(diff) + f" | hub: {rooms.hub.tail()}"


# ~25 s: the link between the rooms down (the hub's broker killed) while the room plays on
@pytest.mark.slow
def test_the_link_down_mid_round_the_room_keeps_its_lines_and_the_replicas_equal_the_journals(
        rooms: TwoRooms) -> None:
    rooms.start(boards=3)
    for b in rooms.boards:
        rooms.wait_lines(b, 20)
    assert not any(b.finished() for b in rooms.boards)
    rooms.hub_broker.kill()  # the hub's broker gone: the bridge's queue holds the room
    before = {b.number: b.lines() for b in rooms.boards}
    time.sleep(4.0)
    assert all(b.lines() > before[b.number] for b in rooms.boards), "the boards stopped"
    rooms.hub_broker.start()
    diff = wait_caught_up(rooms.boards, rooms.hub.dir, CATCH_UP)
    assert diff == [], "; ".join(diff) + f" | hub: {rooms.hub.tail()}"


class _Peer:
    """A paho client logged in as a broker user; records the messages it receives."""

    def __init__(self, port: int, user: str, password: str, ca: Path) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.ready = threading.Event()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=user,
                             protocol=mqtt.MQTTv311)
        self.c.username_pw_set(user, password)
        self.c.tls_set(ca_certs=str(ca))
        self.c.on_connect = lambda *_a: self.ready.set()
        self.c.on_message = lambda _c, _u, m: self.got.append((m.topic, m.payload))
        self.c.connect("127.0.0.1", port, keepalive=10)
        self.c.loop_start()
        assert self.ready.wait(10), f"{user} did not log in"

    def subscribe(self, *topics: str) -> None:
        done = threading.Event()
        self.c.on_subscribe = lambda *_a: done.set()
        self.c.subscribe([(t, 1) for t in topics])
        assert done.wait(10)

    def publish(self, topic: str, payload: bytes) -> None:
        self.c.publish(topic, payload, qos=1).wait_for_publish(10)

    def wait_for(self, message: tuple[str, bytes]) -> None:
        deadline = time.monotonic() + 10
        while message not in self.got:
            assert time.monotonic() < deadline, f"{message} never came: {self.got}"
            time.sleep(0.02)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def test_the_bridges_user_carries_the_rooms_board_topics_and_nothing_else(
        rooms: TwoRooms) -> None:
    """On the hub's broker, as ``bridge-east`` (the room: boards 1-3 of 4): what it publishes
    for its boards reaches the hub; for board 4 (not the room's), as a command, or anywhere
    else, nothing; it reads its boards' ``cmd``, not board 4's. (The room's broker is not
    started: its bridge would take the user's session.)"""
    spec = load_hub_config(rooms.dir / "hub.toml").mqtt
    assert spec is not None and spec.password is not None and spec.ca is not None
    root = f"damiera/{HALL}/boards"
    hub = _Peer(rooms.hub_broker.port, "hub", spec.password, spec.ca)
    bridge = _Peer(rooms.hub_broker.port, rooms.room.user, rooms.room.password, spec.ca)
    try:
        hub.subscribe(f"damiera/{HALL}/#", "#")
        bridge.subscribe(f"{root}/2/cmd", f"{root}/4/cmd", f"damiera/{HALL}/#", "#")
        forbidden = [f"{root}/4/{leaf}" for leaf in ("state", "status", "journal", "ack", "cmd")]
        forbidden += [f"{root}/1/cmd", f"{root}/1/other", f"damiera/{HALL}/x", "elsewhere"]
        for topic in forbidden:
            bridge.publish(topic, b"forged")
        bridge.publish(f"{root}/2/journal", b"after")  # same connection, after the forgeries
        hub.wait_for((f"{root}/2/journal", b"after"))
        assert [m for m in hub.got if m[1] == b"forged"] == []
        hub.publish(f"{root}/4/cmd", b"for 4")
        hub.publish(f"{root}/2/cmd", b"for 2")
        bridge.wait_for((f"{root}/2/cmd", b"for 2"))
        assert {t for t, _ in bridge.got} == {f"{root}/2/cmd"}
    finally:
        hub.close()
        bridge.close()
