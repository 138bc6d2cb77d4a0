"""A capture described as the sensors saw it (issue 35, item 4): a path that jumps an enemy piece
twice (IT 6.4, EN 6.4, INT 4.8: the Turkish strike) is named in the flag's text, in the journal's
English and in the report's Italian, whichever article the flag cites (IT 8.1.12, INT 5.4.12;
INT 5.4.02 where no capture ends there)."""

from __future__ import annotations

from pathlib import Path

from engine.arbiter_judge import judge
from engine.board import Board
from engine.replay import replay_lines

TRACES = Path(__file__).resolve().parent.parent / "traces"


def _report(name: str) -> tuple[dict[str, object], str, str]:
    lines = (TRACES / name).read_text().splitlines()
    report = replay_lines(lines)
    return report.to_json(), report.to_text("en"), report.to_text("it")


def test_turkish_strike_int_4_8_is_described_in_both_languages() -> None:
    data, en, it = _report("international/i35_turkish_strike_4_8.jsonl")
    flags = data["flags"]
    assert isinstance(flags, list)
    # the journal's text is English (docs/trace-format.md); the flag cites INT 5.4.12, its text INT 4.8
    assert flags[0]["code"] == "INT 5.4.12"
    assert flags[0]["text"] == "played 28x19x28x39, jumping 23 twice (INT 4.8), and removed 23, 33"
    assert "played 28x19x28x39, jumping 23 twice (INT 4.8), and removed 23, 33" in en
    assert "giocato 28x19x28x39, saltando due volte 23 (INT 4.8), e tolti 23, 33" in it
    assert "removed 23, not captured" not in en and "tolti 23, non presi" not in it


def test_jumped_twice_it_6_4_is_described_in_both_languages() -> None:
    data, en, it = _report("italian/i35_jumped_twice_6_4.jsonl")
    assert "played 22x13x22x15, jumping 18 twice (IT 6.4), and removed 18, 19" in en
    assert "giocato 22x13x22x15, saltando due volte 18 (IT 6.4), e tolti 18, 19" in it


def test_no_capture_ending_there_int_5_4_02_names_the_piece_jumped_twice() -> None:
    # the king 9 jumps 18 to 22, back over 18 to 13, over 8 to 2: no capture from 9 ends on 2
    ref = Board("W:WK9,48:B5,8,18,38", "international")
    seen = {9: (9, 22, 13, 2)}
    j = judge(ref, {2: 9, 5: 5, 38: 38, 48: 48}, 0, None, lambda o: seen.get(o, (o,)))
    assert j.key == "impossible"
    assert j.text == "played 9x22x13x2, jumping 18 twice (INT 4.8), and removed 8, 18"


def test_a_path_jumping_each_piece_once_keeps_the_removal_text_it_8_1_12() -> None:
    # 22x13x6 takes 18 and 10 (each jumped once); 1 came off too: removed, not captured
    ref = Board("W:W22,31:B1,10,18", "italian")
    j = judge(ref, {6: 22, 31: 31}, 0, None, lambda o: (22, 13, 6) if o == 22 else (o,))
    assert j.key == "removed_not_taken"
    assert j.text == "played 22x6 and removed 1, not captured"


def test_the_same_board_without_the_path_seen_keeps_the_removal_text() -> None:
    # what the sensors saw is needed: the board alone says only which pieces came off
    ref = Board("W:WK28,48:B3,23,33", "international")
    j = judge(ref, {39: 28, 48: 48, 3: 3}, 0, None)
    assert j.key == "removed_not_taken"
    assert j.text == "played 28x39 and removed 23, not captured"

