"""A board as the others see it: the typed, read-only :class:`BoardView` and the two writes of
:class:`BoardActions`.

The web server (``pi.web``), the hall's link and the hub's pages (``pi.hall``) read a board only
through :class:`BoardView`. Two classes implement it: :class:`pi.board.controller.BoardController`
(the board itself) and ``pi.hall.boardview.BoardReplica`` (the hub's replica of a board, rebuilt
from its journal). A reader written against the Protocol serves both, and mypy checks every
attribute it reads against both implementations.

Writes go through the controller, one method each (:class:`BoardActions`): an arbiter's action,
answered with the journal line it became, and the hall's pairing.

Everything here is read and called on the board's event-loop thread.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from engine.board import Board
from engine.clock import GameClock
from engine.decisions import Flag
from engine.game import Game
from engine.replay import Report
from engine.variants import Variant
from pi.board.arbiter_request import ArbiterRequest
from pi.board.config import Config
from pi.board.game_setup import GameSetup
from engine.replay import Fed

__all__ = ["Phase", "BoardView", "GameView", "ArbiterState", "FaultView", "BoardActions",
           "PAIRING_FIELDS"]


class Phase(enum.Enum):
    """Where a board is in its life: no game (the pieces being set up), a game in play, a game
    over (its result shown until the pieces are set up again). ``value``: the name the web's
    ``/api/state`` and the hall's ``state`` use."""

    SETUP = "setup"
    PLAYING = "playing"
    OVER = "over"


class ArbiterState(Protocol):
    """What a reader may know of the arbiter of a game (``engine.arbiter.Arbiter``'s read side)."""

    @property
    def game(self) -> Game: ...

    @property
    def clock(self) -> GameClock | None: ...

    @property
    def flags(self) -> Sequence[Flag]: ...

    @property
    def board(self) -> Board: ...

    @property
    def pending(self) -> Flag | None: ...

    @property
    def squares_to_fix(self) -> Sequence[str]: ...


class FaultView(Protocol):
    """A sensor fault as shown: the chip's ``address``, its ``kind``, a ``message`` for people and
    the ``squares`` it hides."""

    @property
    def address(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def message(self) -> str: ...

    @property
    def squares(self) -> tuple[str, ...]: ...


class GameView(Protocol):
    """The board's current game: its ``id``, the journal's ``line`` count, the start line, the
    variant, the arbiter's read-only state, the game's ``t`` at its last journal line, whether
    the game is over and marked so (``finished``), its journal file (``trace``) and the report
    (``damiera replay``'s) of its journal so far."""

    @property
    def id(self) -> str: ...

    @property
    def line(self) -> int: ...

    @property
    def start_line(self) -> Mapping[str, Any]: ...

    @property
    def variant(self) -> Variant: ...

    @property
    def arbiter(self) -> ArbiterState: ...

    @property
    def last_t(self) -> float: ...

    @property
    def finished(self) -> bool: ...

    @property
    def trace(self) -> Path: ...

    def report(self) -> Report: ...


class BoardView(Protocol):
    """One board, read only: its :class:`Phase`, its current ``game`` (None before the first),
    the game's time :meth:`now`, the ``message`` its screen shows, its sensor ``faults``, its
    ``config`` and the configured ``variant`` (what the next game is set up for)."""

    @property
    def phase(self) -> Phase: ...

    @property
    def game(self) -> GameView | None: ...

    def now(self) -> float:
        """The current game's ``t`` (seconds; 0 outside a game)."""
        ...

    @property
    def message(self) -> str: ...

    @property
    def faults(self) -> Mapping[int, FaultView]: ...

    @property
    def config(self) -> Config: ...

    @property
    def variant(self) -> Variant: ...


#: The configuration fields a pairing sets (the next game's start line takes them);
#: ``clock_start`` "arbiter": the game's clock waits for the arbiter (a hall's round start).
PAIRING_FIELDS = ("event", "round", "white", "black", "clock_start")


class BoardActions(Protocol):
    """The writes of a board, one method each (the controller's)."""

    async def act(self, request: ArbiterRequest) -> Fed:
        """Carries out an arbiter's action in turn with the board's other inputs, and returns
        what its journal line did (its line number, the journaled record, the arbiter's
        decisions). Raises :class:`ActionRefused` (no game in play) or :class:`ActionLate`."""
        ...

    def set_pairing(self, fields: Mapping[str, str | None], banner: str) -> None:
        """The hall's pairing: ``fields`` (of :data:`PAIRING_FIELDS`; None clears one) go into
        the next game's start line; ``banner`` is shown on the screen's header while no game is
        in play. Raises ValueError for another field."""
        ...

    def set_up(self, setup: GameSetup) -> None:
        """A lone board's next game set up by its arbiter (players, event, round, time
        control: ``pi.board.game_setup``), into its start line; an untouched game in play gives
        way to it at once. Raises :class:`pi.board.errors.ActionRefused` while a touched game
        is in play."""
        ...

    def set_hall_trouble(self, text: str) -> None:
        """What keeps the board from its hall (``text``, an English msgid: the broker's
        certificate refused), on the screen's header while no game is in play, instead of the
        banner; "" when it is linked again."""
        ...
