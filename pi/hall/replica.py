"""The hub's replica of every board's journals (``pi/hall/PROTOCOL.md``, "Catch-up"):
``ROOT/boards/<N>/games/<id>/trace.jsonl``, line for line the board's own.

:meth:`Replica.offer` takes one ``journal`` message: line *n* is appended only when the replica
holds exactly *n − 1* lines; a line already held is dropped (a duplicate from QoS 1 or a resend;
a different text is logged as a conflict and the first copy kept); a line ahead is kept in
memory (at most :data:`MAX_AHEAD` per game) until the gap is filled, then appended with the
lines it was waiting for. Every accepted line is reported once, in order, to the caller.
With ``check`` (the hub's signature check of a board with a key) a line is appended only when
``check(line, text, mac)`` says it verifies, in order: the first that does not is dropped
(reported as ``refused``) and nothing after it is appended, so the replica never holds a line
it could not verify.

Durability: lines are written (``os.write`` of whole lines, on the caller's thread: cheap) but
fsynced in batches by :meth:`Replica.sync` (the hub runs it off the event loop every half
second). The board's journal is the truth: what a hub crash loses between syncs, the hub's
next start finds missing and asks to be resent. At start :meth:`Replica.load` reads every
replica back and cuts a torn last line (a hub killed mid-write), cuts it back before a line the
disk damaged — not a journal line, or not the line the replica took (each line's sum is kept
beside it, ``pi.hall.replica_sums``; the lines cut are kept in its ``damaged.jsonl`` and listed
in :attr:`Replica.damaged`) — and repairs one that two hubs wrote at once (every line twice:
:func:`undouble`; one hub per state directory now, its lock).

:meth:`Replica.held_future` is what waits for a line (the hub's arbiter actions wait for the
line the board acked): a future resolved by the replica once it holds that line (written: a
batch's lines when their write succeeded).

Not thread-safe except :meth:`Replica.sync`, which works on duplicated descriptors.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import resource
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping

from pi.hall import replica_sums as sums
from pi.hall.protocol import parse_board
from pi.board.statedir import atomic_write, fsync_dir, parse_game_id
from engine.frozen import quick_init

log = logging.getLogger(__name__)

__all__ = ["Replica", "GameReplica", "Offered", "Check", "MAX_AHEAD", "MAX_OPEN", "MAX_CLOSING",
           "game_order", "undouble", "SUPERSEDED_FILE", "first_unreadable"]

#: ``check(line, text, mac)``: the line verifies as the next of its game (``pi.hall.hub``).
Check = Callable[[int, str, "str | None"], bool]

#: Lines ahead of a gap kept in memory per game; more are dropped (a resend brings them back).
MAX_AHEAD = 4096
#: Open append descriptors kept at most (a tournament's games outnumber the fd limit), and
#: never more than a quarter of the process's limit on open files (its soft ``RLIMIT_NOFILE``:
#: 256 of the usual 1,024): a hall whose boards outnumber them opens and closes a file per
#: write.
MAX_OPEN = 2048
#: Descriptors closed by the replica and waiting for the next sync (``hub.SYNC_EVERY``) at most.
MAX_CLOSING = 1024
#: Beside a game's replica: the lines it held that the board's journal no longer has (a board
#: that lost lines after publishing them and wrote those numbers again, issue 38), JSON lines
#: ``{"line", "text", "superseded"}`` (HUB_API.md).
SUPERSEDED_FILE = "superseded.jsonl"


def first_unreadable(data: bytes) -> tuple[int, int] | None:
    """The first line of ``data`` (whole lines of a replica) that cannot be a journal line —
    not UTF-8, not one JSON object — as (its number, the offset it begins at), or None. The
    replica is cut there at start, and the board's heads make the hub ask for the rest again:
    a line the disk damaged in the middle was kept before, never asked for (the hub held the
    lines after it)."""
    offset = 0
    for number, raw in enumerate(data.split(b"\n")[:-1], start=1):
        try:
            ok = raw.startswith(b"{") and isinstance(json.loads(raw.decode("utf-8")), dict)
        except ValueError:  # UnicodeDecodeError and JSONDecodeError alike
            ok = False
        if not ok:
            return number, offset
        offset += len(raw) + 1
    return None


def game_order(game_id: str) -> tuple[str, int, str]:
    """Sort key of a board's games, oldest first (the id's UTC stamp, then its sequence)."""
    parsed = parse_game_id(game_id)
    return ("", 0, game_id) if parsed is None else (parsed.stamp, parsed.seq, game_id)


@quick_init
@dataclass(frozen=True, slots=True)
class Offered:
    """What :meth:`Replica.offer` did: ``kind`` is ``appended`` (``lines``: every line appended,
    in order, the offered one and the buffered ones it released), ``ahead`` (kept for later),
    ``duplicate``, ``conflict`` (a held line with another text: first kept), ``dropped`` (ahead
    and the buffer full), ``failed`` (the disk refused the write; nothing appended) or
    ``refused`` (nothing appended: line ``refused`` did not verify). ``appended`` may also
    have ``refused``: the lines before it were appended, it and those after it were not."""

    kind: str
    lines: tuple[tuple[int, str], ...] = ()
    refused: int | None = None


class GameReplica:
    """One game's replica: its lines (texts without newline), the lines ahead of a gap.

    A game the hub no longer follows is **parked** (:meth:`Replica.park`): its lines are not
    held in memory, only their count; :attr:`lines` reads them back from its file each time
    (the hub's memory does not grow with the games played)."""

    __slots__ = ("board", "id", "path", "ahead", "size", "fresh", "_lines", "_count")

    def __init__(self, board: int, id: str, path: Path, lines: list[str] | None = None,
                 *, size: int = 0, fresh: bool = False) -> None:
        self.board = board
        self.id = id
        self.path = path
        #: line number → (text, mac) received ahead of a gap
        self.ahead: dict[int, tuple[str, str | None]] = {}
        self.size = size
        self.fresh = fresh  # its folder is new: fsync the directories at the next sync
        self._lines: list[str] | None = [] if lines is None else lines
        self._count = len(self._lines)

    @property
    def lines(self) -> list[str]:
        """The lines held: in memory, or read back from the file (parked: a fresh list each
        time, the file's whole lines up to the count held)."""
        if self._lines is not None:
            return self._lines
        return self.read_back()

    @lines.setter
    def lines(self, lines: list[str]) -> None:
        self._lines = lines
        self._count = len(lines)

    def read_back(self) -> list[str]:
        try:
            data = self.path.read_bytes()[:self.size]
        except OSError as exc:
            log.error("replica %s cannot be read back (%s)", self.path, exc.strerror or exc)
            return []
        return data.decode("utf-8", errors="replace").split("\n")[:self._count]

    @property
    def parked(self) -> bool:
        return self._lines is None

    def extend(self, texts: list[str]) -> None:
        if self._lines is None:
            self._lines = self.read_back()
        self._lines.extend(texts)
        self._count = len(self._lines)

    def park(self) -> None:
        self._lines = None

    @property
    def held(self) -> int:
        return self._count

    @property
    def wanted(self) -> int | None:
        """The highest line number known to exist (ahead of the gap), or None."""
        return max(self.ahead) if self.ahead else None


class Replica:
    """Every board's games under ``root`` (``root/boards/<N>/games/<id>/trace.jsonl``)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.boards: dict[int, dict[str, GameReplica]] = {}
        self._fds: OrderedDict[GameReplica, int] = OrderedDict()
        #: per game whose file is open: the descriptor of its sums (``replica_sums``), closed
        #: with it (so twice :attr:`max_open` descriptors at most, half the process's limit)
        self._sums_fds: dict[GameReplica, int] = {}
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        #: open append descriptors kept at most (MAX_OPEN, within the limit on open files)
        quarter = None if soft == resource.RLIM_INFINITY else max(1, soft // 4)
        self.max_open = MAX_OPEN if quarter is None else min(MAX_OPEN, quarter)
        #: descriptors waiting for a sync at most (MAX_CLOSING, within the same quarter)
        self.max_closing = MAX_CLOSING if quarter is None else min(MAX_CLOSING, quarter)
        self._dirty: set[GameReplica] = set()
        #: per game, lines appended and not written yet (defer): (file size and lines held
        #: before them, their bytes); None: lines are written as they come
        self._deferred: dict[GameReplica, tuple[int, int, list[bytes]]] | None = None
        #: descriptors no longer kept open (a parked game, the least recently written past
        #: MAX_OPEN) with the folders of a new game: fsynced and closed by the next sync, off
        #: the loop (an fsync on a busy disk takes 100 ms and more)
        self._closing: list[tuple[int, list[Path]]] = []
        #: per (board, game): (line, future) waiting for the replica to hold that line
        self._waiting: dict[tuple[int, str], list[tuple[int, asyncio.Future[None]]]] = {}
        #: why the disk refuses the replicas' writes (None: it takes them); said once
        self.failing: str | None = None
        #: told when the disk first refuses a write (why) and when it takes one again (None)
        self.disk_listeners: list[Callable[[str | None], None]] = []
        #: the replicas :meth:`load` found damaged: (board, game, first damaged line, why)
        self.damaged: list[tuple[int, str, int, str]] = []

    # ------------------------------------------------------------------ reading back

    def load(self) -> int:
        """Reads every replica under ``root`` back (a torn last line is cut off, on disk too).
        Returns the number of games. A file that cannot be read is logged and skipped; so is a
        folder under ``boards/`` not named by a board's number (nothing is deleted)."""
        base = self.root / "boards"
        count = 0
        if not base.is_dir():
            return 0
        numbered = []
        for board_dir in base.iterdir():
            board = parse_board(board_dir.name)
            if board is None:
                log.warning("replica %s: not a board's number in canonical decimal: skipped "
                            "(left as it is)", board_dir)
            else:
                numbered.append((board, board_dir))
        for board, board_dir in sorted(numbered):
            if not (board_dir / "games").is_dir():
                continue
            for game_dir in sorted((board_dir / "games").iterdir()):
                if parse_game_id(game_dir.name) is None:
                    continue
                trace = game_dir / "trace.jsonl"
                try:
                    g = self._read_back(board, game_dir.name, trace)
                except OSError as exc:
                    log.error("replica %s cannot be read (%s): skipped", trace,
                              exc.strerror or exc)
                    continue
                self.boards.setdefault(g.board, {})[g.id] = g
                count += 1
        return count

    def _read_back(self, board: int, game_id: str, trace: Path) -> GameReplica:
        g = GameReplica(board, game_id, trace)
        try:
            data = trace.read_bytes()
        except FileNotFoundError:
            return g
        end = data.rfind(b"\n") + 1
        if end < len(data):
            log.warning("replica %s: torn last line (%d bytes) cut off", trace, len(data) - end)
            with open(trace, "r+b") as f:
                f.truncate(end)
                os.fsync(f.fileno())
            data = data[:end]
        raws = data[:end].split(b"\n")[:-1]
        bad = first_unreadable(data[:end])
        try:
            changed, known = sums.first_mismatch(trace, raws)
        except OSError as exc:
            log.error("replica %s: its sums cannot be read (%s): not checked", trace,
                      exc.strerror or exc)
            changed, known = None, 0
        if bad is not None and (changed is None or bad[0] - 1 <= changed):
            first, why = bad[0] - 1, "not a journal line"
        elif changed is not None:
            first, why = changed, "not the line the hub took"
        else:
            first = None
        if first is not None:
            # cut there: the board's heads make the hub ask from that line; what is cut is
            # kept first (nothing the replica held is lost)
            sums.keep_cut(trace, raws, first)
            log.warning("replica %s: line %d is %s (a damaged disk?): cut back to %d line(s), "
                        "the rest kept in %s and asked for again", trace, first + 1, why, first,
                        sums.DAMAGED_FILE)
            end = sum(len(r) + 1 for r in raws[:first])
            with open(trace, "r+b") as f:
                f.truncate(end)
                os.fsync(f.fileno())
            raws, known = raws[:first], min(known, first)
            self.damaged.append((board, game_id, first + 1, why))
        if end:  # two hubs wrote it at once (issue 38)
            undoubled = _undoubled(trace, data[:end])
            if len(undoubled) != end:
                raws, known = undoubled.split(b"\n")[:-1], 0
            data, end = undoubled, len(undoubled)
        try:
            sums.rewrite(trace, raws, known)
        except OSError as exc:
            log.error("replica %s: its sums not written (%s): its lines are not checked at the "
                      "next start", trace, exc.strerror or exc)
        g.lines = data[:end].decode("utf-8", errors="replace").split("\n")[:-1] if end else []
        g.size = end
        return g

    # ------------------------------------------------------------------ queries

    def game(self, board: int, game_id: str) -> GameReplica | None:
        return self.boards.get(board, {}).get(game_id)

    def games(self, board: int) -> list[GameReplica]:
        """The board's games held, oldest first."""
        return sorted(self.boards.get(board, {}).values(), key=lambda g: game_order(g.id))

    def held(self, board: int, game_id: str) -> int:
        g = self.game(board, game_id)
        return 0 if g is None else g.held

    def missing(self, board: int, known: Mapping[str, int]) -> int:
        """Lines of ``board`` known to exist (``known``: game id → its board's count) and not
        held here (the hall's every summary asks: one lookup of the board, not one per game)."""
        games = self.boards.get(board, {})
        out = 0
        for game_id, n in known.items():
            g = games.get(game_id)
            h = 0 if g is None else g.held
            if n > h:
                out += n - h
        return out

    @property
    def open_files(self) -> int:
        """Append descriptors held open now (at most :attr:`max_open`)."""
        return len(self._fds)

    def __iter__(self) -> Iterator[GameReplica]:
        for games in self.boards.values():
            yield from games.values()

    def held_future(self, board: int, game_id: str, line: int) -> asyncio.Future[None]:
        """A future of the running loop resolved once game ``game_id`` of ``board`` holds line
        ``line`` (already resolved when it does): appended and written, a batch's lines once
        their write succeeded. The caller cancels it to stop waiting (a timeout)."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.held(board, game_id) >= line and not self._is_deferred(board, game_id):
            future.set_result(None)
            return future
        waiting = self._waiting.setdefault((board, game_id), [])
        waiting[:] = [w for w in waiting if not w[1].done()]  # those given up on
        waiting.append((line, future))
        return future

    def _is_deferred(self, board: int, game_id: str) -> bool:
        g = self.game(board, game_id)
        return g is not None and self._deferred is not None and g in self._deferred

    def _release(self, g: GameReplica) -> None:
        """The futures waiting for lines ``g`` now holds, resolved."""
        key = (g.board, g.id)
        waiting = self._waiting.get(key)
        if not waiting:
            return
        held, left = g.held, []
        for line, future in waiting:
            if future.done():
                continue
            if line <= held:
                future.set_result(None)
            else:
                left.append((line, future))
        if left:
            self._waiting[key] = left
        else:
            del self._waiting[key]

    # ------------------------------------------------------------------ offering lines

    def offer(self, board: int, game_id: str, line: int, text: str, mac: str | None = None,
              check: Check | None = None) -> Offered:
        """One ``journal`` message (see the module docstring)."""
        g = self.boards.get(board, {}).get(game_id)
        if g is None:
            if check is not None and line > 1:
                # a game not held, from a board that signs: nothing can verify this line yet,
                # and a stranger's invented games must cost nothing (the resend brings it)
                return Offered("dropped")
            path = self.root / "boards" / str(board) / "games" / game_id / "trace.jsonl"
            g = GameReplica(board, game_id, path, fresh=True)
            if check is not None and not check(line, text, mac):
                return Offered("refused", refused=line)  # an invented game is not kept
            self.boards.setdefault(board, {})[game_id] = g
            check = None  # line 1 verified
        if line <= g.held:
            if g.lines[line - 1] != text:
                log.warning("board %s game %s line %d: conflicting copy received "
                            "(replica keeps its first): %.80s", board, game_id, line, text)
                return Offered("conflict")
            return Offered("duplicate")
        if line > g.held + 1:
            if line in g.ahead:
                if g.ahead[line][0] != text:
                    log.warning("board %s game %s line %d: conflicting copy received ahead "
                                "(first kept)", board, game_id, line)
                    return Offered("conflict")
                return Offered("duplicate")
            if len(g.ahead) >= MAX_AHEAD:
                return Offered("dropped")
            g.ahead[line] = (text, mac)
            return Offered("ahead")
        run = [(line, text, mac)]
        n = line + 1
        while n in g.ahead:
            run.append((n, *g.ahead.pop(n)))
            n += 1
        refused = None
        if check is not None:
            for i, (number, t, m) in enumerate(run):
                if not check(number, t, m):
                    refused = number
                    for later in run[i + 1:]:  # verified once the refused line comes again
                        g.ahead[later[0]] = (later[1], later[2])
                    run = run[:i]
                    break
            if not run:
                return Offered("refused", refused=refused)
        if not self._append(g, [t for _, t, _ in run]):
            for number, t, m in run[1:]:
                g.ahead[number] = (t, m)
            return Offered("failed")
        return Offered("appended", tuple((n, t) for n, t, _ in run), refused)

    def _append(self, g: GameReplica, texts: list[str]) -> bool:
        data = "".join(t + "\n" for t in texts).encode("utf-8")
        if self._deferred is not None:  # written at flush(), one write per game
            pending = self._deferred.get(g)
            if pending is None:
                pending = self._deferred[g] = (g.size, g.held, [])
            pending[2].append(data)
            g.size += len(data)
            g.extend(texts)
            return True
        if not self._write(g, data, g.size, g.held):
            return False
        g.size += len(data)
        g.extend(texts)
        self._release(g)
        return True

    def _write(self, g: GameReplica, data: bytes, size: int, held: int) -> bool:
        """``data`` appended to ``g``'s file (``size`` bytes long and ``held`` lines before it)
        and its lines' sums beside it; on failure the file is cut back to ``size`` (no partial
        line left behind) and False returned."""
        try:
            fd = self._fd(g)
            written = 0
            while written < len(data):
                written += os.write(fd, data[written:])
        except OSError as exc:
            try:
                os.truncate(g.path, size)
            except OSError:
                pass
            self._disk(f"{exc.strerror or exc}", g.path)
            return False
        self._dirty.add(g)
        if self.failing is not None:
            self._disk(None, g.path)
        try:
            sums_fd = self._sums_fds.get(g)
            if sums_fd is None:
                sums_fd = self._sums_fds[g] = sums.open_sums(g.path)
            sums.write_fd(sums_fd, held, data)
        except OSError as exc:  # the lines are kept; the next start sums them as they stand
            log.warning("replica %s: sums of lines %d… not written (%s)", g.path, held + 1,
                        exc.strerror or exc)
        return True

    def _disk(self, why: str | None, path: Path) -> None:
        """A write refused (``why``) or taken again (None): logged and told once per change,
        not once per line (a full disk wrote an error for every line received)."""
        if why == self.failing:
            return
        if why is not None and self.failing is not None:  # another reason: still failing
            self.failing = why
            return
        self.failing = why
        if why is not None:
            log.error("replica %s: cannot append (%s); the lines are asked for again once the "
                      "disk takes them (quiet until then)", path, why)
        else:
            log.warning("replica %s: the disk takes the lines again", path)
        for listener in self.disk_listeners:
            try:
                listener(why)
            except Exception:
                log.exception("disk listener failed")

    def defer(self) -> None:
        """From now until :meth:`flush`, appended lines are held and written then: one write
        per game however many lines a batch brings. They count as held meanwhile."""
        if self._deferred is None:
            self._deferred = {}

    def flush(self) -> list[GameReplica]:
        """The lines held since :meth:`defer` written, one write per game. Returns the games
        whose write the disk refused: their lines since :meth:`defer` are taken back (not
        held; the board is to be asked for them again)."""
        deferred, self._deferred = self._deferred or {}, None
        failed = []
        for g, pending in deferred.items():
            if not self._flush_one(g, pending):
                failed.append(g)
        return failed

    def _flush_one(self, g: GameReplica, pending: tuple[int, int, list[bytes]]) -> bool:
        size, held, chunks = pending
        if self._write(g, b"".join(chunks), size, held):
            self._release(g)
            return True
        g.size = size
        g.lines = g.lines[:held]
        return False

    def supersede(self, g: GameReplica, line: int) -> list[str] | None:
        """Lines ``line``… of game ``g`` taken out of its replica: the board's journal went on
        without them (it lost them after publishing them, issue 38). Each is added first to
        the game's :data:`SUPERSEDED_FILE` (``{"line", "text", "superseded"}``: its number,
        its text, the time it was taken out; fsynced), then the replica's file is cut back to
        ``line - 1`` lines; the lines ahead of the gap are dropped (the resend brings the
        board's). Returns the lines taken out, or None when they could not be kept (logged;
        nothing changed)."""
        if self._deferred is not None and g in self._deferred:
            if not self._flush_one(g, self._deferred.pop(g)):
                return None
        lines = g.lines
        gone = lines[line - 1:]
        try:
            data = g.path.read_bytes()[:g.size]
            cut = 0
            for _ in range(line - 1):
                cut = data.index(b"\n", cut) + 1
            now = time.time()
            record = "".join(json.dumps({"line": n, "text": t, "superseded": now},
                                        ensure_ascii=False) + "\n"
                             for n, t in enumerate(gone, start=line)).encode("utf-8")
            fd = os.open(g.path.parent / SUPERSEDED_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                         0o644)
            try:
                os.write(fd, record)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.truncate(g.path, cut)
        except (OSError, ValueError) as exc:
            log.error("replica %s: lines from %d not superseded (%s); kept as they are", g.path,
                      line, getattr(exc, "strerror", None) or exc)
            return None
        try:
            sums.cut(g.path, line - 1)
        except OSError as exc:  # the next start finds them differ: kept, asked again
            log.warning("replica %s: sums from line %d not cut (%s)", g.path, line,
                        exc.strerror or exc)
        g.lines = lines[:line - 1]
        g.size = cut
        g.ahead.clear()
        if g in self._fds:
            self._dirty.add(g)
        return gone

    def park(self, g: GameReplica) -> None:
        """Game ``g`` is no longer followed: its lines leave memory (read back on demand) and
        its file is closed (by the next sync, after its fsync, when written since the last).
        A game with lines ahead of a gap stays as it is (they are completed from memory)."""
        if g.ahead:
            return
        if self._deferred is not None and g in self._deferred:
            self._flush_one(g, self._deferred.pop(g))
        fd = self._fds.pop(g, None)
        if fd is not None:
            self._hand_over(g, fd)
        elif g.fresh:  # made and never written (rare): its folders synced here
            for d in self._dirs(g):
                fsync_dir(d)
            g.fresh = False
        g.park()

    def _dirs(self, g: GameReplica) -> list[Path]:
        """The folders a new game's file made (fsynced once, with it)."""
        return [g.path.parent, g.path.parent.parent, g.path.parent.parent.parent,
                self.root / "boards"]

    def _hand_over(self, g: GameReplica, fd: int) -> None:
        """``g``'s descriptor leaves the open set: closed at once when nothing of it waits for a
        sync, else fsynced and closed by the next sync (:meth:`take_dirty`). Past
        :attr:`max_closing` descriptors waiting so, the oldest is synced here (bounded)."""
        sums_fd = self._sums_fds.pop(g, None)
        if sums_fd is not None:
            os.close(sums_fd)
        dirs = self._dirs(g) if g.fresh else []
        g.fresh = False
        if g not in self._dirty and not dirs:
            os.close(fd)
            return
        self._dirty.discard(g)
        self._closing.append((fd, dirs))
        if len(self._closing) > self.max_closing:
            sync_taken([self._closing.pop(0)])

    def _fd(self, g: GameReplica) -> int:
        fd = self._fds.get(g)
        if fd is not None:
            self._fds.move_to_end(g)
            return fd
        if g.fresh:
            g.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(g.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        self._fds[g] = fd
        while len(self._fds) > self.max_open:
            old, old_fd = self._fds.popitem(last=False)
            self._hand_over(old, old_fd)  # synced before it is closed, off the loop
        return fd

    # ------------------------------------------------------------------ durability

    def take_dirty(self) -> list[tuple[int, list[Path]]]:
        """On the owner's thread: duplicated descriptors of every game written since the last
        sync, with the folders to fsync for new games; pass them to :func:`sync_taken` (any
        thread)."""
        out, self._closing = self._closing, []
        for g in self._dirty:
            fd = self._fds.get(g)
            if fd is None:
                continue
            dirs = []
            if g.fresh:
                dirs = self._dirs(g)
                g.fresh = False
            out.append((os.dup(fd), dirs))
        self._dirty.clear()
        return out

    def sync(self) -> None:
        """Everything written so far made durable (on the caller's thread)."""
        sync_taken(self.take_dirty())

    def close(self) -> None:
        self.sync()
        for fd in [*self._fds.values(), *self._sums_fds.values()]:
            os.close(fd)
        self._fds.clear()
        self._sums_fds.clear()


def _undoubled(trace: Path, data: bytes) -> bytes:
    """A replica's whole lines ``data`` with every doubled line removed, the file rewritten so
    (atomically; logged): two hubs on one state directory (before the lock, ``hub_run``) each
    appended every line they took, so the file is two copies of the board's journal
    interleaved, the second begun where that hub found the file (:func:`undouble`)."""
    raws = data.split(b"\n")[:-1]
    if len(set(raws)) == len(raws) or not _doubled(raws):
        return data
    kept = undouble(raws)
    out = b"".join(r + b"\n" for r in kept)
    try:
        atomic_write(trace, out)
    except OSError as exc:
        log.error("replica %s: doubled lines found, the file not rewritten (%s); read without "
                  "them", trace, exc.strerror or exc)
    else:
        log.warning("replica %s: %d doubled line(s) removed (two hubs wrote it at once): %d "
                    "line(s) kept, each once, in order", trace, len(raws) - len(kept), len(kept))
    return out


def _doubled(raws: list[bytes]) -> bool:
    """Whether lines with repeats are two copies interleaved rather than a journal: a second
    start line, time going back, or a line twice in a row. A board's own journal repeats a
    line only as a ``restart`` without a clock (``"down": null``: the same ``t``) after
    another, never time backwards (``pi.board.journal``)."""
    last_t = -math.inf
    for number, raw in enumerate(raws):
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError):
            obj = None
        if not isinstance(obj, dict):
            continue
        if number and (obj.get("type") == "start" or
                       (raw == raws[number - 1] and obj.get("type") != "restart")):
            return True
        t = obj.get("t")
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            if t < last_t:
                return True
            last_t = t
    return False


