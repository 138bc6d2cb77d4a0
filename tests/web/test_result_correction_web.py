"""After the result, from the web (issue 37, COMP 6.16): ``POST /api/arbiter`` takes a note and
a result corrected with its reason (409 for a result not of the variant, 400 without a
reason); the feeds (the arbiter's and the public's) carry the corrected result, and the game's
PDN, report and the games list give it. A simulated board with the daemon's own loop
(``web_rig.Rig``)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from web_rig import SSE, Rig

REASON = "Black's flag had not fallen: the clock was faulty (COMP 4.7)"


def test_a_note_and_a_correction_after_the_result_from_the_web(tmp_path: Path) -> None:
    with Rig(tmp_path) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        public = SSE(rig.port)
        arbiter = SSE(rig.port, headers={"Authorization": f"Bearer {rig.token}"})
        status, answer = rig.json("POST", "/api/arbiter",
                                  {"action": "adjudicate", "result": "1-0"}, token=rig.token)
        assert status == 200, answer
        state = rig.wait(lambda s: s["phase"] == "over")
        game = state["game"]["id"] if isinstance(state.get("game"), dict) else None
        public.until("result", lambda d: d["result"] == "1-0")
        arbiter.until("result", lambda d: d["result"] == "1-0")

        status, answer = rig.json("POST", "/api/arbiter",
                                  {"action": "note", "text": "Black disputes it"},
                                  token=rig.token)
        assert status == 200 and answer["record"]["action"] == "note", answer
        status, answer = rig.json("POST", "/api/arbiter",
                                  {"action": "correct_result", "result": "0-2", "text": "x"},
                                  token=rig.token)
        assert status == 409 and "not a result of italian" in answer["error"], answer
        status, answer = rig.json("POST", "/api/arbiter",
                                  {"action": "correct_result", "result": "0-1"},
                                  token=rig.token)
        assert status == 400 and "the reason" in answer["error"], answer
        status, answer = rig.json("POST", "/api/arbiter",
                                  {"action": "correct_result", "result": "0-1",
                                   "text": REASON}, token=rig.token)
        assert status == 200, answer
        assert answer["record"] == {"t": answer["record"]["t"], "type": "arbiter",
                                    "action": "correct_result", "result": "0-1",
                                    "text": REASON}
        assert [d["type"] for d in answer["decisions"]] == ["FlagRaised", "GameEnded"]

        _, _, data = arbiter.until("result", lambda d: d["result"] == "0-1")
        assert data["article"] == "COMP 6.16"
        public.until("result", lambda d: d["result"] == "0-1")
        rig.wait(lambda s: s["result"] == "0-1")
        deadline = time.monotonic() + 10
        while True:  # the files, then the marker (the list's result), are written behind
            games = rig.json("GET", "/api/games", token=rig.token)[1]
            pdn = rig.request("GET", "/game.pdn", token=rig.token)[2].decode()
            if games[0]["result"] == "0-1" and '[Result "0-1"]' in pdn:
                break
            assert time.monotonic() < deadline, (games[0], pdn[-300:])
            time.sleep(0.05)
        assert game is None or games[0]["id"] == game
        # the marker says 0-1 only once the files on disk hold the correction
        written = rig.request("GET", f"/api/games/{games[0]['id']}/game.pdn",
                              token=rig.token)[2].decode()
        assert '[Result "0-1"]' in written, written[-300:]
        report = json.loads(rig.request("GET", f"/api/games/{games[0]['id']}/report.json",
                                        token=rig.token)[2])
        assert [(r["result"], r["code"]) for r in report["result_history"]] == [
            ("1-0", "COMP"), ("0-1", "COMP 6.16")]
        assert report["result_history"][1]["reason"] == REASON
