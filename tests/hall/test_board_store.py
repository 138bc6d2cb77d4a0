"""What the board keeps for the hall (``pi/hall/board_store.py``): command answers survive a
restart and a torn last line, the file stays bounded, an action put into the inbox before a
crash is found in the journal instead of being done twice, the pairing is kept, and the journal
is read back exactly (whole lines only)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi.board.arbiter_request import ArbiterRequest, check_arbiter_request
from pi.hall.board_store import HallStore, banner_text, find_action, journal_lines
from pi.hall.protocol import Ack
from pi.board.statedir import StateDir


def _store(tmp_path: Path, keep: int = 1000) -> HallStore:
    return HallStore(StateDir.open(tmp_path, lock=False), keep=keep)


def test_answers_survive_a_restart_and_a_torn_last_line(tmp_path: Path) -> None:
    s = _store(tmp_path)
    s.record_answer(Ack("a", True, 12))
    s.record_answer(Ack("b", False, error="no game in play"))
    with open(s.commands_path, "ab") as f:
        f.write(b'{"id": "c", "ack": {"ok": tr')  # a crash mid-append
    again = _store(tmp_path)
    assert again.answer("a") == Ack("a", True, 12)
    assert again.answer("b") == Ack("b", False, None, "no game in play")
    assert again.answer("c") is None


def test_the_commands_file_stays_bounded(tmp_path: Path) -> None:
    s = _store(tmp_path, keep=10)
    for i in range(55):
        s.record_answer(Ack(f"id-{i}", True, i + 1))
    lines = s.commands_path.read_text().splitlines()
    assert len(lines) <= 20
    again = _store(tmp_path, keep=10)
    assert again.answer("id-54") == Ack("id-54", True, 55)
    assert again.answer("id-0") is None and len(again.commands) == 10


def test_a_pending_action_is_found_in_the_journal_after_a_crash(tmp_path: Path) -> None:
    s = _store(tmp_path)
    game = tmp_path / "games" / "2026-11-22T0800-001"
    game.mkdir(parents=True)
    request = check_arbiter_request({"action": "note", "text": "x"})
    journal = game / "trace.jsonl"
    journal.write_text('{"type": "start"}\n{"t": 1, "type": "arbiter", "action": "note", '
                       '"text": "x"}\n')
    s.record_pending("n-1", game.name, 1)  # before line 2 was written
    again = _store(tmp_path)
    assert again.pending("n-1") == (game.name, 1)
    assert find_action(journal, 1, request) == 2
    assert find_action(journal, 2, request) is None  # not after the line the pending names
    assert find_action(journal, 0, ArbiterRequest("note", None, "y")) is None
    again.record_answer(Ack("n-1", True, 2))
    assert _store(tmp_path).pending("n-1") is None


def test_the_pairing_is_kept_and_a_bad_file_is_no_pairing(tmp_path: Path) -> None:
    s = _store(tmp_path)
    assert s.load_pairing() is None
    s.save_pairing("p", {"round": "2", "white": "Ann"})
    assert _store(tmp_path).load_pairing() == {"round": "2", "white": "Ann"}
    s.pairing_path.write_text('{"pairing": {"colour": 1}}')
    assert s.load_pairing() is None


def test_journal_lines_are_whole_lines_exactly_as_written(tmp_path: Path) -> None:
    p = tmp_path / "trace.jsonl"
    lines = ['{"type": "start", "white": "Müller"}', '{"t": 0.5, "type": "lift"}']
    p.write_bytes(("\n".join(lines) + "\n").encode() + b'{"t": 0.6, "ty')
    assert journal_lines(p, 1) == [(1, lines[0]), (2, lines[1])]
    assert journal_lines(p, 2) == [(2, lines[1])]
    assert journal_lines(p, 1, 1) == [(1, lines[0])]
    assert journal_lines(p, 9) == []


def test_heads_count_lines_of_the_newest_games(tmp_path: Path) -> None:
    s = _store(tmp_path)
    for i, n in ((1, 3), (2, 5)):
        g = tmp_path / "games" / f"2026-11-22T0800-00{i}"
        g.mkdir(parents=True)
        (g / "trace.jsonl").write_text("{}\n" * n)
    (tmp_path / "games" / "2026-11-22T0800-001" / "finished").write_text('{"result": "1-0"}')
    assert s.heads("2026-11-22T0800-002", 4) == [("2026-11-22T0800-001", 3, True),
                                                ("2026-11-22T0800-002", 4, False)]


def test_heads_count_a_finished_game_again_when_its_journal_grew(tmp_path: Path) -> None:
    """Issue 37: a line after the result (a note, a result corrected, COMP 6.16) is in the
    next heads, so that the hub asks for it."""
    s = _store(tmp_path)
    g = tmp_path / "games" / "2026-11-22T0800-001"
    g.mkdir(parents=True)
    (g / "trace.jsonl").write_text("{}\n" * 3)
    (g / "finished").write_text('{"result": "1-0"}')
    assert s.heads(None, 0) == [("2026-11-22T0800-001", 3, True)]
    with open(g / "trace.jsonl", "a") as f:
        f.write('{"t": 9, "type": "arbiter", "action": "note", "text": "after"}\n')
    assert s.heads(None, 0) == [("2026-11-22T0800-001", 4, True)]


@pytest.mark.parametrize("pairing, text", [
    ({"round": "3", "white": "Ann", "black": "Bob"}, "r3 Ann - Bob"),
    ({"white": "Ann"}, "Ann - ?"),
    ({"event": "Open"}, "Open"),
    ({}, ""),
])
def test_banner(pairing: dict[str, str], text: str) -> None:
    assert banner_text(pairing) == text


@pytest.mark.parametrize("body, words", [
    ({"action": "fly"}, "unknown action"),
    ({"action": "note"}, "note needs"),
    ({"action": "note", "text": "x", "result": "1-0"}, "only adjudicate"),
    ({"action": "adjudicate", "result": "1-0", "text": "x"}, "only note"),
    ({"action": "stop_clock", "who": 1}, "unexpected key"),
    ([], "JSON object"),
])
def test_arbiter_requests_refused_as_the_web_refuses_them(body: object, words: str) -> None:
    with pytest.raises(ValueError) as exc:
        check_arbiter_request(body)
    assert words in str(exc.value)
    json.dumps(str(exc.value))
