"""Issue 8, defect 10: a scenario per article the arbiter can emit, in every rule set
(``tests/engine/test_article_coverage.py`` checks the library covers them), and the article that
ends a game in each rule set. Read by ``issue8_scenarios`` (``ARTICLES``)."""

from __future__ import annotations

from collections.abc import Callable

from issue8_board import (INT_START, Scenario, alg8, alg10, alg_it, it_to_br, it_to_en,
                          mirrored_start, rng, snap, translate, translate_fen)

# ------------------------------------------------------------------ defect 10: every article
# The Italian scenarios below are played again on the English board (turned upside down, colours
# swapped: EN 2.3-2.6, 3.4, Black first) and on the Brazilian board (mirrored: bottom-left dark
# corner, 001 2.4), each expectation citing the rule set's own article. Italian base: (name, fen,
# script, moves, [(article key, status)], result); the key names the article in each rule set.
ART = {  # key: (IT, EN, BR) article; None where the rule set has none
    "twice": ("8.1.1", "8.1.1", "5.4.01"), "irregular_move": ("8.1.2", "8.1.2", "5.4.02"),
    "takeback": ("8.1.4", "8.1.4", "5.4.04"), "opponent_piece": ("8.1.5", "8.1.5", "5.4.05"),
    "omit_capture": ("8.1.6", "8.1.6", "5.4.06"), "remove_no_reason": ("8.1.7", "8.1.7", "5.4.07"),
    "stop": ("8.1.9", "8.1.9", "5.4.09"), "removal_stopped": ("8.1.11", "8.1.11", "5.4.13"),
    "removed_not_taken": ("8.1.12", "8.1.12", "5.4.12"),
    "removed_own": ("8.1.13", "8.1.13", "5.4.14"), "impossible": ("8.1.14", "8.1.14", "5.4.02"),
    "touch_unplayable": ("3.10", "3.10", "3.13"), "touch_not_on_move": ("3.11", "3.11", "3.13"),
    "offender_decides": ("8.2", "8.2", "5.4"), "setup": ("7.1", "7.1", "5.2"),
    "orientation": ("7.2", "7.2", "5.1"), "disturbed": ("7.8", "7.8", "5.5"),
    "removal_order": ("5.12", "5.12", "4.11"), "count_impossible": ("10.1", "10.1", None),
    "count_request": ("10.2", "10.2", None),
}
_IT_INITIAL = rng(1, 12) + rng(21, 32)
BASE: list[tuple[str, str | None, str, list[str], list[tuple[str, str]], str]] = [
    # IT 8.1.4 / EN 8.1.4 / INT 5.4.04: the last move taken back, corrected
    ("takeback", None, "L22 P18 Cw L18 P22 correct:b L22 P18 L11 P15 Cb",
     ["22-18", "11-15"], [("takeback", "corrected")], "*"),
    # IT 8.1.5: White moves Black's man; corrected, he plays his own
    ("opponent_piece", None, "L11 P15 Cw correct:b L15 P11 L22 P18 Cw",
     ["22-18"], [("opponent_piece", "corrected")], "*"),
    # IT 8.1.7: a piece taken off without a capture
    ("removed_without_reason", None, "L11 Cw correct:b P11 L22 P18 Cw",
     ["22-18"], [("remove_no_reason", "corrected")], "*"),
    # IT 8.1.11 (INT 5.4.13): the removal of a double capture stopped after the first piece
    ("removal_stopped", "W:W22,31:B18,10,1",
     "L22 P6 L18 Cw correct:b P18 L6 P22 L22 P6 L18 L10 Cw",
     ["22x6"], [("removal_stopped", "corrected")], "*"),
    # IT 8.1.12: a piece removed that was not captured
    ("removed_not_taken", "W:W22,24:B18,1",
     "L22 P13 L18 L1 Cw correct:b P1 P18 L13 P22 L22 P13 L18 Cw",
     ["22x13"], [("removed_not_taken", "corrected")], "*"),
    # IT 8.1.13: an own piece removed after the capture
    ("removed_own", "W:W22,24:B18,1",
     "L22 P13 L18 L24 Cw correct:b P24 P18 L13 P22 L22 P13 L18 Cw",
     ["22x13"], [("removed_own", "corrected")], "*"),
    # IT 8.1.14 (INT 5.4.02): a piece taken off by a move that captures nothing
    ("impossible_capture", "W:W22,24:B18,1",
     "L24 P20 L1 Cw correct:b P1 L20 P24 L22 P13 L18 Cw",
     ["22x13"], [("impossible", "corrected")], "*"),
    # IT 3.10 (a blocked piece adjusted) and 3.11 (the opponent's piece touched) (INT 3.13)
    ("notices_3_10_3_11", None, "L31 P31 L11 P11 L22 P18 Cw",
     ["22-18"], [("touch_unplayable", "noted"), ("touch_not_on_move", "noted")], "*"),
    # IT 8.2: the offender cannot keep his own irregularity; the opponent's correction counts
    ("offender_cannot_decide", None, "L22 P14 Cw accept:w correct:b L14 P22 L22 P18 Cw",
     ["22-18"], [("irregular_move", "corrected"), ("offender_decides", "noted")], "*"),
    # IT 5.12 / INT 4.11: captured pieces removed neither in the direct nor the reverse order
    ("removal_out_of_order", "W:W29:B26,19,12,1",
     "L29 P22 L22 P15 L15 P8 L19 L26 L12 Cw",
     ["29x8"], [("removal_order", "noted")], "*"),
    # IT 7.1: a man missing at the set-up, put on before the first move
    ("setup_checked", None, snap("1-11,21-32") + " P12 L22 P18 Cw",
     ["22-18"], [("setup", "corrected"), ("disturbed", "corrected")], "*"),
    # IT 7.2: the board turned the wrong way (dark corner on the left) seen at set-up, set right
    ("board_turned_7_2", None, "ORIENT " + snap("1-12,21-32") + " L22 P18 Cw",
     ["22-18"], [("orientation", "corrected"), ("disturbed", "corrected")], "*"),
    # IT 10.1: the move count asked for without a king each
    ("count_without_kings", None, "count:w L22 P18 Cw",
     ["22-18"], [("count_impossible", "noted")], "*"),
    # IT 10.2: the move count asked for by a player, then imposed by the arbiter
    ("count_requested_and_imposed", "W:WK29,K32:BK1,K4",
     "count:w L29 P25 Cw A:impose_count A:adjudicate:1/2-1/2",
     ["29-25"], [("count_request", "noted"), ("count_request", "noted")], "1/2-1/2"),
    # COMP 4.4.5: the clock pressed before moving
    ("press_without_move", None, "Cw L22 P18 Cw",
     ["22-18"], [("COMP 4.4.5", "noted")], "*"),
    # COMP 6.15: a draw offered before moving; an acceptance with no offer standing
    ("draw_offer_wrong_time", None, "draw_offer:w L22 P18 Cw draw_accept:b",
     ["22-18"], [("COMP 6.15", "noted"), ("COMP 6.15", "noted")], "*"),
    # COMP 6.16: the arbiter's note; then a resignation
    ("note_then_resign", None, "L22 P18 Cw A:note:black_complains_of_noise resign:b",
     ["22-18"], [("COMP 6.16", "noted")], "1-0"),
    # COMP 4.13: the clock pressed during a correction, before the position is restored
    ("press_during_correction", None, "L22 P17 Cw correct:b Cw L17 P22 L22 P18 Cw",
     ["22-18"], [("irregular_move", "corrected"), ("COMP 4.13", "noted")], "*"),
    # IT 8.1.1: moving twice, corrected
    ("moved_twice", None, "L22 P18 Cw L23 P19 Cw correct:b L19 P23 L11 P15 Cb",
     ["22-18", "11-15"], [("twice", "corrected")], "*"),
    # IT 8.1.6: a capture omitted, corrected
    ("omit_capture", "W:W22,24:B18,1", "L24 P20 Cw correct:b L20 P24 L22 P13 L18 Cw",
     ["22x13"], [("omit_capture", "corrected")], "*"),
    # IT 8.1.9: stopping in a double capture, corrected
    ("stop_in_capture", "W:W22,31:B18,10,1",
     "L22 P13 L18 Cw correct:b L13 P22 P18 L22 P6 L18 L10 Cw",
     ["22x6"], [("stop", "corrected")], "*"),
]
# which base scenarios each rule set needs (the others it has already, or has no such article)
FOR_EN = ("takeback", "opponent_piece", "removed_without_reason", "removal_stopped",
          "removed_not_taken", "removed_own", "impossible_capture", "notices_3_10_3_11",
          "offender_cannot_decide", "removal_out_of_order", "setup_checked", "board_turned_7_2",
          "count_without_kings", "count_requested_and_imposed", "press_without_move",
          "draw_offer_wrong_time", "note_then_resign", "press_during_correction")
