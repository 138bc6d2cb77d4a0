"""One game on the board: the write-ahead journal, the arbiter and the game's files, in that order.

:class:`GameSession` is the only way the daemon gives the arbiter an event: the event's docs/trace-format.md
line goes to ``STATE/games/<id>/trace.jsonl`` (``pi.board.journal``) before the arbiter sees it.
Without write-behind the line is fsync'd before :meth:`GameSession.feed` returns; with it
(:meth:`GameSession.write_behind`, the daemon) the journal's writer thread makes it durable and
the caller releases what the line caused (the web, the hall, the arbiter's answer) only once
:attr:`GameSession.durable_line` has reached it, so whatever an event causes outside the board is
on disk first. After every decision that changes the record (a move committed or retracted, a
flag raised or decided, the result) ``game.pdn`` and ``report.json`` are rewritten atomically
(``pi.board.statedir.atomic_write``) by :meth:`GameSession.write_files`, which the daemon calls once
it has shown and published what the input caused (``wait=False``: the record's text is kept up to
date move by move on the loop (``engine.replay.RecordText``: its cost does not grow with the
game), joined, written and fsync'd by the session's writer thread once the journal holds every
line it comes from, so those four fsyncs never hold the loop; the files may lag the journal,
never go backwards or ahead of it; at the game's end they are written before the ``finished``
marker, itself written once the last line is durable); ``report.json`` is exactly the
``damiera replay --json`` report of the journal, so an arbiter can check one against the other.

Every line goes through the game's :class:`engine.replay.Replay` (policy :data:`POLICY`), the one
replay of the project. Resume (:meth:`GameSession.resume`): the journal of the unfinished game is
read (a torn last line dropped), every line is fed to a fresh replay — the same code path as
``damiera replay`` — and a ``restart`` line is appended (docs/trace-format.md: ``t`` goes on from the last
line plus the wall-clock time away, when known). The clocks stand stopped from there until the
arbiter's ``start_clock`` (COMP 7.3–7.4); the sensors' snapshot, fed next by the daemon, is
checked against the position the journal ends in.

Time: ``t`` is game time in seconds since the start line (the journal's ``t``). The session
keeps it non-decreasing: an event stamped earlier than the last journaled one (a sensor event
stamped when first seen, merged after a button press) is journaled at the last ``t``.

Not thread-safe: the daemon's event-loop thread owns it (the journal's and the files' writer
threads are its own).
"""

from __future__ import annotations

import logging
import math
import threading
from collections import deque
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from engine.arbiter import Arbiter
from engine.decisions import (Decision, FlagDecided, FlagRaised, GameEnded, MoveCommitted,
                              MoveRetracted, PositionSet)
from engine.events import Event, GameStarted
from engine.replay import ContainArbiter, Fed, RecordSnapshot, RecordText, Replay, Report
from engine.trace import split_lines
from engine.variants import Variant
from pi.board.errors import JournalDamagedError, JournalError, JournalWriteError
from pi.board.handoff import LatestWorker
from pi.board.journal import Journal, Recovered
from pi.board.localtime import system_zone_name, zone_named
from pi.board.statedir import GameDir, StateDir

log = logging.getLogger(__name__)

__all__ = ["GameSession", "RECORD_DECISIONS", "POLICY", "refresh_game_files"]

