"""After a restart the hold is still there (issue 17): the real daemon (``damiera run --simulate
--http``, a subprocess) is stopped while Black's irregular move waits for White's decision and
started again on the same state directory; the public ``/api/state`` and ``/broadcast.pdn``
still hold the move back and the arbiter's private note, derived from the journal
(``pi.web.views.journal_snapshot``)."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from daemon_proc import Daemon


def wait(d: Daemon, predicate: Callable[[dict[str, Any]], bool], token: bool = True,
         timeout: float = 10.0) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        state: dict[str, Any] = d.get("/api/state", token=token)
        if predicate(state):
            return state
        assert time.monotonic() < end, state
        time.sleep(0.05)


def move(d: Daemon, src: str, dst: str, side: str) -> None:
    for kind, square in (("lift", src), ("place", dst)):
        d.post(f"/api/sim/{kind}", {"square": square})
        time.sleep(0.15)  # the sensors' debounce sees each change
    d.post("/api/sim/button", {"name": "clock", "side": side})


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_restart_mid_hold_keeps_the_move_held(tmp_path: Path, how: signal.Signals) -> None:
    """IT 8.1.2 (a man two rows straight ahead) pending when the daemon stops (an orderly
    stop, a kill -9): after the restart the public sees one move, the position before the held
    one, a broadcast PDN without it, a frozen clock; the arbiter sees both moves."""
    d = Daemon(tmp_path)
    try:
        # COMP 6.16: one private note, one the arbiter marks public
        d.post("/api/arbiter", {"action": "note", "text": "private: warned White"})
        d.post("/api/arbiter", {"action": "note", "text": "public: late start", "public": True})
        move(d, "d3", "c4", "white")  # 22-18
        wait(d, lambda s: len(s["moves"]) == 1 and s["clock"]["running"] == "black")
        move(d, "e6", "e4", "black")  # 11-19, irregular: held from the public
        wait(d, lambda s: any(f["status"] == "pending" for f in s["flags"]))
        before = d.get("/api/state")
        assert len(before["moves"]) == 1
        pdn_before = d.get("/broadcast.pdn").decode()
    finally:
        d.proc.send_signal(how)
        d.proc.wait(15)
        d.log.close()
    d = Daemon(tmp_path, port=d.port)
    try:
        arbiter = d.get("/api/state", token=True)
        assert len(arbiter["moves"]) == 2
        assert any(f["status"] == "pending" for f in arbiter["flags"])
        public = d.get("/api/state")
        assert [m["notation"] for m in public["moves"]] == ["22-18"]
        assert public["fen"] == before["fen"]
        assert public["clock"]["running"] is None
        assert public["clock"]["moves"]["black"] == 0
        notes = [f["text"] for f in public["flags"] if f["code"] == "COMP 6.16"]
        assert notes == ["public: late start"]
        assert "private" not in str(public)
        pdn = d.get("/broadcast.pdn").decode()
        assert pdn == pdn_before
        assert "22-18" in pdn and "11-19" not in pdn
    finally:
        d.stop()
