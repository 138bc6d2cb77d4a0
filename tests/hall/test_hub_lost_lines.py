"""Issue 38, item 2, on the hub's own message path (``Hub.deliver``, no broker): a board whose
SD card lost lines it had already published resumes its journal from the line before them and
writes those numbers again with other lines (a ``restart`` first). Its lines are signed with its
key but chain on its own journal, not on the replica's: before, the hub refused every later line
as forged (one alarm counted 88 times) and the replica stopped. Now the hub tells the board's
own line from a forgery (it verifies with the ``prev`` mac it chains on), looks for where the two
journals part, keeps what it had in ``superseded.jsonl``, takes the board's journal from there
and raises one ``lost`` alarm; a line not signed by the board stays forged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.i18n import localize
from pi.hall import protocol as P
from pi.hall.errors import BadMessage
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from pi.hall.signing import Chain, line_mac
from tests.hall.hub_rig import SAMPLE, trace_lines

G = "2026-11-22T0900-b04-001"
BOARD = 4
KEY = bytes.fromhex("22" * 32)
TOPIC = P.Topics("h").board(BOARD, "journal")
FIRST = trace_lines(SAMPLE, game=G, board=BOARD)[:12]


def _restart(t: float) -> str:
    return json.dumps({"t": t, "type": "restart", "down": None})


def _later(lines: list[str], by: float) -> list[str]:
    """Journal lines ``by`` seconds later (a resumed board's lines after its restart)."""
    return [json.dumps({**json.loads(t), "t": round(json.loads(t)["t"] + by, 3)})
            for t in lines]


def _macs(lines: list[str], key: bytes = KEY) -> list[str]:
    out: list[str] = []
    for n, text in enumerate(lines, start=1):
        out.append(line_mac(key, G, n, text, out[-1] if out else ""))
    return out


class Board:
    """A board's journal as it publishes it: every line with its mac and ``prev``."""

    def __init__(self, lines: list[str], key: bytes = KEY, prev: bool = True) -> None:
        self.lines, self.macs, self.prev = lines, _macs(lines, key), prev

    def line(self, n: int) -> tuple[str, bytes]:
        prev = (self.macs[n - 2] if n > 1 else "") if self.prev else None
        return TOPIC, P.journal_payload(G, n, self.lines[n - 1], self.macs[n - 1], prev)

    def resend(self, start: int) -> list[tuple[str, bytes]]:
        return [self.line(n) for n in range(start, len(self.lines) + 1)]


def _hub(tmp_path: Path) -> tuple[Hub, list[tuple[str, bytes]]]:
    hub = Hub(HubConfig(hall="h", state_dir=tmp_path, keys={BOARD: KEY}), tmp_path)
    sent: list[tuple[str, bytes]] = []
    hub.publish = lambda topic, payload: sent.append((topic, payload))
    return hub, sent


def _answer(hub: Hub, sent: list[tuple[str, bytes]], board: Board, rounds: int = 4) -> None:
    """The board answers each resend the hub asks for, as it would (in order, whole)."""
    for _ in range(rounds):
        asked = [P.parse_command(p) for t, p in sent if t.endswith("/cmd")]
        sent.clear()
        starts = [c.start for c in asked if isinstance(c, P.Resend)]
        if not starts:
            return
        for start in starts:
            hub.deliver(board.resend(start))


def _replica(tmp_path: Path) -> Path:
    return tmp_path / "boards" / str(BOARD) / "games" / G / "trace.jsonl"


def test_a_board_that_lost_its_last_published_line_is_followed_from_there(
        tmp_path: Path) -> None:
    hub, sent = _hub(tmp_path)
    old = Board(FIRST)
    hub.deliver(old.resend(1))
    assert hub.replica.held(BOARD, G) == 12 and not hub.alarms
    # the SD card lost line 12; the board resumed from 11 lines: a restart is its line 12
    new = Board(FIRST[:11] + [_restart(30.0)]
                + _later(trace_lines(SAMPLE, game=G, board=BOARD)[12:40], 20.0))
    sent.clear()
    hub.deliver([new.line(13), new.line(14)])  # its live lines: they chain on its own line 12
    assert not hub.alarms and hub.replica.held(BOARD, G) == 12
    assert (TOPIC.replace("journal", "cmd"), P.resend_payload(G, 12)) in sent  # where they part
    _answer(hub, sent, new)
    assert hub.replica.held(BOARD, G) == len(new.lines)
    hub.close()
    assert _replica(tmp_path).read_text() == "".join(t + "\n" for t in new.lines)
    [alarm] = list(hub.alarms)
    assert alarm["kind"] == "lost" and alarm["count"] == 1 and alarm["subject"] == G
    assert alarm["what"].startswith(f"board {BOARD} lost line 12 of game {G} after publishing it")
    kept = [json.loads(x) for x in (_replica(tmp_path).parent / "superseded.jsonl")
            .read_text().splitlines()]
    assert [(k["line"], k["text"]) for k in kept] == [(12, FIRST[11])]
    # the hub's view is the board's: its moves of the new journal, not the lost line's
    again = Hub(HubConfig(hall="h", state_dir=tmp_path, keys={BOARD: KEY}), tmp_path)
    again.load()
    assert again.replica.held(BOARD, G) == len(new.lines)
    assert again.summary(BOARD, True)["moves"] == hub.summary(BOARD, True)["moves"]
    again.close()


def test_lines_lost_further_back_are_found_step_by_step(tmp_path: Path) -> None:
    """Four lines lost; the board's lines after its restart even repeat the texts of the lost
    ones (only their macs tell them apart): the hub goes back until the journals meet."""
    hub, sent = _hub(tmp_path)
    hub.deliver(Board(FIRST).resend(1))
    new = Board(FIRST[:8] + [_restart(30.0)] + trace_lines(SAMPLE, game=G, board=BOARD)[9:30])
    sent.clear()
    hub.deliver([new.line(13)])
    _answer(hub, sent, new, rounds=6)
    assert hub.replica.held(BOARD, G) == len(new.lines)
    [alarm] = list(hub.alarms)
    assert alarm["kind"] == "lost" and "lost lines 9 to 12 of game" in alarm["what"]
    hub.close()
    assert _replica(tmp_path).read_text() == "".join(t + "\n" for t in new.lines)


def test_what_the_board_did_not_sign_stays_forged_and_the_replica_keeps_its_lines(
        tmp_path: Path) -> None:
    hub, sent = _hub(tmp_path)
    hub.deliver(Board(FIRST).resend(1))
    stranger = Board(FIRST[:11] + [_restart(30.0), FIRST[11]], key=bytes(32))
    mixed = Board(FIRST[:11] + [_restart(30.0), FIRST[11]])
    # a line after another line 12, its mac made with another key: forged
    hub.deliver([stranger.line(13)])
    assert [a["kind"] for a in hub.alarms] == ["forged"]
    # a copy of line 12 signed by another key: a conflict, the replica keeps its line
    hub.deliver([stranger.line(12)])
    assert [a["kind"] for a in hub.alarms] == ["forged", "conflict"]
    # the board's key, after the replica's line 11, but not a restart: not a lost line
    other = Board(FIRST[:11] + [FIRST[11].replace("}", ', "x": 1}')])
    hub.deliver([other.line(12)])
    assert hub.alarms[-1]["kind"] == "conflict" and hub.alarms[-1]["count"] == 2
    # an older board's lines carry no prev: a line that does not verify is forged, as before
    hub.deliver([Board(mixed.lines, prev=False).line(13)])
    assert hub.alarms[0]["count"] == 2
    assert hub.replica.held(BOARD, G) == 12 and "lost" not in {a["kind"] for a in hub.alarms}
    hub.close()
    assert _replica(tmp_path).read_text() == "".join(t + "\n" for t in FIRST)
    assert not (_replica(tmp_path).parent / "superseded.jsonl").exists()


def test_the_lost_alarm_reads_in_the_consoles_language(tmp_path: Path) -> None:
    """Issue 20: every alarm is a catalog template (the console localizes it)."""
    hub, _ = _hub(tmp_path)
    hub.deliver(Board(FIRST).resend(1))
    new = Board(FIRST[:11] + [_restart(30.0)])
    hub.deliver([new.line(12)])
    what = hub.alarms[-1]["what"]
    italian = localize(what, "it")
    assert hub.alarms[-1]["kind"] == "lost" and italian != what
    assert "lost" not in italian and G in italian and "12" in italian
    hub.close()


def test_a_journal_message_carries_the_mac_its_line_chains_on() -> None:
    macs = _macs(FIRST[:3])
    chain = Chain(KEY, lambda game, upto: FIRST[:upto])
    assert chain.sign_after(G, 3, FIRST[2]) == (macs[2], macs[1])
    assert chain.sign_after(G, 1, FIRST[0]) == (macs[0], "")
    got = P.parse_journal(P.journal_payload(G, 3, FIRST[2], macs[2], macs[1]))
    assert (got.mac, got.prev) == (macs[2], macs[1])
    assert P.parse_journal(P.journal_payload(G, 1, FIRST[0], macs[0], "")).prev == ""
    assert P.parse_journal(P.journal_payload(G, 3, FIRST[2], macs[2])).prev is None
    for prev in ("", "XY", 5):
        with pytest.raises(BadMessage, match="mac"):
            P.parse_journal(json.dumps({"game": G, "line": 3, "text": FIRST[2],
                                        "mac": macs[2], "prev": prev}).encode())