FOR_BR = ("takeback", "opponent_piece", "removed_without_reason", "removed_not_taken",
          "removed_own", "impossible_capture", "notices_3_10_3_11", "offender_cannot_decide",
          "removal_out_of_order", "setup_checked", "board_turned_7_2", "press_without_move",
          "draw_offer_wrong_time", "note_then_resign", "press_during_correction", "moved_twice",
          "omit_capture", "stop_in_capture")
FOR_IT = ("removal_out_of_order", "board_turned_7_2", "count_without_kings",
          "press_during_correction")


def _same(n: int) -> int:
    return n


def _rule_set_scenarios() -> list[Scenario]:
    out: list[Scenario] = []
    for name, fen, script, moves, flags, result in BASE:
        for variant, wanted, col, prefix in (("italian", FOR_IT, 0, "IT"),
                                             ("english", FOR_EN, 1, "EN"),
                                             ("brazilian", FOR_BR, 2, "BR")):
            if name not in wanted:
                continue
            sq: Callable[[int], int]
            say: Callable[[int], str]
            if variant == "italian":
                sq, swap = _same, False
                say = str
                orient = mirrored_start(alg_it, _IT_INITIAL, 8)
            elif variant == "english":
                sq, swap = it_to_en, True
                say = str
                orient = mirrored_start(alg8, _IT_INITIAL, 8)
            else:
                sq, swap = it_to_br, False
                say = alg8
                orient = mirrored_start(alg8, _IT_INITIAL, 8)
            s = translate(script.replace("ORIENT ", ""), sq, swap)
            if script.startswith("ORIENT "):
                s = orient + " " + s
            ov: dict[str, object] = {} if fen is None else {"fen": translate_fen(fen, sq, swap)}
            mv = []
            for m in moves:
                sep = "x" if "x" in m else "-"
                a, b = m.split(sep)
                mv.append(f"{say(sq(int(a)))}{sep}{say(sq(int(b)))}")
            fl = [[k if k.startswith("COMP") else f"{prefix} {ART[k][col]}", st]
                  for k, st in flags]
            res = {"1-0": "0-1", "0-1": "1-0"}.get(result, result) if swap else result
            out.append((variant, f"art_{name}", ov, s, mv, fl, res, {}))
    return out


