"""Real PDN archives, read whole (issue 8): the files of ``tests/corpus/pdn/<variant>/``, written
by ``tests/corpus/pdn/build.py`` in the forms federations', clubs' and other programs' archives
use, in all four variants. The expectations (moves in full path, signs, tags, comments) were
computed by the builder from the rules, not from the reader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import PdnError
from engine.pdn import read_pdn, write_pdn
from engine.variants import VARIANTS

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "pdn"
# (the championship's archive has games to leave out and no GameType: read below)
READABLE = sorted(p for p in CORPUS.glob("*/*.pdn")
                  if p.with_suffix(".expected.json").exists() and p.stem != "championship")
CHAMPIONSHIP = CORPUS / "italian" / "championship.pdn"


def test_every_variant_has_every_form() -> None:
    for name in VARIANTS:
        stems = {p.stem for p in (CORPUS / name).glob("*.pdn")}
        assert stems - {"championship"} == {"archive_forms", "short_capture",
                                            "short_capture_several", "short_capture_none"}, name
    assert CHAMPIONSHIP.exists()


@pytest.mark.parametrize("path", READABLE, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_archive_is_read_whole(path: Path) -> None:
    expected = json.loads(path.with_suffix(".expected.json").read_text(encoding="utf-8"))
    games = read_pdn(path.read_text(encoding="utf-8"))
    assert len(games) == len(expected["games"])
    for game, want in zip(games, expected["games"], strict=True):
        assert game.variant.name == path.parent.name
        assert [m.move.notation(True) for m in game.moves] == want["moves"]
        assert {str(m.ply): m.nag for m in game.moves if m.nag} == want["nags"]
        assert {str(m.ply): m.comment for m in game.moves if m.comment} == want["comment_of"]
        for tag, value in want["tags"].items():
            assert game.tags.get(tag) == value, tag
        assert game.result == want["result"]
        # what is read is written back in standard PDN, which reads again to the same moves
        [again] = read_pdn(write_pdn(game))
        assert [m.move.key for m in again.moves] == [m.move.key for m in game.moves]


def test_italian_tag_names_are_written_as_the_standard_seven() -> None:
    [game, *_] = read_pdn((CORPUS / "italian" / "archive_forms.pdn").read_text(encoding="utf-8"))
    text = write_pdn(game)
    assert '[White "Rossi, M."]' in text and '[Site "Napoli"]' in text
    assert "Bianco" not in text and "Luogo" not in text and "[%eval" not in text


def test_standard_tag_wins_over_its_italian_name() -> None:
    [game] = read_pdn('[GameType "22"]\n[White "A"]\n[Bianco "B"]\n\n1. 22-18 *\n')
    assert game.tags["White"] == "A" and "Bianco" not in game.tags


@pytest.mark.parametrize("variant", list(VARIANTS))
@pytest.mark.parametrize("stem,says", [("short_capture_several", "does not tell which"),
                                        ("short_capture_none", "replays from none of them")])
def test_short_capture_that_the_game_cannot_decide_is_refused(variant: str, stem: str,
                                                              says: str) -> None:
    with pytest.raises(PdnError) as info:
        read_pdn((CORPUS / variant / f"{stem}.pdn").read_text(encoding="utf-8"))
    message = str(info.value)
    assert message.startswith("PDN game 1, move 1 (") and says in message


def test_short_capture_in_a_later_game_names_that_game() -> None:
    text = (CORPUS / "italian" / "short_capture_several.pdn").read_text(encoding="utf-8")
    ok = '[GameType "22"]\n\n1. 22-18 *\n\n'
    with pytest.raises(PdnError, match=r"^PDN game 2, move 1 "):
        read_pdn(ok + text)


@pytest.mark.parametrize("variant_tag,error", [
    ("Frisian", "not a variant damiera plays"), ("italian", "GameType 20 is international"),
])
def test_variant_tag_beside_gametype(variant_tag: str, error: str) -> None:
    with pytest.raises(PdnError, match=error):
        read_pdn(f'[GameType "20"]\n[Variant "{variant_tag}"]\n\n1. 32-28 *\n')


@pytest.mark.parametrize("game_type", ["22,W,10,10,N2,1", "20,W,8,8,N2,0", "21,B,12,12,N1,0"])
def test_gametype_board_must_be_the_variants(game_type: str) -> None:
    with pytest.raises(PdnError, match="^PDN game 1: GameType .* played on"):
        read_pdn(f'[GameType "{game_type}"]\n\n*\n')


def test_variant_tag_that_agrees_or_stands_alone() -> None:
    [g1] = read_pdn('[GameType "20"]\n[Variant "Standard"]\n\n1. 32-28 *\n')
    [g2] = read_pdn('[Variant "Italian"]\n\n1. 22-18 *\n')
    assert (g1.variant.name, g2.variant.name) == ("international", "italian")


@pytest.mark.parametrize("text,nags", [
    ("1. 22-18 (!) 10-14 (?!) *", ["!", "?!"]), ("1. 22-18 ( ! ) 10-14 ?! *", ["!", "?!"]),
    ("1. 22-18!! 10-14?? *", ["!!", "??"]), ("1. 22-18 !? {a comment} 10-14 (?) *", ["!?", "?"]),
])
def test_signs_after_a_move_in_any_spacing(text: str, nags: list[str]) -> None:
    [game] = read_pdn(text, "italian")
    assert [m.nag for m in game.moves] == nags


def test_variation_in_parentheses_is_still_skipped() -> None:
    [game] = read_pdn("1. 22-18 (1. 21-17 10-14) 10-14 *", "italian")
    assert [m.notation for m in game.moves] == ["22-18", "10-14"]


def test_a_tag_inside_a_variation_is_skipped_whole() -> None:
    [game] = read_pdn('1. 22-18 ([Note "a (b) 1-0 {c"] 21-17) 10-14 *', "italian")
    assert [m.notation for m in game.moves] == ["22-18", "10-14"]


def test_an_undecided_game_is_handed_over_and_the_others_are_read() -> None:
    # issue 16: one game's short capture that the rest of it cannot decide lost a whole archive
    from engine.errors import UndecidedCaptureError
    from engine.pdn import iter_pdn
    ok = '[GameType "22"]\n\n1. 22-18 *\n\n'
    undecided = (CORPUS / "italian" / "short_capture_several.pdn").read_text(encoding="utf-8")
    left_out: list[UndecidedCaptureError] = []
    games = list(iter_pdn(ok + undecided + "\n" + ok, on_undecided=left_out.append))
    assert len(games) == 2 and [str(e)[:26] for e in left_out] == ["PDN game 2, move 1 (25x2):"]
    with pytest.raises(UndecidedCaptureError):
        list(iter_pdn(ok + undecided))


def test_errors_name_the_move_as_the_pdn_numbers_it() -> None:
    # a move is a pair of plies: Black's first move is "move 1...", not "move 2"
    with pytest.raises(PdnError, match=r"^PDN game 1, move 1\.\.\. \(12-13\)"):
        read_pdn('[GameType "22"]\n\n1. 22-18 12-13 *\n')
    with pytest.raises(PdnError, match=r"^PDN game 1, move 2 \(21-13\)"):
        read_pdn('[GameType "22"]\n\n1. 22-18 12-16 2. 21-13 *\n')


def test_championship_archive_reads_every_game_its_rest_decides() -> None:
    # issue 35: an Italian championship's archive (Italian tags, no GameType, CRLF, every
    # capture by its start and end squares): a short capture with two readings is the one the
    # rest of the game replays from — told apart two plies later (game 2), or by the position a
    # kept irregular move left (game 3, /FEN); the game whose rest fits both (4) is handed
    # over, and the games after it are read all the same
    from engine.errors import UndecidedCaptureError
    from engine.pdn import iter_pdn
    expected = json.loads(CHAMPIONSHIP.with_suffix(".expected.json").read_text(encoding="utf-8"))
    text = CHAMPIONSHIP.read_bytes().decode("utf-8")
    assert "\r\n" in text and "GameType" not in text
    left_out: list[UndecidedCaptureError] = []
    games = list(iter_pdn(text, "italian", on_undecided=left_out.append))
    assert len(games) == len(expected["games"]) == 4
    for game, want in zip(games, expected["games"], strict=True):
        assert [m.move.notation(True) for m in game.moves] == want["moves"]
        assert game.result == want["result"]
        assert game.tags["Event"] == "Campionato Italiano Assoluto"
    [gone] = expected["left_out"]
    assert [str(e).split(":")[0] for e in left_out] == [
        f"PDN game {gone['game']}, move {gone['move']} ({gone['written']})"]
    assert all(r in str(left_out[0]) for r in gone["readings"])
    assert "does not tell which" in str(left_out[0])


def test_a_kept_irregular_move_after_a_short_capture_tells_its_readings_apart() -> None:
    # 25x2 takes 21, 13, 5 or 21, 14, 6; 4-7 fits both; White's 27-18 is no move of the rules
    # (IT 8.1.2), kept: the /FEN shows 6 and 14 on the board, so the first reading took 5 and 13
    head = '[GameType "22"]\n[SetUp "1"]\n[FEN "W:W20,25,K27,31:B1,4-6,13,14,17,21,24,26"]\n\n'
    [game] = read_pdn(head + '1. 25x2 4-7 2. 27-18 {irregular move: IT 8.1.2} '
                             '/FEN "B:WK2,20,K18,31:B1,6,7,14,17,24,26"/ 7-11 *\n')
    assert [m.move.notation(True) for m in game.moves] == ["25x18x9x2", "4-7", "27-18", "7-11"]
    # a /FEN that neither reading can have left (a black piece where both had captured): none
    with pytest.raises(PdnError, match="replays from none of them"):
        read_pdn(head + '1. 25x2 4-7 2. 27-18 {irregular move: IT 8.1.2} '
                        '/FEN "B:WK2,20,K18,31:B1,6,7,14,17,21,24,26"/ 7-11 *\n')
    # a /FEN both can have left (the pieces either took are gone): the rest does not tell
    with pytest.raises(PdnError, match="does not tell which"):
        read_pdn(head + '1. 25x2 4-7 2. 27-18 {irregular move: IT 8.1.2} '
                        '/FEN "B:WK2,20,K18,31:B1,7,17,24,26"/ 7-11 *\n')
