"""A result corrected after the game through the hall (issue 37, COMP 6.16): a real broker
(``tests/hall/broker.py``), the simulated board with its link, a paho client in the hub's
place. The game just over takes the hub's ``correct_result`` as a journal line published at
once; once the next game plays, an earlier game's note comes by the board's status heads (the
game's lines counted again) and the resend the hub asks for."""

from __future__ import annotations

import json
import time
from pathlib import Path

from broker import Broker
from hall_rig import HallRig, Hub


def _heads_of(hub: Hub, game: str) -> list[int]:
    return [g[1] for s in hub.of("status") for g in s.get("games", []) if g[0] == game]


def test_a_result_corrected_and_a_note_on_an_earlier_game_reach_the_hub(tmp_path: Path) -> None:
    root = tmp_path / "board"
    with Broker(tmp_path) as broker, Hub(broker.port) as hub, \
            HallRig(root, broker.port) as rig:
        assert rig.link.subscribed.wait(5)
        rig.sim_action({"action": "adjudicate", "result": "1-0"})
        first = rig.link.game_id
        assert first is not None
        hub.send({"id": "r-1", "action": {"action": "correct_result", "result": "0-1",
                                          "text": "the adjudication was for board 8",
                                          "game": first}})
        hub.wait(lambda h: bool(h.acks("r-1")), what="the correction's ack")
        ack = hub.acks("r-1")[0]
        assert ack["ok"] is True, ack
        line = json.loads(rig.lines_on_disk(first)[ack["line"] - 1])
        assert (line["action"], line["result"]) == ("correct_result", "0-1")
        hub.wait(lambda h: h.journal(first).get(ack["line"]) == rig.lines_on_disk(first)[
            ack["line"] - 1], what="the correction's journal line")

        # the next game begins; the first one is an earlier game now
        rig.json("POST", "/api/sim/lift", {"square": "b1"}, token=rig.token)
        time.sleep(0.2)
        rig.json("POST", "/api/sim/place", {"square": "b1"}, token=rig.token)
        deadline = time.monotonic() + 30
        while rig.link.game_id == first:
            assert time.monotonic() < deadline, "no second game"
            time.sleep(0.02)
        hub.send({"id": "r-2", "action": {"action": "note", "text": "the players were told",
                                          "game": first}})
        hub.wait(lambda h: bool(h.acks("r-2")), what="the note's ack")
        note = hub.acks("r-2")[0]
        assert note["ok"] is True, note
        on_disk = rig.lines_on_disk(first)
        assert len(on_disk) == note["line"] and "the players were told" in on_disk[-1]
        # the board's heads count the first game's new line: the hub asks for it
        hub.wait(lambda h: note["line"] in _heads_of(h, first), what="the heads with the line")
        hub.send({"resend": {"game": first, "from": note["line"]}})
        hub.wait(lambda h: h.journal(first).get(note["line"]) == on_disk[-1],
                 what="the earlier game's note")
        assert json.loads((root / "games" / first / "finished").read_text()) == {"result": "0-1"}
