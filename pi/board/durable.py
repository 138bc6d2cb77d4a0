"""The board's durable read side: what the readers (the web, the hall) see of the current game
while later lines, already decided on and shown on the screen, wait for their fsync — nothing
leaves the board before its line is durable (``pi.board.controller``). :class:`GameAt` is a
game as it was at one journal line (copies of the record and the clock, no replay);
:class:`DurableViews` keeps them for the board until their line is handed out. The writing side
is ``pi.board.session.GameSession``."""

from __future__ import annotations

import logging
from collections import deque
from pathlib import Path
from typing import Any

from engine.arbiter import Arbiter
from engine.board import Board
from engine.clock import GameClock
from engine.decisions import Flag
from engine.game import Game
from engine.replay import Report
from engine.variants import Variant
from pi.board.session import GameSession

log = logging.getLogger(__name__)

__all__ = ["ArbiterAt", "GameAt", "DurableViews"]


class ArbiterAt:
    """The arbiter's read side (``pi.board.view.ArbiterState``) as it was at one journal line:
    copies of the record and the clock, the flags, what was pending and what was to be put
    right. Read only."""

    __slots__ = ("game", "clock", "flags", "board", "pending", "squares_to_fix")

    def __init__(self, arbiter: Arbiter) -> None:
        self.game: Game = arbiter.game.copy()
        clock = arbiter.clock
        self.clock: GameClock | None = None if clock is None else clock.copy()
        self.flags: tuple[Flag, ...] = tuple(arbiter.flags)
        self.board: Board = self.game.board
        self.pending: Flag | None = arbiter.pending
        self.squares_to_fix: tuple[str, ...] = tuple(arbiter.squares_to_fix)


class GameAt:
    """A game as it was at journal line ``line`` (``pi.board.view.GameView``): what the board's
    readers (the web, the hall) see while later lines, already decided on and shown on the
    screen, wait for their fsync (``pi.board.controller``: nothing leaves the board before its
    line is durable). Made by :meth:`of` on the loop's thread; cheap (the record's lists
    copied, no replay). ``report()`` is the record and the flags as they were at that line
    (``/game.pdn`` reads it: a move still waiting for its fsync is not in it)."""

    __slots__ = ("_session", "line", "arbiter", "last_t", "finished")

    def __init__(self, session: GameSession, line: int) -> None:
        self._session = session
        self.line = line
        self.arbiter = ArbiterAt(session.arbiter)
        self.last_t = session.last_t
        self.finished = session.finished

    @classmethod
    def of(cls, session: GameSession) -> GameAt:
        """``session`` now, at its last line handed to the journal."""
        return cls(session, session.journal.line_count)

    @property
    def id(self) -> str:
        return self._session.id

    @property
    def start_line(self) -> dict[str, Any]:
        return self._session.start_line

    @property
    def variant(self) -> Variant:
        return self._session.variant

    @property
    def trace(self) -> Path:
        return self._session.trace

    def report(self) -> Report:
        return Report(self.arbiter.game, list(self.arbiter.flags))


class DurableViews:
    """The board's durable read side: the current game as the lines already handed out (durable:
    fsync'd by the journal's writer thread) leave it, for the board's readers (the web, the
    hall), while the screen shows a move as soon as it is decided (``pi.board.controller``:
    nothing leaves the board before its line is durable). A game changes under the readers'
    feet only through its lines, so a :class:`GameAt` kept just before a line is fed is the
    game as the previous line left it; the views wait, oldest first, until their line is handed
    out, and the ones older than the last line handed out are dropped.

    One per board, for its current game (:meth:`reset` at each new game and resume). On the
    loop's thread, like the session it reads."""

    __slots__ = ("_released", "_views")

    def __init__(self) -> None:
        #: the current game's last line handed out (to the listeners: durable)
        self._released = 0
        #: the current game as lines not yet handed out found it (:meth:`current`), oldest first
        self._views: deque[GameAt] = deque()

    @property
    def released(self) -> int:
        """The current game's last line handed out (0: none yet)."""
        return self._released

    @property
    def kept(self) -> tuple[int, ...]:
        """The lines of the views kept, oldest first."""
        return tuple(view.line for view in self._views)

    def reset(self, line: int = 0) -> None:
        """Another game: a new one (``line`` 0, nothing handed out yet) or a resumed one
        (``line``: its durable lines, all of them already out before the restart). Every view
        kept for the game before is dropped."""
        self._released = line
        self._views.clear()

    def keep(self, session: GameSession) -> None:
        """``session`` as its last line leaves it, kept for :meth:`current` (once per line):
        before a line is fed (a game changes under the readers' feet only through its lines),
        and once everything fed is handed out (:meth:`keep_ahead`)."""
        if not self._views or self._views[-1].line != session.journal.line_count:
            self._views.append(GameAt.of(session))

    def forget_last(self, session: GameSession) -> None:
        """``session`` was decided on by time alone, with no line (a settle timer's move): the
        view kept of its last line no longer is the game as it stands; dropped, it is kept
        anew before the next line (:meth:`keep`)."""
        if self._views and self._views[-1].line == session.journal.line_count:
            self._views.pop()

    def release(self, line: int) -> None:
        """The current game's ``line`` is handed out (it is durable): what the readers see
        moves on to it, and the views of older lines are dropped."""
        self._released = line
        while self._views and self._views[0].line < line:
            self._views.popleft()

    def keep_ahead(self, session: GameSession) -> None:
        """After a release: once every line fed to ``session`` is handed out (its journal still
        open), its view is kept now, ready for the next line, off the way from the sensors to
        the screen."""
        if self._released >= session.journal.line_count and not session.journal.closed:
            self.keep(session)

    def current(self, session: GameSession) -> GameSession | GameAt:
        """``session`` as the lines handed out so far leave it: the session itself once
        every line fed is out, else the view kept of the last line out. Without one (it should
        not happen: logged) the session, as decided."""
        if self._released >= session.journal.line_count:
            return session
        for view in self._views:
            if view.line == self._released:
                return view
        log.warning("no view of line %d kept: the game shown as decided", self._released)
        return session
