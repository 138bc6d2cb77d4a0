"""Property tests (hypothesis) of the rules core: push/pop restores the board, FEN round-trips,
piece counts add up after every legal move, notation reads back to the same move."""

from hypothesis import given, settings, strategies as st

from engine.board import Board
from engine.colour import BLACK, WHITE
from engine.variants import VARIANTS

variants = st.sampled_from(sorted(VARIANTS))


@st.composite
def random_games(draw: st.DrawFn) -> tuple[Board, list[int]]:
    """A board after a random legal game of up to 80 plies, and the choices made."""
    b = Board(variant=draw(variants))
    choices = []
    for _ in range(draw(st.integers(0, 80))):
        moves = b.legal_moves
        if not moves:
            break
        i = draw(st.integers(0, len(moves) - 1))
        choices.append(i)
        b.push(moves[i])
    return b, choices


@settings(max_examples=60, deadline=None)
@given(random_games())
def test_push_pop_restores_the_board(game: tuple[Board, list[int]]) -> None:
    b, _ = game
    fen = b.fen()
    for m in b.legal_moves:
        b.push(m)
        b.pop()
        assert b.fen() == fen
    history = []
    while b.move_stack:
        history.append(b.fen())
        b.pop()
    assert b.fen() == Board(variant=b.variant).fen()


@settings(max_examples=60, deadline=None)
@given(random_games())
def test_fen_round_trip(game: tuple[Board, list[int]]) -> None:
    b, _ = game
    again = Board(b.fen(), b.variant)
    assert again.position_key() == b.position_key()
    assert Board(b.fen(algebraic=True), b.variant).position_key() == b.position_key()


@settings(max_examples=60, deadline=None)
@given(random_games())
def test_piece_counts_add_up(game: tuple[Board, list[int]]) -> None:
    b, _ = game
    (wk, wm), (bk, bm) = b.material()
    for m in b.legal_moves:
        b.push(m)
        (wk2, wm2), (bk2, bm2) = b.material()
        mover_before = (wk + wm, bk + bm)[1 - b.turn]
        mover_after = (wk2 + wm2, bk2 + bm2)[1 - b.turn]
        other_before = (wk + wm, bk + bm)[b.turn]
        other_after = (wk2 + wm2, bk2 + bm2)[b.turn]
        assert mover_after == mover_before
        assert other_after == other_before - len(m.captures)
        assert (b.white & b.black) == 0
        b.pop()


@settings(max_examples=60, deadline=None)
@given(random_games())
def test_notation_reads_back(game: tuple[Board, list[int]]) -> None:
    b, _ = game
    moves = b.legal_moves
    for m in moves:
        text = b.notation(m)
        assert b.parse_move(text) == m
        shared = sum(1 for o in moves if (o.from_square, o.to_square) == (m.from_square, m.to_square))
        assert (len(text.split("x")) > 2) == (m.is_capture and shared > 1 and len(m.path) > 2)


@settings(max_examples=40, deadline=None)
@given(random_games())
def test_count_matches_generation(game: tuple[Board, list[int]]) -> None:
    b, _ = game
    assert b.count_legal_moves() == len(b.legal_moves) == b.perft(1)


@st.composite
def random_positions(draw: st.DrawFn) -> Board:
    """Any placement of men and kings (blocked positions included: a man against the edge or
    behind another, which random games seldom reach), either side to move; a man drawn on the
    row where it would be crowned stands there as a king (IT 4.2)."""
    variant = VARIANTS[draw(variants)]
    g = variant.geometry
    limit = variant.men_rows * variant.size // 2
    squares = draw(st.permutations(range(1, g.count + 1)))
    n_white = draw(st.integers(0, limit))
    n_black = draw(st.integers(0 if n_white else 1, limit))
    sides = {"W": squares[:n_white], "B": squares[n_white:n_white + n_black]}
    parts = []
    for tag, colour in (("W", WHITE), ("B", BLACK)):
        pieces = []
        for n in sides[tag]:
            crowned = g.promotion_row[colour] >> g.bit_of[n] & 1
            pieces.append(("K" if crowned or draw(st.booleans()) else "") + str(n))
        parts.append(tag + ",".join(pieces))
    return Board(f"{draw(st.sampled_from('WB'))}:{parts[0]}:{parts[1]}", variant.name)


@settings(max_examples=300, deadline=None)
@given(random_positions())
def test_has_legal_moves_is_whether_the_list_is_empty(board: Board) -> None:
    """IT 9.2.2 / INT 7.2.2: the side without a legal move has lost; ``has_legal_moves`` answers
    without building the list, and the same once the list is made."""
    fen = board.fen()
    assert Board(fen, board.variant.name).has_legal_moves() == bool(board.legal_moves)
    assert board.has_legal_moves() == bool(board.legal_moves)
