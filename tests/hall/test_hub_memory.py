"""The hub's memory is flat in the games played (issue 19): a game the board has moved on from
is parked — its lines read back from its replica on demand (the games list, its files, the
reports), its file closed — so a board's hundredth game costs the hub what its first did; a
batch's lines are written once per game. No
broker needed: the hub in-process, its messages delivered as the MQTT link would."""

from __future__ import annotations

import asyncio
import errno
import os
import tracemalloc
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import subprocess
import sys

import pytest

from pi.board.statedir import make_game_id
from pi.hall import protocol as P
from pi.hall.collector import Collector
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from tests.hall.hub_rig import SAMPLE, trace_lines

GAMES = 40
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # 10-25 s of one core: make test-slow, so that make test stays within 4 min
def test_finished_games_are_read_back_on_demand_and_memory_stays_flat(tmp_path: Path) -> None:
    """Measured in a process of its own: tracemalloc counts every thread's allocations, and a
    test worker holds other tests' threads. The process collects its garbage as ``damiera
    hub`` does (``pi.hall.collector``: young collections only, survivors frozen): a finished
    game that left a cycle behind would stay frozen, and count."""
    code = (f"import sys; sys.path.insert(0, {str(ROOT)!r}); "
            f"from tests.hall.test_hub_memory import flat_memory; flat_memory({str(tmp_path)!r})")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]


def flat_memory(root: str) -> None:
    """The scenario of the test above (raises AssertionError)."""
    tmp_path = Path(root)
    Collector().install()

    async def scenario() -> None:
        hub = Hub(HubConfig(hall="t", state_dir=tmp_path, accept_unsigned=frozenset({7})),
                  tmp_path)
        topic = hub.topics.board(7, "journal")
        games: list[str] = []
        in_memory, open_files, traced = [], [], []
        tracemalloc.start()
        try:
            for n in range(1, GAMES + 1):
                game = make_game_id(datetime(2026, 11, 22, 9, tzinfo=timezone.utc), n, 7)
                games.append(game)
                hub.deliver([(topic, P.journal_payload(game, i, text)) for i, text in
                             enumerate(trace_lines(SAMPLE, game=game, board="7"), start=1)])
                in_memory.append(sum(1 for g in hub.replica if not g.parked))
                open_files.append(hub.replica.open_files)
                traced.append(tracemalloc.get_traced_memory()[0])
        finally:
            tracemalloc.stop()
        per_game = (traced[-1] - traced[9]) / (GAMES - 10)
        assert per_game < 8 * 1024, f"{per_game / 1024:.0f} KiB kept per game played"
        assert max(open_files) == 1      # not one more open file per game
        assert in_memory == [1] * GAMES  # only the game the board shows is held parsed
        # read back on demand: every game's lines, its list entry and its report
        for g in hub.replica:
            assert g.lines == trace_lines(SAMPLE, game=g.id, board="7")
        view = hub.views[7]
        assert [g.id for g in view.games()] == games
        assert {view.info(g).lines for g in view.games()} == \
            {len(trace_lines(SAMPLE, game="g", board="7"))}
        first = hub.replica.games(7)[0]
        assert first.parked and hub.views[7].info(first, report=True).report is not None
        hub.close()

    asyncio.run(scenario())


