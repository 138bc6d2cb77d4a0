"""The arbiter's token of a state directory several processes start on at once (a hub and
``damiera token`` as it starts): every one of them ends up with the one token on disk, never a second
of its own; an empty file left there is replaced, mode 0600."""

from __future__ import annotations

import stat
import threading
from pathlib import Path

from pi.web.auth import TOKEN_FILE, load_or_create_token


def _together(root: Path, n: int) -> list[str]:
    """``load_or_create_token(root)`` by ``n`` threads released at once."""
    barrier = threading.Barrier(n)
    got: list[str] = []

    def start() -> None:
        barrier.wait()
        got.append(load_or_create_token(root))
    threads = [threading.Thread(target=start) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return got


def test_processes_starting_together_hold_one_token(tmp_path: Path) -> None:
    for attempt in range(20):
        root = tmp_path / str(attempt)
        root.mkdir()
        got = _together(root, 8)
        on_disk = (root / TOKEN_FILE).read_text(encoding="ascii").strip()
        assert len(got) == 8 and set(got) == {on_disk}
        assert [p.name for p in root.iterdir()] == [TOKEN_FILE]  # no temporary file left


def test_an_empty_token_file_is_replaced_private(tmp_path: Path) -> None:
    path = tmp_path / TOKEN_FILE
    path.write_text("")
    path.chmod(0o644)
    token = load_or_create_token(tmp_path)
    assert token and path.read_text(encoding="ascii").strip() == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_token(tmp_path) == token
