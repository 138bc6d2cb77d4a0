"""The 128×64 OLED: clock faces, move count, last move and a message line.

A message too long for its line takes the last move's line too (:func:`message_layout`): the
instruction after its last ``"; "`` (``black: correct or accept``) gets a line of its own, in a
smaller font if need be, and is the last thing ever cut.

The clock faces are the engine's (:mod:`engine.clock_display`, COMP 3.6.2 h): ``1h05``, ``9:59``,
``19.9``, the mosse-lampo countdown (COMP 5.7), never a format of our own, so the OLED, the web
and the journal show one clock.

Drawing follows luma's layers: :class:`BoardDisplay` draws with PIL inside
``luma.core.render.canvas(device)``; the device (``ssd1306``/``sh1106`` on I²C 0x3C, built by
:func:`pi.drivers.hardware.open_oled`, or luma's ``dummy`` in tests) turns pixels into bytes.
Call from the daemon's thread only.
"""

from __future__ import annotations

import logging
import math
import unicodedata
from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

from engine.clock_display import DEFAULT_RULES, DisplayRules, face_display, format_time
from engine.clock_events import ClockReading
from engine.colour import Colour
from engine.i18n import DEFAULT_LANGUAGE, N_, localize, translations
from engine.trace import NOT_ONE_LINE

log = logging.getLogger(__name__)

WIDTH, HEIGHT = 128, 64
#: Pixel boxes (left, top, right, bottom) of the screen areas; tests look at them.
HEADER_BOX = (0, 0, 128, 11)
WHITE_FACE_BOX = (0, 13, 63, 37)
BLACK_FACE_BOX = (65, 13, 128, 37)
LAST_MOVE_BOX = (0, 40, 128, 51)
MESSAGE_BOX = (0, 53, 128, 64)


#: A face with no clock behind it.
NO_TIME = "--:--"
#: A fallen flag's face (translated where it is drawn).
FLAG = N_("FLAG")


@dataclass(frozen=True)
class DisplayState:
    """What the screen shows. ``clock``: the game clock's reading (``GameClock.read(t)``); when
    given, the faces, whose face runs and the fallen flags come from it (mosse lampo included).
    Without it: times in seconds (None: no clock); ``running``: "white", "black" (or a
    ``Colour``) or None; ``flagged``: sides whose time has run out. ``title``: when given, the
    header line shows it instead of the move number (the hall's pairing while the board is
    being set up)."""

    white_time: float | None = None
    black_time: float | None = None
    running: str | Colour | None = None
    move_number: int = 1
    side_to_move: str = "white"
    last_move: str = ""
    message: str = ""
    flagged: tuple[str | Colour, ...] = ()
    clock: ClockReading | None = None
    title: str = ""


def format_clock(seconds: float | None, rules: DisplayRules = DEFAULT_RULES) -> str:
    """The engine's face text (:func:`engine.clock_display.format_time`) for ``seconds`` left:
    ``1h02``, ``4:59``, ``19.9``, floored; ``0.0`` at or below zero; ``--:--`` for None (no
    clock) or a value that is no time (NaN, infinite)."""
    if seconds is None or not math.isfinite(seconds):
        return NO_TIME
    return format_time(max(0, round(seconds * 1000)), rules)


def face_texts(state: DisplayState,
               rules: DisplayRules = DEFAULT_RULES) -> tuple[tuple[str, bool], tuple[str, bool]]:
    """(text, running) of White's and Black's faces as :class:`BoardDisplay` draws them: the
    engine's face (``FLAG`` once that side's flag fell)."""
    if state.clock is not None:
        faces: list[tuple[str, bool]] = []
        for face in (state.clock.white, state.clock.black):
            shown = face_display(face, rules)
            faces.append((FLAG if shown.flagged else shown.time, shown.running))
        return faces[0], faces[1]
    flagged = {str(side) for side in state.flagged}
    running = None if state.running is None else str(state.running)
    return ((FLAG if "white" in flagged else format_clock(state.white_time, rules),
             running == "white"),
            (FLAG if "black" in flagged else format_clock(state.black_time, rules),
             running == "black"))


