"""The hub over TLS (``mqtts://`` with ``[mqtt] ca``): a private CA and a server certificate for
127.0.0.1 made with openssl, Mosquitto listening with them, a board and the hub both verifying
the broker against the CA."""

from __future__ import annotations

import shutil
from dataclasses import replace

import paho.mqtt.client as mqtt
import pytest

from pi.board.config import parse_mqtt_url
from pi.hall import protocol as P
from tests.hall.broker import Broker, tls_certs
from pi.hall.signing import line_mac
from tests.hall.hub_rig import HALL, SAMPLE, HubRig, rig_key, trace_lines, wait

G = "2026-11-22T0900-b05-001"


def test_hub_and_board_over_tls(tmp_path):
    if shutil.which("openssl") is None:
        pytest.fail("openssl missing (Debian's openssl package)", pytrace=False)
    tls_certs(tmp_path)
    conf = tmp_path / "tls.conf"
    conf.write_text(f"listener 8883\nallow_anonymous true\ncafile {tmp_path}/ca.crt\n"
                    f"certfile {tmp_path}/server.crt\nkeyfile {tmp_path}/server.key\n")
    lines = trace_lines(SAMPLE, game=G, board="5")
    with Broker(tmp_path, conf=conf) as broker:
        url = f"mqtts://127.0.0.1:{broker.port}"
        rig = HubRig(tmp_path / "hub", url)
        rig.config = replace(rig.config, mqtt=replace(rig.config.mqtt, ca=tmp_path / "ca.crt"))
        with rig:
            spec = parse_mqtt_url(url, ValueError)
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=P.client_id(HALL, "5"),
                            protocol=mqtt.MQTTv311, clean_session=False)
            c.tls_set(ca_certs=str(tmp_path / "ca.crt"))
            c.connect(spec.host, spec.port)
            c.loop_start()
            try:
                topics = P.Topics(HALL)
                mac = ""
                for n, text in enumerate(lines, start=1):
                    mac = line_mac(rig_key("5"), G, n, text, mac)
                    c.publish(topics.board(5, "journal"), P.journal_payload(G, n, text, mac),
                              qos=1)
                wait(lambda: rig.held(5, G) == len(lines), 20, "the replica over TLS")
            finally:
                c.disconnect()  # first: it wakes paho's loop (loop_stop() waits for it)
                c.loop_stop()
