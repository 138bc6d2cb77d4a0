"""What the web shows, built from a board's :class:`pi.board.view.BoardView` (the board's
controller, or the hub's replica of a board): the ``/api/state`` object, the SSE events of one
journal line, and the broadcast form of the game (``pi/web/API.md``).

Read only: nothing here changes the board or the game. Everything runs on the event loop's
thread, between the board's own steps.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engine.articles import title
from engine.i18n import N_
from engine.decisions import (ClockChanged, Flag, FlagDecided, FlagRaised, GameEnded,
                              MoveCommitted, MoveRetracted, PositionSet)
from engine.clock import GameClock
from engine.game import Game, RecordedMove
from engine.pdn import seven_tags
from engine.variants import Variant
from engine.replay import ContainArbiter, Fed, Replay
from pi.board.view import BoardView, Phase

log = logging.getLogger(__name__)

__all__ = ["RecordDicts", "JsonOnce", "COMPACT", "flag_dict", "flag_view", "public_flag",
           "HELD_TEXT", "clock_dict", "clock_at", "state_dict", "line_events", "PublicSnapshot",
           "public_snapshot", "public_events", "broadcast_pdn", "game_type_tag", "decisions_json",
           "board_snapshot", "journal_snapshot", "frozen_clock", "changes_clock", "JournalView", "NOTE_CODE",
           "is_private_note", "note_flags"]

#: GameType as lidraughts reads it. Checked in lidraughts' draughts library (RoepStoep/lidraughts):
#: ``format/pdn/Tags.scala`` ``Tags.variant`` matches the tag's whole value against
#: ``GameTypeRegex = ([0-9]+)(,[WB],[0-9]+,[0-9]+,[ANS][0123](,[01])?)?`` and looks its first
#: number up with ``Variant.byGameType``; ``variant/Standard.scala`` has ``gameType = 20`` and
#: ``variant/Brazilian.scala`` ``gameType = 26``. The short form is what lidraughts itself
#: writes (its study export: ``Tag(_.GameType, variant.gameType)``). Without the tag it falls
#: back on a ``Variant`` tag by name, which an Italian or English game would not match.
_LIDRAUGHTS_GAMETYPE = {"international": "20", "brazilian": "26"}

def game_type_tag(variant: Variant) -> str:
    """The ``GameType`` tag's value for ``variant``, as lidraughts reads it."""
    return _LIDRAUGHTS_GAMETYPE.get(variant.name, variant.game_type)


#: The tag values above, as lidraughts' ``GameTypeRegex`` accepts them (a whole match).
LIDRAUGHTS_GAMETYPE_RE = r"([0-9]+)(,[WB],[0-9]+,[0-9]+,[ANS][0123](,[01])?)?"


class RecordDicts:
    """The dicts of a game's moves (its report moves) and flags (:func:`flag_dict`), made once
    each: each journal line's views (the state, the broadcast snapshot) list every move and
    flag of the game, and would otherwise remake them all (a cost that grows with the game).
    Moves and flags are compared by identity: a retracted move and whatever came after it, a
    flag decided since (a new value), are made again. The lists handed out are shared: read
    them, never change them."""

    def __init__(self) -> None:
        self._moves: list[RecordedMove] = []
        self._dicts: list[dict[str, Any]] = []
        self._flags: list[tuple[Flag, int | None, dict[str, Any]]] = []

    def of(self, moves: Sequence[RecordedMove]) -> list[dict[str, Any]]:
        """The dicts of ``moves`` (a game's record)."""
        n = 0
        known = self._moves
        limit = min(len(known), len(moves))
        while n < limit and known[n] is moves[n]:
            n += 1
        del known[n:], self._dicts[n:]
        for m in moves[n:]:
            known.append(m)
            self._dicts.append(m.to_dict())
        return list(self._dicts)

    def flags(self, flags: Sequence[Flag], lines: Mapping[int, int]) -> list[dict[str, Any]]:
        """The :func:`flag_dict` of each of ``flags`` with its line in ``lines`` (flag id →
        the journal line that raised it)."""
        n = 0
        known = self._flags
        limit = min(len(known), len(flags))
        while n < limit and known[n][0] is flags[n] and known[n][1] == lines.get(flags[n].id):
            n += 1
        del known[n:]
        for f in flags[n:]:
            line = lines.get(f.id)
            known.append((f, line, flag_dict(f, line)))
        return [d for _f, _line, d in known]


