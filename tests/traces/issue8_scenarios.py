"""The scenarios of issue 8 (rule defects 1-10), read by ``build.py``: the same tuples as its
``SCENARIOS`` plus a dict of further expectations (``fen``, ``sides``, ``pdn_contains``,
``pdn_excludes``, ``outcome``; see build.py). Each expectation comes from the article cited in
the comment above it, written before the arbiter ran the trace.

Square numbers (official, SPEC §1): Italian 1 = a8 … 32 = h1 (White 21-32 moves up, first);
English 1 = b8 … 32 = g1 (Black 1-12 moves down, first); international Manoury 1 = b10 … 50 = i1;
Brazilian as international on 8×8 (1 = b8 … 32 = g1, White 21-32 first, notation algebraic).
"""

from __future__ import annotations

from issue8_articles import ARTICLES
from issue8_board import B, W, Scenario, alg8, it_to_br, it_to_en, snap, translate

ISSUE8: list[Scenario] = [
    # ------------------------------------------------------------ defect 1: kept irregular moves
    # docs/trace-format.md: a maintained irregular move, and a pending one, stand in `moves` in their place
    # with the side that played them; the PDN follows it with the comment that says it is no
    # legal move (issue 16), its /FEN/, and numbers the next move
    # on (IT 8.2 accept, IT 8.3 kept by the opponent's move; EN 8.2-8.3; INT 5.4, 5.7).
    ("italian", "d1_kept_by_accept_8_2", {},
     "L22 P18 Cw L11 P16 Cb accept:w L21 P17 Cw",
     ["22-18", "11-16", "21-17"], [["IT 8.1.2", "maintained"]], "*",
     {"fen": "B:W17,18,23-32:B1-10,12,16", "sides": [W, B, W],
      "pdn_contains": ['11-16 {irregular move: IT 8.1.2} /FEN "W:W18,21,23-32:B1-10,12,16"/ 2. 21-17']}),
    ("italian", "d1_kept_by_play_8_3", {},
     "L22 P18 Cw L11 P16 Cb L21 P17 Cw",
     ["22-18", "11-16", "21-17"], [["IT 8.1.2", "maintained"]], "*",
     {"fen": "B:W17,18,23-32:B1-10,12,16", "sides": [W, B, W],
      "pdn_contains": ['11-16 {irregular move: IT 8.1.2} /FEN "W:W18,21,23-32:B1-10,12,16"/ 2. 21-17']}),
    ("italian", "d1_pending_stands_in_transcript", {},
     "L22 P18 Cw L11 P16 Cb E",
     ["22-18", "11-16"], [["IT 8.1.2", "pending"]], "*",
     {"fen": "W:W18,21,23-32:B1-10,12,16", "sides": [W, B],
      "pdn_contains": ['11-16 {irregular move: IT 8.1.2} /FEN "W:W18,21,23-32:B1-10,12,16"/']}),
    # the game ends while the irregularity waits for the opponent's decision: the right to
    # decide is the opponent's (IT 8.2) until his own next move (IT 8.3; INT 5.4, 5.7: "termina
    # o direito a uma rectificação"); a game over has no next move and no correction (nothing is
    # played after the result), so the claim lapses with the game: the flag is `lapsed` (not
    # decided by anyone, no longer pending), the irregular move stands in the transcript with
    # its /FEN/, whatever ended the game (the arbiter's adjudication, a resignation)
    ("italian", "d1_pending_lapses_when_adjudicated_8_3", {},
     "L22 P18 Cw L11 P16 Cb A:adjudicate:1-0 E",
     ["22-18", "11-16"], [["IT 8.1.2", "lapsed"]], "1-0",
     {"fen": "W:W18,21,23-32:B1-10,12,16", "sides": [W, B], "outcome": "COMP",
      "pdn_contains": ['11-16 {irregular move: IT 8.1.2} /FEN "W:W18,21,23-32:B1-10,12,16"/']}),
    ("italian", "d1_pending_lapses_when_resigned_8_3", {},
     "L22 P18 Cw L11 P16 Cb resign:w E",
     ["22-18", "11-16"], [["IT 8.1.2", "lapsed"]], "0-1",
     {"fen": "W:W18,21,23-32:B1-10,12,16", "sides": [W, B], "outcome": "IT 9.2.1",
      "pdn_contains": ['11-16 {irregular move: IT 8.1.2} /FEN "W:W18,21,23-32:B1-10,12,16"/']}),
    ("italian", "d1_white_kept_mid_game", {},
     "L22 P18 Cw L11 P15 Cb L24 P16 Cw accept:b L10 P14 Cb",
     ["22-18", "11-15", "24-16", "10-14"], [["IT 8.1.2", "maintained"]], "*",
     {"fen": "W:W16,18,21,23,25-32:B1-9,12,14,15", "sides": [W, B, W, B],
      "pdn_contains": ['2. 24-16 {irregular move: IT 8.1.2} /FEN "B:W16,18,21,23,25-32:B1-10,12,15"/']}),
    ("english", "d1_kept_by_accept_8_2", {},
     "L11 P15 Cb L24 P20 Cw L12 P11 Cb accept:w L22 P18 Cw",
     ["11-15", "24-20", "12-11", "22-18"], [["EN 8.1.2", "maintained"]], "*",
     {"fen": "B:W18,20,21,23,25-32:B1-11,15", "sides": [B, W, B, W],
      "pdn_contains": ['2. 12-11 {irregular move: EN 8.1.2} /FEN "W:W20-23,25-32:B1-11,15"/ 22-18']}),
    ("english", "d1_pending_stands_in_transcript", {},
     "L11 P15 Cb L24 P20 Cw L12 P11 Cb E",
     ["11-15", "24-20", "12-11"], [["EN 8.1.2", "pending"]], "*",
     {"fen": "W:W20-23,25-32:B1-11,15", "sides": [B, W, B],
      "pdn_contains": ['2. 12-11 {irregular move: EN 8.1.2} /FEN "W:W20-23,25-32:B1-11,15"/']}),
    ("international", "d1_kept_by_accept_5_4", {},
     "L32 P28 Cw L16 P26 Cb accept:w L33 P29 Cw",
     ["32-28", "16-26", "33-29"], [["INT 5.4.02", "maintained"]], "*",
     {"fen": "B:W28,29,31,34-50:B1-15,17-20,26", "sides": [W, B, W],
      "pdn_contains": ['16-26 {irregular move: INT 5.4.02} /FEN "W:W28,31,33-50:B1-15,17-20,26"/ 2. 33-29']}),
    ("international", "d1_kept_by_play_5_7", {},
     "L32 P28 Cw L16 P26 Cb L33 P29 Cw",
     ["32-28", "16-26", "33-29"], [["INT 5.4.02", "maintained"]], "*",
     {"fen": "B:W28,29,31,34-50:B1-15,17-20,26", "sides": [W, B, W],
      "pdn_contains": ['16-26 {irregular move: INT 5.4.02} /FEN "W:W28,31,33-50:B1-15,17-20,26"/ 2. 33-29']}),
    ("brazilian", "d1_kept_by_accept_5_4", {},
     "L22 P17 Cw L12 P20 Cb accept:w L23 P19 Cw",
     ["c3-b4", "h6-h4", "e3-f4"], [["BR 5.4.02", "maintained"]], "*",
     {"fen": "B:W17,19,21,24-32:B1-11,20", "sides": [W, B, W],
      "pdn_contains": ['h6-h4 {irregular move: BR 5.4.02} /FEN "W:W', '"/ 2. e3-f4']}),
    # IT 8.1.1 kept: White moves twice; both white moves stand, numbered on (no "2. … 2.")
    ("italian", "d1_moved_twice_kept_8_1_1", {},
     "L22 P18 Cw L11 P15 Cb L21 P17 Cw L25 P21 Cw accept:b L12 P16 Cb",
     ["22-18", "11-15", "21-17", "25-21", "12-16"], [["IT 8.1.1", "maintained"]], "*",
     {"fen": "W:W17,18,21,23,24,26-32:B1-10,15,16", "sides": [W, B, W, W, B],
      "pdn_contains": ['25-21 {irregular move: IT 8.1.1} /FEN "B:W17,18,21,23,24,26-32:B1-10,12,15"/']}),
    # IT 8.1.5 kept: White moves Black's man 10-14; it stands as White's move
    ("italian", "d1_opponent_piece_kept_8_1_5", {},
     "L22 P18 Cw L11 P15 Cb L10 P14 Cw accept:b L12 P16 Cb",
     ["22-18", "11-15", "10-14", "12-16"], [["IT 8.1.5", "maintained"]], "*",
     {"fen": "W:W18,21,23-32:B1-9,14-16", "sides": [W, B, W, B],
      "pdn_contains": ['2. 10-14 {irregular move: IT 8.1.5} /FEN "B:W18,21,23-32:B1-9,12,14,15"/ 12-16']}),
    ("english", "d1_moved_twice_kept_8_1_1", {},
     "L11 P15 Cb L24 P20 Cw L9 P13 Cb L10 P14 Cb accept:w L22 P18 Cw",
     ["11-15", "24-20", "9-13", "10-14", "22-18"], [["EN 8.1.1", "maintained"]], "*",
     {"sides": [B, W, B, B, W],
      "pdn_contains": ['10-14 {irregular move: EN 8.1.1} /FEN "W:W20-23,25-32:B1-8,12-15"/']}),
    ("international", "d1_moved_twice_kept_5_4_01", {},
     "L32 P28 Cw L16 P21 Cb L33 P29 Cw L34 P30 Cw accept:b L17 P22 Cb",
     ["32-28", "16-21", "33-29", "34-30", "17-22"], [["INT 5.4.01", "maintained"]], "*",
     {"sides": [W, B, W, W, B],
      "pdn_contains": ['34-30 {irregular move: INT 5.4.01} /FEN "B:W28-31,35-50:B1-15,17-21"/']}),
    # ---------------------------------------- defect 2: restored when the last step is a lift
    # IT 8.4 / EN 8.4 / INT 5.8: once the position before the irregularity is back, the
    # offender plays again; the player here puts the capturing piece's twin from beside the board
    # (IT 4.4) on the start square first, then takes the capturing piece off.
    ("italian", "d2_restored_by_a_lift_8_4", {"fen": "W:W22,24:B18,1"},
     "L22 P13 Cw correct:b P22 L13 L22 P13 L18 Cw",
     ["22x13"], [["IT 8.1.10", "corrected"]], "*",
     {"fen": "B:W13,24:B1"}),
    ("english", "d2_restored_by_a_lift_8_4", {"fen": "B:W18,30:B14,1"},
     "L14 P23 Cb correct:w P14 L23 L14 P23 L18 Cb",
     ["14x23"], [["EN 8.1.10", "corrected"]], "*",
     {"fen": "W:W30:B1,23"}),
    ("international", "d2_restored_by_a_lift_5_8", {"fen": "W:W32,40:B27,8,3"},
     "L32 P21 Cw correct:b P32 L21 L32 P21 L27 Cw",
     ["32x21"], [["INT 5.4.11", "corrected"]], "*",
     {"fen": "B:W21,40:B3,8"}),
    ("brazilian", "d2_restored_by_a_lift_5_8", {"fen": "W:W22,28:B18,2"},
     "L22 P15 Cw correct:b P22 L15 L22 P15 L18 Cw",
     ["c3xe5"], [["BR 5.4.11", "corrected"]], "*",
     {"fen": "B:W15,28:B2"}),
    # ------------------------------- defect 3: no clock, a slow removal of the captured piece
    # IT 3.5, 5.13 (INT 3.10, 4.12): without a clock the capture is complete when the captured
    # piece is off; a removal slower than `settle` is still the same move, not IT 8.1.10.
    ("italian", "d3_no_clock_slow_removal_5_13", {"clock": False, "fen": "W:W22,24:B18,1"},
     "L22 P13 +3 L18 +3 L1 P5 E",
     ["22x13", "1-5"], [], "*", {"fen": "W:W13,24:B5"}),
    ("english", "d3_no_clock_slow_removal_5_13", {"clock": False, "fen": "B:W18,30:B14,1"},
     "L14 P23 +3 L18 +3 L30 P25 E",
     ["14x23", "30-25"], [], "*", {"fen": "B:W25:B1,23"}),
    ("international", "d3_no_clock_slow_removal_4_12",
     {"clock": False, "fen": "W:W32,40:B27,8,3"},
     "L32 P21 +3 L27 +3 L8 P13 E",
     ["32x21", "8-13"], [], "*", {"fen": "W:W21,40:B3,13"}),
    ("brazilian", "d3_no_clock_slow_removal_4_12", {"clock": False, "fen": "W:W22,28:B18,2"},
     "L22 P15 +3 L18 +3 L2 P6 E",
     ["c3xe5", "d8-c7"], [], "*", {"fen": "W:W15,28:B6"}),
    # ---------------------------------- defect 4: no clock, the game ends right after a move
    # IT 3.5: without a clock the move is made when the piece is let go; a draw agreed (IT 9.3a,
    # INT 7.3.1) or a resignation (IT 9.2.1, INT 7.2.1) after it keeps it.
    ("italian", "d4_no_clock_draw_after_move_9_3a", {"clock": False},
     "L22 P18 draw_offer:w draw_accept:b",
     ["22-18"], [], "1/2-1/2",
     {"fen": "B:W18,21,23-32:B1-12", "outcome": "IT 9.3a", "pdn_contains": ["1. 22-18"]}),
    ("italian", "d4_no_clock_resign_after_move_9_2_1", {"clock": False},
     "L22 P18 resign:b",
     ["22-18"], [], "1-0",
     {"fen": "B:W18,21,23-32:B1-12", "outcome": "IT 9.2.1", "pdn_contains": ["1. 22-18 1-0"]}),
    ("english", "d4_no_clock_draw_after_move_9_3a", {"clock": False},
     "L11 P15 draw_offer:b draw_accept:w",
     ["11-15"], [], "1/2-1/2", {"fen": "W:W21-32:B1-10,12,15", "outcome": "EN 9.3a"}),
    ("english", "d4_no_clock_resign_after_move_9_2_1", {"clock": False},
     "L11 P15 resign:w",
     ["11-15"], [], "0-1", {"fen": "W:W21-32:B1-10,12,15", "outcome": "EN 9.2.1"}),
    ("international", "d4_no_clock_draw_after_move_7_3_1", {"clock": False},
     "L32 P28 draw_offer:w draw_accept:b",
     ["32-28"], [], "1-1",
     {"fen": "B:W28,31,33-50:B1-20", "outcome": "INT 7.3.1"}),
    ("international", "d4_no_clock_resign_after_move_7_2_1", {"clock": False},
     "L32 P28 resign:b",
     ["32-28"], [], "2-0",
     {"fen": "B:W28,31,33-50:B1-20", "outcome": "INT 7.2.1"}),
    ("brazilian", "d4_no_clock_draw_after_move_7_3_1", {"clock": False},
     "L22 P17 draw_offer:w draw_accept:b",
     ["c3-b4"], [], "1/2-1/2", {"fen": "B:W17,21,23-32:B1-12", "outcome": "BR 7.3.1"}),
    ("brazilian", "d4_no_clock_resign_after_move_7_2_1", {"clock": False},
     "L22 P17 resign:b",
     ["c3-b4"], [], "1-0", {"fen": "B:W17,21,23-32:B1-12", "outcome": "BR 7.2.1"}),
    # ------------------------------------------ defect 5: mosse lampo, let go by zero (COMP 5.7)
    # COMP 5.6: 30 s a move in Italian, 30-60 s (1 min unless announced) in international; 5.7:
    # at "zero" the piece must have been let go; the clock pressed after is still in time.
    ("italian", "d5_lampo_let_go_by_zero_comp_5_7", {"time_control": "0:1/30"},
     "A:start_clock +28 L22 P18 +1.5 Cw L11 P15 Cb",
     ["22-18", "11-15"], [], "*", {"fen": "W:W18,21,23-32:B1-10,12,15"}),
    ("italian", "d5_lampo_holding_at_zero_loses_comp_5_7", {"time_control": "0:1/30"},
     "A:start_clock +28 L22 +1.5 P18 Cw",
     [], [], "0-1", {}),
    ("international", "d5_lampo_let_go_by_zero_comp_5_7", {"time_control": "0:1/60"},
     "A:start_clock +58 L32 P28 +1.5 Cw L19 P23 Cb",
     ["32-28", "19-23"], [], "*", {"fen": "W:W28,31,33-50:B1-18,20,23"}),
    ("international", "d5_lampo_holding_at_zero_loses_comp_5_7", {"time_control": "0:1/60"},
     "A:start_clock +58 L32 +1.5 P28 Cw",
     [], [], "0-2", {}),
    # ---------------------------------- defect 6: a clock press after the flag fell (COMP 4.8)
    # COMP 4.8 b / 4.5: the move counts only when the clock is pressed before the display shows
    # zero; pressed after, no move is recorded and the game is lost on time.
    ("italian", "d6_press_after_flag_comp_4_8", {"time_control": "60"},
     "A:start_clock L22 P18 Cw +58.5 L11 P15 +0.5 Cb",
     ["22-18"], [], "1-0",
     {"fen": "B:W18,21,23-32:B1-12", "outcome": "COMP 4.8"}),
    ("english", "d6_press_after_flag_comp_4_8", {"time_control": "60"},
     "A:start_clock L11 P15 Cb +58.5 L22 P18 +0.5 Cw",
     ["11-15"], [], "0-1",
     {"fen": "W:W21-32:B1-10,12,15", "outcome": "COMP 4.8"}),
    ("international", "d6_press_after_flag_comp_4_8", {"time_control": "60"},
     "A:start_clock L32 P28 Cw +58.5 L19 P23 +0.5 Cb",
     ["32-28"], [], "2-0",
     {"fen": "B:W28,31,33-50:B1-20", "outcome": "COMP 4.8"}),
    ("brazilian", "d6_press_after_flag_comp_4_8", {"time_control": "60"},
     "A:start_clock L22 P17 Cw +58.5 L11 P15 +0.5 Cb",
     ["c3-b4"], [], "1-0",
     {"fen": "B:W17,21,23-32:B1-12", "outcome": "COMP 4.8"}),
    # -------------------------------- defect 7: touch-move binds after any correction (IT 3.7)
    # The decision of issue 35 (docs/arbiter.md): after a corrected irregularity (IT 8.4) the
    # piece the offender touched first (IT 3.8) - the one his irregular move displaced, man or
    # king - must be played if it has a legal move. Touching another piece after the correction
    # (or during it) binds nothing then: the first piece is played, no IT 8.1.3.
    ("italian", "d7_touch_after_correction_3_7", {},
     "L22 P17 Cw correct:b L17 P22 L21 P21 L22 P18 Cw",
     ["22-18"], [["IT 8.1.2", "corrected"]], "*",
     {"fen": "B:W18,21,23-32:B1-12"}),
    # lifted DURING the restoration (before the moved piece is back): 22 was touched first
    ("italian", "d7_touch_during_correction_3_7", {},
     "L22 P17 Cw correct:b L17 L21 P21 P22 L22 P18 Cw",
     ["22-18"], [["IT 8.1.2", "corrected"]], "*",
     {"fen": "B:W18,21,23-32:B1-12"}),
    # EN 3.7, 3.8: moving another piece than the first touched (9) after the correction is EN
    # 8.1.3; corrected, 9 is played
    ("english", "d7_touch_during_correction_3_7", {},
     "L9 P18 Cb correct:w L18 L10 P10 P9 L11 P15 Cb correct:w L15 P11 L9 P13 Cb",
     ["9-13"], [["EN 8.1.2", "corrected"], ["EN 8.1.3", "corrected"]], "*",
     {"fen": "W:W21-32:B1-8,10-13", "flag_texts": [None, "touched 9, moved 11"]}),
    ("international", "d7_touch_during_correction_3_11", {},
     "L32 P23 Cw correct:b L23 L31 P31 P32 L32 P28 Cw",
     ["32-28"], [["INT 5.4.02", "corrected"]], "*",
     {"fen": "B:W28,31,33-50:B1-20"}),
    ("brazilian", "d7_touch_during_correction_3_11", {},
     "L22 P15 Cw correct:b L15 L21 P21 P22 L22 P17 Cw",
     ["c3-b4"], [["BR 5.4.02", "corrected"]], "*",
     {"fen": "B:W17,21,23-32:B1-12"}),
    ("english", "d7_touch_after_correction_3_7", {},
     "L9 P18 Cb correct:w L18 P9 L10 P10 L11 P15 Cb correct:w L15 P11 L9 P13 Cb",
     ["9-13"], [["EN 8.1.2", "corrected"], ["EN 8.1.3", "corrected"]], "*",
     {"fen": "W:W21-32:B1-8,10-13", "flag_texts": [None, "touched 9, moved 11"]}),
    ("international", "d7_touch_after_correction_3_11", {},
     "L32 P23 Cw correct:b L23 P32 L31 P31 L32 P28 Cw",
     ["32-28"], [["INT 5.4.02", "corrected"]], "*",
     {"fen": "B:W28,31,33-50:B1-20"}),
    ("brazilian", "d7_touch_after_correction_3_11", {},
     "L22 P15 Cw correct:b L15 P22 L21 P21 L22 P17 Cw",
     ["c3-b4"], [["BR 5.4.02", "corrected"]], "*",
     {"fen": "B:W17,21,23-32:B1-12"}),
    # ----------------- defect 8: put right by the players, no `restore` (IT 7.5, 7.8; INT 5.3, 5.5)
    # IT 7.5: a piece on a light square is inactive, put back in play by the players; IT 7.8: a
    # disturbance is undone at once; then play goes on with a move made after it.
    ("italian", "d8_light_square_put_back_7_5", {},
     "L22 Pd4 Cw Ld4 P22 L22 P18 Cw",
     ["22-18"], [["IT 7.5", "corrected"], ["IT 7.8", "corrected"]], "*",
     {"fen": "B:W18,21,23-32:B1-12"}),
    ("italian", "d8_disturbance_put_right_7_8", {},
     "L22 L23 P19 P18 Cw L18 P22 L19 P23 L22 P18 Cw",
     ["22-18"], [["IT 7.8", "corrected"]], "*",
     {"fen": "B:W18,21,23-32:B1-12"}),
    ("english", "d8_light_square_put_back_7_5", {},
     "L11 Pe6 Cb Le6 P11 L11 P15 Cb",
     ["11-15"], [["EN 7.5", "corrected"], ["EN 7.8", "corrected"]], "*",
     {"fen": "W:W21-32:B1-10,12,15"}),
    ("english", "d8_disturbance_put_right_7_8", {},
     "L11 L10 P14 P15 Cb L15 P11 L14 P10 L11 P15 Cb",
     ["11-15"], [["EN 7.8", "corrected"]], "*",
     {"fen": "W:W21-32:B1-10,12,15"}),
    ("international", "d8_light_square_put_back_5_3", {},
     "L32 Pd5 Cw Ld5 P32 L32 P28 Cw",
     ["32-28"], [["INT 5.3", "corrected"], ["INT 5.5", "corrected"]], "*",
     {"fen": "B:W28,31,33-50:B1-20"}),
    ("international", "d8_disturbance_put_right_5_5", {},
     "L32 L33 P28 P29 Cw L28 P32 L29 P33 L32 P28 Cw",
     ["32-28"], [["INT 5.5", "corrected"]], "*",
     {"fen": "B:W28,31,33-50:B1-20"}),
    ("brazilian", "d8_light_square_put_back_5_3", {},
     "L22 Pc4 Cw Lc4 P22 L22 P17 Cw",
     ["c3-b4"], [["BR 5.3", "corrected"], ["BR 5.5", "corrected"]], "*",
     {"fen": "B:W17,21,23-32:B1-12"}),
    ("brazilian", "d8_disturbance_put_right_5_5", {},
     "L22 L23 P17 P18 Cw L17 P22 L18 P23 L22 P17 Cw",
     ["c3-b4"], [["BR 5.5", "corrected"]], "*",
     {"fen": "B:W17,21,23-32:B1-12"}),
    # ------------------------- defect 9: English, a man crowned mid-capture carries on (EN 6.5)
    # EN 6.5: a man reaching the far row, also by a capture, becomes a king and stops there; going
    # on to take another piece captures more pieces than allowed (EN 8.1.8), not an impossible
    # capture. Black 14 takes 18 and 26 to be crowned on 30, then goes on over 25 to 21.
    ("english", "d9_crowned_carries_on_8_1_8", {"fen": "B:W18,25,26,31:B14,1"},
     "L14 P23 L23 P30 L30 P21 L18 L26 L25 Cb correct:w P25 P26 P18 L21 P14 "
     "L14 P23 L23 P30 L18 L26 Cb",
     ["14x30"], [["EN 8.1.8", "corrected"]], "*",
     {"fen": "W:W25,31:B1,K30"}),
]


