"""Ten minutes of slow connections against a ``damiera hub`` process (issue 38): its memory stays
flat and its loop never stalls, the whole-heap collection at ten minutes included.

The attack: from three loopback addresses (one machine), 120 connections at a time, each sending
its request a few bytes at a time over two seconds (under the header deadline) — a path the hub
does not have (404), a method it does not take (405), a request line it refuses (400), a POST
answered before its body came (401: aiohttp lingers over the rest) — then going away. Before the
fix each such connection was a reference cycle the hub froze (``pi.hall.collector``), freed only
by the next whole-heap collection: 52 → 159 MB in a minute, then a 2.9 s stall. Measured: the
hub's resident memory (``/proc/<pid>/status``) and the longest wait of a page's request sent
every 0.1 s from the hall's own address (the loop's longest stall, as a browser sees it). The
fast check that no connection is left in a cycle is ``tests/web/test_guard.py``."""

from __future__ import annotations

import asyncio
import http.client
import itertools
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from tests.hall.broker import free_port
from tests.hall.hub_rig import hub_process, wait

#: How long the attack lasts (s): past the hub's first whole-heap collection (FULL_EVERY, 600 s).
SECONDS = 630.0
#: Connections open at a time, from each of three addresses (under the per-address cap of 64).
PER_ADDRESS = 40
ADDRESSES = ("127.0.0.2", "127.0.0.3", "127.0.0.4")
REQUESTS = (
    b"GET /no/such/page HTTP/1.1\r\nHost: hall\r\nUser-Agent: slow\r\n\r\n",
    b"DELETE /api/hall HTTP/1.1\r\nHost: hall\r\nUser-Agent: slow\r\n\r\n",
    b"GET /\xff\xfe HTTP/1.1\r\nHost: hall\r\nUser-Agent: slow\r\n\r\n",
    b"POST /api/rounds/1/start HTTP/1.1\r\nHost: hall\r\nContent-Type: application/json\r\n"
    b"Content-Length: 4000\r\n\r\n{\"x\": ",
)
#: Resident memory may grow this much (bytes) between the attack's first minute and its end.
FLAT = 12 * 1024 * 1024
#: The longest a page's request may wait (s).
STALL = 1.0


def rss(pid: int) -> int:
    """The process's resident memory (bytes)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for {pid}")


async def slow_client(port: int, address: str, requests: itertools.cycle[bytes],
                      until: float) -> int:
    """Slow connections one after the other until ``until``; returns how many."""
    done = 0
    while time.monotonic() < until:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                           local_addr=(address, 0))
        except OSError:
            await asyncio.sleep(0.1)
            continue
        try:
            data = next(requests)
            for i in range(0, len(data), 24):  # a few bytes every 0.2 s: ~2 s a request
                writer.write(data[i:i + 24])
                await asyncio.sleep(0.2)
            try:
                await asyncio.wait_for(reader.read(4096), 0.5)
            except asyncio.TimeoutError:
                pass
        except OSError:
            pass
        finally:
            writer.close()
        done += 1
    return done


def attack(port: int, seconds: float) -> int:
    """The attack of the module's doc for ``seconds``; returns the connections made."""
    async def main() -> int:
        until = time.monotonic() + seconds
        requests = itertools.cycle(REQUESTS)
        counts = await asyncio.gather(*(slow_client(port, a, requests, until)
                                        for a in ADDRESSES for _ in range(PER_ADDRESS)))
        return sum(counts)
    return asyncio.run(main())


def longest_wait(port: int, stop: threading.Event, out: list[float]) -> None:
    """A page's request every 0.1 s until ``stop``: each one's wait appended to ``out``."""
    while not stop.is_set():
        started = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("GET", "/api/whoami")
            conn.getresponse().read()
        finally:
            conn.close()
        out.append(time.monotonic() - started)
        stop.wait(0.1)


def measure(tmp_path: Path, seconds: float) -> tuple[list[tuple[float, int]], float, int]:
    """A hub process under the attack for ``seconds``: its (time, resident memory) samples every
    5 s, the longest wait of a page's request, the connections made."""
    port = free_port()
    hub = hub_process(tmp_path / "hub", f"mqtt://127.0.0.1:{free_port()}", port)  # no broker
    try:
        wait(lambda: _answers(port), 30, "the hub's pages")
        waits: list[float] = []
        stop = threading.Event()
        prober = threading.Thread(target=longest_wait, args=(port, stop, waits), daemon=True)
        prober.start()
        samples: list[tuple[float, int]] = []
        started = time.monotonic()

        def sample() -> None:
            while not stop.is_set():
                samples.append((time.monotonic() - started, rss(hub.pid)))
                stop.wait(5.0)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        made = attack(port, seconds)
        stop.set()
        prober.join(30)
        sampler.join(30)
        return samples, max(waits), made
    finally:
        os.killpg(hub.pid, signal.SIGTERM)
        hub.wait(15)


def _answers(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        conn.request("GET", "/api/whoami")
        return conn.getresponse().status == 200
    except OSError:
        return False


@pytest.mark.slow
def test_ten_minutes_of_slow_connections_leave_the_hubs_memory_flat(tmp_path: Path) -> None:
    samples, stall, made = measure(tmp_path, SECONDS)
    after_a_minute = next(m for t, m in samples if t >= 60.0)
    peak = max(m for _, m in samples)
    report = (f"{made} slow connections in {SECONDS:.0f} s; resident memory "
              f"{samples[0][1] / 2**20:.0f} MB at the start, {after_a_minute / 2**20:.0f} MB "
              f"after a minute, {peak / 2**20:.0f} MB at most, {samples[-1][1] / 2**20:.0f} MB "
              f"at the end; longest wait of a page {stall * 1000:.0f} ms")
    print(report)
    assert peak - after_a_minute < FLAT, report
    assert stall < STALL, report
