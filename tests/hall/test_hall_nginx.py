"""nginx (Debian's, with libnginx-mod-nchan) in front of a real hub, as ``damiera hub init --nginx``
writes its configuration (only the ports and nginx's folder moved, by hub init's own options):
2,000 live spectators and 2,000 feed pollers at once, every spectator receiving every move, and
the hub's CPU no higher than with 10 of each (issue 39; docs/organiser.md, "Spectators past the
hall's network"). The rig and the figures are benchmarks/bench_nginx.py's. And the arbiter's
wrong tokens through nginx logged by the address nginx was asked from (``X-Real-IP``).
"""

from __future__ import annotations

import asyncio
import importlib
import shutil
import sys
from pathlib import Path
from types import ModuleType

import aiohttp
import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    shutil.which("nginx") is None and not Path("/usr/sbin/nginx").exists(),
    reason="nginx is missing: make system-deps installs it (nginx, libnginx-mod-nchan)")

#: Spectators and pollers of the big run, and of the run it is compared with.
MANY = 2000
FEW = 10
#: The boards playing, and the journal lines each plays (the sample game's first: 24 plies).
BOARDS = 3
LINES = 120
#: The hub's CPU over the big run may pass the small one's by measurement noise only: the same
#: play, the same lines; what differs is nginx's (a second's cache per URL either way).
NOISE = 1.15
NOISE_S = 0.15


def bench() -> ModuleType:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return importlib.import_module("bench_nginx")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


@pytest.mark.slow
def test_two_thousand_spectators_and_pollers_cost_the_hub_nothing_more() -> None:
    b = bench()
    assert b.NCHAN_MODULE.exists(), "libnginx-mod-nchan is missing: make system-deps"
    assert b.raise_open_files(4 * (MANY + MANY) + 1024) >= 2 * (MANY + MANY) + 256
    rig = b.Rig.start(BOARDS)
    try:
        warm = asyncio.run(b.one_run(rig, FEW, FEW, 40.0, LINES, "warm-up"))
        assert warm["plies"] > 20 and warm["complete"] == FEW
        few = asyncio.run(b.one_run(rig, FEW, FEW, 40.0, LINES, "few"))
        many = asyncio.run(b.one_run(rig, MANY, MANY, 40.0, LINES, "many"))
        for r in (few, many):
            b.show(r)
        assert few["complete"] == FEW and few["errors"] == 0
        # every spectator, the board pages' and the hall page's, has every move of every game
        assert (many["complete"], many["errors"]) == (MANY, 0), many["incomplete"]
        # every poller answered all along, fresh or "not modified" (ETag), never an error
        assert set(many["statuses"]) <= {200, 304} and many["poll_errors"] == 0
        assert many["polls"] >= MANY  # each poller answered at least once
        assert many["statuses"].get(304, 0) > 0
        assert many["hub_cpu"] <= few["hub_cpu"] * NOISE + NOISE_S, (many, few)
        # the hub's own stream serves as before, beside nginx's
        assert asyncio.run(_hub_stream_says_hall(rig.hub_port))
    finally:
        rig.close()


async def _hub_stream_says_hall(port: int) -> bool:
    async with aiohttp.ClientSession() as s, s.get(
            f"http://127.0.0.1:{port}/events", timeout=aiohttp.ClientTimeout(total=10)) as r:
        async for raw in r.content:
            if raw.startswith(b"event: hall"):
                return True
    return False


@pytest.mark.slow
def test_wrong_tokens_through_nginx_are_logged_by_who_sent_them() -> None:
    """Through nginx the hub is asked from 127.0.0.1 alone; with the ``X-Real-IP`` nginx sets
    (and ``behind_nginx`` that ``hub init --nginx`` writes) the hub's log names each client
    (here 127.0.0.2 and 127.0.0.3, loopback addresses of their own), its throttle counts
    them apart; a client's own ``X-Real-IP`` is replaced by nginx's."""
    b = bench()
    rig = b.Rig.start(1)
    try:
        async def wrong_login(source: str) -> int:
            connector = aiohttp.TCPConnector(local_addr=(source, 0), ssl=rig.ssl_context())
            async with aiohttp.ClientSession(connector=connector) as s, s.post(
                    f"{rig.base}/api/login", json={"token": "wrong"},
                    headers={"X-Real-IP": "192.0.2.1"},
                    timeout=aiohttp.ClientTimeout(total=20)) as r:
                return r.status

        for source in ("127.0.0.2", "127.0.0.3"):
            assert asyncio.run(wrong_login(source)) == 401
        log = (rig.root / "hub.log").read_text()
        said = [line.split(" from ")[1].split()[0] for line in log.splitlines()
                if "wrong arbiter token" in line]
        assert said == ["127.0.0.2", "127.0.0.3"], log[-2000:]
    finally:
        rig.close()
