"""A restarted hub answers at once and reads its live games back a board at a time
(``Hub.read_back``; HUB_API.md ``reading_back``): the hall page shows each board as it is read,
a board asked for by a page or the console is read first, a board's journal lines that come
meanwhile wait for its read-back and are taken after it, what reads every board answers 503
until the read-back is done; the views it ends with are those of a hub that never stopped."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from pi.board.statedir import make_game_id
from pi.hall import protocol as P
from pi.hall.hall_http import HallClient, HallServer
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from tests.hall.hub_rig import SAMPLE, trace_lines

BOARDS = (1, 2, 3)
#: lines of each board's game held when the hub stops (the sample game runs on after them)
HELD = 60


def _config(root: Path) -> HubConfig:
    return HubConfig(hall="t", state_dir=root, accept_unsigned=frozenset(BOARDS))


def _game(board: int) -> tuple[str, list[str]]:
    game = make_game_id(datetime(2026, 11, 22, 9, tzinfo=timezone.utc), 1, board)
    return game, trace_lines(SAMPLE, game=game, board=str(board), white=f"W{board}",
                             black=f"B{board}")


def _journal(hub: Hub, board: int, game: str, first: int, lines: list[str]
             ) -> list[tuple[str, bytes]]:
    return [(hub.topics.board(board, "journal"), P.journal_payload(game, n, text))
            for n, text in enumerate(lines, start=first)]


def _played(root: Path, held: dict[int, int]) -> Hub:
    """A hub that took ``held[board]`` lines of each board's game, its files on disk."""
    root.mkdir(parents=True, exist_ok=True)
    hub = Hub(_config(root), root)
    for board in BOARDS:
        game, lines = _game(board)
        hub.deliver(_journal(hub, board, game, 1, lines[:held[board]]))
    return hub


def _events(sent: bytes) -> list[tuple[str, Any]]:
    """An SSE stream's events: (name, data)."""
    out = []
    for raw in sent.decode().split("\n\n"):
        fields = dict(x.split(": ", 1) for x in raw.splitlines() if ": " in x)
        if "data" in fields:
            out.append((fields.get("event", "message"), json.loads(fields["data"])))
    return out


def _same(summary: dict[str, Any]) -> dict[str, Any]:
    """A summary without what the moment it is made changes (when heard, the clock's reading
    and the server's time: the clock's faces and state stay)."""
    out = {k: v for k, v in summary.items() if k not in ("last_heard", "online")}
    if out["clock"] is not None:
        out["clock"] = {k: v for k, v in out["clock"].items() if k not in ("t", "server_time")}
    return out


def test_a_board_with_lines_waiting_is_read_first_and_its_lines_taken_after(
        tmp_path: Path) -> None:
    """The transcript the hall shows (IT 12.2, COMP 3.10.2: the moves as played) is the
    board's; a hub restart changes nothing of it. The line board 3 sends while the hub reads
    back waits, unapplied and unwritten, then goes in after the game's read-back — first of the
    three, as its page waits on it."""
    _played(tmp_path / "hub", dict.fromkeys(BOARDS, HELD)).close()
    # what a hub that never stopped shows: board 3 one line further
    never = _played(tmp_path / "never", {1: HELD, 2: HELD, 3: HELD + 1})

    async def scenario() -> None:
        hub = Hub(_config(tmp_path / "hub"), tmp_path / "hub")
        server = HallServer(hub, "127.0.0.1", 0)
        page = HallClient(False)
        server.hall_clients.add(page)
        read: list[int] = []
        hub.listeners.append(lambda board, feds: read.append(board))
        try:
            hub.load(read_back=False)
            assert list(hub.unread) == list(BOARDS) and hub.to_read == 3
            game, lines = _game(3)
            hub.deliver(_journal(hub, 3, game, HELD + 1, lines[HELD:HELD + 1]))
            assert hub.replica.held(3, game) == HELD and hub.views[3].game is None
            assert list(hub.waiting) == [3]
            server.flush()
            assert _events(page.take()) == [("hall", {"reading_back": {"boards": 0, "of": 3}})]
            await hub.read_back()
            assert read == [3, 1, 2]
            assert not hub.unread and not hub.waiting
            assert hub.replica.held(3, game) == HELD + 1
            for board in BOARDS:
                assert _same(hub.summary(board, True)) == _same(never.summary(board, True))
                assert _same(hub.summary(board, False)) == _same(never.summary(board, False))
            server.flush()
            sent = _events(page.take())
            # each board summed once it was read back, and the read-back's end said
            assert [d["board"] for e, d in sent if e == "board"] == ["1", "2", "3"]
            assert sent[-1] == ("hall", {"reading_back": None})
        finally:
            await server.stop()
            hub.close()
            never.close()

    asyncio.run(scenario())


