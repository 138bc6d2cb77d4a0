"""One test per capture rule and variant (SPEC §3). Squares in official numbers; each position
worked out by hand on the variant's numbering (SPEC §1)."""

import gc

import pytest

from engine.board import Board


def notations(fen: str, variant: str) -> set[str]:
    b = Board(fen, variant)
    return {b.notation(m) for m in b.legal_moves}


# --- Italian: the examples of issue 2 -------------------------------------------------------

@pytest.mark.parametrize("fen,expected", [
    ("W:W30:B27", {"30x23"}),                                # IT 6.1 capture compulsory
    ("W:WK21,31:B10,18,27", {"31x6"}),                       # IT 6.6 the most pieces
    ("W:WK23,31:B19,26,27", {"23x21"}),                      # IT 6.7 with the king
    ("W:WK23:B19,K28", {"23x32"}),                           # IT 6.8 the most kings
    ("W:WK30:B10,12,18,K20,K26,27", {"30x5"}),               # IT 6.9 king met earliest
    ("W:WK31:B18,20,K27,K28", {"31x13", "31x15"}),           # IT 6.10 free choice
    ("W:W30:BK26", {"30-27"}),                               # IT 5.3 a man does not take a king
])
def test_italian_priorities(fen: str, expected: set[str]) -> None:
    assert notations(fen, "italian") == expected


def test_italian_6_9_captured_order_kept() -> None:
    m = Board("W:WK30:B10,12,18,K20,K26,27", "italian").legal_moves[0]
    assert m.path == (30, 21, 14, 5) and m.captures == (26, 18, 10)


def test_italian_man_stops_on_far_row() -> None:
    # IT 6.5: c6 (10) takes d7 (6), reaches e8 (3) and stops although f7 (7) stands en prise
    b = Board("W:W10:B6,7", "italian")
    assert notations("W:W10:B6,7", "italian") == {"10x3"}
    b.push(b.legal_moves[0])
    assert b.piece_at(3) is not None and b.piece_at(3).king  # crowned (IT 4.2)


def test_italian_men_capture_forward_only() -> None:
    # IT 5.3: the man on 19 (e4) does not take the man behind it on 23 (f3)
    assert all("x" not in n for n in notations("W:W19:B23", "italian"))


def test_italian_king_moves_one_square() -> None:
    assert notations("W:WK32:B1", "italian") == {"32-28"}  # IT 4.7: h1 -> g2 only


# --- English -----------------------------------------------------------------------------

def test_english_men_capture_kings() -> None:
    # EN 5.3: c3 (22) takes the king on d4 (18), landing on e5 (15)
    assert notations("W:W22:BK18", "english") == {"22x15"}


def test_english_free_choice() -> None:
    # EN 6.6: 22x6 takes two (18, 10), 22x13 one (17): both are legal
    assert notations("W:W22:B10,17,18", "english") == {"22x6", "22x13"}


def test_english_men_capture_forward_only() -> None:
    assert notations("W:W18:B23", "english") == {"18-14", "18-15"}


def test_english_man_stops_on_far_row() -> None:
    # EN 6.5: f6 (11) takes e7 (7) to d8 (2) and stops; c7 (6) is not taken
    b = Board("W:W11:B6,7", "english")
    assert [(m.path, m.captures) for m in b.legal_moves] == [((11, 2), (7,))]


def test_english_black_moves_first() -> None:
    assert Board(variant="english").turn == 1


def test_english_capture_once_begun_is_completed() -> None:
    # EN 5.7: a capture goes on while it can: from c3 the man must continue to c7
    b = Board("W:W22:B10,18", "english")
    assert [(m.path, m.captures) for m in b.legal_moves] == [((22, 15, 6), (18, 10))]


# --- International -----------------------------------------------------------------------

def test_international_men_capture_backwards() -> None:
    # INT 4.2: e5 (28) takes f4 (33) backwards to g3 (39)
    assert notations("W:W28:B33", "international") == {"28x39"}


def test_international_flying_king_lands_anywhere_beyond() -> None:
    # INT 4.3, 4.6: a1 (46) takes e5 (28) and may stop on f6, g7, h8, i9 or j10
    assert notations("W:WK46:B28", "international") == {"46x23", "46x19", "46x14", "46x10", "46x5"}


def test_international_flying_king_moves() -> None:
    assert len(Board("W:WK46:B1", "international").legal_moves) == 9  # a1..j10 diagonal


