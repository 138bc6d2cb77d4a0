"""A hall's round on a simulated board (issue 16): the round's ``pairing`` (``clock_start``
"arbiter", PROTOCOL.md) makes the board's next game wait for the arbiter's ``start_clock``
(COMP 4.4.2); the hub's ``start_clock`` then runs the face of the player to move, no player's
press needed (COMP 6.9, 6.10)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from tests.hall.broker import Broker
from tests.hall.hall_rig import HallRig, Hub


def test_a_rounds_pairing_holds_the_clock_until_the_arbiter_starts_it(tmp_path: Path) -> None:
    pairing = {"event": "Regionale", "round": "3", "white": "Rossi", "black": "Bianchi",
               "clock_start": "arbiter"}
    with Broker(tmp_path) as broker, Hub(broker.port) as hub, \
            HallRig(tmp_path / "board", broker.port) as rig:
        assert rig.link.subscribed.wait(5)
        first = rig.link.game_id
        hub.send({"id": "p-3", "pairing": pairing})
        hub.wait(lambda h: bool(h.acks("p-3")), what="the pairing's ack")
        assert hub.acks("p-3")[0]["ok"] is True
        # the game begun at power-on is untouched: the pairing supersedes it, and round 3's
        # game begins at once from the same set-up (pi.board.supersede)
        deadline = time.monotonic() + 30
        while rig.link.game_id == first:
            assert time.monotonic() < deadline, "no second game"
            time.sleep(0.02)
        game = rig.link.game_id
        start = json.loads(rig.lines_on_disk()[0])
        assert (start["round"], start["clock_start"]) == ("3", "arbiter")
        time.sleep(0.5)
        clock = rig.state_now()["clock"]
        assert clock["state"] == "ready" and clock["running"] is None  # set up, not started
        hub.send({"id": "s-3", "action": {"action": "start_clock", "game": game}})
        hub.wait(lambda h: bool(h.acks("s-3")), what="the start's ack")
        assert hub.acks("s-3")[0]["ok"] is True
        clock = rig.wait(lambda s: s["clock"]["state"] == "running")["clock"]
        assert clock["running"] == "white"  # Italian: White moves first
