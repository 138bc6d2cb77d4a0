"""The write-ahead journal of a game: ``STATE/games/<id>/trace.jsonl``, docs/trace-format.md lines.

Durability contract
-------------------
- :meth:`Journal.append` writes one whole line (JSON + ``\\n``) and fsyncs the file before it
  returns the line's number (1-based; the start line is 1). Whatever the daemon shows or
  publishes because of an event comes after that return, so nothing seen on the board, the
  screen or the network is ever missing from the journal after a crash or a power cut.
- Write-behind (:meth:`Journal.write_behind`, the daemon): :meth:`Journal.submit` numbers the
  line and hands it to the journal's writer thread, which writes and fsyncs whatever is waiting
  (one fsync for every line that came while the last one ran) and then calls ``on_durable``
  (:attr:`Journal.durable_count` says how far). The caller keeps the write-ahead rule by
  releasing what a line causes only once it is durable; the event loop never waits on the disk.
  Any failure of the writer (write or fsync) breaks the journal for good and calls
  ``on_failed``: the lines after the last durable one are not recorded, and the caller has
  already fed them to its arbiter, so it must stop and resume from the disk.
- A failed append raises :class:`JournalWriteError` (a full disk, an I/O error): the event is
  *not* recorded and the message says so. After a failed write the partial line is cut off
  again, so the file stays a valid journal and appends may go on once space is back; after a
  failed fsync the page cache can no longer be trusted (Linux may drop the dirty pages), so the
  journal refuses every later append: the daemon stops and resumes from what is on disk.
- Resume (:meth:`Journal.resume`, :func:`read_journal`): a torn last line (a power cut during
  the write: no trailing newline, or a last line that is not valid JSON) was never
  acknowledged, so it is dropped, logged and truncated away. Any other damage (a bad line
  before the last, no start line, time going backwards) raises :class:`JournalDamagedError`
  and leaves the file exactly as it is; its message says that a new game starts.

The reader checks the journal's *form* (JSON objects, one start line first, ``t`` finite and
non-decreasing); what the lines mean is the arbiter's business when they are fed to it. The
writer applies the same test before writing (ValueError, nothing written), so a line that
:meth:`Journal.append` accepted can never make the journal unreadable at resume.

A game's folder and journal are begun and resumed by ``pi.board.session.GameSession`` (the
daemon's one path); this module only reads and writes the file.

Not thread-safe: one caller (the event loop's thread) per journal; with write-behind, the
writer thread is the journal's own.
"""

from __future__ import annotations

import errno
import json
import logging
import math
import os
import asyncio
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine.replay import Fed
from engine.squares import square_sort_key
from pi.board.errors import (ActionRefused, JournalDamagedError, JournalError,
                             JournalWriteError)
from pi.board.statedir import fsync_dir

log = logging.getLogger(__name__)

__all__ = ["Journal", "Recovered", "DurableOutbox", "Journaled",
           "read_journal", "encode_line", "fault_line", "fault_cleared_line", "restart_line",
           "MAX_JOURNAL_BYTES"]

#: A journal larger than this is refused at resume (a real game is well under 1 MB).
MAX_JOURNAL_BYTES = 64 * 1024 * 1024
_EXCERPT = 60


class _HasToDict(Protocol):
    def to_dict(self) -> dict[str, Any]: ...


def encode_line(obj: Mapping[str, Any] | _HasToDict) -> bytes:
    """One journal line, UTF-8 with its ``\\n``: ``obj`` is a docs/trace-format.md dict or anything with
    ``to_dict()`` (the events of ``engine.events``). Raises ValueError for what JSON cannot hold
    (NaN, infinities, other types) or a dict without a string ``type``."""
    d = obj if isinstance(obj, Mapping) else obj.to_dict()
    if not isinstance(d.get("type"), str):
        raise ValueError("a journal line needs a string 'type'")
    try:
        text = json.dumps(d, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"cannot write {d.get('type')!r} line as JSON: {exc}") from None
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"cannot write {d.get('type')!r} line as UTF-8: {exc}") from None


