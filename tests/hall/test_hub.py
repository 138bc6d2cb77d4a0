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
            wait(lambda: rig.held("1", G1) == len(lines), what="the replica caught up")
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
