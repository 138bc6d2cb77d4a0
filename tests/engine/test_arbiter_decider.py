"""Who decides an irregularity, and until when (IT 8.2-8.3, INT 5.4 and 5.7).

IT 8.2 / INT 5.4: only the offender's opponent decides whether an irregularity is corrected or
kept; the offender's own ``correct`` or ``accept`` decides nothing (a notice citing the article).
IT 8.3: the opponent decides until he plays on, touching one of his own movable pieces; INT 5.7:
until his own move is executed (the clock press). The scenario traces
``tests/traces/*/offender_presses_correct_and_accept_*`` and ``decision_until_own_move_*`` play
the same through the whole replay.
"""

from __future__ import annotations

import pytest

from engine.arbiter import Arbiter
from engine.decisions import Decision, FlagDecided, FlagRaised
from engine.events import ButtonPressed, GameStarted, PieceLifted, PiecePlaced

#: variant, the irregular move's squares (not a legal move), its article, the IT 8.2 notice
IRREGULAR = [("italian", 22, 17, "IT 8.1.2", "IT 8.2"),
             ("international", 32, 23, "INT 5.4.02", "INT 5.4")]


def _sq(a: Arbiter, n: int) -> str:
    return a.variant.geometry.algebraic_of[n]


def _irregular_by_white(variant: str, frm: int, to: int) -> Arbiter:
    a = Arbiter(GameStarted(variant=variant))
    a.feed(PieceLifted(1, _sq(a, frm)))
    a.feed(PiecePlaced(2, _sq(a, to)))
    a.feed(ButtonPressed(3, "clock", "white"))
    return a


def _decided(out: list[Decision]) -> list[FlagDecided]:
    return [d for d in out if isinstance(d, FlagDecided)]


@pytest.mark.parametrize("variant, frm, to, code, notice", IRREGULAR)
@pytest.mark.parametrize("first", ["correct", "accept"])
def test_the_offenders_own_correct_and_accept_decide_nothing(
        variant: str, frm: int, to: int, code: str, notice: str, first: str) -> None:
    a = _irregular_by_white(variant, frm, to)
    pending = a.pending
    assert pending is not None and pending.code == code
    second = "accept" if first == "correct" else "correct"
    for t, name in ((4, first), (5, second)):
        out = a.feed(ButtonPressed(t, name, "white"))
        # IT 8.2 / INT 5.4: a notice on the offender, and nothing else
        assert len(out) == 1 and isinstance(out[0], FlagRaised)
        assert out[0].flag.code == notice and out[0].flag.status == "noted"
        assert out[0].flag.side == 0  # white, the offender
        assert a.pending == pending and a.flags[pending.id].status == "pending"
        assert a.squares_to_fix == []  # no correction begun
        assert [m.notation for m in a.game.moves] == [f"{frm}-{to}"]  # the move stands
    # the opponent's own decision is taken
    out = a.feed(ButtonPressed(6, "correct", "black"))
    assert [(d.flag.id, d.flag.status) for d in _decided(out)] == [(pending.id, "corrected")]
    assert a.pending is None and a.game.moves == []


@pytest.mark.parametrize("variant, frm, to, code, notice", IRREGULAR)
def test_the_offenders_accept_does_not_stop_the_opponents_correction(
        variant: str, frm: int, to: int, code: str, notice: str) -> None:
    a = _irregular_by_white(variant, frm, to)
    a.feed(ButtonPressed(4, "accept", "white"))
    out = a.feed(ButtonPressed(5, "correct", "black"))
    assert [d.flag.status for d in _decided(out)] == ["corrected"]
    assert [(f.code, f.status) for f in a.flags] == [(code, "corrected"), (notice, "noted")]


def test_it_8_3_the_opponent_decides_until_he_touches_his_own_movable_piece() -> None:
    a = _irregular_by_white("italian", 22, 17)
    a.feed(ButtonPressed(4, "correct", "white"))  # IT 8.2: the offender's press decides nothing
    out = a.feed(PieceLifted(5, _sq(a, 10)))  # IT 8.3: black plays on
    assert [d.flag.status for d in _decided(out)] == ["maintained"]
    assert _decided(out)[0].article == "IT 8.3"
    # his decision comes too late, during his move and after it
    assert a.feed(ButtonPressed(6, "correct", "black")) == []
    a.feed(PiecePlaced(7, _sq(a, 13)))
    a.feed(ButtonPressed(8, "clock", "black"))
    assert a.feed(ButtonPressed(9, "correct", "black")) == []
    assert a.feed(ButtonPressed(10, "accept", "black")) == []
    assert [(f.code, f.status) for f in a.flags] == [("IT 8.1.2", "maintained"),
                                                     ("IT 8.2", "noted")]
    assert [m.notation for m in a.game.moves] == ["22-17", "10-13"]


def test_int_5_7_the_opponent_decides_until_his_move_is_executed() -> None:
    a = _irregular_by_white("international", 32, 23)
    a.feed(ButtonPressed(4, "correct", "white"))  # INT 5.4: the offender's press decides nothing
    # INT 5.7: touching his piece does not keep the irregularity; his move executed does
    assert _decided(a.feed(PieceLifted(5, _sq(a, 19)))) == []
    assert _decided(a.feed(PiecePlaced(6, _sq(a, 19)))) == []
    out = a.feed(ButtonPressed(7, "correct", "black"))
    assert [d.flag.status for d in _decided(out)] == ["corrected"]
    assert a.game.moves == []


def test_int_5_7_after_his_move_is_executed_the_opponent_decides_nothing() -> None:
    a = _irregular_by_white("international", 32, 23)
    a.feed(ButtonPressed(4, "correct", "white"))  # INT 5.4: the offender's press decides nothing
    a.feed(PieceLifted(5, _sq(a, 19)))
    a.feed(PiecePlaced(6, _sq(a, 28)))
    a.feed(PieceLifted(7, _sq(a, 23)))
    out = a.feed(ButtonPressed(8, "clock", "black"))  # 19x28 executed: the irregularity is kept
    assert [d.flag.status for d in _decided(out)] == ["maintained"]
    assert a.feed(ButtonPressed(9, "correct", "black")) == []
    assert a.feed(ButtonPressed(10, "accept", "black")) == []
    assert [(f.code, f.status) for f in a.flags] == [("INT 5.4.02", "maintained"),
                                                     ("INT 5.4", "noted")]
    assert [m.notation for m in a.game.moves] == ["32-23", "19x28"]
