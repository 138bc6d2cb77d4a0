"""The scenarios of issue 16 ("the record a tournament files"), read by ``build.py``: the same
tuples as issue 8's (``issue8_scenarios.py``), with ``flag_texts`` besides (for each flag, a
substring of its text, or None). Each expectation comes from the article cited above it, written
before the arbiter ran the trace.

Square numbers (official, SPEC §1): Italian 22 = d3, 14 = d5, 18 = c4, 13 = b5; international
33 = f4, 23 = f6, 28 = g5, 22 = h6.
"""

from __future__ import annotations

from issue8_board import B, W, Scenario

ISSUE16: list[Scenario] = [
    # IT 8.1.2 and IT 8.1.6: a man moved straight ahead two squares (d3-d5, no man can) while the
    # capture 22x13 was due. The flag cites IT 8.1.2, its text names IT 8.1.6 too. Kept (IT 8.2),
    # the move stands in the PDN with its clock comment like every move (White pressed at 2.0 s,
    # 1.5 s after the clock was started: 598.5 s left, Black's face running) and the comment
    # that says it broke the rules, then the position the game went on from (/FEN/).
    ("italian", "i16_straight_ahead_while_capture_due_8_1_2", {"fen": "W:W22,31:B18,3",
                                                               "time_control": "600"},
     "A:start_clock L22 P14 Cw accept:b L3 P7 Cb",
     ["22-14", "3-7"], [["IT 8.1.2", "maintained"]], "*",
     {"fen": "W:W14,31:B7,18", "sides": [W, B],
      "flag_texts": ["a move no man can make, where a capture was due (IT 8.1.6)"],
      "pdn_contains": ['1. 22-14 {[%clock w0:09:58 B0:10:00]} '
                       '{irregular move: IT 8.1.2, IT 8.1.6} /FEN "B:W14,31:B3,18"/ 3-7 {']}),
    # INT 5.4.02 and INT 5.4.06, the same on 10x10 (f4-f6 while 33x22 is due); corrected, the
    # capture is played
    ("international", "i16_straight_ahead_while_capture_due_5_4_02", {"fen": "W:W33,45:B28,3"},
     "L33 P23 Cw correct:b L23 P33 L33 P22 L28 Cw",
     ["33x22"], [["INT 5.4.02", "corrected"]], "*",
     {"fen": "B:W22,45:B3",
      "flag_texts": ["a move no man can make, where a capture was due (INT 5.4.06)"]}),
    # IT 3.7 after IT 8.1.2 corrected (IT 8.4): the king the offender moved irregularly (22-14)
    # was touched on move and is playable: moving another piece (30-26) is IT 8.1.3; corrected,
    # the king is played.
    ("italian", "i16_king_bound_after_correction_3_7", {"fen": "W:WK22,30:B1,5"},
     "L22 P14 Cw correct:b L14 P22 L30 P26 Cw correct:b L26 P30 L22 P18 Cw",
     ["22-18"], [["IT 8.1.2", "corrected"], ["IT 8.1.3", "corrected"]], "*",
     {"fen": "B:WK18,30:B1,5", "flag_texts": [None, "touched 22, moved 30"]}),
    # the same, kept by the opponent (IT 8.2): the move stands, with its clock comment (White:
    # 1.5 s to the first press, the correction charged to him, COMP 4.13, 1.0 s, then 1.5 s:
    # 596 s; Black: 0.5 s deciding the first irregularity: 599.5 s)
    ("italian", "i16_king_bound_after_correction_kept_3_7", {"fen": "W:WK22,30:B1,5",
                                                             "time_control": "600"},
     "A:start_clock L22 P14 Cw correct:b L14 P22 L30 P26 Cw accept:b L5 P9 Cb",
     ["30-26", "5-9"], [["IT 8.1.2", "corrected"], ["IT 8.1.3", "maintained"]], "*",
     {"fen": "W:WK22,26:B1,9", "sides": [W, B],
      "pdn_contains": ["1. 30-26 {[%clock w0:09:56 B0:09:59]} 5-9 {"]}),
]
