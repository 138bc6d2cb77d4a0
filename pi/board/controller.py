"""The board's brain between the drivers and the game: set-up, games one after another, resume.

:class:`BoardController` is synchronous and single-threaded: the daemon's event loop
(``pi.daemon``) hands it every input — what the sensors report (``PieceLifted``,
``PiecePlaced``, ``PieceChanged`` on a board that knows the pieces, ``SnapshotTaken``,
``SensorFault``, ``SensorFaultCleared``), the players'
buttons and serial commands (``ButtonPressed``), the arbiter's actions (``ArbiterActed``) — with
:meth:`handle`, and calls :meth:`tick` when :meth:`next_deadline` passes. The simulator drives
the very same object on a simulated clock.

Life of the board:

* **set-up** — no game: the sensed occupancy is compared with the starting position of the
  configured variant (or the config's FEN). The screen lists the squares to put right (IT 7.1)
  or says the board is turned the wrong way (IT 7.2); with ``orientation = "auto"`` in the
  wiring, a board that shows the starting position under another allowed rotation is oriented
  (``orient``) instead. Once the position is right, a game begins: a new game folder, the
  journal's start line and a snapshot at ``t`` = 0 (``pi.board.session``). With ``post`` the
  start line is fsync'd by the journal's writer thread and the game before is closed on a
  thread of its own (``GameSession.close_behind``); the readers (:attr:`BoardController.game`,
  :attr:`BoardController.phase`) see the game before until the new start line is durable.
* **play** — every input goes through the game's session: journaled first, then given to the
  arbiter; its decisions are shown on the screen and sounded on the buzzer at once, and handed
  to the listeners (web, broadcast, serial) in order, each with its journal line number, once
  that line is durable. With ``post`` (the daemon) the journal's fsync runs on its writer
  thread (``pi.board.journal``: write-behind), which says so through ``post``
  (:class:`JournalDurable`): the loop never waits on the disk, the screen may show a move
  before its lines are on disk (the board itself holds the position, and a resume commits a
  move complete on the board), and nothing leaves the board — a listener's line, an
  :meth:`BoardController.act` answer — before its line is durable (SSE ids and the hall's lines
  are line numbers: a line shown, then lost, would come back with another content). A journal
  that fails (:class:`JournalFailed`) stops the daemon. Without ``post`` (the tests, a
  controller driven by hand) every line is fsync'd before :meth:`BoardController.handle` goes
  on.
* **over** — once the result is in, the screen shows it until the pieces have been taken off
  and set up again: the next game begins when the starting position shows again after the board
  has shown something else. With ``post`` the game's record and ``finished`` marker are written
  by the session's files thread once its last line is durable.

Times: the process's :class:`pi.drivers.timebase.GameTime` stamps every event (seconds since its
epoch, fixed for the life of the process). A game has one time zero, kept here and nowhere else:
``_offset``, the process stamp of the game's ``t`` = 0, set when the game begins (the stamp of its
first snapshot) or is resumed (the stamp now less the journal's last ``t``, so ``t`` goes on from
the ``restart`` line). A game's ``t`` is a stamp minus that offset (:meth:`BoardController.now`,
and every input as it enters the session); deadlines go the other way
(:meth:`BoardController.next_deadline`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time as _time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Union

from engine.board import Piece
from engine.clock_display import DEFAULT_RULES
from engine.trace import CLOCK_START_ARBITER, split_lines
from engine.decisions import (BoardToFix, Decision, FlagDecided, FlagRaised, GameEnded,
                              MoveCommitted, MoveRetracted, PositionSet)
from engine.i18n import N_
from engine.events import (ArbiterActed, ButtonPressed, PieceChanged, PieceLifted, PiecePlaced,
                           SnapshotTaken, TraceEnded)
from engine.variants import find_variant
from pi.board.arbiter_request import DECIDES_POSITION, ArbiterRequest
from pi.board.config import Config
from pi.board.game_setup import GameSetup
from pi.drivers.display import DisplayState
from pi.drivers.faults import SensorFault, SensorFaultCleared, SensorInterrupt
from engine.replay import Fed
from pi.board.notify import Notifier
from pi.board.errors import (ActionLate, ActionRefused, JournalDamagedError, JournalError,
                             JournalWriteError)
from pi.board.durable import DurableViews
from pi.board.earlier import EarlierGames, result_misfit
from pi.board.journal import DurableOutbox
from pi.board.session import GameSession, refresh_game_files
from pi.board.screen import BoardScreen, Screen, ScreenContent, SetupView, clock_started
from pi.board.speech import BoardSpeech
from pi.board.statedir import StateDir
from pi.board.supersede import (SET_UP_NOTE, SUPERSEDED_NOTE, first_touch, no_play,
                                pairing_differs, superseded_note,
                                waits_for_arbiter, why_touched)
from pi.board.view import PAIRING_FIELDS, GameView, Phase
from pi.drivers.timebase import GameTime

log = logging.getLogger(__name__)

__all__ = ["BoardController", "Phase", "Screen", "Listener", "Input", "Acting", "JournalDurable",
           "JournalFailed", "ACT_TIMEOUT"]

#: The longest :meth:`BoardController.run` sleeps with nothing to do (the running clock wakes
#: it when its face changes: :meth:`BoardController.next_refresh`).
IDLE = 5.0

#: What :meth:`BoardController.handle` takes.
#: (``SensorInterrupt``: only where nobody scans, never in the daemon; ignored.)
Input = Union[PieceLifted, PiecePlaced, PieceChanged, SnapshotTaken, SensorFault,
              SensorFaultCleared, ButtonPressed, ArbiterActed, TraceEnded, SensorInterrupt,
              "Acting", "JournalDurable", "JournalFailed"]


#: Gets every journaled line with what it caused, on the event loop's thread, in order.
Listener = Callable[[Fed], None]


#: An arbiter's action not journaled after this many seconds is answered as late
#: (``ActionLate``: the web's 503, the hall's ``ok: false``).
ACT_TIMEOUT = 10.0
#: What the arbiter may still do once a game is over (COMP 6.16, issue 37): a note, and a
#: mistaken result corrected with its reason — the game just over, or an earlier one by id.
AFTER_THE_RESULT = ("note", "correct_result")
#: What an arbiter decides on moves on with these (a stale ``seen``: ``BoardController._misfit``).
_POSITION_DECISIONS = (MoveCommitted, MoveRetracted, PositionSet, FlagRaised, FlagDecided,
                       GameEnded)


@dataclass(frozen=True, eq=False)
class Acting:
    """The input :meth:`BoardController.act` hands to the board's queue: the arbiter's action
    and where its journal line is answered."""

    event: ArbiterActed
    answer: asyncio.Future[Fed]
    #: the game the action is for and the last line the arbiter saw (ArbiterRequest's)
    game: str | None = None
    seen: int | None = None


@dataclass(frozen=True, eq=False)
class JournalDurable:
    """The input the journal's writer thread posts (write-behind) when more lines of
    ``session``'s journal are on disk: what they caused may leave the board."""

    session: GameSession


