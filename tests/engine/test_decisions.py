"""The arbiter's seam: typed decisions out of feed()/advance(), the clock itself, next_deadline."""

from __future__ import annotations

import dataclasses

import pytest

from engine.arbiter import Arbiter
from engine.clock import ClockPressed, ClockStarted, FlagFell, GameClock, MosseLampoBegan
from engine.colour import BLACK, WHITE
from engine.decisions import (BoardToFix, ClockChanged, Decision, FlagDecided, FlagRaised,
                              GameEnded, LampoCountdown, MoveCommitted, MoveRetracted)
from engine.events import ArbiterActed, ButtonPressed, GameStarted, PieceLifted, PiecePlaced


def start(variant: str = "italian", **kw: object) -> Arbiter:
    return Arbiter(GameStarted(variant=variant, **kw))  # type: ignore[arg-type]


def of(kind: type, decisions: list[Decision]) -> list[Decision]:
    return [d for d in decisions if isinstance(d, kind)]


def test_a_move_pressed_is_committed_with_the_clock_press() -> None:
    a = start(time_control="600")
    assert isinstance(a.clock, GameClock)
    first = a.feed(PieceLifted(1, "d3"))  # 22
    assert [type(d) for d in first] == [ClockChanged]
    assert isinstance(first[0], ClockChanged) and isinstance(first[0].event, ClockStarted)
    assert first[0].article == "COMP 4.4.2"
    assert a.feed(PiecePlaced(2, "c4")) == []  # 18: nothing decided until the press
    out = a.feed(ButtonPressed(5, "clock", "white"))
    pressed, move = out
    assert isinstance(pressed, ClockChanged) and isinstance(pressed.event, ClockPressed)
    assert isinstance(move, MoveCommitted)
    assert (move.ply, move.side, move.notation, move.t) == (1, WHITE, "22-18", 5)
    assert move.clock == (596.0, 600.0) and move.article == "COMP 4.5"  # started at 1
    assert move.fen == a.board.fen() and move.fen.startswith("B:")
    with pytest.raises(dataclasses.FrozenInstanceError):
        move.ply = 2  # type: ignore[misc]


def test_without_time_control_the_clock_is_none_and_the_button_completes_moves() -> None:
    a = start()
    assert a.clock is None
    a.feed(PieceLifted(1, "d3"))
    a.feed(PiecePlaced(2, "c4"))
    out = a.feed(ButtonPressed(3, "clock", "white"))
    assert [type(d) for d in out] == [MoveCommitted]  # COMP 4.5, no clock event
    assert [m.notation for m in a.game.moves] == ["22-18"]


def test_a_flag_decided_is_a_new_value_with_the_same_id() -> None:
    a = start()
    a.feed(PieceLifted(1, "d3"))
    a.feed(PiecePlaced(2, "d5"))  # 22-14: not a legal move
    raised = of(FlagRaised, a.feed(ButtonPressed(3, "clock", "white")))
    assert len(raised) == 1
    flag = raised[0].flag  # type: ignore[attr-defined]
    assert (flag.code, flag.status, flag.side, flag.kind) == ("IT 8.1.2", "pending", WHITE,
                                                              "irregularity")
    out = a.feed(ButtonPressed(4, "correct", "black"))
    decided = of(FlagDecided, out)
    assert len(decided) == 1 and isinstance(decided[0], FlagDecided)
    assert decided[0].flag.id == flag.id and decided[0].flag.status == "corrected"
    assert decided[0].article == "IT 8.4"
    assert flag.status == "pending"  # the value returned before is unchanged
    assert a.flags[flag.id].status == "corrected"  # the arbiter keeps the current list
    fix = of(BoardToFix, out)
    assert fix == [BoardToFix(4, ("d3", "d5"), "IT 8.4")]
    a.feed(PieceLifted(5, "d5"))
    out = a.feed(PiecePlaced(6, "d3"))
    assert of(BoardToFix, out) == [BoardToFix(6, (), "IT 8.4")]


@pytest.mark.parametrize("variant, code", [("italian", "IT 9.2.1"), ("english", "EN 9.2.1"),
                                           ("international", "INT 7.2.1"),
                                           ("brazilian", "BR 7.2.1")])
