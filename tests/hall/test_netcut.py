"""The pulled cable of the fault tests (tests/hall/netcut.py): an MQTT client connected through
it loses its connection when it is cut, cannot connect while it is, and connects again once it
is mended."""

from __future__ import annotations

import threading
from pathlib import Path

import paho.mqtt.client as mqtt
from broker import Broker
from netcut import Cable


def test_a_cut_cable_drops_and_refuses_connections_until_mended(tmp_path: Path) -> None:
    with Broker(tmp_path) as broker, Cable(broker.port) as cable:
        up, down = threading.Event(), threading.Event()
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="through-the-cable")
        c.on_connect = lambda *a: up.set()
        c.on_disconnect = lambda *a: down.set()
        c.reconnect_delay_set(0.1, 0.2)
        c.connect("127.0.0.1", cable.port, keepalive=5)
        c.loop_start()
        try:
            assert up.wait(5)
            up.clear()
            cable.cut()
            assert down.wait(5)
            assert not up.wait(1.0)  # refused while cut
            cable.mend()
            assert up.wait(5)
        finally:
            c.disconnect()
            c.loop_stop()
