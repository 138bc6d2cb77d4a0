"""What the board shows and says (the controller's screen, OLED and voice): a frame for the
screen only when what it draws changed, the clock's cues (COMP 3.6.2 i, 5.7) and the results'
patterns on the buzzer, the clock's readings and the arbiter's decisions to the voice. A
failing output is logged and contained: the game goes on. The loop's thread only.

The outputs are the controller's own (:class:`Outputs`: its ``screen``, ``speech`` and
``beep``), read at each use: a screen swapped in later (a benchmark's timing screen) is the one
drawn on.

What it shows is :class:`ScreenContent`'s: the set-up's squares to put right (IT 7.1) or the
board turned the wrong way (IT 7.2) while no game is in play, a game's move, side, last move,
clock and message while one is; a record not written and a sensor fault over the message."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from engine.arbiter import Arbiter
from engine.articles import article
from engine.board import Board, Piece
from engine.clock import ClockState, GameClock
from engine.clock_display import CueTracker
from engine.decisions import Decision
from engine.i18n import N_
from engine.squares import square_mirror, square_sort_key
from engine.variants import Variant
from pi.board.speech import BoardSpeech
from pi.drivers.display import DisplayState, face_texts

log = logging.getLogger(__name__)

__all__ = ["Screen", "Outputs", "BoardScreen", "ScreenContent", "SetupView", "clock_started"]


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


@dataclass(frozen=True)
class SetupView:
    """What the sensed board lacks to be the starting position, in square order (algebraic
    names): squares to fill and to empty, the board turned the wrong way (IT 7.2: the pieces
    stand as the starting position mirrored), and the squares a board that knows the pieces
    reads another piece on than the set-up's (IT 7.1)."""

    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    turned: bool = False
    wrong: tuple[str, ...] = ()


class ScreenContent:
    """What the screen shows (:class:`DisplayState`) of a board of ``variant`` whose games
    start from ``fen`` (None: the variant's own): the set-up while no game is in play, else
    the game. Pure: the
    controller hands it what it knows (its phase decides which of the two)."""

    def __init__(self, variant: Variant, fen: str | None) -> None:
        self.variant = variant
        self._start = Board(fen, variant)
        #: the starting position's occupied squares (algebraic)
        self.expected: frozenset[str] = self._start.occupied_algebraic()

    def wrong_pieces(self, pieces: Mapping[str, Piece] | None) -> tuple[str, ...]:
        """IT 7.1 on a board that knows the pieces (issue 40): the squares of the set-up where it
        reads another piece (colour or crown) than the starting position's, in square order;
        () where ``pieces`` is None (a board that sees occupancy only)."""
        if pieces is None:
            return ()
        names = self.variant.geometry.algebraic_of
        return tuple(sorted((names[n] for n, p in self._start.pieces().items()
                             if pieces.get(names[n], p) != p), key=square_sort_key))

    def compare(self, occupied: frozenset[str], wrong: tuple[str, ...]) -> SetupView:
        """What ``occupied`` lacks to be the starting position (``wrong``: :meth:`wrong_pieces`)."""
        expected = self.expected
        mirrored = frozenset(square_mirror(s, self.variant.size) for s in expected)
        return SetupView(tuple(sorted(expected - occupied, key=square_sort_key)),
                         tuple(sorted(occupied - expected, key=square_sort_key)),
                         occupied == mirrored, wrong)

    def labels(self, squares: Iterable[str]) -> list[str]:
        """Squares as the screen and the pages name them: the variant's official number of a dark
        square (IT 2.4), the algebraic name of a light one (a piece put on it, IT 7.5)."""
        numbers = self.variant.geometry.number_of_algebraic
        return [str(numbers[s]) if s in numbers else s for s in squares]

    def setup(self, view: SetupView, message: str, failure: str | None, fault: str | None,
              notice: str, title: str) -> DisplayState:
        """The screen while no game is in play (or a result left on the board): what ``view``
        lacks, else ``message``; ``failure``: a game's record not written (the controller's
        ``files_failure``), ``fault``: the first sensor fault's words, ``notice``: what the
        start-up probe found (over everything), ``title``: the header (the hall's trouble or
        pairing)."""
        message, shown_failure = _over(message, failure, fault)
        if view.turned:
            message = article(self.variant, "orientation").code + " " + N_(
                "board turned the wrong way")
        elif view.missing or view.extra:
            message = N_("set up: {squares}").format(squares=" ".join(
                [*(f"+{s}" for s in self.labels(view.missing)),
                 *(f"-{s}" for s in self.labels(view.extra))]))
        elif view.wrong:  # IT 7.1: the right squares, a piece of another colour or crown
            message = article(self.variant, "setup").code + " " + N_(
                "wrong piece: {squares}").format(squares=" ".join(self.labels(view.wrong)))
        elif fault is None:
            message = N_("set up the pieces")
        if notice:
            message = notice
        # whole: the screen translates a message, then fits it (cut first, it no longer
        # matched its template and stayed in English)
        return DisplayState(message=message, side_to_move="-", move_number=0,
                            title=shown_failure or title)

    def game(self, arbiter: Arbiter, now: float, message: str, failure: str | None,
             fault: str | None) -> DisplayState:
        """The screen in a game (in play or over): its move, side to move, last move, the clock
        read at the game's ``t`` ``now`` once started, ``message`` (``failure``, ``fault``: as
        in :meth:`setup`)."""
        message, _ = _over(message, failure, fault)
        game = arbiter.game
        clock = arbiter.clock
        reading = clock.read(now) if clock is not None and clock_started(clock) else None
        last = game.moves[-1].notation if game.moves else ""
        board = arbiter.board
        return DisplayState(move_number=len(game.moves) // 2 + 1,
                            side_to_move="-" if game.outcome is not None else
                            ("white" if board.turn == 0 else "black"),
                            last_move=last, message=message, clock=reading)


def _over(message: str, failure: str | None, fault: str | None) -> tuple[str, str | None]:
    """The message line with a record not written (when it says nothing else) and a sensor
    fault (always) over it, and the failure in the screen's words."""
    if failure is not None:  # the screen's words: the game is known, the reason matters
        failure = N_("record not written: {reason}").format(
            reason=failure.rsplit("not written: ", 1)[-1])
        if not message:
            message = failure
    if fault is not None:
        message = fault  # English; the screen and the pages localize it
    return message, failure


def clock_started(clock: GameClock) -> bool:
    """The clock has been started (its faces run or ran)."""
    return clock.state != ClockState.READY
