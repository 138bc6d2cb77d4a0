"""The state directory (pi/board/statedir.py): game ids, the finished marker and the one unfinished
game, the lock, where the directory is, atomic rewrites that keep the old file on failure."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from pi.board.errors import StateDirError
from pi.board.statedir import (GameId, StateDir, atomic_write, make_game_id,
                         parse_game_id, resolve_state_dir)

ROOT = Path(__file__).resolve().parents[2]


# -- state directory ---------------------------------------------------------------------------

def test_game_ids_round_trip_and_sort_by_sequence() -> None:
    when = datetime(2026, 11, 22, 5, 12, 40, tzinfo=timezone.utc)
    assert make_game_id(when, 1, 7) == "2026-11-22T0512-b07-001"
    assert make_game_id(when, 1234) == "2026-11-22T0512-1234"
    cet = when.astimezone(timezone(timedelta(hours=1)))
    assert make_game_id(cet, 2, 7) == "2026-11-22T0512-b07-002"
    assert parse_game_id("2026-11-22T0512-b07-001") == GameId("2026-11-22T0512", 7, 1)
    assert str(parse_game_id("2026-11-22T0512-1234")) == "2026-11-22T0512-1234"
    for bad in ("lock", "2026-11-22T0512", "2026-11-22T0512-b07-01", "../x-001"):
        assert parse_game_id(bad) is None
    with pytest.raises(ValueError):
        make_game_id(when, 0)


def test_new_games_unfinished_and_finished(tmp_path: Path) -> None:
    with StateDir.open(tmp_path / "state") as sd:
        assert sd.unfinished() is None
        g1 = sd.new_game(datetime(2026, 11, 22, 5, 12, tzinfo=timezone.utc), board=7)
        assert g1.id == "2026-11-22T0512-b07-001" and g1.path.is_dir()
        assert sd.unfinished() == g1
        with pytest.raises(StateDirError, match="unfinished"):
            sd.new_game()
        g1.mark_finished("1-0")
        assert g1.finished_info() == {"result": "1-0"}
        # The wall clock went back (a Pi without RTC): the sequence still orders the games.
        g2 = sd.new_game(datetime(1970, 1, 1, tzinfo=timezone.utc), board=7)
        assert g2.id == "1970-01-01T0000-b07-002"
        g2.mark_finished(None, abandoned="journal damaged")
        g3 = sd.new_game(board=7)
        assert g3.seq == 3
        assert sd.game_ids() == [g1.id, g2.id, g3.id]
        assert sd.unfinished() == g3
        (sd.games / "README").write_text("not a game")
        assert len(sd.game_dirs()) == 3


def test_state_dir_lock_is_exclusive(tmp_path: Path) -> None:
    script = ("import sys\nfrom pi.board.statedir import StateDir\n"
              "from pi.board.errors import StateDirBusyError\n"
              "try:\n    StateDir.open(sys.argv[1])\nexcept StateDirBusyError as e:\n"
              "    print(e)\n")
    with StateDir.open(tmp_path):
        out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT,
                             capture_output=True, text=True, check=True, timeout=30).stdout
        assert "in use by another damiera process" in out
    with StateDir.open(tmp_path):  # released on close
        pass


def test_state_dir_that_cannot_be_created(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(StateDirError, match="cannot create"):
        StateDir.open(tmp_path / "file" / "state")


def test_resolve_state_dir_precedence() -> None:
    env = {"STATE_DIRECTORY": "/var/lib/damiera:/var/lib/other"}
    assert resolve_state_dir("/cli", "/cfg", env) == Path("/cli")
    assert resolve_state_dir(None, "/cfg", env) == Path("/cfg")
    assert resolve_state_dir(None, None, env) == Path("/var/lib/damiera")
    assert resolve_state_dir(None, None, {}) == Path(".state")


def test_atomic_write_replaces_whole_and_fsyncs(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    with StateDir.open(tmp_path, lock=False) as sd:
        g = sd.new_game()
    g.write_pdn("[Event \"a\"]\n")
    calls: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        calls.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", counting_fsync)
    g.write_report({"moves": [], "result": "*"})
    assert len(calls) == 2  # the temporary file, then the folder
    assert json.loads(g.report.read_text()) == {"moves": [], "result": "*"}
    assert sorted(p.name for p in g.path.iterdir()) == ["game.pdn", "report.json"]
    with pytest.raises(ValueError):
        g.write_report({"t": float("inf")})


def test_atomic_write_failure_keeps_the_old_file(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "game.pdn"
    atomic_write(target, "old\n")

    def enospc(fd: int, data: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", enospc)
    with pytest.raises(OSError) as info:
        atomic_write(target, "new\n")
    assert info.value.errno == errno.ENOSPC
    monkeypatch.undo()
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["game.pdn"]


def test_stale_temporaries_are_removed(tmp_path: Path) -> None:
    with StateDir.open(tmp_path, lock=False) as sd:
        g = sd.new_game()
    (g.path / ".game.pdn.123.0.tmp").write_text("half")
    g.write_pdn("x")
    assert [p.name for p in g.remove_stale_temporaries()] == [".game.pdn.123.0.tmp"]
    assert sorted(p.name for p in g.path.iterdir()) == ["game.pdn"]
