"""What the board keeps on disk for the hall (``STATE/hall/``) and reads back from its journals,
all of it off the daemon's loop (the link's I/O thread):

* ``pairing.json`` — the last pairing the hub sent (``{"id": …, "pairing": {…}}``), applied to
  every game begun from then on and again after a restart;
* ``commands.jsonl`` — the commands carried out, one JSON object a line: ``{"id": …, "ack":
  {…}}`` once answered, ``{"id": …, "pending": ["<game>", <lines before>]}`` before an action
  goes into the daemon's inbox (so that a command redelivered after a crash is looked up in the
  journal instead of being done twice). Bounded: rewritten with the newest
  :data:`KEEP_COMMANDS` when it holds twice as many;
* the journal heads of ``status`` and the lines of a ``resend``, read from
  ``STATE/games/<id>/trace.jsonl`` exactly as written (whole lines only: a line being written
  is not taken).

Not thread-safe: one thread (the link's I/O thread) uses it after start.
"""

from __future__ import annotations

import json
import logging
import os
from collections import OrderedDict
from pathlib import Path
from typing import Any

from pi.board.arbiter_request import ArbiterRequest
from pi.hall.protocol import MAX_GAMES, PAIRING_KEYS, Ack
from pi.board.statedir import StateDir, atomic_write, fsync_dir

log = logging.getLogger(__name__)

__all__ = ["HallStore", "KEEP_COMMANDS", "journal_lines", "find_action", "banner_text"]

#: Commands remembered (the hub never redelivers one older than its last few hundred).
KEEP_COMMANDS = 1000


def banner_text(pairing: dict[str, str]) -> str:
    """The OLED's header for a pairing: ``r3 Ann - Bob`` (event alone when that is all)."""
    parts = []
    if pairing.get("round"):
        parts.append(f"r{pairing['round']}")
    if pairing.get("white") or pairing.get("black"):
        parts.append(f"{pairing.get('white') or '?'} - {pairing.get('black') or '?'}")
    if not parts and pairing.get("event"):
        parts.append(pairing["event"])
    return " ".join(parts)


def journal_lines(path: Path, start: int, stop: int | None = None) -> list[tuple[int, str]]:
    """Lines ``start``… (1-based; up to ``stop`` included when given) of the journal ``path``,
    each exactly as on disk without its newline. A last line without its newline (being
    written, or torn) is left out. Raises OSError."""
    data = path.read_bytes()
    raws = data.split(b"\n")
    raws.pop()  # after the last newline: b"" or a line not yet whole
    last = len(raws) if stop is None else min(stop, len(raws))
    return [(n, raws[n - 1].decode("utf-8", errors="replace"))
            for n in range(max(1, start), last + 1)]


def find_action(path: Path, after: int, request: ArbiterRequest) -> int | None:
    """The number of the first line after ``after`` of the journal ``path`` that journals
    ``request``, or None (also when the journal cannot be read)."""
    try:
        lines = journal_lines(path, after + 1)
    except OSError:
        return None
    for number, text in lines:
        try:
            record = json.loads(text)
        except ValueError:
            continue
        if isinstance(record, dict) and request.matches(record):
            return number
    return None


