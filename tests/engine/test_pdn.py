"""PDN 3.0 read and write (engine.pdn): tags, GameType, FEN, clock comments, /FEN/ setups,
annotation signs (IT 13), result sets, interoperability with pydraughts."""

import random

import draughts
import pytest
from draughts.PDN import PDNReader
from hypothesis import given, settings, strategies as st

from engine.errors import PdnError
from engine.game import Game
from engine.pdn import parse_pdn_text, read_pdn, write_pdn
from engine.variants import VARIANTS

PYDRAUGHTS_NAME = {"italian": "italian", "english": "english", "international": "standard",
                   "brazilian": "brazilian"}


def random_game(variant: str, seed: int, plies: int = 60, clock: bool = False) -> Game:
    rng = random.Random(seed)
    g = Game(variant, tags={"Event": "test", "White": "A, B", "Black": "C, D"},
             time_control="1800+10" if clock else None)
    w = b = 1800.0
    while not g.is_over and g.ply < plies:
        spent = rng.randint(1, 300) / 10
        if g.turn == 0:
            w -= spent
        else:
            b -= spent
        g.play(rng.choice(g.legal_moves()), t=float(g.ply), clock=(w, b) if clock else None)
    return g


def test_seven_tags_and_game_type() -> None:
    for name, v in VARIANTS.items():
        text = write_pdn(Game(name))
        for tag in ("Event", "Site", "Date", "Round", "White", "Black", "Result"):
            assert f"[{tag} " in text
        assert f'[GameType "{v.game_type}"]' in text


def test_game_type_strings() -> None:
    assert VARIANTS["international"].game_type == "20,W,10,10,N2,0"
    assert VARIANTS["english"].game_type == "21,B,8,8,N1,0"
    assert VARIANTS["italian"].game_type == "22,W,8,8,N2,1"
    assert VARIANTS["brazilian"].game_type == "26,W,8,8,A0,0"


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_round_trip_with_clock_comments(variant: str) -> None:
    g = random_game(variant, seed=3, clock=True)
    text = write_pdn(g)
    assert "[%clock " in text and '[TimeControl "1800+10"]' in text and "[WhiteTime " in text
    again = read_pdn(text)[0]
    assert [m.move for m in again.moves] == [m.move for m in g.moves]
    assert write_pdn(again) == text


@pytest.mark.parametrize("variant", ["italian", "english", "international", "brazilian"])
def test_pydraughts_reads_our_pdn(variant: str) -> None:
    # Files written by us are read by other PDN software: pydraughts replays every move.
    g = random_game(variant, seed=11, plies=40, clock=True)
    text = write_pdn(g)
    game = PDNReader(pdn_text=text).games[0]
    assert game.variant == PYDRAUGHTS_NAME[variant]
    assert len(game.moves) == len(g.moves)
    board = draughts.Board(variant=PYDRAUGHTS_NAME[variant])
    for mv in game.moves:
        board.push(draughts.Move(board, pdn_move=mv))
    assert len(board.move_stack) == len(g.moves)


def test_international_result_set() -> None:
    g = Game("international")
    g.resign(1)
    assert g.result == "2-0" and write_pdn(g).rstrip().endswith("2-0")
    assert read_pdn(write_pdn(g))[0].result == "2-0"
    g = Game("italian")
    g.agree_draw()
    assert g.result == "1/2-1/2"


def test_fen_tag_and_setup_command() -> None:
    g = Game("italian", fen="W:W21,22:B5,K9")
    g.play_notation("22-18")
    g.set_position("W:W18,21:B9")  # a maintained irregularity: the game goes on from here
    g.play_notation("18-13")
    text = write_pdn(g)
    assert '[SetUp "1"]' in text and '[FEN "W:W21,22:B5,K9"]' in text
    assert '22-18 /FEN "W:W18,21:B9"/' in text
    again = read_pdn(text)[0]
    assert again.board.fen() == g.board.fen()


def test_brazilian_fen_and_moves_are_algebraic() -> None:
    g = Game("brazilian", fen="W:W21,22:B9")
    text = write_pdn(g)
    assert '[FEN "W:Wa3,c3:Bb6"]' in text
    g.play_notation("c3-d4")
    assert "c3-d4" in write_pdn(g)
    assert read_pdn(write_pdn(g))[0].board.fen() == g.board.fen()


def test_reading_comments_variations_nags_and_signs() -> None:
    text = """[Event "x"]
[GameType "22,W,8,8,N2,1"]

1. 22-18! {a good start} (1. 21-17 10-13) 10-13?! $1 2. 18-14 ; line comment
11x18 3. 21x14 *"""
    [g] = read_pdn(text)
    assert [m.notation for m in g.moves] == ["22-18", "10-13", "18-14", "11x18", "21x14"]
    assert g.moves[0].nag == "!" and g.moves[0].comment == "a good start"
    assert g.moves[1].nag == "?!"
    assert "22-18! {a good start}" in write_pdn(g)


def test_several_games() -> None:
    one = write_pdn(random_game("italian", 1, 10))
    two = write_pdn(random_game("international", 2, 10))
    games = read_pdn(one + "\n" + two)
    assert [g.variant.name for g in games] == ["italian", "international"]


