"""The hall link's cost on the daemon's loop (issue 11: the link must never slow the board).

Run: ``.venv/bin/python benchmarks/bench_link.py [--games N] [--quick]``.

A real :class:`pi.board.controller.BoardController` on a real state directory (journal fsync'd) plays
the bundled sample game (``pi/samples/italian_sample.jsonl``, natural physical events) ``--games``
times, inside a running asyncio loop, with a :class:`pi.hall.link.BoardLink` connected to a
private Mosquitto (``tests/hall/broker.py``) and a subscriber counting what arrives. Measured on
the loop's thread:

* *listener*: ``BoardLink.on_fed`` per journal line (the hand-off to the out thread, and the
  ``state`` object when its interval is due);
* *state*: building one ``state`` (``pi.web.views.state_dict``, arbiter view) — at most
  ``1/state_interval`` per second, whatever the pace of the lines;
* *handle*: ``BoardController.handle`` per event (journal fsync, arbiter, listeners) with the
  link and, in another state directory, without it.

Figures only, never assertions (tests/benchmarks/test_bench_link.py runs it with tiny sizes).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest.mock import patch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "hall")]

from broker import Broker

from engine.events import (ArbiterActed, ButtonPressed, PieceLifted, PiecePlaced, SnapshotTaken,
                           TraceEnded)
from hardware_mocks.simulate import read_trace
from pi.board.config import Config, MqttSpec
from pi.board.controller import BoardController
from pi.board.statedir import StateDir
from pi.drivers.timebase import GameTime

SAMPLE = ROOT / "pi" / "samples" / "italian_sample.jsonl"


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def _row(name: str, values: list[float]) -> str:
    us = [v * 1e6 for v in values]
    return (f"{name:<22} {len(us):>6} {_pct(us, 0.5):>9.1f} {_pct(us, 0.99):>9.1f} "
            f"{max(us) if us else float('nan'):>9.1f} {statistics.fmean(us) if us else 0:>9.1f}")


async def _play(root: Path, config: Config, games: int, port: int | None
                ) -> dict[str, list[float]]:
    from pi.hall.link import BoardLink
    loop = asyncio.get_running_loop()
    state = StateDir.open(root)
    start, events, _raw = read_trace(str(SAMPLE))
    config = replace(config, variant=start.variant, time_control=start.time_control,
                     clock=start.clock, settle=start.settle)
    now = [0.0]  # the game's own times (the trace's), not the wall's: the sample plays at once
    controller = BoardController(config, state, GameTime(lambda: now[0], epoch=0.0))
    times: dict[str, list[float]] = {"handle": [], "listener": [], "state": []}
    link = None
    if port is not None and config.mqtt is not None:
        link = BoardLink(config.mqtt, controller, controller, state, loop)
        link.start()
        fed = link.on_fed
        send = link._send_state  # the state message's sender, timed below

        def timed_fed(f: Any) -> None:
            t0 = time.perf_counter()
            fed(f)
            times["listener"].append(time.perf_counter() - t0)

        def timed_state() -> None:
            t0 = time.perf_counter()
            send()
            times["state"].append(time.perf_counter() - t0)
        patch.object(link, "_send_state", timed_state).start()  # for the link's life
        controller.listeners.append(timed_fed)
        link.connected.wait(5)
    expected = controller.expected
    for _ in range(games):
        now[0] += 10.0
        controller.handle(SnapshotTaken(controller.time.stamp(), frozenset()))
        controller.handle(SnapshotTaken(controller.time.stamp(), expected))  # a game begins
        offset = controller.time.stamp()  # the game just began: its t = 0
        for event in events:
            if isinstance(event, SnapshotTaken) and event.t == 0:
                continue
            if not isinstance(event, (PieceLifted, PiecePlaced, SnapshotTaken, ButtonPressed,
                                      ArbiterActed, TraceEnded)):
                continue  # a trace's records of the daemon itself: not an input of a board
            now[0] = max(now[0], offset + event.t)
            item = replace(event, t=offset + event.t)
            t0 = time.perf_counter()
            controller.handle(item)
            times["handle"].append(time.perf_counter() - t0)
            await asyncio.sleep(0)  # the loop runs its timers (the link's state) between events
        if controller.session is not None and not controller.session.finished:

            controller.handle(ArbiterActed(controller.time.stamp(), "adjudicate", "1-0", None))
    if link is not None:
        await link.aclose()
        times["state_bytes"] = [float(link.state_bytes)]
    controller.stop()
    state.close()
    return times


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=5, help="sample games played (default 5)")
    ap.add_argument("--quick", action="store_true", help="one game")
    args = ap.parse_args(argv)
    games = 1 if args.quick else max(1, args.games)
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        with Broker(base) as broker:
            import paho.mqtt.client as mqtt
            from paho.mqtt.enums import CallbackAPIVersion
            got = [0]
            lock = threading.Lock()

            def on_message(c: Any, u: Any, m: Any) -> None:
                with lock:
                    got[0] += 1
            sub = mqtt.Client(CallbackAPIVersion.VERSION2)
            sub.on_message = on_message
            sub.connect("127.0.0.1", broker.port)
            sub.subscribe("damiera/bench/boards/1/journal", 1)
            sub.loop_start()
            spec = MqttSpec(broker.url, "127.0.0.1", broker.port, False, "bench", 1)
            config = Config(source="(bench)", board=1, mqtt=spec)
            # without first: a warm start favours the second run, not the link's
            without = asyncio.run(_play(base / "without", replace(config, mqtt=None), games,
                                        None))
            with_link = asyncio.run(_play(base / "with", config, games, broker.port))
            lines = len(with_link["listener"])
            deadline = time.monotonic() + 10
            while got[0] < lines and time.monotonic() < deadline:
                time.sleep(0.05)
            sub.loop_stop()
            sub.disconnect()
    print(f"hall link on the daemon's loop: {games} sample game(s), {lines} journal lines")
    print(f"{'':<22} {'n':>6} {'p50 µs':>9} {'p99 µs':>9} {'max µs':>9} {'mean µs':>9}")
    print(_row("listener (on_fed)", with_link["listener"]))
    print(_row("state build", with_link["state"]))
    print(_row("handle, link on", with_link["handle"]))
    print(_row("handle, link off", without["handle"]))
    print(f"journal lines at the subscriber: {got[0]} of {lines}")
    print(f"largest state: {int(with_link['state_bytes'][0])} bytes (the protocol's limit: "
          "65536)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
