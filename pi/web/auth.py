"""The arbiter's token: created at first start in ``STATE/arbiter.token`` (mode 0600), checked in
constant time; failed attempts logged and slowed down (per client address).
Who is the arbiter for a request (the token checked, the login cookie) is
``pi.web.site.ArbiterAuth``'s.
"""

from __future__ import annotations

import hmac
import logging
import os
import secrets
import time
from pathlib import Path

log = logging.getLogger(__name__)

__all__ = ["TOKEN_FILE", "load_or_create_token", "read_token", "same", "Throttle"]

TOKEN_FILE = "arbiter.token"


def load_or_create_token(root: Path) -> str:
    """The token of the state directory ``root``, created (random, 0600) when missing."""
    path = Path(root) / TOKEN_FILE
    try:
        text = path.read_text(encoding="ascii").strip()
        if text:
            return text
    except FileNotFoundError:
        pass
    token = secrets.token_urlsafe(24)
    # written whole under another name, then linked in place: two processes starting on one
    # state directory (the hub and `damiera token` run as it starts) never hold two tokens —
    # the second finds the first's
    tmp = path.with_name(f".{TOKEN_FILE}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(fd, (token + "\n").encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(tmp, path)
    except FileExistsError:
        existing = path.read_text(encoding="ascii").strip()
        if existing:
            return existing
        os.replace(tmp, path)  # an existing empty file: replaced
    finally:
        tmp.unlink(missing_ok=True)
    os.chmod(path, 0o600)
    log.info("arbiter token created in %s", path)
    return token


def read_token(root: Path) -> str | None:
    """The token, or None when the daemon never created one."""
    try:
        return (Path(root) / TOKEN_FILE).read_text(encoding="ascii").strip() or None
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def same(given: str, token: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("ascii"))


class Throttle:
    """Wrong tokens from one address: after ``free`` failures each further one waits
    ``base * 2**(n - free)`` seconds (capped at ``cap``) before its 401; a success resets."""

    def __init__(self, free: int = 3, base: float = 0.25, cap: float = 5.0) -> None:
        self.free, self.base, self.cap = free, base, cap
        self._fails: dict[str, tuple[int, float]] = {}

    def delay(self, who: str) -> float:
        n, _ = self._fails.get(who, (0, 0.0))
        return 0.0 if n < self.free else min(self.cap, self.base * 2 ** (n - self.free))

    def failed(self, who: str) -> None:
        n, _ = self._fails.get(who, (0, 0.0))
        if len(self._fails) > 10_000:  # bounded memory: forget the oldest addresses
            for key in sorted(self._fails, key=lambda k: self._fails[k][1])[:5_000]:
                del self._fails[key]
        self._fails[who] = (n + 1, time.monotonic())

    def succeeded(self, who: str) -> None:
        self._fails.pop(who, None)

