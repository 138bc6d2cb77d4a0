"""Replication (``pi.hall.replication``, issue 39), on its own: the registry, the commands and
a replica, messages delivered as the MQTT link delivers them, and lists for what is published,
alarmed and told. The lost-line search and the signed lines: ``test_hub_lost_lines.py``,
``test_signing.py``; the read-back: ``test_hub_readback.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from engine.replay import Fed
import pi.hall.replication as replication
from pi.hall import protocol as P
from pi.hall.commands import Commands
from pi.hall.hub_config import HubConfig
from pi.hall.registry import BoardRegistry
from pi.hall.replica import Replica
from pi.hall.replication import Replication
from tests.hall.hub_rig import SAMPLE, trace_lines

BOARD = 7
GAME = "2026-11-22T0900-b07-001"
TOPICS = P.Topics("t")


class Rig:
    def __init__(self, root: Path) -> None:
        self.sent: list[tuple[str, bytes]] = []
        self.alarms: list[tuple[str, str]] = []
        self.told: list[tuple[str, list[Fed]]] = []

        async def no_act(board: int, command: dict[str, Any]) -> web.Response:
            raise AssertionError("no action here")
        self.boards = BoardRegistry(delay_minutes=0.0, act=no_act,
                                    broadcast=lambda view, feed: None)
        self.replica = Replica(root)
        self.commands = Commands(TOPICS, self.boards, self.replica, self.publish, self.alarm)
        config = HubConfig(hall="t", state_dir=root, accept_unsigned=frozenset({BOARD}))
        self.replication = Replication(config, self.replica, TOPICS, self.boards, self.commands,
                                       self.alarm, self.publish,
                                       [lambda board, feds: self.told.append((board, feds))])
        self.lines = trace_lines(SAMPLE, game=GAME, board=BOARD)

    def publish(self, topic: str, payload: bytes) -> None:
        self.sent.append((topic, payload))

    def alarm(self, board: int, kind: str, what: str, subject: str) -> dict[str, Any]:
        self.alarms.append((board, kind))
        return {}

    def journal(self, *numbers: int) -> list[tuple[str, bytes]]:
        return [(TOPICS.board(BOARD, "journal"), P.journal_payload(GAME, n, self.lines[n - 1]))
                for n in numbers]

    def resends(self) -> list[dict[str, Any]]:
        return [json.loads(p)["resend"] for t, p in self.sent
                if t == TOPICS.board(BOARD, "cmd") and b"resend" in p]


def test_a_batch_of_lines_reaches_the_replica_the_view_and_the_listeners_once(
        tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    rig.replication.deliver(rig.journal(1, 2, 3, 4, 5))
    view = rig.boards.views[BOARD]
    assert rig.replica.held(BOARD, GAME) == 5
    assert view.game is not None and view.game.id == GAME and view.game.line == 5
    assert [(board, [f.line for f in feds]) for board, feds in rig.told] == \
        [(BOARD, [1, 2, 3, 4, 5])]  # one call for the board's whole batch
    assert [f.line for f in rig.boards.recent[BOARD]] == [2, 3, 4, 5]
    assert rig.resends() == [] and rig.alarms == [] and rig.replication.missing(BOARD) == 0
    rig.replica.close()


def test_a_gap_is_asked_for_once_the_batch_is_in_and_again_without_progress(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rig = Rig(tmp_path)
    rig.replication.deliver(rig.journal(1, 2, 5, 3))  # 3 comes later in the same batch
    assert rig.replica.held(BOARD, GAME) == 3
    assert rig.resends() == [{"game": GAME, "from": 4}]  # 4 asked, not 3
    assert rig.replication.missing(BOARD) == 2  # lines 4 and 5 known, not held
    rig.replication.tick()
    assert len(rig.resends()) == 1  # asked again only after RESEND_AFTER without progress
    monkeypatch.setattr(replication, "RESEND_AFTER", 0.0)
    rig.replication.tick()
    assert rig.resends() == [{"game": GAME, "from": 4}] * 2
    rig.replication.deliver(rig.journal(4, 5))
    assert rig.replication.missing(BOARD) == 0 and rig.replication.asks == {}
    rig.replica.close()


def test_acks_and_status_go_to_their_concerns_and_bad_messages_are_counted(
        tmp_path: Path) -> None:
    rig = Rig(tmp_path)
    cmd_id = rig.commands.push_pairing(BOARD, {"round": "1", "board": str(BOARD), "white": "A",
                                               "black": "B"})
    status = P.status_payload(BOARD, GAME, 3, [(GAME, 3, False)])
    rig.replication.deliver([
        (TOPICS.board(BOARD, "ack"), P.ack_payload(P.Ack(cmd_id, True))),
        (TOPICS.board(BOARD, "status"), status),
        (TOPICS.board(BOARD, "journal"), b"{not json"),
        (TOPICS.board(BOARD, "state"), b"[]")])
    assert rig.commands.pairing_out == {}  # the ack reached the commands
    assert rig.replication.heads[BOARD].lines == 3 and rig.boards.views[BOARD].online
    assert rig.replication.missing(BOARD) == 3 and rig.resends() == [{"game": GAME, "from": 1}]
    assert rig.replication.bad_messages == 2
    rig.replica.close()
