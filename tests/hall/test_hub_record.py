"""The hall's record (issue 38): its alarms survive a restart of the hub, its results.csv is safe
to open in a spreadsheet, a pairings file without its header is refused rather than read short.
No broker: the hub in-process."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from pi.hall.alarms import AlarmLog
from pi.hall.errors import PairingError
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from pi.hall.rounds import parse_pairings, results_csv


def _hub(root: Path) -> Hub:
    return Hub(HubConfig(hall="t", state_dir=root, accept_unsigned=frozenset({7})), root)


def test_the_alarms_survive_a_restart_of_the_hub(tmp_path: Path) -> None:
    """The alarms are the hall's record: a hub started again on the same state directory has
    them all, their counts included, and numbers the next one after them."""
    hub = _hub(tmp_path)
    hub.alarm(7, "forged", "game g line 3: does not verify; refused", "g")
    hub.alarm(7, "forged", "game g line 4: does not verify; refused", "g")  # counted on it
    hub.alarm(9, "taken_over", "board 9's credentials used by another client")
    before = [dict(a) for a in hub.alarms]
    hub.close()
    again = _hub(tmp_path)
    try:
        assert [dict(a) for a in again.alarms] == before
        assert before[0]["count"] == 2
        assert again.alarm(9, "status", "a status not signed")["id"] == 3
    finally:
        again.close()


def test_the_alarms_file_is_kept_short_and_a_torn_line_is_passed_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pi.hall.alarms as alarms
    monkeypatch.setattr(alarms, "MAX_ALARMS", 20)
    MAX_ALARMS = alarms.MAX_ALARMS
    path = tmp_path / "alarms.jsonl"
    log = AlarmLog(path)
    for n in range(4 * MAX_ALARMS + 10):
        log.add(str(n % 50), "forged", f"line {n}", f"g{n}")
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 4 * MAX_ALARMS
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"id": 99999, "board": "1", "ti')  # a crash mid-line
    again = AlarmLog(path)
    assert [a["id"] for a in again.items] == [a["id"] for a in log.items]
    assert len(again.items) == MAX_ALARMS


@pytest.mark.parametrize("name", ["=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1:A2)",
                                  "\tx"])
def test_results_csv_cells_never_begin_a_formula(name: str) -> None:
    """OWASP's CSV injection: a cell beginning with = + - @ (or a tab, a carriage return) is
    prefixed with ' so that a spreadsheet shows it as text."""
    rows = [{"round": "1", "board": "4", "white": name, "black": "Rossi", "result": "1-0"}]
    got = list(csv.reader(io.StringIO(results_csv(rows))))
    assert got[0] == ["round", "board", "white", "black", "result"]
    assert got[1] == ["1", "4", "'" + name, "Rossi", "1-0"]


def test_a_pairings_file_without_its_header_is_refused_naming_it() -> None:
    """Its first line was skipped as the header: the first pairing was silently lost."""
    with pytest.raises(PairingError) as refused:
        parse_pairings("1,7,Rossi,Bianchi\n1,8,Verdi,Neri\n")
    assert "round,board,white,black" in str(refused.value) and "line 1" in str(refused.value)
    assert parse_pairings("\ufeffRound, Board, White, Black\n1,7,Rossi,Bianchi\n") == \
        [{"round": "1", "board": "7", "white": "Rossi", "black": "Bianchi"}]
    assert parse_pairings("") == []


