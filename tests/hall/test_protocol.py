"""The hall's messages (pi/hall/PROTOCOL.md): what is built reads back the same, and anything
else from the network is a BadMessage (one line), never another exception."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi.hall import protocol as p
from pi.board.statedir import make_game_id
from pi.hall.errors import BadMessage

GAME = make_game_id(datetime(2026, 11, 22, 9, 30, tzinfo=timezone.utc), 4, 7)
TOPICS = p.Topics("hall-1")


def test_topics_and_their_parse() -> None:
    assert TOPICS.board(7, "journal") == "damiera/hall-1/boards/7/journal"
    assert TOPICS.all_boards("state") == "damiera/hall-1/boards/+/state"
    assert p.parse_topic(TOPICS, "damiera/hall-1/boards/12/status") == (12, "status")
    for bad in ("damiera/other/boards/1/state", "damiera/hall-1/boards/1/x",
                "damiera/hall-1/boards/1/state/more", "damiera/hall-1/boards/a b/state"):
        with pytest.raises(BadMessage):
            p.parse_topic(TOPICS, bad)
    with pytest.raises(BadMessage):
        p.Topics("a/b")
    assert p.client_id("h", 7) == "damiera-h-board-7" and p.client_id("h") == "damiera-h-hub"


@given(line=st.integers(1, 10**9), text=st.text(min_size=1).filter(
    lambda s: "\n" not in s and "\r" not in s))
def test_journal_round_trip(line: int, text: str) -> None:
    assert p.parse_journal(p.journal_payload(GAME, line, text)) == p.JournalLine(GAME, line, text)


@given(n=st.integers(0, 10**6), finished=st.booleans())
def test_status_round_trip(n: int, finished: bool) -> None:
    heads = p.parse_status(p.status_payload(7, GAME, n, [(GAME, n, finished)]))
    assert heads == p.Heads(True, 7, GAME, n, ((GAME, n, finished),))
    assert p.parse_status(p.offline_payload(7)) == p.Heads(False, 7, None, 0, ())


def test_commands_round_trip() -> None:
    assert p.parse_command(p.resend_payload(GAME, 5)) == p.Resend(GAME, 5)
    action = {"action": "note", "text": "clock checked"}
    assert p.parse_command(p.action_payload("c1", action)) == p.Command("c1", action=action)
    cmd = p.parse_command(p.pairing_payload("c2", {"round": "3", "white": "Rossi, M."}))
    assert cmd == p.Command("c2", pairing={"round": "3", "white": "Rossi, M."})
    ack = p.Ack("c1", True, 12)
    assert p.parse_ack(p.ack_payload(ack)) == ack
    err = p.Ack("c3", False, None, "unknown action")
    assert p.parse_ack(p.ack_payload(err)) == err


@pytest.mark.parametrize("payload", [
    b"", b"\xff\xfe", b"[]", b"null", b"{", b'{"game": "../../etc", "line": 1, "text": "x"}',
    b'{"game": "%s", "line": 0, "text": "x"}' % GAME.encode(),
    b'{"game": "%s", "line": true, "text": "x"}' % GAME.encode(),
    b'{"game": "%s", "line": 2, "text": "a\\nb"}' % GAME.encode(),
    b'{"game": "%s", "line": 2, "text": NaN}' % GAME.encode(),
    b"[" * 100000, b"{" + b" " * p.MAX_PAYLOAD + b"}",
])
def test_bad_journal_messages(payload: bytes) -> None:
    with pytest.raises(BadMessage):
        p.parse_journal(payload)


@pytest.mark.parametrize("obj", [
    {}, {"id": ""}, {"id": "x"}, {"id": "x", "action": "note"}, {"id": "x", "action": {}},
    {"id": "x", "pairing": {"white": "a\nb"}}, {"id": "x", "pairing": {"colour": "w"}},
    {"id": "x", "pairing": {}}, {"resend": {"game": GAME, "from": -1}}, {"resend": 3},
    {"id": 5, "action": {"action": "note"}}, {"id": "x", "pairing": {"white": 'say "hi"'}},
    {"id": "\n"}, {"id": "a\u2028b", "action": {"action": "note"}},  # refusals are one line
    {"id": "x", "pairing": {"white": "Ann\u2028Lee"}},  # issue 38: separators are line ends
    {"id": "x", "pairing": {"black": "Bob\x85Ray"}}, {"id": "x", "pairing": {"event": "a\tb"}},
])
def test_bad_commands(obj: dict[str, object]) -> None:
    with pytest.raises(BadMessage):
        p.parse_command(json.dumps(obj).encode())


@settings(max_examples=300)
@given(st.binary(max_size=300) | st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda c: st.lists(c, max_size=4) | st.dictionaries(
        st.sampled_from(["game", "line", "text", "id", "action", "pairing", "resend", "from",
                         "online", "board", "games", "lines", "ok", "error"]), c, max_size=6),
    max_leaves=20).map(lambda o: json.dumps(o).encode()))
def test_any_payload_is_read_or_refused_in_one_line(payload: bytes) -> None:
    for reader in (p.parse_journal, p.parse_status, p.parse_command, p.parse_ack):
        try:
            reader(payload)
        except BadMessage as exc:
            assert "\n" not in str(exc)
