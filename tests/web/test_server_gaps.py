"""Issue 10's smaller contracts: SSE ids across games, the broadcast's GameType as lidraughts
reads it, the clock object's move counts and mosse-lampo state (pi/web/API.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from engine.clock import GameClock
from engine.colour import WHITE
from engine.timecontrol import TimeControl
from pi.board.config import Config
from pi.web.views import LIDRAUGHTS_GAMETYPE_RE, clock_at
from web_rig import SSE, Rig


def _bearer(rig: Rig) -> dict[str, str]:
    return {"Authorization": f"Bearer {rig.token}"}


def _first_events(sse: SSE) -> list[tuple[str | None, str, Any]]:
    """The events up to and with the first ``state``."""
    out = []
    while True:
        ev = sse.next()
        out.append(ev)
        if ev[1] == "state":
            return out


@pytest.mark.parametrize("arbiter", [True, False])
def test_an_event_id_of_a_previous_game_gets_the_whole_state(tmp_path: Path,
                                                             arbiter: bool) -> None:
    """Ids are journal lines and restart with each game: ``?game=`` (the game_id the page last
    saw) tells an id of an ended game from one of this game; the former gets the whole state,
    nothing of the new game left out; the latter resumes as ever."""
    with Rig(tmp_path) as rig:
        headers = _bearer(rig) if arbiter else {}
        first = rig.wait(lambda s: s["phase"] == "playing")
        game1 = first["game_id"]
        rig.move("d3", "e4", "white")
        rig.wait(lambda s: len(s["moves"]) == 1)
        old_id = 3  # a line of game 1 a page saw before it went away
        status, _ = rig.json("POST", "/api/arbiter", {"action": "adjudicate", "result": "1-0"},
                             token=rig.token)
        assert status == 200
        rig.wait(lambda s: s["phase"] == "over")
        rig.step("-e4", "+d3")  # the pieces set up again: game 2 begins
        second = rig.wait(lambda s: s["phase"] == "playing" and s["game_id"] != game1)
        game2 = second["game_id"]
        rig.move("d3", "e4", "white")
        # the arbiter's /api/state, built from durable lines as the streams are
        # (tests/web/test_state_durable.py)
        now = rig.wait(lambda s: len(s["moves"]) == 1 and s["line"] > old_id)

        stale = SSE(rig.port, {**headers, "Last-Event-ID": str(old_id)},
                    path=f"/events?game={game1}")
        got = _first_events(stale)
        stale.close()
        assert [name for _, name, _ in got] == ["state"]  # nothing of game 2 skipped
        ident, _, state = got[0]
        assert state["game_id"] == game2 and int(ident or 0) == state["line"] >= now["line"]
        assert [m["notation"] for m in state["moves"]] == [m["notation"] for m in now["moves"]]

        same = SSE(rig.port, {**headers, "Last-Event-ID": str(old_id)},
                   path=f"/events?game={game2}")
        got = _first_events(same)
        same.close()
        moves = [data for _, name, data in got if name == "move"]
        assert len(moves) == 1 and moves[0]["line"] > old_id  # game 2's move after line 3
        assert all(int(i or 0) > old_id for i, name, _ in got if name != "state")


@pytest.mark.parametrize("variant, number", [("international", 20), ("brazilian", 26)])
def test_broadcast_gametype_is_what_lidraughts_reads(tmp_path: Path, variant: str,
                                                     number: int) -> None:
    """lidraughts matches the whole GameType against its GameTypeRegex and looks up the first
    number (Standard 20, Brazilian 26): see pi/web/views.py."""
    with Rig(tmp_path, Config(source="(test)", variant=variant)) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        pdn = rig.request("GET", "/broadcast.pdn")[2].decode()
        tag = re.search(r'\[GameType "([^"]*)"\]', pdn)
        assert tag is not None
        match = re.fullmatch(LIDRAUGHTS_GAMETYPE_RE, tag.group(1))
        assert match is not None and int(match.group(1)) == number


def test_the_clock_object_counts_each_sides_moves(tmp_path: Path) -> None:
    """COMP 4.3: moves completed per side (the time control's periods count them)."""
    with Rig(tmp_path) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        rig.move("d3", "e4", "white")
        rig.move("c6", "d5", "black")
        s = rig.wait(lambda s: len(s["moves"]) == 2)
        clock = s["clock"]
        assert clock["moves"] == {"white": 1, "black": 1}
        assert clock["lampo"] == {"white": False, "black": False}
        assert set(clock["moves_to_control"]) == {"white", "black"}
        public = rig.state_now(arbiter=False)["clock"]
        assert public["moves"] == {"white": 1, "black": 1}


def test_the_clock_object_says_which_face_is_in_mosse_lampo() -> None:
    """COMP 3.11.3, 5.6: 60 s then 30 s a move; past 60 s White's face times the move."""
    clock = GameClock(TimeControl.parse("60:1/30"))
    clock.start(WHITE, 0.0)
    clock.poll(61.0)
    out = clock_at(clock, 61.0, 61.0)
    assert out is not None
    assert out["lampo"] == {"white": True, "black": False}
    assert out["white"] == 29.0 and out["black"] == 60.0
    assert out["moves"] == {"white": 0, "black": 0}


class _Move:
    def __init__(self, ply: int, notation: str) -> None:
        self.ply, self.notation, self.made = ply, notation, 0

    def to_dict(self) -> dict[str, Any]:
        self.made += 1
        return {"ply": self.ply, "notation": self.notation}


def test_each_moves_dict_and_json_is_made_once_and_remade_after_a_retraction() -> None:
    """Per-line work does not grow with the game: a state's moves come from the cache."""
    import json

    from pi.web.feeds import encode_state
    from pi.web.views import JsonOnce, RecordDicts
    cache, texts = RecordDicts(), JsonOnce()
    moves = [_Move(1, "22-18"), _Move(2, "11-15")]
    state = {"line": 7, "moves": cache.of(moves), "fen": "x"}
    first = encode_state(7, state, texts)
    again = encode_state(8, {**state, "line": 8, "moves": cache.of(moves)}, texts)
    assert [m.made for m in moves] == [1, 1]
    for raw, line in ((first, 7), (again, 8)):
        text = raw.decode()
        assert text.startswith(f"id: {line}\nevent: state\ndata: ") and text.endswith("\n\n")
        data = json.loads(text.split("data: ", 1)[1])
        assert data == {"line": line, "fen": "x", "moves": [
            {"ply": 1, "notation": "22-18"}, {"ply": 2, "notation": "11-15"}]}
    moves[1] = _Move(2, "12-16")  # the last move taken back and another made (IT 8.1.3)
    data = json.loads(encode_state(9, {"moves": cache.of(moves)}, texts).decode()
                      .split("data: ", 1)[1])
    assert [m["notation"] for m in data["moves"]] == ["22-18", "12-16"]
    assert moves[0].made == 1 and moves[1].made == 1


def test_a_states_moves_and_flags_are_encoded_once_each() -> None:
    """A state lists every move and flag of the game on every line (COMP 4.4.5: a clock pressed
    without a move is a flag each time): their JSON is made once per dict, a new or changed
    flag (a new dict) encoded anew, and the message says what a whole encoding says."""
    import json
    from unittest.mock import patch

    from pi.web.feeds import encode_state
    from pi.web.views import JsonOnce
    encoded: list[object] = []

    class Counting(json.JSONEncoder):
        def encode(self, o: object) -> str:
            encoded.append(o)
            return super().encode(o)
    moves = [{"ply": i, "notation": f"{i}-{i + 4}"} for i in range(1, 41)]
    flags = [{"id": i, "code": "COMP 4.4.5", "status": "noted", "text": "clock pressed"}
             for i in range(150)]
    texts = JsonOnce()
    with patch("pi.web.views.COMPACT", Counting(separators=(",", ":"))):
        encode_state(7, {"line": 7, "moves": moves, "flags": flags, "fen": "x"}, texts)
        assert len(encoded) == 190
        encoded.clear()
        decided = {**flags[3], "status": "accepted"}  # a new status: a new dict
        state = {"line": 8, "moves": moves, "flags": [*flags[:3], decided, *flags[4:]],
                 "fen": "x", "message": 'a "quoted" line'}
        raw = encode_state(8, state, texts)
    assert encoded == [decided]
    assert raw.startswith(b"id: 8\nevent: state\ndata: ") and raw.endswith(b"\n\n")
    assert json.loads(raw.split(b"data: ", 1)[1]) == state
    assert json.loads(encode_state(None, {"flags": []}, texts).split(b"data: ", 1)[1]) == {
        "flags": []}
    # a long game with few flags: the moves' texts are kept while the flags' list is short
    texts, encoded[:] = JsonOnce(), []
    long_game = [{"ply": i, "notation": f"{i}-{i + 4}"} for i in range(1, 1001)]
    with patch("pi.web.views.COMPACT", Counting(separators=(",", ":"))):
        for line in (9, 10, 11):
            encode_state(line, {"line": line, "moves": long_game, "flags": flags[:2]}, texts)
    assert len(encoded) == 1002


def test_each_flags_dict_is_made_once_and_again_when_its_status_changes() -> None:
    """Per-line work does not grow with the game's flags either: a state's flags (every flag of
    the game, on every line) are made once per flag value. A flag's new status is a new value
    (``FlagDecided``: IT 8.2, the opponent lets an irregular move stand), made anew; the dicts
    handed out are equal to a fresh ``flag_view`` of the flag's JSON."""
    import json
    from dataclasses import replace
    from unittest.mock import patch

    from engine.colour import BLACK
    from engine.decisions import Flag
    from pi.web.views import flag_dict, flag_view
    flags = [Flag(i, float(i), "IT 8.1.3", BLACK, "irregularity", "pending", f"touched {i}")
             for i in range(50)]
    made: list[int] = []
    real = Flag.to_json

    def counted(self: Flag) -> dict[str, Any]:
        made.append(self.id)
        return real(self)
    with patch.object(Flag, "to_json", counted):
        first = [flag_dict(f, 3) for f in flags]
        again = [flag_dict(f, 3) for f in flags]  # the next line's state
        decided = Flag(7, 7.0, "IT 8.1.3", BLACK, "irregularity", "maintained", "touched 7")
        after = flag_dict(decided, 3)
    assert again == first and made == list(range(50)) + [7]
    assert first == [flag_view(real(f), 3) for f in flags]
    assert after == flag_view(real(decided), 3) and after["status"] == "maintained"
    # equal values whose JSON differs are not taken for one another
    whole = Flag(60, 3, "IT 8.1.3", BLACK, "irregularity", "pending", "touched")
    assert json.dumps(flag_dict(whole)) != json.dumps(flag_dict(replace(whole, t=3.0)))


def test_a_states_flags_are_looked_up_once_per_flag_and_line() -> None:
    """The flags of one state after another come from the board's :class:`RecordDicts` by
    identity (no hashing of every flag of the game, every line): the same dicts while the
    flags stay, a flag decided since (IT 8.2: a new value) or given its line made anew."""
    from engine.colour import WHITE
    from engine.decisions import Flag
    from pi.web.views import RecordDicts, flag_dict
    cache = RecordDicts()
    flags = [Flag(i, float(i), "COMP 4.4.5", WHITE, "notice", "noted", "clock pressed")
             for i in range(20)]
    lines = {i: 2 * i + 3 for i in range(19)}  # the last one's line not known (after resume)
    first = cache.flags(flags, lines)
    assert first == [flag_dict(f, lines.get(f.id)) for f in flags]
    again = cache.flags(list(flags), lines)
    assert all(a is b for a, b in zip(again, first, strict=True))
    flags[5] = Flag(5, 5.0, "IT 8.1.3", WHITE, "irregularity", "maintained", "touched 5")
    lines[19] = 41
    after = cache.flags(flags, lines)
    assert after == [flag_dict(f, lines.get(f.id)) for f in flags]
    assert after[5]["status"] == "maintained" and after[19]["line"] == 41
    assert all(a is b for a, b in zip(after[:5], first[:5], strict=True))


class _Transport:
    def __init__(self) -> None:
        self.out: list[bytes] = []
        self.unsent = 0
        self.closing = False

    def write(self, data: bytes) -> None:
        self.out.append(data)
        self.unsent += len(data)

    def get_write_buffer_size(self) -> int:
        return self.unsent

    def is_closing(self) -> bool:
        return self.closing


def test_an_attached_client_is_written_directly_and_dropped_when_it_does_not_read() -> None:
    import asyncio

    from pi.web.feeds import Client
    client = Client(asyncio.Queue(maxsize=8), limit=100)
    client.offer(b"early")  # before the headers are out: waits in the queue
    transport = _Transport()
    client.attach(transport, chunked=True)
    client.offer(b"id: 3\n\n")
    assert transport.out == [b"5\r\nearly\r\n", b"7\r\nid: 3\n\n\r\n"]  # HTTP/1.1 chunks
    client.offer(b"x" * 120)  # written: the buffer held 23 bytes
    client.offer(b"y")  # now more than 100 bytes wait unread: dropped, not waited for
    assert client.dropped and len(transport.out) == 3
    assert client.queue.get_nowait() is None  # its handler wakes and ends the response
    raw = Client(asyncio.Queue(maxsize=8))
    plain = _Transport()
    raw.attach(plain, chunked=False)  # HTTP/1.0: the body as it is
    raw.offer(b"a")
    plain.closing = True
    raw.offer(b"b")  # the client went away
    assert plain.out == [b"a"] and raw.dropped
