"""Arbiter API: squares to put right, settle timer, clock charging, report forms."""

from __future__ import annotations

import json

from engine.arbiter import Arbiter
from engine.events import ButtonPressed, GameStarted, PieceLifted, PiecePlaced
from engine.replay import replay_lines


def start(**kw: object) -> Arbiter:
    return Arbiter(GameStarted(variant="italian", **kw))  # type: ignore[arg-type]


def test_correction_lists_the_squares_to_put_right() -> None:
    a = start()
    a.feed(PieceLifted(1, "d3"))  # 22
    a.feed(PiecePlaced(2, "d5"))  # 14: not a legal move
    a.feed(ButtonPressed(3, "clock", "white"))
    assert a.pending is not None and a.pending.code == "IT 8.1.2"
    a.feed(ButtonPressed(4, "correct", "black"))
    assert a.squares_to_fix == ["d3", "d5"]
    a.feed(PieceLifted(5, "d5"))
    a.feed(PiecePlaced(6, "d3"))
    assert a.squares_to_fix == [] and a.flags[0].status == "corrected"
    assert a.game.moves == [] and a.board.turn == 0


def test_no_clock_commits_after_settle() -> None:
    a = start(clock=False, settle=2.0)
    a.feed(PieceLifted(1, "d3"))
    a.feed(PiecePlaced(1.5, "c4"))
    assert a.advance(3.0) == [] and a.game.moves == []
    a.advance(3.6)
    assert [m.notation for m in a.game.moves] == ["22-18"]
    assert a.game.moves[0].t == 1.5  # IT 3.5: the move is made when the piece is let go


def test_correction_time_is_charged_to_the_offender() -> None:
    a = start(time_control="600")
    a.feed(PieceLifted(0, "d3"))
    a.feed(PiecePlaced(1, "d5"))
    a.feed(ButtonPressed(2, "clock", "white"))
    a.feed(ButtonPressed(12, "correct", "black"))  # black thought 10 s
    a.feed(PieceLifted(40, "d5"))
    a.feed(PiecePlaced(42, "d3"))  # white spent 30 s putting it right (COMP 4.13)
    assert a.clock is not None
    white, black = a.clock.reading(42)
    assert black == 590.0 and white == 600.0 - 2 - 30


def test_report_json_and_text() -> None:
    lines = [json.dumps({"type": "start", "variant": "italian", "fen": None, "clock": True,
                         "transcribed": True}),
             '{"t": 1, "type": "lift", "square": 22}', '{"t": 2, "type": "place", "square": 14}',
             '{"t": 3, "type": "button", "name": "clock", "side": "white"}',
             '{"t": 4, "type": "button", "name": "accept", "side": "black"}']
    r = replay_lines(lines)
    d = r.to_json()
    assert set(d) == {"moves", "flags", "fen", "result", "pdn"}
    assert d["flags"] == [{"t": 3.0, "code": "IT 8.1.2", "side": "white", "kind": "irregularity",
                           "status": "maintained", "text": "moved 22-14, not a legal move"}]
    assert d["moves"][0]["notation"] == "22-14" and d["fen"].startswith("B:")
    assert '/FEN "' in d["pdn"]
    text = r.to_text()
    assert "IT 8.1.2: an illegal move of a man or a king" in text and "Result: *" in text