# Defect 1 in the other rule sets: a kept move of the opponent's piece (IT 8.1.5, EN 8.1.5,
# INT 5.4.05) and a pending irregular move stand in the transcript with the side that played.
_OPP_KEPT = "L22 P18 Cw L11 P15 Cb L10 P14 Cw accept:b L12 P16 Cb"
_OPP_MOVES = [(22, 18), (11, 15), (10, 14), (12, 16)]
MORE_D1: list[Scenario] = [
    ("english", "d1_opponent_piece_kept_8_1_5", {}, translate(_OPP_KEPT, it_to_en, True),
     [f"{it_to_en(a)}-{it_to_en(b)}" for a, b in _OPP_MOVES], [["EN 8.1.5", "maintained"]], "*",
     {"sides": [B, W, B, W]}),
    ("brazilian", "d1_opponent_piece_kept_5_4_05", {}, translate(_OPP_KEPT, it_to_br, False),
     [f"{alg8(it_to_br(a))}-{alg8(it_to_br(b))}" for a, b in _OPP_MOVES],
     [["BR 5.4.05", "maintained"]], "*", {"sides": [W, B, W, B]}),
    ("international", "d1_opponent_piece_kept_5_4_05", {},
     "L32 P28 Cw L17 P21 Cb L19 P24 Cw accept:b L20 P25 Cb",
     ["32-28", "17-21", "19-24", "20-25"], [["INT 5.4.05", "maintained"]], "*",
     {"sides": [W, B, W, B], "fen": "W:W28,31,33-50:B1-16,18,21,24,25",
      "pdn_contains": ['2. 19-24 {irregular move: INT 5.4.05} '
                       '/FEN "B:W28,31,33-50:B1-16,18,20,21,24"/ 20-25']}),
    ("international", "d1_pending_stands_in_transcript", {},
     "L32 P28 Cw L16 P26 Cb E",
     ["32-28", "16-26"], [["INT 5.4.02", "pending"]], "*",
     {"fen": "W:W28,31,33-50:B1-15,17-20,26", "sides": [W, B],
      "pdn_contains": ['16-26 {irregular move: INT 5.4.02} /FEN "W:W28,31,33-50:B1-15,17-20,26"/']}),
    ("international", "d1_pending_lapses_when_adjudicated_5_7", {},
     "L32 P28 Cw L16 P26 Cb A:adjudicate:1-1 E",
     ["32-28", "16-26"], [["INT 5.4.02", "lapsed"]], "1-1",
     {"fen": "W:W28,31,33-50:B1-15,17-20,26", "sides": [W, B], "outcome": "COMP",
      "pdn_contains": ['16-26 {irregular move: INT 5.4.02} /FEN "W:W28,31,33-50:B1-15,17-20,26"/']}),
    ("brazilian", "d1_pending_stands_in_transcript", {},
     "L22 P17 Cw L12 P20 Cb E",
     ["c3-b4", "h6-h4"], [["BR 5.4.02", "pending"]], "*",
     {"fen": "W:W17,21,23-32:B1-11,20", "sides": [W, B],
      "pdn_contains": ['h6-h4 {irregular move: BR 5.4.02} /FEN "W:W']}),
    # IT 8.1.13 kept: the capture stands, and the /FEN/ shows the own man gone
    ("italian", "d1_removed_own_kept_8_1_13", {"fen": "W:W22,24:B18,1"},
     "L22 P13 L18 L24 Cw accept:b L1 P5 Cb",
     ["22x13", "1-5"], [["IT 8.1.13", "maintained"]], "*",
     {"fen": "W:W13:B5", "sides": [W, B],
      "pdn_contains": ['22x13 {irregular move: IT 8.1.13} /FEN "B:W13:B1"/ 1-5']}),
    # defect 3 with a double capture: both captured men taken off slowly, one after the other
    ("italian", "d3_no_clock_slow_removal_double_5_13", {"clock": False,
                                                         "fen": "W:W22,31:B18,10,1"},
     "L22 P13 L13 P6 +3 L18 +3 L10 +3 L1 P5 E",
     ["22x6", "1-5"], [], "*", {"fen": "W:W6,31:B5"}),
]
ISSUE8 += MORE_D1