def test_international_majority() -> None:
    # INT 4.13: 37x19 (32, 23), 37x39 (32, 33 backwards) and 38x18 (33, 23) take two;
    # 38x29 and 38x27 take one each and are not allowed
    assert notations("W:W37,38:B23,32,33", "international") == {"37x19", "37x39", "38x18"}


def test_international_king_has_no_priority() -> None:
    # INT 4.13-4.14: a king capture and a man capture of one piece each are both legal
    assert notations("W:WK46,38:B28,33", "international") >= {"38x29", "46x23"}


def test_international_man_passing_far_row_stays_a_man() -> None:
    # INT 4.15: d8 (12) takes e9 (8) to f10 (3), then g9 (9) to h8 (14): it ends a man
    b = Board("W:W12:B8,9", "international")
    [m] = b.legal_moves
    assert m.path == (12, 3, 14) and m.captures == (8, 9)
    b.push(m)
    assert b.piece_at(14) == (0, False)


def test_international_man_ending_on_far_row_is_crowned() -> None:
    b = Board("W:W12:B8", "international")
    b.push(b.parse_move("12x3"))
    assert b.piece_at(3) == (0, True)


def test_international_no_piece_jumped_twice() -> None:
    # INT 4.8: the king may not come back over a piece it has already jumped
    b = Board("W:WK46:B28", "international")
    for m in b.legal_moves:
        assert len(set(m.captures)) == len(m.captures)


def test_international_captured_pieces_block() -> None:
    # Turkish strike is forbidden: captured pieces stay until the move ends (INT 4.8)
    b = Board("W:WK5:B10,19,28,32", "international")
    for m in b.legal_moves:
        assert len(m.captures) <= 2 or len(set(m.captures)) == len(m.captures)


# --- Brazilian ---------------------------------------------------------------------------

def test_brazilian_man_passes_far_row_and_stays_a_man() -> None:
    # as INT 4.15 on 8x8: f6 (11) takes e7 to d8 (2), then c7 backwards to b6 (9)
    b = Board("W:W11:B6,7", "brazilian")
    [m] = b.legal_moves
    assert m.path == (11, 2, 9) and m.captures == (7, 6)
    b.push(m)
    assert b.piece_at(9) == (0, False)


def test_brazilian_flying_king() -> None:
    assert notations("W:WK29:B18", "brazilian") == {"a1xe5", "a1xf6", "a1xg7", "a1xh8"}


def test_brazilian_majority() -> None:
    assert {m.notation() for m in Board("W:W22:B10,17,18", "brazilian").legal_moves} == {"22x6"}


def test_brazilian_men_capture_backwards() -> None:
    assert {m.notation() for m in Board("W:W18:B23", "brazilian").legal_moves} == {"18x27"}


# --- one move, every capture order ---------------------------------------------------------

def test_same_start_end_and_set_is_one_move_with_every_order() -> None:
    # A man on e3 (38) takes the ring d4, d6, f6, f4 (32, 22, 23, 33) and comes back to e3, either
    # way round: one PDN move "38x38" with both capture orders kept (IT 5.12 / INT 4.11 removal
    # may follow the direct or reverse order of either).
    b = Board("W:W38:B22,23,32,33", "international")
    [m] = b.legal_moves
    assert m.from_square == m.to_square == 38 and set(m.captures) == {22, 23, 32, 33}
    assert set(m.alternatives) == {((38, 27, 18, 29, 38), (32, 22, 23, 33)),
                                   ((38, 29, 18, 27, 38), (33, 23, 22, 32))}
    b.push(m)
    assert b.fen() == "B:W38:B"


@pytest.mark.parametrize("fen,variant", [
    ("W:WK21,31:B10,18,27", "italian"),          # the short walk (men and Italian kings)
    ("W:WK46:B37,28,19", "international"),       # the flying king's walk
])
def test_generating_captures_leaves_no_garbage_for_the_collector(fen: str, variant: str) -> None:
    """The capture walks call themselves; a walk that kept a reference to itself would leave a
    cycle per position for the garbage collector (the hub generates moves on every board's
    every move: its collections' pauses are the hall page's latency)."""
    board = Board(fen, variant)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds unreachable, kept to be looked at
    try:
        for _ in range(20):
            assert board.legal_moves and board.legal_moves[0].captures
            board = Board(fen, variant)
        gc.collect()
        ours = [o for o in gc.garbage
                if getattr(o, "__module__", None) == "engine.board"
                or "_capture_raw" in getattr(o, "__qualname__", "")]
        assert ours == []  # (other threads of the process may leave garbage of their own)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