def test_resignation_ends_the_game_citing_the_variants_own_rules(variant: str, code: str) -> None:
    a = start(variant)
    out = a.feed(ButtonPressed(1, "resign", "black"))
    assert len(out) == 1 and isinstance(out[0], GameEnded)
    assert (out[0].winner, out[0].article) == (WHITE, code)
    assert out[0].result == a.game.result
    assert a.feed(ButtonPressed(2, "resign", "white")) == []  # ended once


@pytest.mark.parametrize("variant, code", [("italian", "IT 9.2.3"), ("english", "EN 9.2.3"),
                                           ("international", "INT 7.2.3"),
                                           ("brazilian", "BR 7.2.3")])
def test_no_pieces_left_cites_the_variants_own_rules(variant: str, code: str) -> None:
    fens = {"italian": "W:W16:B12", "english": "B:W16:B11", "international": "W:W25:B20",
            "brazilian": "W:W16:B11"}
    a = start(variant, fen=fens[variant])
    move = a.board.legal_moves[0]
    side = "white" if a.board.turn == WHITE else "black"
    alg = a.variant.geometry.algebraic_of
    a.feed(PieceLifted(1, alg[move.from_square]))
    a.feed(PiecePlaced(2, alg[move.to_square]))
    a.feed(PieceLifted(3, alg[move.captures[0]]))
    out = a.feed(ButtonPressed(4, "clock", side))
    ended = of(GameEnded, out)
    assert len(ended) == 1 and isinstance(ended[0], GameEnded)
    assert ended[0].article == code


def test_next_deadline_is_the_settle_timer_without_clock() -> None:
    a = start(clock=False, settle=2.0)
    assert a.next_deadline() is None
    a.feed(PieceLifted(1, "d3"))
    assert a.next_deadline() is None  # a piece in the hand: nothing happens by time alone
    a.feed(PiecePlaced(1.5, "c4"))
    deadline = a.next_deadline()
    assert deadline == 3.5
    assert a.advance(deadline - 0.001) == []
    out = a.advance(deadline)
    assert [type(d) for d in out] == [MoveCommitted]
    assert isinstance(out[0], MoveCommitted) and out[0].article == "IT 3.5"
    assert a.next_deadline() is None


def test_next_deadline_is_the_flag_fall() -> None:
    a = start(time_control="60")
    a.feed(ArbiterActed(0, "start_clock"))
    assert a.next_deadline() == 60.0
    a.feed(PieceLifted(10, "d3"))
    a.feed(PiecePlaced(11, "c4"))
    a.feed(ButtonPressed(12, "clock", "white"))
    assert a.next_deadline() == 72.0  # black's face: 60 s from 12
    assert a.advance(71.999) == []
    out = a.advance(72.0)
    flags = [d.event for d in out if isinstance(d, ClockChanged)]
    assert flags == [FlagFell(BLACK, 72.0)]
    ended = of(GameEnded, out)
    assert len(ended) == 1 and isinstance(ended[0], GameEnded)
    assert (ended[0].winner, ended[0].article) == (WHITE, "COMP 4.8")
    assert a.next_deadline() is None


def test_next_deadline_steps_through_the_lampo_countdown() -> None:
    a = start(time_control="10:1/30")
    a.feed(ArbiterActed(0, "start_clock"))
    assert a.next_deadline() == 10.0
    out = a.advance(10.0)
    began = [d.event for d in out if isinstance(d, ClockChanged)]
    assert began == [MosseLampoBegan(WHITE, 10.0, 30.0)]
    words: list[str] = []
    t = a.next_deadline()
    while t is not None and not a.game.is_over:
        out = a.advance(t)
        assert out, f"nothing happened at the deadline {t}"
        words += [d.word for d in out if isinstance(d, LampoCountdown)]
        t = a.next_deadline()
    assert words == ["-15", "-10", "-5", "4", "3", "2", "1", "0"]
    assert a.game.outcome is not None and a.game.outcome.code == "COMP 4.8"


