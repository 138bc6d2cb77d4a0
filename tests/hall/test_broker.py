"""The private Mosquitto the hall's tests run on (tests/hall/broker.py): it starts on a free
loopback port, carries a retained message across a clean stop and restart (persistence), and a
kill -9 is a crash the next start survives."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

import broker as broker_module
from broker import CONNACK_OK, Broker, connect_packet


def _retained(port: int, topic: str, timeout: float = 5.0) -> bytes | None:
    got: list[bytes] = []
    done = threading.Event()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.on_connect = lambda cl, u, f, rc, pr: cl.subscribe(topic, 1)
    c.on_message = lambda cl, u, m: (got.append(m.payload), done.set())
    c.connect("127.0.0.1", port)
    c.loop_start()
    done.wait(timeout)
    c.disconnect()  # first: it wakes paho's loop, which loop_stop() waits for (else up to 1 s)
    c.loop_stop()
    return got[0] if got else None


def test_broker_persists_retained_across_restart_and_survives_kill(tmp_path: Path) -> None:
    with Broker(tmp_path) as broker:
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        c.connect("127.0.0.1", broker.port)
        c.loop_start()
        c.publish("damiera/t/boards/1/state", b"{}", qos=1, retain=True).wait_for_publish(5)
        c.disconnect()
        c.loop_stop()
        broker.stop()
        broker.start()
        assert _retained(broker.port, "damiera/t/boards/1/state") == b"{}"
        broker.kill()
        assert not broker.running
        broker.start()
        assert broker.running


def test_a_port_taken_before_mosquitto_binds_it_gives_way_to_another(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between ``free_port()`` and Mosquitto's bind another process may take the port (tests
    run side by side): the first start picks another port, and a listener that is not
    Mosquitto never passes for it."""
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen()
    taken = squatter.getsockname()[1]
    ports = iter([taken])
    real = broker_module.free_port
    monkeypatch.setattr(broker_module, "free_port", lambda: next(ports, None) or real())
    try:
        with Broker(tmp_path) as b:
            assert b.port != taken and b.running
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
            c.connect("127.0.0.1", b.port)
            c.disconnect()
    finally:
        squatter.close()


def test_a_broker_logging_to_its_standard_error_never_blocks_on_it(tmp_path: Path) -> None:
    """``hub init``'s configuration logs to the broker's standard error (``log_dest stderr``).
    Read through a pipe nobody drains while it runs, that log filled the pipe's 64 KiB after
    some hundreds of boards' connections and Mosquitto blocked writing it: every client's
    keepalive ran out (a benchmark of 1,000 boards over a hall made by hub init). Here more
    than 64 KiB of connection lines are logged there, and the broker still takes a client."""
    conf = tmp_path / "stderr.conf"
    conf.write_text("allow_anonymous true\nlog_dest stderr\nconnection_messages true\n")
    with Broker(tmp_path, conf) as b:
        for i in range(60):  # each connection logs its client id twice: ~3 kB a connection
            with socket.create_connection(("127.0.0.1", b.port), timeout=5) as s:
                s.sendall(connect_packet((b"c%02d" % i) + b"x" * 1500, keepalive=30))
                assert s.recv(4) == CONNACK_OK
        assert b.stderr.stat().st_size > 64 * 1024
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        assert c.connect("127.0.0.1", b.port, keepalive=5) == mqtt.MQTT_ERR_SUCCESS
        c.disconnect()