#: ``json.dumps(..., separators=(",", ":"))`` made once (``dumps`` with an argument makes a new
#: encoder per call)
COMPACT = json.JSONEncoder(separators=(",", ":"))


class JsonOnce:
    """The compact JSON of the shared dicts a state lists — its moves (:class:`RecordDicts`) and
    its flags (:func:`flag_dict`) — made once per dict: a state's JSON would otherwise encode
    every move and flag of the game again, every line (a cost that grows with the game; 150
    flags were most of a clock press's state at 100 clients). Dicts are known by identity and
    must never change; each list (``name``) forgets the texts of dicts it no longer lists."""

    def __init__(self) -> None:
        self._lists: dict[str, dict[int, tuple[dict[str, Any], str]]] = {}

    def array(self, name: str, items: Sequence[dict[str, Any]]) -> str:
        """``items``, the state's list ``name``, as a compact JSON array."""
        texts = self._lists.setdefault(name, {})
        parts = []
        for d in items:
            known = texts.get(id(d))
            if known is None or known[0] is not d:
                known = texts[id(d)] = (d, COMPACT.encode(d))
            parts.append(known[1])
        if len(texts) > 2 * len(items) + 256:  # another game, or flags decided since
            listed = {id(d) for d in items}
            self._lists[name] = {k: v for k, v in texts.items() if k in listed}
        return "[" + ",".join(parts) + "]"


def _move_dicts(game: Game, cache: RecordDicts | None) -> list[dict[str, Any]]:
    return [m.to_dict() for m in game.moves] if cache is None else cache.of(game.moves)


def flag_dict(f: Flag, line: int | None = None) -> dict[str, Any]:
    """``f`` as the web shows it (API.md ``flags[]``): :func:`flag_view` of its JSON. Made once
    per flag value and line (flags are immutable values; a new status is a new flag): every
    state lists every flag of the game, every line, which would otherwise remake them all (a
    cost that grows with the game). The dict is shared: read it, never change it."""
    # the time's type in the key: a flag at ``t`` 3 equals one at 3.0, and their JSON differs
    return _flag_dict(f, line, isinstance(f.t, float))


@lru_cache(maxsize=1024)
def _flag_dict(f: Flag, line: int | None, _float_t: bool) -> dict[str, Any]:
    return flag_view(f.to_json(), line)


def flag_view(flag: dict[str, Any], line: int | None) -> dict[str, Any]:
    """A flag's JSON (``engine.decisions.Flag.to_json``) as the web shows it: its fields with
    the article's title, and ``line``, the journal line whose decision raised it."""
    return {"id": flag["id"], "t": flag["t"], "code": flag["code"], "title": title(flag["code"]),
            "kind": flag["kind"], "status": flag["status"], "side": flag["side"],
            "text": flag["text"], "line": line}


#: What the public is told of an irregularity while the opponent decides: the flag's own text
#: names the move (IT 8.1.3 "touched 21, moved 22"), which the broadcast holds back.
HELD_TEXT = N_("an irregularity: the opponent decides whether it is corrected")


#: The article of an arbiter's note (COMP 6.16): the code of flags a ``note`` line raises.
NOTE_CODE = "COMP 6.16"


def is_private_note(flag: dict[str, Any], notes: Mapping[int, bool] | None) -> bool:
    """``flag`` (a :func:`flag_dict`) is an arbiter's note kept from the public (COMP 6.16: the
    arbiter's own unless its line says ``"public": true``). ``notes``: flag id → public, for
    the flags the game's note lines raised; None: unknown (a journal that could not be read
    again): every COMP 6.16 flag is then kept from the public."""
    if notes is None:
        return bool(flag.get("code") == NOTE_CODE)
    return notes.get(flag["id"]) is False


