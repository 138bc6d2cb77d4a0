"""The two paths the developer's guide draws (docs/developer.md, "Two paths through the
board"), measured on the real daemon:
a sensor event from the scan thread to a browser's SSE stream, and an arbiter's action from
``POST /api/arbiter`` to its journal line and the answer.

A module is on a path when one of its functions is handed the thing travelling — the event, the
request, the journal line it became (``Fed``), the SSE message of that line — or hands it on
(the caller of such a function); the travelling thing's own methods do not count. Branches that
do not lead to the path's end are detached for the measure: the serial line's listener on the
first path, every listener (the line's broadcast, the first path's job) on the second. A
profiler on every thread of the daemon records them while one event travels; engine and pi
modules only (the simulator and the tests are not on the path).
Issue 15 set the bound: at most 10 modules each (22 and 16 before)."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from engine.events import ArbiterActed, PieceLifted
from engine.replay import Fed
from pi.board.arbiter_request import ArbiterRequest
from web_rig import SSE, Rig

BOUND = 10


class PathTracer:
    """``sys.setprofile``-style hook: while ``on``, records the modules of the functions handed
    something ``carried`` accepts, and of their callers, in order of first appearance."""

    def __init__(self, carried: Callable[[object], bool]) -> None:
        self.carried = carried
        self.on = False
        self.modules: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, frame: FrameType, what: str, arg: object) -> None:
        if what != "call" or not self.on:
            return
        name = _ours(frame)
        if name is None:
            return
        code = frame.f_code
        nargs = code.co_argcount + code.co_kwonlyargcount
        names = code.co_varnames[:nargs]
        # the carried thing's own methods are not a module it crosses: ``self`` is skipped
        args = [frame.f_locals.get(v) for v in names if v != "self"]
        if not any(self.carried(a) for a in args):
            return
        caller = frame.f_back
        with self._lock:
            for mod in (_ours(caller) if caller is not None else None, name):
                if mod is not None and mod not in self.modules:
                    self.modules.append(mod)


def _ours(frame: FrameType) -> str | None:
    name = frame.f_globals.get("__name__", "")
    return name if isinstance(name, str) and name.split(".")[0] in ("engine", "pi") else None


@pytest.fixture()
def traced() -> Iterator[list[PathTracer]]:
    """Every thread started from here on (the daemon's loop, its scan thread, ...) profiled by
    the tracers put in the list."""
    tracers: list[PathTracer] = []

    def hook(frame: FrameType, what: str, arg: object) -> None:
        for t in tracers:
            t(frame, what, arg)
    threading.setprofile(hook)
    try:
        yield tracers
    finally:
        threading.setprofile(None)  # type: ignore[arg-type]  # typeshed lacks None here
        sys.setprofile(None)


def _wait_line(sse: SSE, predicate: Callable[[str, Any], bool], timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        _, name, data = sse.next()
        if predicate(name, data):
            return
    raise AssertionError("the event never reached the stream")


def test_a_sensor_event_reaches_the_browser_through_at_most_10_modules(
        tmp_path: Path, traced: list[PathTracer]) -> None:
    lines: set[int] = set()

    def carried(v: object) -> bool:
        if isinstance(v, PieceLifted):
            return getattr(v, "square", None) == "d3"  # (None: being built)
        event = getattr(v, "event", None)
        if isinstance(v, Fed) and isinstance(event, PieceLifted) and event.square == "d3":
            lines.add(v.line)
            return True
        if isinstance(v, dict):  # its journal line
            return v.get("type") == "lift" and v.get("square") == "d3"
        if isinstance(v, (list, tuple)) and v and len(v) < 64:
            return any(carried(x) for x in v)
        if isinstance(v, bytes):
            return any(v.startswith(b"id: %d\n" % n) for n in lines)
        return False

    tracer = PathTracer(carried)
    traced.append(tracer)
    with Rig(tmp_path) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        # the board's other listeners (the serial line to a broadcast PC) are other branches
        listeners = rig.controller.listeners
        listeners[:] = [f for f in listeners if f == rig.server.feeds.on_fed]
        sse = SSE(rig.port, headers={"Authorization": f"Bearer {rig.token}"})
        try:
            _wait_line(sse, lambda name, data: name == "state")
            tracer.on = True
            status, data = rig.json("POST", "/api/sim/lift", {"square": "d3"}, token=rig.token)
            assert status == 200, data
            _wait_line(sse, lambda name, data: name == "state" and data.get("line", 0) in lines)
            time.sleep(0.1)  # the other clients' writes of the same line
            tracer.on = False
        finally:
            sse.close()
    print("sensor → browser:", " → ".join(tracer.modules))
    assert "pi.board.controller" in tracer.modules and "pi.web.feeds" in tracer.modules
    assert len(tracer.modules) <= BOUND, tracer.modules


def test_an_arbiter_action_reaches_its_journal_line_through_at_most_10_modules(
        tmp_path: Path, traced: list[PathTracer]) -> None:
    from aiohttp import web

    def carried(v: object) -> bool:
        if isinstance(v, web.BaseRequest):
            return v.path == "/api/arbiter"
        if isinstance(v, ArbiterRequest):
            return getattr(v, "text", None) == "path traced"
        if isinstance(v, ArbiterActed):
            return getattr(v, "text", None) == "path traced"
        if isinstance(v, dict):  # the request's body, the journal's line
            return v.get("text") == "path traced"
        event = getattr(v, "event", None)  # what carries the action into the board's inbox
        return isinstance(event, ArbiterActed) and event.text == "path traced"

    tracer = PathTracer(carried)
    traced.append(tracer)
    with Rig(tmp_path) as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        same = {"Origin": f"http://127.0.0.1:{rig.port}", "Sec-Fetch-Site": "same-origin"}
        # the line's broadcast (the board's listeners) is another path: detached for this one
        rig.controller.listeners.clear()
        tracer.on = True
        status, data = rig.json("POST", "/api/arbiter", {"action": "note", "text": "path traced"},
                                token=rig.token, headers=same)
        tracer.on = False
        assert status == 200, data
        journal = Path(rig.state.root, "games").glob("*/trace.jsonl")
        assert any(json.loads(line).get("text") == "path traced"
                   for path in journal for line in path.read_text().splitlines())
    print("POST /api/arbiter → journal line:", " → ".join(tracer.modules))
    assert "pi.board.journal" in tracer.modules and "pi.web.server" in tracer.modules
    assert len(tracer.modules) <= BOUND, tracer.modules
