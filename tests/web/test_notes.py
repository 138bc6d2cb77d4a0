"""Arbiter's notes (COMP 6.16) from the web (issue 17): text the journal cannot hold is refused
at once, control characters never reach the journal or the screen, and a note is the arbiter's
own unless the action marks it public. A simulated board with the daemon's own loop
(``web_rig.Rig``)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from hardware_mocks.display import dummy_oled
from pi.board.arbiter_request import check_arbiter_request
from pi.drivers.display import BoardDisplay, DisplayState
from web_rig import SSE, Rig


def journal(rig: Rig) -> list[dict[str, object]]:
    text = rig.request("GET", "/api/trace.jsonl", token=rig.token)[2].decode()
    return [json.loads(line) for line in text.splitlines()]


def test_lone_surrogate_note_is_400_at_once(tmp_path: Path) -> None:
    """COMP 6.16: a note with a lone surrogate (valid JSON, not valid Unicode: the UTF-8
    journal cannot hold it) is refused with a 400 at once, not a 503 after the action's
    timeout; nothing is journaled."""
    with Rig(tmp_path) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        # the game's set-up snapshot durable too (the phase is shown as soon as it is decided:
        # counted before it, the snapshot's line would pass for the note's)
        deadline = time.monotonic() + 10
        while not any(x["type"] == "snapshot" for x in journal(rig)):
            assert time.monotonic() < deadline, "the set-up snapshot never journaled"
            time.sleep(0.02)
        lines = len(journal(rig))
        t0 = time.monotonic()
        status, _, body = rig.request("POST", "/api/arbiter", token=rig.token,
                                      raw=b'{"action": "note", "text": "bad \\ud800 note"}',
                                      headers={"Content-Type": "application/json"})
        assert status == 400 and time.monotonic() - t0 < 1.0
        assert "surrogate" in json.loads(body)["error"]
        assert len(journal(rig)) == lines


def test_note_control_characters_replaced_before_journaling(tmp_path: Path) -> None:
    """COMP 6.16: a note's newline (and every control character) is a space in the journal;
    the board's screen keeps drawing its frames while the note is shown."""
    with Rig(tmp_path) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        hardware = rig.sim.hardware
        assert hardware is not None and hardware.display is not None
        screen = hardware.display
        status, answer = rig.json("POST", "/api/arbiter",
                                  {"action": "note", "text": "line one\nline\ttwo\u2028three"},
                                  token=rig.token)
        assert status == 200, answer
        assert answer["record"]["text"] == "line one line two three"
        assert journal(rig)[-1]["text"] == "line one line two three"
        before = screen.device.image.tobytes()
        status, _ = rig.json("POST", "/api/sim/lift", {"square": "d3"}, token=rig.token)
        assert status == 200
        for _ in range(100):  # the next frame is drawn (the lifted piece's prompt)
            if screen.device.image.tobytes() != before:
                break
            time.sleep(0.02)
        else:
            raise AssertionError("no OLED frame after the note")


def test_oled_draws_a_text_with_a_newline_on_one_line() -> None:
    """A note journaled by an older daemon may hold a newline: the frame is drawn (PIL refuses
    to measure multiline text), with the newline as a space."""
    device = dummy_oled()
    BoardDisplay(device).render(DisplayState(message="COMP 6.16 one\ntwo"))
    other = dummy_oled()
    BoardDisplay(other).render(DisplayState(message="COMP 6.16 one two"))
    assert device.image.tobytes() == other.image.tobytes()


@pytest.mark.parametrize("body,error", [
    ({"action": "note", "text": "x", "public": "yes"}, "true or false"),
    ({"action": "restore", "public": True}, "only note"),
    ({"action": "note", "text": "\n\t"}, "1 to"),
])
def test_note_fields_checked(body: dict[str, object], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        check_arbiter_request(body)


def test_notes_private_unless_marked_public(tmp_path: Path) -> None:
    """COMP 6.16: the public's state and feed leave a private note out (its text, and the
    screen's line that shows it); a note the arbiter marks ``"public": true`` is shown; the
    arbiter sees both. The mark is journaled (``"public": true``, only when true)."""
    with Rig(tmp_path) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        public = SSE(rig.port)
        assert public.next()[1] == "state"
        for text, shown in (("secret: player warned about noise", False),
                            ("round starts 10 minutes late", True)):
            body: dict[str, object] = {"action": "note", "text": text}
            if shown:
                body["public"] = True
            status, answer = rig.json("POST", "/api/arbiter", body, token=rig.token)
            assert status == 200, answer
        records = journal(rig)[-2:]
        assert "public" not in records[0] and records[1]["public"] is True
        arbiter = rig.state_now()
        assert [f["text"] for f in arbiter["flags"]] == [
            "secret: player warned about noise", "round starts 10 minutes late"]
        seen = rig.state_now(arbiter=False)
        assert [f["text"] for f in seen["flags"]] == ["round starts 10 minutes late"]
        assert "secret" not in json.dumps(seen)
        _, _, flag = public.until("flag")
        assert flag["flag"]["text"] == "round starts 10 minutes late"
        public.close()
        # the screen's line showed the private note: the public is told only its article
        status, _ = rig.json("POST", "/api/arbiter", {"action": "note", "text": "secret two"},
                             token=rig.token)
        assert status == 200
        assert "secret" not in json.dumps(rig.state_now(arbiter=False))
        assert "secret two" in rig.state_now()["message"]