def note_flags(fed: Fed, notes: dict[int, bool]) -> None:
    """Records in ``notes`` (flag id → public) the flags raised by line ``fed`` when it is an
    arbiter's note."""
    r = fed.record
    if r.get("type") != "arbiter" or r.get("action") != "note":
        return
    for d in fed.decisions:
        if isinstance(d, FlagRaised):
            notes[d.flag.id] = r.get("public") is True


def public_flag(flag: dict[str, Any]) -> dict[str, Any]:
    """``flag`` (a :func:`flag_dict`) as the public sees it: a pending irregularity keeps its
    code and title, not its text (the broadcast policy holds the move it names)."""
    if flag.get("kind") == "irregularity" and flag.get("status") == "pending":
        return {**flag, "text": HELD_TEXT}
    return flag


def clock_dict(board: BoardView) -> dict[str, Any] | None:
    """The board's clock now (its last reading when no game is in play); None: no clock."""
    g = board.game
    if g is None:
        return None
    t = board.now() if board.phase == Phase.PLAYING else g.last_t
    return clock_at(g.arbiter.clock, t, g.last_t)


def clock_at(clock: GameClock | None, t: float, last_t: float) -> dict[str, Any] | None:
    """The ``clock`` object of API.md: ``clock`` read at game time ``t``, or at ``last_t`` (the
    game's last journal line) when ``t`` is before the clock's last time (a resumed game)."""
    if clock is None:
        return None
    try:
        r = clock.read(max(t, 0.0))
    except ValueError:  # asked before the clock's last time (a resumed game): its last reading
        r = clock.read(last_t)
    return {"white": r.white.seconds, "black": r.black.seconds,
            "running": None if r.running is None else r.running.label,
            "state": str(r.state), "t": round(r.t, 3), "server_time": time.time(),
            # COMP 4.3: moves completed by each side, and those still owed in the current
            # period (None: the rest of the game) - what the time control's periods count
            "moves": {"white": r.white.moves, "black": r.black.moves},
            "moves_to_control": {"white": r.white.moves_to_control,
                                 "black": r.black.moves_to_control},
            # COMP 3.11.3, 5.6: a face in the mosse-lampo phase shows the time left for the
            # current move, not the player's time
            "lampo": {"white": r.white.in_lampo, "black": r.black.in_lampo}}


def metadata(board: BoardView) -> dict[str, Any]:
    session = board.game
    cfg = board.config
    if session is None:
        return {"event": cfg.event, "round": cfg.round, "site": cfg.site, "date": None,
                "board": cfg.board, "white": cfg.white, "black": cfg.black,
                "variant": cfg.variant, "time_control": cfg.time_control, "started_at": None,
                "clock": cfg.clock, "size": board.variant.size, "start_fen": cfg.fen,
                "results": list(board.variant.results)}
    line = session.start_line
    game = session.arbiter.game
    return {"event": line.get("event"), "round": line.get("round"), "site": line.get("site"),
            "date": line.get("date"), "board": line.get("board"), "white": line.get("white"),
            "black": line.get("black"), "variant": session.variant.name,
            "time_control": game.time_control, "started_at": line.get("started_at"),
            "clock": bool(line.get("clock", True)), "size": session.variant.size,
            "start_fen": line.get("fen"), "results": list(session.variant.results)}


