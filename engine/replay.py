"""``damiera replay``: a trace replayed through the arbiter, and the report of TRACE.md.

``replay_lines(lines)`` parses a JSONL trace (raising ``TraceError`` for a malformed one, see
``engine.trace``), feeds every event to an :class:`engine.arbiter.Arbiter` and returns a
:class:`Report`: ``to_json()`` is exactly the TRACE.md object (keys ``moves``, ``flags``, ``fen``,
``result``, ``pdn``), ``to_text()`` a readable summary with the article title of every flag.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from engine.arbiter import Arbiter
from engine.articles import title
from engine.decisions import Flag
from engine.events import TraceEnded
from engine.game import Game
from engine.trace import read_trace

__all__ = ["Report", "replay_lines", "replay_events"]


@dataclass
class Report:
    """The outcome of a replay: the game record and the flags."""

    game: Game
    flags: list[Flag]

    @property
    def moves(self) -> list[dict[str, Any]]:
        return [m.to_dict() for m in self.game.moves]

    def pdn(self) -> str:
        """PDN 3.0 text of the game (``engine.pdn.write_pdn``)."""
        from engine.pdn import write_pdn  # written by the lead alongside
        return write_pdn(self.game)

    def to_json(self) -> dict[str, Any]:
        """The TRACE.md report object."""
        return {"moves": self.moves, "flags": [f.to_dict() for f in self.flags],
                "fen": self.game.board.fen(), "result": self.game.result, "pdn": self.pdn()}

    def to_text(self) -> str:
        """A readable summary: moves, flags with their article titles, result."""
        lines = [f"{self.game.variant.name} game, {len(self.game.moves)} move(s)", "", "Moves:"]
        row: list[str] = []
        for m in self.game.moves:
            t = "" if m.t is None else f" ({m.t:g}s)"
            row.append(f"{m.ply:>3}. {m.notation}{t}" + (f"  [FEN {m.setup_fen}]" if m.setup_fen else ""))
        lines.extend(row or ["  (none)"])
        lines += ["", "Flags:"]
        if not self.flags:
            lines.append("  (none)")
        for f in self.flags:
            side = f.side.label if f.side is not None else "-"
            head = f"  {f.t:>8g}s  {f.code:<11} {f.kind:<13} {f.status:<10} {side:<5} {f.text}"
            lines.append(head)
            art = title(f.code)
            if art:
                lines.append(f"{'':24}{f.code}: {art}")
        lines += ["", f"Position: {self.game.board.fen()}"]
        o = self.game.outcome
        lines.append(f"Result: {self.game.result}" + (f" ({o.code}: {o.reason})" if o else ""))
        return "\n".join(lines) + "\n"


def replay_events(arbiter: Arbiter, events: Iterable[Any]) -> Report:
    last_t = 0.0
    ended = False
    for e in events:
        arbiter.feed(e)
        last_t = e.t
        ended = isinstance(e, TraceEnded)
    if not ended:
        arbiter.advance(last_t)
    return Report(arbiter.game, arbiter.flags)


def replay_lines(lines: Iterable[str]) -> Report:
    """Replay a JSONL trace, read as a stream (any iterable of lines, e.g. an open file: the
    events are parsed as they are fed, never held all at once). Raises ``TraceError(line,
    message)`` for a malformed trace, when its bad line is reached."""
    start, events = read_trace(lines)
    return replay_events(Arbiter(start), events)
