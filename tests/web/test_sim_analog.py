"""The simulator on an analog Hall board (issue 40): the daemon runs it, the virtual board's
pieces are the game's, a place carries its piece into the journal, and a click crowns or
uncrowns (``/api/sim/crown``, ``/api/sim/uncrown``), which the board reports as a ``piece``
line."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from pi.board.config import Config
from pi.drivers.wiring import example_wiring
from web_rig import Rig


def lines(rig: Rig) -> list[dict[str, Any]]:
    status, _headers, data = rig.request("GET", "/api/trace.jsonl", token=rig.token)
    assert status == 200, data
    return [json.loads(line) for line in data.decode().splitlines()]


def until(rig: Rig, predicate: Any, timeout: float = 30.0) -> list[dict[str, Any]]:
    end = time.monotonic() + timeout
    while True:
        found = lines(rig)
        if predicate(found):
            return found
        if time.monotonic() > end:
            raise AssertionError(f"no such line: {found[-5:]}")
        time.sleep(0.05)


@pytest.mark.parametrize("variant,wiring,src,dst", [
    ("italian", "ads7828_8x8", "d3", "c4"),  # 22-18: the board turned a quarter (its dark squares)
    ("international", "ads7128_10x10", "b4", "c5"),  # 35-30
])
def test_an_analog_board_plays_and_crowns_by_a_click(tmp_path: Path, variant: str, wiring: str,
                                                     src: str, dst: str) -> None:
    config = Config(source="(test)", variant=variant, time_control="600+5", white="Ann",
                    black="Bob")
    with Rig(tmp_path, config, wiring=example_wiring(wiring)) as rig:
        status, board = rig.json("GET", "/api/sim/board", token=rig.token)
        assert status == 200
        kinds = board["kinds"]
        assert len(kinds) == len(board["occupied"]) == board["pieces"]
        assert sorted(set(kinds.values())) == ["bm", "wm"]
        rows = 3 if board["pieces"] == 24 else 4
        assert all(int(sq[1:]) <= rows for sq, k in kinds.items() if k == "wm")
        rig.wait(lambda state: state["phase"] == "playing")
        # a white man moves forward one square: the place carries the piece it saw
        rig.move(src, dst, "white")
        found = until(rig, lambda ls: any(ln.get("type") == "place" for ln in ls))
        (place,) = [ln for ln in found if ln.get("type") == "place"]
        assert place["square"] == dst and place["piece"] == "wm"
        assert 0.6 < place["reading"] < 1.5
        # the arbiter's click crowns the man, then lifts the top man off again
        status, _ = rig.json("POST", "/api/sim/crown", {"square": dst}, token=rig.token)
        assert status == 200
        until(rig, lambda ls: any(ln.get("type") == "piece" and ln.get("piece") == "wk"
                                  for ln in ls))
        status, data = rig.json("POST", "/api/sim/crown", {"square": dst}, token=rig.token)
        assert status == 409 and "king already" in data["error"]
        status, _ = rig.json("POST", "/api/sim/uncrown", {"square": dst}, token=rig.token)
        assert status == 200
        until(rig, lambda ls: [ln.get("piece") for ln in ls if ln.get("type") == "piece"]
              == ["wk", "wm"])
        status, data = rig.json("POST", "/api/sim/uncrown", {"square": src}, token=rig.token)
        assert status == 409 and "empty" in data["error"]
        _status, board = rig.json("GET", "/api/sim/board", token=rig.token)
        assert board["kinds"][dst] == "wm"
