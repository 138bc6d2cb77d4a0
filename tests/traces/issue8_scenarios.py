"""The scenarios of issue 8 (rule defects 1-10), read by ``build.py``: the same tuples as its
``SCENARIOS`` plus a dict of further expectations (``fen``, ``sides``, ``pdn_contains``,
``pdn_excludes``, ``outcome``; see build.py). Each expectation comes from the article cited in
the comment above it, written before the arbiter ran the trace.

Square numbers (official, SPEC §1): Italian 1 = a8 … 32 = h1 (White 21-32 moves up, first);
English 1 = b8 … 32 = g1 (Black 1-12 moves down, first); international Manoury 1 = b10 … 50 = i1;
Brazilian as international on 8×8 (1 = b8 … 32 = g1, White 21-32 first, notation algebraic).
"""

from __future__ import annotations

from collections.abc import Callable

W, B = "white", "black"
IT_START = "1-12,21-32"
INT_START = "1-20,31-50"


def snap(spec: str) -> str:
    """A snapshot token of the squares ``spec`` (``"1-12,21-32"``)."""
    out: list[str] = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += [str(i) for i in range(int(a), int(b or a) + 1)]
    return "S:" + ",".join(out)


# ---------------------------------------------------------------- geometry of the 8×8 rule sets
def _it_file_rank(n: int) -> tuple[int, int]:
    """Italian square n: (file 0-7 from a, rank 1-8). IT 2.4: 1 = a8, rows left to right."""
    r, i = divmod(n - 1, 4)
    return 2 * i + r % 2, 8 - r


def _en_number(f: int, rank: int) -> int:
    """English / Brazilian square on (file, rank): 1 = b8 … 4 = h8, 5 = a7 … 32 = g1."""
    r = 8 - rank
    return 4 * r + (f - (1 - r % 2)) // 2 + 1


def alg8(n: int) -> str:
    """Algebraic name of English / Brazilian square n (seen from White's side)."""
    r, i = divmod(n - 1, 4)
    return "abcdefgh"[2 * i + (1 - r % 2)] + str(8 - r)


def it_to_en(n: int) -> int:
    """The English square of Italian square n on the board turned upside down: the Italian game
    seen with colours swapped (English Black starts at the top and moves first, EN 2.6, 3.4)."""
    f, rank = _it_file_rank(n)
    return _en_number(f, 9 - rank)


def it_to_br(n: int) -> int:
    """The Brazilian square of Italian square n on the board mirrored left to right (the same
    colours: White 21-32 moves first in both)."""
    f, rank = _it_file_rank(n)
    return _en_number(7 - f, rank)


def _map_square_token(tok: str, sq: Callable[[int], int]) -> str:
    return tok[0] + str(sq(int(tok[1:])))


def translate(script: str, sq: Callable[[int], int], swap: bool) -> str:
    """An Italian script on another 8×8 board: squares mapped, and the sides swapped if
    ``swap`` (White's buttons become Black's)."""
    out = []
    for tok in script.split():
        if tok[0] in "LP" and tok[1:].isdigit():
            tok = _map_square_token(tok, sq)
        elif tok.startswith("S:"):
            tok = "S:" + ",".join(str(sq(int(x))) for x in tok[2:].split(","))
        elif swap and tok in ("Cw", "Cb"):
            tok = "Cb" if tok == "Cw" else "Cw"
        elif swap and tok[-2:] in (":w", ":b"):
            tok = tok[:-1] + ("b" if tok[-1] == "w" else "w")
        out.append(tok)
    return " ".join(out)


def translate_fen(fen: str, sq: Callable[[int], int], swap: bool) -> str:
    turn, *sides = fen.split(":")
    parts = {}
    for part in sides:
        items = []
        for x in part[1:].split(","):
            k = x.startswith("K")
            items.append(("K" if k else "") + str(sq(int(x.lstrip("K")))))
        parts[part[0]] = items
    if swap:
        turn = "B" if turn == "W" else "W"
        parts = {"W": parts.get("B", []), "B": parts.get("W", [])}
    return f"{turn}:W{','.join(parts['W'])}:B{','.join(parts['B'])}"


def mirrored_start(number_to_alg: Callable[[int], str], squares: list[int], size: int) -> str:
    """A snapshot token of the initial position on a board turned the wrong way (IT 7.2, EN 7.2,
    INT 5.1): every piece on the square mirrored left to right, i.e. on the light squares."""
    names = []
    for n in squares:
        a = number_to_alg(n)
        names.append("abcdefghij"[size - 1 - "abcdefghij".index(a[0])] + a[1:])
    return "S:" + ",".join(names)


def alg_it(n: int) -> str:
    f, rank = _it_file_rank(n)
    return "abcdefgh"[f] + str(rank)