def test_a_full_disk_is_one_alarm_then_quiet_until_space_returns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A full disk at the hub logged one error per line received and raised no alarm: now one
    error and one alarm (``disk``), quiet while it stays full, one line when it takes the
    lines again — and a second alarm if it fills again."""
    import errno
    import logging
    import os

    from pi.board.statedir import make_game_id
    from datetime import datetime, timezone

    from pi.hall import protocol as P
    from tests.hall.hub_rig import SAMPLE, trace_lines

    hub = _hub(tmp_path)
    topic = hub.topics.board(7, "journal")
    game = make_game_id(datetime(2026, 11, 22, 9, tzinfo=timezone.utc), 1, 7)
    lines = trace_lines(SAMPLE, game=game, board="7")
    real_write = os.write

    def refused(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def deliver(numbers: range) -> None:
        for n in numbers:  # one batch a line, as a board's live lines come
            hub.deliver([(topic, P.journal_payload(game, n, lines[n - 1]))])

    try:
        with caplog.at_level(logging.INFO):
            deliver(range(1, 11))
            monkeypatch.setattr("pi.hall.replica.os.write", refused)
            deliver(range(11, 41))
            assert hub.replica.held(7, game) == 10
            assert [a["kind"] for a in hub.alarms] == ["disk"]
            errors = [r for r in caplog.records if r.levelno >= logging.ERROR
                      and r.name.startswith("pi.hall")]
            assert len(errors) == 1 and "No space left" in errors[0].getMessage()
            monkeypatch.setattr("pi.hall.replica.os.write", real_write)
            deliver(range(11, 21))
            assert hub.replica.held(7, game) == 40  # the later ones waited ahead
            assert any("takes the lines again" in r.getMessage() for r in caplog.records)
            monkeypatch.setattr("pi.hall.replica.os.write", refused)
            deliver(range(41, 51))
        assert [a["kind"] for a in hub.alarms] == ["disk", "disk"] or \
            [a["count"] for a in hub.alarms] == [2]  # within 10 s: counted on the first
    finally:
        monkeypatch.setattr("pi.hall.replica.os.write", real_write)
        hub.close()


@pytest.mark.parametrize("damage", [b"\xff\xfe garbage", b'{"t": 12.5, "type": "lif', b"[]"])
def test_a_damaged_line_in_the_middle_of_a_replica_is_asked_for_again(
        tmp_path: Path, damage: bytes) -> None:
    """A line the disk damaged in the middle of a replica was kept (the hub held the lines
    after it and never asked again): at start the replica is cut back before it and the
    board, whose status says it has more, is asked from that line; its resend makes the
    replica equal to its journal again."""
    from datetime import datetime, timezone

    from pi.board.statedir import make_game_id
    from pi.hall import protocol as P
    from tests.hall.hub_rig import SAMPLE, trace_lines

    game = make_game_id(datetime(2026, 11, 22, 9, tzinfo=timezone.utc), 1, 7)
    lines = trace_lines(SAMPLE, game=game, board="7")[:20]
    hub = _hub(tmp_path)
    topics = hub.topics
    hub.deliver([(topics.board(7, "journal"), P.journal_payload(game, n, t))
                 for n, t in enumerate(lines, start=1)])
    hub.close()
    path = tmp_path / "boards" / "7" / "games" / game / "trace.jsonl"
    on_disk = path.read_bytes().split(b"\n")
    on_disk[7] = damage  # line 8
    path.write_bytes(b"\n".join(on_disk))
    again = _hub(tmp_path)
    sent: list[tuple[str, bytes]] = []
    again.publish = lambda topic, payload: sent.append((topic, payload))
    try:
        again.load()
        assert again.replica.held(7, game) == 7
        again.deliver([(topics.board(7, "status"), P.status_payload(7, game, 20,
                                                                        [(game, 20, False)]))])
        assert (topics.board(7, "cmd"), P.resend_payload(game, 8)) in sent
        again.deliver([(topics.board(7, "journal"), P.journal_payload(game, n, lines[n - 1]))
                       for n in range(8, 21)])
        assert path.read_text(encoding="utf-8") == "".join(t + "\n" for t in lines)
    finally:
        again.close()


def _played(tmp_path: Path, n: int = 20) -> tuple[str, list[str], Path]:
    """A hub that took ``n`` lines of board 7's game and stopped: (game, lines, replica)."""
    from datetime import datetime, timezone

    from pi.board.statedir import make_game_id
    from pi.hall import protocol as P
    from tests.hall.hub_rig import SAMPLE, trace_lines

    game = make_game_id(datetime(2026, 11, 22, 9, tzinfo=timezone.utc), 1, 7)
    lines = trace_lines(SAMPLE, game=game, board="7")[:n]
    hub = _hub(tmp_path)
    hub.deliver([(hub.topics.board(7, "journal"), P.journal_payload(game, k, t))
                 for k, t in enumerate(lines, start=1)])
    hub.close()
    return game, lines, tmp_path / "boards" / "7" / "games" / game / "trace.jsonl"


