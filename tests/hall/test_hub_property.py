"""The hub's catch-up as a property (no broker: the hub's own message path, ``Hub.deliver``):
whatever order, duplication and loss the journal messages of several games of a board come in,
answering the hub's resend requests as a board does ends with every replica equal to its
journal, and the board's view equal to ``damiera replay`` of its newest game. The board signs
its lines and status (its key in the hub's configuration), as ``hub init`` sets a hall up."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings, strategies as st

from engine.replay import replay_lines
from pi.hall import protocol as P
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from pi.hall.signing import line_mac
from tests.hall.hub_rig import SAMPLE, TRACES, rig_key, trace_lines

GAMES = {
    "2026-11-22T0900-b03-001": TRACES / "italian" / "d1_kept_by_accept_8_2.jsonl",
    "2026-11-22T1000-b03-002": SAMPLE,
}
JOURNALS = {g: trace_lines(p, game=g, board="3") for g, p in GAMES.items()}
MESSAGES = [(g, n) for g, lines in JOURNALS.items() for n in range(1, len(lines) + 1)]
KEY = rig_key("3")


def _macs(game: str) -> list[str]:
    macs: list[str] = []
    for n, text in enumerate(JOURNALS[game], start=1):
        macs.append(line_mac(KEY, game, n, text, macs[-1] if macs else ""))
    return macs


MACS = {g: _macs(g) for g in JOURNALS}
TOPICS = P.Topics("h")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(MESSAGES) - 1), st.booleans()),
                max_size=2 * len(MESSAGES)),
       st.booleans())
def test_any_delivery_with_resends_ends_equal(tmp_path_factory, stream, status_first):
    root = tmp_path_factory.mktemp("hub")
    hub = Hub(HubConfig(hall="h", state_dir=root, keys={3: KEY}), root)
    asked: list[tuple[str, bytes]] = []
    hub.publish = lambda topic, payload: asked.append((topic, payload))

    def journal(game: str, n: int) -> tuple[str, bytes]:
        return (TOPICS.board(3, "journal"),
                P.journal_payload(game, n, JOURNALS[game][n - 1], MACS[game][n - 1]))

    status = (TOPICS.board(3, "status"), P.status_payload(
        "3", max(JOURNALS), len(JOURNALS[max(JOURNALS)]),
        [(g, len(lines), False) for g, lines in JOURNALS.items()], session="00aa00aa", key=KEY))
    batch = [status] if status_first else []
    batch += [journal(*MESSAGES[i]) for i, lost in stream if not lost]
    hub.deliver(batch)
    hub.deliver([status])
    rounds = 0
    while asked and rounds < 200:  # the board answers every resend from its journal
        topic, payload = asked.pop(0)
        cmd = P.parse_command(payload)
        assert topic == TOPICS.board(3, "cmd") and isinstance(cmd, P.Resend)
        hub.deliver([journal(cmd.game_id, n)
                     for n in range(cmd.start, len(JOURNALS[cmd.game_id]) + 1)])
        rounds += 1
    hub.close()
    for game, lines in JOURNALS.items():
        path = Path(root) / "boards" / "3" / "games" / game / "trace.jsonl"
        assert path.read_bytes() == "".join(t + "\n" for t in lines).encode()
    newest = max(JOURNALS)
    view = hub.views[3]
    assert view.game is not None and view.game.id == newest
    report = replay_lines(JOURNALS[newest])
    assert [m.to_dict() for m in view.game.arbiter.game.moves] == report.moves
    assert view.game.arbiter.game.board.fen() == report.game.board.fen()
    assert [f.to_dict() for f in view.game.arbiter.flags] == \
        json.loads(json.dumps([f.to_dict() for f in report.flags]))
    assert hub.missing(3) == 0
