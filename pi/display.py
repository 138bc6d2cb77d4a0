"""The 128×64 OLED: clock faces, move count, last move and a message line.

Drawing follows luma's layers: :class:`BoardDisplay` draws with PIL inside
``luma.core.render.canvas(device)``; the device (``ssd1306``/``sh1106`` on I²C 0x3C, built by
:func:`pi.wiring.open_oled`, or luma's ``dummy`` in tests) turns pixels into bytes.
Call from the daemon's thread only.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

WIDTH, HEIGHT = 128, 64
#: Pixel boxes (left, top, right, bottom) of the screen areas; tests look at them.
HEADER_BOX = (0, 0, 128, 11)
WHITE_FACE_BOX = (0, 13, 63, 37)
BLACK_FACE_BOX = (65, 13, 128, 37)
LAST_MOVE_BOX = (0, 40, 128, 51)
MESSAGE_BOX = (0, 53, 128, 64)


@dataclass(frozen=True)
class DisplayState:
    """What the screen shows. Times in seconds (None: no clock); ``running``: "white", "black"
    or None; ``flagged``: sides whose time has run out."""

    white_time: float | None = None
    black_time: float | None = None
    running: str | None = None
    move_number: int = 1
    side_to_move: str = "white"
    last_move: str = ""
    message: str = ""
    flagged: tuple[str, ...] = ()


def format_clock(seconds: float | None) -> str:
    """"1:05:03" from an hour, "04:59" under it, "9.8" (tenths) under 20 s, "--:--" for None."""
    if seconds is None:
        return "--:--"
    if seconds <= 0:
        return "0.0"
    if seconds < 20:
        tenths = int(seconds * 10)  # truncate: never show time the player does not have
        return f"{tenths // 10}.{tenths % 10}"
    whole = int(seconds)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def _font(size: int) -> Any:
    from PIL import ImageFont
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # Pillow without FreeType: fixed bitmap font
        return ImageFont.load_default()


class BoardDisplay:
    """Renders :class:`DisplayState` frames on a luma device (128×64, monochrome)."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self.small = _font(10)
        self.large = _font(18)
        self.state = DisplayState()

    def render(self, state: DisplayState) -> None:
        """Draws a full frame. Device I/O errors are logged, never raised (the game goes on)."""
        from luma.core.render import canvas
        self.state = state
        try:
            with canvas(self.device) as draw:
                self._draw(draw, state)
        except OSError as e:
            log.warning("OLED write failed: %s", e)

    def show_message(self, text: str) -> None:
        """Redraws the last state with a new message line."""
        s = self.state
        self.render(DisplayState(s.white_time, s.black_time, s.running, s.move_number,
                                 s.side_to_move, s.last_move, text, s.flagged))

    def _fit(self, draw: Any, text: str, font: Any, width: int) -> str:
        if draw.textlength(text, font=font) <= width:
            return text
        while text and draw.textlength(text + "..", font=font) > width:
            text = text[:-1]
        return text + ".."

    def _draw(self, draw: Any, s: DisplayState) -> None:
        header = f"move {s.move_number}  {s.side_to_move} to play"
        draw.text((0, 0), self._fit(draw, header, self.small, WIDTH), font=self.small, fill=1)
        for side, box, seconds in (("white", WHITE_FACE_BOX, s.white_time),
                                   ("black", BLACK_FACE_BOX, s.black_time)):
            running = s.running == side
            left, top, right, bottom = box
            if running:
                draw.rectangle((left, top, right - 1, bottom - 1), fill=1)
            else:
                draw.rectangle((left, top, right - 1, bottom - 1), outline=1, fill=0)
            text = "FLAG" if side in s.flagged else format_clock(seconds)
            text = self._fit(draw, text, self.large, right - left - 4)
            width = draw.textlength(text, font=self.large)
            x = left + (right - left - width) / 2
            draw.text((x, top + 2), text, font=self.large, fill=0 if running else 1)
        if s.last_move:
            draw.text((0, LAST_MOVE_BOX[1]), self._fit(draw, f"last: {s.last_move}", self.small,
                                                       WIDTH), font=self.small, fill=1)
        if s.message:
            draw.text((0, MESSAGE_BOX[1]), self._fit(draw, s.message, self.small, WIDTH),
                      font=self.small, fill=1)

    def clear(self) -> None:
        from luma.core.render import canvas
        with canvas(self.device):
            pass

    def close(self) -> None:
        """Blank the screen on the way out (errors ignored)."""
        try:
            self.clear()
        except OSError:
            pass
