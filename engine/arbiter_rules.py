"""Articles cited by the over-the-board arbiter: flag codes per rule set and short English titles.

The arbiter speaks of an irregularity by a rule-neutral *key* (``"touch"``, ``"omit_capture"``…);
``code(variant, key)`` gives the article of the variant's own regulation (SPEC.md codes):
``IT`` Capo I, ``EN`` the FID English extract, ``INT`` the international rules (001, first part).
Brazilian draughts are the international rules on 64 squares (SPEC §1, 001 second part, which has
no article numbers): its flags carry the rule-set code ``BR`` with the international article
number (``BR 5.4.03``), as the engine's automatic draws do (``BR 6.2``).
"""

from __future__ import annotations

from engine.variants import Variant

# key -> (IT article, EN article, INT article); None where the rule set has no such article.
_ARTICLES: dict[str, tuple[str | None, str | None, str | None]] = {
    # IT 8.1 / EN 8.1 / INT 5.4: irregularities (the offender's opponent decides)
    "twice": ("8.1.1", "8.1.1", "5.4.01"),
    "irregular_move": ("8.1.2", "8.1.2", "5.4.02"),
    "touch": ("8.1.3", "8.1.3", "5.4.03"),
    "takeback": ("8.1.4", "8.1.4", "5.4.04"),
    "opponent_piece": ("8.1.5", "8.1.5", "5.4.05"),
    "omit_capture": ("8.1.6", "8.1.6", "5.4.06"),
    "remove_no_reason": ("8.1.7", "8.1.7", "5.4.07"),
    "count": ("8.1.8", "8.1.8", "5.4.08"),
    "stop": ("8.1.9", "8.1.9", "5.4.09"),
    "not_removed_simple": ("8.1.10", "8.1.10", "5.4.11"),
    "fewer_removed": ("8.1.11", "8.1.11", "5.4.11"),
    "removed_not_taken": ("8.1.12", "8.1.12", "5.4.12"),
    "removed_own": ("8.1.13", "8.1.13", "5.4.14"),
    "impossible": ("8.1.14", "8.1.14", "5.4.02"),  # INT has no "impossible capture": 5.4.02
    "priority": ("8.1.15", None, None),  # EN 6.6 free choice; INT 4.14 free among equal counts
    "early_removal": ("5.12", "5.12", "5.4.10"),  # IT: an incorrectness; INT: an irregularity
    "removal_stopped": ("8.1.11", "8.1.11", "5.4.13"),
    "unmarked_king": ("8.1.16", "8.1.15", None),  # not detectable: no crowning stack is seen
    "wrong_crown": ("8.1.17", "8.1.16", None),  # not detectable: idem
    # other articles
    "removal_order": ("5.12", "5.12", "4.11"),
    "capture_display": ("5.10", "5.10", "4.9"),
    "touch_unplayable": ("3.10", "3.10", "3.13"),
    "touch_not_on_move": ("3.11", "3.11", "3.13"),
    "offender_decides": ("8.2", "8.2", "5.4"),
    "kept_by_play": ("8.3", "8.3", "5.7"),
    "setup": ("7.1", "7.1", "5.2"),
    "orientation": ("7.2", "7.2", "5.1"),
    "light_square": ("7.5", "7.5", "5.3"),
    "disturbed": ("7.8", "7.8", "5.5"),
    "count_request": ("10.2", "10.2", None),
    "count_impossible": ("10.1", "10.1", None),
    "repetition": ("9.3b", None, "6.1"),
}

#: The keys of irregularities proper (IT 8.1 / INT 5.4): the opponent decides.
IRREGULARITIES = frozenset(
    k for k in _ARTICLES
    if _ARTICLES[k][0] is not None and _ARTICLES[k][0].startswith("8.1")  # type: ignore[union-attr]
) | {"early_removal"}

