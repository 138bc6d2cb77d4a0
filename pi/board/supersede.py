"""A game begun before its pairing came, and replaced by the pairing's game while untouched.

At a tournament the players set the pieces up again as soon as a round ends, and the board
begins a game once they stand right (IT 7.1, 7.2) — long before the arbiter starts the next
round and the hall's pairing of that round reaches the board. Such a game has the previous
pairing's names and round in its start line. While nothing has happened in it (no move, nothing
flagged, its clock started by nobody, no player's control pressed, no arbiter's action — and,
in a game whose clock still runs, no piece lifted since the set-up was complete), the pairing
*supersedes* it: the board journals
an arbiter ``note`` with the fixed text :data:`SUPERSEDED_NOTE` and an ``end`` line (docs/trace-format.md's
own lines), marks the game finished with result ``*``, and begins a new game at once from the
same position with the pairing's start line (``pi.board.controller``).

The note is the mark everyone reads: the board's ``report.json`` lists it as a flag, and the hub
tells a superseded game from its replica (byte-equal to the journal) by the same walk
(:func:`superseded`): a void game, never a game of a round (``pi.hall.rounds``).

A game whose start line waits for the arbiter's start (``clock_start: "arbiter"``, every
pairing's game) has not begun until the arbiter starts the clocks (COMP 4.4.2): before that a
piece lifted and put back (the players straightening the set-up), a sensor fault or the board's
restart (switched off between rounds) is no play, and leaves it untouched; the board only
supersedes it while the pieces stand set up. In a game whose clock runs from the set-up, a lift
is play (IT 3.7 would bind the player) and touches it.

Pure functions on journal lines and the arbiter's read side.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.i18n import N_
from engine.trace import CLOCK_START_ARBITER
from pi.board.view import PAIRING_FIELDS, ArbiterState

__all__ = ["SUPERSEDED_NOTE", "SET_UP_NOTE", "VOIDING_NOTES", "superseded_note",
           "waits_for_arbiter", "no_play", "touches", "first_touch", "superseded", "why_touched",
           "pairing_differs"]

#: The arbiter ``note`` a board journals when a pairing supersedes its untouched game (fixed:
#: the hub and anyone reading a journal recognise the void game by it).
SUPERSEDED_NOTE = N_("void: superseded by the hall's pairing before play began")
#: The same note when a lone board's arbiter set up the next game (``pi.board.game_setup``).
SET_UP_NOTE = N_("void: superseded by the arbiter's set-up before play began")
#: Every note that voids a game (:func:`superseded`).
VOIDING_NOTES = frozenset({SUPERSEDED_NOTE, SET_UP_NOTE})


def superseded_note(t: float, text: str = SUPERSEDED_NOTE) -> dict[str, Any]:
    """The ``note`` line (docs/trace-format.md ``arbiter``) that voids a game, at game time ``t``
    (``text``: one of :data:`VOIDING_NOTES`)."""
    return {"t": t, "type": "arbiter", "action": "note", "text": text}


#: What happens on a board before the arbiter starts a waiting game's clocks and is no play.
_BEFORE_PLAY = frozenset({"snapshot", "lift", "place", "piece", "fault", "fault_cleared",
                          "restart"})
_SNAPSHOT = frozenset({"snapshot"})


def waits_for_arbiter(start: Mapping[str, Any]) -> bool:
    """The game of start line ``start`` begins when the arbiter starts its clocks (COMP 4.4.2)."""
    return start.get("clock_start") == CLOCK_START_ARBITER


def no_play(waiting: bool) -> frozenset[str]:
    """The journal line types that do not touch a game (:func:`touches`): a snapshot; in a game
    ``waiting`` for the arbiter's start, lifts, places (and a crown put on or off: ``piece``),
    faults and restarts too."""
    return _BEFORE_PLAY if waiting else _SNAPSHOT


def touches(line: Mapping[str, Any], waiting: bool) -> bool:
    """Journal line ``line`` (past the start line) touches its game: anything but a snapshot;
    in a game ``waiting`` for the arbiter's start, only a button, an arbiter's action or an
    end (lifts, places, faults and restarts before the start are no play)."""
    return line.get("type") not in no_play(waiting)


def first_touch(lines: Iterable[Mapping[str, Any]], waiting: bool = False
                ) -> Mapping[str, Any] | None:
    """The first journal line that touched the game (:func:`touches`), None while none did.
    ``lines``: the journal's lines from line 2 on (read lazily: the walk stops at the first
    such line); ``waiting``: :func:`waits_for_arbiter` of its start line."""
    for line in lines:
        if touches(line, waiting):
            return line
    return None


def superseded(lines: Iterable[Mapping[str, Any]], waiting: bool = False) -> bool:
    """The game (its journal's lines from line 2 on) was voided by a pairing: the first line
    that touched it is the board's :data:`SUPERSEDED_NOTE`."""
    first = first_touch(lines, waiting)
    return (first is not None and first.get("type") == "arbiter"
            and first.get("action") == "note" and first.get("text") in VOIDING_NOTES)


_TOUCHES = {"lift": N_("a piece was lifted"), "place": N_("a piece was placed"),
            "piece": N_("a crown was put on or taken off"),
            "button": N_("a player's control was pressed"), "arbiter": N_("the arbiter acted"),
            "fault": N_("a sensor fault"), "fault_cleared": N_("a sensor fault"),
            "restart": N_("the board restarted"), "end": N_("the game ended")}


def why_touched(arbiter: ArbiterState, first: Mapping[str, Any] | None,
                waiting: bool = False) -> str | None:
    """Why a game in play is no longer untouched (one short phrase, English, marked for the
    reader's translation), None when it is: no move committed, nothing flagged (in a game
    ``waiting`` for the arbiter's start, the board's own notices — a restart's — are no play),
    and ``first`` (:func:`first_touch` of its journal) None — so no piece lifted since the
    set-up in a game whose clock runs, and its clock started by nobody: the arbiter's
    ``start_clock`` and a player's press each have their line (a clock that runs since the
    set-up's snapshot, in a game whose start line does not wait for the arbiter, was started
    by the game itself at its first event, COMP 4.4.2, not by anyone)."""
    if arbiter.game.moves:
        return N_("a move was played")
    flags = [f for f in arbiter.flags if not (waiting and f.kind == "notice")]
    if flags:
        return N_("{code} flagged").format(code=flags[0].code)
    if first is not None:
        kind = str(first.get("type"))
        return _TOUCHES.get(kind) or N_("a {kind} line").format(kind=kind[:20])
    return None


def pairing_differs(start: Mapping[str, Any], pairing: Mapping[str, Any]) -> bool:
    """The pairing's start line (``pairing``) names another game than ``start`` (a game's start
    line): event, round, players, clock start or (a lone board's set-up,
    ``pi.board.game_setup``) time control differ. A pairing sent again (a hub restart, a
    redelivery) does not void the game it already began."""
    return any(start.get(k) != pairing.get(k) for k in (*PAIRING_FIELDS, "time_control"))
