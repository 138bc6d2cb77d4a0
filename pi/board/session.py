"""One game on the board: the write-ahead journal, the arbiter and the game's files, in that order.

:class:`GameSession` is the only way the daemon gives the arbiter an event: the event's TRACE.md
line is appended to ``STATE/games/<id>/trace.jsonl`` and fsync'd (``pi.board.journal``) *before* the
arbiter sees it, so whatever the event causes (a move on the screen, a flag on the web) is on
disk first. After every decision that changes the record (a move committed or retracted, a flag
raised or decided, the result) ``game.pdn`` and ``report.json`` are rewritten atomically
(``pi.board.statedir.atomic_write``) by :meth:`GameSession.write_files`, which the daemon calls once
it has shown and published what the input caused (``wait=False``: the text is made on the loop,
written and fsync'd by the session's writer thread, so those four fsyncs never hold the loop; the
files may lag the journal by that write, never go backwards; at the game's end they are written
before the ``finished`` marker); ``report.json`` is exactly the ``damiera replay --json`` report
of the journal, so an arbiter can check one against the other.

Every line goes through the game's :class:`engine.replay.Replay` (policy :data:`POLICY`), the one
replay of the project. Resume (:meth:`GameSession.resume`): the journal of the unfinished game is
read (a torn last line dropped), every line is fed to a fresh replay — the same code path as
``damiera replay`` — and a ``restart`` line is appended (TRACE.md: ``t`` goes on from the last
line plus the wall-clock time away, when known). The clocks stand stopped from there until the
arbiter's ``start_clock`` (COMP 7.3–7.4); the sensors' snapshot, fed next by the daemon, is
checked against the position the journal ends in.

Time: ``t`` is game time in seconds since the start line (the journal's ``t``). The session
keeps it non-decreasing: an event stamped earlier than the last journaled one (a sensor event
stamped when first seen, merged after a button press) is journaled at the last ``t``.

Not thread-safe: the daemon's event-loop thread owns it.
"""

from __future__ import annotations

import logging
import math
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from engine.arbiter import Arbiter
from engine.decisions import (Decision, FlagDecided, FlagRaised, GameEnded, MoveCommitted,
                              MoveRetracted, PositionSet)
from engine.events import Event, GameStarted
from engine.replay import ContainArbiter, Fed, Replay, Report
from engine.variants import Variant
from pi.board.errors import JournalDamagedError, JournalError
from pi.board.handoff import LatestWorker
from pi.board.journal import Journal, Recovered
from pi.board.statedir import GameDir, StateDir

log = logging.getLogger(__name__)

__all__ = ["GameSession", "RECORD_DECISIONS", "POLICY", "refresh_game_files"]

#: Decisions after which ``game.pdn`` and ``report.json`` are rewritten.
RECORD_DECISIONS = (MoveCommitted, MoveRetracted, PositionSet, FlagRaised, FlagDecided, GameEnded)


#: The daemon's replay policy (``engine.replay``): an arbiter failure on a line is logged and the
#: line passed over, the game goes on (one bad event never stops the board); a line that cannot
#: be read raises — the live feed refuses it before it is journaled, a resume abandons the
#: journal (``JournalDamagedError``).
POLICY = ContainArbiter(log)