class HallStore:
    """``STATE/hall/`` of the state directory ``state`` (see the module docstring)."""

    def __init__(self, state: StateDir, keep: int = KEEP_COMMANDS) -> None:
        self.state = state
        self.dir = state.root / "hall"
        self.keep = keep
        self.commands: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self._file_lines = 0
        #: finished games: their line counts, and their journals' sizes when counted
        self._heads: dict[str, tuple[int, bool, int]] = {}
        self._load_commands()

    @property
    def pairing_path(self) -> Path:
        return self.dir / "pairing.json"

    @property
    def commands_path(self) -> Path:
        return self.dir / "commands.jsonl"

    def _ensure_dir(self) -> None:
        if not self.dir.is_dir():
            self.dir.mkdir(parents=True, exist_ok=True)
            fsync_dir(self.state.root)

    # ------------------------------------------------------------------ the pairing

    def load_pairing(self) -> dict[str, str] | None:
        """The kept pairing, or None (none kept, or a file that cannot be read: logged)."""
        try:
            obj = json.loads(self.pairing_path.read_bytes())
            pairing = obj["pairing"]
            if not isinstance(pairing, dict) or not all(
                    k in PAIRING_KEYS and isinstance(v, str) for k, v in pairing.items()):
                raise ValueError("not a pairing")
            return pairing
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("%s: unreadable, no pairing kept (%s)", self.pairing_path, exc)
            return None

    def save_pairing(self, cmd_id: str, pairing: dict[str, str]) -> None:
        """Keeps ``pairing`` durably (atomic). Raises OSError."""
        self._ensure_dir()
        atomic_write(self.pairing_path, json.dumps({"id": cmd_id, "pairing": pairing},
                                                   ensure_ascii=False) + "\n")

    # ------------------------------------------------------------------ commands

    def _load_commands(self) -> None:
        try:
            data = self.commands_path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            log.warning("%s: unreadable, commands forgotten (%s)", self.commands_path, exc)
            return
        for raw in data.split(b"\n"):
            if not raw.strip():
                continue
            self._file_lines += 1
            try:
                obj = json.loads(raw)
                cmd_id = obj["id"]
                if not isinstance(cmd_id, str):
                    raise ValueError("id")
            except (ValueError, KeyError, TypeError):
                continue  # a torn last line (a crash mid-append): that command was not answered
            entry = self.commands.pop(cmd_id, {})
            entry.update({k: v for k, v in obj.items() if k in ("ack", "pending")})
            self.commands[cmd_id] = entry
        while len(self.commands) > self.keep:
            self.commands.popitem(last=False)

    def answer(self, cmd_id: str) -> Ack | None:
        """The first answer given to ``cmd_id``, or None."""
        entry = self.commands.get(cmd_id)
        a = None if entry is None else entry.get("ack")
        if not isinstance(a, dict):
            return None
        return Ack(cmd_id, bool(a.get("ok")), a.get("line"), a.get("error"))

    def pending(self, cmd_id: str) -> tuple[str, int] | None:
        """(game, lines before) of an action of ``cmd_id`` put into the inbox but not answered
        (the board stopped meanwhile), or None."""
        entry = self.commands.get(cmd_id)
        p = None if entry is None or "ack" in entry else entry.get("pending")
        if (isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
                and isinstance(p[1], int)):
            return p[0], p[1]
        return None

    def record_pending(self, cmd_id: str, game_id: str, lines: int) -> None:
        self._record(cmd_id, {"pending": [game_id, lines]})

    def record_answer(self, ack: Ack) -> None:
        a: dict[str, Any] = {"ok": ack.ok}
        if ack.line is not None:
            a["line"] = ack.line
        if ack.error is not None:
            a["error"] = ack.error
        self._record(ack.id, {"ack": a})

    def _record(self, cmd_id: str, fields: dict[str, Any]) -> None:
        """Appends one line durably (fsync) and remembers it. Raises OSError."""
        entry = self.commands.pop(cmd_id, {})
        entry.update(fields)
        self.commands[cmd_id] = entry
        while len(self.commands) > self.keep:
            self.commands.popitem(last=False)
        self._ensure_dir()
        if self._file_lines >= 2 * self.keep:
            self._compact()
            return
        line = json.dumps({"id": cmd_id, **fields}, ensure_ascii=False) + "\n"
        fd = os.open(self.commands_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC,
                     0o644)
        try:
            os.write(fd, line.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)
        self._file_lines += 1

    def _compact(self) -> None:
        text = "".join(json.dumps({"id": k, **v}, ensure_ascii=False) + "\n"
                       for k, v in self.commands.items())
        atomic_write(self.commands_path, text)
        self._file_lines = len(self.commands)

    # ------------------------------------------------------------------ heads

    def heads(self, current: str | None, current_lines: int) -> list[tuple[str, int, bool]]:
        """(id, lines, finished) of the newest :data:`MAX_GAMES` games, oldest first. The game
        in play (``current``) counts ``current_lines`` (the lines published so far); the others
        are counted on disk (finished ones once)."""
        out = []
        for g in self.state.game_dirs()[-MAX_GAMES:]:
            finished = g.is_finished()
            if g.id == current and not finished:
                out.append((g.id, current_lines, False))
                continue
            try:
                size = g.trace.stat().st_size
            except OSError:
                size = -1
            # a finished game counted once, again when its journal grew: lines after the
            # result (a note, a result corrected, COMP 6.16) reach the hub by these heads
            cached = self._heads.get(g.id)
            if cached is not None and cached[1] == finished and cached[2] == size:
                out.append((g.id, cached[0], finished))
                continue
            try:
                lines = g.trace.read_bytes().count(b"\n")
            except OSError:
                lines = 0
            if g.id == current:
                lines = max(lines, current_lines)
            if finished:
                self._heads[g.id] = (lines, True, size)
            out.append((g.id, lines, finished))
        return out
