"""The arbiter's step-through replay: the state after each journal line, computed by the engine.

``replay_states(lines)`` feeds a game's journal (docs/trace-format.md lines) to a fresh arbiter through
``engine.replay``, exactly as ``damiera replay`` and a resume do, and records after every line
what the arbiter then knows: the pieces where the sensors see them (each known by the piece it
was when the turn began, ``?`` for one that came from outside the board), the pieces in the
hand, the moves committed, the last one, the side to move, every flag with its status at that
moment, the irregularity waiting for the opponent, the squares to put right, the clock and the
result. ``GET /api/replay`` serves
it to the arbiter's console (``pi/web/API.md``), with :func:`game_replay`'s flags and moves
as the game's end left them (a past game's console shows them from there).

Pure computation over a file already on disk: the server runs it on a worker thread.
"""

from __future__ import annotations

from typing import Any, Iterable

from engine.arbiter import Arbiter
from engine.clock import ClockState
from engine.colour import Colour
from engine.decisions import FlagRaised
from engine.replay import RAISE, Replay
from pi.web.views import flag_dict

__all__ = ["replay_states", "game_replay", "piece_code"]


def piece_code(color: int, king: bool) -> str:
    """The pages' piece code: ``w``/``b`` a man, ``W``/``B`` a king (pi/web/static/board.js)."""
    c = "w" if color == Colour.WHITE else "b"
    return c.upper() if king else c


def replay_states(lines: Iterable[str]) -> list[dict[str, Any]]:
    """One state per journal line (line 1, the start, included). Policy (``engine.replay``):
    :data:`engine.replay.RAISE` — a line that cannot be read raises the trace reader's
    ``TraceError`` (the server answers 409), an arbiter failure raises too: the arbiter's view
    of a journal it cannot replay is not shown."""
    return _replayed(lines)[0]


def game_replay(lines: Iterable[str]) -> dict[str, Any]:
    """``{"states", "flags", "moves"}``: :func:`replay_states`'s states, and the flags (as
    ``/api/state`` lists them, each with the line that raised it) and the transcript's moves
    after the last line. Raises as :func:`replay_states` does."""
    states, flags, moves = _replayed(lines)
    return {"states": states, "flags": flags, "moves": moves}


def _replayed(lines: Iterable[str]
              ) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, object]]]:
    replay = Replay.read(lines, RAISE)
    first = replay.first
    states = [_state(replay.arbiter, first.line, first.record)]
    flag_lines: dict[int, int] = {}
    for fed in replay:
        for d in fed.decisions:
            if isinstance(d, FlagRaised):
                flag_lines.setdefault(d.flag.id, fed.line)
        states.append(_state(replay.arbiter, fed.line, fed.record))
    a = replay.arbiter
    return (states, [flag_dict(f, flag_lines.get(f.id)) for f in a.flags],
            [m.to_dict() for m in a.game.moves])


def _flag_state(flag: dict[str, Any]) -> dict[str, Any]:
    """A flag's JSON (``engine.decisions.Flag.to_json``) as a state lists it: id, code and
    status at that line."""
    return {"id": flag["id"], "code": flag["code"], "status": flag["status"]}


def _state(a: Arbiter, line: int, record: dict[str, Any]) -> dict[str, Any]:
    tr = a.tracking
    pieces: dict[str, str] = {}
    for square in a.sensed:
        piece = tr.piece_on(square)
        pieces[square] = "?" if piece is None else piece_code(piece.color, piece.king)
    game = a.game
    last = game.moves[-1] if game.moves else None
    pending = a.pending
    clock = a.clock
    reading = None
    if clock is not None and clock.state != ClockState.READY:
        t = record.get("t")
        r = clock.read(max(float(t), 0.0)) if isinstance(t, (int, float)) else None
        if r is not None:
            reading = {"white": r.white.seconds, "black": r.black.seconds,
                       "running": None if r.running is None else r.running.label}
    return {
        "line": line,
        "record": record,
        "pieces": pieces,
        "hand": len(tr.hand),  # pieces lifted and not yet put down
        "moves": len(game.moves),
        "last_move": None if last is None else {"notation": last.notation, "ply": last.ply,
                                                "side": last.side.label},
        "turn": "white" if a.board.turn == Colour.WHITE else "black",
        "flags": [_flag_state(f.to_json()) for f in a.flags],
        "pending": None if pending is None else pending.id,
        "to_fix": list(a.squares_to_fix),
        "clock": reading,
        "result": game.result,
    }
