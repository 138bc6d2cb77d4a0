"""The hall's hub (``pi/hall/PROTOCOL.md``, ``pi/hall/HUB_API.md``): a small object composing
its concerns, each in a module of its own —

- :attr:`Hub.boards` (``pi.hall.registry``): the boards, their views rebuilt from the replicas
  and the parts their own pages are served from;
- :attr:`Hub.replication` (``pi.hall.replication``): the boards' journal lines into the replicas
  and the views, resends of what is missing, the lost-line search, the start's read-back;
- :attr:`Hub.commands` (``pi.hall.commands``): arbiter actions and pairings sent to the boards,
  answered by their acks and journal lines;
- :attr:`Hub.summaries` (``pi.hall.summaries``): the hall page's boards and flags;
- the hall's alarms (``pi.hall.alarms``: :meth:`Hub.alarm`, ``GET /api/alarms`` and the
  arbiter's ``alarm`` events, HUB_API.md), pairings and rounds (``pi.hall.rounds``).

The MQTT client is ``pi.hall.mqttlink``; the HTTP side ``pi.hall.hall_http``. Everything runs
on the event loop's thread, the MQTT link's reading included. :class:`Hub` keeps the names the
link, the HTTP side and the tests use as one line each, handing over to its concern.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from pathlib import Path
from typing import Any, Callable

from aiohttp import web

from pi.hall import protocol as P
from pi.hall.alarms import AlarmLog
from pi.hall.commands import Commands
from pi.hall.boardview import BoardReplica, ReplicaPages
from pi.hall.hub_config import HubConfig
from pi.hall.registry import BoardRegistry
from pi.hall.replication import SYNC_EVERY, Replication
from pi.hall.replica import GameReplica, Replica
from pi.hall.rounds import Pairings, RoundStart, game_feed
from pi.hall.summaries import Summaries
from engine.replay import Fed
from pi.web import auth
from pi.web.server import BoardFeed

log = logging.getLogger(__name__)

__all__ = ["Hub", "TICK"]

#: Seconds between two ticks of the hub by default (:meth:`Hub.tick` and the rounds' — resends
#: asked again, delayed views released, clocks re-summed — run by
#: ``pi.hall.hall_http.HallServer(tick=…)``).
TICK = 1.0


class Hub:
    """See the module docstring. ``publish(topic, payload)`` sends to the broker (the MQTT
    link's, or a test's)."""

    def __init__(self, config: HubConfig, root: Path) -> None:
        self.config = config
        self.root = Path(root)
        self.topics = P.Topics(config.hall)
        self.replica = Replica(self.root)
        #: the hall's boards: their views and the parts their pages are served from
        self.boards = BoardRegistry(delay_minutes=config.broadcast_delay, act=self.act,
                                    broadcast=self.broadcast_pdn)
        self.token = auth.load_or_create_token(self.root)
        self.throttle = auth.Throttle()
        self.publish: Callable[[str, bytes], None] = lambda topic, payload: None
        #: the commands to the boards: actions and pairings (published through
        #: :attr:`publish` as it is when they go)
        self.commands = Commands(self.topics, self.boards, self.replica,
                                 lambda topic, payload: self.publish(topic, payload),
                                 self.alarm)
        #: told of each board's lines taken (board, its ``Fed``s): the hall's pages
        self.listeners: list[Callable[[int, list[Fed]], None]] = []
        #: where the hub's own files are (pairings, round): the state directory
        self.files = self.root
        self.files.mkdir(parents=True, exist_ok=True)
        #: the hall's pairings (``DIR/pairings.csv``; read by the hub's start)
        self.pairings = Pairings(self.files)
        #: the round started last and its boards' clocks (HUB_API.md, start a round)
        self.rounds = RoundStart(self)
        self.started = time.time()
        #: the hall's alarms (HUB_API.md ``GET /api/alarms``): :attr:`alarms` and
        #: :attr:`alarm_listeners` are its own; kept in ``alarms.jsonl`` (a restart keeps them)
        self.alarm_log = AlarmLog(self.files / "alarms.jsonl")
        #: the newest alarms, oldest first
        self.alarms = self.alarm_log.items
        #: told of each alarm (a copy)
        self.alarm_listeners = self.alarm_log.listeners
        #: the boards' messages into the replicas and the views
        self.replication = Replication(config, self.replica, self.topics, self.boards,
                                       self.commands, self.alarm,
                                       lambda topic, payload: self.publish(topic, payload),
                                       self.listeners)
        #: the hall page's summaries of the boards
        self.summaries = Summaries(self.boards, self.replication.missing)

    def broadcast_pdn(self, view: BoardReplica, feed: BoardFeed) -> tuple[str, float] | None:
        """The board's broadcast PDN as the hall serves it (``/boards/<N>/game.pdn``,
        HUB_API.md: its round's pairing and the hall's event in the tags) and when it last
        changed; None: no game yet."""
        s = view.game
        if s is None:
            return None
        rnd = s.start_line.get("round")
        pairing = None if rnd is None else self.pairings.rows.get((str(rnd), view.board))
        return game_feed(view, feed, s.replica, None if rnd is None else str(rnd), pairing,
                         self.config.event, self.config.broadcast_delay * 60.0)

    def alarm(self, board: int | None, kind: str, what: str, subject: str = "") -> dict[str, Any]:
        """An alarm for the hall's arbiter about ``board`` (None: the hub)
        (:meth:`pi.hall.alarms.AlarmLog.add`)."""
        return self.alarm_log.add(board, kind, what, subject)

    # ------------------------------------------------------------------ replication

    def load(self, *, read_back: bool = True) -> None:
        """Every replica read back (:meth:`pi.hall.replication.Replication.load`)."""
        self.replication.load(read_back=read_back)

    async def read_back(self) -> None:
        """The live games replayed, the loop free between slices
        (:meth:`pi.hall.replication.Replication.read_back`)."""
        await self.replication.read_back()

    def read_back_board(self, board: int) -> None:
        self.replication.read_back_board(board)

    def reading_back(self) -> dict[str, int] | None:
        """How far the start's read-back is (HUB_API.md ``reading_back``); None once done."""
        return self.replication.reading_back()

    def deliver(self, batch: list[tuple[str, bytes]]) -> None:
        """A batch of MQTT messages (topic, payload), in the broker's order."""
        self.replication.deliver(batch)

    def idle(self) -> float:
        """Seconds since the last journal line the hub took."""
        return self.replication.idle()

    def connected(self) -> None:
        """On every (re)connection: outstanding resends asked again at once."""
        self.replication.connected()

    def tick(self) -> None:
        """Every :data:`TICK` seconds: resends without progress asked again."""
        self.replication.tick()

    def missing(self, board: int) -> int:
        """Lines known to exist at the board and not held."""
        return self.replication.missing(board)

    async def sync_loop(self, every: float = SYNC_EVERY) -> None:
        """The replicas written meanwhile fsynced every ``every`` seconds, off the loop."""
        await self.replication.sync_loop(every)

    @property
    def heads(self) -> dict[int, P.Heads]:
        return self.replication.heads

    @property
    def known(self) -> dict[int, dict[str, int]]:
        return self.replication.known

    @property
    def unread(self) -> dict[int, GameReplica]:
        return self.replication.unread

    @property
    def waiting(self) -> dict[int, list[tuple[str, bytes]]]:
        return self.replication.waiting

    @property
    def to_read(self) -> int:
        return self.replication.to_read

    @property
    def bad_messages(self) -> int:
        return self.replication.bad_messages

    # ------------------------------------------------------------------ the other concerns

    @property
    def views(self) -> dict[int, BoardReplica]:
        """Board → its view rebuilt from the replica (:attr:`boards`)."""
        return self.boards.views

    @property
    def servers(self) -> dict[int, ReplicaPages]:
        """Board → the parts its own pages are served from (:attr:`boards`)."""
        return self.boards.servers

    @property
    def recent(self) -> dict[int, deque[Fed]]:
        return self.boards.recent

    def board(self, board: int) -> BoardReplica:
        """Board ``board``'s view, made the first time it is named (:attr:`boards`)."""
        return self.boards.board(board)

    def live_clients(self) -> int:
        return self.boards.live_clients()

    @property
    def acks(self) -> dict[str, asyncio.Future[P.Ack]]:
        return self.commands.acks

    @property
    def pairing_out(self) -> dict[int, tuple[str, dict[str, str]]]:
        return self.commands.pairing_out

    @property
    def pairing_refused(self) -> dict[int, str]:
        return self.commands.pairing_refused

    async def act(self, board: int, action: dict[str, Any]) -> web.Response:
        """An arbiter action sent to ``board`` (:meth:`pi.hall.commands.Commands.act`)."""
        return await self.commands.act(board, action)

    def push_pairing(self, board: int, pairing: dict[str, str], *, send: bool = True) -> str:
        """``pairing`` sent to ``board`` and kept until acked
        (:meth:`pi.hall.commands.Commands.push_pairing`)."""
        return self.commands.push_pairing(board, pairing, send=send)

    def summary(self, board: int, arbiter_view: bool) -> dict[str, Any]:
        """The board summary of HUB_API.md (:meth:`pi.hall.summaries.Summaries.summary`)."""
        return self.summaries.summary(board, arbiter_view)

    def flags(self) -> list[dict[str, Any]]:
        """Every flag of the boards' current games, newest first (HUB_API.md)."""
        return self.summaries.flags()

    def flag_events(self, board: int, feds: list[Fed]) -> list[dict[str, Any]]:
        return self.summaries.flag_events(board, feds)

    # ------------------------------------------------------------------ durability

    def close(self) -> None:
        self.replica.close()
        self.alarm_log.close()