# IT 8.3 / EN 8.3: "anche solo l'aver toccato un proprio pezzo muovibile": once the opponent has
# touched one of his movable pieces the irregularity can no longer be corrected; the demand that
# follows is too late, the irregular move stands in the transcript and the touched piece is played.
LATE: list[Scenario] = [
    ("italian", "d1_kept_by_touch_8_3", {},
     "L22 P18 Cw L11 P16 Cb L21 P21 correct:w L21 P17 Cw",
     ["22-18", "11-16", "21-17"], [["IT 8.1.2", "maintained"]], "*",
     {"fen": "B:W17,18,23-32:B1-10,12,16", "sides": [W, B, W],
      "pdn_contains": ['11-16 {irregular move: IT 8.1.2} /FEN "W:W18,21,23-32:B1-10,12,16"/ 2. 21-17']}),
    ("english", "d1_kept_by_touch_8_3", {},
     "L11 P15 Cb L24 P20 Cw L12 P11 Cb L22 P22 correct:w L22 P18 Cw",
     ["11-15", "24-20", "12-11", "22-18"], [["EN 8.1.2", "maintained"]], "*",
     {"fen": "B:W18,20,21,23,25-32:B1-11,15", "sides": [B, W, B, W],
      "pdn_contains": ['2. 12-11 {irregular move: EN 8.1.2} /FEN "W:W20-23,25-32:B1-11,15"/ 22-18']}),
]
ISSUE8 += LATE

