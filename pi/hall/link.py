"""The board's side of the hall (``pi/hall/PROTOCOL.md``): :class:`BoardLink` publishes the
board's journal, state and status to the hall's MQTT broker and carries out the hub's commands.

Threads (the daemon's loop never waits for the network or the disk):

* the **loop** (the daemon's): :meth:`BoardLink.on_fed`, a controller listener, hands each
  journal line to the out queue (a ``SimpleQueue.put``: no encoding, no lock held by another
  thread) and builds the ``state`` object (which reads the board's
  :class:`pi.board.view.BoardView`) at most every :attr:`state_interval` seconds, trailing
  edge, so that the last line is always in a state; actions from the hub are the board's
  ``act`` here, exactly as ``POST /api/arbiter``'s, and the pairing its ``set_pairing``;
* the **out** thread encodes (``pi.board.journal.encode_line``: the bytes the journal wrote) and
  publishes, in journal order;
* the **I/O** thread: commands (the kept ids, the pairing), ``status`` heads, ``resend``s read
  back from disk;
* paho's network thread (``loop_start``): connection, reconnection with backoff, the queue of
  what was published while the broker was away (unbounded: the journal lines of a partition of
  minutes are a few hundred kB).

Every line is published only after it is durable (a listener is called after the journal's
fsync). What the broker or the board lost is found again by the hub from the ``status`` heads
and asked for with a ``resend``.

With ``[mqtt] key`` every journal line carries its ``mac`` and every ``status`` is signed
(``pi.hall.signing``): the hub keeps only what verifies. The board connects with MQTT 5 (a
persistent session of a day, as the 3.1.1 session it replaces) so that the broker tells it when
another client took its session over with its credentials (reason "Session taken over"): the
board counts it in its next ``status`` (``taken_over``), which the hub turns into an alarm,
and connects again at once.
"""

from __future__ import annotations

import asyncio
import json
import logging
import queue
import ssl
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import secrets

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from engine.decisions import FlagRaised, GameEnded
from engine.i18n import N_
from pi.board.arbiter_request import ArbiterRequest, check_arbiter_request
from pi.board.config import MqttSpec
from pi.hall.errors import BadMessage
from pi.hall.board_store import HallStore, banner_text, find_action, journal_lines
from pi.hall.protocol import (MAX_PAYLOAD, PAIRING_KEYS, Ack, Command, Resend, Topics,
                              ack_payload, client_id, journal_payload, offline_payload,
                              parse_command, status_payload)
from pi.hall.signing import Chain
from pi.board.journal import encode_line
from engine.replay import Fed
from pi.board.statedir import StateDir
from pi.board.errors import ActionRefused
from pi.board.view import BoardActions, BoardView
from pi.web.server import state_dict

log = logging.getLogger(__name__)

__all__ = ["BoardLink", "SESSION_EXPIRY", "TAKEN_OVER", "RESEND_BACKOFF", "RESEND_BACKOFF_MAX",
           "CERT_REFUSED"]

#: The board's persistent session at the broker lasts this long without it (seconds): a day,
#: as ``persistent_client_expiration`` of the hall's mosquitto.conf.
SESSION_EXPIRY = 24 * 3600
#: MQTT 5's DISCONNECT reason "Session taken over": a client connected with this board's id.
TAKEN_OVER = 0x8E
#: A ``resend`` asked again from the same line is served once this many seconds have passed,
#: the wait doubling each time it is served (:meth:`BoardLink._resend`) up to
#: :data:`RESEND_BACKOFF_MAX`: the hub asks again after 5 s without progress (hub.RESEND_AFTER).
RESEND_BACKOFF = 4.0
RESEND_BACKOFF_MAX = 120.0
#: The screen's header while the broker's certificate is refused (fits the OLED's line).
CERT_REFUSED = N_("hall: certificate refused")


