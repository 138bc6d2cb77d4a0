"""The hub's MQTT client: paho-mqtt on its own network thread, handing every message to the
asyncio loop in batches (``call_soon_threadsafe`` once per batch, not per message: 200 boards at
tournament pace must not flood the loop with callbacks).

MQTT 3.1.1 with a persistent session (``clean_session = False``, the fixed client id
``damiera-<hall>-hub``: the broker queues what boards publish while the hub is away), QoS 1
subscriptions to every board's ``state``, ``status``, ``journal`` and ``ack`` (a share of the hub,
``pi.hall.shares``: to its own boards', one filter per board and leaf), renewed on every
(re)connection (which also brings the retained ``status`` again: the hub compares heads), and to the broker's
error log (``BROKER_LOG``, Mosquitto's ``log_dest topic``): the broker's own word when a
second client connects with a user's credentials ("Client board-7 already connected, closing
old connection."), which the hub turns into an alarm.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import threading
from typing import Callable, Sequence

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from pi.board.config import MqttSpec
from pi.hall.protocol import Topics, client_id

log = logging.getLogger(__name__)

__all__ = ["MqttLink", "LEAVES", "BROKER_LOG", "SUBSCRIBE_CHUNK", "MAX_BATCH"]

LEAVES = ("state", "status", "journal", "ack")
#: Messages handed to the hub in one call; more wait for the loop's next turn.
MAX_BATCH = 500
#: Mosquitto's error log lines, published when ``log_dest topic`` is set (hub init sets it).
BROKER_LOG = "$SYS/broker/log/E"
#: A share subscribes to its boards' topics this many filters per SUBSCRIBE packet.
SUBSCRIBE_CHUNK = 200


class MqttLink:
    """See the module docstring. ``deliver(batch)`` and ``connected()`` run on ``loop``."""

    def __init__(self, spec: MqttSpec, hall: str, loop: asyncio.AbstractEventLoop,
                 deliver: Callable[[list[tuple[str, bytes]]], None],
                 connected: Callable[[], None], *, boards: Sequence[str] | None = None,
                 client: str | None = None) -> None:
        self.spec = spec
        #: a share's boards (one subscription per board and leaf); None: every board
        self.boards = None if boards is None else list(boards)
        self.topics = Topics(hall)
        self.loop = loop
        self._deliver = deliver
        self._connected = connected
        self._lock = threading.Lock()
        self._batch: list[tuple[str, bytes]] = []
        self.is_connected = False
        self._stopping = False  # stop() called: a disconnection is ours, no reconnection
        #: set once the broker granted the subscriptions (tests and benchmarks wait for it)
        self.subscribed = threading.Event()
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client or client_id(hall),
                        protocol=mqtt.MQTTv311, clean_session=False)
        if spec.username is not None:
            c.username_pw_set(spec.username, spec.password)
        if spec.tls:
            c.tls_set(ca_certs=None if spec.ca is None else str(spec.ca),
                      cert_reqs=ssl.CERT_REQUIRED)
        c.reconnect_delay_set(min_delay=1, max_delay=5)
        c.max_inflight_messages_set(100)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        self._last_mid: int | None = None
        c.on_subscribe = self._on_subscribe
        self.client = c

    def start(self) -> None:
        """Connects in the background (a broker not up yet is retried every few seconds)."""
        self.client.connect_async(self.spec.host, self.spec.port, keepalive=30)
        self.client.loop_start()

    def stop(self) -> None:
        self._stopping = True
        try:
            self.client.disconnect()
        finally:
            self.client.loop_stop()

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        """QoS 1 (paho keeps it while disconnected and sends it on reconnection)."""
        info = self.client.publish(topic, payload, qos=1, retain=retain)
        if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
            log.warning("publish to %s failed (%s)", topic, mqtt.error_string(info.rc))

    # ------------------------------------------------------------------ paho's thread

    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object,
                    reason: object, properties: object) -> None:
        if getattr(reason, "is_failure", False):
            log.warning("broker %s refused the hub: %s", self.spec.url, reason)
            return
        self.is_connected = True
        log.info("connected to %s (session present: %s)", self.spec.url,
                 getattr(flags, "session_present", "?"))
        if self.boards is None:
            client.subscribe([(self.topics.all_boards(leaf), 1) for leaf in LEAVES]
                             + [(BROKER_LOG, 0)])
        else:
            # a share: its own boards' topics only, a SUBSCRIBE of at most SUBSCRIBE_CHUNK
            # filters at a time; ``subscribed`` is set when the broker granted the last one
            topics = [(self.topics.board(b, leaf), 1) for b in self.boards for leaf in LEAVES]
            topics.append((BROKER_LOG, 0))
            for i in range(0, len(topics), SUBSCRIBE_CHUNK):
                _, self._last_mid = client.subscribe(topics[i:i + SUBSCRIBE_CHUNK])
        self._call(self._connected)

    def _on_subscribe(self, client: mqtt.Client, userdata: object, mid: int,
                      reason: object, properties: object) -> None:
        if self.boards is None or mid == self._last_mid:
            self.subscribed.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: object, flags: object,
                       reason: object, properties: object) -> None:
        self.is_connected = False
        self.subscribed.clear()
        if self._stopping:
            log.info("disconnected from %s (the hub stops)", self.spec.url)
        else:
            log.warning("disconnected from %s (%s); reconnecting", self.spec.url, reason)

    def _on_message(self, client: mqtt.Client, userdata: object,
                    message: mqtt.MQTTMessage) -> None:
        with self._lock:
            first = not self._batch
            self._batch.append((message.topic, bytes(message.payload)))
        if first:
            self._call(self._drain)

    def _call(self, fn: Callable[[], None]) -> None:
        try:
            self.loop.call_soon_threadsafe(fn)
        except RuntimeError:  # the loop is closed: the hub is stopping
            pass

    def _drain(self) -> None:
        """At most :data:`MAX_BATCH` messages delivered; the rest on the loop's next turn (a
        round's start brings thousands at once: the hall's page and HTTP are served between
        the slices, the summaries of each slice flushed as they are due)."""
        with self._lock:
            batch, self._batch = self._batch[:MAX_BATCH], self._batch[MAX_BATCH:]
            more = bool(self._batch)
        if more:
            self._call(self._drain)
        if batch:
            self._deliver(batch)