@dataclass
class PublicSnapshot:
    """The broadcast's view of the game after one journal line: moves shown (none held under a
    pending irregularity), the position after them, the result."""

    line: int
    wall: float
    moves: list[dict[str, Any]]
    records: list[tuple[str, str, str | None, tuple[float, float] | None]]  # notation, side, setup, clock
    fen: str
    result: str
    reason: str | None
    start_fen: str | None
    tags: dict[str, str] = field(default_factory=dict)
    game_type: str = ""
    #: the game's RecordedMove objects behind ``moves`` (frozen: the same object, the same dict)
    objs: tuple[RecordedMove, ...] = ()
    #: the ``clock`` object (API.md) read at the last line that changed the clock up to this
    #: view: what the public's clock is frozen at while a move is held (the reading when the
    #: side to move got the move: nothing of how long it took, or whether it pressed)
    clock: dict[str, Any] | None = None
    #: this view is an earlier one kept while an irregularity is pending (its move held)
    held: bool = False

    def dated(self, line: int, wall: float) -> PublicSnapshot:
        """The same view after journal line ``line``, made at ``wall``: a shallow copy, its
        lists shared (never changed: a new view is a new snapshot). Made for most lines of every
        board of a hall (``dataclasses.replace`` would walk the fields each time)."""
        new = PublicSnapshot.__new__(PublicSnapshot)
        new.__dict__.update(self.__dict__)
        new.line, new.wall = line, wall
        return new


def public_snapshot(game_id: str, game: Game, flags: Sequence[Flag], line: int,
                    previous: PublicSnapshot | None, cache: RecordDicts | None = None,
                    clock: dict[str, Any] | None = None) -> PublicSnapshot:
    """The broadcast view of game ``game_id`` (its record ``game`` and ``flags``) after journal
    line ``line``, or ``previous`` kept (marked ``held``) when an irregularity is pending (its
    move is held until the opponent decides: viewers never see a move taken back). ``clock``:
    the view's :attr:`PublicSnapshot.clock` (:func:`next_clock`)."""
    pending = any(f.kind == "irregularity" and f.status == "pending" for f in flags)
    same_game = previous is not None and previous.tags.get("_id") == game_id
    if pending and same_game and previous is not None:
        return previous if previous.held else replace(previous, held=True)
    outcome = game.outcome
    tags = {k: v for k, v in game.tags.items()}
    tags["_id"] = game_id
    v = game.variant
    # a move's dict is rebuilt only when its (frozen) RecordedMove changed: a long game's
    # snapshot per journal line stays cheap (the hall's hub makes one per line of 200 boards)
    # (the board's server keeps a RecordDicts cache of its own: the same dicts for every view)
    old_objs = previous.objs if (previous is not None and same_game) else ()
    if cache is not None:
        moves = _move_dicts(game, cache)
    else:
        old_moves = previous.moves if (previous is not None and same_game) else []
        moves = [old_moves[i] if i < len(old_objs) and old_objs[i] is m else m.to_dict()
                 for i, m in enumerate(game.moves)]
    # the records of the moves the previous view had (the same objects) are its own
    kept = 0
    limit = min(len(old_objs), len(game.moves))
    while kept < limit and old_objs[kept] is game.moves[kept]:
        kept += 1
    records = previous.records[:kept] if previous is not None and kept else []
    records += [(m.notation + (m.nag or ""), m.side.label, m.setup_fen, m.clock)
                for m in game.moves[kept:]]
    return PublicSnapshot(
        line, time.time(), moves, records,
        game.board.fen(), game.result, None if outcome is None else outcome.reason,
        game.start_fen if game.custom_start else None, tags,
        game_type_tag(v), tuple(game.moves), clock)


def changes_clock(fed: Fed) -> bool:
    """Line ``fed`` changed the clock (a start, a restart, a clock decision)."""
    return (fed.record.get("type") in ("start", "restart")
            or any(isinstance(d, ClockChanged) for d in fed.decisions))


def next_clock(previous: PublicSnapshot | None, game_id: str, changed: bool,
               read: Callable[[], dict[str, Any] | None]) -> dict[str, Any] | None:
    """The :attr:`PublicSnapshot.clock` of the view after a line: ``read()`` when the line
    ``changed`` the clock (or there is no earlier view of this game), else the earlier view's."""
    if changed or previous is None or previous.tags.get("_id") != game_id:
        return read()
    return previous.clock


def frozen_clock(clock: dict[str, Any] | None) -> dict[str, Any] | None:
    """``clock`` (a held view's :attr:`PublicSnapshot.clock`) as the public is shown it while
    the move is held: its reading, no face running."""
    if clock is None:
        return None
    return {**clock, "running": None, "server_time": time.time()}


