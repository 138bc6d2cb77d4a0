"""The hub's memory is flat in the games played (issue 19): a game the board has moved on from
is parked — its lines read back from its replica on demand (the games list, its files, the
reports), its file closed — so a board's hundredth game costs the hub what its first did. No
broker needed: the hub in-process, its messages delivered as the MQTT link would."""

from __future__ import annotations

import asyncio
import tracemalloc
from datetime import datetime, timezone
from pathlib import Path

from pi.board.statedir import make_game_id
from pi.hall import protocol as P
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from tests.hall.hub_rig import SAMPLE, trace_lines

GAMES = 40


def test_finished_games_are_read_back_on_demand_and_memory_stays_flat(tmp_path: Path) -> None:
    async def scenario() -> None:
        hub = Hub(HubConfig(hall="t", state_dir=tmp_path, accept_unsigned=frozenset({"7"})),
                  tmp_path)
        topic = hub.topics.board("7", "journal")
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
        view = hub.views["7"]
        assert [g.id for g in view.games()] == games
        assert {view.info(g).lines for g in view.games()} == \
            {len(trace_lines(SAMPLE, game="g", board="7"))}
        first = hub.replica.games("7")[0]
        assert first.parked and hub.views["7"].info(first, report=True).report is not None
        hub.close()

    asyncio.run(scenario())
