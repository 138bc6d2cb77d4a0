"""PDN FEN reading and writing (engine.board.parse_fen / Board.fen)."""

import pytest

from engine.board import Board
from engine.errors import ImpossiblePositionError, InvalidFenError
from engine.variants import VARIANTS


@pytest.mark.parametrize("variant,fen", [
    ("italian", "W:W21-32:B1-12"), ("english", "B:W21-32:B1-12"),
    ("international", "W:W31-50:B1-20"), ("brazilian", "W:W21-32:B1-12"),
])
def test_initial_fen(variant: str, fen: str) -> None:
    assert Board(variant=variant).fen() == fen
    assert VARIANTS[variant].initial_fen() == fen


def test_kings_ranges_and_either_colour_first() -> None:
    a = Board("B:BK1,2-4:WK32,28", "italian")
    b = Board("B:WK32,28:B2,3,4,K1", "italian")
    assert a.position_key() == b.position_key()
    assert a.fen() == "B:W28,K32:BK1,2-4"


def test_algebraic_squares_and_lidraughts_fields() -> None:
    assert Board("W:Wa3,c3:Bb6", "brazilian").fen() == "W:W21,22:B9"
    assert Board("W:W31-50:B1-20:H0:F1", "international").fen() == "W:W31-50:B1-20"
    assert Board('"W:W21-32:B1-12."', "italian").fen() == "W:W21-32:B1-12"


def test_empty_side() -> None:
    assert Board("W:W22:B", "italian").fen() == "W:W22:B"


@pytest.mark.parametrize("fen,error", [
    ("", InvalidFenError),
    ("X:W21:B1", InvalidFenError),
    ("W:W21:Q1", InvalidFenError),
    ("W:W21,:B1", InvalidFenError),
    ("W:W33:B1", InvalidFenError),                   # no square 33 on 8x8
    ("W:Wa1:B1", InvalidFenError),                   # a1 is light in Italian
    ("W:W21-x:B1", InvalidFenError),
    ("W:W12-9:B1", InvalidFenError),                 # range backwards
    ("W:W21:W22", InvalidFenError),                  # a colour twice
    ("W:W21:B21", ImpossiblePositionError),          # one square, two pieces
    ("W:W1:B20", ImpossiblePositionError),           # a white man on its crowning row
    ("W:W20:B29", ImpossiblePositionError),          # a black man on its crowning row
    ("W:W13-32:B1", ImpossiblePositionError),        # 20 white pieces on 8x8
])
def test_bad_fens(fen: str, error: type) -> None:
    with pytest.raises(error) as exc:
        Board(fen, "italian")
    assert "\n" not in str(exc.value)


def test_kings_on_the_crowning_row_are_fine() -> None:
    assert Board("W:WK1:BK32", "italian").fen() == "W:WK1:BK32"


def test_diagram() -> None:
    text = str(Board("W:W22:BK9", "italian"))
    assert text.splitlines()[2].split()[0] == "k"  # a6 holds the black king (square 9)
