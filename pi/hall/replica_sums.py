"""A check of every line of a replica, kept beside it (issue 38, item 6): a line the disk turned
into another well-formed journal line is found at the hub's next start.

``trace.sums`` beside ``trace.jsonl``: one record per line of the replica, in order, each the
first 32 lowercase hex digits of the SHA-256 of the line's bytes (without its newline) and a
newline — 33 bytes, so record *n* is at ``(n - 1) * 33`` and is written there (``os.pwrite``)
when the line is, whatever came before (through a descriptor the replica keeps open with the
replica's own). What the board signs is checked when a line arrives
(``pi.hall.signing``); this checks that the disk still holds what was taken.

At start (:func:`first_mismatch`) a record that differs from its line's sum marks the line
damaged. A record that is not 32 hex digits and a newline (a file cut short or holed by a crash
before its sync, or none at all: a replica of a hub before this file) ends what is known: the
lines from there are taken as they are and their sums written (:func:`rewrite`), as before this
file. So an older replica loads as it did, and a crash never makes a sound line look damaged.

Lines taken out of a replica at start — the first damaged one and those after it, which the
board is asked for again — are kept first in ``damaged.jsonl`` beside it (:func:`keep_cut`):
``{"line", "text", "cut", "damaged"}`` (its number, its text as read, the unix time it was
taken out, whether it is the damaged line itself), so nothing the replica held is lost.

Functions only, on the caller's thread; OSError is the caller's to handle.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from pathlib import Path

__all__ = ["SUMS_FILE", "DAMAGED_FILE", "RECORD", "sums_of", "open_sums", "write_fd", "cut",
           "rewrite", "first_mismatch", "keep_cut"]

#: Beside a game's ``trace.jsonl``: the sum of each of its lines.
SUMS_FILE = "trace.sums"
#: Beside a game's ``trace.jsonl``: the lines taken out at start from the first damaged one.
DAMAGED_FILE = "damaged.jsonl"
#: Bytes per record: 32 hex digits and a newline.
RECORD = 33
_HEX = re.compile(rb"[0-9a-f]{32}\n")


def sums_of(raws: list[bytes]) -> bytes:
    """The records of lines ``raws`` (each without its newline)."""
    return b"".join(hashlib.sha256(r).hexdigest()[:32].encode("ascii") + b"\n" for r in raws)


def _path(trace: Path) -> Path:
    return trace.parent / SUMS_FILE


def open_sums(trace: Path) -> int:
    """A descriptor to write ``trace``'s records with (:func:`write_fd`). Raises OSError."""
    return os.open(_path(trace), os.O_WRONLY | os.O_CREAT, 0o644)


def write_fd(fd: int, first: int, data: bytes) -> None:
    """Records of the whole lines ``data`` (as appended to the replica) written from line
    ``first + 1`` on, through ``fd`` (:func:`open_sums`). Raises OSError."""
    os.pwrite(fd, sums_of(data.split(b"\n")[:-1]), first * RECORD)


def cut(trace: Path, lines: int) -> None:
    """The records of ``trace``'s first ``lines`` lines kept, the rest cut off (the replica was
    cut back). No file: nothing to cut. Raises OSError."""
    try:
        os.truncate(_path(trace), lines * RECORD)
    except FileNotFoundError:
        pass


def rewrite(trace: Path, raws: list[bytes], known: int) -> None:
    """The records of lines ``raws`` (the replica's, all of them) made whole: the first
    ``known`` kept as they are, the others written, nothing after them (nothing done when the
    file is so already). Raises OSError."""
    path = _path(trace)
    if known == len(raws):
        try:
            if path.stat().st_size == known * RECORD:
                return
        except FileNotFoundError:
            if not raws:
                return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.pwrite(fd, sums_of(raws[known:]), known * RECORD)
        os.ftruncate(fd, len(raws) * RECORD)
        os.fsync(fd)
    finally:
        os.close(fd)


def first_mismatch(trace: Path, raws: list[bytes]) -> tuple[int | None, int]:
    """(index of the first line of ``raws`` whose record differs from its sum, or None; how many
    records are known, i.e. stand whole and in order before the first that is not a record).
    Raises OSError (a missing file is none known)."""
    try:
        data = _path(trace).read_bytes()
    except FileNotFoundError:
        return None, 0
    ours = sums_of(raws)
    for i in range(min(len(raws), len(data) // RECORD)):
        record = data[i * RECORD:(i + 1) * RECORD]
        if _HEX.fullmatch(record) is None:
            return None, i
        if record != ours[i * RECORD:(i + 1) * RECORD]:
            return i, i
    return None, min(len(raws), len(data) // RECORD)


def keep_cut(trace: Path, raws: list[bytes], first: int) -> None:
    """Lines ``first + 1``… of ``raws`` (``trace``'s, about to be cut off from its damaged line
    ``first + 1``) added to :data:`DAMAGED_FILE` and fsynced. Raises OSError."""
    now = time.time()
    data = "".join(json.dumps({"line": n, "text": raw.decode("utf-8", errors="replace"),
                               "cut": now, "damaged": n == first + 1},
                              ensure_ascii=False) + "\n"
                   for n, raw in enumerate(raws[first:], start=first + 1)).encode("utf-8")
    fd = os.open(trace.parent / DAMAGED_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
