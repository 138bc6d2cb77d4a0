"""A simulated board with its web server, for the web tests: the daemon's own ``run_daemon`` on
``hardware_mocks.simulate.Simulation`` (real time, real scan thread), in a thread of its own with
its own event loop, the server on a free loopback port. Requests are plain ``http.client`` calls
from the test's thread (the server cannot tell them from a browser's)."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
from pathlib import Path
from typing import Any

from hardware_mocks.positions import pieces_on
from hardware_mocks.sim_web import sim_routes
from hardware_mocks.simulate import Simulation, default_wiring
from engine.board import Board
from engine.variants import find_variant
from pi.board.config import Config
from pi.daemon import run_daemon
from pi.board.statedir import StateDir
from pi.drivers.wiring import load_wiring


class Rig:
    """``with Rig(tmp_path) as rig:`` — the board set up in the starting position (a game begins
    at once); ``rig.port``, ``rig.token``, ``rig.server`` (the WebServer), ``rig.sim``."""

    def __init__(self, root: Path, config: Config | None = None, simulate: bool = True,
                 wiring: Path | None = None, **web: Any) -> None:
        self.root = root
        self.wiring_path = wiring
        self.config = config or Config(source="(test)", time_control="600+5", white="Ann",
                                       black="Bob", event="Test")
        self.simulate = simulate
        self.web = web
        self.server: Any = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.stop_event: asyncio.Event | None = None
        self.error: BaseException | None = None
        self._ready = threading.Event()

    def __enter__(self) -> "Rig":
        wiring = load_wiring(self.wiring_path or default_wiring(self.config.variant))
        v = find_variant(self.config.variant)
        position = Board(self.config.fen, v)
        self.sim = Simulation(wiring, position.occupied_algebraic(), pieces=pieces_on(position))
        self.state = StateDir.open(self.root)
        self.thread = threading.Thread(target=self._run, args=(wiring,), daemon=True)
        self.thread.start()
        if not self._ready.wait(20):
            raise RuntimeError(f"the daemon did not start: {self.error}")
        if self.error is not None:
            raise RuntimeError(f"the daemon did not start: {self.error}")
        self.port = self.server.port
        self.token = self.server.token
        return self

    def _run(self, wiring: Any) -> None:
        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            self.stop_event = asyncio.Event()

            def got(server: Any) -> None:
                self.server = server
                for k, val in self.web.items():
                    setattr(server, k, val)
                self._ready.set()
            parts = self.sim.parts(http=("127.0.0.1", 0), on_web=got,
                                   web_routes=sim_routes(self.sim, self.config.variant)
                                   if self.simulate else None)
            await run_daemon(self.config, wiring, self.state, parts, stop=self.stop_event)
        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - reported to the test's thread
            self.error = exc
            self._ready.set()

    @property
    def controller(self) -> Any:
        """The daemon's BoardController (the board the server reads)."""
        return self.server.board

    def __exit__(self, *exc: object) -> None:
        if self.loop is not None and self.stop_event is not None:
            self.loop.call_soon_threadsafe(self.stop_event.set)
        self.thread.join(20)
        self.state.close()

    # ------------------------------------------------------------------ requests

    def request(self, method: str, path: str, body: Any = None, *, token: str | None = None,
                headers: dict[str, str] | None = None, raw: bytes | None = None,
                timeout: float = 10.0) -> tuple[int, dict[str, str], bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        h = dict(headers or {})
        if token is not None:
            h["Authorization"] = f"Bearer {token}"
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        if data is not None:
            h.setdefault("Content-Type", "application/json")
        try:
            conn.request(method, path, body=data, headers=h)
            resp = conn.getresponse()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
        finally:
            conn.close()

    def json(self, method: str, path: str, body: Any = None, **kw: Any) -> tuple[int, Any]:
        status, _, data = self.request(method, path, body, **kw)
        return status, json.loads(data) if data else None

    def state_now(self, arbiter: bool = True) -> dict[str, Any]:
        status, data = self.json("GET", "/api/state", token=self.token if arbiter else None)
        assert status == 200 and isinstance(data, dict), data
        return data

    def wait(self, predicate: Any, timeout: float = 30.0, arbiter: bool = True) -> dict[str, Any]:
        end = time.monotonic() + timeout
        while True:
            s = self.state_now(arbiter)
            if predicate(s):
                return s
            if time.monotonic() > end:
                raise AssertionError(f"state never matched: {json.dumps(s)[:600]}")
            time.sleep(0.02)

    def written(self, path: str, timeout: float = 30.0) -> bytes:
        """The arbiter's GET of a game's derived file (``game.pdn``, ``report.json``) once it
        is written: they follow the journal on the session's writer thread (the start line
        first), and until then the endpoint answers 404 "not written yet"."""
        end = time.monotonic() + timeout
        while True:
            status, _, body = self.request("GET", path, token=self.token)
            if status == 200:
                return body
            assert status == 404 and b"not written yet" in body and time.monotonic() < end, (
                status, body[:200])
            time.sleep(0.02)

    def move(self, src: str, dst: str, side: str) -> None:
        """A player's plain move: lift, place, press the clock."""
        self.step("-" + src, "+" + dst)
        status, data = self.json("POST", "/api/sim/button", {"name": "clock", "side": side},
                                 token=self.token)
        assert status == 200, data

    def step(self, *steps: str) -> None:
        """``-sq`` lifts, ``+sq`` places on the simulated board, each held until the sensors
        have reported it (:meth:`seen`)."""
        for item in steps:
            path = "/api/sim/lift" if item[0] == "-" else "/api/sim/place"
            status, data = self.json("POST", path, {"square": item[1:]}, token=self.token)
            assert status == 200, data
            self.seen(data["square"], occupied=item[0] == "+")

    def seen(self, square: str, *, occupied: bool, timeout: float = 30.0) -> None:
        """Waits until the sensors report ``square`` ``occupied`` (or empty): the scanner's
        debounced occupancy, read on the scan thread (``ScanLoop.submit``: a command runs
        before a scan, after the outputs of the scan before went to the daemon's inbox), so the
        change held long enough to be reported and the board was told before anything after
        it. A fixed sleep of a debounce or two was not enough on a loaded machine (the scan
        thread, starved, saw a lift only once the piece was back: no touch); a count of scans
        waited for the sensors' next poll (0.5 s) once the change was reported."""
        loop = self.sim.scan_loop
        assert loop is not None, "the daemon's scan loop is not up"
        end = time.monotonic() + timeout
        while (square in loop.submit(lambda s: s.occupancy()).result(timeout)) != occupied:
            assert time.monotonic() < end, f"the sensors never reported {square}: {occupied}"
            time.sleep(0.005)


class SSE:
    """A raw SSE client: ``events()`` yields (id, event, data) as they come."""

    def __init__(self, port: int, headers: dict[str, str] | None = None, path: str = "/events",
                 timeout: float = 30.0) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.conn.request("GET", path, headers=headers or {})
        self.resp = self.conn.getresponse()
        self.status = self.resp.status

    def next(self) -> tuple[str | None, str, Any]:
        ident: str | None = None
        name = "message"
        data: list[str] = []
        while True:
            line = self.resp.readline()
            if not line:
                raise EOFError("stream ended")
            text = line.decode().rstrip("\n")
            if text == "":
                if data:
                    return ident, name, json.loads("\n".join(data))
                ident, name, data = None, "message", []
                continue
            if text.startswith(":"):
                continue
            key, _, value = text.partition(": ")
            if key == "id":
                ident = value
            elif key == "event":
                name = value
            elif key == "data":
                data.append(value)

    def until(self, name: str, predicate: Any = lambda d: True, limit: int = 500
              ) -> tuple[str | None, str, Any]:
        for _ in range(limit):
            ident, ev, data = self.next()
            if ev == name and predicate(data):
                return ident, ev, data
        raise AssertionError(f"no {name} event")

    def close(self) -> None:
        self.conn.close()
