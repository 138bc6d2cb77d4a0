"""Removal of captured pieces stopped part-way (INT 5.4.13) versus fewer pieces removed with no
removal begun (INT 5.4.11), as the sensors see them."""

import json

from engine.replay import replay_lines

START = {"type": "start", "variant": "international", "fen": "W:W37,50:B5,23,32", "clock": True,
         "transcribed": True}


def replay(*events: dict[str, object]) -> dict[str, object]:
    lines = [json.dumps(START)] + [json.dumps(e) for e in events]
    return replay_lines(lines).to_json()


def test_removal_stopped_part_way_is_int_5_4_13() -> None:
    # 37x19 takes 32 and 23; only 32 comes off before the clock
    r = replay({"t": 1.0, "type": "lift", "square": 37}, {"t": 1.5, "type": "place", "square": 19},
               {"t": 2.0, "type": "lift", "square": 32},
               {"t": 2.5, "type": "button", "name": "clock", "side": "white"})
    codes = [(f["code"], f["kind"], f["side"]) for f in r["flags"]]
    assert ("INT 5.4.13", "irregularity", "white") in codes


def test_nothing_removed_is_int_5_4_11() -> None:
    r = replay({"t": 1.0, "type": "lift", "square": 37}, {"t": 1.5, "type": "place", "square": 19},
               {"t": 2.5, "type": "button", "name": "clock", "side": "white"})
    assert [f["code"] for f in r["flags"]] == ["INT 5.4.11"]
