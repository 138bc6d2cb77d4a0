"""The hub's MQTT link hands messages to the loop in slices of at most ``MAX_BATCH`` (issue 19: a
round's start brings thousands at once; the hall page and HTTP are served between slices), all
of them, in the broker's order. Against a real Mosquitto; the first delivery is held up so that
what comes meanwhile piles up (without slices it would come as one batch)."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from pi.board.config import parse_mqtt_url
from pi.hall.mqttlink import MAX_BATCH, MqttLink
from pi.hall.protocol import Topics
from tests.hall.broker import Broker

HALL = "slices"
COUNT = 3 * MAX_BATCH + 17


def test_a_pile_of_messages_comes_in_slices_in_order(tmp_path: Path) -> None:
    with Broker(tmp_path) as broker:
        spec = parse_mqtt_url(broker.url, ValueError)
        batches: list[list[tuple[str, bytes]]] = []

        topic = Topics(HALL).board("1", "state")
        holding = threading.Event()  # the first batch is being delivered (and held up)
        sent = threading.Event()  # the pile is at the broker

        def pile() -> None:
            pub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="pile")
            pub.connect(spec.host, spec.port)
            pub.loop_start()
            try:
                pub.publish(topic, b"{}", qos=1).wait_for_publish(10)  # the first one
                holding.wait(20)
                infos = [pub.publish(topic, b'{"n": %d}' % i, qos=1) for i in range(COUNT)]
                for info in infos:
                    info.wait_for_publish(20)
            finally:
                sent.set()
                pub.loop_stop()
                pub.disconnect()

        async def run() -> None:
            loop = asyncio.get_running_loop()
            done = asyncio.Event()

            def deliver(batch: list[tuple[str, bytes]]) -> None:
                if not batches:  # the loop held up until the pile has reached the link
                    holding.set()
                    sent.wait(30)
                    time.sleep(0.5)
                batches.append(batch)
                if sum(len(b) for b in batches) >= COUNT + 1:
                    done.set()

            link = MqttLink(spec, HALL, loop, deliver, lambda: None)
            link.start()
            publisher = threading.Thread(target=pile)
            try:
                await loop.run_in_executor(None, link.subscribed.wait, 10.0)
                publisher.start()
                await asyncio.wait_for(done.wait(), 30)
            finally:
                publisher.join(30)
                await loop.run_in_executor(None, link.stop)

        asyncio.run(run())
    assert all(len(b) <= MAX_BATCH for b in batches)
    assert max(len(b) for b in batches[1:]) == MAX_BATCH  # it did pile up: sliced
    payloads = [p for b in batches for _, p in b][1:]
    assert payloads == [b'{"n": %d}' % i for i in range(COUNT)]


def test_a_stopping_hub_does_not_say_it_reconnects(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    """The warning "disconnected …; reconnecting" is for a link lost; the hub's own stop says
    so at info level (an organiser reading the log after a restart looks for the warnings)."""
    with Broker(tmp_path) as broker:
        spec = parse_mqtt_url(broker.url, ValueError)

        async def run() -> None:
            loop = asyncio.get_running_loop()
            link = MqttLink(spec, HALL, loop, lambda batch: None, lambda: None)
            link.start()
            assert await loop.run_in_executor(None, link.subscribed.wait, 10.0)
            await loop.run_in_executor(None, link.stop)
        with caplog.at_level(logging.INFO, logger="pi.hall.mqttlink"):
            asyncio.run(run())
    said = [(r.levelno, r.getMessage()) for r in caplog.records if "disconnected" in r.getMessage()]
    assert said == [(logging.INFO, f"disconnected from {broker.url} (the hub stops)")]