def test_a_games_first_touch_is_kept_for_the_boards_last_games_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a game was voided by a pairing before play (``pi.board.supersede``) is found
    once from its first touch and kept — for the board's last TOUCHES_KEPT games, not for every
    game it ever played (a hall's week: thousands of games); an older game's is read again
    from its replica when a round's feed or the results ask."""
    import pi.hall.boardview as boardview
    found: list[int] = []
    real = boardview.first_touch

    def counted(*args: Any) -> Any:
        found.append(1)
        return real(*args)
    monkeypatch.setattr(boardview, "first_touch", counted)
    monkeypatch.setattr(boardview, "TOUCHES_KEPT", 3)

    async def scenario() -> None:
        hub = Hub(HubConfig(hall="t", state_dir=tmp_path, accept_unsigned=frozenset({7})),
                  tmp_path)
        topic = hub.topics.board(7, "journal")
        for n in range(1, 7):
            game = make_game_id(datetime(2026, 11, 22, 9, tzinfo=timezone.utc), n, 7)
            hub.deliver([(topic, P.journal_payload(game, i, text)) for i, text in
                         enumerate(trace_lines(SAMPLE, game=game, board="7"), start=1)])
        view = hub.views[7]
        games = view.games()
        assert len(games) == 6
        found.clear()
        assert [view.superseded(g) for g in games] == [False] * 6
        assert len(found) == 6  # nothing asked before (no hall page): each game's read once
        found.clear()
        assert [view.superseded(g) for g in games[-3:]] == [False] * 3
        assert found == []  # the last three kept
        assert view.superseded(games[0]) is False and len(found) == 1  # read again
        hub.close()

    asyncio.run(scenario())


def test_a_batch_is_written_once_per_game_and_a_refused_write_is_asked_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch's lines of one game are appended to its replica in one write (not one per
    line); when the disk refuses it, none of them is held, the file is as it was, and the
    board is asked for them again."""

    async def scenario() -> None:
        hub = Hub(HubConfig(hall="t", state_dir=tmp_path, accept_unsigned=frozenset({7})),
                  tmp_path)
        sent: list[tuple[str, bytes]] = []
        hub.publish = lambda topic, payload: sent.append((topic, payload))
        topic = hub.topics.board(7, "journal")
        game = make_game_id(datetime(2026, 11, 22, 9, tzinfo=timezone.utc), 1, 7)
        lines = trace_lines(SAMPLE, game=game, board="7")
        writes: list[int] = []
        real_write = os.write

        def counted(fd: int, data: bytes) -> int:
            writes.append(len(data))
            return real_write(fd, data)
        monkeypatch.setattr("pi.hall.replica.os.write", counted)
        hub.deliver([(topic, P.journal_payload(game, i, text))
                     for i, text in enumerate(lines[:100], start=1)])
        assert len(writes) == 1 and hub.replica.held(7, game) == 100
        g = hub.replica.game(7, game)
        assert g is not None
        size = g.path.stat().st_size

        def refused(fd: int, data: bytes) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")
        monkeypatch.setattr("pi.hall.replica.os.write", refused)
        sent.clear()
        hub.deliver([(topic, P.journal_payload(game, i, text))
                     for i, text in enumerate(lines[100:110], start=101)])
        assert hub.replica.held(7, game) == 100 and g.path.stat().st_size == size
        assert (hub.topics.board(7, "cmd"), P.resend_payload(game, 101)) in sent
        view = hub.views[7].game
        assert view is not None and view.replica.held == 100
        monkeypatch.setattr("pi.hall.replica.os.write", real_write)
        hub.deliver([(topic, P.journal_payload(game, i, text))
                     for i, text in enumerate(lines[100:], start=101)])
        assert g.path.read_text(encoding="utf-8") == "".join(t + "\n" for t in lines)
        hub.close()

    asyncio.run(scenario())


def test_topics_read_once_are_kept_within_a_bound(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Every message names its topic: a topic read once is kept (its board and leaf), at most
    MAX_TOPICS of them, the memory cleared when full: messages still reach their boards across
    the clearing, and a bad topic is refused every time (never kept)."""
    import pi.hall.replication as hub_module
    monkeypatch.setattr(hub_module, "MAX_TOPICS", 3)
    hub = Hub(HubConfig(hall="h", state_dir=tmp_path,
                        accept_unsigned=frozenset({1, 2, 3, 4})), tmp_path)
    topics = P.Topics("h")
    try:
        for board in (1, 2, 3, 4, 1):
            hub.deliver([(topics.board(board, "state"), b'{"game_id": null}')])
            assert hub.views[board].retained == {"game_id": None}
        assert hub.bad_messages == 0
        for _ in range(2):
            hub.deliver([("h/boards/1/state", b"{}"), ("damiera/h/boards/1/nope", b"{}")])
        assert hub.bad_messages == 4
        hub.deliver([(topics.board(4, "state"), b'{"game_id": "x"}')])
        assert hub.views[4].retained == {"game_id": "x"}
    finally:
        hub.close()


def test_of_a_boards_state_the_hub_keeps_what_it_reads(tmp_path: Path) -> None:
    """A board's ``state`` (its ``/api/state``: every move and flag of the game) comes every
    line or so; the hub keeps its game id and screen message, and reads its clock and sensor
    faults — not the moves' and flags' objects, which the young collections would walk."""
    import json
    hub = Hub(HubConfig(hall="h", state_dir=tmp_path, accept_unsigned=frozenset({1})),
              tmp_path)
    state = {"game_id": "g", "message": "put the piece on e3 back", "line": 900,
             "moves": [{"ply": i, "notation": "21-17", "t": i * 1.5} for i in range(1, 301)],
             "flags": [{"id": i, "code": "IT 3.7", "status": "noted"} for i in range(40)],
             "clock": {"white": 300.0, "black": 290.0, "running": "white", "state": "running",
                       "t": 12.5, "server_time": 1_700_000_000.0},
             "sensor_faults": [{"kind": "bus", "message": "expander 0x21 does not answer",
                                "address": 33, "squares": ["a1", "c1"]}]}
    try:
        hub.deliver([(P.Topics("h").board(1, "state"), json.dumps(state).encode())])
        view = hub.views[1]
        assert view.retained == {"game_id": "g", "message": "put the piece on e3 back"}
        assert [(f.kind, f.squares) for f in view.faults.values()] == [("bus", ("a1", "c1"))]
        assert hub.bad_messages == 0
    finally:
        hub.close()