# International (10×10): written out, Manoury numbers (INT 2.6), White 31-50 first.
INT_ARTICLES: list[Scenario] = [
    # INT 3.13: adjusting without "ajeito": a blocked own man, then the opponent's man
    ("international", "art_notices_3_13", {},
     "L41 P41 L19 P19 L32 P28 Cw",
     ["32-28"], [["INT 3.13", "noted"], ["INT 3.13", "noted"]], "*", {}),
    # INT 4.11: three captured men removed neither ascending nor descending (41, 32, 23 taken)
    ("international", "art_removal_out_of_order_4_11", {"fen": "W:W46:B41,32,23,3"},
     "L46 P37 L37 P28 L28 P19 L32 L41 L23 Cw",
     ["46x19"], [["INT 4.11", "noted"]], "*", {"fen": "B:W19:B3"}),
    # INT 5.1: the board wrongly placed (2.4), seen at set-up and set right
    ("international", "art_board_turned_5_1", {},
     mirrored_start(alg10, rng(1, 20) + rng(31, 50), 10) + " " + snap(INT_START)
     + " L32 P28 Cw",
     ["32-28"], [["INT 5.1", "corrected"], ["INT 5.5", "corrected"]], "*", {}),
    # INT 5.2: the set-up (2.8) checked before the start: a man missing, put on
    ("international", "art_setup_checked_5_2", {},
     snap("1-19,31-50") + " P20 L32 P28 Cw",
     ["32-28"], [["INT 5.2", "corrected"], ["INT 5.5", "corrected"]], "*", {}),
    # INT 5.4: only the offender's opponent decides
    ("international", "art_offender_cannot_decide_5_4", {},
     "L32 P23 Cw accept:w correct:b L23 P32 L32 P28 Cw",
     ["32-28"], [["INT 5.4.02", "corrected"], ["INT 5.4", "noted"]], "*", {}),
    # INT 5.4.04: a move taken back
    ("international", "art_takeback_5_4_04", {},
     "L32 P28 Cw L28 P32 correct:b L32 P28 L17 P21 Cb",
     ["32-28", "17-21"], [["INT 5.4.04", "corrected"]], "*", {}),
    # INT 5.4.05: the opponent's man played
    ("international", "art_opponent_piece_5_4_05", {},
     "L19 P23 Cw correct:b L23 P19 L32 P28 Cw",
     ["32-28"], [["INT 5.4.05", "corrected"]], "*", {}),
    # INT 5.4.07: a man taken off without reason
    ("international", "art_removed_without_reason_5_4_07", {},
     "L19 Cw correct:b P19 L32 P28 Cw",
     ["32-28"], [["INT 5.4.07", "corrected"]], "*", {}),
    # INT 5.4.09: stopping before the end of a double capture (4.10: the man let go on 21)
    ("international", "art_stop_in_capture_5_4_09", {"fen": "W:W32,40:B27,17,8,3"},
     "L32 P21 L27 Cw correct:b P27 L21 P32 L32 P21 L21 P12 L27 L17 Cw",
     ["32x12"], [["INT 5.4.09", "corrected"]], "*", {"fen": "B:W12,40:B3,8"}),
    # INT 5.4.12: a man removed that was not captured
    ("international", "art_removed_not_taken_5_4_12", {"fen": "W:W32,40:B27,8,3"},
     "L32 P21 L27 L8 Cw correct:b P8 P27 L21 P32 L32 P21 L27 Cw",
     ["32x21"], [["INT 5.4.12", "corrected"]], "*", {"fen": "B:W21,40:B3,8"}),
    # INT 5.4.13: the removal of a double capture stopped part-way (4.12)
    ("international", "art_removal_stopped_5_4_13", {"fen": "W:W32,40:B27,17,8,3"},
     "L32 P21 L21 P12 L27 Cw correct:b P27 L12 P32 L32 P21 L21 P12 L27 L17 Cw",
     ["32x12"], [["INT 5.4.13", "corrected"]], "*", {"fen": "B:W12,40:B3,8"}),
    # INT 5.4.14: an own man removed after the capture
    ("international", "art_removed_own_5_4_14", {"fen": "W:W32,40:B27,8,3"},
     "L32 P21 L27 L40 Cw correct:b P40 P27 L21 P32 L32 P21 L27 Cw",
     ["32x21"], [["INT 5.4.14", "corrected"]], "*", {"fen": "B:W21,40:B3,8"}),
    # COMP 4.4.5, 6.15, 6.16, 4.13 in an international game
    ("international", "art_press_without_move", {},
     "Cw L32 P28 Cw", ["32-28"], [["COMP 4.4.5", "noted"]], "*", {}),
    ("international", "art_draw_offer_wrong_time", {},
     "draw_offer:w L32 P28 Cw draw_accept:b",
     ["32-28"], [["COMP 6.15", "noted"], ["COMP 6.15", "noted"]], "*", {}),
    ("international", "art_note_then_resign", {},
     "L32 P28 Cw A:note:white_complains_of_noise resign:b",
     ["32-28"], [["COMP 6.16", "noted"]], "2-0", {}),
    ("international", "art_press_during_correction", {},
     "L32 P23 Cw correct:b Cw L23 P32 L32 P28 Cw",
     ["32-28"], [["INT 5.4.02", "corrected"], ["COMP 4.13", "noted"]], "*", {}),
]

