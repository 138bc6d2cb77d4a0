"""The event's standings (HUB_API.md ``GET /api/standings``): points per game as the event's
``hub.toml`` scores them (``[standings] points``; COMP 6.14: win 2, draw 1, loss 0), summed
per player (COMP 6.20), players equal on points told apart by the tie-breaks it names, in its
order (``tie_break``; COMP 6.21 b: Buchholz or Sonneborn-Berger, which it adopts when the
event says nothing).

Pure: the games come in as rows of the results table (``pi.hall.rounds.results``: round,
board, white, black, result — a result corrected or adjudicated by the arbiter as the table has
it) and the standings go out as JSON-ready dicts. Values are exact (:class:`Fraction`) until
they are written: a draw scoring ½ never rounds.

A game counts when it has a result (``*``: not yet) and both players are named (``?``: the
board knew neither its pairing nor its names, and a point against nobody would have no
opponent for the tie-breaks).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

__all__ = ["Scoring", "DEFAULT_SCORING", "TIE_BREAKS", "parse_points", "parse_tie_breaks",
           "standings", "outcome", "Outcome"]

#: The tie-breaks an event may name (``hub.toml`` ``[standings] tie_break``), each explained in
#: HUB_API.md.
TIE_BREAKS = ("buchholz", "sonneborn-berger", "wins", "direct-encounter")

#: Who won a game by its result (both result sets of ``engine.pdn.RESULTS``): ``white``,
#: ``black``, ``draw``, ``none`` (``0-0``: both lost, COMP 6.18's double forfeit); None: no
#: result yet (``*``) or none a standings table reads.
Outcome = Literal["white", "black", "draw", "none"]
_OUTCOMES: dict[str, Outcome] = {"1-0": "white", "2-0": "white", "0-1": "black", "0-2": "black",
                                 "1/2-1/2": "draw", "1-1": "draw", "0-0": "none"}
_NUMBER = r"(\d{1,3}(?:[.,]\d{1,3})?|\d{0,3}½)"
_POINTS = re.compile(rf"\s*{_NUMBER}\s*-\s*{_NUMBER}\s*-\s*{_NUMBER}\s*")
UNKNOWN = frozenset({"", "?"})


@dataclass(frozen=True, slots=True)
class Scoring:
    """Points for a win, a draw and a loss, and the tie-breaks in their order."""

    win: Fraction = Fraction(2)
    draw: Fraction = Fraction(1)
    loss: Fraction = Fraction(0)
    tie_break: tuple[str, ...] = ("buchholz", "sonneborn-berger")

    @property
    def points_text(self) -> str:
        """``2-1-0``, ``1-½-0``: as an organiser writes it."""
        return "-".join(_text(p) for p in (self.win, self.draw, self.loss))

    def points(self, result: str, colour: Literal["white", "black"]) -> Fraction | None:
        """What ``colour`` scores with ``result`` (None: no result yet)."""
        o = outcome(result)
        if o is None:
            return None
        if o == "draw":
            return self.draw
        return self.win if o == colour else self.loss


#: COMP 6.14 (2, 1, 0) and COMP 6.21 b (Buchholz, then Sonneborn-Berger).
DEFAULT_SCORING = Scoring()


def outcome(result: str) -> Outcome | None:
    return _OUTCOMES.get(result)


def _text(value: Fraction) -> str:
    whole, rest = divmod(value, 1)
    if rest == 0:
        return str(whole)
    if rest == Fraction(1, 2):
        return f"{whole or ''}½"
    return f"{float(value):g}"


def _number(text: str) -> Fraction:
    if text.endswith("½"):
        return Fraction(int(text[:-1] or 0)) + Fraction(1, 2)
    return Fraction(text.replace(",", "."))


def parse_points(text: str) -> tuple[Fraction, Fraction, Fraction]:
    """``"2-1-0"`` (win, draw, loss; ``½``, ``0.5`` or ``0,5`` for a half) as three numbers, a
    win worth more than a loss and a draw between them. Raises ValueError (one line saying what
    is expected)."""
    m = _POINTS.fullmatch(text)
    if m is None:
        raise ValueError("win-draw-loss points, as \"2-1-0\" (COMP 6.14) or \"1-½-0\"")
    win, draw, loss = (_number(g) for g in m.groups())
    if not win >= draw >= loss or win == loss:
        raise ValueError("a win must score more than a loss, a draw between them "
                         "(win >= draw >= loss)")
    return win, draw, loss


def parse_tie_breaks(value: object) -> tuple[str, ...]:
    """A list of :data:`TIE_BREAKS`, each at most once. Raises ValueError (one line)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"a list of tie-breaks among {', '.join(TIE_BREAKS)}")
    for v in value:
        if v not in TIE_BREAKS:
            raise ValueError(f"unknown tie-break {v[:40]!r} (known: {', '.join(TIE_BREAKS)})")
    if len(set(value)) != len(value):
        raise ValueError("a tie-break named twice")
    return tuple(value)


@dataclass(slots=True)
class _Game:
    round: str
    board: str
    colour: Literal["white", "black"]
    opponent: str
    result: str
    points: Fraction | None


@dataclass(slots=True)
class _Player:
    name: str
    games: list[_Game]

    def decided(self) -> list[_Game]:
        return [g for g in self.games if g.points is not None]