def fault_line(t: float, squares: Iterable[str], message: str) -> dict[str, Any]:
    """docs/trace-format.md ``fault``: the sensors under ``squares`` stopped answering."""
    return {"t": t, "type": "fault", "squares": sorted(squares, key=square_sort_key),
            "message": message}


def fault_cleared_line(t: float, squares: Iterable[str]) -> dict[str, Any]:
    """docs/trace-format.md ``fault_cleared``: the sensors under ``squares`` answer again."""
    return {"t": t, "type": "fault_cleared", "squares": sorted(squares, key=square_sort_key)}


def restart_line(last_t: float, down: float | None) -> dict[str, Any]:
    """docs/trace-format.md ``restart`` after a journal whose last ``t`` is ``last_t``: ``t`` goes on from
    there plus ``down`` (wall-clock seconds away, None when unknown). A negative ``down`` (the
    wall clock was set back) is unknown too. Raises ValueError for a non-finite value."""
    if not math.isfinite(last_t) or (down is not None and not math.isfinite(down)):
        raise ValueError(f"restart times must be finite, not {last_t!r}, {down!r}")
    if down is not None and down < 0:
        down = None
    if down is None:
        return {"t": last_t, "type": "restart", "down": None}
    down = round(down, 3)
    # Rounded for reading, but never below last_t (time must not go backwards in a journal).
    return {"t": max(last_t, round(last_t + down, 3)), "type": "restart", "down": down}


@dataclass(frozen=True, slots=True)
class Recovered:
    """What a journal holds: its good ``lines`` (parsed; the start line first), the bytes of a
    torn last line that was (or, from :func:`read_journal`, would be) dropped, the good length
    in bytes, and ``mtime`` (wall-clock time of the last write, for ``restart``'s ``down``)."""

    path: Path
    lines: tuple[dict[str, Any], ...]
    dropped: bytes
    good_size: int
    mtime: float

    @property
    def start(self) -> dict[str, Any]:
        return self.lines[0]

    @property
    def last_t(self) -> float:
        """``t`` of the last line (0.0 when only the start line is there)."""
        for line in reversed(self.lines):
            if "t" in line:
                return float(line["t"])
        return 0.0


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _parse(raw: bytes) -> Any:
    return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)


def _excerpt(raw: bytes) -> str:
    text = raw[:_EXCERPT].decode("utf-8", errors="replace")
    return repr(text + ("…" if len(raw) > _EXCERPT else ""))


def _form_problem(obj: Mapping[str, Any], first: bool, last_t: float) -> str | None:
    """What is wrong with the form of line ``obj`` (the first of its journal or not; ``last_t``:
    ``t`` of the line before), or None. The writer and the reader apply the same test, so any
    line :meth:`Journal.append` accepted is read back at resume."""
    kind = obj.get("type")
    if not isinstance(kind, str):
        return "not a trace line: no string 'type'"
    if first:
        return None if kind == "start" else ("no start line (the first line must have "
                                             "\"type\": \"start\")")
    if kind == "start":
        return "a second start line"
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t < 0:
        shown = repr(t)
        return f"'t' must be a number >= 0, not {shown[:_EXCERPT]}{'…' * (len(shown) > _EXCERPT)}"
    if t < last_t:
        return f"time goes backwards ({t} after {last_t})"
    return None


