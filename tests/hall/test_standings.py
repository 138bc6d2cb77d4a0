"""The event's standings (``pi.hall.standings``, issue 37): points as the event scores a game
(COMP 6.14: 2-1-0), summed (COMP 6.20), equal players told apart by the tie-breaks hub.toml
names in their order (COMP 6.21 b: Buchholz, Sonneborn-Berger; also wins, direct encounter),
and ``[standings]`` of hub.toml refused in one line naming the file and the key. The hub's
HTTP side: ``test_hub_standings.py``."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from pi.board.errors import ConfigError
from pi.hall.hub_config import parse_hub_config
from pi.hall.hub_init import hub_toml_text, make_hall
from pi.hall.standings import (DEFAULT_SCORING, TIE_BREAKS, Scoring, outcome, parse_points,
                               standings)


def row(rnd: str, board: str, white: str, black: str, result: str) -> dict[str, str]:
    return {"round": rnd, "board": board, "white": white, "black": black, "result": result}


#: A round robin of four, three rounds (worked by hand below).
ROBIN = [row("1", "1", "A", "B", "1-0"), row("1", "2", "C", "D", "1/2-1/2"),
         row("2", "1", "A", "C", "1/2-1/2"), row("2", "2", "B", "D", "0-1"),
         row("3", "1", "D", "A", "0-1"), row("3", "2", "B", "C", "1-0")]


def by_name(table: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {p["name"]: p for p in table}


def test_a_round_robin_worked_by_hand_comp_6_14_and_6_21() -> None:
    # COMP 6.14: A 2+1+2 = 5, D 1+2+0 = 3, B 0+0+2 = 2, C 1+1+0 = 2
    table = standings(ROBIN)
    got = by_name(table)
    assert {n: p["points"] for n, p in got.items()} == {"A": 5, "D": 3, "B": 2, "C": 2}
    # Buchholz: the opponents' points; Sonneborn-Berger: a beaten opponent's all, a drawn one's half
    assert {n: p["tie_breaks"]["buchholz"] for n, p in got.items()} == \
        {"A": 7, "B": 10, "C": 10, "D": 9}
    assert {n: p["tie_breaks"]["sonneborn-berger"] for n, p in got.items()} == \
        {"A": 6, "B": 2, "C": 4, "D": 3}
    # B and C equal on points and Buchholz: Sonneborn-Berger puts C first (COMP 6.21 b)
    assert [p["name"] for p in table] == ["A", "D", "C", "B"]
    assert [p["rank"] for p in table] == [1, 2, 3, 4] and not any(p["tied"] for p in table)
    assert (got["A"]["games"], got["A"]["wins"], got["A"]["draws"], got["A"]["losses"]) == \
        (3, 2, 1, 0)
    assert got["C"]["rounds"][0] == {"round": "1", "board": "2", "colour": "white",
                                     "opponent": "D", "result": "1/2-1/2", "points": 1}


def test_the_events_own_tie_breaks_in_its_order() -> None:
    # B beat C in round 3: direct encounter and wins put B first, Sonneborn-Berger C
    for order, first in ((("direct-encounter",), "B"), (("wins",), "B"),
                         (("sonneborn-berger", "direct-encounter"), "C"),
                         (("buchholz", "direct-encounter"), "B")):
        table = standings(ROBIN, Scoring(tie_break=order))
        assert [p["name"] for p in table][2:] == [first, "CB".replace(first, "")], order
        assert list(table[0]["tie_breaks"]) == list(order)
    # no tie-break: B and C are tied, ranked by name, and marked so (COMP 6.21 a, c)
    table = standings(ROBIN, Scoring(tie_break=()))
    assert [(p["name"], p["rank"], p["tied"]) for p in table][2:] == \
        [("B", 3, True), ("C", 4, True)]


def test_half_points_stay_exact() -> None:
    table = by_name(standings(ROBIN, Scoring(Fraction(1), Fraction(1, 2), Fraction(0))))
    assert table["A"]["points"] == 2.5 and table["D"]["points"] == 1.5
    assert table["C"]["tie_breaks"]["sonneborn-berger"] == 2  # ¾ + 1¼
    assert table["B"]["tie_breaks"]["buchholz"] == 5


def test_what_does_not_count_yet() -> None:
    rows = [row("1", "1", "A", "B", "*"), row("1", "2", "C", "?", "1-0"),
            row("1", "3", "D", "E", "0-0"), row("1", "4", "F", "G", "2-0")]
    got = by_name(standings(rows))
    # a game not over is listed, not counted; a player the board could not name is nobody
    assert got["A"]["games"] == 0 and got["A"]["rounds"][0]["points"] is None
    assert "?" not in got and got["C"]["points"] == 0 and got["C"]["games"] == 0
    # COMP 6.18: both absent, both lose; the international set's 2-0 is a win
    assert (got["D"]["losses"], got["E"]["losses"], got["D"]["points"]) == (1, 1, 0)
    assert got["F"]["points"] == 2 and got["F"]["wins"] == 1


def test_direct_encounter_applies_only_when_every_tied_player_met() -> None:
    # A, B, C on 2 points each; A-B met, C met neither: the criterion cannot tell them apart
    rows = [row("1", "1", "A", "B", "1/2-1/2"), row("1", "2", "C", "X", "1-0"),
            row("2", "1", "A", "Y", "1/2-1/2"), row("2", "2", "B", "Z", "1/2-1/2")]
    got = by_name(standings(rows, Scoring(tie_break=("direct-encounter",))))
    assert {got[n]["tie_breaks"]["direct-encounter"] for n in "ABC"} == {None}
    assert all(got[n]["tied"] for n in "ABC")


NAMES = st.sampled_from(["Anna", "Bruno", "Carla", "Dario", "Elena", "Fabio", "?"])
RESULTS = st.sampled_from(["1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*"])


@st.composite
def events(draw: st.DrawFn) -> tuple[list[dict[str, str]], Scoring]:
    rows = []
    for rnd in range(1, draw(st.integers(1, 5)) + 1):
        for board in range(1, draw(st.integers(0, 3)) + 1):
            rows.append(row(str(rnd), str(board), draw(NAMES), draw(NAMES), draw(RESULTS)))
    half = Fraction(draw(st.integers(1, 4)), 2)  # the draw's points
    loss = Fraction(draw(st.integers(0, int(half * 2))), 2)
    win = 2 * half - loss if draw(st.booleans()) else half + draw(st.integers(1, 3))
    order = tuple(draw(st.permutations(TIE_BREAKS))[:draw(st.integers(0, len(TIE_BREAKS)))])
    return rows, Scoring(win, half, loss, order)


def _counted(r: dict[str, str]) -> bool:
    return outcome(r["result"]) is not None and "?" not in (r["white"], r["black"]) \
        and r["white"] != r["black"]


@settings(max_examples=300, deadline=None)
@given(events())
def test_the_points_are_the_games_points_and_the_ranks_a_permutation(
        event: tuple[list[dict[str, str]], Scoring]) -> None:
    rows, scoring = event
    table = standings(rows, scoring)
    games = [r for r in rows if _counted(r)]
    kinds = [outcome(r["result"]) for r in games]
    total = sum(Fraction(p["points"]) for p in table)
    # every game gives its two players their points (COMP 6.14), nobody else
    assert total == sum(scoring.draw * 2 if k == "draw" else scoring.loss * 2 if k == "none"
                        else scoring.win + scoring.loss for k in kinds)
    if scoring.win + scoring.loss == 2 * scoring.draw and "none" not in kinds:
        assert total == len(games) * (scoring.win + scoring.loss)  # points per game, always
    assert sum(p["games"] for p in table) == 2 * len(games)
    assert all(p["games"] == p["wins"] + p["draws"] + p["losses"] for p in table)
    # ranks: 1..n, in the order of points then each tie-break (a missing value last)
    assert [p["rank"] for p in table] == list(range(1, len(table) + 1))
    assert {p["name"] for p in table} == \
        {n for r in rows for n in (r["white"], r["black"])} - {"?"}

    def key(p: dict[str, Any]) -> tuple[float, ...]:
        return (p["points"], *(float("-inf") if p["tie_breaks"][t] is None
                               else p["tie_breaks"][t] for t in scoring.tie_break))
    keys = [key(p) for p in table]
    assert keys == sorted(keys, reverse=True)
    for i, p in enumerate(table):  # tied: equal on all of them to a neighbour
        assert p["tied"] == (keys[i] in keys[max(0, i - 1):i] + keys[i + 1:i + 2])


@pytest.mark.parametrize("text, points", [("2-1-0", (2, 1, 0)), ("1-½-0", (1, 0.5, 0)),
                                          ("1 - 0.5 - 0", (1, 0.5, 0)), ("3-1-0", (3, 1, 0)),
                                          ("1-0,5-0", (1, 0.5, 0))])
def test_points_as_an_organiser_writes_them(text: str, points: tuple[float, ...]) -> None:
    assert tuple(float(p) for p in parse_points(text)) == points


def test_the_default_is_comp_6_14_and_6_21() -> None:
    assert parse_hub_config("").standings == DEFAULT_SCORING
    assert DEFAULT_SCORING.points_text == "2-1-0"
    assert DEFAULT_SCORING.tie_break == ("buchholz", "sonneborn-berger")
    cfg = parse_hub_config('[standings]\npoints = "1-½-0"\n'
                           'tie_break = ["direct-encounter", "wins"]\n')
    assert cfg.standings.points_text == "1-½-0"
    assert cfg.standings.tie_break == ("direct-encounter", "wins")


def test_hub_init_writes_the_standings_block_commented_as_the_default(tmp_path: Any) -> None:
    text = hub_toml_text(make_hall(2, tmp_path / "hall"))
    block = [ln for ln in text.splitlines()
             if ln.startswith(("# [standings]", "# points", "# tie_break"))]
    assert len(block) == 3
    uncommented = text.replace("\n".join(block), "\n".join(ln[2:] for ln in block))
    assert parse_hub_config(uncommented).standings == DEFAULT_SCORING


@pytest.mark.parametrize("toml, key, words", [
    ('[standings]\npoints = "2-1"\n', "standings.points", "win-draw-loss"),
    ('[standings]\npoints = "0-1-2"\n', "standings.points", "more than a loss"),
    ('[standings]\npoints = "1-1-1"\n', "standings.points", "more than a loss"),
    ('[standings]\npoints = 2\n', "standings.points", "a string"),
    ('[standings]\ntie_break = ["bucholz"]\n', "standings.tie_break", "unknown tie-break"),
    ('[standings]\ntie_break = "buchholz"\n', "standings.tie_break", "a list"),
    ('[standings]\ntie_break = ["wins", "wins"]\n', "standings.tie_break", "twice"),
    ('[standings]\nscoring = "2-1-0"\n', "standings.scoring", "unknown key"),
    ('standings = "2-1-0"\n', "standings", "a table"),
])
def test_a_bad_standings_value_is_one_line_naming_file_and_key(toml: str, key: str,
                                                               words: str) -> None:
    with pytest.raises(ConfigError) as e:
        parse_hub_config(toml, "hall/hub.toml")
    text = str(e.value)
    assert text.startswith(f"hall/hub.toml: {key}: ") and words in text, text
    assert "\n" not in text


def test_the_organisers_guide_block_is_what_the_hub_reads() -> None:
    """docs/organiser.md, "Standings and the event's PDN": its ``[standings]`` block, read as
    written, is the default it says it is."""
    from tests.doc_blocks import ROOT, blocks
    found = [b for b in blocks(ROOT / "docs" / "organiser.md")
             if b.heading == "### Standings and the event's PDN" and b.info == "toml"]
    assert len(found) == 1 and found[0].lines[0] == "[standings]"
    text = "\n".join(found[0].lines)
    assert parse_hub_config(text).standings == DEFAULT_SCORING
    with pytest.raises(ConfigError):  # read, not skipped: a wrong value in it is refused
        parse_hub_config(text.replace('"2-1-0"', '"0-1-2"'))