@pytest.mark.parametrize("text,fragment", [
    ('[GameType "22,W,8,8,N2,1"]\n1. 22-17 *', "move 1 (22-17)"),
    ('[GameType "99"]\n1. 22-18 *', "GameType 99"),
    ('[GameType "22,W,8,8,N2,1"]\n[FEN "X:W1"]\n*', "side to move"),
    ('[GameType "22,W,8,8,N2,1"]\n1. 22-18 ( 10-13 *', "unclosed"),
    ('[GameType "22,W,8,8,N2,1"]\n1. 22-18 @ *', "cannot read"),
])
def test_bad_pdn_is_one_clear_error(text: str, fragment: str) -> None:
    with pytest.raises(PdnError) as exc:
        read_pdn(text)
    assert fragment in str(exc.value) and "\n" not in str(exc.value)


def test_no_game_type_needs_a_variant() -> None:
    with pytest.raises(PdnError):
        read_pdn("1. 22-18 *")
    assert read_pdn("1. 22-18 *", "italian")[0].moves[0].notation == "22-18"


def test_english_numbering_starts_with_black() -> None:
    g = Game("english")
    g.play_notation("11-15")
    g.play_notation("23-19")
    assert "1. 11-15 23-19" in write_pdn(g)


def test_black_to_move_from_a_fen_is_numbered_with_ellipsis() -> None:
    g = Game("italian", fen="B:W21,22:B5,9")
    g.play_notation("9-13")
    assert "1... 9-13" in write_pdn(g)
    assert read_pdn(write_pdn(g))[0].board.fen() == g.board.fen()


def test_parse_keeps_setup_items() -> None:
    [g] = parse_pdn_text('1. 22-18 /FEN "B:W18:B1"/ *')
    assert g.items[1] == ("setup", "B:W18:B1")


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(VARIANTS)), st.integers(0, 10_000), st.booleans())
def test_pdn_round_trip_property(variant: str, seed: int, clock: bool) -> None:
    g = random_game(variant, seed, plies=50, clock=clock)
    again = read_pdn(write_pdn(g))[0]
    assert again.board.position_key() == g.board.position_key()
    assert [m.notation for m in again.moves] == [m.notation for m in g.moves]
    assert again.result == g.result


def test_clk_command_is_read_and_not_kept_as_comment() -> None:
    [g] = read_pdn('[GameType "22,W,8,8,N2,1"]\n1. 22-18 {[%clk w0:00:10 B0:00:03] fast} *')
    assert g.moves[0].clock == (10.0, 3.0) and g.moves[0].comment == "fast"


def test_the_start_line_names_the_record() -> None:
    # issue 16: Site and Date were written "?" and "????.??.??" although the start line has
    # site and started_at; the board's number was lost
    from engine.replay import Replay
    start = {"type": "start", "variant": "italian", "event": "Campionato", "site": "Napoli",
             "round": "3", "white": "Rossi", "black": "Bianchi", "board": 7,
             "started_at": "2026-11-22T05:12:30.000+00:00", "id": "g1"}
    text = Replay(start).finish().pdn()
    head = text.split("\n\n")[0].splitlines()
    assert head[:7] == ['[Event "Campionato"]', '[Site "Napoli"]', '[Date "2026.11.22"]',
                       '[Round "3"]', '[White "Rossi"]', '[Black "Bianchi"]', '[Result "*"]']
    assert '[Board "7"]' in head
    assert read_pdn(text)[0].tags["Board"] == "7"


@pytest.mark.parametrize("start,tags", [
    ({"date": "2026-01-02", "started_at": "2026-11-22T05:12:30Z"}, {"Date": "2026.01.02"}),
    ({"started_at": "not a time"}, {}),
    ({"round": 3, "board": 12}, {"Round": "3", "Board": "12"}),
    ({"white": "  ", "black": None, "event": True}, {}),
])
def test_record_tags_of_a_start_line(start: dict[str, object], tags: dict[str, str]) -> None:
    from engine.pdn import record_tags
    assert record_tags(start) == tags


def test_record_tags_round_of_the_hall_feeds() -> None:
    from engine.pdn import record_tags
    assert record_tags({"round": "2", "board": "5"}, board_in_round=True)["Round"] == "2.5"
    assert record_tags({"board": "5"}, board_in_round=True)["Round"] == "?.5"


def test_a_kept_irregular_move_is_written_so_that_nobody_takes_it_for_a_legal_one() -> None:
    # issue 16: a man moved straight ahead while a capture was due (IT 8.1.2, IT 8.1.6), kept:
    # written with its clock, the comment naming what it broke, then the position (/FEN/)
    from pathlib import Path

    from engine.replay import replay_lines
    trace = (Path(__file__).resolve().parents[1] / "traces" / "italian" /
             "i16_straight_ahead_while_capture_due_8_1_2.jsonl")
    text = replay_lines(trace.read_text(encoding="utf-8").splitlines()).pdn()
    flat = " ".join(text.split())
    assert ('1. 22-14 {[%clock w0:09:58 B0:10:00]} {irregular move: IT 8.1.2, IT 8.1.6} '
            '/FEN "B:W14,31:B3,18"/ 3-7') in flat
    again = read_pdn(text)[0]
    assert again.moves[0].comment == "irregular move: IT 8.1.2, IT 8.1.6"
    assert write_pdn(again) == text  # read back and written the same
    # other programs still read the game: the comment is skipped (pydraughts knows no /FEN/
    # setup: it takes it for a move after the kept one, as before the comment)
    game = PDNReader(pdn_text=text).games[0]
    assert game.moves[0] == "22-14"
