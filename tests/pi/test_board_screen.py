"""What the board shows and says (``pi.board.screen``, issue 39: the controller hands its
screen to an object of its own): a frame only when what the screen draws changed, a failing
screen or buzzer contained, the outputs read at each use (a screen swapped in later is drawn
on), decisions told to the voice. The clock's cues and readings under the daemon:
``test_controller.py``, ``test_speech_daemon.py``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import pytest

from pi.board.screen import BoardScreen
from pi.drivers.display import DisplayState


@dataclass
class Recorder:
    frames: list[DisplayState] = field(default_factory=list)
    fail: bool = False

    def show(self, state: DisplayState) -> None:
        if self.fail:
            raise OSError("I2C bus gone")
        self.frames.append(state)


@dataclass
class Voice:
    told: list[Any] = field(default_factory=list)

    def decided(self, decisions: Iterable[Any]) -> None:
        self.told.append(list(decisions))


@dataclass
class Board:
    """The controller's outputs, as ``pi.board.screen.Outputs`` reads them."""

    screen: Recorder | None = None
    speech: Voice | None = None
    beep: Callable[[str], None] | None = None


def test_a_frame_only_when_what_is_drawn_changed_or_forced() -> None:
    board = Board(screen=Recorder())
    face = BoardScreen(board)  # type: ignore[arg-type]
    face.show(DisplayState(message="set up the pieces", move_number=0), None)
    face.show(DisplayState(message="set up the pieces", move_number=0), None)
    assert len(board.screen.frames) == 1  # type: ignore[union-attr]
    face.show(DisplayState(message="set up: +21", move_number=0), None)
    face.show(DisplayState(message="set up: +21", move_number=0), None, force=True)
    assert [f.message for f in board.screen.frames] == [  # type: ignore[union-attr]
        "set up the pieces", "set up: +21", "set up: +21"]


def test_a_screen_swapped_in_later_is_the_one_drawn_on() -> None:
    board = Board(screen=Recorder())
    face = BoardScreen(board)  # type: ignore[arg-type]
    face.show(DisplayState(message="a"), None)
    board.screen = later = Recorder()
    face.show(DisplayState(message="b"), None)
    assert [f.message for f in later.frames] == ["b"]


def test_a_failing_screen_or_buzzer_is_logged_and_the_game_goes_on(
        caplog: pytest.LogCaptureFixture) -> None:
    def broken_beep(pattern: str) -> None:
        raise RuntimeError("PWM gone")
    board = Board(screen=Recorder(fail=True), beep=broken_beep)
    face = BoardScreen(board)  # type: ignore[arg-type]
    face.show(DisplayState(message="a"), None)
    face.beep("flag")
    messages = [r.getMessage() for r in caplog.records]
    assert "the screen failed; the game goes on" in messages
    assert "buzzer pattern flag failed" in messages


def test_decisions_go_to_the_voice_when_there_is_one() -> None:
    voice = Voice()
    board = Board(speech=voice)
    face = BoardScreen(board)  # type: ignore[arg-type]
    face.decided(["a decision"])  # type: ignore[list-item]
    board.speech = None  # silenced: nothing more is told, nothing fails
    face.decided(["unsaid"])  # type: ignore[list-item]
    assert voice.told == [["a decision"]]
    beeps: list[str] = []
    BoardScreen(Board(beep=beeps.append)).beep("end")  # type: ignore[arg-type]
    assert beeps == ["end"]