def test_a_pending_irregular_move_stands_in_the_transcript_until_corrected() -> None:
    a = start()
    a.feed(PieceLifted(1, "d3"))
    a.feed(PiecePlaced(2, "d5"))  # 22-14: not a legal move
    out = a.feed(ButtonPressed(3, "clock", "white"))
    written = of(MoveCommitted, out)
    assert len(written) == 1 and isinstance(written[0], MoveCommitted)
    assert written[0].pending and written[0].setup_fen == a.board.fen()
    assert (written[0].notation, written[0].side, written[0].article) == ("22-14", WHITE,
                                                                          "IT 8.1.2")
    assert [m.notation for m in a.game.moves] == ["22-14"] and a.board.turn == BLACK
    out = a.feed(ButtonPressed(4, "correct", "black"))
    retracted = of(MoveRetracted, out)
    assert retracted == [MoveRetracted(4, 1, a.game.start_fen, "IT 8.4")]
    assert a.game.moves == [] and a.board.fen() == a.game.start_fen


def test_pdn_numbers_on_when_a_side_moved_twice() -> None:
    from engine.replay import Report
    a = start()
    script = [("d3", "c4", "white"), ("e6", "f5", "black"), ("c6", "d5", "black")]  # black twice
    t = 0.0
    for frm, to, side in script:
        a.feed(PieceLifted(t + 0.1, frm))
        a.feed(PiecePlaced(t + 0.2, to))
        a.feed(ButtonPressed(t + 0.3, "clock", side))
        t += 1
    a.feed(ButtonPressed(t, "accept", "white"))
    report = Report(a.game, a.flags)
    assert [m["side"] for m in report.moves] == ["white", "black", "black"]
    movetext = report.pdn().split("\n\n")[1]
    assert movetext.startswith("1. 22-18 11-15 2... 10-14 {irregular move: IT 8.1.1}\n/FEN")


@pytest.mark.parametrize("variant", ["italian", "english", "international", "brazilian"])
def test_next_deadline_matches_advance_over_random_games(variant: str) -> None:
    """Without a clock, replaying a game by events and sleeping until next_deadline() between
    them: advance() just before the deadline decides nothing, at the deadline it decides."""
    import random

    from engine.board import Board
    from engine.colour import Colour
    from engine.variants import find_variant
    from hardware_mocks.players import physical

    for seed in range(3):
        rng = random.Random(seed)
        a = start(variant, clock=False, settle=1.0)
        ref = Board(None, find_variant(variant))
        t = 0.0
        fired = 0
        for _ in range(30):
            moves = ref.legal_moves
            if not moves or a.game.is_over:
                break
            move = rng.choice(moves)
            evs, t = physical(ref, move, rng, t, set(a.sensed))
            for e in evs:
                a.feed(e)
            deadline = a.next_deadline()
            assert deadline is not None, Colour(ref.turn).label
            assert a.advance(deadline - 0.001) == []
            out = a.advance(deadline)
            assert any(isinstance(d, MoveCommitted) for d in out)
            fired += 1
            t = deadline
            ref.push(move)
        assert fired and len(a.game.moves) == fired and not a.flags


def test_a_correction_on_a_stopped_clock_retracts_no_press() -> None:
    from engine.clock import CorrectionBegan, PressIgnored

    a = start(time_control="600")
    a.feed(ArbiterActed(0, "start_clock"))
    stopped = a.feed(ArbiterActed(1, "stop_clock"))  # COMP 7.3.1: the arbiter interrupts
    assert [type(d.event).__name__ for d in stopped if isinstance(d, ClockChanged)] == [
        "ClockStopped"]
    a.feed(PieceLifted(2, "d3"))
    a.feed(PiecePlaced(3, "d5"))  # 22-14: not a legal move
    out = a.feed(ButtonPressed(4, "clock", "white"))
    ignored = [d.event for d in out if isinstance(d, ClockChanged)]
    assert len(ignored) == 1 and isinstance(ignored[0], PressIgnored)  # the clock is stopped
    out = a.feed(ButtonPressed(5, "correct", "black"))
    began = [d.event for d in out if isinstance(d, ClockChanged)]
    assert len(began) == 1 and isinstance(began[0], CorrectionBegan)
    assert not began[0].retracted_move  # nothing was counted, nothing is given back
    assert a.clock is not None and a.clock.moves(WHITE) == 0


