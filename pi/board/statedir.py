"""The daemon's state directory: one folder per game, named by a sortable unique game id.

Layout (``STATE`` is ``--state-dir``, the config's ``state_dir``, systemd's ``$STATE_DIRECTORY``
or ``./.state``, in that order, see :func:`resolve_state_dir`)::

    STATE/lock                      flock'd by the one daemon using the directory
    STATE/games/<id>/trace.jsonl    the write-ahead journal (pi.board.journal)
    STATE/games/<id>/game.pdn       rewritten atomically after every committed move, flag, result
    STATE/games/<id>/report.json    likewise (the ``damiera replay --json`` report)
    STATE/games/<id>/finished       present once the game is over or abandoned (JSON, see below)

Game ids: ``YYYY-MM-DDTHHMM[-bNN]-SEQ``, e.g. ``2026-11-22T0512-b07-001``: the UTC wall-clock
minute the game began, the board's number in the hall when configured, and a sequence number
(at least three digits) one above the highest in the directory. The sequence number alone makes
ids unique and orders them, whatever the wall clock says (a Pi without a real-time clock may
start in 1970 until network time arrives); ordering by name agrees with it as long as the clock
is right. :func:`parse_game_id` reads an id back; :meth:`StateDir.game_ids` sorts by sequence.

A game is *unfinished* while its folder has no ``finished`` file. The daemon keeps at most one
unfinished game: :meth:`StateDir.new_game` refuses to open another, so the game to resume at
start is never in doubt. ``finished`` holds ``{"result": "1-0"}`` for a game played out, or
``{"result": null, "abandoned": "why"}`` for a game given up (a damaged journal), or
``{"result": "*"}`` for a game a hall's pairing superseded before play (void: its journal ends
with the board's fixed note and ``end``, ``pi.board.supersede``). A crash between
journaling the result and writing ``finished`` leaves the game unfinished: on resume, replaying
its journal gives the result, and the daemon then calls :meth:`GameDir.mark_finished`.

Durability: :func:`atomic_write` writes a temporary file in the same folder, fsyncs it, renames
it over the target and fsyncs the folder, so a reader (or a power cut) sees the old or the new
file whole, never a mix. New folders are fsync'd into their parent.
"""

from __future__ import annotations

import errno
import fcntl
import itertools
import json
import logging
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pi.board.errors import StateDirBusyError, StateDirError
from engine.frozen import quick_init

log = logging.getLogger(__name__)

__all__ = ["GameId", "make_game_id", "parse_game_id",
           "atomic_write", "fsync_dir", "resolve_state_dir", "lock_state_dir", "StateDir",
           "GameDir", "DEFAULT_STATE_DIR", "LOCK_FILE"]

#: The state directory when neither the command line, the config nor systemd names one.
DEFAULT_STATE_DIR = Path(".state")
#: The lock of a state directory (a board's, a hub's): ``STATE/lock``.
LOCK_FILE = "lock"
_GAME_ID = re.compile(r"(\d{4}-\d{2}-\d{2}T\d{4})(?:-b(\d{1,4}))?-(\d{3,9})")
_TMP_SUFFIX = ".tmp"
_tmp_counter = itertools.count()


@quick_init
@dataclass(frozen=True, slots=True)
class GameId:
    """A parsed game id: ``stamp`` (``YYYY-MM-DDTHHMM``, UTC), ``board`` (or None), ``seq``."""

    stamp: str
    board: int | None
    seq: int

    def __str__(self) -> str:
        board = f"-b{self.board:02d}" if self.board is not None else ""
        return f"{self.stamp}{board}-{self.seq:03d}"


def make_game_id(when: datetime, seq: int, board: int | None = None) -> str:
    """The id of a game begun at ``when`` (aware datetimes are converted to UTC; naive ones are
    taken as UTC), ``seq`` >= 1, ``board`` 0..9999 or None. Raises ValueError out of range."""
    if seq < 1 or seq > 999_999_999:
        raise ValueError(f"game sequence number out of range: {seq}")
    if board is not None and not 0 <= board <= 9999:
        raise ValueError(f"board number out of range: {board}")
    if when.tzinfo is not None:
        when = when.astimezone(timezone.utc)
    return str(GameId(when.strftime("%Y-%m-%dT%H%M"), board, seq))


