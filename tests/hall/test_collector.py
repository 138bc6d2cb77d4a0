"""The hub process's garbage collector (``pi.hall.collector``): young collections walk the new
objects once and free their cycles; survivors are frozen, never walked again until the
whole heap's collection — when the hall is quiet, at most every ten minutes, at the latest every
hour — which frees the cycles that died old."""

from __future__ import annotations

import asyncio
import gc
import json
import time
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pi.hall import protocol as P
from pi.hall.collector import Collector
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig

GAME = "2026-11-26T2200-001"


class Node:
    def __init__(self) -> None:
        self.other: Node | None = None


def _cycle() -> tuple[Node, weakref.ref[Node]]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(a)


def _young_collection() -> None:
    """Enough tracked allocations kept alive for a young collection to happen."""
    before = gc.get_stats()[0]["collections"]
    keep = []
    while gc.get_stats()[0]["collections"] == before:
        keep.append([None])


@pytest.fixture
def collector() -> Iterator[Collector]:
    gc.collect()
    c = Collector(young=200, full_every=0.05)
    c.install()
    try:
        yield c
    finally:
        c.uninstall()
        gc.collect()


def test_a_cycle_that_dies_young_is_freed_by_a_young_collection(collector: Collector) -> None:
    _young_collection()  # the count of new objects back to 0: none is made while the cycle is
    a, alive = _cycle()
    del a
    _young_collection()
    assert alive() is None


def test_survivors_are_frozen_and_a_cycle_that_died_old_waits_for_the_full_collection(
        collector: Collector) -> None:
    a, alive = _cycle()
    _young_collection()  # the cycle survives one: frozen
    assert gc.get_freeze_count() > 0
    assert gc.get_count()[1] == 0 and gc.get_count()[2] == 0  # no middle or old generation
    del a
    for _ in range(3):
        _young_collection()
    assert alive() is not None  # frozen: no young collection walks it
    freed, took = collector.full()
    assert alive() is None and freed >= 2 and took >= 0
    assert gc.get_freeze_count() > 0  # the full collection's survivors frozen again


def _freed_after(collector: Collector, idle: Callable[[], float] | None,
                 within: float) -> float | None:
    """Seconds until :meth:`Collector.run` freed a cycle that died old (None: not ``within``)."""
    a, alive = _cycle()
    _young_collection()
    del a

    async def wait() -> float | None:
        started = time.monotonic()
        task = asyncio.ensure_future(collector.run(idle))
        try:
            while time.monotonic() - started < within:
                await asyncio.sleep(0.01)
                if alive() is None:
                    return time.monotonic() - started
            return None
        finally:
            task.cancel()
    return asyncio.run(wait())


def test_the_full_collection_runs_on_its_period_when_the_hall_is_quiet(
        collector: Collector) -> None:
    took = _freed_after(collector, lambda: 60.0, within=2.0)  # a minute without a line
    assert took is not None and took >= collector.full_every


def test_in_the_middle_of_play_the_full_collection_waits_for_a_quiet_moment_or_its_latest(
        ) -> None:
    gc.collect()
    busy = Collector(young=200, full_every=0.05, full_at_latest=0.3, quiet=2.0)
    busy.install()
    try:
        # a line every tenth of a second: not at full_every, at full_at_latest
        took = _freed_after(busy, lambda: 0.1, within=5.0)
        assert took is not None and took >= 0.3
    finally:
        busy.uninstall()
    gc.collect()
    later = Collector(young=200, full_every=0.05, full_at_latest=60.0, quiet=2.0)
    later.install()
    asked: list[float] = []

    def idle() -> float:  # busy for three checks, then a quiet hall
        asked.append(0.1 if len(asked) < 3 else 5.0)
        return asked[-1]
    try:
        took = _freed_after(later, idle, within=5.0)
        assert took is not None and took < 60.0  # at the first quiet moment, not the latest
        assert asked[:4] == [0.1, 0.1, 0.1, 5.0]
    finally:
        later.uninstall()
        gc.collect()


def test_the_hub_says_how_long_since_its_last_journal_line(tmp_path: Path) -> None:
    hub = Hub(HubConfig(hall="t", state_dir=tmp_path, accept_unsigned=frozenset({7})),
              tmp_path)
    time.sleep(0.05)
    assert hub.idle() >= 0.05
    start = json.dumps({"type": "start", "variant": "italian", "id": GAME})
    hub.deliver([("damiera/t/boards/7/journal", P.journal_payload(GAME, 1, start, None))])
    assert hub.idle() < 0.05
    time.sleep(0.05)
    hub.deliver([("damiera/t/boards/7/journal", P.journal_payload(GAME, 1, start, None))])
    assert hub.idle() >= 0.05  # a line already held is no new line
    hub.close()


def test_uninstall_gives_python_its_own_policy_back() -> None:
    before, callbacks = gc.get_threshold(), list(gc.callbacks)
    c = Collector(young=300)
    c.install()
    assert gc.get_threshold()[0] == 300 and gc.get_freeze_count() > 0
    assert len(gc.callbacks) == len(callbacks) + 1
    c.uninstall()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    assert gc.callbacks == callbacks
