"""Replication (``pi/hall/PROTOCOL.md``): every board's journal lines taken into its replica
(``pi.hall.replica``) and its view (``pi.hall.boardview``), what is missing asked for again
(resends), the boards' ``status``, ``state`` and ``ack`` messages read, the start's read-back of
the live games, and the replicas synced to disk off the loop.

Everything here runs on the event loop's thread, the MQTT link's reading included; messages
arrive in batches. A bad message is one logged line and dropped; nothing a board sends stops
the hub.

A board with a key (``hub.toml``'s ``[keys]``) has its journal lines and its ``status`` checked
(``pi.hall.signing``): the replica takes only lines that verify. What looks like someone else
speaking for a board — a line or status that does not verify, an unsigned line from a board not
accepted unsigned, a conflicting copy, a game newer than the board announced, the board's
session taken over by another client with its credentials — is an alarm, and the board is asked
again for the lines concerned. A board that lost lines it had published (its journal parts from
the replica's) is searched back to where they part, and followed from there
(PROTOCOL.md, "A board that lost lines").
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.decisions import FlagRaised
from engine.i18n import N_
from engine.replay import Fed
from pi.hall import protocol as P
from pi.hall.ack_check import ack_refusal
from pi.hall.boardview import wall_of
from pi.hall.commands import Commands
from pi.hall.errors import BadMessage
from pi.hall.hub_config import HubConfig
from pi.hall.registry import BoardRegistry
from pi.hall.replica import GameReplica, Offered, Replica, game_order, sync_taken
from pi.hall.signing import Chain, line_mac, same_mac, status_mac

log = logging.getLogger(__name__)

__all__ = ["Replication", "RESEND_AFTER", "SYNC_EVERY", "READ_BACK_SLICE", "MAX_TOPICS"]

#: A resend without progress is asked again after this many seconds (PROTOCOL.md).
RESEND_AFTER = 5.0
#: Finished games per board whose public view (as the board moved on) is kept in memory.
KEPT_PUBLIC = 2
#: A line that did not verify is asked again at most this often per game (seconds).
ASK_AGAIN_AFTER = 1.0
#: Seconds a search for where a board's journal parts from the replica's (:meth:`Hub._probe`)
#: lasts without a new request (then it is forgotten, and begun again by the board's next line).
PROBE_FOR = 60.0
#: Seconds between two fsyncs of the replicas written meanwhile (:meth:`Hub.sync_loop`, off the
#: loop; PROTOCOL.md). Every file written in the interval is synced once: at 1,000 boards a
#: half second made ~1,000 fsyncs a second, each taking the interpreter's lock from the
#: loop and a journal commit from the disk; what an OS crash loses of a replica the boards
#: resend (docs/developer-hub-load.md, "The disk off the loop").
SYNC_EVERY = 2.0
#: Seconds of replay the start's read-back takes at a time before the loop serves the rest
#: (:meth:`Hub.read_back`): the boards already read, the pages and the link wait at most this
#: long; longer slices finish the read-back sooner (one board per turn: 22.6 s for 1,000 games
#: of ~70 lines with the boards playing on, docs/developer-hub-load.md).
READ_BACK_SLICE = 0.05
#: Topics whose (board, leaf) is kept once read (every message names one): cleared when full
#: (a stranger's topics for boards that do not exist cost a read again, no memory).
MAX_TOPICS = 20_000


@dataclass
class _Ask:
    start: int
    at: float
    held: int


class Replication:
    """The boards' messages taken (:meth:`deliver`): ``boards``, the registry their views are
    in; ``commands``, told of acks and of boards come online; ``alarm(board, kind, what,
    subject)``, the hall's alarms; ``publish(topic, payload)``, to the broker (resends);
    ``listeners``, told of each board's lines taken (board, its ``Fed``s)."""

    def __init__(self, config: HubConfig, replica: Replica, topics: P.Topics,
                 boards: BoardRegistry, commands: Commands,
                 alarm: Callable[[int | None, str, str, str], Mapping[str, Any]],
                 publish: Callable[[str, bytes], None],
                 listeners: list[Callable[[int, list[Fed]], None]]) -> None:
        self.config = config
        self.replica = replica
        self.topics = topics
        self.boards = boards
        self.commands = commands
        self.publish = publish
        self.listeners = listeners
        self._alarm = alarm
        self.heads: dict[int, P.Heads] = {}
        #: per board: its last online status (what it announced: its games and heads)
        self.announced: dict[int, P.Heads] = {}
        #: per board, per game: the lines known to exist at the board (status heads, lines seen)
        self.known: dict[int, dict[str, int]] = {}
        #: time.monotonic() of the last batch that brought a journal line (:meth:`idle`)
        self.last_line = time.monotonic()
        self.asks: dict[tuple[int, str], _Ask] = {}
        #: (board, game) whose heads or lines changed in the batch being delivered: checked
        #: against the replica once the whole batch is in (a line the batch brings later is
        #: not asked for)
        self._wanted: set[tuple[int, str]] = set()
        self.bad_messages = 0
        #: per board with a key: the chain of macs of its games (rebuilt from the replica)
        self.chains: dict[int, Chain] = {}
        #: per board: the ``taken_over`` count of its last signed status
        self.taken: dict[int, int] = {}
        self._asked_again: dict[tuple[int, str], float] = {}
        #: per (board, game) whose journal parts from the replica's: (line asked from, when)
        self._probes: dict[tuple[int, str], tuple[int, float]] = {}
        #: topic → (board, leaf), for the topics read (MAX_TOPICS at most)
        self._topic_of: dict[str, tuple[int, str]] = {}
        #: boards whose newest game the start has not replayed yet (:meth:`read_back`), in the
        #: order they are read; the hall's pages leave them out until they are
        self.unread: dict[int, GameReplica] = {}
        #: per unread board: its journal messages come meanwhile, taken once it is read back
        self.waiting: dict[int, list[tuple[str, bytes]]] = {}
        #: the boards the start had to read back (``/api/hall``'s ``reading_back``)
        self.to_read = 0
        self.replica.disk_listeners.append(self._disk)

    def alarm(self, board: int | None, kind: str, what: str, subject: str = "") -> None:
        self._alarm(board, kind, what, subject)

    # ------------------------------------------------------------------ start

    def load(self, *, read_back: bool = True) -> None:
        """Reads every replica back: each board's games listed (the older ones parked: read
        back on demand for feeds, pages, reports) and its newest game replayed into its view —
        at once (``read_back``), or left in :attr:`unread` for :meth:`read_back`. The running
        hub does the latter: replaying every live game takes ~0.1 ms a line (11 s for 1,000
        games of 80 lines here, a minute mid-round), and its pages and link answer meanwhile."""
        n = self.replica.load()
        for board, game_id, line, _why in self.replica.damaged:  # logged by the replica
            self.alarm(board, "damaged", N_(
                "the hub's copy of game {game} was damaged on its disk at line {line}: cut back "
                "there, the lines cut kept in its damaged.jsonl and asked from the board "
                "again").format(game=game_id, line=line), game_id)
        self.replica.damaged.clear()
        for board, games in self.replica.boards.items():
            view = self.boards.board(board)
            for g in games.values():
                view.replica_games[g.id] = g
            newest = max(games.values(), key=lambda g: game_order(g.id), default=None)
            for g in games.values():
                if g is not newest:
                    self.replica.park(g)
            if newest is not None and newest.held:
                self.unread[board] = newest
        self.to_read = len(self.unread)
        log.info("replicas found: %d game(s) of %d board(s); %d live game(s) to read back", n,
                 len(self.replica.boards), self.to_read)
        if read_back:
            for board in list(self.unread):
                self.read_back_board(board)

    def reading_back(self) -> dict[str, int] | None:
        """How far the start's read-back is (HUB_API.md ``reading_back``): boards read of those
        to read; None once done."""
        if not self.unread:
            return None
        return {"boards": self.to_read - len(self.unread), "of": self.to_read}

    async def read_back(self) -> None:
        """The boards of :attr:`unread` replayed one at a time, the loop free every
        :data:`READ_BACK_SLICE` seconds (HTTP, the link, the ticks go on): a board with journal
        lines waiting first, then in board order. Each read board goes to the hall's pages as
        it is read."""
        started, cpu = time.monotonic(), time.process_time()
        count = len(self.unread)
        while self.unread:
            turn = time.monotonic()
            while self.unread and time.monotonic() - turn < READ_BACK_SLICE:
                self.read_back_board(next(iter(self.waiting), None) or next(iter(self.unread)))
            await asyncio.sleep(0)
        if count:
            log.info("live games read back: %d board(s) in %.1f s (%.1f s of CPU)", count,
                     time.monotonic() - started, time.process_time() - cpu)

    def read_back_board(self, board: int) -> None:
        """Board ``board``'s newest game replayed into its view now if the start has not yet
        (a page or the console asking for the board reads it first), then the journal
        messages that came for it meanwhile taken."""
        g = self.unread.pop(board, None)
        if g is None:
            return
        waiting = self.waiting.pop(board, None)
        # a newer game begun in what waits (a round started while the hub reads back, as when
        # it is restarted between rounds): the board shows that one, the old game is not
        # replayed now (read back on demand, as any earlier game); unless that start does not
        # take (a line refused), then it is. Not under a broadcast delay: the public view of
        # a game that ended within the delay is the one its replay leaves (``view.kept``)
        newer = waiting is not None and self.config.broadcast_delay <= 0 and \
            _begins_after(waiting, g.id)
        if newer:
            self.replica.park(g)
        else:
            self._read_back_game(board, g)
        if waiting:
            self.deliver(waiting)
        else:
            for listener in self.listeners:
                listener(board, [])
        if newer and self.boards.views[board].game is None:
            self._read_back_game(board, g)
            for listener in self.listeners:
                listener(board, [])
        # what its heads say it has and neither the replica nor the lines waiting held
        now = time.monotonic()
        for game_id in list(self.known.get(board, ())):
            self._check((board, game_id), now)

    def _read_back_game(self, board: int, g: GameReplica) -> None:
        try:
            self._follow(board, g, rebuilt=True)
        except Exception:  # the board's view as its lines make it; the other boards read on
            log.exception("board %s: game %s not read back", board, g.id)

    # ------------------------------------------------------------------ messages

    def deliver(self, batch: list[tuple[str, bytes]]) -> None:
        """A batch of MQTT messages (topic, payload), in the broker's order."""
        changed: dict[int, list[Fed]] = {}
        lines = False
        self.replica.defer()  # the batch's lines written at its end, one write per game
        try:
            for topic, payload in batch:
                if topic.startswith("$SYS/"):
                    self._broker_log(payload)
                    continue
                try:
                    where = self._topic_of.get(topic)
                    if where is None:
                        where = P.parse_topic(self.topics, topic)
                        if len(self._topic_of) >= MAX_TOPICS:
                            self._topic_of.clear()
                        self._topic_of[topic] = where
                    board, leaf = where
                    if leaf == "journal" and board in self.unread:  # after its read-back
                        self.waiting.setdefault(board, []).append((topic, payload))
                        continue
                    fed = self._message(board, leaf, payload)
                    if fed:
                        lines = True
                    changed.setdefault(board, []).extend(fed)
                except BadMessage as exc:
                    self.bad_messages += 1
                    log.warning("bad message on %s dropped: %s", topic[:80], exc)
                except Exception:
                    self.bad_messages += 1
                    log.exception("message on %s failed; dropped", topic[:80])
        finally:
            for g in self.replica.flush():
                self._unwritten(g)
            wanted, self._wanted = self._wanted, set()
            now = time.monotonic()
            for key in wanted:
                self._check(key, now)
        if lines:
            self.last_line = time.monotonic()
        for board, feds in changed.items():
            for listener in self.listeners:
                listener(board, feds)

    def idle(self) -> float:
        """Seconds since the last journal line the hub took (the hall is quiet between rounds:
        the moment for ``pi.hall.collector``'s collection of the whole heap)."""
        return time.monotonic() - self.last_line

    def _message(self, board: int, leaf: str, payload: bytes) -> list[Fed]:
        if leaf == "journal":
            j = P.parse_journal(payload)
            view = self.boards.board(board)
            view.last_heard = time.time()
            return self._journal(board, j)
        if leaf == "status":
            heads = P.parse_status(payload)
            if heads.board != board:
                raise BadMessage(f"status of board {heads.board} on board {board}'s topic")
            if not self._status_ok(board, heads):
                return []
            view = self.boards.board(board)
            came_online = heads.online and not view.online
            view.online = heads.online
            view.last_heard = time.time()
            self.heads[board] = heads
            if heads.online:
                self.announced[board] = heads
            if came_online:
                self.commands.repush_pairing(board)
            for game_id, lines, _finished in heads.games:
                self._want(board, game_id, lines)
            if heads.game_id is not None:
                self._want(board, heads.game_id, heads.lines)
            return []
        if leaf == "state":
            obj = _json_object(payload, "state")
            view = self.boards.board(board)
            view.take_state(obj)
            view.last_heard = time.time()
            return []
        if leaf == "ack":
            ack = P.parse_ack(payload)
            out = self.commands.pairing_out.get(board)
            why = ack_refusal(self.config.signing(board), self.config.keys.get(board), ack,
                              pairing=out is not None and out[0] == ack.id)
            if why is not None:
                log.warning("board %s: ack of command %.40s refused: %s", board, ack.id, why)
                return []
            self.commands.acked(board, ack)
            return []
        return []  # cmd: the hub's own, echoed by nobody (not subscribed)

    def _journal(self, board: int, j: P.JournalLine) -> list[Fed]:
        mode = self.config.signing(board)
        if mode == "refused":
            self.alarm(board, "unsigned", N_("a journal line from a board with no key in "
                                             "hub.toml and not in accept_unsigned: refused"))
            return []
        chain = self._chain(board) if mode == "signed" else None
        if chain is not None and j.mac is None:
            self._refused(board, j, N_("carries no mac (the board signs every line)"))
            return []
        check = None if chain is None else (
            lambda n, text, mac: chain.verify(j.game_id, n, text, mac))
        got = self.replica.offer(board, j.game_id, j.line, j.text, j.mac, check)
        if got.refused is not None:
            if got.refused == j.line and chain is not None and self._parted(board, j, chain):
                pass  # the board's own line after another line than the replica's: find where
            else:
                self._refused(board, P.JournalLine(j.game_id, got.refused, ""),
                              N_("does not verify"))
        if got.kind == "duplicate" and chain is not None and (board, j.game_id) in self._probes:
            self._duplicate_signed(board, j, chain)
        if got.kind == "conflict" and chain is not None and j.mac is not None:
            fork = self._conflict_signed(board, j, chain)
            if fork is None:
                return []  # the board's line, after lines that part from the replica's earlier
            if fork:  # the replica took the board's journal from that line: replay it anew
                got = self.replica.offer(board, j.game_id, j.line, j.text, j.mac, check)
                if got.kind == "appended":
                    return self._refollow(board, j.game_id, got)
        if got.kind == "conflict":
            kept = N_("the verified one") if chain is not None else N_("its first")
            self.alarm(board, "conflict", N_(
                "game {game} line {line}: a conflicting copy received (the replica keeps "
                "{kept})").format(game=j.game_id, line=j.line, kept=kept), subject=j.game_id)
            if chain is None:  # nothing tells the copies apart: the board is asked again
                self._ask_again(board, j.game_id, j.line)
            return []
        if got.kind in ("ahead", "dropped", "failed"):
            if chain is None:
                self._want(board, j.game_id, j.line)
            elif self.replica.game(board, j.game_id) is not None:
                # a line ahead proves lines exist only once it verifies: until then it proves
                # the next line missing, no more (a forged line numbered 10**9 does not make
                # the hub wait for it)
                self._want(board, j.game_id, self.replica.held(board, j.game_id) + 1)
            else:  # a game not held: asked once, nothing known of it (it may be invented)
                self._ask_again(board, j.game_id, j.line)
            return []
        if got.kind != "appended":
            return []
        g = self.replica.game(board, j.game_id)
        assert g is not None
        view = self.boards.board(board)
        view.replica_games[g.id] = g
        self._want(board, j.game_id, got.lines[-1][0])
        current = view.game
        if current is not None and current.id == g.id:
            return self._replay_lines(board, got.lines)
        if got.lines[0][0] == 1 and (current is None or
                                      game_order(g.id) > game_order(current.id)):
            return self._follow(board, g, rebuilt=False)
        self.replica.park(g)  # lines resent of a game not followed: not kept in memory
        return []

    # ------------------------------------------------------------------ a board that lost lines

    def _parted(self, board: int, j: P.JournalLine, chain: Chain) -> bool:
        """Line ``j`` (the next the replica wants) did not verify after the replica's lines:
        whether it is the board's all the same — signed with its key after its own line
        ``j.line - 1`` (``prev``), which is not the replica's. Then the board's journal parted
        from the replica's at or before that line (a board that lost lines it had published,
        issue 38): the board is asked for its lines from there back (:meth:`_probe`), not
        alarmed at. A line with no ``prev`` (an older board) or that does not verify with it
        is not the board's: False (forged)."""
        if j.prev is None or j.mac is None or not same_mac(j.mac, line_mac(
                chain.key, j.game_id, j.line, j.text, j.prev)):
            return False
        held = self.replica.held(board, j.game_id)
        self._probe(board, j.game_id, max(1, held))
        return True

    def _conflict_signed(self, board: int, j: P.JournalLine, chain: Chain) -> bool | None:
        """A copy of held line ``j.line`` with another text, from a board with a key. True:
        it is the board's line after the replica's very lines before it (it verifies after
        them) and a ``restart`` — the board lost the replica's line ``j.line`` (and those
        after it) after publishing them and resumed its journal from line ``j.line - 1``
        (PROTOCOL.md, "A board that lost lines"): the replica keeps what it had beside it
        (:meth:`pi.hall.replica.Replica.supersede`), takes the board's journal from there,
        and one alarm says so. None: the board's line (it verifies with its ``prev``) after a
        line that is not the replica's either: the board is asked from further back. False:
        not the board's, or not an honest lost line (the conflict alarm)."""
        g = self.replica.game(board, j.game_id)
        if g is None:
            return False
        try:
            previous = chain.previous(j.game_id, j.line)
        except LookupError:
            return False
        if not same_mac(j.mac, line_mac(chain.key, j.game_id, j.line, j.text, previous)):
            if j.prev is not None and j.mac is not None and j.line > 1 and same_mac(
                    j.mac, line_mac(chain.key, j.game_id, j.line, j.text, j.prev)):
                back = g.held - j.line + 1  # twice as far back each time
                self._probe(board, j.game_id, max(1, j.line - back))
                return None
            return False
        if _record_type(j.text) != "restart":
            return False
        held = g.held
        gone = self.replica.supersede(g, j.line)
        if gone is None:
            return False
        chain.forget(j.game_id)
        self._probes.pop((board, j.game_id), None)
        if len(gone) == 1:
            what = N_("board {board} lost line {line} of game {game} after publishing it: its "
                      "journal goes on from there with other lines; the hub follows the "
                      "board's and keeps the lost line for the arbiter")
        else:
            what = N_("board {board} lost lines {line} to {last} of game {game} after "
                      "publishing them: its journal goes on from there with other lines; the "
                      "hub follows the board's and keeps the lost lines for the arbiter")
        self.alarm(board, "lost", what.format(board=board, line=j.line, last=held,
                                              game=j.game_id), subject=j.game_id)
        log.warning("board %s game %s: lines %d..%d superseded by the board's journal (kept "
                    "in superseded.jsonl)", board, j.game_id, j.line, held)
        return True

    def _duplicate_signed(self, board: int, j: P.JournalLine, chain: Chain) -> None:
        """While the hub looks for where a board's journal parts from the replica's: a copy of
        held line ``j.line`` with the same text but the board's mac after other lines (the
        same text after a different history) means they part further back: asked from
        there."""
        if j.mac is None or j.prev is None or j.line < 2:
            return
        try:
            ours = line_mac(chain.key, j.game_id, j.line, j.text, chain.previous(j.game_id, j.line))
        except LookupError:
            return
        if not same_mac(j.mac, ours) and same_mac(j.mac, line_mac(chain.key, j.game_id, j.line,
                                                                   j.text, j.prev)):
            back = self.replica.held(board, j.game_id) - j.line + 1
            self._probe(board, j.game_id, max(1, j.line - back))

    def _probe(self, board: int, game_id: str, start: int) -> None:
        """The board asked to resend ``game_id`` from ``start`` (before the replica's head: where
        its journal parts from the replica's is looked for). A start further back than the
        last asked goes at once; the same again at most every ASK_AGAIN_AFTER seconds."""
        key = (board, game_id)
        now = time.monotonic()
        last = self._probes.get(key)
        if last is not None:
            start = min(start, last[0])
            if start == last[0] and now - last[1] < ASK_AGAIN_AFTER:
                return
        if len(self._probes) > 4096:  # a stranger cannot make it (the lines are signed)
            self._probes.clear()
        self._probes[key] = (start, now)
        log.info("board %s game %s: its journal parts from the replica's by line %d: resend "
                 "from %d asked", board, game_id, self.replica.held(board, game_id), start)
        self.publish(self.topics.board(board, "cmd"), P.resend_payload(game_id, start))

    def _refollow(self, board: int, game_id: str, got: Offered) -> list[Fed]:
        """Game ``game_id``'s replica was cut back and took the board's lines ``got``: the
        board's view of it replayed from the replica (it had shown the lines taken out)."""
        g = self.replica.game(board, game_id)
        assert g is not None
        view = self.boards.board(board)
        view.replica_games[g.id] = g
        self._want(board, game_id, got.lines[-1][0])
        if view.game is not None and view.game.id == g.id:
            return self._follow(board, g, rebuilt=True)
        self.replica.park(g)
        return []

    def _unwritten(self, g: GameReplica) -> None:
        """The disk refused game ``g``'s lines of the batch: they are not held; the board's
        view of it is rebuilt from what is, and the board asked for the rest again."""
        view = self.boards.views.get(g.board)
        if view is not None and view.game is not None and view.game.id == g.id:
            self._follow(g.board, g, rebuilt=True)
        self.asks.pop((g.board, g.id), None)
        self._check((g.board, g.id), time.monotonic())

    def _chain(self, board: int) -> Chain:
        chain = self.chains.get(board)
        if chain is None:
            def texts(game_id: str, upto: int) -> list[str]:
                g = self.replica.game(board, game_id)
                return [] if g is None else g.lines[:upto]
            chain = Chain(self.config.keys[board], texts)
            self.chains[board] = chain
        return chain

    def _refused(self, board: int, j: P.JournalLine, why: str) -> None:
        """Line ``j.line`` of ``j.game`` was not taken (``why``): an alarm, and the board is
        asked for it again (its own copy verifies)."""
        heads = self.announced.get(board)
        what = N_("game {game} line {line}: {why}; refused, the board asked again")
        if heads is not None and heads.game_id is not None and game_order(j.game_id) > \
                game_order(heads.game_id) and all(j.game_id != g for g, _, _ in heads.games):
            what = N_("game {game} (a game ahead of the one the board announced, {announced}) "
                      "line {line}: {why}; refused, the board asked again")
        elif heads is not None and heads.game_id is None and j.game_id not in \
                {g for g, _, _ in heads.games}:
            what = N_("game {game} (a game the board never announced) line {line}: {why}; "
                      "refused, the board asked again")
        self.alarm(board, "forged", what.format(
            game=j.game_id, line=j.line, why=why,
            announced=heads.game_id if heads is not None else None), subject=j.game_id)
        self._ask_again(board, j.game_id, j.line)

    def _ask_again(self, board: int, game_id: str, line: int) -> None:
        """A resend of ``game_id`` from the first line not held (at most every ASK_AGAIN_AFTER
        seconds): what the board has there replaces what was refused. Known heads unchanged."""
        key = (board, game_id)
        now = time.monotonic()
        if now - self._asked_again.get(key, -ASK_AGAIN_AFTER) < ASK_AGAIN_AFTER:
            return
        if len(self._asked_again) > 4096:  # games invented by a stranger cost nothing kept
            self._asked_again = {k: t for k, t in self._asked_again.items()
                                 if now - t < ASK_AGAIN_AFTER}
        self._asked_again[key] = now
        held = self.replica.held(board, game_id)
        self.publish(self.topics.board(board, "cmd"), P.resend_payload(game_id, held + 1))

    def _disk(self, why: str | None) -> None:
        """The replicas' disk refuses their lines (``why``; a full disk): one alarm, then quiet
        until it takes them again (logged by the replica)."""
        if why is not None:
            self.alarm(None, "disk", N_("the hub's disk refuses the boards' lines ({why}): "
                                         "they are asked for again once it takes them; quiet "
                                         "until then").format(why=why))

    def _broker_log(self, payload: bytes) -> None:
        """A line of the broker's error log: a second connection with a user's credentials
        (Mosquitto takes the client id from the user name, so the same id twice is the same
        credentials twice) is an alarm for that board (or the hub)."""
        m = _TAKEN_OVER.search(payload[:300].decode("utf-8", "replace"))
        if m is None:
            return
        user = m.group(1)
        # a board's user names its board; any other (the hub's, a room's bridge) the hub's
        board = P.parse_board(user.removeprefix("board-")) if user.startswith("board-") else None
        self.alarm(board, "taken_over", N_(
            "{user}'s credentials are used by another client at once: the broker closed the "
            "first connection (board and intruder now take turns)").format(user=user))

    def _status_ok(self, board: int, heads: P.Heads) -> bool:
        """A board's ``status`` is its own: signed with its key (a board with one), or from a
        board accepted unsigned. The offline will (the broker's, fixed at connection) is taken
        unsigned. Otherwise an alarm, and the status is ignored."""
        mode = self.config.signing(board)
        if not heads.online or mode == "unsigned":
            return True
        if mode == "refused":
            self.alarm(board, "unsigned", N_("a status from a board with no key in hub.toml "
                                             "and not in accept_unsigned: ignored"))
            return False
        if not same_mac(heads.mac, status_mac(self.config.keys[board], heads.body)):
            self.alarm(board, "status", N_("a status not signed by the board's key: ignored "
                                           "(someone else publishes with the board's "
                                           "credentials)"))
            return False
        before = self.taken.get(board, 0)
        self.taken[board] = heads.taken_over
        if heads.taken_over > before:
            self.alarm(board, "taken_over", N_(
                "board-{board}'s credentials are used by another client at once: the broker "
                "handed it the board's session ({n} time(s) since the board started)").format(
                board=board, n=heads.taken_over))
        return True

    def _replay_lines(self, board: int, lines: tuple[tuple[int, str], ...] | list[tuple[int, str]]
              ) -> list[Fed]:
        view, ws = self.boards.views[board], self.boards.servers[board]
        out = []
        for number, text in lines:
            fed = view.replay_line(number, text)
            if fed is not None:
                ws.feeds.on_fed(fed)
                self.boards.recent[board].append(fed)
                out.append(fed)
        return out

    def _follow(self, board: int, g: GameReplica, rebuilt: bool) -> list[Fed]:
        """Board ``board`` shows game ``g`` from now on (a new game, or the newest at start)."""
        view, ws = self.boards.board(board), self.boards.servers[board]
        if view.game is not None:
            old = view.game.replica
            view.kept[old.id] = ws.feeds.public_pdn_snapshot()
            # the public view of a game is wanted while it ended within the broadcast delay:
            # the board's last games' only (a game takes longer than any delay)
            for gone in list(view.kept)[:-KEPT_PUBLIC]:
                del view.kept[gone]
            if old is not g:
                self.replica.park(old)
        first = view.begin(g)
        if first is None:
            return []
        ws.feeds.on_fed(first)
        if not rebuilt or ws.feeds.delay > 0:
            # with a delay every line goes through the public stream's queue, dated by the
            # game's own clock: a hub restart shows nothing earlier than the board would
            lines = list(enumerate(g.lines[1:], start=2))
            if rebuilt:
                return self._replay_dated(board, lines)
            return [first] + self._replay_lines(board, lines)
        fast = []
        for number, text in enumerate(g.lines[1:], start=2):
            fed = view.replay_line(number, text)
            if fed is not None:
                fast.append(fed)
                for d in fed.decisions:
                    if isinstance(d, FlagRaised):
                        ws.feeds.flag_lines.setdefault(d.flag.id, number)
        if fast:
            ws.feeds.last_record = fast[-1].record
        flags = dict(ws.feeds.flag_lines)
        ws.feeds.prime()
        ws.feeds.flag_lines = flags
        return [first] + fast

    def _replay_dated(self, board: int, lines: list[tuple[int, str]]) -> list[Fed]:
        view, ws = self.boards.views[board], self.boards.servers[board]
        out = []
        for number, text in lines:
            fed = view.replay_line(number, text)
            if fed is None or view.game is None:
                continue
            age = time.time() - wall_of(view.game, view.game.last_t)
            ws.feeds.on_fed(fed, received=time.monotonic() - max(0.0, age))
            out.append(fed)
        return out

    # ------------------------------------------------------------------ resends

    def _want(self, board: int, game_id: str, lines: int) -> None:
        key = (board, game_id)
        heads = self.known.setdefault(board, {})
        if lines > heads.get(game_id, 0):
            heads[game_id] = lines
        self._wanted.add(key)  # checked at the batch's end (deliver)

    def _check(self, key: tuple[int, str], now: float) -> None:
        if key[0] in self.unread:  # its lines that came meanwhile wait in memory: asked for
            return                 # once they are in (read_back_board)
        held = self.replica.held(*key)
        known = self.known.get(key[0], {}).get(key[1], 0)
        if held >= known:
            self.asks.pop(key, None)
            return
        ask = self.asks.get(key)
        if ask is not None:
            if held > ask.held:  # lines are coming: wait on
                ask.held, ask.at = held, now
                return
            if now - ask.at < RESEND_AFTER:
                return
        board, game_id = key
        self.publish(self.topics.board(board, "cmd"), P.resend_payload(game_id, held + 1))
        self.asks[key] = _Ask(held + 1, now, held)
        log.info("board %s game %s: resend from line %d asked (%d known)", board, game_id,
                 held + 1, known)

    def connected(self) -> None:
        """On every (re)connection: outstanding resends are asked again at once (the retained
        ``status`` of every board follows the new subscription and brings its heads)."""
        self.asks.clear()
        now = time.monotonic()
        for key in [(b, g) for b, games in self.known.items() for g in games]:
            self._check(key, now)

    def tick(self) -> None:
        """Once a second: resends without progress for RESEND_AFTER are asked again."""
        now = time.monotonic()
        for key in list(self.asks):
            self._check(key, now)
        for key, (_, at) in list(self._probes.items()):
            if now - at > PROBE_FOR:  # the board no longer answers it: looked for anew
                del self._probes[key]

    def missing(self, board: int) -> int:
        """Lines known to exist at the board and not held (every summary of the hall asks)."""
        known = self.known.get(board)
        return self.replica.missing(board, known) if known else 0

    # ------------------------------------------------------------------ durability

    async def sync_loop(self, every: float = SYNC_EVERY) -> None:
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(every)
            taken = self.replica.take_dirty()
            if taken:
                await loop.run_in_executor(None, sync_taken, taken)