class BoardLink:
    """The board's MQTT link. ``spec``: the config's ``[mqtt]``; ``board``: what the board shows
    (the daemon's controller); ``actions``: its writes (the same controller); ``state``: the
    state directory;
    ``loop``: the daemon's running loop. :meth:`start` on the loop before the board begins a
    game (it applies the kept pairing), :meth:`stop` (blocking, up to a few seconds: call it
    in an executor) at the end. ``reconnect``: paho's backoff (min, max seconds);
    ``connect_grace``: how long :meth:`stop` waits for a connection not made yet (seconds).
    Raises ValueError for a spec without the board's number."""

    def __init__(self, spec: MqttSpec, board: BoardView, actions: BoardActions,
                 state: StateDir, loop: asyncio.AbstractEventLoop, *,
                 state_interval: float = 0.25, poll: float = 0.5,
                 reconnect: tuple[int, int] = (1, 10), keepalive: int = 30,
                 connect_grace: float = 1.0) -> None:
        self.spec = spec
        self.view = board
        self.actions = actions
        self.loop = loop
        self.state_interval = state_interval
        self.poll = poll
        self.topics = Topics(spec.hall)
        if spec.board is None:
            raise ValueError("the hall link needs the board's number ([mqtt] board or --board)")
        self.board: int = spec.board
        self.store = HallStore(state)
        self._out: queue.SimpleQueue[tuple[Any, ...] | None] = queue.SimpleQueue()
        self._io = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hall-io")
        self._out_thread = threading.Thread(target=self._out_main, name="hall-out", daemon=True)
        self._acting: set[asyncio.Task[None]] = set()  # actions being carried out (loop)
        self._busy: set[str] = set()  # command ids being carried out (I/O thread)
        # the loop's view, read (never written) by the other threads
        self.game_id: str | None = None
        self.lines = 0
        self.finished = False
        self._last_record: dict[str, Any] | None = None
        self._flag_lines: dict[int, int] = {}
        self._last_state = 0.0
        self._state_timer: asyncio.TimerHandle | None = None
        self._poll_timer: asyncio.TimerHandle | None = None
        self._signature: tuple[Any, ...] | None = None
        self.connected = threading.Event()
        #: The broker granted the ``cmd`` subscription (commands reach the board from then on).
        self.subscribed = threading.Event()
        self.published_lines = 0  # journal messages handed to paho (tests, benchmarks)
        self.states = 0
        self.state_bytes = 0  # the largest state published (bytes)
        self._stopping = False
        #: this connection's random id, in every ``status`` (the hub tells connections apart)
        self.session = secrets.token_hex(8)
        #: how often the broker handed the board's session to another client (its credentials
        #: used elsewhere): in every ``status`` (the hub's alarm)
        self.taken_over = 0
        key = spec.key
        # one chain per thread that signs: the out thread (live lines), the I/O thread (resends)
        self._live_chain = None if key is None else Chain(key, self._disk_texts)
        self._resend_chain = None if key is None else Chain(key, self._disk_texts)
        #: per game: (start, when the same resend is served again, the wait) (I/O thread)
        self._resent: dict[str, tuple[int, float, float]] = {}
        #: the broker's certificate was refused at the last attempt (said once, on the screen)
        self._cert_refused = False
        self.client = self._make_client(reconnect, keepalive)
        self._keepalive = keepalive
        self._connect_grace = connect_grace

    # ------------------------------------------------------------------ life

    def _make_client(self, reconnect: tuple[int, int], keepalive: int) -> mqtt.Client:
        spec = self.spec
        c = mqtt.Client(CallbackAPIVersion.VERSION2,
                        client_id=client_id(spec.hall, spec.board), protocol=mqtt.MQTTv5)
        c.max_queued_messages_set(0)  # unlimited: a partition of minutes is kept whole
        c.reconnect_delay_set(min_delay=reconnect[0], max_delay=reconnect[1])
        c.will_set(self.topics.board(self.board, "status"), offline_payload(self.board),
                   qos=1, retain=True)
        if spec.username is not None:
            c.username_pw_set(spec.username, spec.password)
        if spec.tls:
            c.tls_set(ca_certs=None if spec.ca is None else str(spec.ca))
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.on_connect_fail = self._on_connect_fail
        c.on_subscribe = lambda *_a: self.subscribed.set()
        return c

    def start(self) -> None:
        """On the loop: picks up a resumed game, applies the kept pairing, connects (in the
        background: a broker that is not there yet is retried with backoff)."""
        g = self.view.game
        if g is not None:
            self.game_id = g.id
            self.lines = g.line
            self.finished = g.finished
        pairing = self.store.load_pairing()
        if pairing is not None:
            self._apply_pairing(pairing)
        self._out_thread.start()
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = SESSION_EXPIRY
        self.client.connect_async(self.spec.host, self.spec.port, keepalive=self._keepalive,
                                  clean_start=False, properties=props)
        self.client.loop_start()
        self._poll_timer = self.loop.call_later(self.poll, self._poll)
        log.info("hall: board %s of hall %s on %s", self.board, self.spec.hall, self.spec.url)

    async def aclose(self) -> None:
        """On the loop, at the daemon's end: the state not yet sent (its interval running)
        goes out now, then :meth:`stop` on a worker thread."""
        if self._state_timer is not None:
            self._state_now()
        self._stopping = True
        await self.loop.run_in_executor(None, self.stop)

    def stop(self, timeout: float = 2.0) -> None:
        """Blocking (an executor's): the lines still queued go out (up to ``timeout``), the
        board says it is offline (retained status), the connection closes."""
        self._stopping = True
        for handle in (self._state_timer, self._poll_timer):
            if handle is not None:
                try:
                    self.loop.call_soon_threadsafe(handle.cancel)
                except RuntimeError:
                    pass  # the loop is closed: its timers with it
        self._out.put(None)
        self._out_thread.join(timeout)
        self._io.shutdown(wait=True, cancel_futures=True)
        # a board stopped right after it started (a short trace) gives the connection a moment
        # to carry what it published; a broker that is not there costs at most a second
        self.connected.wait(min(timeout, self._connect_grace))
        if self.connected.is_set():
            info = self.client.publish(self.topics.board(self.board, "status"),
                                       offline_payload(self.board), qos=1, retain=True)
            deadline = time.monotonic() + timeout
            while not info.is_published() and time.monotonic() < deadline \
                    and self.connected.is_set():
                time.sleep(0.01)
        self.client.disconnect()
        self.client.loop_stop()

    # ------------------------------------------------------------------ the loop's side

    def on_fed(self, fed: Fed) -> None:
        """Controller listener (the loop's thread): one durable journal line."""
        session = self.view.game
        game_id = None if session is None else session.id
        began = fed.line == 1
        if began:
            self._flag_lines = {}
            self.finished = False
        self.game_id, self.lines, self._last_record = game_id, fed.line, fed.record
        self._out.put(("journal", game_id, fed.line, fed.record))
        ended = False
        for d in fed.decisions:
            if isinstance(d, FlagRaised):
                self._flag_lines.setdefault(d.flag.id, fed.line)
            elif isinstance(d, GameEnded):
                ended = True
        if ended:
            self.finished = True
        if began or ended:
            self._submit(self._publish_status)
        self._state_due()

    def on_reissued(self, game: str) -> None:
        """Controller hook (the loop's thread): lines were added to an earlier game's journal
        (a note, a result corrected after the result, COMP 6.16): its heads go out, and the
        hub asks for them (``resend``)."""
        log.info("hall: game %s has lines after its result: heads published", game)
        self._submit(self._publish_status)

    def _state_due(self) -> None:
        """A state is published now, or at the end of the current interval (one pending)."""
        if self._state_timer is not None or self._stopping:
            return
        wait = self._last_state + self.state_interval - self.loop.time()
        if wait <= 0:
            self._send_state()
        else:
            self._state_timer = self.loop.call_later(wait, self._send_state)

    def _send_state(self) -> None:
        self._state_timer = None
        self._last_state = self.loop.time()
        self._signature = self._sign()
        try:
            obj = state_dict(self.view, self.lines, arbiter_view=True, snap=None,
                             last_record=self._last_record, flag_lines=self._flag_lines)
        except Exception:
            log.exception("hall: state not built; the board goes on")
            return
        self._out.put(("state", obj))

    def _sign(self) -> tuple[Any, ...]:
        """What the state shows outside the journal's lines (set-up, faults, screen, the
        pairing in the configuration)."""
        b = self.view
        return (b.phase, tuple(b.faults), b.message, b.config)

    def _poll(self) -> None:
        """Every ``poll`` seconds: a state when something changed that no journal line says
        (the squares to set up, a sensor fault outside a game, the pairing)."""
        if self._stopping:
            return
        if self._sign() != self._signature:
            self._state_due()
        self._poll_timer = self.loop.call_later(self.poll, self._poll)

    def _apply_pairing(self, pairing: dict[str, str]) -> None:
        """On the loop: the next game's start line gets the pairing; the OLED shows it."""
        values = {k: (pairing[k] or None) for k in PAIRING_KEYS if k in pairing}
        self.actions.set_pairing(values, banner_text(pairing))
        log.info("hall: pairing %s (the next game's start line)", banner_text(pairing) or values)

    def _act(self, cmd_id: str, request: ArbiterRequest) -> None:
        """On the loop: the board's ``act`` (``POST /api/arbiter``'s path), answered once its
        line is journaled, or refused (no game in play, not journaled in time)."""
        task = self.loop.create_task(self._acted(cmd_id, request))
        self._acting.add(task)
        task.add_done_callback(self._acting.discard)

    async def _acted(self, cmd_id: str, request: ArbiterRequest) -> None:
        try:
            fed = await self.actions.act(request)
        except ActionRefused as exc:
            ack = Ack(cmd_id, False, error=str(exc)[:200])
        except Exception:
            # the journal failed: the daemon stops; the command stays pending, looked up in
            # the journal when it is delivered again
            log.exception("hall: command %s failed; not answered", cmd_id)
            return
        else:
            ack = Ack(cmd_id, True, fed.line)
        self._submit(self._finish, ack)

    def _submit(self, fn: Any, *args: Any) -> None:
        try:
            self._io.submit(self._contained, fn, *args)
        except RuntimeError:  # shut down: the board is stopping
            log.debug("hall: %s after stop, dropped", getattr(fn, "__name__", fn))

    # ------------------------------------------------------------------ the out thread

    def _out_main(self) -> None:
        journal = self.topics.board(self.board, "journal")
        state = self.topics.board(self.board, "state")
        while True:
            item = self._out.get()
            if item is None:
                return
            try:
                if item[0] == "journal":
                    _, game_id, line, record = item
                    text = encode_line(record)[:-1].decode("utf-8")
                    mac = prev = None
                    if self._live_chain is not None:
                        mac, prev = self._live_chain.sign_after(game_id, line, text)
                    self.client.publish(journal, journal_payload(game_id, line, text, mac, prev),
                                        qos=1)
                    self.published_lines += 1
                else:
                    payload = json.dumps(item[1], separators=(",", ":"), ensure_ascii=False,
                                         allow_nan=False).encode("utf-8")
                    if len(payload) > MAX_PAYLOAD:
                        log.warning("hall: state of %d bytes over the protocol's %d: not sent",
                                    len(payload), MAX_PAYLOAD)
                        continue
                    self.client.publish(state, payload, qos=1, retain=True)
                    self.states += 1
                    self.state_bytes = max(self.state_bytes, len(payload))
            except Exception:
                log.exception("hall: %s not published; the board goes on", item[0])

    # ------------------------------------------------------------------ paho's thread

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if self._cert_refused:
            self._cert_refused = False
            self._call_soon(self.actions.set_hall_trouble, "")
        if reason.is_failure:
            log.warning("hall: broker %s refused the board: %s", self.spec.url, reason)
            return
        log.info("hall: connected to %s (session %s)", self.spec.url,
                 "resumed" if getattr(flags, "session_present", False) else "new")
        self.session = secrets.token_hex(8)
        self.connected.set()
        client.subscribe(self.topics.board(self.board, "cmd"), qos=1)
        self._submit(self._publish_status)
        try:
            self.loop.call_soon_threadsafe(self._state_now)
        except RuntimeError:
            pass  # the loop is closed: stopping

    def _state_now(self) -> None:
        if self._state_timer is not None:
            self._state_timer.cancel()
            self._state_timer = None
        self._send_state()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        was = self.connected.is_set()
        self.connected.clear()
        self.subscribed.clear()
        if getattr(reason, "value", None) == TAKEN_OVER:
            # another client connected with this board's id, that is with its credentials
            # (the broker takes the client id from the user name): said in the next status
            self.taken_over += 1
            log.warning("hall: the broker handed the board's session to another client using "
                        "its credentials (%d time(s)); connecting again", self.taken_over)
        if was and not self._stopping:
            log.warning("hall: lost the broker %s (%s); the board plays on, lines are kept",
                        self.spec.url, reason)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        # paho calls it while handling the connection's OSError: that error says why
        exc = sys.exc_info()[1]
        if isinstance(exc, ssl.SSLCertVerificationError):
            # not a broker that is down: one that is not the hall's (a man in the middle) or a
            # certificate the board does not trust (its ca, an expired one, the wrong host)
            if not self._cert_refused:
                self._cert_refused = True
                log.warning("hall: the broker %s's CERTIFICATE is refused (%s): not the hall's "
                            "broker, or not the certificate of the board's ca; retrying",
                            self.spec.url, exc.verify_message or exc)
                self._call_soon(self.actions.set_hall_trouble, CERT_REFUSED)
            return
        if self._cert_refused:
            self._cert_refused = False
            self._call_soon(self.actions.set_hall_trouble, "")
        log.info("hall: broker %s not reachable (%s); retrying", self.spec.url,
                 exc if exc is not None else "no answer")

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            cmd = parse_command(bytes(msg.payload))
        except BadMessage as exc:
            log.warning("hall: command dropped: %s", exc)
            return
        except Exception as exc:  # noqa: BLE001 - a message never stops the board
            log.warning("hall: command dropped: %s", str(exc)[:120])
            return
        if isinstance(cmd, Resend):
            self._submit(self._resend, cmd)
        else:
            self._submit(self._command, cmd)

    # ------------------------------------------------------------------ the I/O thread

    def _contained(self, fn: Any, *args: Any) -> None:
        try:
            fn(*args)
        except Exception:
            log.exception("hall: %s failed; the board goes on", getattr(fn, "__name__", fn))

    def _publish_status(self) -> None:
        game_id, lines = self.game_id, self.lines
        heads = self.store.heads(None if self.finished else game_id, lines)
        payload = status_payload(self.board, game_id, lines, heads, session=self.session,
                                 taken_over=self.taken_over, key=self.spec.key)
        self.client.publish(self.topics.board(self.board, "status"), payload, qos=1, retain=True)

    def _disk_texts(self, game_id: str, upto: int) -> list[str]:
        """Lines 1..``upto`` of ``game_id``'s journal on disk (a chain rebuilt: after a restart,
        for a resend). Raises OSError or ValueError."""
        path = self.store.state.game(game_id).trace
        return [text for _, text in journal_lines(path, 1, upto)]

    def _command(self, cmd: Command) -> None:
        first = self.store.answer(cmd.id)
        if first is not None:
            log.info("hall: command %s again: its first answer", cmd.id)
            self._publish_ack(first)
            return
        if cmd.id in self._busy:
            return  # being carried out: its answer will come
        if cmd.pairing is not None:
            try:
                self.store.save_pairing(cmd.id, cmd.pairing)
            except OSError as exc:
                self._finish(Ack(cmd.id, False, error=f"pairing not kept: {exc}"[:200]))
                return
            self._call_soon(self._apply_pairing, cmd.pairing)
            self._finish(Ack(cmd.id, True))
            return
        try:
            request = check_arbiter_request(cmd.action)
        except ValueError as exc:
            self._finish(Ack(cmd.id, False, error=str(exc)[:200]))
            return
        pending = self.store.pending(cmd.id)
        if pending is not None:  # put into the inbox before a restart: journaled then?
            game_id, after = pending
            try:
                path = self.store.state.game(game_id).trace
            except ValueError:
                path = None
            line = None if path is None else find_action(path, after, request)
            if line is not None:
                self._finish(Ack(cmd.id, True, line))
                return
        current = self.game_id
        if current is not None:
            self.store.record_pending(cmd.id, current, self.lines)
        self._busy.add(cmd.id)
        self._call_soon(self._act, cmd.id, request)

    def _call_soon(self, fn: Any, *args: Any) -> None:
        try:
            self.loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:
            log.debug("hall: loop closed, %s dropped", getattr(fn, "__name__", fn))

    def _finish(self, ack: Ack) -> None:
        """The answer to a command: kept (a redelivery gets it again), then published."""
        self._busy.discard(ack.id)
        try:
            self.store.record_answer(ack)
        except OSError as exc:
            log.error("hall: answer to %s not kept (%s); a redelivery would redo it", ack.id,
                      exc)
        self._publish_ack(ack)

    def _publish_ack(self, ack: Ack) -> None:
        self.client.publish(self.topics.board(self.board, "ack"), ack_payload(ack, self.spec.key),
                            qos=1)

    def _resend(self, r: Resend) -> None:
        """Lines ``from``… of game ``r.game`` read back from the journal (of the game in play:
        up to the last line published live, the only ones known durable). The same request
        again is served after a wait that doubles each time, from :data:`RESEND_BACKOFF` up to
        :data:`RESEND_BACKOFF_MAX` seconds (a hub that cannot take the lines asks every few
        seconds: issue 38's board resent 152 lines every 5 s); another start serves at once."""
        now = time.monotonic()
        last = self._resent.get(r.game_id)
        if last is not None and last[0] == r.start and now < last[1]:
            log.debug("hall: resend of %s from %d again within %.0f s: not yet", r.game_id,
                      r.start, last[2])
            return
        wait = RESEND_BACKOFF if last is None or last[0] != r.start else \
            min(last[2] * 2, RESEND_BACKOFF_MAX)
        self._resent[r.game_id] = (r.start, now + wait, wait)
        if len(self._resent) > 64:  # the newest games' only
            del self._resent[next(iter(self._resent))]
        try:
            path = self.store.state.game(r.game_id).trace
            stop = self.lines if r.game_id == self.game_id else None
            lines = journal_lines(path, r.start, stop)
        except (OSError, ValueError) as exc:
            log.warning("hall: resend of %s from %d: %s", r.game_id, r.start, exc)
            return
        topic = self.topics.board(self.board, "journal")
        chain = self._resend_chain
        for number, text in lines:
            mac, prev = (None, None) if chain is None else chain.sign_after(r.game_id, number, text)
            self.client.publish(topic, journal_payload(r.game_id, number, text, mac, prev), qos=1)
        log.info("hall: resent %d lines of %s from %d", len(lines), r.game_id, r.start)
