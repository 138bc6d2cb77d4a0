"""The hub's MQTT link (``pi.hall.mqttlink``: paho driven from the hub's asyncio loop), against a
real Mosquitto.

It hands messages to the hub in slices of at most ``MAX_BATCH`` (issue 19: a round's start
brings thousands at once; the hall page and HTTP are served between slices), all of them, in the
broker's order, over plain TCP and over TLS (where bytes already decrypted do not wake the
loop). The broker sends without waiting for acknowledgements (``max_inflight_messages 0``) and
the first delivery holds the loop up, so that what comes meanwhile piles up in the hub's socket
(without slices it would be read as one batch).

Reaching the broker never holds the loop: a broker host that takes the TCP connection and never
answers the TLS handshake leaves the hub's loop turning; a broker not up yet is one warning,
retried until it is up.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import socket
import ssl
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from pi.board.config import MqttSpec, parse_mqtt_url
from pi.hall import mqttlink
from pi.hall.mqttlink import MAX_BATCH, MqttLink
from pi.hall.protocol import Topics
from tests.hall.broker import Broker, free_port, tls_certs

HALL = "slices"
COUNT = 3 * MAX_BATCH + 17


def _broker_conf(tmp_path: Path, tls: bool) -> Path:
    conf = tmp_path / "unbounded.conf"
    text = "allow_anonymous true\nmax_inflight_messages 0\nmax_queued_messages 0\n"
    if tls:
        if shutil.which("openssl") is None:
            pytest.fail("openssl missing (Debian's openssl package)", pytrace=False)
        tls_certs(tmp_path)
        text += (f"cafile {tmp_path}/ca.crt\ncertfile {tmp_path}/server.crt\n"
                 f"keyfile {tmp_path}/server.key\n")
    conf.write_text(text, encoding="utf-8")
    return conf


def _tls_stand_in(tmp_path: Path) -> tuple[ssl.SSLContext, socket.socket]:
    """A broker's stand-in: its TLS server context (certificates by :func:`tls_certs`, the CA
    in ``tmp_path/ca.crt``) and a socket listening on a free loopback port."""
    if shutil.which("openssl") is None:
        pytest.fail("openssl missing (Debian's openssl package)", pytrace=False)
    tls_certs(tmp_path)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(tmp_path / "server.crt", tmp_path / "server.key")
    return ctx, socket.create_server(("127.0.0.1", 0))


def _client(spec: MqttSpec, tmp_path: Path) -> mqtt.Client:
    pub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="pile")
    if spec.tls:
        pub.tls_set(ca_certs=str(tmp_path / "ca.crt"))
    pub.connect(spec.host, spec.port)
    return pub


@pytest.mark.parametrize("tls", [False, True], ids=["tcp", "tls"])
def test_a_pile_of_messages_comes_in_slices_in_order(tmp_path: Path, tls: bool) -> None:
    with Broker(tmp_path, _broker_conf(tmp_path, tls)) as broker:
        spec = parse_mqtt_url(broker.url.replace("mqtt:", "mqtts:") if tls else broker.url,
                              ValueError)
        if tls:
            spec = replace(spec, ca=tmp_path / "ca.crt")
        batches: list[list[tuple[str, bytes]]] = []

        topic = Topics(HALL).board(1, "state")
        holding = threading.Event()  # the first batch is being delivered (and held up)
        sent = threading.Event()  # the pile is at the broker

        def pile() -> None:
            pub = _client(spec, tmp_path)
            pub.loop_start()
            try:
                pub.publish(topic, b"{}", qos=1).wait_for_publish(10)  # the first one
                holding.wait(20)
                infos = [pub.publish(topic, b'{"n": %d}' % i, qos=1) for i in range(COUNT)]
                for info in infos:
                    info.wait_for_publish(20)
            finally:
                sent.set()
                pub.disconnect()
                pub.loop_stop()

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
                assert await loop.run_in_executor(None, link.subscribed.wait, 10.0)
                publisher.start()
                await asyncio.wait_for(done.wait(), 30)
            finally:
                publisher.join(30)
                link.stop()

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
            link.stop()
        with caplog.at_level(logging.INFO, logger="pi.hall.mqttlink"):
            asyncio.run(run())
    said = [(r.levelno, r.getMessage()) for r in caplog.records if "disconnected" in r.getMessage()]
    assert said == [(logging.INFO, f"disconnected from {broker.url} (the hub stops)")]


async def _loop_gaps(seconds: float, until: Callable[[], bool] = lambda: False) -> list[float]:
    """The loop's turns over ``seconds``, or until ``until()``: the gaps between 20 ms sleeps."""
    gaps, last, end = [], time.monotonic(), time.monotonic() + seconds
    while time.monotonic() < end and not until():
        await asyncio.sleep(0.02)
        now = time.monotonic()
        gaps.append(now - last)
        last = now
    return gaps


