"""The broadcast delay of the event (HUB_API.md, hub.toml ``broadcast_delay``): the public
feeds of the hub show a line only once it is that old, the arbiter sees everything live, and a
restarted hub does not show early what the delay still holds (lines dated by the game's own
clock from its start time)."""

from __future__ import annotations

import time

from tests.hall.broker import Broker
from tests.hall.hub_rig import SAMPLE, FakeBoard, HubRig, trace_lines, wait

G = "2026-11-22T0900-b09-001"
DELAY = 0.05  # minutes: 3 s


def _public_moves(rig: HubRig) -> int:
    _, state = rig.json("GET", "/boards/9/api/state")
    return len(state["moves"])


def test_public_feeds_lag_by_the_delay_and_a_restart_keeps_it(tmp_path):
    lines = trace_lines(SAMPLE, game=G, board="9")
    # the game began just now by its own clock: every line is younger than the delay
    import json
    start = json.loads(lines[0])
    last_t = json.loads(lines[-1])["t"]
    start["started_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ",
                                        time.gmtime(time.time() - last_t))
    lines[0] = json.dumps(start)
    with Broker(tmp_path) as broker:
        board = FakeBoard(broker.url, "9")
        board.add_game(G, lines)
        try:
            with HubRig(tmp_path / "hub", broker.url, delay=DELAY) as rig:
                t0 = time.monotonic()
                board.publish_lines(G)
                wait(lambda: rig.held(9, G) == len(lines))
                _, live = rig.json("GET", "/boards/9/api/state", token=rig.token)
                total = len(live["moves"])
                assert total > 10
                if time.monotonic() - t0 < DELAY * 60 - 1:
                    assert _public_moves(rig) == 0
                    hall = rig.json("GET", "/api/hall")[1]["boards"][0]
                    assert hall["moves"] == 0 and hall["result"] == "*"
                    feed = rig.request("GET", "/rounds/1/games.pdn")[2].decode()
                    assert "1-0" not in feed.split("]")[-1]
                wait(lambda: _public_moves(rig) == total, 15, "the delayed release")
                assert time.monotonic() - t0 >= DELAY * 60 - 0.5
            # restarted with a 30 s delay: the lines are a few seconds old by the game's clock,
            # so none is public yet (a restart must not show early what the delay holds)
            with HubRig(tmp_path / "hub", broker.url, delay=0.5) as rig:
                assert _public_moves(rig) == 0
                assert rig.json("GET", "/api/hall")[1]["boards"][0]["moves"] == 0
                _, live = rig.json("GET", "/boards/9/api/state", token=rig.token)
                assert len(live["moves"]) == total  # the arbiter: everything at once
        finally:
            board.close()
