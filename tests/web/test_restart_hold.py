"""After a restart the hold is still there (issue 17): the real daemon (``damiera run --simulate
--http``, a subprocess) is stopped while Black's irregular move waits for White's decision and
started again on the same state directory; the public ``/api/state`` and ``/broadcast.pdn``
still hold the move back and the arbiter's private note, derived from the journal
(``pi.web.views.journal_snapshot``). Issue 38: also when the players' names hold a line or
paragraph separator (U+2028, U+0085) that ``str.splitlines()`` splits at."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from board_process import Daemon


def wait(d: Daemon, predicate: Callable[[dict[str, Any]], bool], token: bool = True,
         timeout: float = 30.0) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        state: dict[str, Any] = d.get("/api/state", token=token)
        if predicate(state):
            return state
        assert time.monotonic() < end, state
        time.sleep(0.02)


def move(d: Daemon, src: str, dst: str, side: str) -> None:
    """Lift, place (each reported by the sensors: ``Daemon.sim``), press the clock."""
    d.sim("lift", src)
    d.sim("place", dst)
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
        d.post("/api/arbiter", {"action": "start_clock"})  # a lone board's waits (COMP 4.4.2)
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


#: Names as a daemon before issue 38 journaled them (from the config or a hall's pairing):
#: U+2028 LINE SEPARATOR and U+0085 NEXT LINE, which ``str.splitlines()`` splits at.
SEPARATED = {"white": "Ann\u2028Lee", "black": "Bob\x85Ray"}


def test_names_with_line_separators_in_the_journal_keep_the_hold_after_a_restart(
        tmp_path: Path) -> None:
    """IT 8.1.2 pending, the start line naming players with U+2028 and U+0085 (a journal
    written before the names were checked where they enter): after a kill -9 and a restart
    the public state and broadcast PDN still hold the move back, and the arbiter's replay
    reads every line (a journal line ends at "\\n" alone, docs/trace-format.md)."""
    d = Daemon(tmp_path)
    try:
        d.post("/api/arbiter", {"action": "start_clock"})  # a lone board's waits (COMP 4.4.2)
        move(d, "d3", "c4", "white")  # 22-18
        wait(d, lambda s: len(s["moves"]) == 1 and s["clock"]["running"] == "black")
        move(d, "e6", "e4", "black")  # 11-19, irregular: held from the public
        wait(d, lambda s: any(f["status"] == "pending" for f in s["flags"]))
        fen = d.get("/api/state")["fen"]
    finally:
        d.proc.send_signal(signal.SIGKILL)
        d.proc.wait(15)
        d.log.close()
    trace = d.game_dir() / "trace.jsonl"
    first, rest = trace.read_bytes().split(b"\n", 1)
    start = {**json.loads(first), **SEPARATED}
    trace.write_bytes(json.dumps(start, ensure_ascii=False).encode() + b"\n" + rest)
    lines = trace.read_bytes().count(b"\n")
    d = Daemon(tmp_path, port=d.port)
    try:
        assert len(d.get("/api/state", token=True)["moves"]) == 2
        public = d.get("/api/state")
        assert [m["notation"] for m in public["moves"]] == ["22-18"]
        assert public["fen"] == fen and public["clock"]["running"] is None
        pdn = d.get("/broadcast.pdn").decode()
        assert "22-18" in pdn and "11-19" not in pdn
        states = d.get("/api/replay", token=True)["states"]  # 409 when a name split a line
        assert len(states) > lines and [s["line"] for s in states] == list(
            range(1, len(states) + 1))  # with the restart line the resume wrote
        assert {k: states[0]["record"][k] for k in SEPARATED} == SEPARATED
    finally:
        d.stop()
