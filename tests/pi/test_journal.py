"""The write-ahead journal (pi/board/journal.py): durability under SIGKILL, torn last lines of every
length, damage kept untouched, fsync really called, a full disk reported and never a silent loss. A game
begun and resumed in the state directory is ``pi.board.session``'s (tests/pi/test_session.py)."""

from __future__ import annotations

import errno
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.events import GameStarted, PieceLifted, SnapshotTaken
from pi.board.errors import JournalDamagedError, JournalWriteError
from pi.board.journal import (Journal, encode_line, fault_cleared_line, fault_line, read_journal,
                              restart_line)

ROOT = Path(__file__).resolve().parents[2]
START = GameStarted(variant="italian", time_control="1800+10", tags=(("white", "Rossi"),))


def events(n: int) -> list[dict[str, Any]]:
    return [PieceLifted(t=i * 0.5, square="e3").to_dict() for i in range(n)]


def write_journal(path: Path, n: int) -> list[bytes]:
    with Journal.create(path, START) as j:
        for e in events(n):
            j.append(e)
    return path.read_bytes().splitlines(keepends=True)


# -- writing ----------------------------------------------------------------------------------

def test_lines_are_trace_md_lines_numbered_from_one(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    with Journal.create(path, START) as j:
        assert j.line_count == 1
        assert j.append(PieceLifted(t=1.25, square="e3")) == 2
        assert j.append(SnapshotTaken(t=2.0, occupied=frozenset({"e3", "c1", "a3"}))) == 3
        assert j.append(fault_line(412.3, ["g3", "c3", "e3"], "sensor fault: 0x21")) == 4
        assert j.append(fault_cleared_line(415.0, {"e3", "c3", "g3"})) == 5
        assert j.append(restart_line(415.0, 34.2)) == 6
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert lines[0] == START.to_dict()
    assert lines[1] == {"t": 1.25, "type": "lift", "square": "e3"}
    assert lines[2]["occupied"] == ["c1", "a3", "e3"]
    assert lines[3] == {"t": 412.3, "type": "fault", "squares": ["c3", "e3", "g3"],
                        "message": "sensor fault: 0x21"}
    assert lines[4] == {"t": 415.0, "type": "fault_cleared", "squares": ["c3", "e3", "g3"]}
    assert lines[5] == {"t": 449.2, "type": "restart", "down": 34.2}
    # The exact docs/trace-format.md form, key order included.
    assert path.read_text().splitlines()[4] == \
        '{"t": 415.0, "type": "fault_cleared", "squares": ["c3", "e3", "g3"]}'


def test_restart_line_with_unknown_or_negative_down() -> None:
    assert restart_line(812.4, None) == {"t": 812.4, "type": "restart", "down": None}
    assert restart_line(812.4, -5.0) == {"t": 812.4, "type": "restart", "down": None}
    with pytest.raises(ValueError):
        restart_line(float("nan"), 1.0)


def test_append_fsyncs_before_returning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        calls.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    j = Journal.create(tmp_path / "trace.jsonl", START)
    after_create = len(calls)
    assert after_create >= 2  # the file and its folder
    for i, e in enumerate(events(5), start=1):
        j.append(e)
        assert len(calls) == after_create + i
    j.close()


def test_bad_objects_are_refused_and_nothing_is_written(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    with Journal.create(path, START) as j:
        before = path.read_bytes()
        for bad in ({"t": float("nan"), "type": "lift", "square": "e3"},
                    {"t": 1.0, "type": "note", "text": object()},
                    {"t": 1.0, "square": "e3"},
                    {"t": 1.0, "type": "note", "text": "\ud800"}):
            with pytest.raises(ValueError):
                j.append(bad)
        assert path.read_bytes() == before
        assert j.append(events(1)[0]) == 2


def test_create_refuses_an_existing_journal_and_a_non_start_first_line(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    write_journal(path, 1)
    with pytest.raises(JournalWriteError, match="cannot create"):
        Journal.create(path, START)
    with pytest.raises(ValueError):
        Journal.create(tmp_path / "other.jsonl", events(1)[0])


def test_full_disk_is_an_error_and_the_journal_stays_valid(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "trace.jsonl"
    j = Journal.create(path, START)
    j.append(events(1)[0])
    good = path.read_bytes()
    real_write = os.write
    calls = []

    def half_then_enospc(fd: int, data: Any) -> int:
        calls.append(fd)
        if len(calls) == 1:  # a partial write first, as a filling disk gives
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", half_then_enospc)
    with pytest.raises(JournalWriteError, match=r"NOT recorded: .*\[ENOSPC\]"):
        j.append(events(2)[1])
    monkeypatch.setattr(os, "write", real_write)
    assert path.read_bytes() == good  # the half line was cut off again
    assert j.append(events(3)[2]) == 3  # space came back: the journal goes on
    assert len(read_journal(path).lines) == 3
    j.close()


def test_failed_fsync_stops_the_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    j = Journal.create(tmp_path / "trace.jsonl", START)

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(JournalWriteError, match=r"\[EIO\]"):
        j.append(events(1)[0])
    monkeypatch.undo()
    with pytest.raises(JournalWriteError, match="stopped after an earlier failure"):
        j.append(events(1)[0])
    j.close()


# -- write-behind (the daemon: the fsync on the journal's writer thread) ------------------------

class Gate:
    """``os.fsync`` held until :meth:`open`: the disk stalls for as long as the test says."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.real = os.fsync
        self.event = threading.Event()
        self.waiting = threading.Event()
        monkeypatch.setattr(os, "fsync", self.fsync)

    def fsync(self, fd: int) -> None:
        self.waiting.set()
        assert self.event.wait(10)
        self.real(fd)

    def open(self) -> None:
        self.event.set()


def test_write_behind_returns_before_the_fsync_and_says_when_durable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "trace.jsonl"
    j = Journal.create(path, START)
    told: list[int] = []
    failed: list[JournalWriteError] = []
    j.write_behind(told.append, failed.append)
    gate = Gate(monkeypatch)
    assert j.submit(events(1)[0]) == 2  # numbered at once, the disk stalled
    assert gate.waiting.wait(10)
    assert j.submit(PieceLifted(t=1.0, square="c3")) == 3
    assert j.submit(PieceLifted(t=2.0, square="c3")) == 4
    assert (j.line_count, j.durable_count, told) == (4, 1, [])
    gate.open()
    j.sync()
    assert j.durable_count == 4 and told[-1] == 4 and not failed
    # lines 3 and 4 came while line 2's fsync ran: one write and one fsync for both
    assert told == [2, 4]
    j.close()
    assert [x["type"] for x in read_journal(path).lines] == ["start", "lift", "lift", "lift"]


def test_write_behind_failed_fsync_loses_what_is_not_durable_and_stops(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "trace.jsonl"
    j = Journal.create(path, START)
    told: list[int] = []
    failed: list[JournalWriteError] = []
    done = threading.Event()
    j.write_behind(told.append, lambda e: (failed.append(e), done.set()))
    j.append(events(1)[0])  # line 2: durable

    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", failing_fsync)
    assert j.submit(PieceLifted(t=1.0, square="c3")) == 3
    assert done.wait(10)
    monkeypatch.undo()
    assert [str(e) for e in failed] == [f"{path}: lines 3-3 and any after them are NOT recorded: "
                                        "Input/output error [EIO]"]
    assert j.durable_count == 2 and told == [2]
    with pytest.raises(JournalWriteError, match="NOT recorded"):
        j.submit(PieceLifted(t=2.0, square="c3"))
    with pytest.raises(JournalWriteError, match=r"\[EIO\]"):
        j.sync()
    j.close()


def test_write_behind_partial_write_is_cut_off_and_stops(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "trace.jsonl"
    j = Journal.create(path, START)
    failed: list[JournalWriteError] = []
    done = threading.Event()
    j.write_behind(lambda _n: None, lambda e: (failed.append(e), done.set()))
    j.append(events(1)[0])
    good = path.read_bytes()
    real_write = os.write
    calls: list[int] = []

    def half_then_enospc(fd: int, data: Any) -> int:
        calls.append(fd)
        if len(calls) == 1:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", half_then_enospc)
    j.submit(PieceLifted(t=1.0, square="c3"))
    assert done.wait(10)
    monkeypatch.undo()
    assert path.read_bytes() == good  # the half line was cut off: the journal stays valid
    # the arbiter already had the line: the journal goes on no more (the daemon stops)
    with pytest.raises(JournalWriteError, match="NOT recorded"):
        j.submit(PieceLifted(t=2.0, square="c3"))
    j.close()
    assert len(read_journal(path).lines) == 2


def test_file_size_limit_gives_a_clear_error_in_a_real_process(tmp_path: Path) -> None:
    """RLIMIT_FSIZE makes the kernel refuse the write (EFBIG), as a full disk does (ENOSPC):
    the error says the event is not recorded and every acknowledged line is on disk."""
    path = tmp_path / "trace.jsonl"
    script = textwrap.dedent(f"""
        import resource, signal, sys
        from engine.events import GameStarted, PieceLifted
        from pi.board.errors import JournalWriteError
        from pi.board.journal import Journal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))
        j = Journal.create({str(path)!r}, GameStarted(variant="italian"))
        n = 1
        try:
            while True:
                n = j.append(PieceLifted(t=float(n), square="e3"))
                print(n, flush=True)
        except JournalWriteError as exc:
            print("ERROR", exc, flush=True)
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                         timeout=60, check=True).stdout.splitlines()
    assert out[-1].startswith("ERROR") and "NOT recorded" in out[-1] and "EFBIG" in out[-1]
    acknowledged = int(out[-2])
    rec = read_journal(path)
    assert len(rec.lines) == acknowledged and not rec.dropped


# -- crash: SIGKILL at random points -----------------------------------------------------------

WRITER = textwrap.dedent("""
    import sys
    from pi.board.journal import Journal
    path = sys.argv[1]
    j = Journal.create(path, {"type": "start", "variant": "italian", "fen": None, "clock": True,
                              "transcribed": True})
    n = 0
    while True:
        n += 1
        line = j.append({"t": n * 0.001, "type": "arbiter", "action": "note", "text": "x" * (n % 300)})
        sys.stdout.write(f"{line}\\n")
        sys.stdout.flush()
""")


@pytest.mark.parametrize("seed", range(6))
def test_sigkill_at_random_points_loses_no_acknowledged_line(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    path = tmp_path / "trace.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    acknowledged = 0
    target = rng.randint(1, 200)
    for raw in proc.stdout:
        acknowledged = int(raw)
        if acknowledged >= target:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # Lines printed after we stopped reading were acknowledged too.
    for raw in proc.stdout.read().splitlines():
        acknowledged = int(raw)
    proc.stdout.close()
    j, rec = Journal.resume(path)
    with j:
        assert len(rec.lines) >= acknowledged
        for number, line in enumerate(rec.lines[1:], start=2):
            assert line["t"] == pytest.approx((number - 1) * 0.001)
        assert j.append({"t": 99.0, "type": "restart", "down": None}) == len(rec.lines) + 1


# -- resume: torn last lines and damage --------------------------------------------------------

def test_torn_last_line_of_every_length_is_dropped_and_truncated(tmp_path: Path,
                                                                   caplog: pytest.LogCaptureFixture
                                                                   ) -> None:
    path = tmp_path / "trace.jsonl"
    lines = write_journal(path, 3)
    good = b"".join(lines[:-1])
    last = lines[-1]
    for cut in range(1, len(last)):  # every prefix of the last line, newline missing
        path.write_bytes(good + last[:cut])
        caplog.clear()
        j, rec = Journal.resume(path)
        j.close()
        assert len(rec.lines) == len(lines) - 1
        assert rec.dropped == last[:cut]
        assert path.read_bytes() == good
        assert "torn last line" in caplog.text


@pytest.mark.parametrize("tail", [b"\x00" * 37, b"\x00" * 37 + b"\n", b'{"t": 3.0, "ty\n',
                                  b'{"t": 3.0, "type": "lift", "square": "e3"', b"\xff\xfe\n",
                                  b'{"t": NaN, "type": "lift"}\n'])
def test_garbage_last_line_is_torn(tmp_path: Path, tail: bytes) -> None:
    path = tmp_path / "trace.jsonl"
    good = b"".join(write_journal(path, 2))
    path.write_bytes(good + tail)
    j, rec = Journal.resume(path)
    assert rec.dropped == tail and len(rec.lines) == 3
    later = PieceLifted(t=3.0, square="c3").to_dict()
    assert j.append(later) == 4
    j.close()
    assert read_journal(path).lines[-1] == later


@pytest.mark.parametrize("damage, line, problem", [
    (lambda ls: ls[:1] + [b"{not json\n"] + ls[1:], 2, "bad JSON"),
    (lambda ls: ls[1:], 1, "no start line"),
    (lambda ls: ls[:2] + [b"[1, 2]\n"] + ls[2:], 3, "not a trace line"),
    (lambda ls: ls[:2] + [ls[0]] + ls[2:], 3, "second start line"),
    (lambda ls: ls[:1] + [ls[2], ls[1]] + ls[3:], 3, "time goes backwards"),
    (lambda ls: ls[:1] + [b"\n"] + ls[1:], 2, "bad JSON"),
    (lambda ls: ls[:1] + [b'{"t": "1", "type": "lift"}\n'] + ls[1:], 2, "'t' must be"),
    (lambda ls: [b""], 1, "journal is empty"),
    (lambda ls: [ls[0][:-5]], 1, "only a torn line"),
])
def test_other_damage_keeps_the_file_and_says_a_new_game_starts(tmp_path: Path, damage: Any,
                                                                  line: int, problem: str) -> None:
    path = tmp_path / "trace.jsonl"
    damaged = b"".join(damage(write_journal(path, 4)))
    path.write_bytes(damaged)
    with pytest.raises(JournalDamagedError, match=problem) as info:
        Journal.resume(path)
    assert info.value.line == line
    assert "kept as it is and a new game starts" in str(info.value)
    assert "\n" not in str(info.value)
    assert path.read_bytes() == damaged


def test_damage_before_a_torn_tail_keeps_the_tail_too(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    lines = write_journal(path, 3)
    damaged = lines[0] + b"garbage\n" + b"".join(lines[1:]) + b'{"t": 9'
    path.write_bytes(damaged)
    with pytest.raises(JournalDamagedError):
        Journal.resume(path)
    assert path.read_bytes() == damaged


def test_missing_journal_is_damage(tmp_path: Path) -> None:
    with pytest.raises(JournalDamagedError, match="no journal file"):
        read_journal(tmp_path / "nope.jsonl")


def test_resume_reports_mtime_and_last_t(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    write_journal(path, 5)
    rec = read_journal(path)
    assert rec.last_t == 2.0 and rec.start["variant"] == "italian"
    assert rec.mtime == pytest.approx(path.stat().st_mtime)


def test_encode_line_is_one_line_with_utf8() -> None:
    data = encode_line({"t": 1.0, "type": "arbiter", "action": "note", "text": "Müller\nline"})
    assert data.count(b"\n") == 1 and "Müller".encode() in data


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300), st.integers(min_value=0, max_value=10_000))
def test_any_bytes_are_read_or_refused_as_damage(tmp_path: Path, junk: bytes, where: int) -> None:
    """Whatever the disk holds, reading gives good lines plus a dropped tail that add up to the
    file, or JournalDamagedError: never another exception."""
    path = tmp_path / "fuzz.jsonl"
    good = encode_line(START) + encode_line(PieceLifted(t=1.0, square="e3"))
    cut = where % (len(good) + 1)
    data = good[:cut] + junk + good[cut:]
    path.write_bytes(data)
    try:
        rec = read_journal(path)
    except JournalDamagedError as exc:
        assert "\n" not in str(exc)
        return
    assert rec.good_size + len(rec.dropped) == len(data)
    assert data[:rec.good_size].count(b"\n") == len(rec.lines)
    assert rec.lines[0]["type"] == "start"


FULL_DISK = textwrap.dedent("""
    import sys
    from pi.board.errors import JournalWriteError
    from pi.board.journal import Journal, read_journal
    from pi.board.statedir import atomic_write
    path = sys.argv[1] + "/trace.jsonl"
    atomic_write(sys.argv[1] + "/game.pdn", "old")
    j = Journal.create(path, {"type": "start", "variant": "italian"})
    n = 1
    try:
        while True:
            n = j.append({"t": float(n), "type": "arbiter", "action": "note", "text": "x" * 97})
    except JournalWriteError as exc:
        print("ERROR", exc)
    rec = read_journal(path)
    print("ACKNOWLEDGED", n, "ON_DISK", len(rec.lines), "DROPPED", len(rec.dropped))
    try:
        atomic_write(sys.argv[1] + "/game.pdn", "new" * 10000)
    except OSError as exc:
        print("PDN", exc.strerror, open(sys.argv[1] + "/game.pdn").read())
""")


def test_a_really_full_disk_in_a_tiny_tmpfs(tmp_path: Path) -> None:
    """A 16 KiB tmpfs mounted in a user namespace (no privileges needed where the kernel allows
    user namespaces): the kernel's own ENOSPC, not a monkeypatch."""
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("unshare is not installed (package util-linux)")
    mount = [unshare, "--user", "--map-root-user", "--mount", "sh", "-c",
             'mount -t tmpfs -o size=16k tmpfs "$0" && exec "$@"', str(tmp_path)]
    if subprocess.run([*mount, "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs in a user namespace here (user namespaces disabled)")
    out = subprocess.run([*mount, sys.executable, "-c", FULL_DISK, str(tmp_path)], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert "NOT recorded: No space left on device [ENOSPC]" in out
    m = re.search(r"ACKNOWLEDGED (\d+) ON_DISK (\d+) DROPPED 0", out)
    assert m is not None and m.group(1) == m.group(2), out
    assert "PDN No space left on device old" in out


def test_append_refuses_lines_that_resume_would_refuse(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    with Journal.create(path, START) as j:
        j.append(PieceLifted(t=5.0, square="e3"))
        before = path.read_bytes()
        for bad, problem in (({"t": 4.9, "type": "lift", "square": "e3"}, "time goes backwards"),
                             ({"type": "lift", "square": "e3"}, "'t' must be"),
                             ({"t": -1.0, "type": "lift"}, "'t' must be"),
                             ({"t": True, "type": "lift"}, "'t' must be"),
                             (START.to_dict(), "second start line")):
            with pytest.raises(ValueError, match=problem):
                j.append(bad)
        assert path.read_bytes() == before and j.last_t == 5.0
    j, rec = Journal.resume(path)
    with j:
        assert j.last_t == 5.0
        with pytest.raises(ValueError, match="time goes backwards"):
            j.append({"t": 1.0, "type": "end"})


def test_restart_line_never_goes_back_in_time() -> None:
    assert restart_line(1.2344, None)["t"] == 1.2344
    assert restart_line(1.2344, 0.0001)["t"] >= 1.2344
    assert restart_line(10.0, 2.5) == {"t": 12.5, "type": "restart", "down": 2.5}


_LINE = st.fixed_dictionaries(
    {"t": st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 10**20),
                    st.none(), st.text(max_size=3)),
     "type": st.sampled_from(["lift", "place", "start", "note", "fault"])},
    optional={"text": st.text(max_size=20), "square": st.sampled_from(["e3", 22, None])})


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_LINE, max_size=25))
def test_what_append_accepts_resume_reads_back(tmp_path: Path, lines: list[dict[str, Any]]
                                               ) -> None:
    path = tmp_path / "prop.jsonl"
    path.unlink(missing_ok=True)
    accepted = [json.loads(encode_line(START))]
    with Journal.create(path, START) as j:
        for line in lines:
            try:
                j.append(line)
            except ValueError:
                continue
            accepted.append(json.loads(encode_line(line)))
    j, rec = Journal.resume(path)
    j.close()
    assert list(rec.lines) == accepted and not rec.dropped


def test_a_deferred_journal_writes_its_start_line_on_the_writer_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``create(defer=True)`` (a game begun on the daemon's loop): the file is there, its start
    line is line 1 for the writer thread, which fsyncs it and then the folders (the journal's,
    the games folder it was made in) before telling line 1 durable — on its own thread."""
    import pi.board.journal as journal_module

    synced: list[tuple[str, str]] = []
    real_dir = journal_module.fsync_dir
    monkeypatch.setattr(journal_module, "fsync_dir",
                        lambda p: (synced.append((threading.current_thread().name, str(p))),
                                   real_dir(p))[1])
    game = tmp_path / "games" / "g1"
    game.mkdir(parents=True)
    path = game / "trace.jsonl"
    told: list[tuple[str, int]] = []
    j = Journal.create(path, START, defer=True, folders=[tmp_path / "games"])
    assert path.exists() and path.read_bytes() == b""
    assert (j.line_count, j.durable_count, synced) == (1, 0, [])
    j.write_behind(lambda n: told.append((threading.current_thread().name, n)),
                   lambda e: told.append(("failed", -1)))
    assert j.submit(events(1)[0]) == 2
    j.sync()
    j.close()
    assert told and told[-1] == ("journal", 2) and all(name == "journal" for name, _ in told)
    assert synced == [("journal", str(game)), ("journal", str(tmp_path / "games"))]
    assert [json.loads(x)["type"] for x in path.read_text().splitlines()] == ["start", "lift"]


def test_a_deferred_journal_without_a_writer_is_written_at_the_first_append_or_sync(
        tmp_path: Path) -> None:
    a = Journal.create(tmp_path / "a.jsonl", START, defer=True)
    assert a.durable_count == 0
    assert a.append(events(1)[0]) == 2 and a.durable_count == 2
    a.close()
    b = Journal.create(tmp_path / "b.jsonl", START, defer=True)
    b.sync()
    b.close()
    assert [len(read_journal(p).lines) for p in (tmp_path / "a.jsonl", tmp_path / "b.jsonl")] \
        == [2, 1]


def test_a_deferred_journal_writes_nothing_before_what_it_waits_for(tmp_path: Path) -> None:
    """``after``: the writer thread's first write waits for it (the game before's journal made
    whole); when it raises, this journal fails, nothing of it written."""
    gate = threading.Event()
    told: list[object] = []
    j = Journal.create(tmp_path / "a.jsonl", START, defer=True, after=lambda: gate.wait(10))
    j.write_behind(told.append, told.append)
    j.submit(events(1)[0])
    assert not (tmp_path / "a.jsonl").read_bytes() and j.durable_count == 0
    gate.set()
    j.sync()
    j.close()
    assert len(read_journal(tmp_path / "a.jsonl").lines) == 2

    def before_failed() -> None:
        raise JournalWriteError("game before: lines 5-5 are NOT recorded: journal closed")

    k = Journal.create(tmp_path / "b.jsonl", START, defer=True, after=before_failed)
    k.write_behind(told.append, told.append)
    with pytest.raises(JournalWriteError, match=r"lines 1-1 .*NOT recorded: waited for: game "
                                                r"before: lines 5-5"):
        k.sync()
    k.close()
    assert (tmp_path / "b.jsonl").read_bytes() == b""
