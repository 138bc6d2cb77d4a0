"""The game session: the journal is written (and fsync'd) before the arbiter sees an event, the
game's files follow every change of the record, and a resumed game is the replay of its journal
plus a ``restart`` line (docs/trace-format.md)."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from engine.board import Board
from engine.decisions import GameEnded, MoveCommitted
from engine.events import ButtonPressed, PieceLifted, PiecePlaced, SnapshotTaken
from engine.replay import replay_lines
from engine.errors import TraceError
from engine.trace import parse_trace
from pi.board.config import parse_config
from pi.board.errors import JournalDamagedError, JournalWriteError
from pi.board.journal import Journal
from pi.board.localtime import system_zone_name
from pi.board.session import GameSession
from pi.board.statedir import GameDir, StateDir, StateDirError

START = {"type": "start", "variant": "italian", "fen": None, "clock": True, "transcribed": True,
         "time_control": "600", "white": "Rossi", "black": "Bianchi"}
INITIAL = Board(None, "italian").occupied_algebraic()


@pytest.fixture
def state(tmp_path: Path) -> StateDir:
    with StateDir.open(tmp_path / "state") as sd:
        yield sd


def _opening(session: GameSession) -> list[MoveCommitted]:
    """IT 22-18 (22 = d3, 18 = c4: IT 2.4), completed by the press (COMP 4.5)."""
    fed = [session.feed(SnapshotTaken(0.0, INITIAL)),
           session.feed(PieceLifted(1.0, "d3")), session.feed(PiecePlaced(1.4, "c4")),
           session.feed(ButtonPressed(2.0, "clock", "white"))]
    return [d for f in fed for d in f.decisions if isinstance(d, MoveCommitted)]


def _journal(session: GameSession) -> list[dict[str, object]]:
    return [json.loads(line) for line in session.game.trace.read_text().splitlines()]


def test_begin_writes_the_start_line_and_the_files(state: StateDir) -> None:
    session = GameSession.begin(state, START, board=7)
    lines = _journal(session)
    assert lines[0]["type"] == "start" and lines[0]["id"] == session.game.id
    assert "-b07-" in session.game.id and lines[0]["started_at"].endswith("+00:00")
    assert session.game.pdn.read_text().startswith("[Event")
    assert json.loads(session.game.report.read_text())["result"] == "*"


def test_begin_names_the_game_and_stamps_its_start_as_the_daemon_writes_it(
        state: StateDir) -> None:
    when = datetime(2026, 11, 22, 5, 12, 30, 250_000, tzinfo=timezone.utc)
    session = GameSession.begin(state, START, board=7, when=when)
    assert session.game.id == "2026-11-22T0512-b07-001"
    first = _journal(session)[0]
    zone = system_zone_name()  # the system's zone, written down for the hub and the report
    assert first == {**START, "id": session.game.id, "date": when.astimezone().strftime("%Y.%m.%d"),
                     "started_at": "2026-11-22T05:12:30.250+00:00",
                     **({"timezone": zone} if zone is not None else {})}
    # a naive time is UTC, an aware one is turned into UTC
    session.close()
    session.game.mark_finished("1-0")
    naive = GameSession.begin(state, START, when=datetime(2026, 11, 22, 6, 0, 0))
    assert _journal(naive)[0]["started_at"] == "2026-11-22T06:00:00.000+00:00"


def test_the_record_is_dated_by_the_day_where_the_game_is_played(
        state: StateDir, monkeypatch: pytest.MonkeyPatch) -> None:
    """PDN Date is the local day of the start (PDN standard: the date the game was played): a
    game begun at 00:30 in Rome is 23:30 UTC the day before. The daemon writes the local day
    into the start line's ``date`` (docs/trace-format.md), so the board, the hub and every feed agree."""
    monkeypatch.setenv("TZ", "Europe/Rome")
    time.tzset()
    try:
        when = datetime(2026, 11, 21, 23, 30, tzinfo=timezone.utc)
        session = GameSession.begin(state, START, when=when)
        first = _journal(session)[0]
        assert first["date"] == "2026.11.22" and first["started_at"].startswith("2026-11-21T23:30")
        assert '[Date "2026.11.22"]' in session.game.pdn.read_text()
        session.close()
        session.game.mark_finished("1-0")
        # a date the configuration gives is kept as given
        dated = GameSession.begin(state, {**START, "date": "2026.11.20"}, when=when)
        assert _journal(dated)[0]["date"] == "2026.11.20"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_a_game_whose_journal_cannot_be_created_leaves_nothing_and_the_next_begins(
        state: StateDir, monkeypatch: pytest.MonkeyPatch) -> None:
    real_create = Journal.create
    calls = []

    def create_once_failing(path, start, **kw):  # type: ignore[no-untyped-def]
        calls.append(path)
        if len(calls) == 1:
            raise JournalWriteError(f"{path}: cannot create the journal: No space left on device")
        return real_create(path, start, **kw)

    monkeypatch.setattr(Journal, "create", create_once_failing)
    with pytest.raises(JournalWriteError, match="No space"):
        GameSession.begin(state, START)
    assert state.game_dirs() == [] and state.unfinished() is None
    session = GameSession.begin(state, START)  # the next game is not refused
    assert session.game.seq == 1 and _journal(session)[0]["id"] == session.game.id