class GameSession:
    """A game in progress or resumed. Make one with :meth:`begin` or :meth:`resume`."""

    def __init__(self, game: GameDir, journal: Journal, replay: Replay, last_t: float) -> None:
        self.game = game
        self.journal = journal
        #: the game's replay (``engine.replay``): every journaled line is fed through it
        self.replay = replay
        self._last_t = last_t
        self._finished = game.is_finished()
        self._files_stale = False
        #: the last rewrite of game.pdn/report.json failed: why (one line); None once written
        self.files_error: str | None = None
        #: newest text only: a text made while another is being written replaces any waiting
        self._writer: LatestWorker[dict[str, Any]] = LatestWorker(self._write_body, "game-files")

    @property
    def arbiter(self) -> Arbiter:
        return self.replay.arbiter

    @property
    def start(self) -> GameStarted:
        return self.replay.start

    @property
    def start_line(self) -> dict[str, Any]:
        """The journal's start line (with the game's ``id`` and ``started_at``)."""
        return self.replay.start_line

    @property
    def variant(self) -> Variant:
        return self.replay.variant

    # ------------------------------------------------------------------ making one

    @classmethod
    def begin(cls, state: StateDir, start_line: dict[str, Any], *,
              when: datetime | None = None, board: int | None = None) -> GameSession:
        """A new game: a new folder, the journal with ``start_line`` (TRACE.md's start object;
        ``id`` and ``started_at`` are filled in here: ``when``, default now, as ISO 8601 UTC to
        the millisecond, ``2026-11-22T05:12:30.000+00:00``; a naive ``when`` is taken as UTC).
        Raises ``engine.trace.TraceError`` for a start line the rules refuse (nothing created),
        ``pi.board.statedir.StateDirError`` while another game is unfinished, or
        ``pi.board.journal.JournalWriteError`` when the journal cannot be created: then the new
        folder is removed again, so that the next game can begin (an unfinished game without a
        journal would block every later one)."""
        stamp = when if when is not None else datetime.now(timezone.utc)
        stamp = stamp.replace(tzinfo=timezone.utc) if stamp.tzinfo is None \
            else stamp.astimezone(timezone.utc)
        line = dict(start_line)
        Replay(line, POLICY)  # refuse a bad start before creating anything
        game = state.new_game(stamp, board=board)
        line["id"] = game.id
        line["started_at"] = stamp.isoformat(timespec="milliseconds")
        try:
            journal = Journal.create(game.trace, line)
        except JournalError:
            state.remove_unbegun(game)
            raise
        session = cls(game, journal, Replay(line, POLICY), 0.0)
        session._write_files()
        log.info("game %s begun (%s)", game.id, session.variant.name)
        return session

    @classmethod
    def resume(cls, game: GameDir, *, wall_now: float | None = None) -> GameSession:
        """The unfinished ``game`` read back from its journal into a fresh arbiter, and a
        ``restart`` line appended. ``wall_now``: the wall-clock time now (Unix seconds), None
        when it cannot be trusted (a Pi without a real-time clock before network time); the
        time away is then unknown (``down`` null). Raises ``pi.board.errors.JournalDamagedError``
        (file untouched: the caller abandons the game and begins a new one) or
        ``JournalError``."""
        game.remove_stale_temporaries()
        journal, rec = Journal.resume(game.trace)
        try:
            replay = Replay.read(rec.lines, POLICY)
            for _ in replay:
                pass
        except Exception as exc:  # noqa: BLE001 - the journal's form was good, its content is not
            journal.close()
            raise JournalDamagedError(rec.path, 0, f"cannot be replayed: {exc}") from None
        session = cls(game, journal, replay, rec.last_t)
        arbiter = replay.arbiter
        outcome = arbiter.game.outcome
        if outcome is not None:
            # The result was journaled but the daemon stopped before the ``finished`` marker
            # (pi.board.statedir): the game is over, nothing to resume.
            session._write_files()
            game.mark_finished(arbiter.game.result)
            session._finished = True
            log.info("game %s was over (%s); marked finished", game.id, arbiter.game.result)
            return session
        # files older than the journal (a write that failed before the stop): rewritten at the
        # next write (the next change, or the close)
        session._files_stale = game.derived_stale()
        down = _time_away(rec, wall_now)
        restart = _restart_line(rec.last_t, down)
        session._append_and_feed(restart)
        log.info("game %s resumed after %d journal lines (down %s s)", game.id,
                 len(rec.lines), "unknown" if down is None else f"{down:.1f}")
        return session

    # ------------------------------------------------------------------ feeding

    @property
    def last_t(self) -> float:
        """``t`` of the last journaled line."""
        return self._last_t

    @property
    def id(self) -> str:
        """The game's id (its folder's name)."""
        return self.game.id

    @property
    def line(self) -> int:
        """Lines in the journal (the number of the last one written)."""
        return self.journal.line_count

    @property
    def trace(self) -> Path:
        """The game's journal file."""
        return self.game.trace

    @property
    def finished(self) -> bool:
        """The game has a result (the ``finished`` marker is written)."""
        return self._finished

    def feed(self, event: Event) -> Fed:
        """Journals ``event`` (``t`` clamped to the last journaled ``t``), then feeds it to the
        arbiter; rewrites the game's files when the record changed. Raises
        ``pi.board.journal.JournalWriteError`` when the line could not be made durable: then the
        arbiter has NOT seen the event (nothing is shown that is not on disk)."""
        return self._append_and_feed(_event_line(event, self._last_t))

    def advance(self, t: float) -> tuple[tuple[Decision, ...], Fed | None]:
        """Time reached ``t`` with no event (a settle timer, a flag fall, the lampo countdown):
        the arbiter's decisions, and the ``end`` line journaled when the game ended by time
        alone. Otherwise nothing is journaled: replaying the journal, the next line's ``t``
        brings the same decisions."""
        t = max(t, self._last_t)
        decisions = self.replay.advance(t)
        self._after(decisions)
        end = None
        if any(isinstance(d, GameEnded) for d in decisions):
            # The game ended by time alone (a flag fell): journal where, so that a replay of
            # the journal ends it at the same moment (TRACE.md ``end``).
            end = self._append_and_feed({"t": _round_t(t), "type": "end"})
        return decisions, end

    def next_deadline(self) -> float | None:
        """Game time at which :meth:`advance` has something to do (``Arbiter.next_deadline``)."""
        if self._finished:
            return None
        return self.arbiter.next_deadline()

    def journal_line(self, obj: dict[str, Any]) -> Fed:
        """Journals a line that is not a player's or sensor's event but goes to the arbiter all
        the same (``fault``, ``fault_cleared``, ``end``): ``obj`` without ``t`` gets the last
        ``t``."""
        line = dict(obj)
        t = line.get("t")
        line["t"] = _round_t(max(float(t), self._last_t) if isinstance(t, (int, float))
                             else self._last_t)
        return self._append_and_feed(line)

    def _append_and_feed(self, line: dict[str, Any]) -> Fed:
        event = self.replay.read_event(line, self.journal.line_count + 1)
        number = self.journal.append(line)  # durable before anything it causes is seen
        self._last_t = float(line["t"])
        fed = self.replay.take(line, event, number)
        self._after(fed.decisions)
        return fed

    def _after(self, decisions: Iterable[Decision]) -> None:
        ended = None
        for d in decisions:
            if isinstance(d, RECORD_DECISIONS):
                self._files_stale = True
            if isinstance(d, GameEnded):
                ended = d
        if ended is not None and not self._finished:
            self.write_files()  # the record whole before the game is marked over
            self.game.mark_finished(ended.result)
            self._finished = True
            log.info("game %s ended %s (%s, %s)", self.game.id, ended.result, ended.reason,
                     ended.article)

    # ------------------------------------------------------------------ files

    def report(self) -> Report:
        """The TRACE.md report of the game so far."""
        return self.replay.report()

    def write_files(self, wait: bool = True) -> None:
        """Rewrites ``game.pdn`` and ``report.json`` if the record changed since they were last
        written. The daemon calls it after showing and publishing what an input caused: only
        the journal must be on disk before that (it holds the truth; these files are derived
        from it, and cost four fsyncs). ``wait=False`` (the daemon's loop): the files' text is
        made now, on the caller's thread, and written by the session's writer thread (newest
        text only): the four fsyncs never hold the loop; the files may lag the journal by the
        time of those writes, never go backwards (a newer text is never overwritten by an
        older one)."""
        if not self._files_stale:
            return
        if wait:
            self._write_files()
            return
        self._files_stale = False
        body = self._body()
        if body is not None:
            self._writer.submit(body)

    def flush(self) -> None:
        """Waits until the writer thread has written the last text handed to it."""
        self._writer.flush()

    def _body(self) -> dict[str, Any] | None:
        try:
            return self.report().to_json()
        except Exception:  # derived files: the journal has everything
            log.exception("game %s: cannot make game.pdn/report.json", self.game.id)
            return None

    def _write_files(self) -> None:
        self._files_stale = False
        body = self._body()
        if body is not None:
            self._writer.run_now(body)

    def _write_body(self, body: dict[str, Any]) -> None:
        try:
            self.game.write_pdn(body["pdn"])
            self.game.write_report(body)
        except OSError as exc:
            # The journal holds the truth; the files are derived and rewritten at the next
            # change (and at the next start: pi.board.session.refresh_game_files). Say so
            # loudly (the log, the screen, the exit status), never stop the game for it.
            self.files_error = _files_failure(self.game, exc)
            log.error("%s", self.files_error)
        else:
            self.files_error = None

    def close(self) -> None:
        """Brings the files up to date and closes the journal (already durable)."""
        self.write_files()
        self._writer.close()
        self.journal.close()


