"""The scenarios of issue 35 ("every ruling as the regulations give it"), read by ``build.py``:
the same tuples as issue 8's (``issue8_scenarios.py``). Each expectation comes from the article
cited above it, written before the arbiter ran the trace.

Square numbers (official, SPEC §1): Italian 22 = d3, 24 = h3, 18 = c4, 20 = g4, 19 = e4, 13 = b5,
15 = f5, 17 = a4, 21 = b3; Black's 1 = a8, 5 = b7, 11 = e6.
"""

from __future__ import annotations

from issue8_board import B, W, Scenario

#: White men on 22 and 24 can each take a black man (22x13, 24x15); Black has 1 besides.
TWO_CAPTURES = {"fen": "W:W22,24:B18,20,1"}

ISSUE35: list[Scenario] = [
    # ------------------------------------ 1. the touched piece stays bound after a correction
    # IT 3.7, 3.8 and IT 8.4 (the project's decision, docs/arbiter.md): the man 22 displaced by
    # the corrected illegal move 22-17 (IT 8.1.2) was touched first and has a legal move: moving
    # another man (21-17) is IT 8.1.3; corrected, 22 is played.
    ("italian", "i35_man_bound_after_correction_3_7", {},
     "L22 P17 Cw correct:b L17 P22 L21 P17 Cw correct:b L17 P21 L22 P18 Cw",
     ["22-18"], [["IT 8.1.2", "corrected"], ["IT 8.1.3", "corrected"]], "*",
     {"fen": "B:W18,21,23-32:B1-12", "flag_texts": [None, "touched 22, moved 21"]}),
    # contrast: the man displaced (29, blocked on b1: no legal move) binds nothing; corrected,
    # any piece may be played
    ("italian", "i35_unplayable_man_binds_nothing_3_7", {},
     "L29 P17 Cw correct:b L17 P29 L21 P17 Cw",
     ["21-17"], [["IT 8.1.2", "corrected"]], "*",
     {"fen": "B:W17,22-32:B1-12"}),
    # the same after a capture omitted with that man (IT 8.1.6): 22 played 22-19 where 22x13
    # was due; corrected, touching 24 after binds nothing (IT 3.8: 22 was touched first), 22x13
    # is played, no flag
    ("italian", "i35_touch_other_then_bound_man_after_omitted_capture_3_8", TWO_CAPTURES,
     "L22 P19 Cw correct:b L19 P22 L24 P24 L22 P13 L18 Cw",
     ["22x13"], [["IT 8.1.6", "corrected"]], "*",
     {"fen": "B:W13,24:B1,20"}),
    # ... and taking with the other man (24x15) is IT 8.1.3; corrected, 22x13 is played
    ("italian", "i35_other_man_after_omitted_capture_3_7", TWO_CAPTURES,
     "L22 P19 Cw correct:b L19 P22 L24 P15 L20 Cw correct:b P20 L15 P24 L22 P13 L18 Cw",
     ["22x13"], [["IT 8.1.6", "corrected"], ["IT 8.1.3", "corrected"]], "*",
     {"fen": "B:W13,24:B1,20", "flag_texts": [None, "touched 22, moved 24"]}),
    # ----------------------------- 4. two irregularities in one move: each its flag (IT 8.4)
    # IT 3.7 and IT 8.1.6 in one move: 24 touched, then 22 moved while a capture was due. Two
    # flags, each with its article; Black's one decision covers both (IT 8.4: no partial
    # correction). Corrected, the first piece touched (24) is played (IT 3.8).
    ("italian", "i35_touch_and_omitted_capture_8_4", TWO_CAPTURES,
     "L24 P24 L22 P19 Cw correct:b L19 P22 L24 P15 L20 Cw",
     ["24x15"], [["IT 8.1.3", "corrected"], ["IT 8.1.6", "corrected"]], "*",
     {"fen": "B:W15,22:B1,18", "flag_texts": ["touched 24, moved 22", None]}),
    # kept by Black's move (IT 8.3): both are kept, the move stands with both codes
    ("italian", "i35_touch_and_omitted_capture_kept_8_3", TWO_CAPTURES,
     "L24 P24 L22 P19 Cw L1 P5 Cb",
     ["22-19", "1-5"], [["IT 8.1.3", "maintained"], ["IT 8.1.6", "maintained"]], "*",
     {"fen": "W:W19,24:B5,18,20", "sides": [W, B],
      "pdn_contains": ["{irregular move: IT 8.1.3, IT 8.1.6}"]}),
    # ------------------------------------------ 2. a forgotten clock press (COMP 4.6, 4.5)
    # White moves and does not press; his face runs on; Black thinks on it, lifts his piece:
    # the move standing is a move (as without a clock, docs/trace-format.md). Black's press finds his own
    # face stopped (nothing changes on the clock); White's next press is counted. Nothing is
    # flagged: nobody may point the forgotten press out but the opponent (COMP 4.6).
    ("italian", "i35_forgotten_press_comp_4_6", {"time_control": "600"},
     "A:start_clock L22 P18 +10 L11 P15 Cb +5 L23 P19 Cw",
     ["22-18", "11-15", "23-19"], [], "*",
     {"fen": "B:W18,19,21,24-32:B1-10,12,15", "sides": [W, B, W],
      # 23-19 pressed at 19.5 s: White's face ran from 0.5 s (581 s left), Black's never
      "pdn_contains": ["23-19 {[%clock w0:09:41 B0:10:00]}"]}),
    # ... and pressed late, once Black has begun his move: White's face stops, Black's runs (a
    # clock's press); 16.5 s on White's face (0.5 s to 17 s): 583.5 s, 1 s on Black's: 599 s
    ("italian", "i35_forgotten_press_pressed_late_comp_4_6", {"time_control": "600"},
     "A:start_clock L22 P18 +10 L11 +4.5 Cw P15 Cb L23 P19 Cw",
     ["22-18", "11-15", "23-19"], [], "*",
     {"fen": "B:W18,19,21,24-32:B1-10,12,15", "sides": [W, B, W],
      "pdn_contains": ["11-15 {[%clock W0:09:43 b0:09:59]}"]}),
    # ... and the forgetful player's time runs out while his opponent thinks on it (COMP 4.8)
    ("italian", "i35_forgotten_press_flag_falls_comp_4_6", {"time_control": "60"},
     "A:start_clock L22 P18 +50 L11 P15 Cb +10 L23 P19 Cw",
     ["22-18", "11-15"], [], "0-1",
     {"fen": "W:W18,21,23-32:B1-10,12,15", "outcome": "COMP 4.8"}),
    # ... after a capture (issue 35, the last gap). The capture standing complete is a move when
    # Black's lift and place form a legal move of his in the position after it (decided at his
    # place: a lift alone may be White's own hand taking off a piece too many, IT 8.1.12).
    # 22x13 left unpressed; Black thinks on White's time and plays 5-9; White's face ran from
    # 0.5 s to his press at 19.5 s: 581 s left, Black's never ran.
    ("italian", "i35_forgotten_press_after_capture_comp_4_6",
     {"time_control": "600", "fen": "W:W22,24,31:B18,1,5"},
     "A:start_clock L22 P13 L18 +10 L5 P9 Cb +4.5 L24 P20 Cw",
     ["22x13", "5-9", "24-20"], [], "*",
     {"fen": "B:W13,20,31:B1,9", "sides": [W, B, W],
      "pdn_contains": ["24-20 {[%clock w0:09:41 B0:10:00]}"]}),
    # ... after a multiple capture (22x6, both pieces off), the same: 20 s on White's face
    ("italian", "i35_forgotten_press_after_multiple_capture_comp_4_6",
     {"time_control": "600", "fen": "W:W22,28:B18,10,1,5"},
     "A:start_clock L22 P13 L13 P6 L18 L10 +10 L5 P9 Cb +4 L28 P24 Cw",
     ["22x6", "5-9", "28-24"], [], "*",
     {"fen": "B:W6,24:B1,9", "sides": [W, B, W],
      "pdn_contains": ["28-24 {[%clock w0:09:40 B0:10:00]}"]}),
    # ... and the reply itself a capture (9x18 takes the man 22x13 put on 13); White presses at
    # 19.5 s: 19 s on his face
    ("italian", "i35_forgotten_press_capture_reply_comp_4_6",
     {"time_control": "600", "fen": "W:W22,24,31:B18,1,9"},
     "A:start_clock L22 P13 L18 +10 L9 P18 L13 Cb +4 L24 P20 Cw",
     ["22x13", "9x18", "24-20"], [], "*",
     {"fen": "B:W20,31:B1,18", "sides": [W, B, W],
      "pdn_contains": ["24-20 {[%clock w0:09:41 B0:10:00]}"]}),
    # contrast, IT 8.1.12: after 22x13 a black piece comes off that forms no legal move of
    # Black's (1 is blocked by 5): White's hand took off a piece too many; his press shows it,
    # Black has it corrected (IT 8.4) and the capture is played again
    ("italian", "i35_extra_removal_after_capture_8_1_12",
     {"time_control": "600", "fen": "W:W22,24,31:B18,1,5"},
     "A:start_clock L22 P13 L18 L1 Cw correct:b P1 P18 L13 P22 L22 P13 L18 Cw",
     ["22x13"], [["IT 8.1.12", "corrected"]], "*",
     {"fen": "B:W13,24,31:B1,5"}),
    # ... and the piece lifted put down where no move of Black's goes (1 to 10, a square only 5
    # reaches): no reply, nothing committed at the place; White's press finds two pieces
    # displaced as no single move displaces them: the position is disturbed (IT 7.8), the
    # capture not recorded until it is put right
    ("italian", "i35_extra_displacement_after_capture_7_8",
     {"time_control": "600", "fen": "W:W22,24,31:B18,1,5"},
     "A:start_clock L22 P13 L18 L1 P10 Cw",
     [], [["IT 7.8", "pending"]], "*", {"fen": "W:W22,24,31:B1,5,18"}),
    # English (Black first): 9x18 unpressed, White replies 30-26 on Black's time
    ("english", "i35_forgotten_press_after_capture_comp_4_6",
     {"time_control": "600", "fen": "B:W14,30:B9,1"},
     "A:start_clock L9 P18 L14 +10 L30 P26 Cw +4.5 L1 P5 Cb",
     ["9x18", "30-26", "1-5"], [], "*",
     {"fen": "W:W26:B5,18", "sides": [B, W, B],
      "pdn_contains": ["1-5 {[%clock W0:10:00 b0:09:41]}"]}),
    # ------------------------------- 3. a button after the flag fell: the flag first (COMP 4.8)
    # Black's flag falls at 62 s (pressed at 2 s, 60 s): his `correct` at 62.5 s comes after the
    # game ended; the irregular move stays in the transcript, its flag lapsed with the game (IT
    # 8.2-8.3: Black decides until his own next move, and a game over has none)
    ("italian", "i35_correct_after_flag_comp_4_8", {"time_control": "60"},
     "A:start_clock L22 P17 Cw +60 correct:b",
     ["22-17"], [["IT 8.1.2", "lapsed"]], "1-0",
     {"fen": "B:W17,21,23-32:B1-12", "outcome": "COMP 4.8"}),
    # a draw accepted after the accepting player's flag fell (62.5 s) is a loss on time
    ("italian", "i35_draw_accept_after_flag_comp_4_8", {"time_control": "60"},
     "A:start_clock L22 P18 draw_offer:w Cw +60 draw_accept:b",
     ["22-18"], [], "1-0",
     {"fen": "B:W18,21,23-32:B1-12", "outcome": "COMP 4.8"}),
]