@dataclass(frozen=True, eq=False)
class JournalFailed:
    """The input the journal's writer thread posts when ``session``'s journal failed: the
    lines not yet durable are lost, the daemon stops (``error`` is raised by
    :meth:`BoardController.handle`)."""

    session: GameSession
    error: JournalWriteError


@dataclass
class BoardController:
    """See the module docstring. ``orient(expected)``: asks the sensors to find the board's
    rotation for the ``expected`` occupancy (``orientation = "auto"``; None when fixed); it may
    act later (a snapshot follows). ``beep(pattern)``: plays a buzzer pattern (``pi.drivers.buzzer``).
    ``wall()``: Unix time, or None when the wall clock cannot be trusted. ``submit(input)``:
    how an input reaches :meth:`handle` in turn with the others (the daemon's queue); None: at
    once. ``post(input)``: the same from any thread (the daemon's ``LoopInbox.put``); with it
    the journal writes behind (module docstring), without it every line is fsync'd in turn.

    It is the board's :class:`pi.board.view.BoardView` (what the web and the hall read) and its
    :class:`pi.board.view.BoardActions` (:meth:`act`, :meth:`set_pairing`)."""

    config: Config
    state: StateDir
    time: GameTime
    screen: Screen | None = None
    orient: Callable[[frozenset[str]], None] | None = None
    beep: Callable[[str], None] | None = None
    wall: Callable[[], float | None] = _time.time
    listeners: list[Listener] = field(default_factory=list)
    submit: Callable[[Input], None] | None = None
    post: Callable[[Input], None] | None = None
    #: Shown on the screen's header while no game is in play (set-up, a result left on the
    #: board): the hall's pairing of this board (``pi.hall.link``); "" for the usual header.
    banner: str = ""
    #: what keeps the board from its hall, on the header instead of the banner (set_hall_trouble)
    hall_trouble: str = ""
    #: What the start-up probe found wrong with the board (``pi.drivers.bringup``): shown on
    #: the screen's message line, before anything else, until the first game begins.
    notice: str = ""
    #: The board's voice (``[speech]``, ``pi.board.speech``): told every decision and every
    #: clock reading, on this thread; it only queues what it says. None: silent.
    speech: BoardSpeech | None = None

    session: GameSession | None = None
    occupied: frozenset[str] = frozenset()
    #: which piece a board that knows them (issue 40) said stands on each square; None: a
    #: board that sees occupancy only (the game's first snapshot carries what is known)
    _pieces: dict[str, Piece] | None = None
    #: the board's phase as its inputs leave it (the screen's); the readers' is :attr:`phase`
    _phase: Phase = Phase.SETUP
    #: a game begun whose start line is not durable yet: the phase and the game the readers
    #: still see (nothing of the new game leaves the board before its line 1)
    _before: tuple[Phase, GameView | None] | None = None
    #: games being closed on threads of their own (``GameSession.close_behind``): their last
    #: lines, record and marker on their way to the disk while the next game plays
    _closing: list[tuple[GameSession, threading.Thread]] = field(default_factory=list)
    faults: dict[int, SensorFault] = field(default_factory=dict)
    status: str = "starting"
    #: the process stamp of the current game's ``t`` = 0 (module docstring: the one time zero)
    _offset: float = 0.0
    _left_start: bool = False
    _message: str = ""
    _sensed_once: bool = False
    _oriented_for: frozenset[str] | None = None
    _final: frozenset[str] = frozenset()
    #: what the set-up lacks, as the last sensor event left it (the screen's set-up lines)
    _setup_view: SetupView = field(default_factory=SetupView)
    _acting: set[asyncio.Future[Fed]] = field(default_factory=set)
    #: what waits for its line to be durable: the line for the listeners, and an act's answer
    _outbox: DurableOutbox = field(default_factory=DurableOutbox)
    #: the current game's last journal line that changed what the arbiter decides on (a line
    #: with decisions: a move, a flag, an end; at a resume every line so far)
    _decided_line: int = 0
    #: games whose game.pdn/report.json could not be rewritten at start (one line each)
    _files_failures: list[str] = field(default_factory=list)
    #: the current game as the lines handed out (durable) leave it, for :attr:`game`
    _durable: DurableViews = field(default_factory=DurableViews)
    #: the current game's first line after its start that is not a snapshot (what touched it,
    #: ``pi.board.supersede.first_touch``); None while untouched
    _first_touch: Mapping[str, Any] | None = None
    #: The line types that leave the game in play untouched (``pi.board.supersede.no_play``).
    _no_play: frozenset[str] = frozenset({"snapshot"})
    #: a pairing came while the untouched game in play could not give way to it (a piece in
    #: hand, a sensor fault): :meth:`_supersede` is tried again at each input until it can
    _supersede_waits: bool = False
    #: told the id of an earlier game a line was added to (``pi.board.earlier``)
    reissued: list[Callable[[str], None]] = field(default_factory=list)
    #: the note that voids a game superseded (the hall's pairing, or the arbiter's set-up)
    _supersede_note: str = SUPERSEDED_NOTE

    def __post_init__(self) -> None:
        #: what the board shows and says: frames, cues, the voice (``pi.board.screen``)
        self._face = BoardScreen(self)
        self.variant = find_variant(self.config.variant)
        #: what the screen shows: the set-up's squares, the game (``pi.board.screen``)
        self._content = ScreenContent(self.variant, self.config.fen)
        self.expected = self._content.expected
        #: the actions on earlier games than the board's (a note, a result corrected)
        self._earlier = EarlierGames(self.state, self.reissued)

    # ------------------------------------------------------------------ start and stop

    def resume(self) -> str:
        """At start-up: resumes the unfinished game of the state directory, if any. Returns a
        line saying what was done (for the log and systemd's STATUS). Every game's
        ``game.pdn``/``report.json`` older than its journal is rewritten first
        (:func:`pi.board.session.refresh_game_files`); a failure is on the screen
        (:meth:`files_failure`)."""
        game = self.state.unfinished()
        while game is not None and game.never_began():
            # stopped before its start line was durable: nothing of it left the board
            log.info("game %s never began (the daemon stopped before its start line was on "
                     "disk): its folder is removed", game.id)
            self.state.remove_unbegun(game)
            again = self.state.unfinished()
            if again == game:
                break  # it could not be removed (logged): resumed as a damaged journal
            game = again
        self._files_failures = refresh_game_files(self.state,
                                                  skip=None if game is None else game.id)
        if game is None:
            return self._set_status("waiting for the pieces to be set up")
        try:
            session = GameSession.resume(game, wall_now=self.wall())
        except JournalDamagedError as exc:
            game.mark_finished(None, abandoned=str(exc))
            log.error("%s; game %s abandoned, a new game starts at the next set-up", exc, game.id)
            self._message = N_("journal damaged: game {game} kept, new game").format(game=game.id)
            return self._set_status(f"game {game.id}: journal damaged, kept as it is")
        except JournalError as exc:
            log.error("%s", exc)
            raise
        self.session = session
        self._decided_line = session.line  # what happened before the restart is not known here
        self._durable.reset(session.line)
        waiting = waits_for_arbiter(session.start_line)
        self._no_play = no_play(waiting)
        self._first_touch = first_touch(_journal_records(session), waiting)  # before the restart
        self._offset = self.time.stamp() - session.last_t
        if session.finished:
            self._phase = Phase.OVER
            # its journal stays open for a note or a result corrected (COMP 6.16), until the
            # next game closes it
            self._write_behind(session)
            return self._set_status(f"game {game.id} was over ({session.arbiter.game.result})")
        self._phase = Phase.PLAYING
        self._write_behind(session)
        return self._set_status(f"game {game.id} resumed at move "
                                f"{len(session.arbiter.game.moves) + 1}; clocks stopped "
                                "until the arbiter restarts them")

    async def run(self, inbox: asyncio.Queue[Input | Sequence[Input]], stop: asyncio.Event,
                  notifier: Notifier) -> None:
        """The board's loop, on the event loop's thread, until ``stop`` is set: every input of
        ``inbox`` handled in order (those already waiting before the timers), the arbiter's
        deadlines (:meth:`tick`), the screen (:meth:`refresh`), systemd's watchdog and status.
        It sleeps until the next input, deadline, visible change of a clock face or ping (at
        most :data:`IDLE` seconds)."""
        loop = asyncio.get_running_loop()
        ping = notifier.ping_interval
        next_ping = loop.time()
        status = self.status
        stopping = asyncio.ensure_future(stop.wait())
        try:
            while not stop.is_set():
                now = self.time()
                wake = now + IDLE
                for when in (self.next_deadline(), self.next_refresh()):
                    if when is not None:
                        wake = min(wake, when)
                if ping is not None:
                    wake = min(wake, now + max(0.0, next_ping - loop.time()))
                getter = asyncio.ensure_future(inbox.get())
                done, _ = await asyncio.wait({getter, stopping}, timeout=max(0.0, wake - now),
                                             return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    self.handle(getter.result())
                    while not inbox.empty():  # everything already waiting, before the timers
                        self.handle(inbox.get_nowait())
                else:
                    getter.cancel()
                deadline = self.next_deadline()
                if deadline is not None and self.time() >= deadline:
                    self.tick()
                self.refresh()
                if ping is not None and loop.time() >= next_ping:
                    notifier.watchdog()  # fed only from here: a hung loop is restarted by systemd
                    next_ping = loop.time() + ping
                if self.status != status:
                    status = self.status
                    notifier.status(status)
        finally:
            stopping.cancel()

    def stop(self) -> None:
        """Orderly stop: the journal is closed (everything in it is already durable); actions
        not journaled yet are answered as refused."""
        for _, closer in self._closing:
            closer.join()  # the games before: their record and marker on disk
        self._closing.clear()
        if self.session is not None:
            self.session.close()
        self._release()
        # a last try at the files a full disk kept from being written (space may be free now)
        if self.files_failure() is not None:
            self._files_failures = refresh_game_files(self.state)
            if self.session is not None and not self.session.game.derived_stale():
                self.session.files_error = None
        for answer in list(self._acting):
            if not answer.done():
                answer.set_exception(ActionRefused("the board is stopping"))
        self._message = N_("stopped")
        self._set_status("stopped")
        self._refresh(force=True)

    # ------------------------------------------------------------------ the read side

    @property
    def game(self) -> GameView | None:
        """The current game (or the last one, over), None before the first, as the lines handed
        out so far leave it: the readers (the web, the hall) see nothing of a line decided on
        and shown on the screen but still waiting for its fsync, since nothing leaves the board
        before its line is durable (:class:`pi.board.durable.DurableViews`: a view kept before
        each line is fed, until the line is handed out) — nor of a game whose start line is
        not durable yet (the game before it, then)."""
        if self._before is not None:
            return self._before[1]
        s = self.session
        return None if s is None else self._durable.current(s)

    @property
    def phase(self) -> Phase:
        """The board's phase as the lines handed out so far leave it (:attr:`game`)."""
        return self._phase if self._before is None else self._before[0]

    def files_failure(self) -> str | None:
        """Why a game's ``game.pdn``/``report.json`` are not written (one line: the game, the
        system's reason), None when every game's are. The daemon's exit status says it too."""
        if self.session is not None and self.session.files_error is not None:
            return self.session.files_error
        return self._files_failures[0] if self._files_failures else None

    @property
    def message(self) -> str:
        """The message line the screen shows now."""
        return self.display_state().message

    # ------------------------------------------------------------------ the writes

    async def act(self, request: ArbiterRequest) -> Fed:
        """An arbiter's action (``POST /api/arbiter``, a hall command): stamped now, given to
        the board in turn with its other inputs (``submit``), and answered with what its
        journal line did. On the loop's thread. Raises ActionRefused (no game in play, then or
        when its turn came; the board stopping) or ActionLate (not journaled within
        ACT_TIMEOUT seconds; it may still be)."""
        session = self.session
        if (request.game is not None and request.action in AFTER_THE_RESULT
                and (session is None or request.game != session.id)):
            return await self._earlier.act(request, self.wall,
                                           closing={s.id for s, _ in self._closing})
        if session is None or not self._takes(request.action):
            raise ActionRefused("no game in play")
        game = request.game
        if game is None and self._phase == Phase.OVER:
            game = session.id  # for the game just over: never the next game's, in its turn
        answer: asyncio.Future[Fed] = asyncio.get_running_loop().create_future()
        # answered after its asker gave up (late): nobody reads it, and that is no error
        answer.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._acting.add(answer)
        event = ArbiterActed(self.time.stamp(), request.action, request.result, request.text,
                             request.public)
        try:
            (self.submit or self.handle)(Acting(event, answer, game, request.seen))
            return await asyncio.wait_for(asyncio.shield(answer), ACT_TIMEOUT)
        except asyncio.TimeoutError:
            raise ActionLate("the board did not journal the action in time") from None
        finally:
            self._acting.discard(answer)

    def _takes(self, action: str) -> bool:
        """The game of :attr:`session` takes ``action`` now: any while in play; once over, a
        note or a result corrected (:data:`AFTER_THE_RESULT`) while its journal is open."""
        session = self.session
        if session is None:
            return False
        if self._phase == Phase.PLAYING:
            return True
        return (self._phase == Phase.OVER and action in AFTER_THE_RESULT
                and not session.journal.closed)

    def set_hall_trouble(self, text: str) -> None:
        """:meth:`pi.board.view.BoardActions.set_hall_trouble` (on the loop's thread)."""
        if text != self.hall_trouble:
            self.hall_trouble = text
            self._refresh()

    def set_pairing(self, fields: Mapping[str, str | None], banner: str) -> None:
        """The hall's pairing: ``fields`` (``event``, ``round``, ``white``, ``black``,
        ``clock_start`` "arbiter": the clock waits for the arbiter's start_clock; None clears
        one) go into the next game's start line (a game in play is not changed);
        ``banner`` is the screen's header while no game is in play. Raises ValueError for
        another field or another ``clock_start``. A game in play begun before the pairing and
        still untouched is superseded by it (:meth:`_supersede`)."""
        unknown = set(fields) - set(PAIRING_FIELDS)
        if unknown:
            raise ValueError(f"not a pairing field: {', '.join(sorted(unknown))}")
        if fields.get("clock_start") not in (None, CLOCK_START_ARBITER):
            raise ValueError(f"clock_start: {CLOCK_START_ARBITER!r} or nothing")
        c = self.config
        self.config = replace(c, event=fields.get("event", c.event),
                              round=fields.get("round", c.round),
                              white=fields.get("white", c.white),
                              black=fields.get("black", c.black),
                              clock_start=fields.get("clock_start", c.clock_start))
        self.banner = banner
        self._supersede_note = SUPERSEDED_NOTE
        self._supersede()
        self._refresh()

    def set_up(self, setup: GameSetup) -> None:
        """:meth:`pi.board.view.BoardActions.set_up`: the arbiter's set-up of a lone board's
        next game goes into its start line, as a hall's pairing does (:meth:`set_pairing`: an
        untouched game in play is superseded by it). Raises ActionRefused while a touched game
        is in play."""
        session = self.session
        if self._phase == Phase.PLAYING and session is not None:
            why = why_touched(session.arbiter, self._first_touch,
                              waits_for_arbiter(session.start_line))
            if why is not None:
                raise ActionRefused(f"a game is in play ({why}): set up the next game once "
                                    "its result is in")
        c, given = self.config, setup.changes()
        self._supersede_note = SET_UP_NOTE
        self.config = replace(c, white=given.get("white", c.white),
                              black=given.get("black", c.black),
                              event=given.get("event", c.event),
                              round=given.get("round", c.round),
                              time_control=given.get("time_control", c.time_control))
        self._supersede()
        self._refresh()

    def _supersede(self) -> None:
        """``pi.board.supersede``: the game in play, begun (the pieces set up, IT 7.1/7.2) under
        another start line than the pairing's and untouched since, is closed — an arbiter
        ``note`` with the fixed text and an ``end`` line journaled, the game marked finished
        with ``*`` — and the pairing's game begins at once from the same position. A touched
        game keeps its start line: the pairing waits for the next game (logged). An untouched
        game whose pieces do not stand right at that moment (a piece in hand before the
        arbiter's start, a sensor fault) gives way as soon as they do (:attr:`_supersede_waits`):
        the new game begins from the set-up position (IT 7.1, 7.2)."""
        session = self.session
        waited, self._supersede_waits = self._supersede_waits, False
        if self._phase != Phase.PLAYING or session is None:
            return
        if not pairing_differs(session.start_line, self.config.start_line()):
            return  # the pairing's own game (a pairing sent again)
        why = why_touched(session.arbiter, self._first_touch,
                          waits_for_arbiter(session.start_line))
        if why is not None:
            log.info("pairing: game %s keeps its start line (%s); the next game takes the "
                     "pairing", session.id, why)
            return
        if self.faults or self.occupied != self.expected:
            self._supersede_waits = True
            if not waited:
                log.info("pairing: game %s is untouched but its pieces do not stand as set up "
                         "(IT 7.1, 7.2): superseded once they do", session.id)
            return
        for line in (superseded_note(self.now(), self._supersede_note), {"type": "end"}):
            self._durable.keep(session)
            self._publish(session.journal_line(line))
        # the marker once the end is durable, never ahead of the journal; the journal failing
        # first, its JournalFailed stops the daemon and the game stays unfinished
        session.finish("*")
        # its last lines leave the board (once durable) before the new game's first
        log.info("pairing: game %s was untouched: superseded (void, *); the pairing's game "
                 "begins", session.id)
        self._phase = Phase.SETUP  # a failed begin is tried again at the next sensor event
        try:
            self._begin()
        except JournalError as exc:  # the disk failing: a JournalFailed stops the daemon
            log.error("pairing: the pairing's game not begun: %s", exc)

    # ------------------------------------------------------------------ inputs

    def handle(self, item: Input | Sequence[Input]) -> None:
        """One input or a list of them (a scan's outputs), in order. A failing input is logged
        and contained: the board goes on."""
        items = item if isinstance(item, (list, tuple)) else (item,)
        for one in items:
            try:
                self._handle_one(one)
            except JournalError:
                raise  # nothing may be shown that is not on disk: the daemon stops
            except Exception:
                log.exception("input %r failed; the board goes on", one)
        self._refresh()
        self._write_files()

    def _write_files(self) -> None:
        if self.session is not None:
            try:
                # on the session's writer thread: the loop never waits for these fsyncs
                self.session.write_files(wait=False)
            except Exception:
                log.exception("game files not rewritten; the journal has everything")

    def _handle_one(self, item: Input) -> None:
        if isinstance(item, JournalDurable):
            # what waited for these lines first (the web's 100 sockets: each send lets
            # another thread have the interpreter), then the game files' writer thread
            self._release()
            if item.session is self.session:
                item.session.durable()
            else:  # a game being closed: its lines out, or its close done
                self._closing = [(s, t) for s, t in self._closing if not s.journal.closed]
            return
        if isinstance(item, JournalFailed):
            if item.session is self.session or any(s is item.session for s, _ in self._closing):
                raise item.error  # nothing may leave the board that is not on disk: stop
            return
        if isinstance(item, Acting):
            self._acted(item)
            return
        if isinstance(item, SnapshotTaken):
            self.occupied = item.occupied
            self._sensed_once = True
            self._pieces = None if item.pieces is None else dict(item.pieces)
        elif isinstance(item, PieceLifted):
            self.occupied = self.occupied - {item.square}
            if self._pieces is not None:
                self._pieces.pop(item.square, None)
        elif isinstance(item, (PiecePlaced, PieceChanged)):
            self.occupied = self.occupied | {item.square}
            if item.piece is not None:
                self._pieces = {} if self._pieces is None else self._pieces
                self._pieces[item.square] = item.piece
            elif self._pieces is not None:
                self._pieces.pop(item.square, None)
        if isinstance(item, SensorFault):
            self.faults[item.address] = item
            log.warning("%s (%s)", item.message, item.kind)
        elif isinstance(item, SensorFaultCleared):
            self.faults.pop(item.address, None)
            log.info("sensor fault cleared: 0x%02x", item.address)
        if self._phase == Phase.PLAYING and self.session is not None:
            self._play(item)
            if self._supersede_waits:
                self._supersede()
        elif isinstance(item, ArbiterActed) and self._takes(item.action):
            # after the result, an arbiter's line from the board's own inputs (the serial
            # line, a trace the simulator acts out): a note or a result corrected (COMP 6.16)
            assert self.session is not None
            refusal = (result_misfit(self.session, item)
                       if item.action == "correct_result" else None)
            if refusal is None:
                self._play(item)
            else:
                log.warning("arbiter's %s not journaled: %s", item.action, refusal)
        else:
            self._setup()

    def _acted(self, item: Acting) -> None:
        """An action of :meth:`act` in its turn: journaled if a game is in play, answered."""
        answer = item.answer
        if not self._takes(item.event.action):
            if not answer.done():
                answer.set_exception(ActionRefused("no game in play"))
            return
        refusal = self._misfit(item)
        if refusal is not None:
            if not answer.done():
                answer.set_exception(ActionRefused(refusal))
            return
        try:
            fed = self._play(item.event)
        except Exception as exc:
            if not answer.done():
                answer.set_exception(exc)
            raise
        if not answer.done():
            if fed is None:
                answer.set_exception(ActionRefused("the action was not journaled"))
            else:
                assert self.session is not None
                self._outbox.hold(self.session, fed, answer)  # answered once durable
                self._release()

    def _misfit(self, item: Acting) -> str | None:
        """Why an action does not fit the game in play in its turn (an action kept in a broker's
        session for minutes may reach the next game), or None. The one place this is checked
        (``POST /api/arbiter`` and the hall's commands both come through :meth:`act`)."""
        session = self.session
        assert session is not None
        if item.game is not None and item.game != session.id:
            return (f"this action is for game {item.game[:64]}; the board plays game "
                    f"{session.id}: not done")
        if item.event.action == "correct_result":
            return result_misfit(session, item.event)
        results = session.variant.results
        if item.event.action == "adjudicate" and item.event.result not in results:
            # Game.adjudicate reads the other set's equivalents ("2-0" as 1-0), which hid a
            # slip: an Italian game (COMP 6.14, 2/1/0) takes only its own results (issue 37)
            return (f"{item.event.result} is not a result of {session.variant.name} draughts "
                    f"(its results: {', '.join(results)}): not done")
        if (item.seen is not None and item.event.action in DECIDES_POSITION
                and self._decided_line > item.seen):
            return (f"the game moved on since line {item.seen} (line {self._decided_line}): "
                    f"{item.event.action} no longer fits; look again and act anew")
        return None

    def _play(self, item: Input) -> Fed | None:
        session = self.session
        assert session is not None
        self._durable.keep(session)
        if isinstance(item, (SensorFault, SensorFaultCleared)):
            line = item.to_dict()
            line["t"] = self._game_t(item.t)
            fed = session.journal_line(line)
        elif isinstance(item, (PieceLifted, PiecePlaced, PieceChanged, SnapshotTaken,
                               ButtonPressed, ArbiterActed, TraceEnded)):
            # TraceEnded: only the simulator acting out a trace sends it (docs/trace-format.md ``end``)
            fed = session.feed(replace(item, t=self._game_t(item.t)))
        else:
            log.warning("unknown input %r ignored", item)
            return None
        self._decided(fed.decisions)
        self._publish(fed)
        return fed

    def tick(self) -> None:
        """Time passed: lets the game act on its deadline (settle timer, flag fall, lampo)."""
        if self._phase != Phase.PLAYING or self.session is None:
            return
        self._durable.keep(self.session)  # the end line a flag fall journals
        decisions, end = self.session.advance(self.now())
        if decisions and end is None:
            # decided on by time alone, no line (a settle timer's move): the kept view of the
            # last line no longer is the game as it stands; kept anew before the next line
            self._durable.forget_last(self.session)
        self._decided(decisions)
        if end is not None:  # the game ended by time alone: its ``end`` line
            self._publish(replace(end, decisions=decisions + end.decisions))
        self._refresh()
        self._write_files()

    def next_deadline(self) -> float | None:
        """Monotonic time at which :meth:`tick` has something to do, None if nothing."""
        if self._phase != Phase.PLAYING or self.session is None:
            return None
        t = self.session.next_deadline()
        return None if t is None else self.time.epoch + t + self._offset

    def now(self) -> float:
        """The current game's ``t`` (0 outside a game)."""
        return max(0.0, self.time.stamp() - self._offset)

    def _game_t(self, stamp: float) -> float:
        return round(max(0.0, stamp - self._offset), 3)

    # ------------------------------------------------------------------ set-up

    def _setup(self) -> None:
        if not self._sensed_once:
            return
        if self._phase == Phase.OVER:
            if self.occupied != self.expected:
                self._left_start = True
            if not self._left_start:
                return
        if self.faults:
            return  # never begin on a board part of which cannot be seen
        wrong = self._content.wrong_pieces(self._pieces)
        if self.occupied == self.expected and not wrong:
            self._begin()
            return
        if (self.orient is not None and self._oriented_for != self.occupied
                and len(self.occupied) == len(self.expected)):
            # once per arrangement of the pieces: a snapshot follows if the sensors turned
            self._oriented_for = self.occupied
            self.orient(self.expected)
        self._setup_view = self._content.compare(self.occupied, wrong)

    def _begin(self) -> None:
        """A new game: with write-behind (the daemon) nothing here waits for the disk — the
        game before is closed on a thread of its own (its last lines, record and marker), the
        new game's start line, folders and files are made durable by its writer threads, and
        it is the readers' once its line 1 is out (:attr:`game`, :attr:`phase`)."""
        before = (self.phase, self.game) if self._before is None else self._before
        old = self.session
        post = self.post
        if old is not None and post is None:
            old.close()
            self._release()
        elif old is not None and post is not None and not old.journal.closed \
                and not any(s is old for s, _ in self._closing):  # not a begin tried again
            closer = old.close_behind(lambda: post(JournalDurable(old)))
            self._closing.append((old, closer))
        start = self.config.start_line()
        session = GameSession.begin(self.state, start, when=datetime.now(timezone.utc),
                                    board=self.config.board, defer=post is not None,
                                    closing=[s.id for s, _ in self._closing],
                                    after=old if post is not None else None)
        self._before = before
        self.session = session
        self._durable.reset()
        self._write_behind(session)
        self._phase = Phase.PLAYING
        self._left_start = False
        self._oriented_for = None
        self._message = ""
        self.notice = ""
        self._face.new_game()
        self._offset = self.time.stamp()
        self._durable.keep(session)
        pieces = None if self._pieces is None else {
            square: piece for square, piece in self._pieces.items() if square in self.occupied}
        fed = session.feed(SnapshotTaken(0.0, self.occupied, pieces))
        self._publish(Fed(1, session.start_line, None, ()))
        self._decided(fed.decisions)
        self._publish(fed)
        self._set_status(f"game {session.game.id} begun")

    # ------------------------------------------------------------------ decisions

    def _decided(self, decisions: Iterable[Decision]) -> None:
        decisions = tuple(decisions)
        prompted = False
        for d in decisions:
            if isinstance(d, FlagRaised):
                f = d.flag
                log.info("flag %s %s (%s): %s", f.code, f.status, f.kind, f.text)
                if f.kind == "irregularity" and f.status == "pending":
                    if prompted:
                        continue  # the same move's next irregularity: one decision (IT 8.4)
                    prompted = True
                    opponent = "?" if f.side is None else f.side.opponent.label
                    self._message = N_("{code} {text}; {side}: correct or accept").format(
                        code=f.code, text=f.text, side=opponent)
                    self._beep("flag")
                elif f.code != "BOARD":
                    self._message = f"{f.code} {f.text}"
            elif isinstance(d, FlagDecided):
                self._message = f"{d.flag.code} {d.flag.status}"
            elif isinstance(d, MoveCommitted):
                log.info("move %d %s %s (%s)", d.ply, d.side.label, d.notation, d.article)
                if not d.pending:
                    self._message = ""
            elif isinstance(d, MoveRetracted):
                log.info("move %d retracted (%s)", d.ply, d.article)
            elif isinstance(d, BoardToFix):
                self._message = "" if d.cleared else N_("put right: {squares}").format(
                    squares=" ".join(self._content.labels(d.squares)))
            elif isinstance(d, GameEnded):
                log.info("result %s: %s (%s)", d.result, d.reason, d.article)
                self._phase = Phase.OVER
                self._left_start = self.occupied != self.expected
                self._final = self.occupied
                self._message = f"{d.result} {d.reason}"
                self._beep("end")
                self._set_status(f"game over {d.result} ({d.reason})")
        self._face.decided(decisions)

    def _write_behind(self, session: GameSession) -> None:
        """With ``post``: the session's journal writes behind, telling the loop through it."""
        post = self.post
        if post is None:
            return
        session.write_behind(lambda: post(JournalDurable(session)),
                             lambda error: post(JournalFailed(session, error)))

    def _publish(self, fed: Fed) -> None:
        """``fed`` to the listeners once its line is durable (at once without write-behind)."""
        if fed.line == 1:
            self._decided_line = 0
        elif any(isinstance(d, _POSITION_DECISIONS) for d in fed.decisions):
            self._decided_line = fed.line
        assert self.session is not None
        if fed.line == 1:
            self._first_touch = None
            self._no_play = no_play(waits_for_arbiter(self.session.start_line))
        elif self._first_touch is None and fed.record.get("type") not in self._no_play:
            self._first_touch = fed.record  # pi.board.supersede: the game is touched
        self._outbox.hold(self.session, fed)
        self._release()

    def _release(self) -> None:
        """Hands out, in order, what waits for lines now durable (:class:`pi.board.journal.
        DurableOutbox`); once nothing waits, the game in play's next view is made ahead."""
        if not self._outbox.release(self.session, out=self._line_out, tell=self._tell):
            return
        current = self.session
        if current is not None:
            self._durable.keep_ahead(current)  # everything out: the next line's view, now

    def _line_out(self, fed: Fed) -> None:
        """A line of the game in play is out: the readers' view of it moves on."""
        self._durable.release(fed.line)
        self._before = None  # its line 1 at least is out: the readers' game

    def _tell(self, fed: Fed) -> None:
        for listener in list(self.listeners):
            try:
                listener(fed)
            except Exception:
                log.exception("listener %r failed on line %d; it stays subscribed",
                              listener, fed.line)

    def _beep(self, pattern: str) -> None:
        self._face.beep(pattern)

    # ------------------------------------------------------------------ the screen

    def display_state(self) -> DisplayState:
        """What the screen shows now (:class:`pi.board.screen.ScreenContent`): the set-up while
        no game is in play and while a result stays on the board (until the pieces are moved
        off the final position), else the game."""
        fault = next(iter(self.faults.values())).shown if self.faults else None
        if self._phase == Phase.SETUP or (self._phase == Phase.OVER
                                         and self.occupied != self._final):
            return self._content.setup(self._setup_view, self._message, self.files_failure(),
                                       fault, self.notice, self.hall_trouble or self.banner)
        session = self.session
        assert session is not None
        return self._content.game(session.arbiter, self.now(), self._message,
                                  self.files_failure(), fault)

    def _refresh(self, force: bool = False) -> None:
        session = self.session
        self._face.show(self.display_state(), None if session is None else session.id, force)

    def refresh(self) -> None:
        """Redraws if what the screen shows changed (the clock ticking); call it at
        :meth:`next_refresh`."""
        self._refresh()

    def next_refresh(self) -> float | None:
        """Monotonic time at which the running face shows its next change (COMP 3.6.2 h: a
        minute while it shows ``1h05``, a second in the last hour, a tenth in the last 20 s),
        or None when no face runs. The cues (COMP 3.6.2 i) fall on such changes."""
        if self._phase != Phase.PLAYING or self.session is None:
            return None
        clock = self.session.arbiter.clock
        if clock is None or clock.running is None or not clock_started(clock):
            return None
        face = clock.face(clock.running, self.now())
        rules = DEFAULT_RULES
        step = (100 if face.ms <= rules.tenths_below_ms or face.in_lampo
                else 1000 if face.ms <= rules.seconds_below_ms else 60_000)
        return self.time() + ((face.ms % step) or step) / 1000 + 0.001

    def _set_status(self, text: str) -> str:
        self.status = text
        log.info("%s", text)
        return text


def _journal_records(session: GameSession) -> list[Mapping[str, Any]]:
    """A resumed game's journal lines from line 2 on (one that cannot be read: an unknown line,
    which touches the game)."""
    out: list[Mapping[str, Any]] = []
    for text in split_lines(session.trace.read_text(encoding="utf-8"))[1:]:
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):
            obj = None
        out.append(obj if isinstance(obj, dict) else {"type": "?"})
    return out
