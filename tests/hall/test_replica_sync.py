"""The replica never fsyncs on the caller's thread (the hub's event loop) when a descriptor
leaves its open set — a parked game, or the least recently written one past ``MAX_OPEN`` (more
boards than that write at once): the descriptor is fsynced and closed by the next sync (a worker
thread's), and nothing written is left unsynced (issue 19: on a busy disk every such fsync
blocked the loop 100 ms and more)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

import pi.hall.replication as hub_mod
import pi.hall.replica as mod
from pi.hall.hub import Hub
from pi.hall.hub_config import HubConfig
from pi.hall.replica import Replica, sync_taken


def _game(seq: int) -> str:
    return f"2026-11-22T0900-b07-{seq:03d}"


def test_evicted_and_parked_files_are_synced_by_the_sync_not_the_writer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mod, "MAX_OPEN", 3)
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(mod.os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    r = Replica(tmp_path)
    for seq in range(1, 9):  # 8 games written, 3 descriptors kept
        for n in range(1, 4):
            assert r.offer(7, _game(seq), n, f'{{"n": {n}}}').kind == "appended"
    g = r.game(7, _game(8))
    assert g is not None
    r.park(g)
    assert synced == []  # no fsync on the writer's thread
    assert r.open_files <= 3
    taken = r.take_dirty()
    assert len(taken) == 8  # every game written since the last sync, evicted or not
    sync_taken(taken)
    assert len(synced) >= 8  # each file (and the new folders) fsynced by the sync
    for fd, _ in taken:  # and closed
        with pytest.raises(OSError):
            os.fstat(fd)
    assert r.take_dirty() == []
    r.close()
    for seq in range(1, 9):
        path = tmp_path / "boards/7/games" / _game(seq) / "trace.jsonl"
        assert path.read_bytes() == b'{"n": 1}\n{"n": 2}\n{"n": 3}\n'


def test_descriptors_waiting_for_a_sync_stay_bounded(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """With no sync coming, past MAX_CLOSING descriptors waiting the oldest is synced at
    once."""
    monkeypatch.setattr(mod, "MAX_OPEN", 2)
    monkeypatch.setattr(mod, "MAX_CLOSING", 2)
    r = Replica(tmp_path)
    for seq in range(1, 12):
        r.offer(7, _game(seq), 1, "start")
    taken = r.take_dirty()
    assert len(taken) <= 2 + 2  # at most MAX_OPEN handed over, plus the open ones' duplicates
    sync_taken(taken)
    r.close()
    assert len(list((tmp_path / "boards/7/games").iterdir())) == 11


def test_the_hub_fsyncs_each_file_written_once_per_interval_as_the_protocol_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """PROTOCOL.md, "Durability at the hub": the replicas written since the last sync are
    fsynced every ``SYNC_EVERY`` seconds off the loop, each file once however many lines and
    batches it took meanwhile (at 1,000 boards a half second made ~1,000 fsyncs a second per
    share: docs/developer-hub-load.md)."""
    protocol = (Path(__file__).resolve().parents[2] / "pi" / "hall" / "PROTOCOL.md").read_text(
        encoding="utf-8")
    assert f"fsynced in batches\n  every {hub_mod.SYNC_EVERY:g} s (`SYNC_EVERY`)" in protocol
    hub = Hub(HubConfig(hall="t", state_dir=tmp_path), tmp_path)
    synced: list[list[int]] = [[]]  # the fsyncs of each sync (the first makes the folders too)
    real_fsync = os.fsync
    monkeypatch.setattr(mod.os, "fsync", lambda fd: synced[-1].append(fd) or real_fsync(fd))
    slept: list[float] = []

    async def run() -> None:
        real_sleep = asyncio.sleep

        async def sleep(seconds: float) -> None:
            slept.append(seconds)
            if len(slept) > 2:  # two syncs done
                raise asyncio.CancelledError
            if len(slept) == 2:
                synced.append([])
            for n in range(1, 6):  # the interval: three games written, batch after batch
                for seq in (1, 2, 3):
                    hub.replica.defer()
                    line = 5 * (len(slept) - 1) + n
                    assert hub.replica.offer(7, _game(seq), line, f'{{"n": {line}}}').kind \
                        == "appended"
                    assert hub.replica.flush() == []
            await real_sleep(0)

        monkeypatch.setattr(hub_mod.asyncio, "sleep", sleep)
        with pytest.raises(asyncio.CancelledError):
            await hub.sync_loop()

    asyncio.run(run())
    assert slept == [hub_mod.SYNC_EVERY] * 3 and hub_mod.SYNC_EVERY == 2.0
    assert len(synced[0]) > 3  # the three files and their new folders
    assert len(synced[1]) == 3  # then each file once for its five lines of the interval
