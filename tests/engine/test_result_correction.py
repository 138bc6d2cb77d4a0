"""A mistaken result corrected by the arbiter after the game (COMP 6.16, issue 37): the trace's
``correct_result`` action, the game's history of its results, the report and the PDN."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.decisions import GameEnded
from engine.errors import TraceError
from engine.game import Game
from engine.pdn import read_pdn
from engine.replay import Replay, replay_lines
from engine.trace import parse_trace

START = json.dumps({"type": "start", "variant": "italian", "fen": None, "clock": False,
                    "transcribed": True})
RESIGN = '{"t": 2, "type": "button", "name": "resign", "side": "black"}'


def _correct(result: str, text: str | None = "the sheets say so", t: float = 9) -> str:
    line: dict[str, object] = {"t": t, "type": "arbiter", "action": "correct_result",
                               "result": result}
    if text is not None:
        line["text"] = text
    return json.dumps(line)


@pytest.mark.parametrize("line, words", [
    (_correct("0-1", None), "missing key 'text'"),
    (_correct("0-1", "   "), "needs a reason"),
    (_correct("3-0"), "unknown result"),
    ('{"t": 9, "type": "arbiter", "action": "correct_result", "text": "x"}',
     "missing key 'result'"),
])
def test_the_reader_refuses_a_correction_without_its_result_or_reason(line: str,
                                                                       words: str) -> None:
    with pytest.raises(TraceError, match=f"^line 3: .*{words}"):
        parse_trace([START, RESIGN, line])


def test_a_correction_in_play_is_refused_and_the_game_goes_on() -> None:
    # COMP 6.16 corrects a result: a game in play has none (the arbiter adjudicates it instead)
    with pytest.raises(ValueError, match="no result to correct"):
        replay_lines([START, _correct("0-1", t=1)])


@pytest.mark.parametrize("variant, result, words", [
    ("italian", "0-2", "not a result of italian"),       # the other scoring set (COMP 6.14)
    ("international", "0-1", "not a result of international"),
    ("italian", "1-0", "is 1-0 already"),
])
def test_only_another_result_of_the_variant(variant: str, result: str, words: str) -> None:
    game = Game(variant)
    game.resign(1)
    with pytest.raises(ValueError, match=words):
        game.correct_result(result, "why", 5.0)
    assert game.corrections == [] and game.outcome is not None
    assert game.outcome.code != "COMP 6.16"


def test_the_first_result_is_kept_with_its_time_and_the_reason() -> None:
    report = replay_lines([START, RESIGN, _correct("0-1", "White resigned, not Black")])
    assert report.game.result == "0-1"
    history = report.to_json()["result_history"]
    assert history == [
        {"t": 2.0, "result": "1-0", "code": "IT 9.2.1", "reason": "black resigned"},
        {"t": 9.0, "result": "0-1", "code": "COMP 6.16", "reason": "White resigned, not Black"}]
    flag = report.flags[-1]
    assert (flag.code, flag.kind, flag.status, flag.t) == ("COMP 6.16", "notice", "noted", 9.0)
    text = report.to_text()
    assert "Result: 0-1 (COMP 6.16: corrected by the arbiter)" in text
    assert "1-0 at 2s (IT 9.2.1: black resigned), corrected to 0-1 at 9s: White resigned" in text


def test_the_pdn_gives_the_corrected_result_and_names_the_first() -> None:
    pdn = replay_lines([START, RESIGN, _correct("0-1", "White resigned, not Black")]).pdn()
    assert '[Result "0-1"]' in pdn
    assert pdn.rstrip().endswith("} 0-1")
    assert "{1-0 (IT 9.2.1: black resigned) corrected to 0-1 by the arbiter" in " ".join(
        pdn.split())
    (game,) = read_pdn(pdn)  # the comment reads back; the result is the corrected one
    assert game.result == "0-1"


def test_a_game_never_corrected_has_no_result_history() -> None:
    report = replay_lines([START, RESIGN])
    assert "result_history" not in report.to_json()
    assert report.pdn().rstrip().endswith("1-0") and "{" not in report.pdn()


def test_the_game_decides_its_end_again_with_the_corrected_result() -> None:
    # the end said anew: the board's pages, the hall's results and the files follow it
    replay = Replay.read([START, RESIGN, _correct("1/2-1/2")])
    feds = list(replay)
    ends = [d for f in feds for d in f.decisions if isinstance(d, GameEnded)]
    assert [(d.result, d.article) for d in ends] == [
        ("1-0", "IT 9.2.1"), ("1/2-1/2", "COMP 6.16")]


@settings(max_examples=60, deadline=None)
@given(variant=st.sampled_from(["italian", "english", "international", "brazilian"]),
       resigner=st.sampled_from(["white", "black"]),
       picks=st.lists(st.integers(0, 1), max_size=5),
       reason=st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")),
                      min_size=1, max_size=40).filter(str.strip))
def test_any_corrections_leave_the_last_result_and_keep_every_one(
        variant: str, resigner: str, picks: list[int], reason: str) -> None:
    """Invariant: after any corrections the game's result is the last one, the report's
    history holds the first result then each correction in order, one COMP 6.16 notice each,
    and the PDN reads back with the corrected result."""
    start = json.dumps({"type": "start", "variant": variant, "fen": None, "clock": False,
                        "transcribed": True})
    lines = [start, json.dumps({"t": 1, "type": "button", "name": "resign", "side": resigner})]
    report = replay_lines(lines)
    wanted = [report.game.result]
    for i, pick in enumerate(picks):
        others = [r for r in report.game.variant.results if r != wanted[-1]]
        wanted.append(others[pick])
        lines.append(_correct(wanted[-1], reason, t=10 + i))
    report = replay_lines(lines)
    assert report.game.result == wanted[-1]
    history = report.to_json().get("result_history", [])
    assert [h["result"] for h in history] == (wanted if picks else [])
    notices = [f for f in report.flags if f.code == "COMP 6.16"]
    assert len(notices) == len(picks) and all(f.kind == "notice" for f in notices)
    (game,) = read_pdn(report.pdn())
    assert game.result == wanted[-1]