def _other_journal_line(text: str) -> bytes:
    """``text`` turned into another well-formed journal line (a digit of its time changed)."""
    import json

    obj = json.loads(text)
    obj["t"] = obj["t"] + 1 if isinstance(obj.get("t"), (int, float)) else 1
    return json.dumps(obj).encode()


@pytest.mark.parametrize("legacy", [False, True])
def test_a_line_turned_into_another_journal_line_is_found_at_start_and_asked_for_again(
        tmp_path: Path, legacy: bool) -> None:
    """Issue 38, item 6: a replica line the disk changed into another well-formed JSON line was
    kept for ever (first_unreadable sees only what is not JSON). Each line's sum is kept beside
    the replica: at start the changed line is found, the replica cut back before it, the lines
    cut kept in damaged.jsonl (nothing the hub held is lost), one alarm raised, the board asked
    from there; its resend makes the replica its journal again. ``legacy``: a replica of a hub
    before the sums (no trace.sums) loads whole as before, and is checked from then on."""
    import json

    from pi.hall import protocol as P
    from pi.hall.replica_sums import DAMAGED_FILE, SUMS_FILE

    game, lines, path = _played(tmp_path)
    sums = path.parent / SUMS_FILE
    assert sums.stat().st_size == 20 * 33
    if legacy:
        sums.unlink()
        old = _hub(tmp_path)
        old.load()
        assert old.replica.held(7, game) == 20 and not old.alarms
        old.close()
        assert sums.stat().st_size == 20 * 33  # summed as the lines stood
    on_disk = path.read_bytes().split(b"\n")
    changed = _other_journal_line(lines[7])
    on_disk[7] = changed  # line 8, still one JSON object
    path.write_bytes(b"\n".join(on_disk))
    again = _hub(tmp_path)
    sent: list[tuple[str, bytes]] = []
    again.publish = lambda topic, payload: sent.append((topic, payload))
    topics = again.topics
    try:
        again.load()
        assert again.replica.held(7, game) == 7
        assert [(a["board"], a["kind"], a["subject"]) for a in again.alarms] == [
            ("7", "damaged", game)]
        assert "line 8" in again.alarms[0]["what"]
        kept = [json.loads(x) for x in (path.parent / DAMAGED_FILE).read_text().splitlines()]
        assert [(k["line"], k["damaged"]) for k in kept] == [(n, n == 8) for n in range(8, 21)]
        assert kept[0]["text"].encode() == changed
        assert [k["text"] for k in kept[1:]] == lines[8:]
        again.deliver([(topics.board(7, "status"), P.status_payload(7, game, 20,
                                                                        [(game, 20, False)]))])
        assert (topics.board(7, "cmd"), P.resend_payload(game, 8)) in sent
        again.deliver([(topics.board(7, "journal"), P.journal_payload(game, n, lines[n - 1]))
                       for n in range(8, 21)])
        assert path.read_text(encoding="utf-8") == "".join(t + "\n" for t in lines)
    finally:
        again.close()
    third = _hub(tmp_path)  # the replica as the board sent it again: no alarm at the next start
    try:
        third.load()
        assert third.replica.held(7, game) == 20 and len(third.alarms) == 1
    finally:
        third.close()


def test_sums_cut_short_by_a_crash_leave_the_lines_as_they_stand(tmp_path: Path) -> None:
    """A crash before the sums' sync can leave them short, or holed with zeros: what they do not
    cover is taken as it stands (as before the sums), never cut as damaged."""
    from pi.hall.replica_sums import SUMS_FILE

    game, lines, path = _played(tmp_path)
    sums = path.parent / SUMS_FILE
    data = sums.read_bytes()
    sums.write_bytes(data[:5 * 33] + b"\0" * 33 + data[6 * 33:12 * 33 + 7])
    again = _hub(tmp_path)
    try:
        again.load()
        assert again.replica.held(7, game) == 20 and not again.alarms
        assert sums.read_bytes() == data  # made whole again
    finally:
        again.close()