# Defect 9's contrast where the rule differs (INT 4.15, Brazilian "apenas passe"): a man that only
# passes the far row during a capture carries on and stays a man; no flag.
# Defect 8 after a snapshot: the sensors see a man gone (knocked off), the players put it back.
CONTRASTS: list[Scenario] = [
    ("brazilian", "d9_passes_far_row_stays_man_4_15", {"fen": "W:W10:B7,8,1"},
     "L10 P3 L3 P12 L7 L8 Cw",
     ["d6xh6"], [], "*", {"fen": "B:W12:B1"}),
    ("international", "d9_passes_far_row_stays_man_4_15", {"fen": "W:W12:B8,9,1"},
     "L12 P3 L3 P14 L8 L9 Cw",
     ["12x14"], [], "*", {"fen": "B:W14:B1"}),
    ("italian", "d8_snapshot_disturbance_put_right_7_8", {},
     "L22 P18 Cw " + snap("1-10,12,18,21,23-32") + " P11 L11 P15 Cb",
     ["22-18", "11-15"], [["IT 7.8", "corrected"]], "*",
     {"fen": "W:W18,21,23-32:B1-10,12,15"}),
]
ISSUE8 += CONTRASTS

# INT 5.7 differs from IT 8.3: only a move executed by the opponent accepts the irregularity (the
# Italian "anche solo l'aver toccato" is not in 001); White touches a movable man, puts it back and
# still has the irregular move corrected; later he plays that man. Black, corrected, plays the man
# his irregular move displaced (bound by INT 3.11, issue 35's decision: docs/arbiter.md).
INT_5_7: list[Scenario] = [
    ("international", "d1_touch_is_not_acceptance_5_7", {},
     "L32 P28 Cw L16 P26 Cb L33 P33 correct:w L26 P16 L16 P21 Cb L33 P29 Cw",
     ["32-28", "16-21", "33-29"], [["INT 5.4.02", "corrected"]], "*",
     {"fen": "B:W28,29,31,34-50:B1-15,17-21", "sides": [W, B, W]}),
    ("brazilian", "d1_touch_is_not_acceptance_5_7", {},
     "L22 P17 Cw L12 P20 Cb L23 P23 correct:w L20 P12 L12 P16 Cb L23 P19 Cw",
     ["c3-b4", "h6-g5", "e3-f4"], [["BR 5.4.02", "corrected"]], "*",
     {"fen": "B:W17,19,21,24-32:B1-11,16", "sides": [W, B, W]}),
]
ISSUE8 += INT_5_7


ISSUE8 += ARTICLES