#: The ``finished`` marker's result (PDN; None: none), one object per marker made.
_Marker = tuple[str | None]
#: The files' thread's work: the record's text (None: it could not be made) and the marker to
#: write after it.
_Files = tuple[RecordSnapshot | None, _Marker | None]

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
        #: the game's result, waiting for its last line to be durable before its marker
        self._marker: _Marker | None = None
        self._files_stale = False
        self._text = RecordText()
        #: texts made, each with the journal line it reflects, waiting for that line to be durable
        self._texts: deque[tuple[int, RecordSnapshot]] = deque()
        #: the last rewrite of game.pdn/report.json failed: why (one line); None once written
        self.files_error: str | None = None
        #: newest text only: a text made while another is being written replaces any waiting;
        #: each goes with the marker to write after it (:meth:`_write_body`)
        self._writer: LatestWorker[_Files] = LatestWorker(self._write_body, "game-files")
        #: :attr:`_marker` is handed to the files' thread: every text made from then on holds
        #: its result and goes with it (:meth:`_handed`), until a line after the result
        #: (:meth:`_remark`) makes a newer one
        self._marker_handed = False
        #: the marker's state is the loop's and the files' thread's: a line after the result
        #: (:meth:`_remark`) may come while the thread writes the marker before it
        self._marker_lock = threading.Lock()
        #: a deferred begin (:meth:`begin`): removes the game's folder if line 1 fails
        self._unbegun: Callable[[], None] | None = None

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
              when: datetime | None = None, board: int | None = None,
              defer: bool = False, closing: Iterable[str] = (),
              after: GameSession | None = None) -> GameSession:
        """A new game: a new folder, the journal with ``start_line`` (docs/trace-format.md's start object;
        ``id`` and ``started_at`` are filled in here: ``when``, default now, as ISO 8601 UTC to
        the millisecond, ``2026-11-22T05:12:30.000+00:00``; a naive ``when`` is taken as UTC;
        ``date``, unless given, is the local day of ``when`` — the day the game is played, the
        PDN's Date, which a UTC day would get wrong after midnight in Italy — in the start line's
        ``timezone`` (the config's), else the system's zone, whose name is then written there).
        Raises ``engine.trace.TraceError`` for a start line the rules refuse (nothing created),
        ``pi.board.statedir.StateDirError`` while another game is unfinished, or
        ``pi.board.journal.JournalWriteError`` when the journal cannot be created: then the new
        folder is removed again, so that the next game can begin (an unfinished game without a
        journal would block every later one).

        ``defer`` (the daemon: :meth:`write_behind` follows at once): nothing here waits for the
        disk. The folder and the journal's file are made, the start line is line 1 for the
        journal's writer thread, which fsyncs it with the folders; ``game.pdn`` and
        ``report.json`` follow on the files' thread once it is durable (:meth:`durable`). Until
        then :attr:`line` is 0: nothing of the game may leave the board. If that first write
        fails, the folder is removed on the writer's thread before ``on_failed`` is told.
        ``closing``: ids of games being closed meanwhile (:meth:`close_behind`), not yet
        marked finished (``StateDir.new_game``). ``after`` (with ``defer``): the game before,
        whose journal must hold every line handed to it before this game's start line is
        written — a stop in between leaves the game before as its journal has it, and this one
        never begun (its lines' order on disk is the order they were played)."""
        stamp = when if when is not None else datetime.now(timezone.utc)
        stamp = stamp.replace(tzinfo=timezone.utc) if stamp.tzinfo is None \
            else stamp.astimezone(timezone.utc)
        line = dict(start_line)
        Replay(line, POLICY)  # refuse a bad start before creating anything
        game = state.new_game(stamp, board=board, durable=not defer, closing=closing)
        line["id"] = game.id
        line["started_at"] = stamp.isoformat(timespec="milliseconds")
        # the board's zone (the config's ``timezone``, else the system's), written down so the
        # hub and a report made elsewhere show the board's times of day (pi.board.localtime)
        zone_name = line.get("timezone")
        if not isinstance(zone_name, str) or zone_named(zone_name) is None:
            line.pop("timezone", None)
            zone_name = system_zone_name()
            if zone_name is not None:
                line["timezone"] = zone_name
        zone = zone_named(zone_name) if zone_name is not None else None
        if not line.get("date"):
            local = stamp.astimezone(zone) if zone is not None else stamp.astimezone()
            line["date"] = local.strftime("%Y.%m.%d")
        try:
            # deferred, the games folder is fsync'd with the start line (new_game did not)
            journal = Journal.create(game.trace, line, defer=defer,
                                     folders=(state.games,) if defer else (),
                                     after=None if after is None else after.journal.sync)
        except JournalError:
            state.remove_unbegun(game)
            raise
        session = cls(game, journal, Replay(line, POLICY), 0.0)
        if defer:
            session._unbegun = lambda: state.remove_unbegun(game)
            session._files_stale = True
            session.write_files(wait=False)  # written once line 1 is durable
        else:
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
        journal, replay, rec = _read_back(game)
        session = cls(game, journal, replay, rec.last_t)
        arbiter = replay.arbiter
        outcome = arbiter.game.outcome
        # docs/trace-format.md's end line: the last of the game's play (only an arbiter's note or result
        # corrected after the result may follow it, COMP 6.16)
        last = len(rec.lines) - 1
        while last > 0 and rec.lines[last].get("type") == "arbiter" \
                and rec.lines[last].get("action") in ("note", "correct_result"):
            last -= 1
        closed = rec.lines[last].get("type") == "end"
        if outcome is not None or closed:
            # The result (or the board's end of the game: one superseded by a pairing, void)
            # was journaled but the daemon stopped before the ``finished`` marker
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

    @classmethod
    def reopen(cls, game: GameDir) -> GameSession:
        """A finished ``game`` read back from its journal, the journal open for lines after its
        result (an arbiter's note, a result corrected: COMP 6.16, issue 37), without a
        ``restart`` line: nothing of it resumes. :meth:`close` it when done. Raises
        ``pi.board.errors.JournalDamagedError`` (file untouched) or ``JournalError``."""
        journal, replay, rec = _read_back(game)
        return cls(game, journal, replay, rec.last_t)

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
        """Lines of the journal on disk: what the board may let out (the web's, the hall's
        line count). With write-behind, later lines may be numbered and fed to the arbiter
        already (``journal.line_count``)."""
        return self.journal.durable_count

    @property
    def durable_line(self) -> int:
        """Lines of the journal on disk (:attr:`line`)."""
        return self.journal.durable_count

    def write_behind(self, on_durable: Callable[[], None],
                     on_failed: Callable[[JournalWriteError], None]) -> None:
        """From now on :meth:`feed` (and the other ways a line is journaled) hands the line to
        the journal's writer thread and returns at once: ``on_durable()`` is called on that
        thread when more lines are durable (the caller then calls :meth:`durable` on its own
        thread), ``on_failed(error)`` once if the journal fails (every line not yet durable is
        lost: the daemon must stop). The game's end then writes its record and ``finished``
        marker on the files' thread too (:meth:`durable`)."""
        def failed(error: JournalWriteError) -> None:
            if self._unbegun is not None and self.journal.durable_count == 0:
                self._unbegun()  # line 1 never durable: no game to block the next one
            on_failed(error)

        self.journal.write_behind(lambda _n: on_durable(), failed)

    def durable(self) -> None:
        """More of the journal is on disk (:attr:`durable_line`): the game's files that reflect
        only durable lines go to the writer thread, and the ``finished`` marker is written once
        the game's last line is durable. On the session's thread."""
        done = self.journal.durable_count
        ready = None
        while self._texts and self._texts[0][0] <= done:
            ready = self._texts.popleft()[1]
        if ready is not None:
            self._writer.submit((ready, self._handed()))
        if self._marker is not None and done >= self.journal.line_count:
            self._mark_finished()

    @property
    def trace(self) -> Path:
        """The game's journal file."""
        return self.game.trace

    @property
    def finished(self) -> bool:
        """The game has a result and the ``finished`` marker is written (with write-behind, once
        the game's last line is durable)."""
        return self._finished and self._marker is None

    def feed(self, event: Event) -> Fed:
        """Journals ``event`` (``t`` clamped to the last journaled ``t``), then feeds it to the
        arbiter. Raises ``pi.board.journal.JournalWriteError`` when the line could not be made
        durable (without write-behind) or the journal failed before (with it): then the arbiter
        has NOT seen the event."""
        return self._append_and_feed(_event_line(event, self._last_t))

    def advance(self, t: float) -> tuple[tuple[Decision, ...], Fed | None]:
        """Time reached ``t`` with no event (a settle timer, a flag fall, the lampo countdown):
        the arbiter's decisions, and the ``end`` line journaled when the game ended by time
        alone. Otherwise nothing is journaled: replaying the journal, the next line's ``t``
        brings the same decisions."""
        t = max(t, self._last_t)
        decisions = self.replay.advance(t)
        end = None
        if any(isinstance(d, GameEnded) for d in decisions):
            # The game ended by time alone (a flag fell): journal where, so that a replay of
            # the journal ends it at the same moment (docs/trace-format.md ``end``), before the game is
            # marked over.
            end = self._append_and_feed({"t": _round_t(t), "type": "end"})
        self._after(decisions)
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
        # durable before anything it causes leaves the board (write-behind: see durable_line)
        number = self.journal.submit(line)
        self._last_t = float(line["t"])
        over = self._finished
        fed = self.replay.take(line, event, number)
        self._after(fed.decisions)
        if over:
            self._remark()
        return fed

    def _remark(self) -> None:
        """A line after the result (an arbiter's note, a result corrected: COMP 6.16, issue
        37): once it is durable, the files, then the ``finished`` marker again with the result
        the game has now — the marker never older than the journal's last line
        (:func:`refresh_game_files` puts right one a stop left older)."""
        self._files_stale = True
        with self._marker_lock:
            self._marker = (self.arbiter.game.result,)
            self._marker_handed = False
        if self.journal.durable_count >= self.journal.line_count:
            self._mark_finished()

    def _after(self, decisions: Iterable[Decision]) -> None:
        ended = None
        for d in decisions:
            if isinstance(d, RECORD_DECISIONS):
                self._files_stale = True
            if isinstance(d, GameEnded):
                ended = d
        if ended is not None and not self._finished:
            log.info("game %s ended %s (%s, %s)", self.game.id, ended.result, ended.reason,
                     ended.article)
            self.finish(ended.result)

    def _mark_finished(self) -> None:
        """The record whole, then the ``finished`` marker: only once the journal holds the
        game's last line (a marker ahead of its journal would close a game it cannot replay).
        With write-behind both are the files' thread's (:meth:`_write_body`): the loop does
        not wait for their six fsyncs; :attr:`finished` once the marker is on disk."""
        with self._marker_lock:
            marker = self._marker
            if marker is None or self._marker_handed:
                return
            self._marker_handed = self.journal.writes_behind
            if not self._marker_handed:
                self._marker = None
        self._texts.clear()
        self._files_stale = False
        if self._marker_handed:  # the ``finished`` marker is the files' thread's
            # with the text made now, which holds its result: never after an older text the
            # thread may be writing meanwhile (a note's, then the result corrected: COMP 6.16)
            self._writer.submit((self._snapshot(), marker))
            return
        self._write_files()
        self.game.mark_finished(marker[0])

    def _handed(self) -> _Marker | None:
        """The marker handed to the files' thread and not yet written, to go with a text made
        since it was handed (:attr:`_marker_handed`): a text that replaces the one it was
        handed with (newest text only) carries it on."""
        with self._marker_lock:
            return self._marker if self._marker_handed else None

    # ------------------------------------------------------------------ files

    def report(self) -> Report:
        """The docs/trace-format.md report of the game so far."""
        return self.replay.report()

    def write_files(self, wait: bool = True) -> None:
        """Rewrites ``game.pdn`` and ``report.json`` if the record changed since they were last
        written. The daemon calls it after showing and publishing what an input caused: only
        the journal must be on disk before that (it holds the truth; these files are derived
        from it, and cost four fsyncs). ``wait=False`` (the daemon's loop): the files' text is
        brought up to date now, on the caller's thread (at a cost that does not grow with the
        game), and written by the session's writer thread (newest text only) once the journal
        holds the lines it reflects: the fsyncs never hold the loop; the files may lag the
        journal, never go backwards (a newer text is never overwritten by an older one) nor
        ahead of it. ``wait=True`` (every line durable: begin, resume, close): written now."""
        if not self._files_stale:
            return
        if wait:
            self._write_files()
            return
        self._files_stale = False
        text = self._snapshot()
        if text is not None:
            self._texts.append((self.journal.line_count, text))
            self.durable()

    def flush(self) -> None:
        """Waits until the journal holds every line handed to it (raises JournalWriteError if it
        failed) and the writer thread has written the last text that reflects them."""
        self.journal.sync()
        self.durable()
        self._writer.flush()

    def _snapshot(self) -> RecordSnapshot | None:
        try:
            return self._text.update(self.arbiter.game, self.arbiter.flags)
        except Exception:  # derived files: the journal has everything
            log.exception("game %s: cannot make game.pdn/report.json", self.game.id)
            return None

    def _write_files(self) -> None:
        self._files_stale = False
        text = self._snapshot()
        if text is not None:
            self._texts.clear()
            self._writer.run_now((text, self._handed()))

    def _write_body(self, files: _Files) -> None:
        """The files' thread's work (or the caller's, :meth:`_write_files`): the text to
        ``game.pdn`` and ``report.json``, then the ``finished`` marker that goes with it (one
        handed over before the text was made, :meth:`_mark_finished`: the marker never says a
        result the files on disk do not hold yet)."""
        text, marker = files
        if text is not None:
            try:
                self.game.write_pdn(text.pdn())
                self.game.write_report_text(text.report_json() + "\n")
            except OSError as exc:
                # The journal holds the truth; the files are derived and rewritten at the next
                # change (and at the next start: pi.board.session.refresh_game_files). Say so
                # loudly (the log, the screen, the exit status), never stop the game for it.
                self.files_error = _files_failure(self.game, exc)
                log.error("%s", self.files_error)
            else:
                self.files_error = None
        if marker is not None:
            self.game.mark_finished(marker[0])
            with self._marker_lock:
                if self._marker is marker:  # not a newer one (:meth:`_remark`) meanwhile
                    self._marker = None  # :attr:`finished` from now on

    def finish(self, result: str | None) -> None:
        """Ends the game with ``result`` whatever its arbiter says (a void game superseded by a
        pairing: ``*``): its ``finished`` marker follows once its last line is durable, like a
        game's end (:meth:`durable`; with write-behind on the files' thread)."""
        if self._finished:
            return
        self._finished = True
        self._marker = (result,)
        if self.journal.durable_count >= self.journal.line_count:
            self._mark_finished()

    def close_behind(self, on_closed: Callable[[], None]) -> threading.Thread:
        """:meth:`close` on a thread of its own (named ``game-close``), ``on_closed()`` called
        there at its end: the daemon's loop goes on to the next game while this one's last
        lines, record and marker reach the disk. The caller joins the thread before it stops."""
        def run() -> None:
            try:
                self.close()
            finally:
                on_closed()

        closer = threading.Thread(target=run, name="game-close", daemon=True)
        closer.start()
        return closer

    def close(self) -> None:
        """Waits for the journal's writer, brings the files up to date (and writes the
        ``finished`` marker of a game over) and closes the journal. Never raises for a journal
        that failed: then only what is durable stays, the files and the marker are not
        rewritten."""
        try:
            self.journal.sync()
        except JournalWriteError as exc:
            log.error("game %s closed with lines not recorded: %s", self.game.id, exc)
            self._writer.close()
            self.journal.close()
            return
        self.durable()
        self.write_files()
        self._writer.close()
        self.journal.close()