def _players(rows: Iterable[Mapping[str, Any]], scoring: Scoring) -> dict[str, _Player]:
    players: dict[str, _Player] = {}
    for r in rows:
        white, black = str(r["white"]), str(r["black"])
        result = str(r["result"])
        for name, colour, other in ((white, "white", black), (black, "black", white)):
            if name in UNKNOWN:
                continue
            p = players.setdefault(name, _Player(name, []))
            counted = other not in UNKNOWN and other != name
            c: Literal["white", "black"] = "white" if colour == "white" else "black"
            p.games.append(_Game(str(r["round"]), str(r["board"]), c, other, result,
                                 scoring.points(result, c) if counted else None))
    return players


def _sb_weight(g: _Game) -> Fraction:
    """Sonneborn-Berger's share of the opponent's points: all for a win, half for a draw."""
    o = outcome(g.result)
    if o == "draw":
        return Fraction(1, 2)
    return Fraction(1) if o == g.colour else Fraction(0)


def _direct(group: list[_Player]) -> dict[str, Fraction | None]:
    """Direct encounter within ``group`` (players equal so far): each one's points in the games
    among them — only when every two of them have met (a decided game); else None for all (the
    criterion cannot tell them apart)."""
    names = {p.name for p in group}
    met: set[frozenset[str]] = set()
    score: dict[str, Fraction | None] = {}
    for p in group:
        among = [g for g in p.decided() if g.opponent in names]
        met |= {frozenset((p.name, g.opponent)) for g in among}
        score[p.name] = sum((g.points for g in among if g.points is not None), Fraction(0))
    n = len(group)
    if n < 2 or len(met) < n * (n - 1) // 2:
        return {p.name: None for p in group}
    return score


def standings(rows: Iterable[Mapping[str, Any]], scoring: Scoring = DEFAULT_SCORING
              ) -> list[dict[str, Any]]:
    """The players of ``rows`` (results rows of the rounds counted, in round then board order)
    ranked: points (COMP 6.20), then each of ``scoring.tie_break`` in its order, each player's
    ``rank`` distinct (1, 2, …); players equal on all of them are ranked by name and marked
    ``tied`` (a play-off or a drawing of lots decides them, COMP 6.21 a, c). Each item:
    ``rank``, ``name``, ``points``, ``games`` (decided), ``wins``, ``draws``, ``losses``,
    ``tie_breaks`` (name → value; ``direct-encounter`` null where it does not apply),
    ``tied``, ``rounds`` (the player's games, decided or not: ``round``, ``board``,
    ``colour``, ``opponent``, ``result``, ``points`` null until decided)."""
    players = _players(rows, scoring)
    points = {n: sum((g.points for g in p.decided() if g.points is not None), Fraction(0))
              for n, p in players.items()}
    values: dict[str, dict[str, Fraction | None]] = {n: {} for n in players}
    for n, p in players.items():
        done = p.decided()
        for tb in scoring.tie_break:
            if tb == "buchholz":
                values[n][tb] = sum((points[g.opponent] for g in done), Fraction(0))
            elif tb == "sonneborn-berger":
                values[n][tb] = sum((points[g.opponent] * _sb_weight(g) for g in done),
                                    Fraction(0))
            elif tb == "wins":
                values[n][tb] = Fraction(sum(1 for g in done if outcome(g.result) == g.colour))
    # groups equal so far, split by each criterion in turn (direct encounter is computed
    # within the group it has to split)
    groups: list[list[_Player]] = _split(list(players.values()), lambda p: points[p.name])
    for tb in scoring.tie_break:
        if tb == "direct-encounter":
            for group in groups:
                for n, v in _direct(group).items():
                    values[n][tb] = v
        groups = [part for group in groups for part in _split(group, _value_of(values, tb))]
    out: list[dict[str, Any]] = []
    for group in groups:
        for p in sorted(group, key=lambda p: (p.name.casefold(), p.name)):
            done = p.decided()
            out.append({
                "rank": len(out) + 1, "name": p.name, "points": _json(points[p.name]),
                "games": len(done),
                "wins": sum(1 for g in done if outcome(g.result) == g.colour),
                "draws": sum(1 for g in done if outcome(g.result) == "draw"),
                "losses": sum(1 for g in done if outcome(g.result) not in ("draw", g.colour)),
                "tie_breaks": {tb: _json(values[p.name].get(tb)) for tb in scoring.tie_break},
                "tied": len(group) > 1,
                "rounds": [{"round": g.round, "board": g.board, "colour": g.colour,
                            "opponent": g.opponent, "result": g.result,
                            "points": _json(g.points)} for g in p.games]})
    return out


def _value_of(values: Mapping[str, Mapping[str, Fraction | None]], tb: str
              ) -> Callable[[_Player], Fraction | None]:
    return lambda p: values[p.name][tb]


def _split(group: Sequence[_Player], key: Callable[[_Player], Fraction | None]
           ) -> list[list[_Player]]:
    """``group`` split by ``key`` (a Fraction or None; None last), highest first."""
    by: dict[Fraction | None, list[_Player]] = {}
    for p in group:
        by.setdefault(key(p), []).append(p)
    order = sorted(by, key=lambda v: (v is None, -(v or 0)))
    return [by[v] for v in order]


def _json(value: Fraction | None) -> int | float | None:
    """An exact value as JSON writes it: an integer when whole (halves and quarters are exact
    in a float)."""
    if value is None:
        return None
    return int(value) if value.denominator == 1 else float(value)
