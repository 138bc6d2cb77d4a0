"""The scenarios of issue 40 (a board that knows which piece is where: colour and crown), read by
``build.py``: the same tuples as issue 8's. Each expectation comes from the article cited above
it, written before the arbiter ran the trace. ``P2=wm`` is a place that reads a white man,
``K2=wk`` the piece on 2 changed to a white king (a crown stacked on it), ``S:1=bm,...`` a
snapshot with the pieces (build.py).

Square numbers (official, SPEC §1). Italian: White moves up and is crowned on 1-4 (IT 4.2);
6 = d7 reaches 2 = c8; 30 = c1, 26 = d2. English: Black moves down first and is crowned on 29-32;
27 = e2 reaches 31 = d1 or 32 = b1. International: White is crowned on 1-5; the man on 11 taking
7 and 8 lands on 2 and ends on 13 (INT 4.15). Brazilian (international rules on 8×8, White
crowned on 1-4, notation algebraic): 9 taking 6 and 7 lands on 2 and ends on 11.
"""

from __future__ import annotations

from issue8_board import B, W, Scenario

from engine.board import Board


def snap_pieces(variant: str, fen: str | None = None, **wrong: str) -> str:
    """A snapshot token with every piece of the position (``fen``, default the initial one) and
    its code, the squares named in ``wrong`` (``s12="wm"``) reading that piece instead."""
    board = Board(fen, variant)
    codes = {n: ("w" if p.color == 0 else "b") + ("k" if p.king else "m")
             for n, p in board.pieces().items()}
    for key, code in wrong.items():
        codes[int(key[1:])] = code
    return "S:" + ",".join(f"{n}={code}" for n, code in sorted(codes.items()))


#: Italian: a white man one step from the crown row, another at home; Black's man far off.
IT_CROWN = {"fen": "W:W6,30:B20"}
#: Italian: a white king on 18 (c4 moves to 13, 14, 22, 23) and a man; Black's man on 1.
IT_KING = {"fen": "W:WK18,30:B1"}