def parse_game_id(text: str) -> GameId | None:
    """The parts of a game id, or None when ``text`` is not one (other files in ``games/``)."""
    m = _GAME_ID.fullmatch(text)
    if m is None:
        return None
    return GameId(m.group(1), int(m.group(2)) if m.group(2) else None, int(m.group(3)))


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """Makes the entries of folder ``path`` (new, renamed or removed files) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: str | os.PathLike[str], data: bytes | str, mode: int = 0o644) -> None:
    """Replaces the file ``path`` with ``data`` (str is written as UTF-8) so that a crash or a
    power cut at any point leaves either the old file or the new one, whole.

    A temporary file ``.<name>.<pid>.<n>.tmp`` in the same folder is written, fsync'd, renamed
    over ``path``, and the folder is fsync'd. Raises OSError (the temporary file removed) when any
    step fails; the old file is then untouched.
    """
    target = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{next(_tmp_counter)}{_TMP_SUFFIX}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        try:
            _write_all(fd, payload)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(target.parent)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:  # never seen for regular files; refuse to spin
            raise OSError(errno.EIO, "write returned 0 bytes")
        view = view[n:]


def resolve_state_dir(cli: str | os.PathLike[str] | None, config: str | os.PathLike[str] | None,
                      environ: Mapping[str, str] | None = None) -> Path:
    """The state directory: ``--state-dir``, else the config's ``state_dir``, else the first
    entry of systemd's ``$STATE_DIRECTORY`` (set by ``StateDirectory=``; colon-separated), else
    ``./.state``."""
    if cli is not None:
        return Path(cli)
    if config is not None:
        return Path(config)
    env = os.environ if environ is None else environ
    systemd = env.get("STATE_DIRECTORY", "").split(":")[0]
    if systemd:
        return Path(systemd)
    return DEFAULT_STATE_DIR


@dataclass(frozen=True, slots=True)
class GameDir:
    """One game's folder. Paths only; the journal itself is :class:`pi.board.journal.Journal`."""

    id: str
    path: Path

    @property
    def trace(self) -> Path:
        return self.path / "trace.jsonl"

    @property
    def pdn(self) -> Path:
        return self.path / "game.pdn"

    @property
    def report(self) -> Path:
        return self.path / "report.json"

    @property
    def finished_marker(self) -> Path:
        return self.path / "finished"

    @property
    def seq(self) -> int:
        parsed = parse_game_id(self.id)
        return parsed.seq if parsed is not None else 0

    def is_finished(self) -> bool:
        return self.finished_marker.exists()

    def never_began(self) -> bool:
        """The journal holds no whole line (missing, empty, or a start line cut short): the
        daemon stopped before the game's start line was durable, so nothing of the game left
        the board (``pi.board.journal.Journal.create``'s ``defer``)."""
        try:
            with open(self.trace, "rb") as f:
                return b"\n" not in f.read(1 << 16)
        except FileNotFoundError:
            return True
        except OSError:
            return False  # unreadable: the resume says why

    def finished_info(self) -> dict[str, Any] | None:
        """The ``finished`` marker's content, None while the game is unfinished. A marker that
        cannot be read still counts as finished (``{"result": null, "unreadable": "why"}``)."""
        try:
            raw = self.finished_marker.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            return {"result": None, "unreadable": exc.strerror or str(exc)}
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError) as exc:
            return {"result": None, "unreadable": str(exc)}
        return obj if isinstance(obj, dict) else {"result": None, "unreadable": "not an object"}

    def marker_stale(self) -> bool:
        """The ``finished`` marker is older than the journal: lines came after the result (an
        arbiter's note, a result corrected, COMP 6.16) and the daemon stopped before it wrote
        the marker again (line, files, then marker: ``pi.board.session``). False for an
        unfinished game or without a journal. (The files' times move by the kernel's tick: a
        line after the result comes from a person, long after the marker it follows.)"""
        try:
            return self.finished_marker.stat().st_mtime_ns < self.trace.stat().st_mtime_ns
        except OSError:
            return False

    def derived_stale(self) -> bool:
        """``game.pdn`` or ``report.json`` is missing or older than the journal (a write that
        failed, a disk that was full, a stop before the writer caught up). False without a
        journal (nothing to derive them from)."""
        try:
            journal = self.trace.stat().st_mtime_ns
        except OSError:
            return False
        for path in (self.pdn, self.report):
            try:
                if path.stat().st_mtime_ns < journal:
                    return True
            except OSError:
                return True
        return False

    def write_pdn(self, text: str) -> None:
        """Atomically replaces ``game.pdn`` (see :func:`atomic_write`)."""
        atomic_write(self.pdn, text)

    def write_report(self, report: Mapping[str, Any]) -> None:
        """Atomically replaces ``report.json`` with ``report`` as JSON (UTF-8, one trailing
        newline). Raises ValueError for values JSON cannot hold (NaN included)."""
        atomic_write(self.report, json.dumps(report, ensure_ascii=False, allow_nan=False) + "\n")

    def write_report_text(self, text: str) -> None:
        """Atomically replaces ``report.json`` with ``text``: JSON made as :meth:`write_report`
        makes it (``engine.replay.RecordSnapshot.report_json`` and its newline)."""
        atomic_write(self.report, text)

    def mark_finished(self, result: str | None, abandoned: str | None = None) -> None:
        """Writes the ``finished`` marker: ``result`` (PDN result) for a game played out, or
        ``abandoned`` (why) for a game given up. Idempotent; atomic."""
        info: dict[str, Any] = {"result": result}
        if abandoned is not None:
            info["abandoned"] = abandoned
        atomic_write(self.finished_marker, json.dumps(info, ensure_ascii=False) + "\n")

    def remove_stale_temporaries(self) -> list[Path]:
        """Deletes the temporary files an interrupted :func:`atomic_write` left (call at resume,
        before writing anything); returns what was removed."""
        removed = []
        for p in self.path.glob(f".*{_TMP_SUFFIX}"):
            try:
                p.unlink()
                removed.append(p)
            except OSError as exc:
                log.warning("cannot remove stale temporary file %s: %s", p, exc)
        if removed:
            fsync_dir(self.path)
        return removed


