"""What the board shows and says (the controller's screen, OLED and voice): a frame for the
screen only when what it draws changed, the clock's cues (COMP 3.6.2 i, 5.7) and the results'
patterns on the buzzer, the clock's readings and the arbiter's decisions to the voice. A
failing output is logged and contained: the game goes on. The loop's thread only.

The outputs are the controller's own (:class:`Outputs`: its ``screen``, ``speech`` and
``beep``), read at each use: a screen swapped in later (a benchmark's timing screen) is the one
drawn on."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from engine.clock_display import CueTracker
from engine.decisions import Decision
from pi.board.speech import BoardSpeech
from pi.drivers.display import DisplayState, face_texts

log = logging.getLogger(__name__)

__all__ = ["Screen", "Outputs", "BoardScreen"]


class Screen(Protocol):
    """Where the controller shows its state (the OLED through ``pi.drivers.display.BoardDisplay``, the
    terminal in the simulator). ``show`` is called only when the state changed."""

    def show(self, state: DisplayState) -> None: ...


class Outputs(Protocol):
    """The board's outputs (``pi.board.controller.BoardController``'s)."""

    @property
    def screen(self) -> Screen | None: ...

    @property
    def speech(self) -> BoardSpeech | None: ...

    @property
    def beep(self) -> Callable[[str], None] | None: ...


class BoardScreen:
    """See the module docstring."""

    def __init__(self, outputs: Outputs) -> None:
        self.outputs = outputs
        self._shown: tuple[Any, ...] | None = None
        self._cues = CueTracker()

    def new_game(self) -> None:
        """A game begins: its clock's cues are counted afresh."""
        self._cues = CueTracker()

    def show(self, state: DisplayState, game_id: str | None, force: bool = False) -> None:
        """``state`` shown: its clock's cues played and the reading told to the voice (in a
        game, ``game_id``), then a frame when what the screen draws changed (``force``: in
        any case)."""
        if game_id is not None and state.clock is not None:
            for cue in self._cues.update(state.clock):
                self.beep(cue.buzzer)  # the clock's cues (COMP 3.6.2 i, 5.7): short or long
            speech = self.outputs.speech
            if speech is not None:
                speech.clock(state.clock, game_id)
        drawn = _drawn(state)
        screen = self.outputs.screen
        if screen is None or (drawn == self._shown and not force):
            return  # the reading's time changed, not what the screen shows: no frame
        self._shown = drawn
        try:
            screen.show(state)
        except Exception:
            log.exception("the screen failed; the game goes on")

    def decided(self, decisions: Iterable[Decision]) -> None:
        """The arbiter's decisions, told to the voice."""
        speech = self.outputs.speech
        if speech is not None:
            speech.decided(decisions)

    def beep(self, pattern: str) -> None:
        """A buzzer pattern (``pi.drivers.buzzer``)."""
        beep = self.outputs.beep
        if beep is not None:
            try:
                beep(pattern)
            except Exception:
                log.exception("buzzer pattern %s failed", pattern)


def _drawn(state: DisplayState) -> tuple[Any, ...]:
    """What the screen draws of ``state`` (the faces' texts, not the reading's exact time)."""
    return (face_texts(state), state.move_number, state.side_to_move, state.last_move,
            state.message, state.title)