def test_a_full_disk_at_the_first_line_leaves_no_folder(
        state: StateDir, monkeypatch: pytest.MonkeyPatch) -> None:
    def enospc(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", enospc)
    with pytest.raises(JournalWriteError, match="ENOSPC|No space"):
        GameSession.begin(state, START)
    monkeypatch.undo()
    assert state.game_dirs() == []
    assert GameSession.begin(state, START).game.seq == 1


def test_a_start_the_rules_refuse_creates_nothing(state: StateDir) -> None:
    with pytest.raises(TraceError):
        GameSession.begin(state, {**START, "variant": "checkers"})
    with pytest.raises(TraceError):
        GameSession.begin(state, {"t": 0.0, "type": "lift", "square": "e3"})
    assert state.game_dirs() == []


def test_an_unfinished_game_blocks_a_new_one(state: StateDir) -> None:
    GameSession.begin(state, START).close()
    with pytest.raises(StateDirError, match="unfinished"):
        GameSession.begin(state, START)


def test_a_journal_begun_from_the_config_is_a_trace_the_engine_reads(state: StateDir) -> None:
    config = parse_config('variant = "english"\nboard = 3\nsite = "Leeds"\nwhite = "A"\n')
    session = GameSession.begin(state, config.start_line(), board=config.board)
    session.feed(PieceLifted(1.0, "c3"))
    session.feed(SnapshotTaken(2.0, frozenset({"a1", "c1"})))
    session.close()
    start, evs = parse_trace(session.game.trace.read_text().splitlines())
    # the config's game, and what names it in the record (its PDN tags, issue 16): the site and
    # board of the config, the time and the local day it began
    naming = ("site", "date", "board", "started_at")
    assert dataclasses.replace(start, tags=tuple(
        (k, v) for k, v in start.tags if k not in naming)) == config.game_started()
    assert [k for k, _ in start.tags if k in naming] == list(naming)
    assert ("site", "Leeds") in start.tags and ("board", "3") in start.tags
    assert evs == [PieceLifted(1.0, "c3"), SnapshotTaken(2.0, frozenset({"a1", "c1"}))]
    first = _journal(session)[0]
    assert (first["board"], first["site"], first["id"]) == (3, "Leeds", session.game.id)


def test_the_journal_is_durable_before_the_arbiter_sees_the_event(
        state: StateDir, monkeypatch: pytest.MonkeyPatch) -> None:
    session = GameSession.begin(state, START)
    seen: list[int] = []
    fsyncs: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (fsyncs.append(fd), real_fsync(fd))[1])
    real_feed = session.arbiter.feed

    def feed(event):  # type: ignore[no-untyped-def]
        seen.append(len(session.game.trace.read_text().splitlines()))
        assert fsyncs, "the line was not fsync'd before the arbiter saw it"
        return real_feed(event)

    monkeypatch.setattr(session.arbiter, "feed", feed)
    fed = session.feed(SnapshotTaken(0.0, INITIAL))
    assert fed.line == 2 and seen == [2]


