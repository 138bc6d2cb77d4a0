"""Pairing acks are signed (issue 38, item 6): an unsigned ack was enough for whoever held a
board's broker password to tell the hub a pairing had reached the board. The board signs every
ack with its key (``pi.hall.signing.ack_mac``); the hub takes a pairing's ack only when it
verifies, and refuses an unsigned or badly signed one with one logged line, the pairing kept to
be sent again (PROTOCOL.md, "Acknowledgements"). No broker: the hub in-process; the board's own
link with a broker at the end."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest

from pi.hall import protocol as P
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from pi.hall.signing import ack_mac, status_mac

KEY = bytes(range(32))
OTHER = bytes(range(1, 33))
PAIRING = {"event": "Open", "round": "1", "white": "Anna", "black": "Marco"}


def _hub(root: Path) -> Hub:
    hub = Hub(HubConfig(hall="t", state_dir=root, keys={8: KEY},
                        accept_unsigned=frozenset({9})), root)
    hub.publish = lambda topic, payload: None
    return hub


def _ack(hub: Hub, board: str, payload: bytes) -> None:
    hub.deliver([(hub.topics.board(board, "ack"), payload)])


def test_an_ack_is_signed_apart_from_a_status() -> None:
    """The tag keeps a signed status from passing for an ack of the same fields."""
    obj = {"id": "c1", "ok": True}
    assert ack_mac(KEY, obj) != status_mac(KEY, obj)
    got = P.parse_ack(P.ack_payload(P.Ack("c1", True, 12), KEY))
    assert got == P.Ack("c1", True, 12) and got.mac == ack_mac(KEY, got.body)
    assert P.parse_ack(P.ack_payload(P.Ack("c1", True))).mac is None


def test_a_pairing_ack_signed_by_the_board_is_taken(tmp_path: Path) -> None:
    hub = _hub(tmp_path)
    try:
        cmd = hub.push_pairing(8, PAIRING)
        _ack(hub, "8", P.ack_payload(P.Ack(cmd, True), KEY))
        assert 8 not in hub.pairing_out
    finally:
        hub.close()


@pytest.mark.parametrize("how", ["unsigned", "another key", "another command's mac"])
def test_a_pairing_ack_not_signed_by_the_board_is_refused_in_one_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, how: str) -> None:
    """Before: any ack with the pairing's id stopped the hub sending the pairing (a stranger
    with the board's password could answer for it). Now it is refused, the reason logged in
    one line, the pairing kept to be sent again."""
    hub = _hub(tmp_path)
    try:
        cmd = hub.push_pairing(8, PAIRING)
        if how == "unsigned":
            payload = P.ack_payload(P.Ack(cmd, True))
        elif how == "another key":
            payload = P.ack_payload(P.Ack(cmd, True), OTHER)
        else:  # a mac the board made for another answer, replayed on this one
            other = json.loads(P.ack_payload(P.Ack("c-old", True), KEY))
            payload = json.dumps({"id": cmd, "ok": True, "mac": other["mac"]}).encode()
        with caplog.at_level(logging.WARNING, logger="pi.hall.hub"):
            _ack(hub, "8", payload)
        assert hub.pairing_out[8][0] == cmd
        refused = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
        assert len(refused) == 1 and "\n" not in refused[0] and cmd[:40] in refused[0]
        assert ("not signed by the board" in refused[0])
        # and it is sent again when the board comes online
        sent: list[tuple[str, bytes]] = []
        hub.publish = lambda topic, payload: sent.append((topic, payload))
        status = {"online": True, "board": "8", "game": None, "lines": 0, "games": []}
        status["mac"] = status_mac(KEY, status)
        hub.deliver([(hub.topics.board(8, "status"), json.dumps(status).encode())])
        assert [P.parse_command(p).id for t, p in sent if t.endswith("/cmd")] == [cmd]
    finally:
        hub.close()


def test_a_board_accepted_unsigned_acks_unsigned(tmp_path: Path) -> None:
    hub = _hub(tmp_path)
    try:
        cmd = hub.push_pairing(9, PAIRING)
        _ack(hub, "9", P.ack_payload(P.Ack(cmd, True)))
        assert 9 not in hub.pairing_out
    finally:
        hub.close()


def test_an_action_ack_with_a_wrong_mac_is_refused_an_unsigned_one_waits_for_its_line(
        tmp_path: Path) -> None:
    """An action's ack confirms nothing by itself (its signed journal line does): unsigned it
    is taken as before; with a mac that is not the board's it is a forgery, refused."""
    hub = _hub(tmp_path)

    async def main() -> tuple[bool, bool]:
        loop = asyncio.get_running_loop()
        forged: asyncio.Future[P.Ack] = loop.create_future()
        plain: asyncio.Future[P.Ack] = loop.create_future()
        hub.acks["a-1"], hub.acks["a-2"] = forged, plain
        _ack(hub, "8", P.ack_payload(P.Ack("a-1", True, 5), OTHER))
        _ack(hub, "8", P.ack_payload(P.Ack("a-2", True, 5)))
        return forged.done(), plain.done()

    try:
        assert asyncio.run(main()) == (False, True)
    finally:
        hub.close()