def public_clock(snap: PublicSnapshot | None, live: dict[str, Any] | None
                 ) -> dict[str, Any] | None:
    """The ``clock`` object the public sees: ``live`` unless ``snap`` holds a move back."""
    if snap is not None and snap.held:
        return frozen_clock(snap.clock)
    return live


def board_snapshot(board: BoardView, line: int, previous: PublicSnapshot | None,
                   cache: RecordDicts | None = None, changed: bool = True,
                   read: Callable[[], dict[str, Any] | None] | None = None
                   ) -> PublicSnapshot | None:
    """:func:`public_snapshot` of the board's current game; None: no game. ``changed``: the
    line changed the clock (its reading now is the view's clock); ``read``: that reading
    (default :func:`clock_dict` of the board, read now)."""
    g = board.game
    if g is None:
        return None
    clock = next_clock(previous, g.id, changed,
                       read if read is not None else lambda: clock_dict(board))
    return public_snapshot(g.id, g.arbiter.game, g.arbiter.flags, line, previous, cache, clock)


@dataclass
class JournalView:
    """What the public may see of a game, derived from its journal alone: the broadcast view
    after its last line, and which of its flags are notes and whether each is public."""

    snapshot: PublicSnapshot
    notes: dict[int, bool]


def journal_snapshot(game_id: str, lines: Iterable[str]) -> JournalView:
    """The broadcast view after the last of a game's journal ``lines``, derived from the journal
    alone (a restarted server holds back what the running one held: the move of a pending
    irregularity, the clock as it was before it, the arbiter's private notes). Lines the
    reader or the arbiter refuse are skipped and logged (the daemon's own resume policy).
    Raises ``TraceError`` for a journal without a good start line."""
    replay = Replay.read(lines, ContainArbiter(log))
    a = replay.arbiter
    snap = public_snapshot(game_id, a.game, a.flags, replay.first.line, None,
                           clock=clock_at(a.clock, 0.0, 0.0))
    notes: dict[int, bool] = {}
    for fed in replay:
        t = fed.record.get("t")
        at = float(t) if isinstance(t, (int, float)) else replay.last_t
        clock = next_clock(snap, game_id, changes_clock(fed), partial(clock_at, a.clock, at, at))
        snap = public_snapshot(game_id, a.game, a.flags, fed.line, snap, clock=clock)
        note_flags(fed, notes)
    return JournalView(snap, notes)


def broadcast_pdn(snap: PublicSnapshot, variant: Variant) -> str:
    """The broadcast PDN: the shown moves, and after a kept irregularity (``/FEN/`` in the full
    record) a ``[SetUp "1"] [FEN]`` of the position after it with only the moves that followed
    (lidraughts ignores ``/FEN/`` and stops at the first illegal move)."""
    from engine.board import Board
    from engine.timecontrol import format_clock_comment
    records = snap.records
    start = snap.start_fen
    for i in range(len(records) - 1, -1, -1):
        if records[i][2] is not None:
            start, records = records[i][2], records[i + 1:]
            break
    tags = seven_tags(snap.tags, snap.result)
    tags["GameType"] = snap.game_type
    if start is not None:
        fen = Board(start, variant).fen(algebraic=True) if variant.algebraic_pdn else start
        tags["SetUp"] = "1"
        tags["FEN"] = fen
    for k, val in snap.tags.items():
        if k not in tags and not k.startswith("_"):
            tags[k] = val
    out = [f'[{k} "{_q(val)}"]' for k, val in tags.items()]
    tokens: list[str] = []
    number = 1
    first = None
    for notation, side, _setup, clock in records:
        if first is None:
            first = side
            if side != variant_first(variant):
                tokens.append(f"{number}...")
        if side == variant_first(variant):
            tokens.append(f"{number}.")
        tokens.append(notation)
        if clock is not None:
            running = "black" if side == "white" else "white"
            tokens.append("{" + format_clock_comment(clock[0], clock[1], running) + "}")
        if side != variant_first(variant):
            number += 1
    tokens.append(snap.result)
    out.append("")
    text, row = [], ""
    for tok in tokens:
        if row and len(row) + 1 + len(tok) > 79:
            text.append(row)
            row = tok
        else:
            row = f"{row} {tok}" if row else tok
    text.append(row)
    return "\n".join(out + text) + "\n"