def test_lines_waiting_for_the_read_back_are_not_asked_for_again(tmp_path: Path) -> None:
    """PROTOCOL.md (every line, exactly once): a board's retained status brings heads ahead of
    the replica while the hub reads back; the lines that came meanwhile wait in memory, so the
    hub asks the board for none of them again — only, once the board is read back, for those
    that never came (here the last two)."""
    _played(tmp_path / "hub", dict.fromkeys(BOARDS, HELD)).close()

    async def scenario() -> None:
        hub = Hub(_config(tmp_path / "hub"), tmp_path / "hub")
        asked: list[tuple[str, Any]] = []
        hub.publish = lambda topic, payload, retain=False: asked.append(
            (topic, json.loads(payload)))
        try:
            hub.load(read_back=False)
            game, lines = _game(3)
            hub.deliver(_journal(hub, 3, game, HELD + 1, lines[HELD:HELD + 5]))
            status = P.status_payload(3, game, HELD + 7, [(game, HELD + 7, False)])
            hub.deliver([(hub.topics.board(3, "status"), status)])
            hub.connected()  # the link's (re)connection asks every known head again
            hub.tick()
            assert asked == []
            await hub.read_back()
            assert hub.replica.held(3, game) == HELD + 5
            assert asked == [(hub.topics.board(3, "cmd"),
                              {"resend": {"game": game, "from": HELD + 6}})]
        finally:
            hub.close()

    asyncio.run(scenario())


def test_the_hub_answers_while_it_reads_back(tmp_path: Path) -> None:
    """HUB_API.md: ``/api/hall`` lists the boards read back so far and says how far the
    read-back is; a board's own page reads that board at once; the flags of the whole hall
    answer 503 with Retry-After until every board is read."""
    _played(tmp_path, dict.fromkeys(BOARDS, HELD)).close()

    async def scenario() -> None:
        hub = Hub(_config(tmp_path), tmp_path)
        server = HallServer(hub, "127.0.0.1", 0)
        hub.load(read_back=False)
        await server.start()
        base = f"http://127.0.0.1:{server.port}"
        auth = {"Authorization": f"Bearer {hub.token}"}
        try:
            async with aiohttp.ClientSession() as http:
                async with http.get(f"{base}/api/hall") as r:
                    hall = await r.json()
                    assert r.status == 200
                assert hall["boards"] == [] and hall["reading_back"] == {"boards": 0, "of": 3}
                async with http.get(f"{base}/events") as r:  # the stream says it too
                    first = await asyncio.wait_for(r.content.readany(), 5)
                assert _events(first) == [("hall", {"reading_back": {"boards": 0, "of": 3}})]
                async with http.get(f"{base}/api/flags", headers=auth) as r:
                    assert r.status == 503 and r.headers["Retry-After"]
                    assert "0 of 3 boards" in (await r.json())["error"]
                async with http.get(f"{base}/results.csv") as r:
                    assert r.status == 503
                async with http.get(f"{base}/boards/2/api/state", headers=auth) as r:
                    state = await r.json()
                    assert r.status == 200
                game, _ = _game(2)
                assert state["game_id"] == game and len(state["moves"]) > 0
                async with http.get(f"{base}/api/hall") as r:
                    hall = await r.json()
                assert [s["board"] for s in hall["boards"]] == ["2"]
                assert hall["reading_back"] == {"boards": 1, "of": 3}
                await hub.read_back()
                async with http.get(f"{base}/api/hall") as r:
                    hall = await r.json()
                assert [s["board"] for s in hall["boards"]] == ["1", "2", "3"]
                assert hall["reading_back"] is None
                async with http.get(f"{base}/api/flags", headers=auth) as r:
                    assert r.status == 200
        finally:
            await server.stop()
            hub.close()

    asyncio.run(scenario())


