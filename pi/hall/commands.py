"""The hub's commands to the boards (PROTOCOL.md "Commands"): an arbiter's action sent to a
board and answered once the board's journal line recording it is in the replica, and the
pairings sent to the boards and kept until each acknowledges its own. Loop thread only."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from aiohttp import web

from engine.i18n import N_
from pi.board.arbiter_request import ArbiterRequest, check_arbiter_request
from pi.hall import protocol as P
from pi.hall.registry import BoardRegistry
from pi.hall.replica import Replica
from pi.web.httputil import http
from pi.web.server import decisions_json

log = logging.getLogger(__name__)

__all__ = ["Commands", "ACK_TIMEOUT", "LINE_WAIT"]

#: An arbiter action without the board's ack is answered 504 after this many seconds.
ACK_TIMEOUT = 10.0
#: An acked action's answer waits this many seconds for its journal line to reach the replica
#: (then it answers 504, not confirmed: the line is checked when it comes).
LINE_WAIT = 2.0


class Commands:
    """``publish(topic, payload)``: to the broker; ``alarm(board, kind, what, subject)``: the
    hall's alarm (an ack that is not the board's)."""

    def __init__(self, topics: P.Topics, boards: BoardRegistry, replica: Replica,
                 publish: Callable[[str, bytes], None],
                 alarm: Callable[[int | None, str, str, str], Mapping[str, Any]]) -> None:
        self.topics = topics
        self.boards = boards
        self.replica = replica
        self.publish = publish
        self.alarm = alarm
        #: command id → the answer awaited (an arbiter's action)
        self.acks: dict[str, asyncio.Future[P.Ack]] = {}
        #: board → (command id, pairing) sent and not yet acked (push_pairing)
        self.pairing_out: dict[int, tuple[str, dict[str, str]]] = {}
        #: board → why it refused its last pairing (until it takes one)
        self.pairing_refused: dict[int, str] = {}

    async def act(self, board: int, action: dict[str, Any]) -> web.Response:
        """An arbiter action sent to ``board`` as a command, answered once the board's journal
        line recording it is in the replica (PROTOCOL.md "Acknowledgements": an ack is a
        signed journal line or nothing). The action names its game (the console's ``game``,
        else the game the hub shows for the board): a command kept for an offline board is
        refused by it if its game is over. Raises 409 (refused by the board), 504 (no ack, or
        its line has not come: not confirmed, checked when it comes), 502 (the line the ack
        names journals something else: an alarm)."""
        view = self.boards.views.get(board)
        if "game" not in action and view is not None and view.game is not None:
            action = {**action, "game": view.game.id}
        try:
            request = check_arbiter_request(action)
        except ValueError as exc:
            raise http(400, str(exc)) from None
        cmd_id = uuid.uuid4().hex
        future: asyncio.Future[P.Ack] = asyncio.get_running_loop().create_future()
        self.acks[cmd_id] = future
        self.publish(self.topics.board(board, "cmd"), P.action_payload(cmd_id, action))
        try:
            ack = await asyncio.wait_for(future, timeout=ACK_TIMEOUT)
        except asyncio.TimeoutError:
            self.acks.pop(cmd_id, None)
            raise http(504, f"board {board} did not answer in {ACK_TIMEOUT:g} s; the command "
                            "stays queued for it") from None
        if not ack.ok:
            raise http(409, ack.error or "the board refused the action")
        game_id = action.get("game")
        if not isinstance(game_id, str) or ack.line is None:
            raise http(504, f"board {board} answered without a journal line: the action is "
                            "not confirmed")
        # the journal line itself is published before the ack: the replica resolves the wait
        # once it holds the line (often at once), verified when the board signs
        held = self.replica.held_future(board, game_id, ack.line)
        try:
            await asyncio.wait_for(asyncio.shield(held), timeout=LINE_WAIT)
        except asyncio.TimeoutError:
            held.add_done_callback(lambda f: f.cancelled() or self._acked_line(
                board, game_id, ack.line or 0, cmd_id, request))
            raise http(504, f"board {board} acknowledged the action as line {ack.line} of "
                            f"game {game_id}, but that line of its journal has not come: not "
                            "confirmed (it is checked when it comes)") from None
        record = self._acked_line(board, game_id, ack.line, cmd_id, request)
        if record is None:
            raise http(502, f"line {ack.line} of board {board}'s journal is not this action: "
                            "the acknowledgement was not the board's (alarm raised); not done")
        decisions: list[dict[str, Any]] = []
        s = view.game if view is not None else None
        if s is not None and s.id == game_id:
            decisions = next((decisions_json(f) for f in self.boards.recent[board]
                              if f.line == ack.line), [])
        return web.json_response({"line": ack.line, "record": record, "decisions": decisions,
                                  "board": str(board), "command": cmd_id})

    def _acked_line(self, board: int, game_id: str, line: int, cmd_id: str,
                    request: ArbiterRequest) -> dict[str, Any] | None:
        """The record of line ``line`` of game ``game_id`` (held) when it journals ``request``, the
        command ``cmd_id`` an ack said it did; else None and an alarm (``ack``): the ack was
        not the board's — its broker password in someone else's hands."""
        g = self.replica.game(board, game_id)
        record: Any = None
        if g is not None and g.held >= line:
            try:
                record = json.loads(g.lines[line - 1])
            except ValueError:
                record = None
        if isinstance(record, dict) and request.matches(record):
            return record
        self.alarm(board, "ack", N_("an acknowledgement of command {command} named line {line} "
                                    "of game {game}, which journals something else: not the "
                                    "board's; the action was not done").format(
                                        command=cmd_id[:12], line=line, game=game_id), game_id)
        return None

    def acked(self, board: int, ack: P.Ack) -> None:
        """Board ``board``'s ``ack``: of its pairing (kept until it takes one), or of an
        action awaited."""
        out = self.pairing_out.get(board)
        if out is not None and out[0] == ack.id:
            del self.pairing_out[board]
            if not ack.ok:
                log.warning("board %s refused its pairing: %s", board, ack.error)
                self.pairing_refused[board] = (ack.error or "no reason given")[:200]
            else:
                self.pairing_refused.pop(board, None)
        future = self.acks.pop(ack.id, None)
        if future is not None and not future.done():
            future.set_result(ack)

    def push_pairing(self, board: int, pairing: dict[str, str], *, send: bool = True) -> str:
        """Sends ``pairing`` to ``board`` and keeps it until the board acks it: a board that
        was never connected has no session at the broker to queue it in, so an unanswered
        pairing is sent again (same id: the board does it once) whenever the board's status
        says it is online. ``send`` False: only kept (the hub's start, from pairings.csv)."""
        cmd_id = uuid.uuid4().hex
        self.pairing_out[board] = (cmd_id, dict(pairing))
        if send:
            self.publish(self.topics.board(board, "cmd"), P.pairing_payload(cmd_id, pairing))
        return cmd_id

    def repush_pairing(self, board: int) -> None:
        """Board ``board`` came online: its pairing not answered yet sent again."""
        out = self.pairing_out.get(board)
        if out is not None:
            log.info("board %s online: its pairing sent again (not answered yet)", board)
            self.publish(self.topics.board(board, "cmd"), P.pairing_payload(out[0], out[1]))
