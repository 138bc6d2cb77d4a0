"""Authoring tool of the scenario library: writes ``<variant>/<name>.jsonl`` and its
``<name>.expected.json`` from the compact scripts below. The expectations are written here by hand,
from the articles, before the arbiter ran them; ``tests/engine/test_replay_traces.py`` replays
every trace and compares. Run ``python tests/traces/build.py`` after editing.

Script tokens (time advances 0.5 s per token; ``+N`` advances N seconds more):
``L22``/``Le3`` lift, ``P18`` place, ``Cw``/``Cb`` clock press, ``name:w`` a button by white
(correct, accept, accomodo, draw_offer, draw_accept, resign, count, repetition), ``A:action``
or ``A:adjudicate:1-0`` or ``A:note:some_text`` an arbiter action, ``S:a1,c3,...`` a snapshot,
``E`` the end of the trace. Boards that know the pieces (issue 40): ``P18=wm`` a place with the
piece seen (``wm``/``bm``/``wk``/``bk``; ``P18=wk@1.9`` with its reading, else the nominal one of
:data:`READINGS`), ``K18=wk`` a ``piece`` line (the piece on an occupied square changed: a crown
put on or lifted off), ``S:1=bm,2=bm,...`` a snapshot with the pieces.

Expectations: ``moves`` (PDN notation, in the report's order), ``flags`` ([code, status] in order)
and ``result`` always; the scenarios of ``ISSUE8`` may add, in a dict after the result:
``fen`` (the final position), ``sides`` (the side of each move of ``moves``: an irregular move
that stands is in the transcript with the side that played it, docs/trace-format.md), ``pdn_contains`` /
``pdn_excludes`` (substrings of the report's PDN, e.g. the ``/FEN "…"/`` after a kept irregular
move), ``outcome`` (the article that ended the game) and ``flag_texts`` (for each flag a
substring of its text, or null; issue 16). Traces that today's arbiter gets wrong
are listed in ``PENDING.txt`` with the defect of issue 8 they show.
"""

from __future__ import annotations

import json
from pathlib import Path

# issue 8's, 16's, 35's and 40's scenarios, kept apart (this file runs as a script: the folder is on
# sys.path)
from issue8_scenarios import ISSUE8
from issue16_scenarios import ISSUE16
from issue35_scenarios import ISSUE35
from issue35_seen_scenarios import ISSUE35_SEEN
from issue40_scenarios import ISSUE40

HERE = Path(__file__).parent
BUTTONS = ("clock", "accomodo", "correct", "accept", "draw_offer", "draw_accept", "resign", "count",
           "repetition")


def _sq(tok: str) -> int | str:
    return int(tok) if tok.isdigit() else tok


#: The reading of each piece when a script gives none: the sensor's normalised field (issue 40)
READINGS = {"wm": 1.0, "bm": -1.0, "wk": 2.0, "bk": -2.0}


def _seen(token: str) -> dict[str, object]:
    """``wm`` / ``wk@1.04`` (after the ``=`` of ``P18=wm``): the piece and reading keys."""
    if not token:
        return {}
    code, _, reading = token.partition("@")
    return {"piece": code, "reading": float(reading) if reading else READINGS[code]}