def test_a_line_that_cannot_be_written_never_reaches_the_arbiter(
        state: StateDir, monkeypatch: pytest.MonkeyPatch) -> None:
    session = GameSession.begin(state, START)
    session.feed(SnapshotTaken(0.0, INITIAL))
    calls: list[object] = []
    monkeypatch.setattr(session.arbiter, "feed", lambda e: calls.append(e) or [])

    def full(fd: int, data: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(JournalWriteError, match="NOT recorded.*No space"):
        session.feed(PieceLifted(1.0, "d3"))
    assert calls == []


def test_times_never_go_backwards(state: StateDir) -> None:
    session = GameSession.begin(state, START)
    session.feed(SnapshotTaken(0.0, INITIAL))
    session.feed(ButtonPressed(5.0, "accomodo", "white"))
    fed = session.feed(PieceLifted(4.97, "d3"))  # stamped when first seen, merged after
    assert fed.record["t"] == 5.0 and fed.event is not None and fed.event.t == 5.0


def test_files_follow_the_record(state: StateDir) -> None:
    session = GameSession.begin(state, START)
    moves = _opening(session)
    assert [m.notation for m in moves] == ["22-18"]
    # written when the daemon has shown what happened (only the journal comes first)
    assert "22-18" not in session.game.pdn.read_text()
    session.write_files()
    report = json.loads(session.game.report.read_text())
    assert [m["notation"] for m in report["moves"]] == ["22-18"]
    assert "1. 22-18" in session.game.pdn.read_text()
    # report.json is exactly the replay of the journal (docs/trace-format.md)
    replayed = replay_lines(session.game.trace.read_text().splitlines()).to_json()
    assert replayed == report


def test_the_daemons_writes_go_to_a_thread_and_never_go_backwards(
        state: StateDir, monkeypatch: pytest.MonkeyPatch) -> None:
    """``write_files(wait=False)`` (the daemon's loop) hands the text to the writer thread: the
    loop does not wait for its four fsyncs; an older text never overwrites a newer one."""
    import threading
    session = GameSession.begin(state, START)
    _opening(session)
    gate = threading.Event()
    entered = threading.Event()
    threads: list[str] = []
    real_write = GameDir.write_pdn

    def slow_write(game: GameDir, text: str) -> None:
        threads.append(threading.current_thread().name)
        entered.set()
        gate.wait(5)
        real_write(game, text)

    monkeypatch.setattr(GameDir, "write_pdn", slow_write)
    session.write_files(wait=False)  # 22-18: held by the gate on the writer thread
    assert "22-18" not in session.game.pdn.read_text()  # returned before the write
    # on a loaded machine the writer thread may not have run yet: the later write on this
    # thread must come after it, as the daemon's next move would
    assert entered.wait(5)
    session.feed(PieceLifted(3.0, "e6"))  # black answers 11-15 (11 = e6, 15 = f5: IT 2.4)
    session.feed(PiecePlaced(3.4, "f5"))
    session.feed(ButtonPressed(4.0, "clock", "black"))
    gate.set()
    session.write_files()  # now, on this thread: the newest text
    session.flush()
    assert threads[0] == "game-files" and threads[-1] == threading.current_thread().name
    report = json.loads(session.game.report.read_text())
    assert [m["notation"] for m in report["moves"]] == ["22-18", "11-15"]
    assert "11-15" in session.game.pdn.read_text()
    writer = session._writer._thread  # noqa: SLF001 - the session's own writer thread
    assert writer is not None and writer.is_alive()
    session.close()  # the thread ends
    assert not writer.is_alive()


def test_resume_replays_the_journal_and_appends_a_restart(state: StateDir) -> None:
    session = GameSession.begin(state, START)
    _opening(session)
    session.feed(PieceLifted(3.0, "a6"))
    session.close()
    mtime = session.game.trace.stat().st_mtime
    resumed = GameSession.resume(state.unfinished(), wall_now=mtime + 42.0)
    lines = _journal(resumed)
    assert lines[-1] == {"t": 45.0, "type": "restart", "down": 42.0}
    assert [m.notation for m in resumed.arbiter.game.moves] == ["22-18"]
    assert resumed.arbiter.flags[-1].code == "BOARD"
    assert resumed.last_t == 45.0


def test_resume_without_a_trusted_wall_clock(state: StateDir) -> None:
    session = GameSession.begin(state, START)
    _opening(session)
    session.close()
    resumed = GameSession.resume(state.unfinished(), wall_now=None)
    assert _journal(resumed)[-1] == {"t": 2.0, "type": "restart", "down": None}


def test_a_torn_last_line_is_dropped_at_resume(state: StateDir) -> None:
    session = GameSession.begin(state, START)
    _opening(session)
    session.close()
    with open(session.game.trace, "ab") as f:
        f.write(b'{"t": 3.0, "type": "li')  # the power went mid-write
    stale = session.game.path / ".game.pdn.99.0.tmp"  # an atomic rewrite cut short
    stale.write_text("half")
    resumed = GameSession.resume(state.unfinished(), wall_now=None)
    assert [line["type"] for line in _journal(resumed)][-2:] == ["button", "restart"]
    assert not stale.exists()


def test_a_damaged_journal_is_kept_and_refused(state: StateDir) -> None:
    session = GameSession.begin(state, START)
    _opening(session)
    session.close()
    raw = session.game.trace.read_bytes()
    damaged = raw.replace(b'"type": "lift"', b'"type": "lift', 1)
    session.game.trace.write_bytes(damaged)
    with pytest.raises(JournalDamagedError):
        GameSession.resume(state.unfinished(), wall_now=None)
    assert session.game.trace.read_bytes() == damaged


def test_a_result_is_marked_finished_and_a_journaled_result_resumes_finished(
        state: StateDir) -> None:
    session = GameSession.begin(state, START)
    _opening(session)
    fed = session.feed(ButtonPressed(3.0, "resign", "black"))
    assert any(isinstance(d, GameEnded) for d in fed.decisions)
    assert session.finished and session.game.is_finished()
    # a crash between the result and the marker: the replay finds the result
    session.game.finished_marker.unlink()
    session.close()
    resumed = GameSession.resume(state.unfinished(), wall_now=None)
    assert resumed.finished and resumed.arbiter.game.result == "1-0"
    assert _journal(resumed)[-1]["type"] == "button"  # no restart line for a game over


def test_a_flag_falling_by_time_alone_is_journaled_as_the_end(state: StateDir) -> None:
    start = dict(START, time_control="5")  # 5 s for the game
    session = GameSession.begin(state, start)
    _opening(session)  # White pressed at 2.0; Black's face runs from there
    deadline = session.next_deadline()
    assert deadline == pytest.approx(7.0)
    decisions, end = session.advance(deadline)
    assert any(isinstance(d, GameEnded) for d in decisions)
    assert end is not None and end.record == {"t": 7.0, "type": "end"}
    replayed = replay_lines(session.game.trace.read_text().splitlines())
    assert replayed.game.result == session.arbiter.game.result == "1-0"


def test_resume_passes_over_a_line_the_arbiter_fails_on(
        state: StateDir, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The session's policy (engine.replay): an arbiter failure is logged and its line passed
    over, as in play; the game is resumed, not abandoned."""
    from engine.arbiter import Arbiter
    session = GameSession.begin(state, START)
    _opening(session)
    session.close()
    real = Arbiter.feed

    def feed(self, event):  # type: ignore[no-untyped-def]
        if isinstance(event, PiecePlaced):
            raise RuntimeError("a bug")
        return real(self, event)

    monkeypatch.setattr(Arbiter, "feed", feed)
    with caplog.at_level("ERROR", logger="pi.board.session"):
        resumed = GameSession.resume(state.unfinished(), wall_now=None)
    assert "line 4: the arbiter failed" in caplog.text
    assert _journal(resumed)[-1]["type"] == "restart" and not resumed.finished


def test_the_boards_configured_time_zone_dates_the_record_and_times_the_report(
        state: StateDir, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Issue 37: on a Pi kept in UTC (the usual system zone) a game begun at 00:30 in Italy got
    the day before as its PDN Date, and the report's times of day were UTC. ``timezone`` in
    damiera.toml names the board's zone (default the system's): the start line carries it, the
    Date is that zone's day, the report's wall times are in it."""
    from pi.board.report import read_game_dir
    from pi.board.report_render import report_html
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    try:
        config = parse_config('timezone = "Europe/Rome"\n')
        when = datetime(2026, 11, 21, 23, 30, tzinfo=timezone.utc)
        session = GameSession.begin(state, config.start_line(), when=when)
        first = _journal(session)[0]
        assert first["timezone"] == "Europe/Rome" and first["date"] == "2026.11.22"
        assert '[Date "2026.11.22"]' in session.game.pdn.read_text()
        session.close()
        report = read_game_dir(session.game.path)
        start = report.wall(0.0)
        assert start is not None and start.strftime("%H:%M %Z") == "00:30 CET"
        text = report_html(report)
        assert "2026-11-22 00:30:00 CET" in text and "Europe/Rome" in text
        session.game.mark_finished("1-0")
        # without the key: the system's zone (here UTC), named in the start line
        plain = GameSession.begin(state, START, when=when)
        assert _journal(plain)[0]["date"] == "2026.11.21"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


@pytest.mark.parametrize("zone", ["Mars/Olympus", "../etc/passwd", "", "Europe/Rome\n"])
def test_an_unknown_time_zone_is_one_line(zone: str) -> None:
    from pi.board.errors import ConfigError
    with pytest.raises(ConfigError, match="timezone") as info:
        parse_config(f"timezone = {json.dumps(zone)}\n")
    assert "\n" not in str(info.value)


def test_the_marker_of_a_corrected_result_never_follows_an_older_record(
        state: StateDir, monkeypatch: pytest.MonkeyPatch) -> None:
    """COMP 6.16 (issue 37), as the daemon writes behind: a note after the result, then the
    result corrected while the files' thread still writes the note's record. The ``finished``
    marker is written after the record it goes with (line, files, marker): the corrected
    result's marker only after the report that holds the correction — never after the note's
    report, which would leave report.json (and game.pdn) older than the marker on disk, and
    ``refresh_game_files`` would not see it (both newer than the journal)."""
    import threading
    from engine.events import ArbiterActed
    session = GameSession.begin(state, START, defer=True)
    session.write_behind(lambda: None, lambda e: None)

    def played() -> None:  # the daemon's loop after each input
        session.write_files(wait=False)
        session.journal.sync()
        session.durable()

    _opening(session)
    session.feed(ButtonPressed(3.0, "resign", "black"))
    played()
    session.flush()
    game = session.game
    assert game.finished_info() == {"result": "1-0"}
    seen: list[tuple[object, object]] = []  # (marker written, report.json's result then)
    real_mark = GameDir.mark_finished

    def mark(g: GameDir, result: str | None, abandoned: str | None = None) -> None:
        seen.append((result, json.loads(g.report.read_text())["result"]))
        real_mark(g, result, abandoned)

    gate, entered = threading.Event(), threading.Event()
    real_report = GameDir.write_report_text

    def held_report(g: GameDir, text: str) -> None:  # the note's record, held on the thread
        if not entered.is_set():
            entered.set()
            assert gate.wait(10)
        real_report(g, text)

    monkeypatch.setattr(GameDir, "mark_finished", mark)
    monkeypatch.setattr(GameDir, "write_report_text", held_report)
    session.feed(ArbiterActed(10.0, "note", text="Black disputes it"))
    played()
    assert entered.wait(10)  # the files' thread writes the note's record
    session.feed(ArbiterActed(11.0, "correct_result", "0-1", "the clock was faulty"))
    played()  # the correction's line is durable: its record and marker handed over
    gate.set()
    session.flush()
    report = json.loads(game.report.read_text())
    assert report["result"] == "0-1" and game.finished_info() == {"result": "0-1"}
    assert [r["result"] for r in report["result_history"]] == ["1-0", "0-1"]
    assert seen and all(marker == written for marker, written in seen), seen
    assert session.finished
    session.close()
