"""The hall's live stream (HUB_API.md ``GET /events``): its clients pinged by the one pinger,
forgotten when they go away, and a slow page sent the newest state of every board (coalesced),
never dropped — no broker needed, the hub in-process on a free port."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from datetime import datetime, timezone
from pathlib import Path

from typing import Any

import aiohttp
import pytest

from pi.board.statedir import make_game_id
from pi.board.view import BoardView
from pi.hall import protocol as P
from pi.hall.hall_http import HallClient, HallServer
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from pi.web.views import clock_dict
from tests.hall.hub_rig import SAMPLE, trace_lines


def test_hall_clients_share_the_boards_writer_and_pinger(tmp_path: Path) -> None:
    async def scenario() -> None:
        hub = Hub(HubConfig(hall="t", state_dir=tmp_path), tmp_path)
        server = HallServer(hub, "127.0.0.1", 0)
        server.ping = 0.1  # the one pinger of the hall's clients
        hub.board(7)
        await server.start()
        try:
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{server.port}/events") as resp:
                    assert resp.headers["Content-Type"] == "text/event-stream"
                    got = b""
                    while b'"board":"7"' not in got or b": ping" not in got:
                        got += await asyncio.wait_for(resp.content.readany(), 5.0)
                    assert got.startswith(b"retry: 2000\n\n")
                    [client] = server.hall_clients
                    assert not client.arbiter
                    hub.board(8)
                    server.publish_board(8)
                    while b'"board":"8"' not in got:
                        got += await asyncio.wait_for(resp.content.readany(), 5.0)
            for _ in range(100):  # the client went away: forgotten
                if not server.hall_clients:
                    break
                await asyncio.sleep(0.02)
            assert not server.hall_clients
        finally:
            await server.stop()
            hub.close()

    asyncio.run(scenario())


def test_a_slow_page_ends_with_every_boards_current_state(tmp_path: Path) -> None:
    """A page that does not read while 300 boards change 120 times each (megabytes of
    summaries, far past any socket's buffer) is not dropped: when it reads again it is sent
    the newest summary of every board (the older ones coalesced away), so its last summary of
    each board is the board's current one."""
    boards = [str(n) for n in range(1, 301)]

    async def scenario() -> None:
        hub = Hub(HubConfig(hall="t", state_dir=tmp_path), tmp_path)
        server = HallServer(hub, "127.0.0.1", 0)
        for b in boards:
            hub.board(b)
        await server.start()
        try:
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", server.port))
            sock.setblocking(False)
            reader, writer = await asyncio.open_connection(sock=sock)
            writer.write(b"GET /events HTTP/1.0\r\nHost: x\r\n\r\n")
            await writer.drain()
            for _ in range(100):
                if server.hall_clients:
                    break
                await asyncio.sleep(0.02)
            for rnd in range(120):  # the page reads nothing meanwhile
                for b in boards:
                    view = hub.views[b]
                    view.online = not view.online
                    hub.known[b] = {"g": rnd}  # lines known and not held: "missing"
                    server.on_board(b, [])
                await asyncio.sleep(0.01)
            server.flush()
            want = {b: server.shown[(b, False)][2] for b in boards}
            seen: dict[str, dict[str, object]] = {}
            buf = b""
            while any(seen.get(b) != want[b] for b in boards):
                chunk = await asyncio.wait_for(reader.read(1 << 16), 10.0)
                assert chunk, "the hall dropped the slow page"
                buf += chunk
                *whole, buf = buf.split(b"\n\n")
                for message in whole:
                    if b"event: board\n" not in message:
                        continue  # the stream's ``hall`` event (HUB_API.md), after the catch-up
                    for line in message.split(b"\n"):
                        if line.startswith(b"data: "):
                            s = json.loads(line[6:])
                            seen[s["board"]] = s
            assert {b: seen[b]["missing"] for b in boards} == {b: 119 for b in boards}
            writer.close()
        finally:
            await server.stop()
            hub.close()

    asyncio.run(scenario())


def test_one_summary_per_board_per_batch_and_a_tick_of_quiet_boards_builds_none(
        tmp_path: Path) -> None:
    """A board's messages coming together make one summary (for the side with a page), not
    two per message; the once-a-second tick re-sums no board whose clock does not run and
    that did not change."""
    async def scenario() -> None:
        hub = Hub(HubConfig(hall="t", state_dir=tmp_path), tmp_path)
        server = HallServer(hub, "127.0.0.1", 0)
        for b in range(1, 101):
            hub.board(b)
        built: list[int] = []
        summary = hub.summary

        def counted(board: int, arbiter_view: bool) -> dict[str, object]:
            built.append(board)
            return summary(board, arbiter_view)
        hub.summary = counted  # type: ignore[method-assign]
        await server.start()
        try:
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{server.port}/events") as resp:
                    got = b""
                    while got.count(b"event: board") < 100:
                        got += await asyncio.wait_for(resp.content.readany(), 5.0)
                    built.clear()
                    for n in range(10):  # ten messages of board 7 in one batch
                        hub.known[7] = {"g": n + 1}
                        server.on_board(7, [])
                    while b'"missing":10' not in got:
                        got += await asyncio.wait_for(resp.content.readany(), 5.0)
                    assert built == [7]
                    built.clear()
                    server.tick()
                    assert built == []
        finally:
            await server.stop()
            hub.close()

    asyncio.run(scenario())


def test_a_tick_resums_a_board_only_when_its_clock_shown_is_no_longer_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tick's first reading of a running clock finds it as the board's summary (made at its
    last line) shows it: the board is not re-summed (its summary would be the same; before, every
    clock press re-summed the board at the next tick to send nothing). A clock that changed by
    time alone since (a flag fallen: no face running) is re-summed and sent."""
    async def scenario() -> None:
        hub = Hub(HubConfig(hall="t", state_dir=tmp_path, accept_unsigned=frozenset({7})),
                  tmp_path)
        server = HallServer(hub, "127.0.0.1", 0)
        page = HallClient(False)  # a public page
        server.hall_clients.add(page)
        game = make_game_id(datetime(2026, 11, 22, 9, tzinfo=timezone.utc), 1, 7)
        lines = trace_lines(SAMPLE, game=game, board="7")[:100]
        hub.deliver([(hub.topics.board(7, "journal"), P.journal_payload(game, i, text))
                     for i, text in enumerate(lines, start=1)])
        server.flush()
        page.take()
        fallen = [False]

        def reading(view: BoardView) -> dict[str, Any] | None:
            clock = clock_dict(view)
            if fallen[0] and clock is not None:
                clock = {**clock, "running": None, "state": "flagged"}
            return clock
        monkeypatch.setattr("pi.hall.hall_http.clock_dict", reading)
        monkeypatch.setattr("pi.hall.summaries.clock_dict", reading)
        built: list[int] = []
        summary = hub.summary

        def counted(board: int, arbiter_view: bool) -> dict[str, object]:
            built.append(board)
            return summary(board, arbiter_view)
        hub.summary = counted  # type: ignore[method-assign]
        server.tick()
        assert built == [] and page.take() == b""
        fallen[0] = True
        later = time.monotonic() + 24 * 3600.0  # past the running side's time
        monkeypatch.setattr("pi.hall.hall_http.time.monotonic", lambda: later)
        server.tick()
        assert built == [7]
        sent = page.take()
        assert b'"state":"flagged"' in sent and b'"running":null' in sent
        hub.close()

    asyncio.run(scenario())


def test_a_tick_reads_a_running_clock_once_until_it_can_run_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A board in play with its clock running (an hour left) is neither re-summed nor has its
    clock read by every tick: once, then not before its running side could run out (a
    journal line re-sums it meanwhile)."""
    async def scenario() -> None:
        hub = Hub(HubConfig(hall="t", state_dir=tmp_path, accept_unsigned=frozenset({7})),
                  tmp_path)
        server = HallServer(hub, "127.0.0.1", 0)
        server.hall_clients.add(HallClient(False))  # a public page
        game = make_game_id(datetime(2026, 11, 22, 9, tzinfo=timezone.utc), 1, 7)
        lines = trace_lines(SAMPLE, game=game, board="7")[:100]
        hub.deliver([(hub.topics.board(7, "journal"), P.journal_payload(game, i, text))
                     for i, text in enumerate(lines, start=1)])
        server.flush()
        clock = clock_dict(hub.views[7])
        assert clock is not None and clock["running"] == "black"
        built: list[int] = []
        summary = hub.summary

        def counted(board: int, arbiter_view: bool) -> dict[str, object]:
            built.append(board)
            return summary(board, arbiter_view)
        hub.summary = counted  # type: ignore[method-assign]
        read: list[str] = []

        def reading(view: BoardView) -> dict[str, Any] | None:
            read.append("7")
            return clock_dict(view)
        monkeypatch.setattr("pi.hall.hall_http.clock_dict", reading)
        server.tick()  # the clock's first reading by a tick
        built.clear()
        read.clear()
        for _ in range(5):
            server.tick()
        assert built == [] and read == []
        hub.close()

    asyncio.run(scenario())
