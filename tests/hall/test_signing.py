"""Signed journal lines (``pi.hall.signing``, PROTOCOL.md "Signed lines") and the hub's policy
for them, on the hub's own message path (``Hub.deliver``, no broker): a line is kept only when
it verifies after the lines held; an unsigned board only when named; each refusal an alarm."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pi.board.config import parse_config
from pi.board.errors import ConfigError
from pi.hall import protocol as P
from pi.hall.errors import BadMessage
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig, hub_config_from_args, parse_hub_config
from pi.hall.signing import Chain, line_mac, new_key, parse_key, status_mac
from tests.hall.hub_rig import SAMPLE, trace_lines

G = "2026-11-22T0900-b03-001"
LINES = trace_lines(SAMPLE, game=G, board="3")[:6]
KEY = bytes.fromhex("11" * 32)
TOPICS = P.Topics("h")


def _macs(key: bytes = KEY, lines: list[str] = LINES, game: str = G) -> list[str]:
    out: list[str] = []
    for n, text in enumerate(lines, start=1):
        out.append(line_mac(key, game, n, text, out[-1] if out else ""))
    return out


def test_a_mac_covers_game_number_text_and_every_line_before() -> None:
    macs = _macs()
    assert len(set(macs)) == len(macs) and all(len(m) == 64 for m in macs)
    assert line_mac(KEY, G, 2, LINES[1], macs[0]) == macs[1]
    assert line_mac(KEY, G, 3, LINES[1], macs[0]) != macs[1]  # another number
    assert line_mac(KEY, "2026-11-22T0900-b03-002", 2, LINES[1], macs[0]) != macs[1]
    assert line_mac(KEY, G, 2, LINES[1] + " ", macs[0]) != macs[1]  # another text
    other = _macs(lines=[LINES[0] + " "] + LINES[1:])  # line 1 differs: every mac after
    assert all(a != b for a, b in zip(macs, other, strict=True))
    assert _macs(key=bytes(32)) != macs


def test_a_chain_signs_and_verifies_rebuilding_from_the_lines_held() -> None:
    held: list[str] = []
    signer = Chain(KEY, lambda game, upto: LINES[:upto])
    assert [signer.sign(G, n, t) for n, t in enumerate(LINES, start=1)] == _macs()
    fresh = Chain(KEY, lambda game, upto: LINES[:upto])  # a restarted board: from its journal
    assert fresh.sign(G, 5, LINES[4]) == _macs()[4]
    checker = Chain(KEY, lambda game, upto: held[:upto])
    assert not checker.verify(G, 2, LINES[1], _macs()[1])  # line 1 not held: cannot verify
    assert checker.verify(G, 1, LINES[0], _macs()[0])
    held.append(LINES[0])
    assert not checker.verify(G, 2, LINES[1], "00" * 32)
    assert not checker.verify(G, 2, LINES[1], None)
    assert checker.verify(G, 2, LINES[1], _macs()[1])


def test_keys_in_the_configuration_files() -> None:
    key = new_key()
    assert parse_key(key) == bytes.fromhex(key) and len(parse_key(key)) == 32
    for bad in ("", "xyz", "ab" * 31, "ab" * 33):
        with pytest.raises(ValueError, match="64 hexadecimal digits"):
            parse_key(bad)
    base = '[mqtt]\nurl = "mqtts://b:p@h:8883"\nhall = "h"\nboard = "3"\n'
    cfg = parse_config(base + f'key = "{key}"\n')
    assert cfg.mqtt is not None and cfg.mqtt.key == bytes.fromhex(key)
    assert key not in repr(cfg.mqtt)
    with pytest.raises(ConfigError, match="mqtt.key"):
        parse_config(base + 'key = "secret"\n')
    hub = parse_hub_config(f'accept_unsigned = ["12", 14]\n[keys]\n"3" = "{key}"\n')
    assert hub.keys == {3: bytes.fromhex(key)} and hub.accept_unsigned == {12, 14}
    assert [hub.signing(b) for b in (3, 12, 4)] == ["signed", "unsigned", "refused"]
    for text, where in (('[keys]\n"3" = "x"\n', "keys.3"), ('accept_unsigned = "12"\n',
                                                             "accept_unsigned"),
                        ('accept_unsigned = ["a/b"]\n', "accept_unsigned")):
        with pytest.raises(ConfigError, match=where):
            parse_hub_config(text)
    cli = hub_config_from_args(None, "mqtt://h", None, "/tmp", ["7", "8"])
    assert cli.accept_unsigned == {7, 8} and cli.keys == {}
    with pytest.raises(ConfigError, match="--accept-unsigned"):
        hub_config_from_args(None, "mqtt://h", None, "/tmp", ["#"])


def test_the_key_as_a_systemd_credential(tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    key = new_key()
    (tmp_path / "hall-key").write_text(key + "\n")
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))
    base = '[mqtt]\nurl = "mqtts://b:p@h:8883"\nhall = "h"\nboard = "3"\n'
    cfg = parse_config(base + 'key_credential = "hall-key"\n')
    assert cfg.mqtt is not None and cfg.mqtt.key == bytes.fromhex(key)
    with pytest.raises(ConfigError, match="mqtt.key_credential"):
        parse_config(base + f'key = "{key}"\nkey_credential = "hall-key"\n')
    (tmp_path / "bad").write_text("not hex")
    with pytest.raises(ConfigError, match="mqtt.key_credential: 64 hexadecimal"):
        parse_config(base + 'key_credential = "bad"\n')


def test_protocol_carries_the_mac() -> None:
    mac = _macs()[0]
    assert P.parse_journal(P.journal_payload(G, 1, LINES[0], mac)).mac == mac
    assert P.parse_journal(P.journal_payload(G, 1, LINES[0])).mac is None
    with pytest.raises(BadMessage, match="mac"):
        P.parse_journal(P.journal_payload(G, 1, LINES[0], "XYZ"))
    heads = P.parse_status(P.status_payload(3, G, 2, [(G, 2, False)], session="ab12cd34",
                                            taken_over=2, key=KEY))
    assert (heads.session, heads.taken_over) == ("ab12cd34", 2)
    assert heads.mac == status_mac(KEY, heads.body)
    assert P.parse_status(P.status_payload(3, G, 2, [])).mac is None


def _hub(tmp_path: Path, **kw: object) -> tuple[Hub, list[tuple[str, bytes]]]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    hub = Hub(HubConfig(hall="h", state_dir=tmp_path, **kw), tmp_path)  # type: ignore[arg-type]
    sent: list[tuple[str, bytes]] = []
    hub.publish = lambda topic, payload: sent.append((topic, payload))
    return hub, sent


def _line(n: int, mac: str | None) -> tuple[str, bytes]:
    return TOPICS.board(3, "journal"), P.journal_payload(G, n, LINES[n - 1], mac)


def test_the_hub_keeps_only_lines_that_verify_and_asks_again(tmp_path: Path) -> None:
    hub, sent = _hub(tmp_path, keys={3: KEY})
    macs = _macs()
    hub.deliver([_line(1, macs[0]), _line(2, macs[1])])
    assert hub.replica.held(3, G) == 2 and hub.alarms == type(hub.alarms)()
    forged = TOPICS.board(3, "journal"), P.journal_payload(G, 3, '{"t": 1, "type": "x"}',
                                                              "ab" * 32)
    hub.deliver([forged, _line(4, None)])
    assert hub.replica.held(3, G) == 2
    assert [a["kind"] for a in hub.alarms] == ["forged"]  # one alarm for the game, counted
    assert hub.alarms[0]["count"] == 2 and hub.alarms[0]["board"] == "3"
    assert (TOPICS.board(3, "cmd"), P.resend_payload(G, 3)) in sent  # asked again
    hub.deliver([_line(4, macs[3]), _line(3, macs[2])])  # the board's own copies
    assert hub.replica.held(3, G) == 4
    path = tmp_path / "boards" / "3" / "games" / G / "trace.jsonl"
    hub.close()
    assert path.read_text() == "".join(t + "\n" for t in LINES[:4])


def test_a_forged_line_ahead_waits_and_is_refused_when_its_turn_comes(tmp_path: Path) -> None:
    hub, sent = _hub(tmp_path, keys={3: KEY})
    macs = _macs()
    hub.deliver([_line(1, macs[0])])
    bad = TOPICS.board(3, "journal"), P.journal_payload(G, 3, LINES[2], "cd" * 32)
    hub.deliver([bad, _line(4, macs[3]), _line(2, macs[1])])
    assert hub.replica.held(3, G) == 2 and hub.alarms[-1]["kind"] == "forged"
    assert hub.missing(3) <= 1  # a forged line 10**9 would not make the hub wait for it
    invented = "2099-12-31T2359-b03-001"
    for n in (1, 5, 10**9):
        hub.deliver([(TOPICS.board(3, "journal"),
                      P.journal_payload(invented, n, LINES[0], "ef" * 32))])
    assert hub.replica.game(3, invented) is None and invented not in hub.known.get(3, {})
    assert hub.missing(3) <= 1
    hub.deliver([_line(3, macs[2])])  # the board's line 3: line 4, kept ahead, follows it
    assert hub.replica.held(3, G) == 4
    hub.close()
    path = tmp_path / "boards" / "3" / "games" / G / "trace.jsonl"
    assert path.read_text() == "".join(t + "\n" for t in LINES[:4])


def test_unsigned_boards_only_by_name(tmp_path: Path) -> None:
    hub, _ = _hub(tmp_path / "a", keys={9: KEY})
    hub.deliver([_line(1, None)])
    assert hub.replica.held(3, G) == 0 and hub.alarms[-1]["kind"] == "unsigned"
    hub.deliver([(TOPICS.board(3, "status"), P.status_payload(3, G, 1, []))])
    assert 3 not in hub.heads
    named, _ = _hub(tmp_path / "b", accept_unsigned=frozenset({3}))
    named.deliver([_line(1, None), _line(2, None)])
    assert named.replica.held(3, G) == 2 and not named.alarms


def test_status_signed_by_the_board_and_credentials_used_twice(tmp_path: Path) -> None:
    hub, _ = _hub(tmp_path, keys={3: KEY})
    status = TOPICS.board(3, "status")
    hub.deliver([(status, P.status_payload(3, G, 99, [(G, 99, False)]))])  # forged heads
    assert 3 not in hub.heads and hub.missing(3) == 0
    assert hub.alarms[-1]["kind"] == "status"
    hub.deliver([(status, P.status_payload(3, G, 2, [(G, 2, False)], session="aa00aa00",
                                           key=KEY))])
    assert hub.heads[3].lines == 2 and hub.views[3].online
    hub.deliver([(status, P.status_payload(3, G, 2, [(G, 2, False)], session="bb00bb00",
                                           taken_over=1, key=KEY))])
    assert hub.alarms[-1]["kind"] == "taken_over" and "board-3's credentials" in \
        hub.alarms[-1]["what"]
    n = len(hub.alarms)
    hub.deliver([("$SYS/broker/log/E", b"1795530817: Client board-3 already connected, "
                                       b"closing old connection.")])
    assert len(hub.alarms) == n + 1 or hub.alarms[-1]["count"] == 2  # taken_over, board 3
    assert hub.alarms[-1]["board"] == "3" and hub.alarms[-1]["kind"] == "taken_over"
    hub.deliver([("$SYS/broker/log/E", b"1795530817: Socket error on client x.")])
    assert hub.bad_messages == 0


def test_every_alarm_reads_in_the_consoles_language(tmp_path: Path) -> None:
    """Issue 20: the hall console shows an alarm's text through ``localize`` (hall-arbiter.js,
    the engine's twin): every alarm the hub raises here — unsigned, forged (not verifying, no
    mac, a game never announced), conflicting, a status not signed, credentials used twice —
    is a catalog template, whole in Italian, its values (game ids, line numbers) kept."""
    from engine.i18n import localize
    seen: list[str] = []

    def deliver(h: Hub, messages: list[tuple[str, bytes]]) -> None:
        h.deliver(messages)
        seen.append(h.alarms[-1]["what"])
    hub, _ = _hub(tmp_path / "a", keys={3: KEY})
    deliver(hub, [_line(1, "00" * 32)])
    deliver(hub, [_line(1, None)])
    deliver(hub, [(TOPICS.board(3, "journal"),
                   P.journal_payload("2099-12-31T2359-b03-001", 5, LINES[0], "ef" * 32))])
    status = TOPICS.board(3, "status")
    deliver(hub, [(status, P.status_payload(3, G, 99, [(G, 99, False)]))])
    deliver(hub, [(status, P.status_payload(3, G, 2, [(G, 2, False)], session="bb00bb00",
                                            taken_over=2, key=KEY))])
    hub.close()
    unsigned, _ = _hub(tmp_path / "b", keys={9: KEY})
    deliver(unsigned, [_line(1, None)])
    deliver(unsigned, [(status, P.status_payload(3, G, 1, []))])
    unsigned.close()
    kinds = {"refused", "verify", "mac", "not signed", "credentials"}
    assert {k for k in kinds if not any(k in w for w in seen)} == set(), seen
    for what in seen:
        italian = localize(what, "it")
        assert italian != what, what
        for english in ("refused", "ignored", "board", "line ", "game ", "credentials"):
            assert english not in italian.replace("board-3", ""), (what, italian)
        for value in re.findall(r"\b\d{4}-\d\d-\d\dT\d{4}-b\d\d-\d{3}\b", what):
            assert value in italian
