"""A board's journal lines and ``status`` signed end to end, board to hub, whatever the broker
lets through (``pi/hall/PROTOCOL.md``, "Signed lines").

Each board has its own key (32 random bytes, 64 hex digits: ``[mqtt] key`` of its
``board-<n>.toml``; the hub holds every board's in ``hub.toml``'s ``[keys]``); it is written by
``damiera hub init`` and never crosses the network. A journal line's ``mac`` is

    HMAC-SHA256(key, "damiera-journal\\n<game>\\n<line>\\n<previous mac>\\n" + text)

in lowercase hex, ``<previous mac>`` being line *n − 1*'s (the empty string for line 1): a line
verifies only after the whole journal before it, so a copy that differs anywhere breaks the
chain from there on. A ``status``'s ``mac`` is the HMAC of ``"damiera-status\\n"`` and the
status object without its ``mac``, as canonical JSON (sorted keys, no spaces); an ``ack``'s the
same with ``"damiera-ack\\n"`` (the tag keeps one kind of message from passing for another).

Pure functions and one small cache (:class:`Chain`); no I/O. Constant-time comparisons.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections import OrderedDict
from typing import Any, Callable, Iterable

__all__ = ["KEY_HEX", "new_key", "parse_key", "line_mac", "status_mac", "ack_mac", "same_mac",
           "Chain"]

#: A key is 32 bytes, written as 64 hexadecimal digits.
KEY_HEX = 64
_HEX = re.compile(r"[0-9a-fA-F]{64}")
#: How many games' last tags a :class:`Chain` remembers (a board's newest games).
_GAMES = 64


def new_key() -> str:
    """A fresh random key, as written into the configuration files (64 hex digits)."""
    return secrets.token_hex(KEY_HEX // 2)


def parse_key(text: str) -> bytes:
    """The key of a configuration file. Raises ValueError (one line, without the value)."""
    if not isinstance(text, str) or _HEX.fullmatch(text.strip()) is None:
        raise ValueError(f"a key is {KEY_HEX} hexadecimal digits (damiera hub init writes one)")
    return bytes.fromhex(text.strip())


def line_mac(key: bytes, game_id: str, line: int, text: str, previous: str) -> str:
    """The ``mac`` of line ``line`` of ``game_id`` whose text is ``text`` (module docstring)."""
    head = f"damiera-journal\n{game_id}\n{line}\n{previous}\n".encode("utf-8")
    return hmac.new(key, head + text.encode("utf-8"), hashlib.sha256).hexdigest()


def status_mac(key: bytes, obj: dict[str, Any]) -> str:
    """The ``mac`` of a ``status`` object (its own ``mac`` key left out)."""
    return _object_mac(key, b"damiera-status\n", obj)


def ack_mac(key: bytes, obj: dict[str, Any]) -> str:
    """The ``mac`` of an ``ack`` object (its own ``mac`` key left out)."""
    return _object_mac(key, b"damiera-ack\n", obj)


def _object_mac(key: bytes, tag: bytes, obj: dict[str, Any]) -> str:
    body = {k: v for k, v in obj.items() if k != "mac"}
    data = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hmac.new(key, tag + data.encode("utf-8"), hashlib.sha256).hexdigest()


def same_mac(a: str | None, b: str) -> bool:
    """``a`` is ``b`` (constant time; None never is)."""
    return isinstance(a, str) and hmac.compare_digest(a.encode("ascii", "replace"),
                                                      b.encode("ascii"))


class Chain:
    """The macs of one board's games, line after line. ``texts(game, upto)`` gives lines
    1..``upto`` of a game (the board's journal on disk, the hub's replica) when the chain must
    be rebuilt: after a restart, for a resend, for an older game. Remembers the last mac of the
    newest :data:`_GAMES` games. Not thread-safe: one owner thread."""

    def __init__(self, key: bytes, texts: Callable[[str, int], Iterable[str]]) -> None:
        self.key = key
        self._texts = texts
        self._last: OrderedDict[str, tuple[int, str]] = OrderedDict()

    def previous(self, game_id: str, line: int) -> str:
        """The mac of line ``line - 1`` of ``game_id`` ("" for line 1), rebuilt if need be."""
        if line <= 1:
            return ""
        got = self._last.get(game_id)
        if got is not None and got[0] == line - 1:
            return got[1]
        mac, n = "", 0
        for n, text in enumerate(self._texts(game_id, line - 1), start=1):
            mac = line_mac(self.key, game_id, n, text, mac)
        if n != line - 1:
            raise LookupError(f"{game_id}: {n} line(s) held, line {line - 1} needed")
        return mac

    def sign(self, game_id: str, line: int, text: str) -> str:
        """The mac of ``text`` as line ``line`` of ``game_id``; remembered as its last."""
        return self.sign_after(game_id, line, text)[0]

    def sign_after(self, game_id: str, line: int, text: str) -> tuple[str, str]:
        """(mac, previous): :meth:`sign`'s mac and the mac of line ``line - 1`` it chains on
        (a ``journal`` message's ``prev``, PROTOCOL.md)."""
        previous = self.previous(game_id, line)
        mac = line_mac(self.key, game_id, line, text, previous)
        self.remember(game_id, line, mac)
        return mac, previous

    def verify(self, game_id: str, line: int, text: str, mac: str | None) -> bool:
        """``mac`` is the mac of ``text`` as line ``line`` of ``game_id`` after the lines held;
        remembered as its last when it is."""
        try:
            good = line_mac(self.key, game_id, line, text, self.previous(game_id, line))
        except LookupError:
            return False
        if not same_mac(mac, good):
            return False
        self.remember(game_id, line, good)
        return True

    def remember(self, game_id: str, line: int, mac: str) -> None:
        self._last[game_id] = (line, mac)
        self._last.move_to_end(game_id)
        while len(self._last) > _GAMES:
            self._last.popitem(last=False)

    def forget(self, game_id: str) -> None:
        self._last.pop(game_id, None)
