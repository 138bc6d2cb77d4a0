"""The hub's MQTT client: paho-mqtt driven from the hub's own asyncio loop (paho's external-loop
calls, ``loop_read``/``loop_write``/``loop_misc`` on the loop's reader and writer callbacks,
as ``hardware_mocks.hall_fleet`` drives its boards). Every message is read, acknowledged and
handed to the hub on the one thread: no network thread, no hand-over between threads and no
lock per message (issue 19: with paho on a thread of its own, the two threads contended for the
interpreter's lock, and at 1,000 boards the hall page's p99 was 200-275 ms; one thread: ~80 ms,
``docs/developer-hub-load.md``).

A readable socket is read until it would block or :data:`MAX_BATCH` messages are in hand (paho
reads a few packets more in one call while its own messages wait for the broker's PUBACK), the
broker's acknowledgements go out at once, then the hub gets them as one batch (``deliver``);
more wait for the loop's next turn (a round's start brings thousands at once: the hall's page
and HTTP are served between the slices). While the hub works on a batch the broker keeps what
follows (it sends at most ``max_inflight_messages`` unacknowledged, ``hub init`` sets 100).

Only the TCP connection and the TLS handshake, which block, run on the loop's executor (a
broker host that does not answer holds a thread for paho's connect timeout, never the hall's
page); the link waits :data:`RETRY_MIN` to :data:`RETRY_MAX` seconds between attempts and runs
paho's keepalive (``loop_misc``) every second.

MQTT 3.1.1 with a persistent session (``clean_session = False``, the fixed client id
``damiera-<hall>-hub``: the broker queues what boards publish while the hub is away), QoS 1
subscriptions to every board's ``state``, ``status``, ``journal`` and ``ack``, renewed on every
(re)connection (which also brings the retained ``status`` again: the hub compares heads), and to
the broker's error log (``BROKER_LOG``, Mosquitto's ``log_dest topic``): the broker's own word
when a second client connects with a user's credentials ("Client board-7 already connected,
closing old connection."), which the hub turns into an alarm.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
import threading
from typing import Callable

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

from pi.board.config import MqttSpec
from pi.hall.protocol import Topics, client_id

log = logging.getLogger(__name__)

__all__ = ["MqttLink", "LEAVES", "BROKER_LOG", "MAX_BATCH", "RETRY_MIN",
           "RETRY_MAX", "CONNECT_TIMEOUT"]

LEAVES = ("state", "status", "journal", "ack")
#: Messages handed to the hub in one call; more wait for the loop's next turn.
MAX_BATCH = 500
#: Mosquitto's error log lines, published when ``log_dest topic`` is set (hub init sets it).
BROKER_LOG = "$SYS/broker/log/E"
#: Seconds between attempts to reach the broker: after a connection lost or a first failure,
#: doubled with each further failure in a row, up to the last.
RETRY_MIN = 1.0
RETRY_MAX = 5.0
#: paho's keepalive and its retries of unacknowledged messages are run this often (seconds).
MISC_PERIOD = 1.0
#: Seconds an attempt may take to make the TCP connection and the TLS handshake (paho's own).
CONNECT_TIMEOUT = 5.0


class MqttLink:
    """See the module docstring. Made, started, used and stopped on ``loop``'s thread;
    ``deliver(batch)`` and ``connected()`` are called there. ``connect_timeout``: seconds an
    attempt to reach the broker may hold the executor's thread (tests shorten it)."""

    def __init__(self, spec: MqttSpec, hall: str, loop: asyncio.AbstractEventLoop,
                 deliver: Callable[[list[tuple[str, bytes]]], None],
                 connected: Callable[[], None], *,
                 connect_timeout: float = CONNECT_TIMEOUT) -> None:
        self.spec = spec
        self.topics = Topics(hall)
        self.loop = loop
        self._deliver = deliver
        self._connected = connected
        self._batch: list[tuple[str, bytes]] = []
        self._stopping = False  # stop() called: a disconnection is ours, no reconnection
        #: set once the broker granted the subscriptions (tests and benchmarks wait for it,
        #: from other threads too)
        self.subscribed = threading.Event()
        #: the socket the loop watches (with TLS an ``ssl.SSLSocket``)
        self._sock: socket.socket | None = None
        self._writing = False  # the loop watches it for writing too
        #: in :meth:`_readable`: paho's wishes to write (a PUBACK per message) are settled once,
        #: after its ``loop_write``, not by watching and unwatching the socket per message
        self._reading = False
        self._task: asyncio.Task[None] | None = None
        self._failures = 0  # attempts to connect failed (or refused) in a row
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id(hall),
                        protocol=mqtt.MQTTv311, clean_session=False)
        if spec.username is not None:
            c.username_pw_set(spec.username, spec.password)
        if spec.tls:
            c.tls_set(ca_certs=None if spec.ca is None else str(spec.ca),
                      cert_reqs=ssl.CERT_REQUIRED)
        c.max_inflight_messages_set(100)
        c.connect_timeout = connect_timeout
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.on_subscribe = self._on_subscribe
        c.on_socket_close = self._on_socket_close
        c.on_socket_register_write = self._on_register_write
        c.on_socket_unregister_write = self._on_unregister_write
        self.client = c

    def start(self) -> None:
        """Connects in the background (a broker not up yet is retried every few seconds)."""
        self.client.connect_async(self.spec.host, self.spec.port, keepalive=30)
        self._task = self.loop.create_task(self._run())

    def stop(self) -> None:
        """Sends DISCONNECT and closes the connection (paho says it on ``_on_disconnect``)."""
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._sock is None:
            return
        self.client.disconnect()
        if self._sock is not None:
            self.client.loop_write()  # the DISCONNECT written, paho closes the socket
        sock = self._sock
        if sock is not None:  # not written at once (a full send buffer): closed all the same,
            self._unwatch()   # paho finds it closed at its next read and says disconnected
            sock.close()
            self.client.loop_read()

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        """QoS 1 (paho keeps it while disconnected and sends it on reconnection)."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            log.warning("publish to %s failed (%s)", topic, mqtt.error_string(info.rc))

    # ------------------------------------------------------------------ the connection

    async def _run(self) -> None:
        """Connects when not connected — at once the first time, then after a wait that
        doubles with each failure in a row (a connection lost, or two hubs with one client id
        closing each other's, is not retried in a tight loop); paho's keepalive meanwhile."""
        first = True
        while not self._stopping:
            if self._sock is None:
                if not first:
                    await asyncio.sleep(min(RETRY_MIN * 2 ** max(self._failures - 1, 0), RETRY_MAX))
                first = False
                await self._connect()
                continue
            await asyncio.sleep(MISC_PERIOD)
            if self._sock is not None:
                self.client.loop_misc()

    async def _connect(self) -> None:
        """paho's ``reconnect`` (TCP connect, TLS handshake, CONNECT queued) on the executor;
        the socket watched once it is made. The CONNACK comes to ``_on_connect``."""
        made = self.loop.run_in_executor(None, self.client.reconnect)
        try:
            await asyncio.shield(made)
        except asyncio.CancelledError:  # stopped meanwhile: the socket closed once it is made
            made.add_done_callback(self._abandon)
            raise
        except (OSError, ValueError) as exc:  # refused, unreachable, a bad certificate
            self._failures += 1
            level = logging.WARNING if self._failures == 1 else logging.DEBUG
            log.log(level, "cannot reach the broker %s (%s); retrying", self.spec.url, exc)
            return
        sock = self.client.socket()
        if self._stopping or not isinstance(sock, socket.socket):
            return
        self._sock = sock
        self.loop.add_reader(sock, self._readable)
        # paho asked for writing (the CONNECT) on the executor's thread, not watched then
        self._watch_write(self.client.want_write())

    def _abandon(self, made: asyncio.Future[MQTTErrorCode]) -> None:
        sock = self.client.socket()
        if not made.cancelled() and made.exception() is None and isinstance(sock, socket.socket):
            sock.close()

    def _watch_write(self, on: bool) -> None:
        if self._sock is None or on == self._writing:
            return
        self._writing = on
        if on:
            self.loop.add_writer(self._sock, self._writable)
        else:
            self.loop.remove_writer(self._sock)

    def _unwatch(self) -> None:
        if self._sock is not None:
            self._watch_write(False)
            self.loop.remove_reader(self._sock)
            self._sock = None

    # paho's socket callbacks: on the loop's thread, or on the executor's while it connects
    # (for a socket not watched yet: ignored, ``_connect`` looks once it is back)
    def _on_register_write(self, client: mqtt.Client, userdata: object, sock: object) -> None:
        if sock is self._sock and not self._reading:
            self._watch_write(True)

    def _on_unregister_write(self, client: mqtt.Client, userdata: object,
                             sock: object) -> None:
        if sock is self._sock and not self._reading:
            self._watch_write(False)

    def _on_socket_close(self, client: mqtt.Client, userdata: object, sock: object) -> None:
        if sock is self._sock:
            self._unwatch()

    def _writable(self) -> None:
        self.client.loop_write()

    def _readable(self) -> None:
        """Packets read until the socket would block or a batch is full; the broker's
        acknowledgements sent; the batch delivered."""
        client, batch = self.client, self._batch
        self._reading = True
        try:
            while self._sock is not None and len(batch) < MAX_BATCH:
                had = len(batch)
                if client.loop_read() != mqtt.MQTT_ERR_SUCCESS:
                    break
                sock = self._sock
                if len(batch) == had and not (isinstance(sock, ssl.SSLSocket)
                                              and sock.pending()):
                    break  # nothing more to read now (or a packet for paho only: next turn)
            if self._sock is not None and client.want_write():
                client.loop_write()  # the PUBACKs: the broker sends what follows meanwhile
        finally:
            self._reading = False
        if self._sock is not None:
            # watched for writing only if paho could not write it all (a full send buffer)
            self._watch_write(client.want_write())
            if len(batch) >= MAX_BATCH:
                # the rest on the loop's next turn (a TLS socket's decrypted bytes would not
                # wake the loop again)
                self.loop.call_soon(self._readable)
        if batch:
            self._batch = []
            self._deliver(batch)

    # ------------------------------------------------------------------ paho's callbacks

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object,
                    reason: object, properties: object) -> None:
        if getattr(reason, "is_failure", False):
            self._failures += 1
            log.warning("broker %s refused the hub: %s", self.spec.url, reason)
            return
        self._failures = 0
        log.info("connected to %s (session present: %s)", self.spec.url,
                 getattr(flags, "session_present", "?"))
        client.subscribe([(self.topics.all_boards(leaf), 1) for leaf in LEAVES]
                         + [(BROKER_LOG, 0)])
        self._connected()

    def _on_subscribe(self, client: mqtt.Client, userdata: object, mid: int,
                      reason: object, properties: object) -> None:
        self.subscribed.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: object, flags: object,
                       reason: object, properties: object) -> None:
        self.subscribed.clear()
        if self._stopping:
            log.info("disconnected from %s (the hub stops)", self.spec.url)
        else:
            log.warning("disconnected from %s (%s); reconnecting", self.spec.url, reason)

    def _on_message(self, client: mqtt.Client, userdata: object,
                    message: mqtt.MQTTMessage) -> None:
        self._batch.append((message.topic, bytes(message.payload)))