# ---------------------------------------------------------------------- derived files

def refresh_game_files(state: StateDir, skip: str | None = None) -> list[str]:
    """Rewrites, from its journal, every game's ``game.pdn``/``report.json`` that is missing or
    older than the journal (:meth:`GameDir.derived_stale`): a finished game is never left with
    a stale record after a write failed (a full disk). ``skip``: a game id left alone (the game
    being resumed: its session replays it and rewrites them); with it, every other unfinished
    game — one the daemon was closing when it stopped, :meth:`GameSession.close_behind` — gets
    its files and its ``finished`` marker, with the result its journal gives. Returns one line
    per game whose files could not be written (OSError); a journal that cannot be replayed is
    logged and skipped (its files stay as they are: the journal has everything)."""
    failures: list[str] = []
    for game in state.game_dirs():
        # an unfinished game other than the one resumed: the daemon stopped while it was being
        # closed behind the next game (GameSession.close_behind): finished from its journal
        unclosed = skip is not None and game.id != skip and not game.is_finished()
        # lines after the result whose marker a stop left behind (a note, a result corrected,
        # COMP 6.16): its result again from the journal; a game given up keeps its marker
        info = (game.finished_info() if game.id != skip and not unclosed
                and game.marker_stale() else None)
        remark = (info is not None and "result" in info
                  and not {"abandoned", "unreadable"} & set(info))
        if game.id == skip or not (unclosed or remark or game.derived_stale()):
            continue
        try:
            with open(game.trace, encoding="utf-8") as f:
                text = f.read()
            end = text.rfind("\n")  # a torn last line (a power cut) is not read
            replay = Replay.read(split_lines(text[:end + 1]), POLICY)
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
        if remark:
            result = replay.arbiter.game.result
            try:
                game.mark_finished(result)
            except OSError as exc:
                log.error("game %s: finished marker not rewritten: %s", game.id,
                          exc.strerror or exc)
            else:
                log.warning("game %s: lines after its result (was %s): marked finished (%s) "
                            "from its journal", game.id, info.get("result") if info else None,
                            result)
        if unclosed:
            result = replay.arbiter.game.result
            try:
                game.mark_finished(result)
            except OSError as exc:
                log.error("game %s: not marked finished: %s", game.id, exc.strerror or exc)
            else:
                log.warning("game %s was being closed when the daemon stopped: marked finished "
                            "(%s) from its journal", game.id, result)
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


def _read_back(game: GameDir) -> tuple[Journal, Replay, Recovered]:
    """``game``'s journal opened for appending and replayed (``GameSession.resume``,
    ``GameSession.reopen``). Raises ``JournalDamagedError`` (file untouched) or
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
    return journal, replay, rec
