"""Issue 38, item 1, at the hub: a board's journal whose start line names the players with
U+2028 LINE SEPARATOR and U+0085 NEXT LINE (JSON leaves them raw; ``str.splitlines()`` splits
at them), an irregular move pending (IT 8.1.2: held from the public until the arbiter decides).
Before and after a hub restart (its replica read back from disk) the public state, the board's
public PDN and the hall's summary hold the move back, and the arbiter's replay reads every line
(a journal line ends at ``"\\n"`` alone, docs/trace-format.md). And such a name is refused where it
enters the hall, the pairings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi.hall.errors import PairingError
from pi.hall.rounds import parse_pairings
from tests.hall.broker import Broker
from tests.hall.hub_rig import TRACES, FakeBoard, HubRig, trace_lines, wait

GAME = "2026-11-22T0900-b05-001"
PENDING = TRACES / "italian" / "d1_pending_stands_in_transcript.jsonl"
NAMES = {"white": "Ann\u2028Lee", "black": "Bob\x85Ray"}


def _held_back(rig: HubRig, lines: int) -> None:
    _, live = rig.json("GET", "/boards/5/api/state", token=rig.token)
    _, public = rig.json("GET", "/boards/5/api/state")
    assert len(public["moves"]) == len(live["moves"]) - 1
    held = live["moves"][-1]["notation"]
    pdn = rig.request("GET", "/boards/5/broadcast.pdn")[2].decode()
    assert held not in pdn.split("]")[-1]
    assert held not in rig.request("GET", "/boards/5/game.pdn")[2].decode().split("]")[-1]
    five = [b for b in rig.json("GET", "/api/hall")[1]["boards"] if b["board"] == "5"][0]
    assert five["moves"] == len(public["moves"])
    status, replay = rig.json("GET", "/boards/5/api/replay", token=rig.token)
    assert status == 200 and len(replay["states"]) == lines
    assert {k: replay["states"][0]["record"][k] for k in NAMES} == NAMES


def test_names_with_line_separators_keep_the_hold_through_a_hub_restart(tmp_path: Path) -> None:
    lines = trace_lines(PENDING, game=GAME, board="5", time_control="3600", **NAMES)[:7]
    lines[0] = json.dumps(json.loads(lines[0]), ensure_ascii=False)  # raw, as a board writes
    with Broker(tmp_path) as broker:
        board = FakeBoard(broker.url, "5")
        try:
            board.add_game(GAME, lines)
            with HubRig(tmp_path / "hub", broker.url) as rig:
                board.publish_lines(GAME)
                wait(lambda: rig.held(5, GAME) == len(lines))
                _held_back(rig, len(lines))
            replica = tmp_path / "hub" / "boards" / "5" / "games" / GAME / "trace.jsonl"
            assert "\u2028" in replica.read_text(encoding="utf-8")  # held raw, as the board's
            with HubRig(tmp_path / "hub", broker.url) as rig:  # read back from the replica
                assert rig.held(5, GAME) == len(lines)
                _held_back(rig, len(lines))
        finally:
            board.close()


@pytest.mark.parametrize("name", ["Ann\u2028Lee", "Bob\x85Ray", "C\u2029y", "Di\tEa"])
def test_a_pairing_naming_a_player_with_a_separator_is_refused_in_one_line(name: str) -> None:
    """Names are checked where they enter the hall (the CSV the arbiter uploads, the file the
    hub reads at start): a separator would be journaled raw by the board."""
    with pytest.raises(PairingError) as info:
        parse_pairings(f"round,board,white,black\n1,5,Anna,Marco\n1,6,{name},Carla\n")
    message = str(info.value)
    assert message.startswith("line 3: white:") and "separator" in message
    assert len(message.splitlines()) == 1