ISSUE40: list[Scenario] = [
    # ------------------------------------------------------------------------------- Italian
    # IT 4.4: crowned as the man reaches the far row; the man on 2 is still a man (reads +1.0)
    # when Black's move is complete: late. Crowned on White's next turn it counts as touching
    # the king (IT 4.4 -> 3.7): moving another piece is IT 8.1.3; corrected, the king is played.
    ("italian", "i40_crown_late_4_4_then_bound_3_7", IT_CROWN,
     "L6 P2=wm Cw L20 P24=bm Cb K2=wk L30 P26=wm Cw correct:b L26 P30=wm L2 P6=wk Cw",
     ["6-2", "20-24", "2-6"],
     [["IT 4.4", "noted"], ["IT 4.4", "noted"], ["IT 8.1.3", "corrected"]], "*",
     {"fen": "B:WK6,30:B24",
      "flag_texts": ["the man made king on 2 was not crowned before the opponent moved "
                     "(reads +1.00)",
                     "crowned 2 late (reads +2.00): the king counts as touched",
                     "touched 2, moved 30"]}),
    # IT 4.4 kept in time: crowned before the press, nothing to say
    ("italian", "i40_crowned_in_time_4_4", IT_CROWN,
     "L6 P2=wm K2=wk@1.96 Cw L20 P24=bm Cb L2 P6=wk Cw",
     ["6-2", "20-24", "2-6"], [], "*", {"fen": "B:WK6,30:B24"}),
    # IT 4.3: the opponent may crown it as a courtesy before moving: in time as well
    ("italian", "i40_crowned_by_the_opponent_4_3", IT_CROWN,
     "L6 P2=wm Cw K2=wk L20 P24=bm Cb",
     ["6-2", "20-24"], [], "*", {}),
    # IT 4.5: the king's top man lifted off (a notice: the record still counts it a king);
    # moved so, IT 8.1.16; kept by Black, the transcript counts it a king (IT 4.5, 8.3)
    ("italian", "i40_unmarked_king_kept_8_1_16", IT_KING,
     "K18=wm@0.98 L18 P14=wm Cw accept:b L1 P5=bm Cb",
     ["18-14", "1-5"], [["IT 4.5", "noted"], ["IT 8.1.16", "maintained"]], "*",
     {"fen": "W:WK14,30:B5", "sides": [W, B],
      "flag_texts": ["the king on 18 lost its crown (reads +0.98)",
                     "moved the king 18-14 uncrowned: 14 reads +1.00, a white man"]}),
    # IT 8.1.16 corrected (IT 8.4): back on 18, the position is put right only once the crown
    # is on again (a notice until then); then the king is played (IT 3.7: it was touched)
    ("italian", "i40_unmarked_king_corrected_8_1_16", IT_KING,
     "L18 P14=wm Cw correct:b L14 P18=wm K18=wk L18 P14=wk Cw",
     ["18-14"], [["IT 8.1.16", "corrected"], ["IT 8.4", "corrected"]], "*",
     {"fen": "B:WK14,30:B1",
      "flag_texts": [None, "18: a white man where a white king stands (reads +1.00)"]}),
    # IT 8.1.17: White plays 30-26 and crowns the man on 6, which is no king. Corrected, the
    # move is taken back but the crown stays on 6: the position is not put right (IT 8.4)
    # until it comes off
    ("italian", "i40_wrong_crown_corrected_8_1_17", IT_CROWN,
     "L30 P26=wm K6=wk@2.05 Cw correct:b L26 P30=wm K6=wm L30 P26=wm Cw",
     ["30-26"], [["IT 8.1.17", "corrected"], ["IT 8.4", "corrected"]], "*",
     {"fen": "B:W6,26:B20",
      "flag_texts": ["crowned the man on 6, which is no king (reads 6 +2.05)",
                     "6: a white king where a white man stands (reads +2.05)"]}),
    # IT 8.1.17 kept (IT 8.3): the position on the board is the game, the man on 6 a king
    ("italian", "i40_wrong_crown_kept_8_1_17", IT_CROWN,
     "L30 P26=wm K6=wk Cw L20 P24=bm Cb",
     ["30-26", "20-24"], [["IT 8.1.17", "maintained"]], "*",
     {"fen": "W:WK6,26:B24", "pdn_contains": ["{irregular move: IT 8.1.17}"]}),
    # IT 7.1: a white man on 12 where a black man belongs, seen at set-up; put right, settled
    ("italian", "i40_setup_wrong_colour_7_1", {},
     snap_pieces("italian", s12="wm") + " " + snap_pieces("italian") + " L22 P18=wm Cw",
     ["22-18"], [["IT 7.1", "corrected"]], "*",
     {"flag_texts": ["12: a white man where a black man stands"]}),
    # IT 7.8: two men displaced (a disturbance), put back by hand with a black man on 23: the
    # position is put right only when 23 reads a white man again
    ("italian", "i40_wrong_colour_put_right_7_8", {},
     "L22 L23 P19 P18 Cw L19 L18 P22=wm P23=bm@-0.97 L23 P23=wm L22 P18=wm Cw",
     ["22-18"], [["IT 7.8", "corrected"], ["IT 7.8", "corrected"]], "*",
     {"flag_texts": [None, "23: a black man where a white man stands (reads -0.97)"]}),
    # an occupancy-only trace of the same game: nothing of the kind is seen
    ("italian", "i40_occupancy_only_sees_nothing", IT_KING,
     "L18 P14 Cw L1 P5 Cb", ["18-14", "1-5"], [], "*", {}),
    # ------------------------------------------------------------------------------- English
    # EN 4.5: Black (first) crowns late; EN 4.6 and EN 8.1.15 as IT 4.5 and 8.1.16
    ("english", "i40_crown_late_4_5", {"fen": "B:W5:B27"},
     "L27 P31=bm Cb L5 P1=wm Cw",
     ["27-31", "5-1"], [["EN 4.5", "noted"]], "*",
     {"flag_texts": ["31 was not crowned before the opponent moved (reads -1.00)"]}),
    ("english", "i40_unmarked_king_8_1_15", {"fen": "B:W5:BK18"},
     "K18=bm L18 P22=bm Cb correct:w L22 P18=bm K18=bk L18 P22=bk Cb",
     ["18-22"], [["EN 4.6", "noted"], ["EN 8.1.15", "corrected"], ["EN 8.4", "corrected"]], "*", {}),
    ("english", "i40_wrong_crown_8_1_16", {"fen": "B:W5:B9,27"},
     "L9 P13=bm K27=bk Cb accept:w",
     ["9-13"], [["EN 8.1.16", "maintained"]], "*", {"fen": "W:W5:B13,K27"}),
    # ------------------------------------------------------------------------- International
    # INT 4.15: the man of 11x2x13 only passed the crown row: it stays a man; a crown put on
    # it is an irregularity (the opponent decides, INT 5.4): corrected, it comes off
    ("international", "i40_crown_in_passing_4_15", {"fen": "W:W11,46:B7,8,24"},
     "L11 P2 L2 P13=wk L7 L8 Cw correct:b L13 P11=wm P7=bm P8=bm L11 P2 L2 P13=wm L7 L8 Cw",
     ["11x13"], [["INT 4.15", "corrected"]], "*",
     {"fen": "B:W13,46:B24", "flag_texts": ["only passed the crown row"]}),
    # INT 3.5 (late), 3.7 (a king may not move uncrowned: an irregular move, 5.4.02)
    ("international", "i40_crown_late_and_unmarked_king", {"fen": "W:W7,46:B24"},
     "L7 P1=wm Cw L24 P30=bm Cb L1 P7=wm Cw",
     ["7-1", "24-30", "1-7"], [["INT 3.5", "noted"], ["INT 5.4.02", "pending"]], "*", {}),
    ("international", "i40_crown_lost_3_7", {"fen": "W:WK28,46:B24"},
     "K28=wm", [], [["INT 3.7", "noted"]], "*", {}),
    # --------------------------------------------------------------------------- Brazilian
    ("brazilian", "i40_crown_in_passing_4_15", {"fen": "W:W9,29:B6,7,20"},
     "L9 P2 L2 P11=wk L6 L7 Cw accept:b",
     ["b6xf6"], [["BR 4.15", "maintained"]], "*", {}),
    ("brazilian", "i40_crown_late_and_lost", {"fen": "W:W5,29:B20"},
     "L5 P1=wm Cw L20 P24=bm Cb K1=wk K1=wm",
     ["a7-b8", "h4-g3"], [["BR 3.5", "noted"], ["BR 3.5", "noted"], ["BR 3.7", "noted"]], "*", {}),
]
