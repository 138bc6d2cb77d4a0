"""The hall's alarm log (HUB_API.md ``GET /api/alarms`` and the arbiter's ``alarm`` events): what
looks like someone else speaking for a board, kept for the hall's arbiter, newest last.

An alarm is a dict of HUB_API.md (``id``, ``board``, ``time``, ``last``, ``kind``, ``what``,
``count``, ``subject``). The same board, kind and subject within :data:`ALARM_REPEAT` seconds of
its last counts on it (``count``, ``last``) instead of making another: a flood of forged lines is
one alarm that counts, told to the listeners (the console) at most once a second. On the event
loop's thread, like the hub that raises them (``pi.hall.hub``).

The alarms are the hall's record: kept in the hub's state directory (``DIR/alarms.jsonl``, one
JSON alarm a line, appended as it is raised and as its count is told — at most once a second,
and at :meth:`AlarmLog.close`; the last line of an id is its state; compacted when it holds
four times :data:`MAX_ALARMS` lines) and read back at start, so a restart of the hub loses
none.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger(__name__)

__all__ = ["AlarmLog", "MAX_ALARMS", "ALARM_REPEAT"]

#: Alarms kept (the newest; the console shows them newest first).
MAX_ALARMS = 500
#: The same alarm (board, kind and game) within this many seconds of its last is counted on it,
#: not repeated: a flood of forged lines is one alarm that counts, not a flood of alarms (its
#: count goes to the console at most once a second).
ALARM_REPEAT = 10.0


#: The keys of a kept alarm (HUB_API.md); a line of the file without them is passed over.
_KEYS = ("id", "board", "time", "last", "kind", "what", "count", "subject")


class AlarmLog:
    """The newest :data:`MAX_ALARMS` alarms (``items``, oldest first) and who is told of each
    (``listeners``: each is handed a copy). ``path``: the file they are kept in (module
    docstring; None: in memory only)."""

    def __init__(self, path: Path | None = None) -> None:
        self.items: deque[dict[str, Any]] = deque(maxlen=MAX_ALARMS)
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        self._seq = 0
        self._told: dict[int, float] = {}  # alarm id → when the listeners were last told
        self.path = path
        self._lines = 0  # lines in the file
        self._failing = False  # the last write failed (said once)
        self._unkept: set[int] = set()  # ids counted again since their state was kept
        if path is not None:
            self._load(path)

    def _load(self, path: Path) -> None:
        """The alarms kept (a line that cannot be read, a crash's torn last one, is passed
        over); compacted when long."""
        try:
            with open(path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return
        except OSError as exc:
            log.error("the hall's alarms not read back from %s: %s", path, exc)
            return
        kept: dict[int, dict[str, Any]] = {}
        for raw in data.split(b"\n"):
            self._lines += 1
            try:
                alarm = json.loads(raw)
            except ValueError:
                continue
            if isinstance(alarm, dict) and all(k in alarm for k in _KEYS) \
                    and isinstance(alarm["id"], int):
                kept[alarm["id"]] = {k: alarm[k] for k in _KEYS}
        for n in sorted(kept)[-MAX_ALARMS:]:
            self.items.append(kept[n])
            self._told[n] = kept[n]["last"]
        self._seq = max(kept, default=0)
        if self._lines > 4 * MAX_ALARMS:
            self._compact(path)

    def _compact(self, path: Path) -> None:
        tmp = path.with_name(path.name + ".new")
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.writelines(json.dumps(a, ensure_ascii=False) + "\n" for a in self.items)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
            self._lines = len(self.items)
        except OSError as exc:
            log.error("the hall's alarms not compacted (%s): kept as they are", exc)

    def _keep(self, alarm: dict[str, Any]) -> None:
        """``alarm``'s state appended to the file (a disk that refuses it: said once, until it
        takes them again)."""
        if self.path is None:
            return
        try:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps(alarm, ensure_ascii=False) + "\n")
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            if not self._failing:
                log.error("the hall's alarms cannot be kept in %s (%s): they live in memory "
                          "until it can", self.path, exc.strerror or exc)
            self._failing = True
            return
        if self._failing:
            log.warning("the hall's alarms are kept in %s again", self.path)
            self._failing = False
        self._lines += 1
        if self._lines > 4 * MAX_ALARMS:
            self._compact(self.path)

    def add(self, board: int | None, kind: str, what: str, subject: str = "") -> dict[str, Any]:
        """An alarm about ``board`` (None: the hub itself; its ``board`` is then ``"hub"``)
        (module docstring): ``kind`` one of ``forged``, ``unsigned``, ``conflict``,
        ``status``, ``taken_over``, ``ack``, ``lost``, ``disk``, ``damaged``; ``what`` one
        line; ``subject`` what it is about (a game id). Returns it (a repeat: the alarm it
        counts on)."""
        now = time.time()
        name = "hub" if board is None else str(board)
        old: dict[str, Any]
        for old in reversed(self.items):
            if old["board"] == name and old["kind"] == kind and \
                    old["subject"] == subject and old["last"] >= now - ALARM_REPEAT:
                old["count"] += 1
                old["last"] = now
                old["what"] = what
                if now - self._told.get(old["id"], 0.0) >= 1.0:
                    self._tell(old)
                else:
                    self._unkept.add(old["id"])  # kept when next told, or at close
                return old
        self._seq += 1
        alarm: dict[str, Any] = {"id": self._seq, "board": name, "time": now,
                                 "last": now, "kind": kind, "what": what, "count": 1,
                                 "subject": subject}
        self.items.append(alarm)
        log.warning("ALARM board %s: %s", name, what)
        self._tell(alarm)
        return alarm

    def close(self) -> None:
        """The counts not kept yet (counted within a second of their last telling) kept."""
        for a in self.items:
            if a["id"] in self._unkept:
                self._keep(a)
        self._unkept.clear()

    def _tell(self, a: dict[str, Any]) -> None:
        self._told[a["id"]] = a["last"]
        self._unkept.discard(a["id"])
        self._keep(a)  # a new alarm, or its count at most once a second
        if len(self._told) > MAX_ALARMS:
            kept = {x["id"] for x in self.items}
            self._told = {k: t for k, t in self._told.items() if k in kept}
        for listener in self.listeners:
            try:
                listener(dict(a))
            except Exception:
                log.exception("alarm listener failed")