def test_every_decision_has_a_json_form() -> None:
    import json

    a = start(time_control="600")
    out = a.feed_all([PieceLifted(1, "d3"), PiecePlaced(2, "d5"),
                      ButtonPressed(3, "clock", "white"), ButtonPressed(4, "correct", "black"),
                      PieceLifted(5, "d5"), PiecePlaced(6, "d3"),
                      ButtonPressed(7, "resign", "white")])
    kinds = {type(d).__name__ for d in out}
    assert {"ClockChanged", "FlagRaised", "MoveCommitted", "FlagDecided", "MoveRetracted",
            "BoardToFix", "GameEnded"} <= kinds
    for d in out:
        obj = json.loads(json.dumps(d.to_json()))
        assert obj["type"] == type(d).__name__ and obj["t"] == d.t and obj["article"]
    move = next(d.to_json() for d in out if isinstance(d, MoveCommitted))
    assert move["side"] == "white" and move["move"]["notation"] == "22-14" and move["pending"]
    raised = next(d.to_json() for d in out if isinstance(d, FlagRaised))
    assert raised["flag"]["side"] == "white" and raised["flag"]["code"] == "IT 8.1.2"


def test_a_clock_that_refuses_an_operation_is_a_decision_not_a_crash(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # COMP 3.6.1: the arbiter checks the clock's state before every operation, so a refusal is
    # the clock disagreeing with it (a bug, or a clock driven from outside): it must come out as
    # a ClockRefused decision and the game go on (the move is still complete, COMP 4.5).
    from engine.arbiter import Arbiter
    from engine.clock import GameClock
    from engine.decisions import ClockRefused, MoveCommitted
    from engine.errors import ClockError
    from engine.events import ButtonPressed, GameStarted, PieceLifted, PiecePlaced

    def refuse(self, side, t, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise ClockError("the clock is broken")

    monkeypatch.setattr(GameClock, "press", refuse)
    a = Arbiter(GameStarted("italian", time_control="600"))
    a.feed(PieceLifted(1.0, "d3"))
    a.feed(PiecePlaced(1.4, "c4"))
    out = a.feed(ButtonPressed(2.0, "clock", "white"))
    refused = [d for d in out if isinstance(d, ClockRefused)]
    assert refused and refused[0].operation == "press" and refused[0].article == "COMP 3.6.1"
    assert "broken" in refused[0].reason
    assert any(isinstance(d, MoveCommitted) for d in out)



@pytest.mark.parametrize("end, code", [(ArbiterActed(5, "adjudicate", result="1-0"), "COMP"),
                                       (ButtonPressed(5, "resign", "black"), "IT 9.2.1")])
def test_an_irregularity_pending_at_the_games_end_lapses_by_that_end(
        end: ArbiterActed | ButtonPressed, code: str) -> None:
    """The opponent decides on an irregularity (IT 8.2) until his own next move (IT 8.3); a
    game that ends first leaves him no move and no correction: the flag lapses (status
    ``lapsed``), decided by the article that ended the game, before the game's end is told;
    nothing waits for a decision any more."""
    a = start()
    a.feed(PieceLifted(1, "d3"))
    a.feed(PiecePlaced(2, "d5"))  # 22-14: not a legal move
    [raised] = [d.flag for d in a.feed(ButtonPressed(3, "clock", "white"))
                if isinstance(d, FlagRaised)]
    out = a.feed(end)
    decided = [d for d in out if isinstance(d, FlagDecided)]
    assert [(d.flag.id, d.flag.status, d.article) for d in decided] == [
        (raised.id, "lapsed", code)]
    ended = [d for d in out if isinstance(d, GameEnded)]
    assert len(ended) == 1 and out.index(decided[0]) < out.index(ended[0])
    assert a.pending is None and a.flags[raised.id].status == "lapsed"
    assert [m.notation for m in a.game.moves] == ["22-14"]  # the irregular move stands
