"""The board's hall link (``pi/hall/link.py``, PROTOCOL.md) against a real Mosquitto
(``tests/hall/broker.py``) and a paho client in the hub's place: every journal line arrives in
order and byte-equal to the board's file; state and status are retained; commands are carried
out once and answered; the pairing reaches the OLED and the next game's start line (superseding
an untouched game in play); resends, a broker that is late or crashes, a board restart, and junk
on ``cmd`` that never stops the board."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from broker import Broker
from hall_rig import BOARD, HALL, NUMBER, HallRig, Hub, retained


def _all_lines_arrived(hub: Hub, rig: HallRig) -> None:
    """Every line on disk at the hub, byte-equal (the rig's moves and actions return once
    their lines are on disk: the board is at rest)."""
    game = rig.link.game_id

    def same(h: Hub) -> bool:
        disk = rig.lines_on_disk(game)
        got = h.journal(game)
        return [got.get(i) for i in range(1, len(disk) + 1)] == disk and len(got) == len(disk)
    hub.wait(same, what="every line")


def _play_a_little(rig: HallRig) -> None:
    rig.move("d3", "e4", "white")
    rig.move("c6", "d5", "black")
    rig.move("e4", "c6", "white")  # a capture


def test_every_journal_line_arrives_in_order_byte_equal(tmp_path: Path) -> None:
    with Broker(tmp_path) as broker, Hub(broker.port) as hub, \
            HallRig(tmp_path / "board", broker.port) as rig:
        _play_a_little(rig)
        rig.sim_action({"action": "note", "text": "çà — ünïcode « quotes »"})
        _all_lines_arrived(hub, rig)
        game = rig.link.game_id
        received = [(m["line"], m["text"]) for m in hub.of("journal") if m["game"] == game]
        disk = rig.lines_on_disk()
        assert [n for n, _ in received] == list(range(1, len(disk) + 1))  # in order, once
        assert [t for _, t in received] == disk
        raw = rig.trace().read_bytes()
        assert b"".join(t.encode("utf-8") + b"\n" for _, t in received) == raw
        assert json.loads(disk[0])["id"] == game


def test_state_and_status_are_retained(tmp_path: Path) -> None:
    with Broker(tmp_path) as broker, Hub(broker.port) as hub, \
            HallRig(tmp_path / "board", broker.port) as rig:
        rig.move("d3", "e4", "white")
        _all_lines_arrived(hub, rig)
        hub.wait(lambda h: h.of("state")[-1]["line"] == len(rig.lines_on_disk()),
                 what="the last state")
        n = len(rig.lines_on_disk())
        state = retained(broker.port, "state")
        assert state is not None and state["line"] == n and state["view"] == "arbiter"
        assert state["game_id"] == rig.link.game_id and state["metadata"]["white"] == "Ann"
        assert state["moves"][0]["ply"] == 1 and state["last_line"]["type"] == "button"
        status = retained(broker.port, "status")
        assert status is not None and status["online"] is True and status["board"] == BOARD
        assert status["game"] == rig.link.game_id
        assert status["games"][-1][0] == rig.link.game_id


def test_offline_status_after_a_clean_stop(tmp_path: Path) -> None:
    """A board stopped cleanly says it is offline (retained), as its will would."""
    with Broker(tmp_path) as broker:
        with HallRig(tmp_path / "board", broker.port) as rig:
            assert rig.link.subscribed.wait(30)
        status = retained(broker.port, "status")
        assert status == {"online": False, "board": BOARD}


def test_action_is_journaled_and_acked_with_its_line_once(tmp_path: Path) -> None:
    with Broker(tmp_path) as broker, Hub(broker.port) as hub, \
            HallRig(tmp_path / "board", broker.port) as rig:
        assert rig.link.subscribed.wait(30)
        cmd = {"id": "c-1", "action": {"action": "note", "text": "from the hub"}}
        hub.send(cmd)
        hub.wait(lambda h: bool(h.acks("c-1")), what="the ack")
        ack = hub.acks("c-1")[0]
        assert ack["ok"] is True
        line = json.loads(rig.lines_on_disk()[ack["line"] - 1])
        assert line["type"] == "arbiter" and line["action"] == "note"
        assert line["text"] == "from the hub"
        hub.send(cmd)  # QoS 1 redelivers: the same answer, not a second note
        hub.wait(lambda h: len(h.acks("c-1")) == 2, what="the second ack")
        assert hub.acks("c-1")[1] == ack
        notes = [t for t in rig.lines_on_disk() if '"from the hub"' in t]
        assert len(notes) == 1
        # a refused action: ok false with the one-line reason, nothing journaled
        before = len(rig.lines_on_disk())
        hub.send({"id": "c-2", "action": {"action": "adjudicate", "result": "3-0"}})
        hub.wait(lambda h: bool(h.acks("c-2")), what="the refusal")
        bad = hub.acks("c-2")[0]
        assert bad["ok"] is False and "result" in bad["error"] and "\n" not in bad["error"]
        assert len(rig.lines_on_disk()) == before


def test_command_ids_survive_a_board_restart(tmp_path: Path) -> None:
    root = tmp_path / "board"
    with Broker(tmp_path) as broker, Hub(broker.port) as hub:
        with HallRig(root, broker.port) as rig:
            assert rig.link.subscribed.wait(30)
            hub.send({"id": "k-1", "action": {"action": "note", "text": "once"}})
            hub.wait(lambda h: bool(h.acks("k-1")), what="the ack")
        with HallRig(root, broker.port) as rig:
            assert rig.link.subscribed.wait(30)
            hub.send({"id": "k-1", "action": {"action": "note", "text": "once"}})
            hub.wait(lambda h: len(h.acks("k-1")) == 2, what="the repeated ack")
            assert hub.acks("k-1")[0] == hub.acks("k-1")[1]
            assert sum('"once"' in t for t in rig.lines_on_disk()) == 1


def test_pairing_goes_to_the_oled_and_the_next_games_start_line(tmp_path: Path) -> None:
    root = tmp_path / "board"
    pairing = {"event": "Regionale", "round": "3", "white": "Rossi, Mario",
               "black": "Bianchi, Luca"}
    with Broker(tmp_path) as broker, Hub(broker.port) as hub:
        with HallRig(root, broker.port) as rig:
            assert rig.link.subscribed.wait(30)
            first = rig.link.game_id
            hub.send({"id": "p-1", "pairing": pairing})
            hub.wait(lambda h: bool(h.acks("p-1")), what="the pairing's ack")
            assert hub.acks("p-1")[0] == {"id": "p-1", "ok": True}
            start = json.loads(rig.lines_on_disk(first)[0])
            assert start["white"] == "Ann"  # the game begun at power-on keeps its start line
            # ... and, untouched, is superseded: the pairing's game begins at once
            # (pi.board.supersede; a touched game: tests/pi/test_pairing_supersede.py)
            deadline = time.monotonic() + 30
            while rig.link.game_id == first:
                assert time.monotonic() < deadline, "the untouched game not superseded"
                time.sleep(0.02)
            # the game before is closed on a thread of its own once its last lines are durable
            # (pi.board.session.GameSession.close_behind): its marker may follow the new game
            marker, deadline = root / "games" / first / "finished", time.monotonic() + 30
            while not marker.exists():
                assert time.monotonic() < deadline, "the superseded game never marked finished"
                time.sleep(0.02)
            first = rig.link.game_id
            assert json.loads(rig.lines_on_disk()[0])["white"] == "Rossi, Mario"
            rig.sim_action({"action": "adjudicate", "result": "1-0"})
            # pieces off and on again: the next game begins, with the pairing
            rig.step("-b1")  # held until the sensors reported it
            oled = rig.controller.screen.display  # the OLED between games: the pairing
            deadline = time.monotonic() + 30
            while oled.state.title != "r3 Rossi, Mario - Bianchi, Luca":
                assert time.monotonic() < deadline, oled.state
                time.sleep(0.02)
            rig.step("+b1")
            deadline = time.monotonic() + 30
            while rig.link.game_id == first:
                assert time.monotonic() < deadline, "no second game"
                time.sleep(0.02)
            start = json.loads(rig.lines_on_disk()[0])
            assert (start.get("event"), start.get("round"), start.get("white"), start.get("black")) == (
                "Regionale", "3", "Rossi, Mario", "Bianchi, Luca")
            hub.wait(lambda h: any(m["game"] == rig.link.game_id and m["line"] == 1
                                   for m in h.of("journal")), what="the new start line")
        # kept across a restart (STATE/hall/pairing.json)
        assert json.loads((root / "hall" / "pairing.json").read_text())["pairing"] == pairing
        with HallRig(root, broker.port) as rig:
            assert rig.controller.config.white == "Rossi, Mario"
            assert rig.controller.banner == "r3 Rossi, Mario - Bianchi, Luca"


def test_resend_republishes_from_disk_then_live_lines_follow(tmp_path: Path) -> None:
    with Broker(tmp_path) as broker, Hub(broker.port) as hub, \
            HallRig(tmp_path / "board", broker.port) as rig:
        _play_a_little(rig)
        _all_lines_arrived(hub, rig)
        game = rig.link.game_id
        n = len(rig.lines_on_disk())
        seen = len(hub.of("journal"))

        def resent(h: Hub) -> list[tuple[int, str]]:  # live lines may come between
            return [(m["line"], m["text"]) for m in h.of("journal")[seen:] if m["line"] <= n]
        hub.send({"resend": {"game": game, "from": 2}})
        hub.wait(lambda h: len(resent(h)) >= n - 1, what="the resent lines")
        assert resent(hub) == list(zip(range(2, n + 1), rig.lines_on_disk()[1:n], strict=True))
        rig.sim_action({"action": "note", "text": "live after the resend"})
        hub.wait(lambda h: any(k > n and "live after the resend" in t
                               for k, t in h.journal(game).items()), what="the live line")
        _all_lines_arrived(hub, rig)


def test_broker_not_there_at_start_the_board_plays_and_catches_up(tmp_path: Path) -> None:
    broker = Broker(tmp_path)
    broker.start()
    with Hub(broker.port, session="hub-test"):  # the hub's persistent session, then away
        pass
    broker.stop()
    try:
        with HallRig(tmp_path / "board", broker.port) as rig:
            _play_a_little(rig)  # the board plays with no broker at all
            assert not rig.link.connected.is_set()
            broker.start()
            with Hub(broker.port, session="hub-test") as hub:
                _all_lines_arrived(hub, rig)  # queued by paho while the broker was away
    finally:
        broker.stop()  # once the board stopped: it says so to the broker, as it does at once


def test_broker_killed_and_restarted_mid_game_nothing_missing_after_resend(
        tmp_path: Path) -> None:
    broker = Broker(tmp_path)
    broker.start()
    try:
        with Hub(broker.port, session="hub-kill") as hub, \
                HallRig(tmp_path / "board", broker.port) as rig:
            rig.move("d3", "e4", "white")
            broker.kill()
            rig.move("c6", "d5", "black")  # while the broker is down
            broker.start()
            rig.move("e4", "c6", "white")
            game = rig.link.game_id
            assert rig.link.connected.wait(30) and hub.subscribed.wait(30)
            # the hub's rule: from its first missing line, after a status says how many
            total = len(rig.lines_on_disk())
            hub.wait(lambda h: any(s.get("lines", 0) >= 1 for s in h.of("status")),
                     what="a status")
            have = hub.journal(game)
            first_missing = next((i for i in range(1, total + 1) if i not in have), total + 1)
            if first_missing <= total:
                hub.send({"resend": {"game": game, "from": first_missing}})
            _all_lines_arrived(hub, rig)
    finally:
        broker.stop()


def test_board_restart_status_gives_the_heads_and_a_resend_fills_in(tmp_path: Path) -> None:
    root = tmp_path / "board"
    with Broker(tmp_path) as broker, Hub(broker.port) as hub:
        with HallRig(root, broker.port) as rig:
            rig.move("d3", "e4", "white")
            _all_lines_arrived(hub, rig)
            game = rig.link.game_id
        with HallRig(root, broker.port) as rig:  # resumed: a restart line journaled
            assert rig.link.game_id == game
            types = [json.loads(x)["type"] for x in rig.lines_on_disk()]
            total = types.index("restart") + 1  # the snapshot that follows may be there too
            hub.wait(lambda h: any(s.get("online") and s.get("lines", 0) >= total
                                   for s in h.of("status")), what="the status heads")
            status = [s for s in hub.of("status") if s.get("online")][-1]
            assert status["game"] == game and status["lines"] >= total
            assert [game, status["lines"], False] in status["games"]
            have = hub.journal(game)  # the live lines may have come before the status
            first_missing = next(i for i in range(1, total + 2) if i not in have)
            hub.send({"resend": {"game": game, "from": first_missing}})
            _all_lines_arrived(hub, rig)


def _junk(rng: random.Random, game: str) -> bytes:
    """Payloads a broken or hostile client could send on ``cmd``."""
    pick = rng.randrange(12)
    if pick == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
    if pick == 1:
        return b"[" * rng.randrange(1, 5000)
    if pick == 2:
        return b"x" * (70 * 1024)
    values = [None, True, 0, -1, 10**12, 1.5, "", "x" * 300, [], {}, {"a": 1}, "1-0",
              "note", game, "2026-01-01T0000-001", "\n", '"']
    def v() -> object:
        return rng.choice(values)
    options = [
        {"id": v(), "action": v()},
        {"id": "j", "action": {"action": v(), "result": v(), "text": v()}},
        {"id": "j", "action": {"action": "note", "text": v(), "extra": v()}},
        {"id": v(), "pairing": {rng.choice(["event", "round", "white", "x"]): v()}},
        {"resend": v()},
        {"resend": {"game": v(), "from": v()}},
        {"resend": {"game": game, "from": rng.choice([1, 10**9, 0, -5, "1"])}},
        {"id": "j"},
        {"nothing": v()},
    ]
    obj = rng.choice(options)
    if isinstance(obj.get("id"), str):
        obj["id"] = f"{obj['id']}-{rng.randrange(10**9)}"
    return json.dumps(obj).encode()


def test_fuzzed_commands_never_stop_the_board(tmp_path: Path) -> None:
    rng = random.Random(11)
    with Broker(tmp_path) as broker, Hub(broker.port) as hub, \
            HallRig(tmp_path / "board", broker.port) as rig:
        assert rig.link.subscribed.wait(30)
        game = rig.link.game_id
        for _ in range(300):
            hub.send(_junk(rng, game))
        hub.send({"id": "after", "action": {"action": "note", "text": "still here"}})
        hub.wait(lambda h: bool(h.acks("after")), timeout=20, what="the ack after the junk")
        assert hub.acks("after")[0]["ok"] is True
        rig.move("d3", "e4", "white")  # the board plays on
        _all_lines_arrived(hub, rig)
        assert rig.thread.is_alive() and rig.error is None


def test_the_same_resend_again_is_served_after_a_wait_that_doubles(tmp_path: Path,
                                                                   monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Issue 38: a hub that cannot take the lines asked again every 5 s and the board resent its
    152 lines each time. The same request again is served after a wait doubling from
    RESEND_BACKOFF up to RESEND_BACKOFF_MAX (shortened here); another start at once."""
    import pi.hall.link as link
    monkeypatch.setattr(link, "RESEND_BACKOFF", 0.2)
    monkeypatch.setattr(link, "RESEND_BACKOFF_MAX", 0.8)
    with Broker(tmp_path) as broker, Hub(broker.port) as hub, \
            HallRig(tmp_path / "board", broker.port) as rig:
        _play_a_little(rig)
        _all_lines_arrived(hub, rig)
        game = rig.link.game_id
        seen = len(hub.of("journal"))

        def served(h: Hub, start: int) -> list[float]:
            """When line ``start`` came again (one per resend served)."""
            with h.cond:
                return [t for t, (lf, p, _) in zip(h.times[seen:], h.messages[seen:],
                                                   strict=True)
                        if lf == "journal" and json.loads(p)["line"] == start]
        asked, end = 0, time.monotonic() + 30
        while len(served(hub, 2)) < 5:  # asked every 50 ms until served five times (~2.2 s)
            assert time.monotonic() < end, f"asked {asked} times, served {served(hub, 2)}"
            hub.send({"resend": {"game": game, "from": 2}})
            asked += 1
            time.sleep(0.05)
        times = served(hub, 2)
        gaps = [b - a for a, b in zip(times, times[1:], strict=False)]
        # at 0, 0.2, 0.6, 1.4, 2.2 s: not once per request (~44 of them)
        assert 5 <= len(times) <= 6 and asked >= 2 * len(times), (asked, gaps)
        assert gaps[0] >= 0.15 and gaps[1] >= 0.35 and all(g >= 0.7 for g in gaps[2:]), gaps
        assert all(g <= 1.2 for g in gaps), gaps  # capped
        hub.send({"resend": {"game": game, "from": 3}})  # another start: served at once
        hub.wait(lambda h: len(served(h, 3)) > len(times), timeout=2, what="the new start")


def test_a_board_with_a_key_signs_its_acks(tmp_path: Path) -> None:
    """Issue 38, item 6: the board signs every ack (a pairing's too) with its key, as its lines
    and status (PROTOCOL.md, "Acknowledgements"); the hub takes a pairing's ack only so."""
    from pi.board.config import MqttSpec
    from pi.hall.signing import ack_mac

    key = bytes(range(32))
    with Broker(tmp_path) as broker, Hub(broker.port) as hub:
        spec = MqttSpec(f"mqtt://127.0.0.1:{broker.port}", "127.0.0.1", broker.port, False,
                        HALL, NUMBER, key=key)
        with HallRig(tmp_path / "board", broker.port, spec) as rig:
            assert rig.link.subscribed.wait(30)
            hub.send({"id": "p-1", "pairing": {"white": "Anna", "black": "Marco"}})
            hub.wait(lambda h: bool(h.acks("p-1")), what="the ack")
            ack = hub.acks("p-1")[0]
            assert ack["ok"] is True and ack["mac"] == ack_mac(key, ack)
