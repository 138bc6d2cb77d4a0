"""The hub's replica (pi/hall/replica.py, PROTOCOL.md "Catch-up"): whatever the order,
duplication and loss of deliveries, resends from the first missing line end with the replica
byte-equal to the board's journal, every line reported exactly once and in order."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import given, settings, strategies as st

from pi.hall.replica import MAX_AHEAD, Replica

GAME = "2026-11-22T0900-b07-001"
SAMPLE = Path(__file__).resolve().parents[2] / "pi" / "samples" / "italian_sample.jsonl"


def source_lines(n: int) -> list[str]:
    real = SAMPLE.read_text(encoding="utf-8").splitlines()
    return [real[i % len(real)] if i < len(real) else f'{{"t": {i}, "type": "note", "n": {i}}}'
            for i in range(n)]


deliveries = st.integers(min_value=1, max_value=60).flatmap(lambda n: st.tuples(
    st.just(n),
    st.lists(st.tuples(st.integers(1, n), st.booleans()), max_size=3 * n),  # (line, lost?)
    st.lists(st.floats(0, 1), min_size=1, max_size=6)))  # loss rate of each resend round


@settings(max_examples=150, deadline=None)
@given(deliveries)
def test_any_delivery_order_with_resends_ends_equal_to_the_source(tmp_path_factory, case):
    n, stream, resend_losses = case
    root = tmp_path_factory.mktemp("replica")
    lines = source_lines(n)
    replica = Replica(root)
    seen: list[int] = []

    def deliver(number: int) -> None:
        got = replica.offer(7, GAME, number, lines[number - 1])
        assert got.kind in ("appended", "ahead", "duplicate")
        seen.extend(k for k, _ in got.lines)

    for number, lost in stream:  # live publishing, shuffled, duplicated, some lost
        if not lost:
            deliver(number)
    rounds = 0
    while replica.held(7, GAME) < n:  # the hub's resend from its first missing line
        start = replica.held(7, GAME) + 1
        loss = resend_losses[rounds % len(resend_losses)] if rounds < 20 else 0.0
        for i, number in enumerate(range(start, n + 1)):
            if i == 0 or (i * 7919 % 100) / 100 >= loss:  # the first one at least arrives
                deliver(number)
        rounds += 1
    assert seen == list(range(1, n + 1))  # exactly once, in order
    replica.close()
    data = (root / "boards" / "7" / "games" / GAME / "trace.jsonl").read_bytes()
    assert data == "".join(t + "\n" for t in lines).encode()


def test_conflicting_copy_is_logged_and_the_first_kept(tmp_path, caplog):
    r = Replica(tmp_path)
    assert r.offer(7, GAME, 1, '{"type": "start"}').kind == "appended"
    assert r.offer(7, GAME, 1, '{"type": "start"}').kind == "duplicate"
    assert r.offer(7, GAME, 1, '{"type": "other"}').kind == "conflict"
    assert "conflicting copy" in caplog.text
    r.offer(7, GAME, 3, "c")
    assert r.offer(7, GAME, 3, "x").kind == "conflict"
    got = r.offer(7, GAME, 2, "b")
    assert got.lines == ((2, "b"), (3, "c"))
    r.close()
    assert (tmp_path / "boards/7/games" / GAME / "trace.jsonl").read_text() == \
        '{"type": "start"}\nb\nc\n'


def test_lines_ahead_are_bounded(tmp_path):
    r = Replica(tmp_path)
    r.offer(7, GAME, 1, "a")
    for k in range(3, 3 + MAX_AHEAD):
        assert r.offer(7, GAME, k, f"l{k}").kind == "ahead"
    assert r.offer(7, GAME, 3 + MAX_AHEAD, "x").kind == "dropped"
    assert r.game(7, GAME).wanted == 2 + MAX_AHEAD


def test_restart_reads_back_and_cuts_a_torn_last_line(tmp_path):
    r = Replica(tmp_path)
    for k in range(1, 6):
        r.offer(7, GAME, k, f'{{"n": {k}}}')
    r.offer(12, "2026-11-22T0901-b12-001", 1, '{"n": 1}')
    r.close()
    path = tmp_path / "boards/7/games" / GAME / "trace.jsonl"
    with open(path, "ab") as f:
        f.write(b'{"n": 6, "tor')  # a hub killed mid-write
    again = Replica(tmp_path)
    assert again.load() == 2
    assert again.held(7, GAME) == 5 and again.held(12, "2026-11-22T0901-b12-001") == 1
    assert path.read_bytes().endswith(b'{"n": 5}\n')
    assert again.offer(7, GAME, 6, '{"n": 6}').kind == "appended"
    again.close()
    assert path.read_bytes().count(b"\n") == 6


def test_sync_is_safe_with_many_games_open(tmp_path, monkeypatch):
    import pi.hall.replica as mod
    monkeypatch.setattr(mod, "MAX_OPEN", 3)
    r = Replica(tmp_path)
    for seq in range(1, 9):
        r.offer(7, f"2026-11-22T0900-b07-{seq:03d}", 1, "start")
    taken = r.take_dirty()
    mod.sync_taken(taken)
    assert r.open_files <= 3
    r.close()
    assert len(list((tmp_path / "boards/7/games").iterdir())) == 8
    assert os.listdir(tmp_path / "boards") == ["7"]


def test_a_held_game_is_replayed_up_to_its_first_unreadable_line(tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    """The hub's summary of a past game (pi/hall/boardview.py ``game_info``) goes through the
    engine's replay with its stated policy: an unreadable line ends the replay there, logged."""
    from engine.replay import replay_lines
    from pi.hall.boardview import game_info
    from pi.hall.replica import GameReplica

    real = SAMPLE.read_text(encoding="utf-8").splitlines()
    whole = game_info(GameReplica(7, GAME, tmp_path / "trace.jsonl", list(real)))
    assert whole.report is not None
    assert whole.report.to_json() == replay_lines(real).to_json() and whole.moves > 10
    cut = 40
    lines = real[:cut] + ['{"t": 1e308, "type": "lift"'] + real[cut:]
    with caplog.at_level("WARNING", logger="pi.hall.boardview"):
        info = game_info(GameReplica(7, GAME, tmp_path / "trace.jsonl", lines))
    assert f"board 7 game {GAME} line {cut + 1} cannot be read (replay stopped there)" \
        in caplog.text
    assert info.report is not None and info.lines == len(lines)
    assert info.report.to_json()["moves"] == replay_lines(real[:cut]).to_json()["moves"]
    assert info.start == json.loads(real[0])


