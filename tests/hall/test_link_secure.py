"""The board's link to a broker that wants a password (``mqtt://user:password@host``) and to one
that speaks TLS (``mqtts://`` with the hall's own CA, ``[mqtt] ca``), as a hall made by ``damiera
hub init`` would be: a wrong password never stops the board; the right one, and TLS, carry every
line."""

from __future__ import annotations

import logging
import subprocess
import time
from pathlib import Path

import pytest
from broker import Broker, free_port
from hall_rig import HALL, NUMBER, HallRig, Hub

from pi.board.config import MqttSpec, parse_mqtt_url
from pi.hall.link import CERT_REFUSED


def _spec(url: str, ca: Path | None = None) -> MqttSpec:
    from dataclasses import replace
    spec = parse_mqtt_url(url, ValueError)
    return replace(spec, hall=HALL, board=NUMBER, ca=ca)


def _logged(broker: Broker, words: str, count: int) -> None:
    """Waits until the broker's log has said ``words`` ``count`` times (once per attempt)."""
    deadline = time.monotonic() + 30
    while broker.log.read_text(errors="replace").count(words) < count:
        assert time.monotonic() < deadline, f"the broker never said {words!r} {count} times"
        time.sleep(0.02)


def _same(hub: Hub, rig: HallRig) -> None:
    game = rig.link.game_id
    hub.wait(lambda h: [h.journal(game).get(i) for i in range(1, len(rig.lines_on_disk()) + 1)]
             == rig.lines_on_disk(), what="every line")


def test_password_the_wrong_one_never_stops_the_board(tmp_path: Path) -> None:
    passwd = tmp_path / "passwd"
    for user, pw in (("board-7", "s3cret pw"), ("hub", "hubpw")):
        subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if user == "board-7" else []),
                        str(passwd), user, pw], check=True, capture_output=True)
    conf = tmp_path / "auth.conf"
    conf.write_text(f"listener 1883\nallow_anonymous false\npassword_file {passwd}\n"
                    f"persistence false\n")
    with Broker(tmp_path, conf=conf) as broker, Hub(broker.port, auth=("hub", "hubpw")) as hub:
        bad = _spec(f"mqtt://board-7:wrong@127.0.0.1:{broker.port}")
        with HallRig(tmp_path / "bad", broker.port, spec=bad, connect_grace=0) as rig:
            rig.move("d3", "e4", "white")  # refused by the broker: the board plays on
            _logged(broker, "disconnected, not authorised", 1)
            assert not rig.link.connected.is_set()
            assert len(rig.lines_on_disk()) >= 4
        good = _spec(f"mqtt://board-7:s3cret%20pw@127.0.0.1:{broker.port}")
        with HallRig(tmp_path / "good", broker.port, spec=good) as rig:
            rig.move("d3", "e4", "white")
            _same(hub, rig)


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def test_tls_with_the_halls_own_ca(tmp_path: Path) -> None:
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
             "-subj", "/CN=damiera test hall CA", cwd=tmp_path)
    _openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1",
             cwd=tmp_path)
    (tmp_path / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
             "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "ext.cnf",
             cwd=tmp_path)
    plain = free_port()  # the hub's side, in the clear on loopback
    conf = tmp_path / "tls.conf"
    conf.write_text(f"listener 8883\ncafile {tmp_path / 'ca.pem'}\n"
                    f"certfile {tmp_path / 'server.pem'}\nkeyfile {tmp_path / 'server.key'}\n"
                    f"listener {plain} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    with Broker(tmp_path, conf=conf) as broker, Hub(plain) as hub:
        spec = _spec(f"mqtts://127.0.0.1:{broker.port}", ca=tmp_path / "ca.pem")
        with HallRig(tmp_path / "board", broker.port, spec=spec) as rig:
            rig.move("d3", "e4", "white")
            _same(hub, rig)


def test_a_broker_whose_certificate_is_refused_is_said_so(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 38: a broker in the middle with a certificate of another CA was logged at the board
    as "not reachable" at INFO, like a broker that is down. Now a WARNING that names the
    certificate, once, and the screen's header says it (shown while no game is in play)."""
    ec = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
             "-subj", "/CN=damiera test hall CA", cwd=tmp_path)
    # the stranger's broker: a certificate of its own for the right address
    (tmp_path / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    _openssl("req", "-x509", *ec, "-keyout", "mitm.key", "-out", "mitm.pem", "-days", "2",
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", cwd=tmp_path)
    conf = tmp_path / "mitm.conf"
    conf.write_text(f"listener 8883\ncertfile {tmp_path / 'mitm.pem'}\n"
                    f"keyfile {tmp_path / 'mitm.key'}\nallow_anonymous true\n"
                    "persistence false\n")
    with caplog.at_level(logging.INFO), Broker(tmp_path, conf=conf) as broker:
        spec = _spec(f"mqtts://127.0.0.1:{broker.port}", ca=tmp_path / "ca.pem")
        with HallRig(tmp_path / "board", broker.port, spec=spec, connect_grace=0) as rig:
            end = time.monotonic() + 30
            while rig.controller.hall_trouble != CERT_REFUSED and time.monotonic() < end:
                time.sleep(0.05)
            assert rig.controller.hall_trouble == CERT_REFUSED
            _logged(broker, "alert unknown ca", 2)  # retried meanwhile: said once
            assert not rig.link.connected.is_set()
    said = [r for r in caplog.records if r.name == "pi.hall.link" and "broker" in r.getMessage()
            and "CERTIFICATE" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.WARNING, \
        [r.getMessage() for r in caplog.records if r.name == "pi.hall.link"]
    assert not any("not reachable" in r.getMessage() for r in caplog.records
                   if r.name == "pi.hall.link")
