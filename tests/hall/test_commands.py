"""The hub's commands (``pi.hall.commands``, issue 39), on their own: no hub, no broker — the
registry, a replica and a list for what is published. A pairing is kept until the board acks
it, sent again when the board comes online, its refusal kept; an action is answered by the
board's ack and its journal line (the whole path with a hub: ``test_hub_act.py``)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

import pi.hall.commands as commands_mod
from pi.hall import protocol as P
from pi.hall.commands import Commands
from pi.hall.registry import BoardRegistry
from pi.hall.replica import Replica

BOARD = 7
PAIRING = {"round": "1", "board": str(BOARD), "white": "Ann", "black": "Bob"}


def _commands(root: Path) -> tuple[Commands, list[tuple[str, bytes]], list[tuple[str, ...]]]:
    sent: list[tuple[str, bytes]] = []
    alarms: list[tuple[str, ...]] = []

    def alarm(board: int, kind: str, what: str, subject: str) -> dict[str, Any]:
        alarms.append((board, kind, subject))
        return {}

    async def no_act(board: int, command: dict[str, Any]) -> web.Response:
        raise AssertionError("the registry's act is not the commands' path here")
    boards = BoardRegistry(delay_minutes=0.0, act=no_act, broadcast=lambda view, feed: None)
    commands = Commands(P.Topics("t"), boards, Replica(root),
                        lambda topic, payload: sent.append((topic, payload)), alarm)
    return commands, sent, alarms


def _cmd(sent: list[tuple[str, bytes]]) -> dict[str, Any]:
    topic, payload = sent[-1]
    assert topic == P.Topics("t").board(BOARD, "cmd")
    got = json.loads(payload)
    assert isinstance(got, dict)
    return got


def test_a_pairing_is_kept_until_acked_and_sent_again_with_its_id(tmp_path: Path) -> None:
    commands, sent, _ = _commands(tmp_path)
    cmd_id = commands.push_pairing(BOARD, PAIRING)
    assert _cmd(sent)["id"] == cmd_id and _cmd(sent)["pairing"]["white"] == "Ann"
    commands.repush_pairing(BOARD)  # the board came online: the same command, the same id
    assert len(sent) == 2 and _cmd(sent)["id"] == cmd_id
    commands.acked(BOARD, P.Ack("another id", True))
    assert BOARD in commands.pairing_out  # not this pairing's ack
    commands.acked(BOARD, P.Ack(cmd_id, True))
    assert commands.pairing_out == {}
    commands.repush_pairing(BOARD)
    assert len(sent) == 2  # nothing left to send


def test_a_refused_pairing_is_kept_with_its_reason_until_one_is_taken(tmp_path: Path) -> None:
    commands, sent, _ = _commands(tmp_path)
    first = commands.push_pairing(BOARD, PAIRING)
    commands.acked(BOARD, P.Ack(first, False, error="a game is in play"))
    assert commands.pairing_refused == {BOARD: "a game is in play"}
    second = commands.push_pairing(BOARD, PAIRING, send=False)  # kept, not sent
    assert len(sent) == 1 and commands.pairing_out[BOARD][0] == second
    commands.acked(BOARD, P.Ack(second, True))
    assert commands.pairing_refused == {}


def test_an_action_refused_by_the_board_is_a_409(tmp_path: Path) -> None:
    commands, sent, _ = _commands(tmp_path)

    async def run() -> web.HTTPException:
        task = asyncio.ensure_future(commands.act(BOARD, {"action": "note", "text": "x",
                                                          "game": "g1"}))
        while not sent:
            await asyncio.sleep(0)
        command = _cmd(sent)
        assert command["action"] == {"action": "note", "text": "x", "game": "g1"}
        commands.acked(BOARD, P.Ack(command["id"], False, error="the game is over"))
        with pytest.raises(web.HTTPException) as refused:
            await task
        return refused.value
    refused = asyncio.run(run())
    assert refused.status == 409 and "the game is over" in (refused.text or "")
    assert commands.acks == {}


def test_an_action_never_acked_is_a_504_and_forgotten(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(commands_mod, "ACK_TIMEOUT", 0.05)
    commands, sent, alarms = _commands(tmp_path)

    async def run() -> web.HTTPException:
        with pytest.raises(web.HTTPException) as late:
            await commands.act(BOARD, {"action": "note", "text": "x", "game": "g1"})
        return late.value
    late = asyncio.run(run())
    assert late.status == 504 and "did not answer" in (late.text or "")
    assert commands.acks == {} and len(sent) == 1 and alarms == []


def test_a_bad_action_is_a_400_and_sends_nothing(tmp_path: Path) -> None:
    commands, sent, _ = _commands(tmp_path)
    with pytest.raises(web.HTTPException) as bad:
        asyncio.run(commands.act(BOARD, {"action": "no such action"}))
    assert bad.value.status == 400 and sent == []
