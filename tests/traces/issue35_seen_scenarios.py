"""The scenarios of issue 35, item 4 ("what the report says must be what happened"), read by
``build.py``: the same tuples as issue 16's (``issue16_scenarios.py``). Each expectation comes
from the article cited above it, written before the arbiter ran the trace.

Square numbers (official, SPEC §1): international 28 = e5, 23 = f6, 19 = g7, 33 = f4, 39 = g3;
Italian 22 = d3, 18 = c4, 13 = b5, 19 = e4, 15 = f5, 3 = e8, 7 = f7.
"""

from __future__ import annotations

from issue8_board import B, W, Scenario

ISSUE35_SEEN: list[Scenario] = [
    # INT 4.8 (the Turkish strike): an enemy piece is jumped once only. The flying king 28 jumps
    # 23 to 19, comes back over 23 to 28 and jumps 33 to 39, then 23 and 33 come off. The only
    # capture from 28 to 39 takes 33: 23 was removed and not captured (INT 5.4.12), and the flag
    # says what the sensors saw — the path and the piece jumped twice — for an appeal to read.
    # Corrected (INT 5.8): the position is put back and the king captures 28x39.
    ("international", "i35_turkish_strike_4_8", {"fen": "W:WK28,48:B3,23,33"},
     "L28 P19 L19 P28 L28 P39 L23 L33 Cw correct:b P23 P33 L39 P28 L28 P39 L33 Cw",
     ["28x39"], [["INT 5.4.12", "corrected"]], "*",
     {"fen": "B:WK39,48:B3,23",
      "flag_texts": ["played 28x19x28x39, jumping 23 twice (INT 4.8), and removed 23, 33"]}),
    # IT 6.4, the same on the Italian board: the king 22 jumps 18 to 13, back over 18 to 22 and
    # 19 to 15; 18 and 19 come off. 22x15 takes 19 only: IT 8.1.12, its text the path seen.
    # Kept (IT 8.2): the move stands in the transcript as the capture from 22 to 15 and the game
    # goes on from the position on the board (/FEN/).
    ("italian", "i35_jumped_twice_6_4", {"fen": "W:WK22,31:B3,18,19"},
     "L22 P13 L13 P22 L22 P15 L18 L19 Cw accept:b L3 P7 Cb",
     ["22x15", "3-7"], [["IT 8.1.12", "maintained"]], "*",
     {"fen": "W:WK15,31:B7", "sides": [W, B],
      "flag_texts": ["played 22x13x22x15, jumping 18 twice (IT 6.4), and removed 18, 19"]}),
]
