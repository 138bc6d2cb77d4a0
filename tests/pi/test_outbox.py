"""The board's durable outbox (``pi.board.journal``, issue 39): a line goes to the listeners
only once its journal line is durable, in journal order; an action's answer likewise; what a
closed journal never made durable is dropped, an action's answer then refused (the daemon's
whole write-behind path: ``test_controller.py``, ``test_crash.py``)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from engine.replay import Fed
from pi.board.errors import ActionRefused
from pi.board.journal import DurableOutbox


@dataclass
class Journal:
    closed: bool = False


@dataclass
class Session:
    """What the outbox reads of a game session: its durable line and whether its journal is
    closed."""

    durable_line: int = 0
    journal: Journal = field(default_factory=Journal)


def _fed(line: int) -> Fed:
    return Fed(line, {"type": "lift", "t": float(line)}, None, ())


def _release(outbox: DurableOutbox, current: Any) -> tuple[bool, list[int], list[int]]:
    out: list[int] = []
    told: list[int] = []
    done = outbox.release(current, out=lambda f: out.append(f.line),
                          tell=lambda f: told.append(f.line))
    return done, out, told


def test_lines_go_out_in_order_once_durable() -> None:
    outbox, game = DurableOutbox(), Session()
    for line in (1, 2, 3):
        outbox.hold(game, _fed(line))  # type: ignore[arg-type]
    assert _release(outbox, game) == (False, [], [])
    game.durable_line = 2
    assert _release(outbox, game) == (False, [1, 2], [1, 2])
    assert len(outbox) == 1
    game.durable_line = 3
    assert _release(outbox, game) == (True, [3], [3])
    assert len(outbox) == 0


def test_a_game_no_longer_in_play_is_told_but_not_its_readers_view() -> None:
    outbox, old, new = DurableOutbox(), Session(durable_line=5), Session(durable_line=1)
    outbox.hold(old, _fed(5))  # type: ignore[arg-type]
    outbox.hold(new, _fed(1))  # type: ignore[arg-type]
    assert _release(outbox, new) == (True, [1], [5, 1])


def test_an_answer_waits_for_its_line_and_a_closed_journal_refuses_it() -> None:
    async def run() -> tuple[Fed, BaseException | None, list[int]]:
        loop = asyncio.get_running_loop()
        outbox, game = DurableOutbox(), Session()
        answered: asyncio.Future[Fed] = loop.create_future()
        outbox.hold(game, _fed(1), answered)  # type: ignore[arg-type]
        assert _release(outbox, game)[0] is False and not answered.done()
        game.durable_line = 1
        _, _, told = _release(outbox, game)
        refused: asyncio.Future[Fed] = loop.create_future()
        outbox.hold(game, _fed(2), refused)  # type: ignore[arg-type]
        outbox.hold(game, _fed(3))  # type: ignore[arg-type]
        game.journal.closed = True  # lines 2 and 3 never durable: never recorded
        assert _release(outbox, game) == (True, [], [])
        return answered.result(), refused.exception(), told
    answer, refusal, told = asyncio.run(run())
    assert answer.line == 1 and told == []  # an answer is not a listener's line
    assert isinstance(refusal, ActionRefused) and "not recorded" in str(refusal)


def test_nothing_held_is_all_out() -> None:
    assert _release(DurableOutbox(), None) == (True, [], [])
