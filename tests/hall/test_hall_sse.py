"""The hall's live stream (HUB_API.md ``GET /events``) on the board's SSE writer
(``pi.web.feeds.serve_sse``): its clients are written to directly, pinged by the one pinger,
and forgotten when they go away — no broker needed, the hub in-process on a free port."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp

from pi.hall.hall_http import HallServer
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig


def test_hall_clients_share_the_boards_writer_and_pinger(tmp_path: Path) -> None:
    async def scenario() -> None:
        hub = Hub(HubConfig(hall="t", state_dir=tmp_path), tmp_path)
        server = HallServer(hub, "127.0.0.1", 0)
        server.ping = 0.1  # the one pinger of the hall's clients
        hub.board("7")
        await server.start()
        try:
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{server.port}/events") as resp:
                    assert resp.headers["Content-Type"] == "text/event-stream"
                    got = b""
                    while b'"board":"7"' not in got or b": ping" not in got:
                        got += await asyncio.wait_for(resp.content.readany(), 5.0)
                    assert got.startswith(b"retry: 2000\n\n")
                    [(client, arbiter)] = server.hall_clients
                    assert client.transport is not None and not arbiter  # attached: written
                    hub.board("8")                                        # directly
                    server.publish_board("8")
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