def undouble(raws: list[bytes]) -> list[bytes]:
    """The journal that copies interleaved in ``raws`` were writing, each line once, in order
    (deduplicated by line number and content). Each copy writes the journal's lines in order:
    a line is its copy's next when it equals the line kept at that copy's number; a line equal
    to a kept one that no copy expects begins a copy there (a hub that found the file that
    long); any other line is the journal's next, written by the copy furthest on."""
    out: list[bytes] = []
    at: list[int] = []  # per copy: how many lines of ``out`` it has written
    seen: dict[bytes, int] = {}  # line → its last number in ``out`` (0-based)
    for raw in raws:
        copy = next((k for k, n in enumerate(at) if n < len(out) and out[n] == raw), None)
        if copy is not None:
            at[copy] += 1
            continue
        if raw in seen:
            at.append(seen[raw] + 1)
            continue
        seen[raw] = len(out)
        out.append(raw)
        if at:
            at[max(range(len(at)), key=at.__getitem__)] = len(out)
        else:
            at.append(len(out))
    return out


def sync_taken(taken: list[tuple[int, list[Path]]]) -> None:
    """fsyncs and closes the descriptors of :meth:`Replica.take_dirty` (a worker thread's job)."""
    for fd, dirs in taken:
        try:
            os.fsync(fd)
            for d in dirs:
                fsync_dir(d)
        except OSError as exc:
            log.error("replica sync failed (%s): a hub crash now may lose lines the boards "
                      "will resend", exc.strerror or exc)
        finally:
            os.close(fd)