# Short English titles of every code the arbiter can emit (the report's text form).
TITLES: dict[str, str] = {
    "IT 3.10": "touching or adjusting non-playable pieces without announcing it",
    "IT 3.11": "touching pieces when not on move",
    "IT 5.10": "a capture must be shown piece by piece with the capturing piece",
    "IT 5.12": "captured pieces removed after the capture, in direct or reverse order",
    "IT 7.1": "position and number of pieces checked before the first move",
    "IT 7.2": "board wrongly oriented",
    "IT 7.5": "a piece on a light square is inactive",
    "IT 7.8": "position disturbed by accident: restore it at once",
    "IT 8.1.1": "moving twice in a row",
    "IT 8.1.2": "an illegal move of a man or a king",
    "IT 8.1.3": "touching one piece and moving another",
    "IT 8.1.4": "taking back a move",
    "IT 8.1.5": "moving an opponent's piece",
    "IT 8.1.6": "omitting a capture",
    "IT 8.1.7": "removing pieces without reason",
    "IT 8.1.8": "capturing more or fewer pieces than allowed",
    "IT 8.1.9": "stopping during a multiple capture",
    "IT 8.1.10": "not removing the piece of a simple capture",
    "IT 8.1.11": "removing fewer pieces than captured",
    "IT 8.1.12": "removing pieces that were not captured",
    "IT 8.1.13": "removing own pieces after a capture",
    "IT 8.1.14": "an impossible capture",
    "IT 8.1.15": "breaking the capture priorities",
    "IT 8.2": "only the offender's opponent decides on an irregularity",
    "IT 9.3b": "draw by the fourth repetition of a position, on request",
    "IT 10.1": "the move count needs at least one king each",
    "IT 10.2": "move-count procedure requested or imposed",
    "INT 3.13": "adjusting pieces must be announced (\"ajeito\")",
    "INT 4.9": "a multiple capture must be shown piece by piece",
    "INT 4.11": "captured pieces removed in ascending or descending order, without interruption",
    "INT 5.1": "board wrongly placed",
    "INT 5.2": "set-up checked before the start of the game",
    "INT 5.3": "a piece on a light square is inactive",
    "INT 5.4": "only the offender's opponent decides on an irregularity",
    "INT 5.5": "position disturbed by accident (not an irregularity)",
    "INT 5.4.01": "playing two moves in a row",
    "INT 5.4.02": "an irregular move of a man or a king",
    "INT 5.4.03": "touching one own piece and playing another",
    "INT 5.4.04": "taking back a move",
    "INT 5.4.05": "playing an opponent's piece",
    "INT 5.4.06": "playing a piece when a capture is possible",
    "INT 5.4.07": "removing pieces without reason",
    "INT 5.4.08": "capturing fewer or more pieces than the rule requires",
    "INT 5.4.09": "stopping before the end of a multiple capture",
    "INT 5.4.10": "removing a piece before the capture is over",
    "INT 5.4.11": "removing fewer pieces than captured",
    "INT 5.4.12": "removing pieces that were not captured",
    "INT 5.4.13": "stopping the removal of captured pieces part-way",
    "INT 5.4.14": "removing own pieces after a capture",
    "INT 6.1": "draw by the third repetition of a position",
    "COMP 4.4.5": "the clock is pressed only after moving",
    "COMP 4.13": "time spent correcting an irregularity is charged to the offender",
    "COMP 6.15": "a draw is offered after one's own move, before pressing the clock",
    "COMP 6.16": "arbiter's note",
}


def _rule_set(variant: Variant) -> tuple[str, int]:
    return {"IT": ("IT", 0), "EN": ("EN", 1), "INT": ("INT", 2), "BR": ("BR", 2)}[variant.code]


def code(variant: Variant, key: str) -> str | None:
    """The flag code (``"IT 8.1.3"``, ``"BR 5.4.03"``) of ``key`` in ``variant``, or None when the
    variant's regulation has no such article."""
    prefix, column = _rule_set(variant)
    article = _ARTICLES[key][column]
    return None if article is None else f"{prefix} {article}"


def title(flag_code: str) -> str:
    """Short English title of a flag code; ``EN``/``BR`` codes share the IT/INT titles where the
    article numbers coincide (EN 8.1.15/8.1.16 excepted, which are IT 8.1.16/8.1.17)."""
    if flag_code in TITLES:
        return TITLES[flag_code]
    prefix, _, article = flag_code.partition(" ")
    if prefix == "EN":
        return TITLES.get(f"IT {article}", "")
    if prefix == "BR":
        return TITLES.get(f"INT {article}", "")
    return ""
