"""An arbiter action through the hub waits for its acked journal line on a future the replica
resolves when it holds that line (issue 19: no polling), whichever comes first, the line or the
ack; a line that never comes ends the wait after ``LINE_WAIT`` unconfirmed, and a line that is
not the action is an alarm (issue 38: an ack is the board's journal line or nothing); a batch's
line counts once its write succeeded. No broker: the hub in-process, messages delivered as the
MQTT link would."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from aiohttp import web

import pi.hall.commands as hubmod
from pi.hall import protocol as P
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from pi.hall.replica import Replica
from tests.hall.hub_rig import SAMPLE, trace_lines

HALL = "t"
BOARD = 7
GAME = "2026-11-22T0900-b07-001"
#: The journal line of the note "checked" (the board's line for the action the tests send).
NOTE = json.dumps({"t": 241.5, "type": "arbiter", "action": "note", "text": "checked"})


def _hub(root: Path) -> tuple[Hub, list[tuple[str, bytes]], list[str]]:
    hub = Hub(HubConfig(hall=HALL, state_dir=root, accept_unsigned=frozenset({BOARD})), root)
    sent: list[tuple[str, bytes]] = []
    hub.publish = lambda topic, payload: sent.append((topic, payload))
    lines = trace_lines(SAMPLE, game=GAME, board=BOARD)
    return hub, sent, lines


def _journal(hub: Hub, number: int, text: str) -> tuple[str, bytes]:
    return hub.topics.board(BOARD, "journal"), P.journal_payload(GAME, number, text)


def _ack(hub: Hub, cmd_id: str, line: int) -> tuple[str, bytes]:
    return hub.topics.board(BOARD, "ack"), P.ack_payload(P.Ack(cmd_id, True, line=line))


async def _command_id(sent: list[tuple[str, bytes]]) -> str:
    while not any(t.endswith("/cmd") for t, _ in sent):
        await asyncio.sleep(0)
    return str(json.loads([p for t, p in sent if t.endswith("/cmd")][-1])["id"])


def _body(response: web.StreamResponse) -> dict[str, object]:
    assert isinstance(response, web.Response) and isinstance(response.body, bytes)
    got = json.loads(response.body)
    assert isinstance(got, dict)
    return got


@pytest.mark.parametrize("line_first", [False, True], ids=["ack-first", "line-first"])
def test_the_answer_carries_the_acked_line_as_soon_as_the_replica_holds_it(
        tmp_path: Path, line_first: bool) -> None:
    hub, sent, lines = _hub(tmp_path)
    held = len(lines)
    action_text = NOTE  # the board's next line is the action's own

    async def run() -> dict[str, object]:
        hub.deliver([_journal(hub, n, t) for n, t in enumerate(lines[:held], start=1)])
        task = asyncio.ensure_future(hub.act(BOARD, {"action": "note", "text": "checked"}))
        cmd = await _command_id(sent)
        assert json.loads(sent[-1][1])["action"]["game"] == GAME  # the action names its game
        if line_first:
            hub.deliver([_journal(hub, held + 1, action_text)])
            hub.deliver([_ack(hub, cmd, held + 1)])
        else:
            hub.deliver([_ack(hub, cmd, held + 1)])
            for _ in range(5):  # the answer waits: the replica does not hold the line yet
                await asyncio.sleep(0)
            assert not task.done()
            hub.deliver([_journal(hub, held + 1, action_text)])
        for _ in range(20):  # a few turns of the loop, no timer: resolved by the append
            if task.done():
                break
            await asyncio.sleep(0)
        assert task.done(), "the answer waited for a timer (a poll), not for the line"
        return _body(task.result())

    got = asyncio.run(run())
    hub.close()
    assert got["line"] == held + 1
    assert got["record"] == json.loads(action_text)
    assert got["board"] == str(BOARD)


def test_a_line_that_never_comes_is_not_confirmed_and_is_checked_when_it_comes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 38: an ack is the board's journal line or nothing — an ack whose line has not come
    after ``LINE_WAIT`` is a 504 (not confirmed), never "journaled"; when the line comes and
    journals something else (a stranger with the board's broker password took the command and
    answered "done"), that is an alarm."""
    monkeypatch.setattr(hubmod, "LINE_WAIT", 0.2)
    hub, sent, lines = _hub(tmp_path)

    async def run() -> web.HTTPException:
        hub.deliver([_journal(hub, n, t) for n, t in enumerate(lines[:5], start=1)])
        task = asyncio.ensure_future(hub.act(BOARD, {"action": "adjudicate", "result": "1-0"}))
        hub.deliver([_ack(hub, await _command_id(sent), 6)])
        with pytest.raises(web.HTTPException) as refused:
            await task
        assert [a["kind"] for a in hub.alarm_log.items] == []  # not known forged yet
        hub.deliver([_journal(hub, 6, lines[5])])  # the board's own line 6: a move
        await asyncio.sleep(0)
        return refused.value

    refused = asyncio.run(run())
    hub.close()
    assert refused.status == 504 and "not confirmed" in (refused.text or "")
    assert [(a["kind"], a["board"], a["subject"]) for a in hub.alarm_log.items] == \
        [("ack", str(BOARD), GAME)]


def test_an_ack_naming_a_line_that_journals_something_else_is_an_alarm(tmp_path: Path) -> None:
    """Issue 38: an ack naming a line the replica holds (verified) that is not the action is
    refused at once (502, not done) and raises an alarm; the right line confirms (no alarm)."""
    hub, sent, lines = _hub(tmp_path)

    async def run() -> tuple[web.HTTPException, dict[str, object]]:
        hub.deliver([_journal(hub, n, t) for n, t in enumerate(lines[:5], start=1)])
        task = asyncio.ensure_future(hub.act(BOARD, {"action": "note", "text": "checked"}))
        hub.deliver([_ack(hub, await _command_id(sent), 5)])
        with pytest.raises(web.HTTPException) as refused:
            await task
        sent.clear()
        task = asyncio.ensure_future(hub.act(BOARD, {"action": "note", "text": "checked"}))
        hub.deliver([_journal(hub, 6, NOTE), _ack(hub, await _command_id(sent), 6)])
        return refused.value, _body(await task)

    refused, confirmed = asyncio.run(run())
    hub.close()
    assert refused.status == 502 and "not the board's" in (refused.text or "")
    assert confirmed["line"] == 6 and confirmed["record"] == json.loads(NOTE)
    assert [a["kind"] for a in hub.alarm_log.items] == ["ack"]


def test_the_replica_resolves_a_wait_once_the_line_is_written(tmp_path: Path) -> None:
    replica = Replica(tmp_path)
    lines = trace_lines(SAMPLE, game=GAME, board=BOARD)

    async def run() -> None:
        assert replica.offer(BOARD, GAME, 1, lines[0]).kind == "appended"
        now = replica.held_future(BOARD, GAME, 1)
        assert now.done()  # held already
        later = replica.held_future(BOARD, GAME, 3)
        given_up = replica.held_future(BOARD, GAME, 3)
        given_up.cancel()
        replica.offer(BOARD, GAME, 3, lines[2])  # ahead of a gap: not held
        assert not later.done()
        replica.defer()
        replica.offer(BOARD, GAME, 2, lines[1])  # fills the gap: 2 and 3 held, not written
        assert replica.held(BOARD, GAME) == 3 and not later.done()
        assert not replica.held_future(BOARD, GAME, 3).done()  # written at the flush
        assert replica.flush() == []
        assert later.done() and not later.cancelled()

    asyncio.run(run())
    replica.close()