def lock_state_dir(root: Path, busy: str) -> int:
    """``root/lock`` taken (flock, without waiting), exclusive. Returns the
    descriptor; the lock lasts until it is closed or the process ends (a kill -9 frees it).
    Raises StateDirBusyError (``"<root>: <busy>"``) when another process holds it, else
    StateDirError; one line each."""
    path = root / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StateDirError(f"{path}: cannot open the lock file: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
            raise StateDirBusyError(f"{root}: {busy}") from None
        raise StateDirError(f"{path}: cannot lock: {exc.strerror or exc}") from None
    return fd


class StateDir:
    """The state directory ``root``. :meth:`open` creates ``root/games`` and takes the lock.

    Not thread-safe: one daemon, one thread (the event loop) uses it.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.games = root / "games"
        self._lock_fd: int | None = None

    @classmethod
    def open(cls, root: str | os.PathLike[str], lock: bool = True) -> StateDir:
        """Creates ``root/games`` as needed and, with ``lock``, takes ``root/lock`` (flock, held
        until :meth:`close` or exit). Raises StateDirError / StateDirBusyError, one line."""
        sd = cls(Path(root))
        try:
            if not sd.games.is_dir():
                sd.games.mkdir(parents=True, exist_ok=True)
                fsync_dir(sd.root)  # the new games/ entry
                fsync_dir(sd.root.parent)  # and root's, when it is new too
        except OSError as exc:
            raise StateDirError(f"{sd.root}: cannot create the state directory: "
                                f"{exc.strerror or exc}") from None
        if not sd.games.is_dir():
            raise StateDirError(f"{sd.games}: not a directory")
        if lock:
            sd._take_lock()
        return sd

    def _take_lock(self) -> None:
        self._lock_fd = lock_state_dir(self.root, "in use by another damiera process (one "
                                                  "daemon per state directory)")

    def close(self) -> None:
        """Releases the lock (closing the file releases the flock)."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __enter__(self) -> StateDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def game_dirs(self) -> list[GameDir]:
        """Every game folder, oldest first (by sequence number). Other entries are ignored."""
        found = []
        for entry in os.scandir(self.games):
            parsed = parse_game_id(entry.name)
            if parsed is not None and entry.is_dir(follow_symlinks=False):
                found.append((parsed.seq, entry.name))
        found.sort()
        return [GameDir(name, self.games / name) for _, name in found]

    def game_ids(self) -> list[str]:
        return [g.id for g in self.game_dirs()]

    def game(self, game_id: str) -> GameDir:
        """The folder of ``game_id`` (which must be an id). Raises ValueError otherwise."""
        if parse_game_id(game_id) is None:
            raise ValueError(f"not a game id: {game_id!r}")
        return GameDir(game_id, self.games / game_id)

    def unfinished(self) -> GameDir | None:
        """The game to resume: the newest game without a ``finished`` marker, or None. Older
        unfinished games are logged (a daemon stopped while it closed one behind the next game,
        which ``pi.board.session.refresh_game_files`` then finishes; or folders copied in)."""
        pending = self._unfinished(self.game_dirs())
        for older in pending[:-1]:
            log.warning("game %s is unfinished but not the newest (a close cut short by a stop, "
                        "or a folder copied in)", older.id)
        return pending[-1] if pending else None

    @staticmethod
    def _unfinished(dirs: list[GameDir], closing: frozenset[str] = frozenset()) -> list[GameDir]:
        return [g for g in dirs if g.id not in closing and not g.is_finished()]

    def new_game(self, when: datetime | None = None, board: int | None = None, *,
                 durable: bool = True, closing: Iterable[str] = ()) -> GameDir:
        """Creates the folder of a new game (sequence one above the highest) and makes it
        durable (``durable=False``: the caller fsyncs :attr:`games` later — the game's journal
        does, with its start line). ``when`` defaults to now (UTC). Raises StateDirError while a
        game is unfinished (finish or abandon it first) or when the folder cannot be created.
        ``closing``: ids of games being closed (their last lines, record and marker on their
        way to the disk, ``pi.board.session.GameSession.close_behind``): not in the way; if the
        daemon stops before their marker, the next start finishes them
        (``pi.board.session.refresh_game_files``)."""
        dirs = self.game_dirs()
        pending = self._unfinished(dirs, frozenset(closing))
        current = pending[-1] if pending else None
        if current is not None:
            raise StateDirError(f"{current.path}: game {current.id} is unfinished; resume it or "
                                "mark it finished before a new game")
        stamp = when if when is not None else datetime.now(timezone.utc)
        seq = (dirs[-1].seq if dirs else 0) + 1
        for attempt in range(100):
            game_id = make_game_id(stamp, seq + attempt, board)
            path = self.games / game_id
            try:
                os.mkdir(path, 0o755)
            except FileExistsError:
                continue  # a folder of that name appeared meanwhile (clock set back): next seq
            except OSError as exc:
                raise StateDirError(f"{path}: cannot create the game folder: "
                                    f"{exc.strerror or exc}") from None
            if durable:
                fsync_dir(self.games)
            return GameDir(game_id, path)
        raise StateDirError(f"{self.games}: cannot find a free game id")

    def remove_unbegun(self, game: GameDir) -> None:
        """Removes the folder of a game whose journal could not be created (with whatever part
        of the journal reached the disk), so that it never blocks the next game as an
        unfinished one. A folder that cannot be removed is logged and left."""
        try:
            game.trace.unlink(missing_ok=True)
            game.path.rmdir()
        except OSError as exc:
            log.error("%s: cannot remove the folder of a game that could not begin: %s",
                      game.path, exc)
            return
        try:
            fsync_dir(self.games)
        except OSError as exc:  # the disk failing: a power cut now may bring the folder back
            log.error("%s: the folder of a game that could not begin is removed, not yet "
                      "durably: %s", game.path, exc)
