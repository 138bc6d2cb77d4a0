"""The simulator's web controls (``/api/sim/*`` of ``pi/web/API.md``): the pieces of the virtual
board lifted and placed (on an analog Hall board also crowned and uncrowned), the players'
buttons pressed as pin edges on the wiring's GPIOs, and the OLED image exactly as luma's dummy
device holds it. The daemon cannot import this module (pi never imports hardware_mocks):
``Parts.web_routes`` hands it to the web server."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from typing import TYPE_CHECKING, Any

from aiohttp import web

from engine.errors import InvalidSquareError
from engine.events import BUTTON_NAMES as BUTTONS, ButtonPressed, parse_piece, piece_code
from engine.squares import parse_square, square_name
from engine.variants import find_variant
from hardware_mocks.gpio import tap

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from hardware_mocks.simulated import Simulated
    from hardware_mocks.virtual_board import VirtualBoard

__all__ = ["sim_routes"]


def sim_routes(sim: Simulated, variant: str) -> Any:
    """``Parts.web_routes`` for the simulation ``sim`` of a ``variant`` board."""
    v = find_variant(variant)
    #: The set of pieces the board has: both sides' men (24, or 40 on a 10x10 board). A place
    #: puts down a piece lifted before, or one from the box of captured pieces; never a piece
    #: from nowhere (a 25th piece is refused).
    pieces = 2 * v.men_rows * v.size // 2

    def square(body: dict[str, Any]) -> str:
        value = body.get("square")
        if isinstance(value, bool):
            value = None
        if isinstance(value, int):
            if not 1 <= value <= v.geometry.count:
                raise _bad(f"no square {value} on a {v.name} board")
            return str(v.geometry.algebraic(value))
        if isinstance(value, str):
            try:
                return square_name(*parse_square(value.lower(), v.size))
            except InvalidSquareError:
                pass
        raise _bad("expected {\"square\": \"e3\"} (algebraic) or an official number")

    def board() -> VirtualBoard:
        if sim.board is None:
            raise web.HTTPServiceUnavailable(text='{"error": "the board is not built yet"}',
                                             content_type="application/json")
        return sim.board

    def routes(server: Any) -> list[tuple[str, str, Any, bool]]:
        async def lift(request: web.Request) -> web.Response:
            sq = square(await _body(request))
            try:
                board().lift(sq)
            except ValueError as exc:
                raise _bad(str(exc), 409) from None
            return web.json_response({"ok": True, "square": sq})

        async def place(request: web.Request) -> web.Response:
            body = await _body(request)
            sq = square(body)
            kind = body.get("piece")
            try:
                piece = parse_piece(kind) if kind is not None else None
            except ValueError as exc:
                raise _bad(str(exc)) from None
            if len(board().occupied) >= pieces:
                raise _bad(f"all {pieces} pieces are on the board: lift one first", 409)
            try:
                board().place(sq, piece=piece)
            except ValueError as exc:
                raise _bad(str(exc), 409) from None
            return web.json_response({"ok": True, "square": sq})

        def stack(crown: bool) -> Any:
            async def act(request: web.Request) -> web.Response:
                sq = square(await _body(request))
                try:
                    (board().crown if crown else board().uncrown)(sq)
                except ValueError as exc:
                    raise _bad(str(exc), 409) from None
                return web.json_response({"ok": True, "square": sq})
            return act

        async def button(request: web.Request) -> web.Response:
            body = await _body(request)
            name, side = body.get("name"), body.get("side")
            if name not in BUTTONS or side not in ("white", "black"):
                raise _bad(f"expected {{\"name\": one of {', '.join(BUTTONS)}, "
                           "\"side\": \"white\"|\"black\"}")
            gpio = sim.wiring.buttons.get(side, {}).get(name)
            if gpio is None:  # no such control wired: pressed through the drivers' queue
                sim.press(ButtonPressed(sim.time.stamp(), name, side))
            else:
                tap(sim.factory, gpio, sim.wiring.button_pull_up)
            return web.json_response({"ok": True})

        async def sensed() -> frozenset[str] | None:
            """The squares the board's sensors report (debounced). The scanner is the scan
            thread's alone: read there, by a command that runs before a scan and after the
            outputs of the scan before went to the board. Without that thread (stepped: the
            trace player scans on this loop's thread, or stopped) read here. None before the
            scan loop is up."""
            loop = sim.scan_loop
            if loop is None:
                return None
            if loop.running:
                try:
                    return await asyncio.wrap_future(loop.submit(lambda s: s.occupancy()))
                except RuntimeError:  # stopped meanwhile: its thread is gone
                    pass
            return loop.scanner.occupancy()

        async def state(request: web.Request) -> web.Response:
            b = board()
            answer: dict[str, Any] = {"occupied": sorted(b.occupied), "pieces": pieces}
            seen = await sensed()
            if seen is not None:
                answer["sensed"] = sorted(seen)
            if b.field is not None:  # an analog Hall board knows which piece stands where
                answer["kinds"] = {sq: piece_code(p) for sq in sorted(b.occupied)
                                   if (p := b.piece(sq)) is not None}
            return web.json_response(answer)

        async def oled(request: web.Request) -> web.Response:
            hw = sim.hardware
            device = None if hw is None or hw.display is None else hw.display.device
            image = getattr(device, "image", None)
            if image is None:
                raise web.HTTPNotFound(text='{"error": "no OLED frame yet"}',
                                       content_type="application/json")
            out = io.BytesIO()
            image.convert("1").save(out, format="PNG")  # 128x64 1-bit: well under a ms
            return web.Response(body=out.getvalue(), content_type="image/png",
                                headers={"Cache-Control": "no-store"})

        return [("POST", "/api/sim/lift", lift, True), ("POST", "/api/sim/place", place, True),
                ("POST", "/api/sim/crown", stack(True), True),
                ("POST", "/api/sim/uncrown", stack(False), True),
                ("POST", "/api/sim/button", button, True),
                # the virtual board and the OLED show a move held from the public (a pending
                # irregularity): the arbiter's, like the controls (issue 17)
                ("GET", "/api/sim/board", state, True), ("GET", "/api/sim/oled.png", oled, True)]
    return routes


def _bad(message: str, status: int = 400) -> web.HTTPException:
    exc = web.HTTPException(text=json.dumps({"error": message}), content_type="application/json")
    exc.set_status(status, "refused")
    return exc


async def _body(request: web.Request) -> dict[str, Any]:
    raw = await request.read()
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _bad("the body is not JSON") from None
    if not isinstance(body, dict):
        raise _bad("expected a JSON object")
    return body
