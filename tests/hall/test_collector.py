"""The hub process's garbage collector (``pi.hall.collector``): young collections walk the new
objects once and free their cycles; survivors are frozen, never walked again until the
whole heap's collection every ten minutes, which frees the cycles that died old."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from pi.hall.collector import Collector


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


def test_the_full_collection_runs_on_its_period(collector: Collector) -> None:
    a, alive = _cycle()
    _young_collection()
    del a

    async def wait() -> None:
        task = asyncio.ensure_future(collector.run())
        for _ in range(100):
            await asyncio.sleep(0.02)
            if alive() is None:
                break
        task.cancel()
    asyncio.run(wait())
    assert alive() is None


def test_uninstall_gives_python_its_own_policy_back() -> None:
    before, callbacks = gc.get_threshold(), list(gc.callbacks)
    c = Collector(young=300)
    c.install()
    assert gc.get_threshold()[0] == 300 and gc.get_freeze_count() > 0
    assert len(gc.callbacks) == len(callbacks) + 1
    c.uninstall()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    assert gc.callbacks == callbacks