def test_missing_counts_the_lines_known_at_the_board_and_not_held(tmp_path: Path) -> None:
    replica = Replica(tmp_path)
    lines = source_lines(5)
    for n, text in enumerate(lines[:3], start=1):
        replica.offer(7, GAME, n, text)
    # the board says it has 5 lines of this game and 2 of a game never heard of
    assert replica.missing(7, {GAME: 5, "2026-01-01T1000-001": 2}) == 2 + 2
    assert replica.missing(7, {GAME: 3}) == 0
    assert replica.missing(7, {GAME: 2}) == 0  # a stale count: nothing missing
    assert replica.missing(8, {GAME: 4}) == 4  # a board never heard of


# issue 38: two hubs on one state directory wrote every line twice; repaired at load

def _journal(n: int) -> list[bytes]:
    real = [ln.encode() for ln in SAMPLE.read_text(encoding="utf-8").split("\n") if ln]
    return real[:n]


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 60).flatmap(lambda n: st.tuples(
    st.just(n), st.integers(1, n), st.integers(0, n), st.lists(st.booleans(),
                                                                    max_size=2 * n))))
def test_a_replica_two_hubs_wrote_is_repaired_at_load(tmp_path_factory, case) -> None:  # type: ignore[no-untyped-def]
    """Hub A writes the journal's lines; hub B, started on the file when it held ``found``
    lines, writes lines ``found + 1``.. up to ``upto``; their writes interleave as ``turns``
    says. Read back: the journal, each line once, in order, the file rewritten so."""
    n, found, upto, turns = case
    journal = _journal(n)
    a, b = list(journal[found:]), list(journal[found:max(found, upto)])
    data = journal[:found]  # what hub B found when it started
    for turn in turns:
        if (turn and b) or not a:
            if b:
                data.append(b.pop(0))
        else:
            data.append(a.pop(0))
    data += a + b
    root = tmp_path_factory.mktemp("r")
    path = root / "boards" / "7" / "games" / GAME / "trace.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(x + b"\n" for x in data))
    again = Replica(root)
    assert again.load() == 1
    assert again.game(7, GAME).lines == [x.decode() for x in journal]
    assert path.read_bytes() == b"".join(x + b"\n" for x in journal)
    again.close()


def test_a_doubled_line_is_logged_and_a_journal_s_own_repeats_are_kept(tmp_path, caplog):
    journal = _journal(12)
    path = tmp_path / "boards" / "7" / "games" / GAME / "trace.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(x + b"\n" for x in journal[:6] + journal[5:]))  # line 6 twice
    r = Replica(tmp_path)
    r.load()
    assert r.held(7, GAME) == 12 and "1 doubled line(s) removed" in caplog.text
    more = _journal(13)[12].decode()
    assert r.offer(7, GAME, 13, more).kind == "appended"  # the board's next line follows
    r.close()
    assert path.read_bytes() == b"".join(x + b"\n" for x in _journal(13))
    # a board restarted twice without a clock, a sensor fault at each start: its lines repeat,
    # in time order; they are the board's, kept
    restart, fault = b'{"t": 9.5, "type": "restart", "down": null}', \
        b'{"t": 9.5, "type": "fault", "squares": ["c3"], "message": "no answer"}'
    honest = journal[:4] + [restart, restart, fault, restart, fault]
    other = "2026-11-22T0901-b07-002"
    path = tmp_path / "boards" / "7" / "games" / other / "trace.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(x + b"\n" for x in honest))
    caplog.clear()
    r = Replica(tmp_path)
    r.load()
    assert r.held(7, other) == len(honest) and "doubled" not in caplog.text
    r.close()


def test_the_sums_follow_the_replica_through_a_supersede(tmp_path: Path) -> None:
    """Issue 38, item 6: each line's sum is kept beside the replica, line for line, whatever
    writes it — appended one by one, ahead of a gap, cut back by a board that lost lines
    (``supersede``) and written again: the next start finds nothing damaged."""
    from pi.hall.replica_sums import RECORD, SUMS_FILE, sums_of

    replica = Replica(tmp_path)
    lines = source_lines(12)
    for n in (1, 2, 3, 5, 6, 4, 7, 8):  # 5 and 6 ahead of the gap
        replica.offer(7, GAME, n, lines[n - 1])
    g = replica.game(7, GAME)
    assert g is not None
    assert replica.supersede(g, 6) == lines[5:8]
    other = [t[:-1] + ', "again": true}' for t in lines[5:12]]  # the board's lines from 6
    for n, text in enumerate(other, start=6):
        replica.offer(7, GAME, n, text)
    replica.close()
    held = lines[:5] + other
    sums = g.path.parent / SUMS_FILE
    assert sums.read_bytes() == sums_of([t.encode() for t in held])
    assert sums.stat().st_size == len(held) * RECORD
    again = Replica(tmp_path)
    again.load()
    try:
        assert again.held(7, GAME) == len(held) and again.damaged == []
    finally:
        again.close()
