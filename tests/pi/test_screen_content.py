"""What the screen shows (``pi.board.screen.ScreenContent``, issue 39: the set-up's content left
the controller for an object beside the screen): the squares to put right named as the pages
name them (IT 2.4: a dark square by its number, a light one by its name), the board turned the
wrong way (IT 7.2), a wrong piece on a board that knows the pieces (IT 7.1), and what stands
over the message line. The same through the controller: ``test_controller.py``,
``test_piece_journal.py``, ``test_i18n_screen.py``."""

from __future__ import annotations

from engine.board import Board, Piece
from engine.squares import square_mirror
from engine.variants import find_variant
from pi.board.screen import ScreenContent, SetupView

ITALIAN = find_variant("italian")


def content() -> ScreenContent:
    return ScreenContent(ITALIAN, None)


def test_the_starting_position_lacks_nothing() -> None:
    c = content()
    assert c.expected == Board(None, ITALIAN).occupied_algebraic()
    assert c.compare(c.expected, ()) == SetupView()
    assert c.setup(SetupView(), "", None, None, "", "hall 1").message == "set up the pieces"


def test_a_square_to_fill_by_its_number_one_to_empty_by_its_name() -> None:
    # IT 2.4: b1 is a dark square (numbered), a1 a light one (named: a piece put on it, IT 7.5)
    c = content()
    view = c.compare((c.expected - {"b1"}) | {"a1"}, ())
    assert view == SetupView(missing=("b1",), extra=("a1",))
    number = ITALIAN.geometry.number_of_algebraic["b1"]
    assert c.setup(view, "", None, None, "", "").message == f"set up: +{number} -a1"


def test_the_board_turned_the_wrong_way() -> None:
    # IT 7.2: the pieces stand as the starting position mirrored
    c = content()
    mirrored = frozenset(square_mirror(s, ITALIAN.size) for s in c.expected)
    view = c.compare(mirrored, ())
    assert view.turned
    assert c.setup(view, "", None, None, "", "").message == "IT 7.2 board turned the wrong way"


def test_a_wrong_piece_on_a_board_that_knows_them() -> None:
    # IT 7.1: the right squares, a piece of another colour or crown
    c = content()
    names = ITALIAN.geometry.algebraic_of
    pieces = {names[n]: p for n, p in Board(None, ITALIAN).pieces().items()}
    assert c.wrong_pieces(pieces) == () and c.wrong_pieces(None) == ()
    pieces["b1"] = Piece(pieces["b1"].color, True)  # a king where a man stands
    wrong = c.wrong_pieces(pieces)
    assert wrong == ("b1",)
    number = ITALIAN.geometry.number_of_algebraic["b1"]
    assert c.setup(c.compare(c.expected, wrong), "", None, None, "", "").message == (
        f"IT 7.1 wrong piece: {number}")


def test_what_stands_over_the_message_line() -> None:
    c = content()
    failure = "game 7: game.pdn not written: No space left on device"
    shown = c.setup(SetupView(), "", failure, None, "", "hall 1")
    # the record not written takes the header from the hall's words
    assert shown.title == "record not written: No space left on device"
    # a sensor fault stands instead of "set up the pieces"; the start-up probe over everything
    assert c.setup(SetupView(), "", None, "0x21 silent", "", "").message == "0x21 silent"
    assert c.setup(SetupView(missing=("b1",)), "", None, "0x21 silent", "probe: 0x21 missing",
                   "").message == "probe: 0x21 missing"