def variant_first(variant: Variant) -> str:
    from engine.colour import Colour
    first = variant.first_to_move
    return first.label if isinstance(first, Colour) else ("white" if first == 0 else "black")


def _q(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def state_dict(board: BoardView, line: int, *, arbiter_view: bool,
               snap: PublicSnapshot | None, last_record: dict[str, Any] | None,
               flag_lines: dict[int, int], cache: RecordDicts | None = None,
               notes: Mapping[int, bool] | None = None) -> dict[str, Any]:
    """The ``/api/state`` object (API.md). ``cache``: the moves' dicts made once (the web
    server's, for the game in play); ``notes``: the game's notes, public or not
    (:func:`is_private_note`; the public view leaves the private ones out)."""
    session = board.game
    faults = [{"address": f.address, "kind": f.kind, "message": f.message,
               "squares": list(f.squares)} for f in board.faults.values()]
    out: dict[str, Any] = {
        "line": line, "phase": board.phase.value,
        "view": "arbiter" if arbiter_view else "public",
        "game_id": None if session is None else session.id,
        "metadata": metadata(board), "fen": None, "moves": [], "flags": [],
        "clock": clock_dict(board), "result": "*", "result_reason": None,
        "squares_to_fix": [], "sensor_faults": faults,
        "last_line": last_record if arbiter_view else None, "message": board.message}
    if session is None:
        return out
    arbiter = session.arbiter
    game = arbiter.game
    out["flags"] = ([flag_dict(f, flag_lines.get(f.id)) for f in arbiter.flags] if cache is None
                    else cache.flags(arbiter.flags, flag_lines))
    if not arbiter_view:
        private = [f for f in out["flags"] if is_private_note(f, notes)]
        out["flags"] = [public_flag(f) for f in out["flags"] if not is_private_note(f, notes)]
        for f in private:  # the screen's line shows a new note's text (pi.board.controller)
            if out["message"] and out["message"] == f"{f['code']} {f['text']}"[:80]:
                out["message"] = f"{f['code']} {f['title']}"
        if arbiter.pending is not None:  # the screen's prompt names the held move too
            out["message"] = HELD_TEXT
        # the live clock would tell the held move (its move count, the face passed over)
        out["clock"] = public_clock(snap, out["clock"])
    out["squares_to_fix"] = list(arbiter.squares_to_fix)
    if arbiter_view or snap is None:
        out["moves"] = _move_dicts(game, cache)
        out["fen"] = game.board.fen()
        out["result"] = game.result
        out["result_reason"] = None if game.outcome is None else game.outcome.reason
    else:
        out["moves"] = snap.moves
        out["fen"] = snap.fen
        out["result"] = snap.result
        out["result_reason"] = snap.reason
    return out


def line_events(fed: Fed, flag_lines: dict[int, int],
                clock: Callable[[], dict[str, Any] | None]) -> list[tuple[str, dict[str, Any]]]:
    """The arbiter stream's events of one journal line (``state`` excepted), in order, each
    event's fields taken from its decision's one JSON form (``to_json()``). ``flag_lines``: flag
    id → the line that raised it (kept up to date here); ``clock``: the ``clock`` object at this
    line (asked only when the line changed the clock)."""
    events: list[tuple[str, dict[str, Any]]] = []
    clock_changed = fed.record.get("type") in ("restart", "start")
    line = fed.line
    for d in fed.decisions:
        if isinstance(d, ClockChanged):
            clock_changed = True
            continue
        if not isinstance(d, (MoveCommitted, MoveRetracted, PositionSet, FlagRaised,
                              FlagDecided, GameEnded)):
            continue  # the others are for the board itself (its screen, its clock faces)
        j = d.to_json()
        if isinstance(d, MoveCommitted):
            # the transcript's notation, and the report move's ply, side and t (API.md)
            move = {**j["move"], "notation": j["notation"], "ply": j["ply"], "side": j["side"],
                    "t": j["t"]}
            events.append(("move", {"line": line, "t": j["t"], "ply": j["ply"], "move": move,
                                    "fen": j["fen"], "retracted": False,
                                    "pending": j["pending"], "article": j["article"]}))
        elif isinstance(d, MoveRetracted):
            events.append(("move", {"line": line, "t": j["t"], "ply": j["ply"], "fen": j["fen"],
                                    "retracted": True, "article": j["article"]}))
        elif isinstance(d, PositionSet):
            events.append(("move", {"line": line, "t": j["t"], "ply": None, "fen": j["fen"],
                                    "retracted": False, "position_set": True,
                                    "article": j["article"]}))
        elif isinstance(d, (FlagRaised, FlagDecided)):
            flag = j["flag"]
            if isinstance(d, FlagRaised):
                flag_lines.setdefault(flag["id"], line)
            events.append(("flag", {"line": line,
                                    "flag": flag_view(flag, flag_lines.get(flag["id"]))}))
        else:
            events.append(("result", {"line": line, "result": j["result"],
                                      "reason": j["reason"], "article": j["article"]}))
    if clock_changed:
        events.append(("clock", {"line": fed.line, "clock": clock()}))
    return events


def decisions_json(fed: Fed) -> list[dict[str, Any]]:
    """The decisions of one journal line, each in its one JSON form (``POST /api/arbiter``)."""
    return [d.to_json() for d in fed.decisions]


def public_events(fed: Fed, events: list[tuple[str, dict[str, Any]]],
                   prev: PublicSnapshot | None, snap: PublicSnapshot | None,
                   clock: Callable[[], dict[str, Any] | None] | None = None,
                   notes: Mapping[int, bool] | None = None
                   ) -> list[tuple[str, dict[str, Any]]]:
    """The public stream's events of one journal line: moves as the broadcast view shows them
    (held moves stay out; a view that lost moves says so as retractions), flags as the public
    sees them (:func:`public_flag`), the clock as the public sees it (:func:`public_clock`:
    frozen while a move is held; a clock event when a hold begins or ends), and the result
    once the view has it; never an arbiter's private note (:func:`is_private_note`).
    ``clock``: the live clock (for the end of a hold)."""
    out: list[tuple[str, dict[str, Any]]] = []
    clock_sent = False
    if snap is not None:
        same = prev is not None and prev.tags.get("_id") == snap.tags.get("_id")
        before = prev.moves if (same and prev is not None) else []
        shown = snap.moves
        common = 0
        if before is shown:  # the same view (a line that changed nothing of it)
            common = len(shown)
        while common < min(len(before), len(shown)) and (before[common] is shown[common] or
                                                          before[common] == shown[common]):
            common += 1
        for ply in range(len(before), common, -1):
            out.append(("move", {"line": fed.line, "t": None, "ply": ply, "fen": snap.fen,
                                 "retracted": True}))
        for m in shown[common:]:
            out.append(("move", {"line": fed.line, "t": m.get("t"), "ply": m["ply"],
                                 "move": m, "fen": snap.fen, "retracted": False}))
    for name, data in events:
        if name == "flag":
            if not is_private_note(data["flag"], notes):
                out.append((name, {**data, "flag": public_flag(data["flag"])}))
        elif name == "clock":
            out.append((name, {**data, "clock": public_clock(snap, data["clock"])}))
            clock_sent = True
    was_held = prev is not None and prev.held
    if not clock_sent and snap is not None and snap.held != was_held:
        live = clock() if clock is not None else None
        out.append(("clock", {"line": fed.line, "clock": public_clock(snap, live)}))
    # the result, and a result the arbiter corrected after it (COMP 6.16, issue 37)
    if snap is not None and snap.result != "*" and (prev is None or prev.result != snap.result):
        out.append(("result", {"line": fed.line, "result": snap.result,
                               "reason": snap.reason, "article": None}))
    return out
