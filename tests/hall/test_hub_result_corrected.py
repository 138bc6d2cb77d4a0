"""A result corrected after the game (issue 37, COMP 6.16) reaches the hall: the hub's replica
takes the board's lines after a finished game's end — the game it follows, or an earlier one
that the board's status heads say grew — and its results (``results.csv``) give the corrected
result. No broker: the hub in-process."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from pi.board.statedir import make_game_id
from pi.hall import protocol as P
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from pi.hall.rounds import results, results_csv
from tests.hall.hub_rig import SAMPLE, trace_lines

CORRECTION = {"t": 400.0, "type": "arbiter", "action": "correct_result", "result": "0-1",
              "text": "Black's last piece was taken by an illegal capture (IT 8.1)"}


def _hub(root: Path) -> Hub:
    return Hub(HubConfig(hall="t", state_dir=root, accept_unsigned=frozenset({7})), root)


def _game(seq: int) -> str:
    return make_game_id(datetime(2026, 11, 22, 9 + seq, tzinfo=timezone.utc), seq, 7)


def _round_result(hub: Hub, rnd: str) -> str:
    (row,) = [r for r in results(hub, arbiter_view=True) if r["round"] == rnd]
    return str(row["result"])


def test_a_correction_after_the_end_of_the_game_followed_reissues_the_result(
        tmp_path: Path) -> None:
    game = _game(1)
    lines = trace_lines(SAMPLE, game=game, board="7", rnd="1")
    hub = _hub(tmp_path)
    topics = hub.topics
    try:
        hub.deliver([(topics.board(7, "journal"), P.journal_payload(game, n, t))
                     for n, t in enumerate(lines, start=1)])
        assert json.loads(lines[-1])["type"] == "end"  # the game's end line (docs/trace-format.md)
        assert _round_result(hub, "1") == "1-0"
        hub.deliver([(topics.board(7, "journal"),
                      P.journal_payload(game, len(lines) + 1, json.dumps(CORRECTION)))])
        assert hub.replica.held(7, game) == len(lines) + 1
        assert _round_result(hub, "1") == "0-1"
        csv = results_csv(results(hub, arbiter_view=True)).replace("\r", "")
        assert '1,7,"Bianchi, Anna","Neri, Marco",0-1' in csv
    finally:
        hub.close()


def test_a_correction_of_an_earlier_game_is_asked_for_by_the_heads_and_reissued(
        tmp_path: Path) -> None:
    first, second = _game(1), _game(2)
    lines = trace_lines(SAMPLE, game=first, board="7", rnd="1")
    nxt = trace_lines(SAMPLE, game=second, board="7", rnd="2")[:3]
    hub = _hub(tmp_path)
    topics = hub.topics
    sent: list[tuple[str, bytes]] = []
    hub.publish = lambda topic, payload: sent.append((topic, payload))
    try:
        hub.deliver([(topics.board(7, "journal"), P.journal_payload(first, n, t))
                     for n, t in enumerate(lines, start=1)])
        hub.deliver([(topics.board(7, "journal"), P.journal_payload(second, n, t))
                     for n, t in enumerate(nxt, start=1)])
        assert _round_result(hub, "1") == "1-0"
        # the board added a line to the first game's journal: its status heads say so
        hub.deliver([(topics.board(7, "status"), P.status_payload(
            "7", second, 3, [(first, len(lines) + 1, True), (second, 3, False)]))])
        assert (topics.board(7, "cmd"), P.resend_payload(first, len(lines) + 1)) in sent
        hub.deliver([(topics.board(7, "journal"),
                      P.journal_payload(first, len(lines) + 1, json.dumps(CORRECTION)))])
        path = tmp_path / "boards" / "7" / "games" / first / "trace.jsonl"
        assert path.read_text(encoding="utf-8").splitlines()[-1] == json.dumps(CORRECTION)
        assert _round_result(hub, "1") == "0-1"
    finally:
        hub.close()
