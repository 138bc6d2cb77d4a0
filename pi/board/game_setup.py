"""A lone board's next game set up by its arbiter (``POST /api/setup``, ``pi/web/API.md``): the
players, the event, the round and the time control its start line takes (docs/trace-format.md),
checked here before the board takes them (:meth:`pi.board.controller.BoardController.set_up`).

A board of a hall takes the same fields from the hub's pairing instead (``set_pairing``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from engine.errors import TimeControlError
from engine.timecontrol import MAX_TIME_CONTROL_CHARS, parse_time_control_tag
from engine.trace import one_line_problem

__all__ = ["GameSetup", "check_game_setup", "SETUP_FIELDS"]

#: Longest name, event or round (a PDN tag value on one line; as ``damiera.toml``'s).
MAX_NAME = 200
MAX_ROUND = 32


@dataclass(frozen=True, slots=True)
class GameSetup:
    """What the next game's start line takes: each field a one-line text, None to leave the
    board's as it is; ``""`` clears it (no name, no event; ``time_control`` ``""`` or ``"-"``:
    a game without a time control, as ``damiera.toml``'s ``"-"``)."""

    white: str | None = None
    black: str | None = None
    event: str | None = None
    round: str | None = None
    time_control: str | None = None

    def changes(self) -> dict[str, str | None]:
        """The configuration's fields this changes (``pi.board.config.Config``): those given,
        a cleared one None."""
        out: dict[str, str | None] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = value or None
        return out


#: The fields ``POST /api/setup`` takes.
SETUP_FIELDS = tuple(f.name for f in fields(GameSetup))


def check_game_setup(body: Mapping[str, Any]) -> GameSetup:
    """``body`` (``POST /api/setup``'s JSON object) checked. Raises ValueError of one line
    naming the field: an unknown field, a value that is not a one-line text of its length, a
    time control that is not a PDN TimeControl (engine.timecontrol)."""
    unknown = sorted(str(k)[:40] for k in body if k not in SETUP_FIELDS)
    if unknown:
        raise ValueError(f"not a set-up field: {', '.join(unknown)} "
                         f"(known: {', '.join(SETUP_FIELDS)})")
    values: dict[str, str | None] = {}
    for name in SETUP_FIELDS:
        value = body.get(name)
        if value is None:
            continue
        if name == "round" and isinstance(value, int) and not isinstance(value, bool) \
                and 0 <= value <= 10**6:
            value = str(value)
        if not isinstance(value, str):
            raise ValueError(f"{name}: a text is expected")
        limit = {"round": MAX_ROUND, "time_control": MAX_TIME_CONTROL_CHARS}.get(name, MAX_NAME)
        if len(value) > limit:
            raise ValueError(f"{name}: longer than {limit} characters")
        problem = one_line_problem(value)
        if problem is not None:
            raise ValueError(f"{name}: {problem}")
        value = value.strip()
        if name == "time_control" and value:
            try:
                if parse_time_control_tag(value) is None:
                    value = ""  # "-", "?": no time control
            except TimeControlError as exc:
                raise ValueError(f"time_control: {exc}") from None
        values[name] = value
    return GameSetup(**values)