#: Font sizes (px) of the message lines, largest first: a long message tries each in turn.
MESSAGE_SIZES = (10, 9, 8)
#: Texts kept drawn and measured (:class:`BoardDisplay`): a frame redraws mostly the texts of
#: the last one (a running face changes, the header and the other face do not); the faces make
#: a new text every second, so the memory is emptied when it holds more than this.
TEXT_CACHE = 256


def _cut(text: str, fits: Callable[[str], bool]) -> str:
    """``text``, or its longest prefix with ``..`` that fits."""
    if fits(text):
        return text
    while text and not fits(text + ".."):
        text = text[:-1]
    return text + ".."


def _wrap(text: str, fits: Callable[[str], bool]) -> tuple[str, str]:
    """``text`` in two lines at a space: the first as long as fits (the second may not fit)."""
    words = text.split(" ")
    for n in range(len(words) - 1, 0, -1):
        head = " ".join(words[:n])
        if fits(head):
            return head, " ".join(words[n:])
    return text, ""


def _one_line(text: str) -> str:
    """``text`` with each control character (a newline: an arbiter's note journaled by an older
    daemon, a hall banner) as a space: PIL refuses to measure a text with a newline, and every
    frame would fail while it is shown."""
    return "".join(" " if unicodedata.category(ch) in NOT_ONE_LINE else ch for ch in text)


def message_layout(text: str, measure: Callable[[str, int], float],
                   width: int = WIDTH) -> tuple[tuple[str, int], ...]:
    """The lines (text, font size) a message is drawn in, ``measure(text, size)`` giving its
    width in pixels. One line at the largest size when it fits; else two lines (the second the
    instruction after the message's last ``"; "``, or the words that wrap), at the largest size
    at which both fit; else, at the smallest size, the instruction kept whole (cut only if it
    alone is wider than the screen) and the line above cut with ``..``."""
    if not text or measure(text, MESSAGE_SIZES[0]) <= width:
        return ((text, MESSAGE_SIZES[0]),) if text else ()
    for size in MESSAGE_SIZES:
        def fits(t: str, size: int = size) -> bool:
            return measure(t, size) <= width
        head, sep, tail = text.rpartition("; ")
        if not sep:
            head, tail = _wrap(text, fits)
        if fits(head) and fits(tail):
            return ((head, size), (tail, size))
    size = MESSAGE_SIZES[-1]

    def fits_small(t: str) -> bool:
        return measure(t, size) <= width
    head, sep, tail = text.rpartition("; ")
    if not sep:
        head, tail = _wrap(text, fits_small)
    return ((_cut(head, fits_small), size), (_cut(tail, fits_small), size))


def _font(size: int) -> Any:
    from PIL import ImageFont
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # Pillow without FreeType: fixed bitmap font
        return ImageFont.load_default()


class TextCache:
    """PIL's ``draw.text`` and ``draw.textlength``, each text drawn and measured once (the last
    :data:`TEXT_CACHE` of them): a frame mostly redraws the texts of the one before. The pixels
    are PIL's own: a text is drawn by ``draw.text`` on an image of its own at the same fraction
    of a pixel, and put on the frame with ``draw.bitmap`` at the same whole pixel. One thread at
    a time (the OLED's)."""

    def __init__(self) -> None:
        self._drawn: dict[tuple[Any, ...], tuple[int, int, Any] | None] = {}
        self._lengths: dict[tuple[str, int, str], float] = {}

    def __len__(self) -> int:
        """Texts held: drawn, and measured (each at most :data:`TEXT_CACHE`)."""
        return len(self._drawn) + len(self._lengths)

    def length(self, draw: Any, text: str, font: Any) -> float:
        """``draw.textlength(text, font=font)``."""
        key = (text, id(font), draw.fontmode)
        n = self._lengths.get(key)
        if n is None:
            if len(self._lengths) >= TEXT_CACHE:
                self._lengths.clear()
            n = self._lengths[key] = float(draw.textlength(text, font=font))
        return n

    def draw(self, draw: Any, xy: tuple[float, float], text: str, font: Any, fill: int) -> None:
        """``draw.text(xy, text, font=font, fill=fill)`` (``xy`` not negative)."""
        from PIL import Image, ImageDraw
        x, y = xy
        ix, iy = int(x), int(y)  # as PIL places a text: whole pixels, then the fraction
        key = (text, id(font), draw.fontmode, x - ix, y - iy)
        if key not in self._drawn:
            if len(self._drawn) >= TEXT_CACHE:
                self._drawn.clear()
            size = int(getattr(font, "size", 12))
            pad = 2 * size + 4
            width = int(self.length(draw, text, font)) + 2 * pad
            scratch = Image.new("1" if draw.fontmode == "1" else "L",
                                (width, 2 * size + 2 * pad))
            ImageDraw.Draw(scratch).text((pad + x - ix, pad + y - iy), text, font=font,
                                         fill=255)
            box = scratch.getbbox()
            self._drawn[key] = None if box is None else (box[0] - pad, box[1] - pad,
                                                          scratch.crop(box))
        hit = self._drawn[key]
        if hit is not None:
            dx, dy, bitmap = hit
            draw.bitmap((ix + dx, iy + dy), bitmap, fill=fill)