def events(script: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    t = 0.0
    for tok in script.split():
        if tok.startswith("+"):
            t += float(tok[1:])
            continue
        t += 0.5
        square, _, seen = tok.partition("=")
        if tok[0] in "LPK" and (square[1:].isdigit() or square[1].isalpha() and square[2:].isdigit()):
            kind = {"L": "lift", "P": "place", "K": "piece"}[tok[0]]
            out.append({"t": t, "type": kind, "square": _sq(square[1:]), **_seen(seen)})
        elif tok in ("Cw", "Cb"):
            out.append({"t": t, "type": "button", "name": "clock",
                        "side": "white" if tok == "Cw" else "black"})
        elif tok.startswith("A:"):
            parts = tok.split(":")
            e: dict[str, object] = {"t": t, "type": "arbiter", "action": parts[1]}
            if parts[1] == "adjudicate":
                e["result"] = parts[2]
            if parts[1] == "note":
                e["text"] = parts[2].replace("_", " ")
            out.append(e)
        elif tok.startswith("S:"):
            squares = [s.partition("=") for s in tok[2:].split(",") if s]
            snapshot: dict[str, object] = {"t": t, "type": "snapshot",
                                           "occupied": [_sq(s) for s, _, _ in squares]}
            if any(code for _, _, code in squares):
                snapshot["pieces"] = {s: code for s, _, code in squares if code}
            out.append(snapshot)
        elif tok == "E":
            out.append({"t": t, "type": "end"})
        elif ":" in tok and tok.split(":")[0] in BUTTONS:
            name, side = tok.split(":")
            out.append({"t": t, "type": "button", "name": name,
                        "side": "white" if side == "w" else "black"})
        else:
            raise ValueError(f"bad token {tok!r}")
    return out


def full(n: int) -> str:
    return ",".join(str(i) for i in range(1, n + 1))


# (variant, name, start overrides, script, expected moves, expected flags [code, status], result)
SCENARIOS: list[tuple[str, str, dict[str, object], str, list[str], list[list[str]], str]] = [
    # ---------------------------------------------------------------- Italian
    ("italian", "simple_moves_brush", {},
     "L22 P18 Cw L11 P19 L19 P15 Cb L23 L18 P18 P19 Cw",
     ["22-18", "11-15", "23-19"], [], "*"),
    ("italian", "multi_capture_direct", {"fen": "W:W22,31:B18,10,1"},
     "L22 P13 L13 P6 L18 L10 Cw", ["22x6"], [], "*"),
    ("italian", "multi_capture_reverse_straight", {"fen": "W:W22,31:B18,10,1"},
     "L22 P6 L10 L18 Cw", ["22x6"], [], "*"),
    ("italian", "removal_before_complete", {"fen": "W:W22,31:B18,10,1"},
     "L22 L18 P13 L13 P6 L10 Cw", ["22x6"], [["IT 5.12", "noted"]], "*"),
    ("italian", "touch_move_corrected", {},
     "L22 P18 Cw L11 P15 Cb L21 P21 L18 P14 Cw correct:b L14 P18 L21 P17 Cw",
     ["22-18", "11-15", "21-17"], [["IT 8.1.3", "corrected"]], "*"),
    ("italian", "touch_move_accepted", {},
     "L22 P18 Cw L11 P15 Cb L21 P21 L18 P14 Cw accept:b L10 P19 L14 Cb",
     ["22-18", "11-15", "18-14", "10x19"], [["IT 8.1.3", "maintained"]], "*"),
    ("italian", "accomodo", {},
     "accomodo:w L21 P21 L23 P23 L22 P18 Cw",
     ["22-18"], [], "*"),
    ("italian", "notices_3_10_3_11", {},
     "L31 P31 L11 P11 L22 P18 Cw",
     ["22-18"], [["IT 3.10", "noted"], ["IT 3.11", "noted"]], "*"),
    ("italian", "omit_capture_corrected", {"fen": "W:W22,24:B18,1"},
     "L24 P20 Cw correct:b L20 P24 L22 P13 L18 Cw",
     ["22x13"], [["IT 8.1.6", "corrected"]], "*"),
    ("italian", "irregular_move_kept_by_play", {},
     "L22 P17 Cw L10 P13 Cb",
     ["22-17", "10-13"], [["IT 8.1.2", "maintained"]], "*"),
    ("italian", "offender_cannot_decide", {},
     "L22 P14 Cw accept:w correct:b L14 P22 L22 P18 Cw",
     ["22-18"], [["IT 8.1.2", "corrected"], ["IT 8.2", "noted"]], "*"),
    # IT 8.2: only the offender's opponent decides: the offender's own correct and accept decide
    # nothing (each a notice); IT 8.3: the opponent's decision is taken until his own next move
    ("italian", "offender_presses_correct_and_accept_8_2", {},
     "L22 P17 Cw correct:w accept:w L10 P13 Cb",
     ["22-17", "10-13"], [["IT 8.1.2", "maintained"], ["IT 8.2", "noted"], ["IT 8.2", "noted"]],
     "*"),
    ("italian", "decision_until_own_move_8_3", {},
     "L22 P17 Cw correct:w L10 P13 Cb correct:b accept:b",
     ["22-17", "10-13"], [["IT 8.1.2", "maintained"], ["IT 8.2", "noted"]], "*"),
    ("italian", "takeback", {},
     "L22 P18 Cw L18 P22 correct:b L22 P18 L11 P15 Cb",
     ["22-18", "11-15"], [["IT 8.1.4", "corrected"]], "*"),
    ("italian", "moved_twice", {},
     "L22 P18 Cw L23 P19 Cw correct:b L19 P23 L11 P15 Cb",
     ["22-18", "11-15"], [["IT 8.1.1", "corrected"]], "*"),
    ("italian", "opponent_piece", {},
     "L11 P15 Cw accept:b",
     ["11-15"], [["IT 8.1.5", "maintained"]], "*"),
    ("italian", "removed_without_reason", {},
     "L11 Cw correct:b P11 L22 P18 Cw",
     ["22-18"], [["IT 8.1.7", "corrected"]], "*"),
    ("italian", "count_fewer", {"fen": "W:W22,30:B18,10,26,1"},
     "L22 P6 L18 L10 Cw accept:b",
     ["22x6"], [["IT 8.1.8", "maintained"]], "*"),
    ("italian", "stop_in_capture", {"fen": "W:W22,31:B18,10,1"},
     "L22 P13 L18 Cw correct:b L13 P22 P18 L22 P6 L18 L10 Cw",
     ["22x6"], [["IT 8.1.9", "corrected"]], "*"),
    ("italian", "simple_capture_not_removed", {"fen": "W:W22,24:B18,1"},
     "L22 P13 Cw accept:b",
     ["22x13"], [["IT 8.1.10", "maintained"]], "*"),
    ("italian", "fewer_removed", {"fen": "W:W22,31:B18,10,1"},
     "L22 P6 L18 Cw correct:b P18 L6 P22 L22 P6 L18 L10 Cw",
     ["22x6"], [["IT 8.1.11", "corrected"]], "*"),
    ("italian", "removed_not_taken", {"fen": "W:W22,24:B18,1"},
     "L22 P13 L18 L1 Cw correct:b P1 P18 L13 P22 L22 P13 L18 Cw",
     ["22x13"], [["IT 8.1.12", "corrected"]], "*"),
    ("italian", "removed_own", {"fen": "W:W22,24:B18,1"},
     "L22 P13 L18 L24 Cw accept:b",
     ["22x13"], [["IT 8.1.13", "maintained"]], "*"),
    ("italian", "impossible_capture", {"fen": "W:W22,24:B18,1"},
     "L24 P20 L1 Cw correct:b P1 L20 P24 L22 P13 L18 Cw",
     ["22x13"], [["IT 8.1.14", "corrected"]], "*"),
    ("italian", "priority_broken", {"fen": "W:W22,K27:B18,23,3"},
     "L22 P13 L18 Cw accept:b",
     ["22x13"], [["IT 8.1.15", "maintained"]], "*"),
    ("italian", "disturbed_restore", {},
     "L22 L23 P19 P18 Cw A:restore L22 P18 Cw",
     ["22-18"], [["IT 7.8", "corrected"]], "*"),
    ("italian", "light_square", {},
     "L22 Pd4 Cw A:restore L22 P18 Cw",
     ["22-18"], [["IT 7.5", "corrected"], ["IT 7.8", "corrected"]], "*"),
    ("italian", "setup_checked", {},
     "S:1,2,3,4,5,6,7,8,9,10,11,21,22,23,24,25,26,27,28,29,30,31,32 P12 L22 P18 Cw",
     ["22-18"], [["IT 7.1", "corrected"], ["IT 7.8", "corrected"]], "*"),
    ("italian", "no_clock_settle", {"clock": False},
     "L22 P18 +3 L11 P15 L23 P19 E",
     ["22-18", "11-15", "23-19"], [], "*"),
    ("italian", "draw_offer_accept", {},
     "L22 P18 draw_offer:w Cw draw_accept:b",
     ["22-18"], [], "1/2-1/2"),
    ("italian", "draw_offer_wrong_time", {},
     "draw_offer:w L22 P18 Cw draw_accept:b",
     ["22-18"], [["COMP 6.15", "noted"], ["COMP 6.15", "noted"]], "*"),
    ("italian", "resign_and_note", {},
     "L22 P18 Cw A:note:black_complains_of_noise resign:b",
     ["22-18"], [["COMP 6.16", "noted"]], "1-0"),
    ("italian", "count_and_repetition", {"fen": "W:WK29,K32:BK1,K4"},
     "count:w repetition:w L29 P25 Cw A:impose_count A:adjudicate:1/2-1/2",
     ["29-25"], [["IT 10.2", "noted"], ["IT 9.3b", "noted"], ["IT 10.2", "noted"]], "1/2-1/2"),
    ("italian", "no_legal_move_wins", {"fen": "W:W22:B18"},
     "L22 P13 L18 Cw",
     ["22x13"], [], "1-0"),
    ("italian", "press_without_move", {},
     "Cw L22 P18 Cw", ["22-18"], [["COMP 4.4.5", "noted"]], "*"),
    # ---------------------------------------------------------------- English (Black first)
    ("english", "simple_moves", {},
     "L11 P15 Cb L22 P17 Cw L9 P13 Cb",
     ["11-15", "22-17", "9-13"], [], "*"),
    ("english", "multi_capture_crowned", {"fen": "B:W18,27,30:B14,1"},
     "L14 P23 L23 P32 L18 L27 Cb",
     ["14x32"], [], "*"),
    ("english", "removal_out_of_order_is_fine_when_reverse", {"fen": "B:W18,27,30:B14,1"},
     "L14 P32 L27 L18 Cb", ["14x32"], [], "*"),
    ("english", "touch_move", {},
     "L9 P9 L11 P15 Cb correct:w L15 P11 L9 P13 Cb",
     ["9-13"], [["EN 8.1.3", "corrected"]], "*"),
    ("english", "omit_capture", {"fen": "B:W18,27,30:B14,1"},
     "L1 P5 Cb accept:w",
     ["1-5"], [["EN 8.1.6", "maintained"]], "*"),
    ("english", "stop_in_capture", {"fen": "B:W18,27,30:B14,1"},
     "L14 P23 L18 Cb accept:w",
     ["14x23"], [["EN 8.1.9", "maintained"]], "*"),
    ("english", "no_clock_opponent_lift", {"clock": False},
     "L11 P15 L22 P18 +3 E",
     ["11-15", "22-18"], [], "*"),
    # ---------------------------------------------------------------- International
    ("international", "simple_moves", {},
     "L32 P28 Cw L19 P23 Cb L28 P19 L23 Cw",
     ["32-28", "19-23", "28x19"], [], "*"),
    ("international", "multi_capture_reverse", {"fen": "W:W32,40:B27,17,8,3"},
     "L32 P21 L21 P12 L17 L27 Cw", ["32x12"], [], "*"),
    ("international", "omit_capture_pending", {"fen": "W:W32,40:B27,17,8,3,24,30"},
     "L40 P35 Cw", ["40-35"], [["INT 5.4.06", "pending"]], "*"),
    ("international", "early_removal", {"fen": "W:W32,40:B27,17,8,3"},
     "L32 L27 P21 L21 P12 L17 Cw correct:b P27 P17 L12 P32 L32 P12 L27 L17 Cw",
     ["32x12"], [["INT 5.4.10", "corrected"]], "*"),
    ("international", "touch_move_kept_by_play", {},
     "L31 P31 L32 P28 Cw L19 P23 Cb",
     ["32-28", "19-23"], [["INT 5.4.03", "maintained"]], "*"),
    ("international", "count_fewer", {"fen": "W:W32,40,45:B27,17,8,3,34"},
     "L40 P29 L34 Cw accept:b",
     ["40x29"], [["INT 5.4.08", "maintained"]], "*"),
    ("international", "disturbed", {},
     "L32 L33 P28 P29 Cw A:restore L32 P28 Cw",
     ["32-28"], [["INT 5.5", "corrected"]], "*"),
    # INT 5.4: only the offender's opponent decides; INT 5.7: until his own move is executed
    ("international", "offender_presses_correct_and_accept_5_4", {},
     "L32 P23 Cw correct:w accept:w L19 P28 L23 Cb",
     ["32-23", "19x28"],
     [["INT 5.4.02", "maintained"], ["INT 5.4", "noted"], ["INT 5.4", "noted"]], "*"),
    ("international", "decision_until_own_move_5_7", {},
     "L32 P23 Cw correct:w L19 P28 L23 Cb correct:b accept:b",
     ["32-23", "19x28"], [["INT 5.4.02", "maintained"], ["INT 5.4", "noted"]], "*"),
    ("international", "draw_agreed", {},
     "L32 P28 draw_offer:w Cw draw_accept:b",
     ["32-28"], [], "1-1"),
    # ---------------------------------------------------------------- Brazilian
    ("brazilian", "simple_moves", {},
     "L22 P17 Cw L11 P15 Cb",
     ["c3-b4", "f6-e5"], [], "*"),
    ("brazilian", "capture_choice", {"fen": "W:W22,28:B18,11,2,10"},
     "L22 P15 L15 P8 L11 L18 Cw", ["c3xg7"], [], "*"),
    ("brazilian", "touch_move", {},
     "L21 P21 L22 P17 Cw correct:b L17 P22 L21 P17 Cw",
     ["a3-b4"], [["BR 5.4.03", "corrected"]], "*"),
    ("brazilian", "removal_order", {"fen": "W:W22,28:B18,11,2,10,26"},
     "L22 P15 L15 P8 L18 Cw", ["c3xg7"], [["BR 5.4.13", "pending"]], "*"),
]


# Issue 8, defect 1: a kept or pending irregular move stands in the transcript with the side that
# played it (docs/trace-format.md); these four scenarios were written before, with the move left out.
EXISTING_EXTRAS: dict[tuple[str, str], dict[str, object]] = {
    ("italian", "opponent_piece"): {"sides": ["white"], "fen": "B:W21-32:B1-10,12,15"},
    ("italian", "removed_own"): {"sides": ["white"], "fen": "B:W13:B1"},
    ("international", "omit_capture_pending"): {"sides": ["white"],
                                                 "fen": "B:W32,35:B3,8,17,24,27,30"},
    ("brazilian", "removal_order"): {"sides": ["white"]},
}


def main() -> None:
    extras: dict[tuple[str, str], dict[str, object]] = dict(EXISTING_EXTRAS)
    scenarios = list(SCENARIOS)
    for variant, name, overrides, script, moves, flags, result, extra in (ISSUE8 + ISSUE16 + ISSUE35
                                                                          + ISSUE35_SEEN + ISSUE40):
        scenarios.append((variant, name, overrides, script, moves, flags, result))
        extras[variant, name] = extra
    seen: set[tuple[str, str]] = set()
    for variant, name, overrides, script, moves, flags, result in scenarios:
        if (variant, name) in seen:
            raise ValueError(f"two scenarios named {variant}/{name}")
        seen.add((variant, name))
        start: dict[str, object] = {"type": "start", "variant": variant, "fen": None,
                                    "clock": True, "transcribed": True}
        start.update(overrides)
        d = HERE / variant
        d.mkdir(exist_ok=True)
        lines = [json.dumps(start)] + [json.dumps(e) for e in events(script)]
        (d / f"{name}.jsonl").write_text("\n".join(lines) + "\n")
        expected = {"moves": moves, "flags": flags, "result": result}
        expected.update(extras.get((variant, name), {}))
        (d / f"{name}.expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