def read_journal(path: str | os.PathLike[str]) -> Recovered:
    """Reads the journal at ``path`` without changing it. Raises :class:`JournalDamagedError`
    (see the module docstring) or :class:`JournalError` when it cannot be read at all."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            st = os.fstat(f.fileno())
            if st.st_size > MAX_JOURNAL_BYTES:
                raise JournalDamagedError(p, 1, f"{st.st_size} bytes, more than a journal can be "
                                                f"({MAX_JOURNAL_BYTES})")
            data = f.read(MAX_JOURNAL_BYTES + 1)
    except FileNotFoundError:
        raise JournalDamagedError(p, 1, "no journal file (no start line)") from None
    except OSError as exc:
        raise JournalError(f"{p}: cannot read the journal: {exc.strerror or exc}") from None
    raws = data.split(b"\n")
    # raws[-1] is b"" when the file ends with a newline; otherwise it is a line cut short.
    tail = raws.pop()
    complete = raws
    dropped = tail
    if not tail and complete:
        try:
            _parse(complete[-1])
        except (ValueError, RecursionError):
            # A last line that is whole but not JSON: the filesystem kept the new size but
            # not the data (zeros after a power cut), or the line was cut and a newline
            # follows in garbage. It was never acknowledged.
            dropped = complete.pop() + b"\n"
    lines: list[dict[str, Any]] = []
    last_t = 0.0
    for number, raw in enumerate(complete, start=1):
        try:
            obj = _parse(raw)
        except (ValueError, RecursionError) as exc:
            raise JournalDamagedError(p, number, f"bad JSON ({exc}): {_excerpt(raw)}") from None
        if not isinstance(obj, dict):
            raise JournalDamagedError(p, number, f"not a trace line: {_excerpt(raw)}")
        problem = _form_problem(obj, number == 1, last_t)
        if problem is not None:
            raise JournalDamagedError(p, number, problem)
        if number > 1:
            last_t = float(obj["t"])
        lines.append(obj)
    if not lines:
        raise JournalDamagedError(p, 1, "no start line (the journal is empty)" if not dropped
                                  else f"no start line (only a torn line {_excerpt(dropped)})")
    good_size = len(data) - len(dropped)
    return Recovered(p, tuple(lines), dropped, good_size, st.st_mtime)


class Journal:
    """An open journal, appended to by :meth:`append`. Make one with :meth:`create` (a new game)
    or :meth:`resume` (after a restart); close it with :meth:`close` or ``with``."""

    def __init__(self, path: Path, fd: int, lines: int, size: int, last_t: float = 0.0) -> None:
        """Use :meth:`create` or :meth:`resume`; this takes an fd opened for appending."""
        self.path = path
        self._fd: int | None = fd
        self._lines = lines  # numbered (handed over); the caller's thread
        self._durable = lines  # written and fsync'd
        self._size = size  # bytes durable
        self._last_t = last_t
        self._broken: str | None = None
        # write-behind (None: every line is written and fsync'd by the caller)
        self._cond = threading.Condition()
        self._queue: list[bytes] = []
        self._writer: threading.Thread | None = None
        self._closing = False
        self._failure: JournalWriteError | None = None
        #: folders fsync'd after the next write (a new journal's own and its game's parent)
        self._folders: tuple[Path, ...] = ()
        #: called by the writer thread before its first write (:meth:`create`'s ``after``)
        self._after: Callable[[], None] | None = None

    @classmethod
    def create(cls, path: str | os.PathLike[str], start: Mapping[str, Any] | _HasToDict, *,
               defer: bool = False, folders: Iterable[str | os.PathLike[str]] = (),
               after: Callable[[], None] | None = None) -> Journal:
        """Creates the journal ``path`` (it must not exist) with ``start`` as line 1, durable
        (file, folder and ``folders`` fsync'd: a new game's parent, its folder just made) when
        this returns. Raises JournalWriteError, or ValueError for a start that is not a
        ``start`` line.

        ``defer``: the file is created here, but ``start`` is line 1 still to be written — by the
        writer thread once :meth:`write_behind` is on, told through ``on_durable`` like any
        line (the daemon's loop never waits for these fsyncs), or by the first :meth:`append`
        or :meth:`sync` without it. :attr:`durable_count` is 0 until then; a failure is the
        journal's, as for any line (``on_failed``, :meth:`sync`). ``after`` (with ``defer``):
        the writer thread calls it before that first write and writes nothing until it returns
        — the game before's journal made whole first; a JournalWriteError it raises fails this
        journal."""
        p = Path(path)
        first = encode_line(start)
        if json.loads(first).get("type") != "start":
            raise ValueError("the first line of a journal must be a start line")
        try:
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC,
                         0o644)
        except OSError as exc:
            raise JournalWriteError(f"{p}: cannot create the journal: {exc.strerror or exc}") \
                from None
        journal = cls(p, fd, 0, 0)
        journal._folders = (p.parent, *(Path(f) for f in folders))
        journal._after = after if defer else None
        journal._queue.append(first)
        journal._lines = 1
        if not defer:
            journal._write_deferred()
        return journal

    def _write_deferred(self) -> None:
        """Without write-behind: writes what :meth:`create` deferred (the start line), now."""
        if self._writer is not None or not self._queue:
            return
        try:
            self._write(b"".join(self._queue))
        except OSError as exc:
            self.close()
            raise JournalWriteError(f"{self.path}: cannot create the journal: "
                                    f"{exc.strerror or exc}") from None
        self._queue.clear()
        self._durable = self._lines

    @classmethod
    def resume(cls, path: str | os.PathLike[str]) -> tuple[Journal, Recovered]:
        """Opens an existing journal for appending after a restart. A torn last line is logged
        and truncated away (durably) first. Raises JournalDamagedError (file untouched) or
        JournalError."""
        rec = read_journal(path)
        p = rec.path
        try:
            fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
        except OSError as exc:
            raise JournalError(f"{p}: cannot open the journal: {exc.strerror or exc}") from None
        try:
            if rec.dropped:
                log.warning("%s: dropped a torn last line after line %d (%d bytes: %s), "
                            "written when the daemon stopped and never acknowledged",
                            p, len(rec.lines), len(rec.dropped), _excerpt(rec.dropped))
                os.ftruncate(fd, rec.good_size)
                os.fsync(fd)
        except OSError as exc:
            os.close(fd)
            raise JournalError(f"{p}: cannot drop the torn last line: {exc.strerror or exc}") \
                from None
        return cls(p, fd, len(rec.lines), rec.good_size, rec.last_t), rec

    @property
    def line_count(self) -> int:
        """Lines in the journal (the number of the last one appended or submitted)."""
        return self._lines

    @property
    def writes_behind(self) -> bool:
        """:meth:`write_behind` is on (a writer thread makes the lines durable)."""
        return self._writer is not None

    @property
    def durable_count(self) -> int:
        """Lines written and fsync'd (equal to :attr:`line_count` without write-behind)."""
        return self._durable

    @property
    def closed(self) -> bool:
        return self._fd is None

    @property
    def last_t(self) -> float:
        """``t`` of the last line (0.0 after the start line): the next line may not be earlier."""
        return self._last_t

    def append(self, obj: Mapping[str, Any] | _HasToDict) -> int:
        """Writes ``obj`` as one line, fsyncs, and returns its 1-based line number. Raises
        ValueError (nothing written) for an object JSON cannot hold or a line resume would refuse:
        a second start line, no ``t``, or ``t`` earlier than :attr:`last_t`. Raises
        JournalWriteError when the line could not be made durable (it is then not in the
        journal). With write-behind: :meth:`submit` then :meth:`sync`."""
        if self._writer is not None:
            number = self.submit(obj)
            self.sync()
            return number
        data, d = self._checked(obj)
        self._write_deferred()
        try:
            self._write(data)
        except OSError as exc:
            raise JournalWriteError(f"{self.path}: the event is NOT recorded: "
                                    f"{_describe(exc)}") from exc
        self._lines += 1
        self._durable = self._lines
        self._last_t = float(d["t"])
        return self._lines

    def write_behind(self, on_durable: Callable[[int], None],
                     on_failed: Callable[[JournalWriteError], None]) -> None:
        """From now on :meth:`submit` returns at once and the journal's writer thread (named
        ``journal``) writes and fsyncs: after each batch it calls ``on_durable(durable_count)``;
        after a failure (the journal is then broken for good) ``on_failed(error)`` once, with
        every line not yet durable lost. Both are called on the writer thread."""
        if self._writer is not None:
            raise RuntimeError(f"{self.path}: write-behind is already on")
        self._writer = threading.Thread(target=self._write_lines, args=(on_durable, on_failed),
                                        name="journal", daemon=True)
        self._writer.start()

    def submit(self, obj: Mapping[str, Any] | _HasToDict) -> int:
        """Numbers ``obj``'s line and returns its number; with write-behind the line is handed to
        the writer thread (durable later: :attr:`durable_count`), without it this is
        :meth:`append`. Raises ValueError as :meth:`append` (nothing handed over), or
        JournalWriteError when the journal is broken or closed."""
        if self._writer is None:
            return self.append(obj)
        data, d = self._checked(obj)
        with self._cond:
            if self._failure is not None:
                raise JournalWriteError(f"{self.path}: the event is NOT recorded: {self._failure}")
            self._queue.append(data)
            self._cond.notify_all()
        self._lines += 1
        self._last_t = float(d["t"])
        return self._lines

    def sync(self) -> None:
        """Returns once every line submitted so far is durable. Raises JournalWriteError when the
        writer failed first (those lines are not recorded)."""
        self._write_deferred()
        target = self._lines
        with self._cond:
            while self._durable < target and self._failure is None and not self._closing:
                self._cond.wait()
            if self._failure is not None:
                raise self._failure
            if self._durable < target:
                raise JournalWriteError(f"{self.path}: lines {self._durable + 1}-{target} are NOT "
                                        "recorded: journal closed")

    def _write_lines(self, on_durable: Callable[[int], None],
                     on_failed: Callable[[JournalWriteError], None]) -> None:
        """The writer thread: every line waiting, one write and one fsync, then ``on_durable``."""
        while True:
            with self._cond:
                while not self._queue and not self._closing:
                    self._cond.wait()
                if not self._queue:
                    return
                batch, self._queue = self._queue, []
            first = self._durable + 1
            try:
                after, self._after = self._after, None
                if after is not None:
                    after()  # what must be durable before this journal's first line
                self._write(b"".join(batch))
            except (OSError, JournalWriteError) as exc:
                why = _describe(exc) if isinstance(exc, OSError) else f"waited for: {exc}"
                if self._broken is None:  # a write that failed whole: no later line may follow
                    self._broken = why
                failure = JournalWriteError(
                    f"{self.path}: lines {first}-{first + len(batch) - 1} and any after them are "
                    f"NOT recorded: {why}")
                with self._cond:
                    self._failure = failure
                    self._queue.clear()
                    self._cond.notify_all()
                _call(on_failed, failure)
                return
            with self._cond:
                self._durable += len(batch)
                durable = self._durable
                self._cond.notify_all()
            _call(on_durable, durable)

    def _checked(self, obj: Mapping[str, Any] | _HasToDict) -> tuple[bytes, Mapping[str, Any]]:
        data = encode_line(obj)
        d = obj if isinstance(obj, Mapping) else obj.to_dict()
        problem = _form_problem(d, False, self._last_t)
        if problem is not None:
            raise ValueError(f"{self.path}: not written: {problem}")
        if self._broken is not None:
            raise JournalWriteError(f"{self.path}: the event is NOT recorded: the journal "
                                    f"stopped after an earlier failure ({self._broken})")
        if self._fd is None or self._closing:
            raise JournalWriteError(f"{self.path}: the event is NOT recorded: journal closed")
        return data, d

    def _write(self, data: bytes) -> None:
        """Appends ``data`` (whole lines) durably; on failure restores the last good size or
        marks the journal broken, then re-raises."""
        assert self._fd is not None
        fd = self._fd
        view = memoryview(data)
        try:
            while view:
                n = os.write(fd, view)
                if n <= 0:
                    raise OSError(errno.EIO, "write returned 0 bytes")
                view = view[n:]
        except OSError as exc:
            if len(view) != len(data):
                # Part of the line reached the file: cut it off so the next line does not
                # start in the middle of this one (which would damage the journal).
                try:
                    os.ftruncate(fd, self._size)
                    os.fsync(fd)
                except OSError as cut:
                    self._broken = f"{_describe(exc)}; then {_describe(cut)}"
            raise
        try:
            os.fsync(fd)
            folders, self._folders = self._folders, ()
            for folder in folders:  # a new journal's name in its folder, the folder in its own
                fsync_dir(folder)
        except OSError as exc:
            # After a failed fsync Linux may have dropped the dirty pages and marked them clean:
            # nothing written since the last good fsync can be trusted any more.
            self._broken = _describe(exc)
            raise
        self._size += len(data)

    def close(self) -> None:
        """Closes the file: with write-behind, once the writer thread has written what was
        submitted (or failed); everything appended is already durable. Never raises for the
        writer's failure (:meth:`sync` does). Idempotent."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
            writer = self._writer
        if writer is not None and writer is not threading.current_thread():
            writer.join()
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _call(callback: Callable[[Any], None], value: object) -> None:
    """A write-behind callback, contained: the writer thread must go on (or end) cleanly."""
    try:
        callback(value)
    except Exception:  # a bad callback never kills the journal's writer
        log.exception("journal callback %r failed", callback)


def _describe(exc: OSError) -> str:
    name = errno.errorcode.get(exc.errno or 0)
    text = exc.strerror or str(exc)
    return f"{text} [{name}]" if name else text


class Journaled(Protocol):
    """What :class:`DurableOutbox` reads of a game (``pi.board.session.GameSession``): how far
    its journal is durable, and whether it is closed."""

    @property
    def durable_line(self) -> int: ...

    @property
    def journal(self) -> Journal: ...


class DurableOutbox:
    """The board's durable outbox: what the controller hands out only once its journal line is
    durable (this module's write-ahead rule: nothing leaves the board before its line is on
    disk) — each line for the board's listeners (the web's feeds, the hall's link, the serial
    line), and each arbiter action's answer. Kept in journal order, handed out in that order;
    what a closed journal never made durable is dropped (it was never recorded), an action's
    answer then refused. The event loop's thread only."""

    def __init__(self) -> None:
        self._held: deque[tuple[Journaled, Fed, asyncio.Future[Fed] | None]] = deque()

    def __len__(self) -> int:
        return len(self._held)

    def hold(self, session: Journaled, fed: Fed,
             answer: asyncio.Future[Fed] | None = None) -> None:
        """Line ``fed`` of ``session`` waits for its durability: then it goes to the listeners,
        or (``answer``) it is an action's answer."""
        self._held.append((session, fed, answer))

    def release(self, current: Journaled | None, *, out: Callable[[Fed], None],
                tell: Callable[[Fed], None]) -> bool:
        """Hands out, in order, what waits for lines now durable: ``out(fed)`` first for a
        line of ``current`` (the game in play: its readers' view moves on), then ``tell(fed)``
        for a line, or the action's answer set. Stops at the first line not durable yet:
        False; True when nothing waits any more."""
        held = self._held
        while held:
            session, fed, answer = held[0]
            if fed.line > session.durable_line:
                if not session.journal.closed:  # the game in play's, or one being closed
                    return False
                held.popleft()
                if answer is not None and not answer.done():
                    answer.set_exception(ActionRefused("the action was not recorded"))
                continue
            held.popleft()
            if session is current:
                out(fed)
            if answer is None:
                tell(fed)
            elif not answer.done():
                answer.set_result(fed)
        return True