#: Mosquitto's log line when a client connects with the id of one connected.
_TAKEN_OVER = re.compile(r"Client (\S{1,80}) already connected, closing old connection")


def _begins_after(waiting: list[tuple[str, bytes]], game_id: str) -> bool:
    """Whether the journal messages ``waiting`` hold the first line of a game newer than
    ``game_id`` (the boards' game ids sort in the order they began: ``game_order``)."""
    after = game_order(game_id)
    for _, payload in waiting:
        try:
            j = P.parse_journal(payload)
        except BadMessage:
            continue
        if j.line == 1 and game_order(j.game_id) > after:
            return True
    return False


def _record_type(text: str) -> str | None:
    """The ``type`` of a journal line's record (None: not a record)."""
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError):
        return None
    kind = obj.get("type") if isinstance(obj, dict) else None
    return kind if isinstance(kind, str) else None


def _json_object(payload: bytes, what: str) -> dict[str, Any]:
    if len(payload) > P.MAX_PAYLOAD:
        raise BadMessage(f"{what}: payload of {len(payload)} bytes (limit {P.MAX_PAYLOAD})")
    try:
        obj = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadMessage(f"{what}: not JSON") from None
    if not isinstance(obj, dict):
        raise BadMessage(f"{what}: not a JSON object")
    return obj
