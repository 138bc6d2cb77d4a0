"""Actions on a board's earlier games (COMP 6.16, issue 37): a note or a mistaken result
corrected with its reason, for a game over before the one on the board, by its id.

:class:`EarlierGames` is the controller's (``pi.board.controller.BoardController.act`` hands it
an action for another game than its own): the finished game's journal is reopened for append,
the line written and fsync'd, its files rewritten, its ``finished`` marker written with the
result it has now, and the journal closed again (``pi.board.session.GameSession.reopen``), on a
thread of its own, one such game at a time; then whoever follows the board's games is told the
game's id (the hall's link publishes its heads: the hub asks for the line). A stop between the
line, the files and the marker is put right at the next start
(``pi.board.session.refresh_game_files``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection
from datetime import datetime, timezone

from engine.events import ArbiterActed
from engine.replay import Fed
from pi.board.arbiter_request import ArbiterRequest
from pi.board.errors import ActionRefused, JournalError
from pi.board.session import GameSession
from pi.board.statedir import StateDir

log = logging.getLogger(__name__)

__all__ = ["EarlierGames", "result_misfit"]


class EarlierGames:
    """The actions on the earlier games of ``state``'s board. ``reissued``: told (on the
    loop's thread) the id of each earlier game a line was added to; a failing one is logged
    and the others are told. The loop's thread only."""

    def __init__(self, state: StateDir, reissued: list[Callable[[str], None]]) -> None:
        self.state = state
        self.reissued = reissued
        #: one earlier game's line at a time (its journal opened, written, closed)
        self._lock = asyncio.Lock()

    async def act(self, request: ArbiterRequest, wall: Callable[[], float | None],
                  closing: Collection[str]) -> Fed:
        """A note or a result corrected for the earlier game ``request.game`` (module
        docstring), journaled at its ``t`` by ``wall()`` (Unix time, or None when the wall
        clock cannot be trusted); ``closing``: the ids of the games being closed on threads of
        their own (not over yet). Returns its line. Raises ActionRefused (no such game, a game
        not over, an action that does not fit it, a journal that cannot be written)."""
        assert request.game is not None
        game_id = request.game
        if game_id not in self.state.game_ids():
            raise ActionRefused(f"no game {game_id[:64]} on this board: not done")
        if game_id in closing or not self.state.game(game_id).is_finished():
            raise ActionRefused(f"game {game_id} is not over yet: not done")
        now = wall()
        async with self._lock:
            fed = await asyncio.to_thread(_append_after_result, self.state, game_id,
                                          request, now)
        for told in list(self.reissued):
            try:
                told(game_id)
            except Exception:
                log.exception("%r failed on game %s's new line", told, game_id)
        return fed


def result_misfit(session: GameSession, event: ArbiterActed) -> str | None:
    """Why ``correct_result`` does not fit ``session``'s game (COMP 6.16: a result to correct,
    one of the variant's, another than its own), or None."""
    game = session.arbiter.game
    results = session.variant.results
    if game.outcome is None:
        return (f"game {session.id} is in play: no result to correct (adjudicate it): "
                "not done")
    if event.result not in results:
        return (f"{event.result} is not a result of {session.variant.name} draughts "
                f"(its results: {', '.join(results)}): not done")
    if event.result == game.result:
        return f"the result of game {session.id} is {game.result} already: not done"
    return None


def _append_after_result(state: StateDir, game_id: str, request: ArbiterRequest,
                         wall: float | None) -> Fed:
    """:meth:`EarlierGames.act`'s work, on its thread: the finished game's journal reopened
    (``GameSession.reopen``), the action journaled at its ``t`` now (the wall clock since its
    ``started_at``; its last ``t`` when either is unknown), the game closed again. Raises
    ActionRefused for an action that does not fit it or a journal that cannot be written (one
    line)."""
    try:
        session = GameSession.reopen(state.game(game_id))
    except JournalError as exc:
        raise ActionRefused(f"game {game_id}: {exc}") from None
    try:
        event = ArbiterActed(_t_now(session, wall), request.action, request.result,
                             request.text, request.public)
        refusal = result_misfit(session, event) if event.action == "correct_result" else None
        if refusal is not None:
            raise ActionRefused(refusal)
        try:
            fed = session.feed(event)
        except JournalError as exc:
            raise ActionRefused(f"game {game_id}: not recorded: {exc}") from None
    finally:
        session.close()
    log.info("game %s: %s journaled after its result (line %d, result %s)", game_id,
             request.action, fed.line, session.arbiter.game.result)
    return fed


def _t_now(session: GameSession, wall: float | None) -> float:
    """The game's ``t`` at the wall-clock time ``wall`` (Unix seconds): since its start line's
    ``started_at``, never before its last line."""
    started = session.start_line.get("started_at")
    if wall is None or not isinstance(started, str):
        return session.last_t
    try:
        begun = datetime.fromisoformat(started.replace("Z", "+00:00"))
    except ValueError:
        return session.last_t
    if begun.tzinfo is None:
        begun = begun.replace(tzinfo=timezone.utc)
    return max(session.last_t, round(wall - begun.timestamp(), 3))