def test_a_game_that_fails_to_read_back_does_not_hold_the_others(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A board whose read-back fails (logged) still has its waiting lines taken, and the other
    boards are read back: the read-back ends, never spins on a board it cannot read."""
    _played(tmp_path, dict.fromkeys(BOARDS, HELD)).close()

    async def scenario() -> None:
        hub = Hub(_config(tmp_path), tmp_path)
        hub.load(read_back=False)
        follow = hub.replication._follow  # noqa: SLF001 - the read-back's own step, made to fail once

        def failing(board: int, g: Any, rebuilt: bool) -> Any:
            if board == 2 and rebuilt:
                raise RuntimeError("a replica the view cannot take")
            return follow(board, g, rebuilt)
        monkeypatch.setattr(hub.replication, "_follow", failing)
        game, lines = _game(2)
        hub.deliver(_journal(hub, 2, game, HELD + 1, lines[HELD:HELD + 1]))
        try:
            await asyncio.wait_for(hub.read_back(), 10)
            assert not hub.unread and not hub.waiting
            assert hub.replica.held(2, game) == HELD + 1  # its waiting line taken all the same
            assert hub.views[1].game is not None and hub.views[3].game is not None
        finally:
            hub.close()

    asyncio.run(scenario())


def test_a_page_resuming_with_an_id_of_the_hubs_earlier_life_gets_the_whole_hall(
        tmp_path: Path) -> None:
    """HUB_API.md ``GET /events``: a page that followed the hub before it restarted comes back
    with that life's ``Last-Event-ID``. Another page has meanwhile been sent the hall under the
    new life's ids; the resuming page must still get every board — not only those sent since
    an id that meant something else in the old life."""
    _played(tmp_path, dict.fromkeys(BOARDS, HELD)).close()

    every = {str(b) for b in BOARDS}

    async def board_events(http: aiohttp.ClientSession, url: str, last: str | None
                           ) -> dict[str, int]:
        """Board → the id of its event on the stream, read until every board has come (or
        30 s: what came by then)."""
        headers = {} if last is None else {"Last-Event-ID": last}
        seen: dict[str, int] = {}
        async with http.get(url, headers=headers) as r:
            buf = b""
            try:
                async with asyncio.timeout(30):
                    while set(seen) != every:
                        chunk = await r.content.readany()
                        if not chunk:  # the stream ended
                            break
                        buf += chunk
                        *events, buf = buf.split(b"\n\n")
                        for e in events:
                            fields = dict(x.split(": ", 1) for x in e.decode().splitlines()
                                          if ": " in x)
                            if fields.get("event") == "board":
                                seen[json.loads(fields["data"])["board"]] = int(fields["id"])
            except TimeoutError:
                pass
            return seen

    async def life() -> tuple[HallServer, Hub, str]:
        hub = Hub(_config(tmp_path), tmp_path)
        hub.load()
        server = HallServer(hub, "127.0.0.1", 0)
        await server.start()
        return server, hub, f"http://127.0.0.1:{server.port}/events"

    async def scenario() -> None:
        async with aiohttp.ClientSession() as http:
            server, hub, url = await life()
            try:
                old = await board_events(http, url, None)
            finally:
                await server.stop()
                hub.close()
            assert set(old) == every
            resumed = str(min(old.values()))  # a page that saw only the first board
            server, hub, url = await life()
            try:
                # another page
                assert set(await board_events(http, url, None)) == every
                assert set(await board_events(http, url, resumed)) == every
            finally:
                await server.stop()
                hub.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("delay", [0.0, 15.0])
def test_a_round_begun_while_the_hub_reads_back_is_followed_without_replaying_the_last(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, delay: float) -> None:
    """COMP 4.4.2: the round's games begin when the arbiter starts it, perhaps seconds after the
    hub was restarted between rounds. A board whose next game's start line waits for its
    read-back shows that game at once: its last round's game is not replayed first (it is read
    back on demand, as any earlier game). A start line that does not take (unreadable) leaves
    the board's last game replayed, as without it. Under a broadcast delay (15 minutes) the last
    game is replayed all the same: the public view it leaves is the one the delayed broadcast
    shows of a game that ended within the delay."""
    _played(tmp_path, dict.fromkeys(BOARDS, HELD)).close()
    later = make_game_id(datetime(2026, 11, 22, 14, tzinfo=timezone.utc), 2, 2)
    broken = make_game_id(datetime(2026, 11, 22, 14, tzinfo=timezone.utc), 2, 3)
    start = trace_lines(SAMPLE, game=later, board="2", rnd="2")[0]

    async def scenario() -> None:
        hub = Hub(replace(_config(tmp_path), broadcast_delay=delay), tmp_path)
        hub.load(read_back=False)
        replayed: list[int] = []
        follow = hub.replication._follow  # noqa: SLF001 - counted: the read-back's replays

        def counted(board: int, g: Any, rebuilt: bool) -> Any:
            if rebuilt:
                replayed.append(board)
            return follow(board, g, rebuilt)
        monkeypatch.setattr(hub.replication, "_follow", counted)
        hub.deliver(_journal(hub, 2, later, 1, [start]))
        hub.deliver(_journal(hub, 3, broken, 1, ["{not a journal line"]))
        try:
            await hub.read_back()
            # board 2 not replayed (but under a delay); board 3's start did not take
            assert replayed == ([3, 1] if not delay else [2, 3, 1])
            view = hub.views[2]
            assert view.game is not None and view.game.id == later
            old, _ = _game(2)
            assert [g.id for g in view.games()][-2:] == [old, later]
            assert hub.replica.held(2, old) == HELD  # there, read back on demand
            assert hub.summary(2, True)["round"] == "2"
            if not delay:  # the fallback: its last game replayed, shown
                game3, _ = _game(3)
                assert hub.views[3].game is not None and hub.views[3].game.id == game3
        finally:
            hub.close()

    asyncio.run(scenario())
