"""The broadcast policy (issue 10, pi/web/API.md): a move under a pending irregularity is held
from the public feeds until the opponent decides; after a kept irregularity the broadcast PDN
goes on from a [FEN] of the position after it; the optional delay; the simulator's controls."""

from __future__ import annotations

import io
import json
import re
import time
from pathlib import Path

from PIL import Image

from engine.pdn import read_pdn
from pi.board.config import Config
from pi.web.views import HELD_TEXT
from web_rig import SSE, Rig


def _durable(rig: Rig, state: dict[str, object]) -> bool:
    """The arbiter's state (live: a move shows when decided) is that of lines all durable, so
    the public feeds, which get a line once durable (the journal writes behind), have it too."""
    session = rig.controller.session
    return session is not None and state["line"] == session.journal.line_count


def test_irregular_move_held_until_decided_then_broadcast_from_fen(tmp_path: Path) -> None:
    with Rig(tmp_path) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        public = SSE(rig.port)
        assert public.next()[1] == "state"
        rig.move("d3", "d5", "white")  # IT 8.1.2: a man two rows straight ahead
        arbiter = rig.wait(lambda s: s["flags"] and s["flags"][0]["status"] == "pending"
                           and _durable(rig, s))
        assert arbiter["flags"][0]["code"] == "IT 8.1.2" and len(arbiter["moves"]) == 1
        seen = rig.state_now(arbiter=False)
        assert seen["moves"] == [] and seen["fen"] == "W:W21-32:B1-12"
        # ... nor told by the flag or the screen's prompt: the text names the move
        assert arbiter["flags"][0]["text"] != HELD_TEXT and "22" in arbiter["flags"][0]["text"]
        assert seen["flags"][0]["code"] == "IT 8.1.2" and seen["flags"][0]["text"] == HELD_TEXT
        assert seen["message"] == HELD_TEXT
        _, _, flag = public.until("flag")
        assert flag["flag"]["text"] == HELD_TEXT
        assert b"22-14" not in rig.request("GET", "/broadcast.pdn")[2]
        trace = rig.request("GET", "/api/trace.jsonl")[2].decode().splitlines()
        assert len(trace) < arbiter["line"]  # the public trace stops before the held move
        status, _ = rig.json("POST", "/api/sim/button", {"name": "accept", "side": "black"},
                             token=rig.token)
        assert status == 200
        rig.wait(lambda s: s["flags"][0]["status"] == "maintained" and _durable(rig, s))
        seen = rig.state_now(arbiter=False)
        assert [m["notation"] for m in seen["moves"]] == ["22-14"]
        _, _, move = public.until("move")  # the public stream shows it only now, never taken back
        assert move["move"]["notation"] == "22-14" and move["retracted"] is False
        public.close()
        pdn = rig.request("GET", "/broadcast.pdn")[2].decode()
        assert '[SetUp "1"]' in pdn and '[FEN "B:W14,21,23-32:B1-12"]' in pdn
        assert "/FEN" not in pdn
        game = read_pdn(pdn)[0]  # readable: the game goes on from the position after it
        assert game.board.fen() == "B:W14,21,23-32:B1-12"
        full = rig.request("GET", "/game.pdn", token=rig.token)[2].decode()
        # the kept move with its clock, then what it broke (issue 16), then the position
        flat = " ".join(full.split())
        assert re.search(r'22-14 \{\[%clock w[0-9:]+ B0:10:00\]\} \{irregular move: IT 8\.1\.2\} '
                         r'/FEN "B:W14,21,23-32:B1-12"/', flat), flat


def test_corrected_move_is_never_shown_to_the_public(tmp_path: Path) -> None:
    with Rig(tmp_path) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        public = SSE(rig.port)
        public.next()
        rig.move("d3", "d5", "white")
        rig.wait(lambda s: s["flags"] and s["flags"][0]["status"] == "pending")
        rig.json("POST", "/api/sim/button", {"name": "correct", "side": "black"}, token=rig.token)
        s = rig.wait(lambda s: s["flags"][0]["status"] != "pending")
        assert s["moves"] == []
        # the public stream got the flag's events, never a move
        events = []
        while True:
            ev = public.next()
            events.append(ev)
            if ev[1] == "flag" and ev[2]["flag"]["status"] != "pending":
                break
        assert not [e for e in events if e[1] == "move"]
        public.close()


def test_broadcast_delay_holds_the_public_view(tmp_path: Path) -> None:
    with Rig(tmp_path, Config(source="(test)", broadcast_delay=15.0)) as rig:
        assert rig.server.feeds.delay == 900
        rig.wait(lambda s: s["phase"] == "playing")
        rig.move("d3", "e4", "white")
        rig.wait(lambda s: len(s["moves"]) == 1)
        public = rig.state_now(arbiter=False)
        assert public["moves"] == []
        assert rig.request("GET", "/broadcast.pdn")[0] == 404 or \
            b"22-19" not in rig.request("GET", "/broadcast.pdn")[2]
        assert rig.request("GET", "/api/trace.jsonl")[2] == b""


