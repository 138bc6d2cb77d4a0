"""A hall's hub as several processes (``damiera hub --share K/N``, ``damiera hub front``).

A **share** is one ``damiera hub`` process owning the boards whose number modulo N is K
(:func:`share_of`; a board named otherwise than by a number: the CRC-32 of its name). It
subscribes only to its boards' topics, one subscription per board and leaf (never the hall's
wildcard), under its own MQTT client id (:func:`share_client_id`; with ``hub init --shares N``
its own broker user ``hub-share-K``), keeps its boards' replicas (a state directory shared by
every share holds each board's once: replicas are per board) and its own files — the pairings
and the round started last of its boards — in ``DIR/shares/K/``. Everything else is the hub's,
unchanged: N = 1 is plain ``damiera hub``. A share claims its place first
(:func:`claim_share`): one process per share, one number of shares per state directory.

The **front** (``pi.hall.front``) is the hall's one address: the hall page, the console, the round
feeds and the results over every share, and each board's pages forwarded to the share owning it.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path

from pi.hall.errors import ShareClaimError

__all__ = ["Share", "share_of", "share_client_id", "parse_share", "claim_share", "MAX_SHARES",
           "SHARES_DIR", "LAYOUT_FILE"]

#: Shares of one hall at most.
MAX_SHARES = 64
#: A share's own files (pairings of its boards, its round) under the state directory.
SHARES_DIR = "shares"
#: ``DIR/shares/layout.json``: the number of shares the state directory is run with.
LAYOUT_FILE = "layout.json"
_SHARE = re.compile(r"([0-9]{1,2})/([0-9]{1,2})")


def share_of(board: str, count: int) -> int:
    """The share (0 … ``count`` − 1) owning ``board``: its number modulo ``count``; a board
    named otherwise than by a number, the CRC-32 of its name modulo ``count``. Stable: the same
    on every machine and in every process of the hall."""
    key = int(board) if board.isdigit() else zlib.crc32(board.encode("utf-8"))
    return key % count


def share_client_id(hall: str, index: int) -> str:
    """The fixed MQTT client id of share ``index`` (a persistent session of its own, beside the
    single hub's ``damiera-<hall>-hub``)."""
    return f"damiera-{hall}-hub-share-{index}"


@dataclass(frozen=True, slots=True)
class Share:
    """Share ``index`` of ``count`` (``0 <= index < count``)."""

    index: int
    count: int

    def owns(self, board: str) -> bool:
        return share_of(board, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_share(text: str) -> Share:
    """``K/N`` (share K of N, K from 0). Raises ValueError (one line)."""
    m = _SHARE.fullmatch(text.strip())
    if m is None:
        raise ValueError(f"expected K/N (share K of N, K from 0), got {text[:40]!r}")
    index, count = int(m.group(1)), int(m.group(2))
    if not 2 <= count <= MAX_SHARES:
        raise ValueError(f"N: {count} shares is out of range 2..{MAX_SHARES} (one process: "
                         "no --share)")
    if not index < count:
        raise ValueError(f"K: share {index} of {count} (K runs from 0 to {count - 1})")
    return Share(index, count)


def _lock(path: Path) -> int | None:
    """An exclusive lock on ``path`` (created), its descriptor; None when another process
    holds it. The lock goes with the process (a share killed -9 frees it)."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def claim_share(root: Path, share: Share) -> int:
    """Share ``share`` of state directory ``root`` taken by this process: a lock on
    ``root/shares/K/lock`` (a second process of the same share is refused), and the number of
    shares kept in ``root/shares/layout.json`` (a share of another number is refused while
    a share of the one running holds its lock: the two would take the same boards). Returns
    the lock's descriptor (held until the process ends or closes it). Raises
    ShareClaimError."""
    base = Path(root) / SHARES_DIR
    (base / str(share.index)).mkdir(parents=True, exist_ok=True)
    fd = _lock(base / str(share.index) / "lock")
    if fd is None:
        raise ShareClaimError(f"share {share} is already running on {root} (another process "
                              "holds its lock)")
    # one share at a time reads and writes the layout (a short wait at most)
    guard = os.open(base / "layout.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(guard, fcntl.LOCK_EX)
    try:
        layout = base / LAYOUT_FILE
        try:
            count = json.loads(layout.read_text(encoding="utf-8")).get("shares")
        except (OSError, ValueError, AttributeError):
            count = None
        if isinstance(count, int) and count != share.count:
            for k in range(count):
                other = base / str(k) / "lock"
                if k == share.index or not other.exists():
                    continue  # its own lock is this process's
                held = _lock(other)
                if held is None:
                    os.close(fd)
                    raise ShareClaimError(
                        f"{root} is run as {count} shares (share {k} of {count} is running): "
                        f"share {share} would take some of the same boards; stop them first")
                os.close(held)
        tmp = layout.with_suffix(f".{os.getpid()}")
        tmp.write_text(json.dumps({"shares": share.count}) + "\n", encoding="utf-8")
        os.replace(tmp, layout)
    finally:
        os.close(guard)
    return fd
