"""The hall's alarm log (HUB_API.md ``GET /api/alarms`` and the arbiter's ``alarm`` events): what
looks like someone else speaking for a board, kept for the hall's arbiter, newest last.

An alarm is a dict of HUB_API.md (``id``, ``board``, ``time``, ``last``, ``kind``, ``what``,
``count``, ``subject``). The same board, kind and subject within :data:`ALARM_REPEAT` seconds of
its last counts on it (``count``, ``last``) instead of making another: a flood of forged lines is
one alarm that counts, told to the listeners (the console) at most once a second. On the event
loop's thread, like the hub that raises them (``pi.hall.hub``).
"""

from __future__ import annotations

import logging
import time
from collections import deque
from typing import Any, Callable

log = logging.getLogger(__name__)

__all__ = ["AlarmLog", "MAX_ALARMS", "ALARM_REPEAT"]

#: Alarms kept (the newest; the console shows them newest first).
MAX_ALARMS = 500
#: The same alarm (board, kind and game) within this many seconds of its last is counted on it,
#: not repeated: a flood of forged lines is one alarm that counts, not a flood of alarms (its
#: count goes to the console at most once a second).
ALARM_REPEAT = 10.0


class AlarmLog:
    """The newest :data:`MAX_ALARMS` alarms (``items``, oldest first) and who is told of each
    (``listeners``: each is handed a copy)."""

    def __init__(self) -> None:
        self.items: deque[dict[str, Any]] = deque(maxlen=MAX_ALARMS)
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        self._seq = 0
        self._told: dict[int, float] = {}  # alarm id → when the listeners were last told

    def add(self, board: str, kind: str, what: str, subject: str = "") -> dict[str, Any]:
        """An alarm (module docstring): ``kind`` one of ``forged``, ``unsigned``, ``conflict``,
        ``status``, ``taken_over``; ``what`` one line; ``subject`` what it is about (a game
        id). Returns it (a repeat: the alarm it counts on)."""
        now = time.time()
        old: dict[str, Any]
        for old in reversed(self.items):
            if old["board"] == board and old["kind"] == kind and \
                    old["subject"] == subject and old["last"] >= now - ALARM_REPEAT:
                old["count"] += 1
                old["last"] = now
                old["what"] = what
                if now - self._told.get(old["id"], 0.0) >= 1.0:
                    self._tell(old)
                return old
        self._seq += 1
        alarm: dict[str, Any] = {"id": self._seq, "board": board, "time": now,
                                 "last": now, "kind": kind, "what": what, "count": 1,
                                 "subject": subject}
        self.items.append(alarm)
        log.warning("ALARM board %s: %s", board, what)
        self._tell(alarm)
        return alarm

    def _tell(self, a: dict[str, Any]) -> None:
        self._told[a["id"]] = a["last"]
        if len(self._told) > MAX_ALARMS:
            kept = {x["id"] for x in self.items}
            self._told = {k: t for k, t in self._told.items() if k in kept}
        for listener in self.listeners:
            try:
                listener(dict(a))
            except Exception:
                log.exception("alarm listener failed")