# ---------------------------------------------------------------------- derived files

def refresh_game_files(state: StateDir, skip: str | None = None) -> list[str]:
    """Rewrites, from its journal, every game's ``game.pdn``/``report.json`` that is missing or
    older than the journal (:meth:`GameDir.derived_stale`): a finished game is never left with
    a stale record after a write failed (a full disk). ``skip``: a game id left alone (the game
    being resumed: its session replays it and rewrites them). Returns one line per game whose
    files could not be written (OSError); a journal that cannot be replayed is logged and
    skipped (its files stay as they are: the journal has everything)."""
    failures: list[str] = []
    for game in state.game_dirs():
        if game.id == skip or not game.derived_stale():
            continue
        try:
            with open(game.trace, encoding="utf-8") as f:
                text = f.read()
            end = text.rfind("\n")  # a torn last line (a power cut) is not read
            replay = Replay.read(text[:end + 1].splitlines(), POLICY)
            for _ in replay:
                pass
            body = replay.report().to_json()
        except OSError as exc:
            failures.append(_files_failure(game, exc))
            log.error("%s", failures[-1])
            continue
        except Exception as exc:  # noqa: BLE001 - a journal the replay refuses: left as it is
            log.warning("game %s: game.pdn/report.json not rewritten: the journal cannot be "
                        "replayed (%s)", game.id, exc)
            continue
        try:
            game.write_pdn(body["pdn"])
            game.write_report(body)
        except OSError as exc:
            failures.append(_files_failure(game, exc))
            log.error("%s", failures[-1])
        else:
            log.info("game %s: game.pdn/report.json were older than the journal: rewritten",
                     game.id)
    return failures


def _files_failure(game: GameDir, exc: OSError) -> str:
    return f"game {game.id}: game.pdn/report.json not written: {exc.strerror or exc}"


# ---------------------------------------------------------------------- helpers

def _round_t(t: float) -> float:
    """Journal times to the millisecond (the sensors' debounce is 30 ms; JSON stays short)."""
    return round(t, 3)


def _event_line(event: Event, last_t: float) -> dict[str, Any]:
    line = event.to_dict()
    line["t"] = _round_t(max(event.t, last_t))
    return line


def _time_away(rec: Recovered, wall_now: float | None) -> float | None:
    """Wall-clock seconds between the journal's last write and now, or None when unknown: no
    trusted wall clock, or it went backwards (a Pi without RTC that booted in 1970)."""
    if wall_now is None or not math.isfinite(wall_now):
        return None
    down = wall_now - rec.mtime
    return down if 0 <= down < 10 * 365 * 86400 else None


def _restart_line(last_t: float, down: float | None) -> dict[str, Any]:
    from pi.board.journal import restart_line
    return restart_line(last_t, down)