def test_international_broadcast_gametype_as_lidraughts_reads(tmp_path: Path) -> None:
    with Rig(tmp_path, Config(source="(test)", variant="international")) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        pdn = rig.request("GET", "/broadcast.pdn")[2].decode()
        assert '[GameType "20"]' in pdn
        assert '[GameType "20,W,10,10,N2,0"]' in rig.request("GET", "/game.pdn",
                                                               token=rig.token)[2].decode()


def test_simulator_controls(tmp_path: Path) -> None:
    with Rig(tmp_path) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        assert rig.json("POST", "/api/sim/lift", {"square": "d3"})[0] == 401
        assert rig.json("POST", "/api/sim/lift", {"square": "e4"}, token=rig.token)[0] == 409
        for bad in ({"square": "z9"}, {"square": 99}, {"square": True}, {}, {"square": ["d3"]}):
            assert rig.json("POST", "/api/sim/lift", bad, token=rig.token)[0] == 400
        assert rig.json("POST", "/api/sim/button", {"name": "nope", "side": "white"},
                        token=rig.token)[0] == 400
        # issue 17: the virtual board and the OLED show a held move: the arbiter's only
        assert rig.json("GET", "/api/sim/board")[0] == 401
        assert rig.request("GET", "/api/sim/oled.png")[0] == 401
        status, board = rig.json("GET", "/api/sim/board", token=rig.token)
        assert status == 200 and len(board["occupied"]) == 24
        assert board["sensed"] == board["occupied"]  # the sensors report the set-up board
        assert rig.json("POST", "/api/sim/lift", {"square": 22}, token=rig.token)[0] == 200
        rig.wait(lambda s: s["last_line"]["type"] == "lift")
        # the board was told: the sensors report d3 (22) empty
        status, board = rig.json("GET", "/api/sim/board", token=rig.token)
        assert "d3" not in board["sensed"] and len(board["sensed"]) == 23
        device = rig.sim.hardware.display.device
        for _ in range(50):  # the OLED may draw a newer frame between the two reads: read again
            status, headers, png = rig.request("GET", "/api/sim/oled.png", token=rig.token)
            assert status == 200 and headers["content-type"] == "image/png"
            image = Image.open(io.BytesIO(png))
            assert image.size == (128, 64)
            if image.convert("1").tobytes() == device.image.convert("1").tobytes():
                break
            time.sleep(0.02)
        else:
            raise AssertionError("the PNG is never the luma device's image")
        assert json.loads(rig.request("GET", "/api/whoami")[2])["simulate"] is True


def test_without_simulate_no_simulator_routes(tmp_path: Path) -> None:
    with Rig(tmp_path, simulate=False) as rig:
        assert rig.request("POST", "/api/sim/lift", {"square": "d3"}, token=rig.token)[0] in (404, 405)
        assert rig.request("GET", "/simulator")[0] == 404
        assert rig.request("GET", "/api/sim/oled.png")[0] == 404


def test_held_move_freezes_the_public_clock(tmp_path: Path) -> None:
    """Issue 17: while Black's irregular move (IT 8.1.2, a man two rows straight ahead) is held,
    the public's ``/api/state`` and SSE ``clock`` events show the clock as it was when Black got
    the move: Black's move count without the held move, no face running (the live clock has
    passed to White); the arbiter's view keeps the live clock; the decision releases it."""
    with Rig(tmp_path) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        rig.move("d3", "c4", "white")  # 22-18
        after_white = rig.wait(lambda s: len(s["moves"]) == 1 and s["clock"]["running"] == "black"
                               and _durable(rig, s))["clock"]
        public = SSE(rig.port)
        assert public.next()[1] == "state"
        rig.move("e6", "e4", "black")  # IT 8.1.2: 11-19, two rows straight ahead, held
        live = rig.wait(lambda s: any(f["status"] == "pending" for f in s["flags"])
                        and _durable(rig, s))["clock"]
        assert live["running"] == "white" and live["moves"]["black"] == 1
        seen = rig.state_now(arbiter=False)["clock"]
        assert seen["running"] is None
        assert seen["moves"] == {"white": 1, "black": 0}
        assert seen["black"] == after_white["black"] and seen["white"] == after_white["white"]
        _, _, event = public.until("clock")
        assert event["clock"]["running"] is None and event["clock"]["moves"]["black"] == 0
        time.sleep(0.3)
        assert rig.state_now(arbiter=False)["clock"]["white"] == seen["white"]  # frozen
        status, _ = rig.json("POST", "/api/sim/button", {"name": "accept", "side": "white"},
                             token=rig.token)
        assert status == 200
        _, _, event = public.until("clock")
        assert event["clock"]["running"] == "white" and event["clock"]["moves"]["black"] == 1
        assert rig.state_now(arbiter=False)["clock"]["running"] == "white"
        public.close()
