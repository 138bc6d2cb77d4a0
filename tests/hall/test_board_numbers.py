"""A board is named by its number (``pi/hall/PROTOCOL.md``): an ``int`` inside, canonical decimal
at the edges, read by one function (``pi.board.config.parse_board``, which ``pi.hall.protocol``
re-exports). What is not a board's number is dropped or refused at the edge where it comes in:
a topic segment (one logged line, the other boards go on), an HTTP path (404, never a 500), a
replica's folder at the hub's start (skipped with one logged line, nothing deleted). The
board's ``[mqtt] board``: ``tests/pi/test_config.py``."""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timezone
from pathlib import Path

import aiohttp
import pytest
from hypothesis import given, strategies as st

from pi.board.statedir import make_game_id
from pi.hall import protocol as P
from pi.hall.hall_http import HallServer
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from tests.hall.hub_rig import SAMPLE, trace_lines

GAME = make_game_id(datetime(2026, 11, 22, 9, tzinfo=timezone.utc), 1, 7)


def test_every_board_number_reads_back_from_its_text() -> None:
    """Every board of a hall, 1..MAX_BOARD: ``str`` writes it, ``parse_board`` reads it back."""
    for n in range(1, P.MAX_BOARD + 1):
        assert P.parse_board(str(n)) == n


@given(n=st.integers(1, P.MAX_BOARD))
def test_a_board_number_round_trips(n: int) -> None:
    assert P.parse_board(str(n)) == n


@given(text=st.text(max_size=12))
def test_only_canonical_decimal_reads_as_a_board(text: str) -> None:
    """Whatever reads as a board is written back as the very same text: "07" and "7" are never
    two names of one board, nor of two boards."""
    n = P.parse_board(text)
    assert n is None or (str(n) == text and 1 <= n <= P.MAX_BOARD)


@pytest.mark.parametrize("text", ["", "0", "00", "07", "0007", "+7", "-7", " 7", "7 ", "7\n",
                                  "x", "table-3", "7a", "1e3", "7.0", "10000", "99999999999",
                                  "1" * 5000, "\u0667", "\u00b2", "\uff17"])
def test_what_is_not_a_board_number_is_refused(text: str) -> None:
    assert P.parse_board(text) is None


def _hub(root: Path) -> Hub:
    return Hub(HubConfig(hall="t", state_dir=root, accept_unsigned=frozenset({7})), root)


def test_a_message_on_a_segment_not_a_board_number_is_dropped_with_one_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """``boards/07/status`` and ``boards/x/journal`` name no board: each is dropped with one
    logged line, as any bad message; board 7's own lines, in the same batch, are taken."""
    lines = trace_lines(SAMPLE, game=GAME, board="7")
    hub = _hub(tmp_path)
    prefix = hub.topics.prefix
    try:
        with caplog.at_level(logging.WARNING, logger="pi.hall.replication"):
            hub.deliver([
                (f"{prefix}/07/status", P.status_payload(7, GAME, 1, [(GAME, 1, False)])),
                (f"{prefix}/x/journal", P.journal_payload(GAME, 1, lines[0])),
                (hub.topics.board(7, "journal"), P.journal_payload(GAME, 1, lines[0])),
                (hub.topics.board(7, "journal"), P.journal_payload(GAME, 2, lines[1])),
            ])
        dropped = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
        assert len(dropped) == 2 and hub.bad_messages == 2, dropped
        assert all("\n" not in m and "board number" in m for m in dropped), dropped
        assert "07" in dropped[0] and "'x'" in dropped[1]
        assert list(hub.views) == [7] and hub.replica.held(7, GAME) == 2
    finally:
        hub.close()


def test_a_path_naming_no_board_is_a_404_never_a_500(tmp_path: Path) -> None:
    """``/boards/abc/``, ``/boards/07/``: no board of the hall (a 404 with its one line); a
    ``?board=`` that is no board's number is a 400."""
    lines = trace_lines(SAMPLE, game=GAME, board="7")

    async def scenario() -> None:
        hub = _hub(tmp_path)
        server = HallServer(hub, "127.0.0.1", 0)
        hub.deliver([(hub.topics.board(7, "journal"), P.journal_payload(GAME, n, t))
                     for n, t in enumerate(lines, start=1)])
        await server.start()
        base = f"http://127.0.0.1:{server.port}"
        auth = {"Authorization": f"Bearer {hub.token}"}
        try:
            async with aiohttp.ClientSession() as http:
                async with http.get(f"{base}/boards/7/api/state") as r:
                    assert r.status == 200 and (await r.json())["game_id"] == GAME
                for path in ("/boards/abc/", "/boards/abc/api/state", "/boards/07/api/state",
                             "/boards/-7/", "/boards/99999999999999999999/api/state",
                             "/boards/abc"):
                    async with http.get(base + path, allow_redirects=False) as r:
                        assert r.status == 404, path
                        body = await r.json()
                        assert "\n" not in body["error"], path
                for path in ("/api/alarms?board=abc", "/api/flags?board=07"):
                    async with http.get(base + path, headers=auth) as r:
                        assert r.status == 400, path
                        assert "board number" in (await r.json())["error"]
                async with http.get(f"{base}/api/alarms?board=hub", headers=auth) as r:
                    assert r.status == 200 and await r.json() == []
        finally:
            await server.stop()
            hub.close()

    asyncio.run(scenario())


def test_a_stray_replica_folder_is_skipped_at_start_and_left_as_it_is(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A folder under ``boards/`` not named by a board's number (``07``, ``table-3``, a file
    left there) is no board's replica: one logged line each at the hub's start, nothing of it
    deleted, and board 7's replica read back as before."""
    lines = trace_lines(SAMPLE, game=GAME, board="7")
    first = _hub(tmp_path)
    try:
        first.deliver([(first.topics.board(7, "journal"), P.journal_payload(GAME, n, t))
                       for n, t in enumerate(lines, start=1)])
    finally:
        first.close()
    boards = tmp_path / "boards"
    stray = []
    for name in ("07", "table-3"):
        trace = boards / name / "games" / GAME / "trace.jsonl"
        trace.parent.mkdir(parents=True)
        trace.write_text(lines[0] + "\n")
        stray.append(trace)
    (boards / "notes.txt").write_text("left by someone\n")
    again = _hub(tmp_path)
    try:
        with caplog.at_level(logging.WARNING, logger="pi.hall.replica"):
            again.load()
        skipped = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
        assert len(skipped) == 3 and all("\n" not in m for m in skipped), skipped
        assert list(again.views) == [7] and again.replica.held(7, GAME) == len(lines)
        assert all(t.read_text() == lines[0] + "\n" for t in stray)
        assert (boards / "notes.txt").is_file()
    finally:
        again.close()