# Brazilian by hand where the Italian geometry does not carry over (men capture backwards and
# the greatest number of pieces must be taken, 001 4.2, 4.13).
BR_ARTICLES: list[Scenario] = [
    # BR 5.4.08: White 28 takes one man where 22 takes two (c3xg7): fewer than the rule requires
    ("brazilian", "art_count_5_4_08", {"fen": "W:W22,28:B18,11,24,2"},
     "L28 P19 L24 Cw correct:b P24 L19 P28 L22 P15 L15 P8 L18 L11 Cw",
     ["c3xg7"], [["BR 5.4.08", "corrected"]], "*", {}),
    # BR 5.4.10: a captured man removed before the capture is over (INT 4.11)
    ("brazilian", "art_early_removal_5_4_10", {"fen": "W:W22,28:B18,11,2"},
     "L22 L18 P15 L15 P8 L11 Cw correct:b P18 P11 L8 P22 L22 P15 L15 P8 L18 L11 Cw",
     ["c3xg7"], [["BR 5.4.10", "corrected"]], "*", {}),
]



# Loss on time through the arbiter (COMP 4.8: the flag falls while the player thinks), and the
# article that ends the game in each rule set's own numbering (EN 9.2, 001 7.2 for Brazilian).
ENDINGS: list[Scenario] = [
    ("italian", "art_lost_on_time_comp_4_8", {"time_control": "60"},
     "A:start_clock L22 P18 Cw +70 E",
     ["22-18"], [], "1-0", {"outcome": "COMP 4.8", "fen": "B:W18,21,23-32:B1-12"}),
    ("english", "art_lost_on_time_comp_4_8", {"time_control": "60"},
     "A:start_clock L11 P15 Cb +70 E",
     ["11-15"], [], "0-1", {"outcome": "COMP 4.8", "fen": "W:W21-32:B1-10,12,15"}),
    ("international", "art_lost_on_time_comp_4_8", {"time_control": "60"},
     "A:start_clock L32 P28 Cw +70 E",
     ["32-28"], [], "2-0", {"outcome": "COMP 4.8", "fen": "B:W28,31,33-50:B1-20"}),
    # INT 5.5 (IT 7.8): an accidental disturbance is undone at once, in the game. Two black men
    # displaced and pressed: the position is to be put right; Black's flag falls first (COMP
    # 4.8) and the men put back after the result correct nothing: the notice stays pending, as
    # the board that journals no piece once the game is over rules it (issue 35)
    ("international", "art_put_back_after_the_flag_fell_5_5", {"time_control": "60"},
     "A:start_clock L32 P28 Cw L19 P24 L20 P25 Cb +70 L24 L25 P19 P20 E",
     ["32-28"], [["INT 5.5", "pending"]], "2-0",
     {"outcome": "COMP 4.8", "fen": "B:W28,31,33-50:B1-20"}),
    # the same put right by the arbiter (IT 7.8) or seen whole by a snapshot after the result:
    # the board takes neither once the game is over, the notice stays pending
    ("international", "art_restored_after_the_flag_fell_5_5", {"time_control": "60"},
     "A:start_clock L32 P28 Cw L19 P24 L20 P25 Cb +70 A:restore E",
     ["32-28"], [["INT 5.5", "pending"]], "2-0",
     {"outcome": "COMP 4.8", "fen": "B:W28,31,33-50:B1-20"}),
    ("international", "art_seen_right_after_the_flag_fell_5_5", {"time_control": "60"},
     "A:start_clock L32 P28 Cw L19 P24 L20 P25 Cb +70 S:"
     + ",".join(str(n) for n in [*range(1, 21), 28, 31, *range(33, 51)]) + " E",
     ["32-28"], [["INT 5.5", "pending"]], "2-0",
     {"outcome": "COMP 4.8", "fen": "B:W28,31,33-50:B1-20"}),
    ("brazilian", "art_lost_on_time_comp_4_8", {"time_control": "60"},
     "A:start_clock L22 P17 Cw +70 E",
     ["c3-b4"], [], "1-0", {"outcome": "COMP 4.8", "fen": "B:W17,21,23-32:B1-12"}),
    # EN 9.2.1 resignation, EN 9.2.3 no pieces left
    ("english", "art_resigns_9_2_1", {},
     "L11 P15 Cb resign:w", ["11-15"], [], "0-1", {"outcome": "EN 9.2.1"}),
    ("english", "art_no_pieces_9_2_3", {"fen": "B:W18:B14"},
     "L14 P23 L18 Cb", ["14x23"], [], "0-1", {"outcome": "EN 9.2.3", "fen": "W:W:B23"}),
    # 001 7.2.1 / 7.2.3 (BR numbered as the international rules, SPEC §1)
    ("brazilian", "art_resigns_7_2_1", {},
     "L22 P17 Cw resign:b", ["c3-b4"], [], "1-0", {"outcome": "BR 7.2.1"}),
    ("brazilian", "art_no_pieces_7_2_3", {"fen": "W:W22:B18"},
     "L22 P15 L18 Cw", ["c3xe5"], [], "1-0", {"outcome": "BR 7.2.3", "fen": "B:W15:B"}),
    ("italian", "art_no_pieces_9_2_3", {"fen": "W:W22:B18"},
     "L22 P13 L18 Cw", ["22x13"], [], "1-0", {"outcome": "IT 9.2.3", "fen": "B:W13:B"}),
    ("international", "art_no_pieces_7_2_3", {"fen": "W:W32:B27"},
     "L32 P21 L27 Cw", ["32x21"], [], "2-0", {"outcome": "INT 7.2.3", "fen": "B:W21:B"}),
]
ARTICLES: list[Scenario] = _rule_set_scenarios() + INT_ARTICLES + BR_ARTICLES + ENDINGS