def alg10(n: int) -> str:
    """Algebraic name of international square n (Manoury: 1 = b10 … 50 = i1)."""
    r, i = divmod(n - 1, 5)
    return "abcdefghij"[2 * i + (1 - r % 2)] + str(10 - r)


def rng(a: int, b: int) -> list[int]:
    return list(range(a, b + 1))


Scenario = tuple[str, str, dict[str, object], str, list[str], list[list[str]], str,
                 dict[str, object]]

ISSUE8: list[Scenario] = [
    # ------------------------------------------------------------ defect 1: kept irregular moves
    # TRACE.md: a maintained irregular move, and a pending one, stand in `moves` in their place
    # with the side that played them; the PDN follows it with its /FEN/ and numbers the next move
    # on (IT 8.2 accept, IT 8.3 kept by the opponent's move; EN 8.2-8.3; INT 5.4, 5.7).
    ("italian", "d1_kept_by_accept_8_2", {},
     "L22 P18 Cw L11 P16 Cb accept:w L21 P17 Cw",
     ["22-18", "11-16", "21-17"], [["IT 8.1.2", "maintained"]], "*",
     {"fen": "B:W17,18,23-32:B1-10,12,16", "sides": [W, B, W],
      "pdn_contains": ['11-16 /FEN "W:W18,21,23-32:B1-10,12,16"/ 2. 21-17']}),
    ("italian", "d1_kept_by_play_8_3", {},
     "L22 P18 Cw L11 P16 Cb L21 P17 Cw",
     ["22-18", "11-16", "21-17"], [["IT 8.1.2", "maintained"]], "*",
     {"fen": "B:W17,18,23-32:B1-10,12,16", "sides": [W, B, W],
      "pdn_contains": ['11-16 /FEN "W:W18,21,23-32:B1-10,12,16"/ 2. 21-17']}),
    ("italian", "d1_pending_stands_in_transcript", {},
     "L22 P18 Cw L11 P16 Cb E",
     ["22-18", "11-16"], [["IT 8.1.2", "pending"]], "*",
     {"fen": "W:W18,21,23-32:B1-10,12,16", "sides": [W, B],
      "pdn_contains": ['11-16 /FEN "W:W18,21,23-32:B1-10,12,16"/']}),
    ("italian", "d1_white_kept_mid_game", {},
     "L22 P18 Cw L11 P15 Cb L24 P16 Cw accept:b L10 P14 Cb",
     ["22-18", "11-15", "24-16", "10-14"], [["IT 8.1.2", "maintained"]], "*",
     {"fen": "W:W16,18,21,23,25-32:B1-9,12,14,15", "sides": [W, B, W, B],
      "pdn_contains": ['2. 24-16 /FEN "B:W16,18,21,23,25-32:B1-10,12,15"/']}),
    ("english", "d1_kept_by_accept_8_2", {},
     "L11 P15 Cb L24 P20 Cw L12 P11 Cb accept:w L22 P18 Cw",
     ["11-15", "24-20", "12-11", "22-18"], [["EN 8.1.2", "maintained"]], "*",
     {"fen": "B:W18,20,21,23,25-32:B1-11,15", "sides": [B, W, B, W],
      "pdn_contains": ['2. 12-11 /FEN "W:W20-23,25-32:B1-11,15"/ 22-18']}),
    ("english", "d1_pending_stands_in_transcript", {},
     "L11 P15 Cb L24 P20 Cw L12 P11 Cb E",
     ["11-15", "24-20", "12-11"], [["EN 8.1.2", "pending"]], "*",
     {"fen": "W:W20-23,25-32:B1-11,15", "sides": [B, W, B],
      "pdn_contains": ['2. 12-11 /FEN "W:W20-23,25-32:B1-11,15"/']}),
    ("international", "d1_kept_by_accept_5_4", {},
     "L32 P28 Cw L16 P26 Cb accept:w L33 P29 Cw",
     ["32-28", "16-26", "33-29"], [["INT 5.4.02", "maintained"]], "*",
     {"fen": "B:W28,29,31,34-50:B1-15,17-20,26", "sides": [W, B, W],
      "pdn_contains": ['16-26 /FEN "W:W28,31,33-50:B1-15,17-20,26"/ 2. 33-29']}),
    ("international", "d1_kept_by_play_5_7", {},
     "L32 P28 Cw L16 P26 Cb L33 P29 Cw",
     ["32-28", "16-26", "33-29"], [["INT 5.4.02", "maintained"]], "*",
     {"fen": "B:W28,29,31,34-50:B1-15,17-20,26", "sides": [W, B, W],
      "pdn_contains": ['16-26 /FEN "W:W28,31,33-50:B1-15,17-20,26"/ 2. 33-29']}),
    ("brazilian", "d1_kept_by_accept_5_4", {},
     "L22 P17 Cw L12 P20 Cb accept:w L23 P19 Cw",
     ["c3-b4", "h6-h4", "e3-f4"], [["BR 5.4.02", "maintained"]], "*",
     {"fen": "B:W17,19,21,24-32:B1-11,20", "sides": [W, B, W],
      "pdn_contains": ['h6-h4 /FEN "W:W', '"/ 2. e3-f4']}),
    # IT 8.1.1 kept: White moves twice; both white moves stand, numbered on (no "2. … 2.")
    ("italian", "d1_moved_twice_kept_8_1_1", {},
     "L22 P18 Cw L11 P15 Cb L21 P17 Cw L25 P21 Cw accept:b L12 P16 Cb",
     ["22-18", "11-15", "21-17", "25-21", "12-16"], [["IT 8.1.1", "maintained"]], "*",
     {"fen": "W:W17,18,21,23,24,26-32:B1-10,15,16", "sides": [W, B, W, W, B],
      "pdn_contains": ['25-21 /FEN "B:W17,18,21,23,24,26-32:B1-10,12,15"/']}),
    # IT 8.1.5 kept: White moves Black's man 10-14; it stands as White's move
    ("italian", "d1_opponent_piece_kept_8_1_5", {},
     "L22 P18 Cw L11 P15 Cb L10 P14 Cw accept:b L12 P16 Cb",
     ["22-18", "11-15", "10-14", "12-16"], [["IT 8.1.5", "maintained"]], "*",
     {"fen": "W:W18,21,23-32:B1-9,14-16", "sides": [W, B, W, B],
      "pdn_contains": ['2. 10-14 /FEN "B:W18,21,23-32:B1-9,12,14,15"/ 12-16']}),
    ("english", "d1_moved_twice_kept_8_1_1", {},
     "L11 P15 Cb L24 P20 Cw L9 P13 Cb L10 P14 Cb accept:w L22 P18 Cw",
     ["11-15", "24-20", "9-13", "10-14", "22-18"], [["EN 8.1.1", "maintained"]], "*",
     {"sides": [B, W, B, B, W],
      "pdn_contains": ['10-14 /FEN "W:W20-23,25-32:B1-8,12-15"/']}),
    ("international", "d1_moved_twice_kept_5_4_01", {},
     "L32 P28 Cw L16 P21 Cb L33 P29 Cw L34 P30 Cw accept:b L17 P22 Cb",
     ["32-28", "16-21", "33-29", "34-30", "17-22"], [["INT 5.4.01", "maintained"]], "*",
     {"sides": [W, B, W, W, B],
      "pdn_contains": ['34-30 /FEN "B:W28-31,35-50:B1-15,17-21"/']}),
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
    # IT 8.4 then IT 3.7: after the correction of an illegal move the offender lifts a playable
    # piece, puts it back and moves another: IT 8.1.3, corrected: he must play the touched piece.
    ("italian", "d7_touch_after_correction_3_7", {},
     "L22 P17 Cw correct:b L17 P22 L21 P21 L22 P18 Cw correct:b L18 P22 L21 P17 Cw",
     ["21-17"], [["IT 8.1.2", "corrected"], ["IT 8.1.3", "corrected"]], "*",
     {"fen": "B:W17,22-32:B1-12"}),
    # lifted DURING the restoration (before the moved piece is back): IT 3.7 binds all the same
    ("italian", "d7_touch_during_correction_3_7", {},
     "L22 P17 Cw correct:b L17 L21 P21 P22 L22 P18 Cw correct:b L18 P22 L21 P17 Cw",
     ["21-17"], [["IT 8.1.2", "corrected"], ["IT 8.1.3", "corrected"]], "*",
     {"fen": "B:W17,22-32:B1-12"}),
    ("english", "d7_touch_during_correction_3_7", {},
     "L9 P18 Cb correct:w L18 L10 P10 P9 L11 P15 Cb correct:w L15 P11 L10 P14 Cb",
     ["10-14"], [["EN 8.1.2", "corrected"], ["EN 8.1.3", "corrected"]], "*",
     {"fen": "W:W21-32:B1-9,11,12,14"}),
    ("international", "d7_touch_during_correction_3_11", {},
     "L32 P23 Cw correct:b L23 L31 P31 P32 L32 P28 Cw correct:b L28 P32 L31 P27 Cw",
     ["31-27"], [["INT 5.4.02", "corrected"], ["INT 5.4.03", "corrected"]], "*",
     {"fen": "B:W27,32-50:B1-20"}),
    ("brazilian", "d7_touch_during_correction_3_11", {},
     "L22 P15 Cw correct:b L15 L21 P21 P22 L22 P17 Cw correct:b L17 P22 L21 P17 Cw",
     ["a3-b4"], [["BR 5.4.02", "corrected"], ["BR 5.4.03", "corrected"]], "*",
     {"fen": "B:W17,22-32:B1-12"}),
    ("english", "d7_touch_after_correction_3_7", {},
     "L9 P18 Cb correct:w L18 P9 L10 P10 L11 P15 Cb correct:w L15 P11 L10 P14 Cb",
     ["10-14"], [["EN 8.1.2", "corrected"], ["EN 8.1.3", "corrected"]], "*",
     {"fen": "W:W21-32:B1-9,11,12,14"}),
    ("international", "d7_touch_after_correction_3_11", {},
     "L32 P23 Cw correct:b L23 P32 L31 P31 L32 P28 Cw correct:b L28 P32 L31 P27 Cw",
     ["31-27"], [["INT 5.4.02", "corrected"], ["INT 5.4.03", "corrected"]], "*",
     {"fen": "B:W27,32-50:B1-20"}),
    ("brazilian", "d7_touch_after_correction_3_11", {},
     "L22 P15 Cw correct:b L15 P22 L21 P21 L22 P17 Cw correct:b L17 P22 L21 P17 Cw",
     ["a3-b4"], [["BR 5.4.02", "corrected"], ["BR 5.4.03", "corrected"]], "*",
     {"fen": "B:W17,22-32:B1-12"}),
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

ISSUE8 += _rule_set_scenarios() + INT_ARTICLES + BR_ARTICLES

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
ISSUE8 += ENDINGS

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
      "pdn_contains": ['2. 19-24 /FEN "B:W28,31,33-50:B1-16,18,20,21,24"/ 20-25']}),
    ("international", "d1_pending_stands_in_transcript", {},
     "L32 P28 Cw L16 P26 Cb E",
     ["32-28", "16-26"], [["INT 5.4.02", "pending"]], "*",
     {"fen": "W:W28,31,33-50:B1-15,17-20,26", "sides": [W, B],
      "pdn_contains": ['16-26 /FEN "W:W28,31,33-50:B1-15,17-20,26"/']}),
    ("brazilian", "d1_pending_stands_in_transcript", {},
     "L22 P17 Cw L12 P20 Cb E",
     ["c3-b4", "h6-h4"], [["BR 5.4.02", "pending"]], "*",
     {"fen": "W:W17,21,23-32:B1-11,20", "sides": [W, B], "pdn_contains": ['h6-h4 /FEN "W:W']}),
    # IT 8.1.13 kept: the capture stands, and the /FEN/ shows the own man gone
    ("italian", "d1_removed_own_kept_8_1_13", {"fen": "W:W22,24:B18,1"},
     "L22 P13 L18 L24 Cw accept:b L1 P5 Cb",
     ["22x13", "1-5"], [["IT 8.1.13", "maintained"]], "*",
     {"fen": "W:W13:B5", "sides": [W, B], "pdn_contains": ['22x13 /FEN "B:W13:B1"/ 1-5']}),
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
      "pdn_contains": ['11-16 /FEN "W:W18,21,23-32:B1-10,12,16"/ 2. 21-17']}),
    ("english", "d1_kept_by_touch_8_3", {},
     "L11 P15 Cb L24 P20 Cw L12 P11 Cb L22 P22 correct:w L22 P18 Cw",
     ["11-15", "24-20", "12-11", "22-18"], [["EN 8.1.2", "maintained"]], "*",
     {"fen": "B:W18,20,21,23,25-32:B1-11,15", "sides": [B, W, B, W],
      "pdn_contains": ['2. 12-11 /FEN "W:W20-23,25-32:B1-11,15"/ 22-18']}),
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
# still has the irregular move corrected; later he plays that man.
INT_5_7: list[Scenario] = [
    ("international", "d1_touch_is_not_acceptance_5_7", {},
     "L32 P28 Cw L16 P26 Cb L33 P33 correct:w L26 P16 L17 P21 Cb L33 P29 Cw",
     ["32-28", "17-21", "33-29"], [["INT 5.4.02", "corrected"]], "*",
     {"fen": "B:W28,29,31,34-50:B1-16,18-21", "sides": [W, B, W]}),
    ("brazilian", "d1_touch_is_not_acceptance_5_7", {},
     "L22 P17 Cw L12 P20 Cb L23 P23 correct:w L20 P12 L11 P15 Cb L23 P19 Cw",
     ["c3-b4", "f6-e5", "e3-f4"], [["BR 5.4.02", "corrected"]], "*",
     {"fen": "B:W17,19,21,24-32:B1-10,12,15", "sides": [W, B, W]}),
]
ISSUE8 += INT_5_7