def test_a_broker_that_never_answers_the_handshake_does_not_hold_the_loop(
        tmp_path: Path) -> None:
    """TCP taken (the kernel's backlog), the TLS handshake never answered: paho waits its
    connect timeout (5 s, 2 s here: past the 1.5 s watched) on the executor's thread; the
    hub's loop turns meanwhile."""
    silent = socket.create_server(("127.0.0.1", 0))  # listens, never accepts nor answers
    port = silent.getsockname()[1]
    spec = parse_mqtt_url(f"mqtts://127.0.0.1:{port}", ValueError)
    try:
        async def run() -> list[float]:
            link = MqttLink(spec, HALL, asyncio.get_running_loop(), lambda b: None,
                            lambda: None, connect_timeout=2.0)
            link.start()
            try:
                return await _loop_gaps(1.5)
            finally:
                link.stop()
        gaps = asyncio.run(run())
    finally:
        silent.close()
    assert len(gaps) > 30 and max(gaps) < 0.5, f"the loop was held {max(gaps):.3f} s"


def test_a_broker_not_up_yet_is_one_warning_and_the_link_comes_up_with_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retried at RETRY_MIN, doubling (a tenth of a second here), a warning for the first
    failure only; connected and subscribed once the broker is up."""
    monkeypatch.setattr(mqttlink, "RETRY_MIN", 0.1)
    port = free_port()
    spec = parse_mqtt_url(f"mqtt://127.0.0.1:{port}", ValueError)
    got: list[tuple[str, bytes]] = []

    def reaches() -> list[logging.LogRecord]:
        return [r for r in caplog.records if "cannot reach" in r.getMessage()]

    async def run() -> None:
        loop = asyncio.get_running_loop()
        link = MqttLink(spec, HALL, loop, got.extend, lambda: None)
        link.start()
        try:
            # attempts at 0, 0.1, 0.3 s: refused (then 0.7 s)
            gaps = await _loop_gaps(30, lambda: len(reaches()) >= 3)
            assert max(gaps) < 0.5 and len(reaches()) >= 3
            assert not link.subscribed.is_set()
            with Broker(tmp_path, port=port):
                assert await loop.run_in_executor(None, link.subscribed.wait, 10.0)
                pub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="board")
                pub.connect("127.0.0.1", port)
                pub.loop_start()
                pub.publish(Topics(HALL).board(4, "status"), b"{}", qos=1).wait_for_publish(5)
                pub.disconnect()
                pub.loop_stop()
                for _ in range(100):
                    if got:
                        break
                    await asyncio.sleep(0.05)
        finally:
            link.stop()

    with caplog.at_level(logging.DEBUG, logger="pi.hall.mqttlink"):
        asyncio.run(run())
    assert got == [(Topics(HALL).board(4, "status"), b"{}")]
    reach = reaches()
    assert len(reach) >= 3 and [r.levelno for r in reach] == [logging.WARNING] + [
        logging.DEBUG] * (len(reach) - 1)


def _packet(first: int, body: bytes) -> bytes:
    """An MQTT packet: its first byte, the remaining length (MQTT's varint), the body."""
    n, length = len(body), bytearray()
    while True:
        n, byte = divmod(n, 128)
        length.append(byte | (128 if n else 0))
        if not n:
            return bytes([first]) + bytes(length) + body


def _read_packet(conn: socket.socket) -> bytes:
    """One packet read whole; its body returned."""
    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            assert chunk, "the link closed the connection"
            data += chunk
        return data
    exactly(1)
    n, shift = 0, 0
    while True:
        byte = exactly(1)[0]
        n |= (byte & 127) << shift
        shift += 7
        if not byte & 128:
            return exactly(n)


def test_tls_records_holding_many_packets_are_read_to_the_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Mosquitto writes a TLS record per packet; another broker may put many in one, which the
    TLS layer decrypts at once: bytes the socket no longer shows readable. A broker's stand-in
    sends the SUBACK and a slice and three messages in one record (a slice of 100 here: a
    record holds 16 KiB): all of them reach the hub, the last three in a second slice."""
    monkeypatch.setattr(mqttlink, "MAX_BATCH", 100)
    ctx, listener = _tls_stand_in(tmp_path)
    port = listener.getsockname()[1]
    topic = Topics(HALL).board(1, "state")
    count = 103
    release = threading.Event()

    def broker() -> None:
        raw, _ = listener.accept()
        with ctx.wrap_socket(raw, server_side=True) as conn:
            _read_packet(conn)  # CONNECT
            conn.sendall(_packet(0x20, b"\x00\x00"))  # CONNACK, accepted
            body = _read_packet(conn)  # SUBSCRIBE: its id, then (filter, qos) pairs
            filters, i = 0, 2
            while i < len(body):
                i += 2 + int.from_bytes(body[i:i + 2], "big") + 1
                filters += 1
            pubs = b"".join(_packet(0x30, len(topic).to_bytes(2, "big") + topic.encode()
                                    + b"%d" % n) for n in range(count))
            record = _packet(0x90, body[:2] + b"\x01" * filters) + pubs
            assert len(record) < 16_384  # one TLS record
            conn.sendall(record)
            release.wait(20)

    server = threading.Thread(target=broker)
    server.start()
    spec = replace(parse_mqtt_url(f"mqtts://127.0.0.1:{port}", ValueError),
                   ca=tmp_path / "ca.crt")
    batches: list[list[tuple[str, bytes]]] = []

    async def run() -> None:
        link = MqttLink(spec, HALL, asyncio.get_running_loop(), batches.append, lambda: None)
        link.start()
        try:
            for _ in range(100):
                if sum(len(b) for b in batches) >= count:
                    break
                await asyncio.sleep(0.05)
        finally:
            link.stop()

    try:
        asyncio.run(run())
    finally:
        release.set()
        server.join(20)
        listener.close()
    assert [len(b) for b in batches] == [100, 3]
    assert [p for b in batches for _, p in b] == [b"%d" % n for n in range(count)]


def test_a_hub_stopped_while_it_connects_leaves_no_connection_open(tmp_path: Path) -> None:
    """Stopped during the TLS handshake (a broker slow to answer it): once paho's connect gets
    through on the executor's thread, its socket is closed — the broker sees the connection
    end, not a client that never speaks."""
    ctx, listener = _tls_stand_in(tmp_path)
    port = listener.getsockname()[1]
    seen: list[bytes | None] = []  # what the broker read after the handshake (None: nothing)

    def broker() -> None:
        raw, _ = listener.accept()
        time.sleep(0.6)  # the hub stops meanwhile
        with ctx.wrap_socket(raw, server_side=True) as conn:
            conn.settimeout(3)
            try:
                seen.append(conn.recv(1024))
            except (TimeoutError, ssl.SSLError):
                seen.append(None)

    server = threading.Thread(target=broker)
    server.start()
    spec = replace(parse_mqtt_url(f"mqtts://127.0.0.1:{port}", ValueError),
                   ca=tmp_path / "ca.crt")
    links: list[MqttLink] = []  # kept alive: its socket is not closed by the collector

    async def run() -> None:
        link = MqttLink(spec, HALL, asyncio.get_running_loop(), lambda b: None, lambda: None)
        links.append(link)
        link.start()
        await asyncio.sleep(0.2)  # in the handshake
        link.stop()

    try:
        asyncio.run(run())  # returns once the executor's thread is done
    finally:
        server.join(10)
        listener.close()
    assert seen == [b""], f"the broker read {seen}: the connection was left open"


def test_acknowledging_what_it_reads_does_not_watch_the_socket_for_writing(
        tmp_path: Path) -> None:
    """Each QoS 1 message read makes paho ask for the socket to be watched for writing (its
    PUBACK) and, once written, unwatched: two ``epoll_ctl`` and the loop's bookkeeping per read
    (issue 19: ~3 % of the hub's CPU at 1,000 boards). The link writes paho's PUBACKs at the end
    of each read and watches the socket only for what could not be written at once."""
    with Broker(tmp_path, _broker_conf(tmp_path, False)) as broker:
        spec = parse_mqtt_url(broker.url, ValueError)
        topic = Topics(HALL).board(1, "journal")
        got: list[bytes] = []
        watched: list[int] = []

        async def run() -> None:
            loop = asyncio.get_running_loop()
            done = asyncio.Event()

            def deliver(batch: list[tuple[str, bytes]]) -> None:
                got.extend(p for _, p in batch)
                if len(got) >= 300:
                    done.set()

            link = MqttLink(spec, HALL, loop, deliver, lambda: None)
            link.start()
            assert await loop.run_in_executor(None, link.subscribed.wait, 10.0)
            add_writer = loop.add_writer

            def counted(fd: object, callback: object, *args: object) -> None:
                watched.append(1)
                add_writer(fd, callback, *args)  # type: ignore[arg-type]

            loop.add_writer = counted  # type: ignore[method-assign]
            pub = _client(spec, tmp_path)
            pub.loop_start()
            try:
                for i in range(300):
                    pub.publish(topic, b"%d" % i, qos=1)
                    if i % 10 == 9:
                        await asyncio.sleep(0.005)  # in many reads, not one pile
                await asyncio.wait_for(done.wait(), 20)
                reads = list(watched)  # what follows: the DISCONNECT at the stop, watched
            finally:
                pub.disconnect()
                pub.loop_stop()
                link.stop()
            assert reads == []

        asyncio.run(run())
    assert got == [b"%d" % i for i in range(300)]
