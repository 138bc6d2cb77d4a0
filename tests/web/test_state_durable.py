"""The arbiter's ``/api/state``, ``/game.pdn`` and the streams' ``state`` are built from durable
lines.

The journal writes behind (``pi.board.journal``): the arbiter decides on a line, and the screen
shows it, before the line is fsync'd. Nothing may leave the board before its line is durable
(SSE ids are line numbers), and that holds for ``/api/state`` too: with the journal's fsync held,
a move the arbiter already committed is not in the state, whose ``line`` is the last durable
line; once the fsync is let go, the move is there, with its line. (Before, the arbiter's
``/api/state`` read the live arbiter: it could run one fsync ahead of the streams, with an old
``line`` and the new move.)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest.mock import patch

from web_rig import SSE, Rig


@contextmanager
def held_journal_fsync() -> Iterator[threading.Event]:
    """Every fsync of a game's journal (``trace.jsonl``) waits until the event yielded is set
    (the other files' fsyncs go through)."""
    real = os.fsync
    gate = threading.Event()

    def held(fd: Any) -> None:
        try:
            journal = os.readlink(f"/proc/self/fd/{fd}").endswith("trace.jsonl")
        except (OSError, TypeError):
            journal = False
        if journal:
            gate.wait(20)
        real(fd)
    with patch.object(os, "fsync", held):
        try:
            yield gate
        finally:
            gate.set()


def _durable_lines(rig: Rig) -> int:
    game = next(Path(rig.root).rglob("trace.jsonl"))
    return len(game.read_bytes().splitlines())


def test_the_arbiters_state_holds_only_durable_lines(tmp_path: Path) -> None:
    with Rig(tmp_path) as rig:
        # the set-up's lines all durable and handed out (a snapshot still waiting for its fsync
        # when the hold begins would be held too, and counted here as one line ahead)
        before = rig.wait(lambda s: s["phase"] == "playing"
                          and s["line"] == _durable_lines(rig))
        stream = SSE(rig.port, {"Authorization": f"Bearer {rig.token}"})
        _, _, first = stream.until("state")
        with held_journal_fsync() as gate:
            rig.move("d3", "e4", "white")  # lift, place, press: the press commits the move
            controller = rig.controller
            # the arbiter has the move (the screen shows it) while no line of it is durable
            deadline = 200
            while not controller.session.arbiter.game.moves and deadline:
                threading.Event().wait(0.02)
                deadline -= 1
            assert controller.session.arbiter.game.moves, "the arbiter never committed d3-e4"
            held = rig.state_now(arbiter=True)
            assert held["moves"] == [] and held["line"] == before["line"], held
            public = rig.state_now(arbiter=False)
            assert public["moves"] == [] and public["line"] == before["line"], public
            # the arbiter's PDN download too: the record of the durable lines
            status, _, held_pdn = rig.request("GET", "/game.pdn", token=rig.token)
            assert status == 200 and b"[Result" in held_pdn, held_pdn
            gate.set()
            after = rig.wait(lambda s: len(s["moves"]) == 1)
        assert after["line"] > before["line"]
        assert [m["ply"] for m in after["moves"]] == [1]
        # the stream's state of the move's line is the /api/state of that line
        ident, _, state = stream.until("state", lambda d: len(d["moves"]) == 1)
        stream.close()
        assert first["line"] == before["line"]
        assert state["moves"] == after["moves"] and int(ident or 0) == state["line"]
        assert _durable_lines(rig) >= after["line"]
        status, _, pdn = rig.request("GET", "/game.pdn", token=rig.token)
        move = f"1. {after['moves'][0]['notation']}".encode()
        assert status == 200 and move in pdn and move not in held_pdn, (held_pdn, pdn)
