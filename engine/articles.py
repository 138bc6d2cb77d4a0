"""The one article table: every code the arbiter and the game record cite, per rule set.

The arbiter and the game speak of a rule by a rule-neutral *key* (``"touch"``, ``"omit_capture"``,
``"no_pieces"``…); :func:`article` gives the :class:`Article` of a variant's own regulation: its
flag code (SPEC.md codes), its kind and a short English title. The rule set is the variant's data:
``Variant.code`` is the prefix of its codes, ``Variant.numbering`` the rule set whose article
numbers it carries (Brazilian draughts are the international rules on 64 squares; 001's second
part has no article numbers, so BR codes carry the international numbers: ``BR 5.4.03``).

Rule sets: ``IT`` Capo I (004), ``EN`` the FID English extract (000), ``INT`` the international
rules (001, first part), ``COMP`` the competition rules, Capo III (002), common to all variants.

A key a rule set has no article for is absent from its column, never silently dropped: looking it
up raises :class:`NoArticleError`. The keys every rule set must define (:data:`EVERY_RULE_SET`)
are checked when this module is imported; the others (:data:`SOME_RULE_SETS`) are asked with
:func:`defines` first, from the variant's data (its capture choice, its draw rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from engine.errors import NoArticleError
from engine.i18n import DEFAULT_LANGUAGE, N_, translations
from engine.variants import Variant

__all__ = ["Article", "article", "code", "defines", "title", "titles", "kind_of",
           "EVERY_RULE_SET", "SOME_RULE_SETS", "IRREGULARITIES", "NUMBERINGS"]

Kind = Literal["irregularity", "incorrectness", "notice", "result", "procedure", "rule"]


@dataclass(frozen=True, slots=True)
class Article:
    """One article as cited: ``code`` (``"IT 8.1.3"``), ``kind`` (``irregularity``: the
    offender's opponent decides; ``incorrectness``: recorded, rectified on request; ``notice``:
    no direct consequence; ``result``: how a game ends; ``procedure``: what the arbiter or the
    clock does; ``rule``: a rule of play a flag's text cites, never a flag itself), ``title``
    (short English: the msgid of its Italian, see :func:`title`)."""

    key: str
    code: str
    kind: Kind
    title: str


# key -> (kind, {numbering: (article number, title)}); COMP rows are common to every rule set.
_I: Kind = "irregularity"
_C: Kind = "incorrectness"
_N: Kind = "notice"
_R: Kind = "result"
_P: Kind = "procedure"
_L: Kind = "rule"
_TABLE: dict[str, tuple[Kind, dict[str, tuple[str, str]]]] = {
    # IT 8.1 / EN 8.1 / INT 5.4: irregularities (the offender's opponent decides)
    "twice": (_I, {"IT": ("8.1.1", N_("moving twice in a row")),
                   "EN": ("8.1.1", N_("moving twice in a row")),
                   "INT": ("5.4.01", N_("playing two moves in a row"))}),
    "irregular_move": (_I, {"IT": ("8.1.2", N_("an illegal move of a man or a king")),
                            "EN": ("8.1.2", N_("an illegal move of a man or a king")),
                            "INT": ("5.4.02", N_("an irregular move of a man or a king"))}),
    "touch": (_I, {"IT": ("8.1.3", N_("touching one piece and moving another")),
                   "EN": ("8.1.3", N_("touching one piece and moving another")),
                   "INT": ("5.4.03", N_("touching one own piece and playing another"))}),
    "takeback": (_I, {"IT": ("8.1.4", N_("taking back a move")),
                      "EN": ("8.1.4", N_("taking back a move")),
                      "INT": ("5.4.04", N_("taking back a move"))}),
    "opponent_piece": (_I, {"IT": ("8.1.5", N_("moving an opponent's piece")),
                            "EN": ("8.1.5", N_("moving an opponent's piece")),
                            "INT": ("5.4.05", N_("playing an opponent's piece"))}),
    "omit_capture": (_I, {"IT": ("8.1.6", N_("omitting a capture")),
                          "EN": ("8.1.6", N_("omitting a capture")),
                          "INT": ("5.4.06", N_("playing a piece when a capture is possible"))}),
    "remove_no_reason": (_I, {"IT": ("8.1.7", N_("removing pieces without reason")),
                              "EN": ("8.1.7", N_("removing pieces without reason")),
                              "INT": ("5.4.07", N_("removing pieces without reason"))}),
    "count": (_I, {"IT": ("8.1.8", N_("capturing more or fewer pieces than allowed")),
                   "EN": ("8.1.8", N_("capturing more or fewer pieces than allowed")),
                   "INT": ("5.4.08", N_("capturing fewer or more pieces than the rule requires"))}),
    "stop": (_I, {"IT": ("8.1.9", N_("stopping during a multiple capture")),
                  "EN": ("8.1.9", N_("stopping during a multiple capture")),
                  "INT": ("5.4.09", N_("stopping before the end of a multiple capture"))}),
    "not_removed_simple": (_I, {
        "IT": ("8.1.10", N_("not removing the piece of a simple capture")),
        "EN": ("8.1.10", N_("not removing the piece of a simple capture")),
        "INT": ("5.4.11", N_("removing fewer pieces than captured"))}),
    "fewer_removed": (_I, {"IT": ("8.1.11", N_("removing fewer pieces than captured")),
                           "EN": ("8.1.11", N_("removing fewer pieces than captured")),
                           "INT": ("5.4.11", N_("removing fewer pieces than captured"))}),
    "removed_not_taken": (_I, {"IT": ("8.1.12", N_("removing pieces that were not captured")),
                               "EN": ("8.1.12", N_("removing pieces that were not captured")),
                               "INT": ("5.4.12", N_("removing pieces that were not captured"))}),
    "removed_own": (_I, {"IT": ("8.1.13", N_("removing own pieces after a capture")),
                         "EN": ("8.1.13", N_("removing own pieces after a capture")),
                         "INT": ("5.4.14", N_("removing own pieces after a capture"))}),
    # INT has no "impossible capture": an irregular move of a man or a king (5.4.02)
    "impossible": (_I, {"IT": ("8.1.14", N_("an impossible capture")),
                        "EN": ("8.1.14", N_("an impossible capture")),
                        "INT": ("5.4.02", N_("an irregular move of a man or a king"))}),
    # IT only: EN 6.6 is free choice, INT 4.14 free among equal counts
    "priority": (_I, {"IT": ("8.1.15", N_("breaking the capture priorities"))}),
    # IT 5.12 is an incorrectness; INT 5.4.10 an irregularity (kind per rule set below)
    "early_removal": (_I, {"IT": ("5.12", N_("captured pieces removed after the capture, in "
                                          "direct or reverse order")),
                           "EN": ("5.12", N_("captured pieces removed after the capture, in "
                                          "direct or reverse order")),
                           "INT": ("5.4.10", N_("removing a piece before the capture is over"))}),
    "removal_stopped": (_I, {"IT": ("8.1.11", N_("removing fewer pieces than captured")),
                             "EN": ("8.1.11", N_("removing fewer pieces than captured")),
                             "INT": ("5.4.13", N_("stopping the removal of captured pieces "
                                               "part-way"))}),
    # seen only by a board that knows which piece is where (issue 40, engine.identity): a king
    # is two stacked men. INT has no such irregularities: a king moved uncrowned breaks INT 3.7
    # ("não pode mover-se sem ser coroada"), an irregular move of a king (5.4.02); a crown on a
    # man that only passed the crown row during a capture breaks INT 4.15, on another man 3.5
    "unmarked_king": (_I, {"IT": ("8.1.16", N_("moving a king not marked as such")),
                           "EN": ("8.1.15", N_("moving a king not marked as such")),
                           "INT": ("5.4.02", N_("an irregular move of a man or a king"))}),
    "wrong_crown": (_I, {"IT": ("8.1.17", N_("crowning the wrong man")),
                         "EN": ("8.1.16", N_("crowning the wrong man")),
                         "INT": ("3.5", N_("only a man that ends its move on the crown row is "
                                           "crowned"))}),
    "crown_in_passing": (_I, {"INT": ("4.15", N_("a man that only passes the crown row during a "
                                                 "capture stays a man"))}),
    # IT 4.4 / EN 4.5: the crown goes on as the man reaches the far row; late, it counts as
    # touching an own piece (IT 3.7, 3.10). INT 3.5: the crowning is marked by a stacked man
    "crown_late": (_N, {"IT": ("4.4", N_("crowning is done as the man reaches the far row; late, "
                                         "it counts as touching the piece")),
                        "EN": ("4.5", N_("crowning is done as the man reaches the far row; late, "
                                         "it counts as touching the piece")),
                        "INT": ("3.5", N_("only a man that ends its move on the crown row is "
                                          "crowned"))}),
    # IT 4.5 / EN 4.6: an unmarked man is no king unless the game is transcribed (the board
    # transcribes every game); INT 3.7: a crowned man keeps its rank, but may not move uncrowned
    "crown_lost": (_N, {"IT": ("4.5", N_("an unmarked man is no king, unless the game is "
                                         "transcribed")),
                        "EN": ("4.6", N_("an unmarked man is no king, unless the game is "
                                         "transcribed")),
                        "INT": ("3.7", N_("a man made king keeps its rank but may not move "
                                          "uncrowned"))}),
    # other articles of the game
    # IT 6.4 / EN 6.4 / INT 4.8 (the Turkish strike): cited in the text of the flag (8.1.12,
    # 8.1.14) of a capture the sensors saw pass over an enemy piece twice
    "jump_once": (_L, {"IT": ("6.4", N_("an enemy piece is jumped once only in a capture")),
                       "EN": ("6.4", N_("an enemy piece is jumped once only in a capture")),
                       "INT": ("4.8", N_("an enemy piece is jumped once only in a capture"))}),
    "removal_order": (_C, {"IT": ("5.12", N_("captured pieces removed after the capture, in "
                                          "direct or reverse order")),
                           "EN": ("5.12", N_("captured pieces removed after the capture, in "
                                          "direct or reverse order")),
                           "INT": ("4.11", N_("captured pieces removed in ascending or descending "
                                           "order, without interruption"))}),
    "capture_display": (_C, {"IT": ("5.10", N_("a capture must be shown piece by piece with the "
                                            "capturing piece")),
                             "EN": ("5.10", N_("a capture must be shown piece by piece with the "
                                            "capturing piece")),
                             "INT": ("4.9", N_("a multiple capture must be shown piece by piece"))}),
    "touch_unplayable": (_N, {
        "IT": ("3.10", N_("touching or adjusting non-playable pieces without announcing it")),
        "EN": ("3.10", N_("touching or adjusting non-playable pieces without announcing it")),
        "INT": ("3.13", N_("adjusting pieces must be announced (\"ajeito\")"))}),
    "touch_not_on_move": (_N, {"IT": ("3.11", N_("touching pieces when not on move")),
                               "EN": ("3.11", N_("touching pieces when not on move")),
                               "INT": ("3.13", N_("adjusting pieces must be announced "
                                               "(\"ajeito\")"))}),
    "offender_decides": (_N, {
        "IT": ("8.2", N_("only the offender's opponent decides on an irregularity")),
        "EN": ("8.2", N_("only the offender's opponent decides on an irregularity")),
        "INT": ("5.4", N_("only the offender's opponent decides on an irregularity"))}),
    "kept_by_play": (_P, {"IT": ("8.3", N_("an irregularity followed by a move stands")),
                          "EN": ("8.3", N_("an irregularity followed by a move stands")),
                          "INT": ("5.7", N_("a move of the opponent accepts the irregularity"))}),
    "correction": (_P, {"IT": ("8.4", N_("no partial correction of an irregularity")),
                        "EN": ("8.4", N_("no partial correction of an irregularity")),
                        "INT": ("5.8", N_("no partial rectification of an irregularity"))}),
    "move_made": (_P, {"IT": ("3.5", N_("a move is made when the piece is let go")),
                       "EN": ("3.5", N_("a move is made when the piece is let go")),
                       "INT": ("3.10", N_("a move is made when the piece is let go"))}),
    "setup": (_N, {"IT": ("7.1", N_("position and number of pieces checked before the first move")),
                   "EN": ("7.1", N_("position and number of pieces checked before the first move")),
                   "INT": ("5.2", N_("set-up checked before the start of the game"))}),
    "orientation": (_N, {"IT": ("7.2", N_("board wrongly oriented")),
                         "EN": ("7.2", N_("board wrongly oriented")),
                         "INT": ("5.1", N_("board wrongly placed"))}),
    "light_square": (_N, {"IT": ("7.5", N_("a piece on a light square is inactive")),
                          "EN": ("7.5", N_("a piece on a light square is inactive")),
                          "INT": ("5.3", N_("a piece on a light square is inactive"))}),
    "disturbed": (_N, {"IT": ("7.8", N_("position disturbed by accident: restore it at once")),
                       "EN": ("7.8", N_("position disturbed by accident: restore it at once")),
                       "INT": ("5.5", N_("position disturbed by accident (not an irregularity)"))}),
    # IT/EN 10: the move-count procedure (INT and BR draw automatically instead, 6.2-6.4)
    "count_request": (_N, {"IT": ("10.2", N_("move-count procedure requested or imposed")),
                           "EN": ("10.2", N_("move-count procedure requested or imposed"))}),
    "count_impossible": (_N, {"IT": ("10.1", N_("the move count needs at least one king each")),
                              "EN": ("10.1", N_("the move count needs at least one king each"))}),
    "count_draw": (_R, {"IT": ("10.4", N_("drawn by the move count")),
                        "EN": ("10.4", N_("drawn by the move count"))}),
    # IT 9.3b on request; INT 6.1 automatic; EN has no repetition rule (EN 9.3)
    "repetition": (_N, {"IT": ("9.3b", N_("draw by the fourth repetition of a position, on "
                                       "request")),
                        "INT": ("6.1", N_("draw by the third repetition of a position"))}),
    "repetition_draw": (_R, {"IT": ("9.3b", N_("draw by the fourth repetition of a position, on "
                                            "request")),
                             "INT": ("6.1", N_("draw by the third repetition of a position"))}),
    "king_moves_draw": (_R, {"INT": ("6.2", N_("draw after successive king moves without capture "
                                            "or man move"))}),
    "ending_ten": (_R, {"INT": ("6.3", N_("small ending drawn after ten moves at most"))}),
    "ending_five": (_R, {"INT": ("6.4", N_("small ending drawn after five moves at most"))}),
    # results (IT 9.2-9.3, EN 9.2-9.3, INT 7.2-7.3)
    "resigned": (_R, {"IT": ("9.2.1", N_("the opponent resigned")),
                      "EN": ("9.2.1", N_("the opponent resigned")),
                      "INT": ("7.2.1", N_("the opponent resigned"))}),
    "no_move": (_R, {"IT": ("9.2.2", N_("the player on move has no legal move")),
                     "EN": ("9.2.2", N_("the player on move has no legal move")),
                     "INT": ("7.2.2", N_("the player on move has no legal move"))}),
    "no_pieces": (_R, {"IT": ("9.2.3", N_("the player has no pieces left")),
                       "EN": ("9.2.3", N_("the player has no pieces left")),
                       "INT": ("7.2.3", N_("the player has no pieces left"))}),
    "draw_agreed": (_R, {"IT": ("9.3a", N_("draw by agreement")), "EN": ("9.3a", N_("draw by agreement")),
                         "INT": ("7.3.1", N_("draw by agreement"))}),
}

# COMP (Capo III) articles, the same in every variant: key -> (code, kind, title).
_COMP: dict[str, tuple[str, Kind, str]] = {
    "press_without_move": ("COMP 4.4.5", _N, N_("the clock is pressed only after moving")),
    "press_in_correction": ("COMP 4.13", _N, N_("time spent correcting an irregularity is charged "
                                             "to the offender")),
    # COMP 6.15: "Un giocatore può proporre la patta al suo avversario solamente dopo aver
    # effettuato la propria mossa e (se sono in funzione gli orologi) prima di aver messo in moto
    # l'orologio dell'altro" - the rule, said as a rule, so that a flag's text (what was done
    # against it) never reads as its contradiction
    "draw_offer": ("COMP 6.15", _N, N_("a draw may be offered only after making one's own move and "
                                    "before starting the opponent's clock")),
    "note": ("COMP 6.16", _N, N_("arbiter's note")),
    "no_procedure": ("COMP 6.16", _N, N_("arbiter's note")),
    # COMP 6.16: "Qualsiasi contestazione [...] verrà risolta dall'arbitro in conformità ai
    # regolamenti e avvalendosi di tutte le circostanze utili all'accertamento della verità":
    # a mistaken result corrected after the game (issue 37)
    "result_corrected": ("COMP 6.16", _N, N_("arbiter's note")),
    "lost_on_time": ("COMP 4.8", _R, N_("the flag fell: loss on time")),
    "both_flags": ("COMP 5.9.4", _R, N_("both flags fell, no telling which first: draw")),
    "adjudicated": ("COMP", _R, N_("adjudicated by the arbiter")),
    "move_pressed": ("COMP 4.5", _P, N_("the move is complete when the player presses his clock")),
    # COMP 4.6: "Nessuno può intervenire quando un giocatore [...] dimentica di mettere in
    # movimento il quadrante del suo avversario; solo quest'ultimo può [...] farglielo rimarcare"
    "press_forgotten": ("COMP 4.6", _P, N_("nobody but the opponent may point out a forgotten "
                                        "clock press")),
    "clock_refused": ("COMP 3.6.1", _P, N_("the clock refused an operation")),
    "lampo_countdown": ("COMP 5.7", _P, N_("mosse lampo: the arbiter counts down each move")),
    # docs/trace-format.md: what the board could not see is told, with no rule article (code BOARD)
    "sensor_fault": ("BOARD", _N, N_("the board's sensors stopped answering")),
    "sensor_fault_cleared": ("BOARD", _N, N_("the board's sensors answer again")),
    "restart": ("BOARD", _N, N_("the board's daemon restarted; clocks stopped until the arbiter "
                             "restarts them")),
}

#: Rule sets whose numbers the table holds (``Variant.numbering`` is one of them).
NUMBERINGS = ("IT", "EN", "INT")
#: Keys every rule set defines (checked at import).
EVERY_RULE_SET = frozenset(k for k, (_, col) in _TABLE.items()
                           if all(n in col for n in NUMBERINGS)) | frozenset(_COMP)
#: Keys only some rule sets define; ask :func:`defines` before citing them.
SOME_RULE_SETS = frozenset(_TABLE) - EVERY_RULE_SET
#: Irregularities proper (IT 8.1, INT 5.4): the offender's opponent decides.
IRREGULARITIES = frozenset(k for k, (kind, _) in _TABLE.items() if kind == _I)

# IT 5.12 (and EN 5.12) make an early removal an incorrectness; INT 5.4.10 an irregularity
_KIND_IN: dict[tuple[str, str], Kind] = {("early_removal", "IT"): _C, ("early_removal", "EN"): _C}


def _check_table() -> None:
    for key, (_, column) in _TABLE.items():
        unknown = set(column) - set(NUMBERINGS)
        if unknown:
            raise NoArticleError(f"article table: {key!r} numbered in unknown rule set(s) "
                                 f"{sorted(unknown)}")
    for key in ("twice", "touch", "resigned", "no_move", "no_pieces", "draw_agreed",
                "disturbed", "light_square", "setup", "orientation"):
        if key not in EVERY_RULE_SET:
            raise NoArticleError(f"article table: {key!r} must be defined in every rule set")


_check_table()
_CACHE: dict[tuple[str, str, str], Article] = {}


def defines(variant: Variant, key: str) -> bool:
    """Whether ``variant``'s regulation has an article for ``key``. Raises NoArticleError for a
    key the table does not know at all (a typo is never a missing article)."""
    if key in _COMP:
        return True
    if key not in _TABLE:
        raise NoArticleError(f"no such rule key {key!r} in the article table")
    return variant.numbering in _TABLE[key][1]


def article(variant: Variant, key: str) -> Article:
    """The article of ``key`` in ``variant``'s regulation. Raises NoArticleError when it has none
    (or the key is unknown)."""
    cache_key = (variant.code, variant.numbering, key)
    found = _CACHE.get(cache_key)
    if found is not None:
        return found
    if key in _COMP:
        c, kind, text = _COMP[key]
        found = Article(key, c, kind, text)
    else:
        if not defines(variant, key):
            raise NoArticleError(f"the {variant.code} rules have no article for {key!r}")
        kind, column = _TABLE[key]
        number, text = column[variant.numbering]
        kind = _KIND_IN.get((key, variant.numbering), kind)
        found = Article(key, f"{variant.code} {number}", kind, text)
    _CACHE[cache_key] = found
    return found


def code(variant: Variant, key: str) -> str:
    """The code (``"IT 8.1.3"``, ``"BR 5.4.03"``) of ``key`` in ``variant``; raises
    NoArticleError when its regulation has none."""
    return article(variant, key).code


def kind_of(variant: Variant, key: str) -> Kind:
    """The kind of ``key`` in ``variant``'s regulation (see :class:`Article`)."""
    return article(variant, key).kind


def _titles() -> dict[str, str]:
    out: dict[str, str] = {}
    for _kind, column in _TABLE.values():
        for numbering, (number, text) in column.items():
            prefixes = ("INT", "BR") if numbering == "INT" else (numbering,)
            for prefix in prefixes:
                out.setdefault(f"{prefix} {number}", text)
    out["BOARD"] = N_("what the board could not see (no rule article, docs/trace-format.md)")
    for c, _, text in _COMP.values():
        out.setdefault(c, text)
    return out


_TITLES = _titles()


def title(flag_code: str, language: str = DEFAULT_LANGUAGE) -> str:
    """Short title of a code (``"IT 8.1.2"``) in ``language``: English (SPEC.md's words, the
    msgid) by default, Italian in the regulation's own words (the catalog); empty for a code the
    table lacks (a code written by another tool). UnknownLanguageError for another language."""
    english = _TITLES.get(flag_code, "")
    return translations(language).gettext(english) if english else ""


def titles() -> dict[str, str]:
    """Every code the table cites (``"IT 8.1.2"``, ``"BR 5.4.03"``, ``"COMP 6.15"``,
    ``"BOARD"``) with its English title."""
    return dict(_TITLES)
