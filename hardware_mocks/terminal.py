"""The simulator's terminal screen: what the OLED shows, as text lines on a terminal.

:class:`TerminalDisplay` stands in for the OLED's :class:`pi.drivers.display.BoardDisplay` in the
simulator only (the daemon draws on it as on the OLED, through the same ``render`` calls): each
state the controller shows becomes a line with the move count, the side to move, both clock
faces (the engine's face text, ``FLAG`` once fallen), the last move and the message. A change of
anything but the running clock starts a new line; on a terminal the running clock rewrites the
current line in place, elsewhere (a pipe, a log) clock-only changes are not printed.
"""

from __future__ import annotations

import sys
import threading
from typing import Any, TextIO

from engine.i18n import DEFAULT_LANGUAGE, localize, translations
from pi.drivers.display import BoardDisplay, DisplayState, face_texts

__all__ = ["TerminalDisplay", "state_line"]


def state_line(state: DisplayState, language: str = DEFAULT_LANGUAGE) -> tuple[str, str]:
    """(the whole line, its part without the clocks) for ``state``, in ``language`` (the
    board's, as the OLED shows it)."""
    t = translations(language)
    (white, w_run), (black, b_run) = face_texts(state)
    white, black = t.gettext(white), t.gettext(black)
    # TRANSLATORS: the terminal's clocks: W(hite) and B(lack), one letter each
    w, b = t.gettext("W"), t.gettext("B")
    clocks = f"{w} {white}{'*' if w_run else ' '} {b} {black}{'*' if b_run else ' '}"
    move = t.gettext("move")
    rest = f"{move} {state.move_number:>3} {localize(state.side_to_move, language):<5}"
    tail = "  ".join(x for x in (state.last_move, localize(state.message, language)) if x)
    return f"{rest} | {clocks} | {tail}".rstrip(" |"), f"{rest} {tail}"


class TerminalDisplay(BoardDisplay):
    """A BoardDisplay that also writes each state to ``out`` (default stdout) as a text line;
    the luma ``device`` (a ``dummy`` in the simulator) still gets the frame."""

    def __init__(self, device: Any, out: TextIO | None = None, held: bool = False) -> None:
        """``held``: nothing is written until :meth:`release` (the daemon may still refuse to
        start, and a refusal leaves nothing on standard output); the state then shown is."""
        super().__init__(device)
        self.out = out if out is not None else sys.stdout
        self._tty = bool(getattr(self.out, "isatty", lambda: False)())
        self._last: tuple[str, str] | None = None
        self._lock = threading.Lock()
        self._holding = held
        self._waiting: DisplayState | None = None

    def release(self) -> None:
        """Starts writing (after ``held``), with the state shown meanwhile. Any thread."""
        with self._lock:
            self._holding = False
            waiting, self._waiting = self._waiting, None
            if waiting is not None:
                self._write(waiting)

    def render(self, state: DisplayState) -> None:
        super().render(state)
        with self._lock:
            if self._holding:
                self._waiting = state
                return
            self._write(state)

    def _write(self, state: DisplayState) -> None:
        """Writes ``state``'s line; called with ``self._lock`` held."""
        line, key = state_line(state, self.language)
        last = self._last
        if last is not None and line == last[0]:
            return
        self._last = (line, key)
        try:
            if last is not None and key == last[1]:
                if self._tty:  # only the running clock changed: rewrite the line
                    self.out.write("\r" + line.ljust(len(last[0])))
                    self.out.flush()
                return
            self.out.write(("\n" if self._tty and last is not None else "") + line
                           + ("" if self._tty else "\n"))
            self.out.flush()
        except (OSError, ValueError):  # a closed terminal must not stop the game
            pass

    def close(self) -> None:
        if self._tty and self._last is not None:
            try:
                self.out.write("\n")
                self.out.flush()
            except (OSError, ValueError):
                pass