class BoardDisplay:
    """Renders :class:`DisplayState` frames on a luma device (128×64, monochrome)."""

    def __init__(self, device: Any, rules: DisplayRules = DEFAULT_RULES) -> None:
        self.device = device
        self.rules = rules
        self.small = _font(10)
        self.large = _font(18)
        self.fonts = {size: _font(size) for size in MESSAGE_SIZES}
        self.state = DisplayState()
        # FreeType's rendering is most of a frame's time (four texts, about a millisecond on a
        # PC, on a thread that shares the interpreter with the event loop): each text drawn once
        self.texts = TextCache()
        #: The language the screen speaks (``engine.i18n.LANGUAGES``; the board's config sets it).
        self.language = DEFAULT_LANGUAGE

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
                                 s.side_to_move, s.last_move, text, s.flagged, s.clock,
                                 s.title))

    def _fit(self, draw: Any, text: str, font: Any, width: int) -> str:
        text = _one_line(text)
        if self.texts.length(draw, text, font) <= width:
            return text
        while text and self.texts.length(draw, text + "..", font) > width:
            text = text[:-1]
        return text + ".."

    def _draw(self, draw: Any, s: DisplayState) -> None:
        lang = self.language
        t = translations(lang)
        header = (localize(s.title, lang) if s.title else
                  t.gettext("move {n}  {side} to play").format(
                      n=s.move_number, side=localize(s.side_to_move, lang)))
        self.texts.draw(draw, (0, 0), self._fit(draw, header, self.small, WIDTH), self.small, 1)
        for box, (text, running) in zip((WHITE_FACE_BOX, BLACK_FACE_BOX),
                                        face_texts(s, self.rules), strict=True):
            left, top, right, bottom = box
            if running:
                draw.rectangle((left, top, right - 1, bottom - 1), fill=1)
            else:
                draw.rectangle((left, top, right - 1, bottom - 1), outline=1, fill=0)
            text = self._fit(draw, t.gettext(text), self.large, right - left - 4)
            width = self.texts.length(draw, text, self.large)
            x = left + (right - left - width) / 2
            self.texts.draw(draw, (x, top + 2), text, self.large, 0 if running else 1)
        lines = message_layout(_one_line(localize(s.message, lang)),
                               lambda text, size: self.texts.length(draw, text, self.fonts[size]))
        if s.last_move and len(lines) < 2:  # a long message takes the last move's line
            last = t.gettext("last: {move}").format(move=s.last_move)
            self.texts.draw(draw, (0, LAST_MOVE_BOX[1]),
                            self._fit(draw, last, self.small, WIDTH), self.small, 1)
        tops = (LAST_MOVE_BOX[1], MESSAGE_BOX[1])[2 - len(lines):]
        for top, (text, size) in zip(tops, lines, strict=True):
            self.texts.draw(draw, (0, top), text, self.fonts[size], 1)

    def clear(self) -> None:
        from luma.core.render import canvas
        with canvas(self.device):
            pass

    def close(self) -> None:
        """Leaves the last frame on the glass: the daemon's last word ("stopped") stays readable
        for the players and the arbiter after the process is gone. (luma's own ``cleanup``
        would blank it; it is not called.)"""
