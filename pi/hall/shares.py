"""A hall's hub as several processes (``damiera hub --share K/N``, ``damiera hub front``).

A **share** is one ``damiera hub`` process owning the boards whose number modulo N is K
(:func:`share_of`; a board named otherwise than by a number: the CRC-32 of its name). It
subscribes only to its boards' topics, one subscription per board and leaf (never the hall's
wildcard), under its own MQTT client id (:func:`share_client_id`; with ``hub init --shares N``
its own broker user ``hub-share-K``), keeps its boards' replicas (a state directory shared by
every share holds each board's once: replicas are per board) and its own files — the pairings
and the round started last of its boards — in ``DIR/shares/K/``. Everything else is the hub's,
unchanged: N = 1 is plain ``damiera hub``.

The **front** (``pi.hall.front``) is the hall's one address: the hall page, the console, the round
feeds and the results over every share, and each board's pages forwarded to the share owning it.
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass

__all__ = ["Share", "share_of", "share_client_id", "parse_share", "MAX_SHARES", "SHARES_DIR"]

#: Shares of one hall at most.
MAX_SHARES = 64
#: A share's own files (pairings of its boards, its round) under the state directory.
SHARES_DIR = "shares"
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
