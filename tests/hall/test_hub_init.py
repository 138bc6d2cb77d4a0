"""``damiera hub init`` (pi/hall/hub_init.py) against the real broker: the files it writes run a
Mosquitto (tests/hall/broker.py) that refuses anonymous clients and wrong passwords, lets a board
publish only its own topics and read only its own ``cmd``, lets the hub read the whole hall and
send commands, persists the hub's session, and keeps one session per user. Its passwords are
Mosquitto's own format (checked against ``mosquitto_passwd``), its TOML files are read by
``pi.board.config``, and its command line refuses bad options and an existing hall in one line."""

from __future__ import annotations

import base64
import os
import pwd
import shutil
import ssl
import stat
import subprocess
import sys
import threading
import time
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from broker import Broker

from pi.cli import main
from pi.hall.hub_run import warn_insecure
from pi.board.config import load_config, parse_mqtt_url
from pi.hall.errors import HallInitError
from pi.board.config import MAX_CONFIG_BYTES, ConfigError
from pi.hall.hub_config import MAX_HUB_CONFIG_BYTES, load_hub_config
from pi.hall.hub_init import (CA_FILE, MAX_BOARDS, Hall, broker_command, broker_open_files,
                              conf_text, hash_password, hub_toml_text, make_hall, queue_limit,
                              write_hall)

HALL = "club-7"
ROOT = f"damiera/{HALL}"


def topic(board: int, leaf: str) -> str:
    return f"{ROOT}/boards/{board}/{leaf}"


class Client:
    """A paho client on the test's broker that records what it receives, in order."""

    def __init__(self, port: int, user: str | None, password: str | None,
                 client_id: str = "", clean: bool = True) -> None:
        self.messages: list[tuple[str, bytes]] = []
        self.connack = threading.Event()
        self.reason: Any = None
        self.got = threading.Condition()
        self.disconnected = threading.Event()
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                             clean_session=clean)
        if user is not None:
            self.c.username_pw_set(user, password)
        self.c.on_connect = self._on_connect
        self.c.on_message = self._on_message
        self.c.on_disconnect = lambda *a: self.disconnected.set()
        self.c.connect("127.0.0.1", port, keepalive=30)
        self.c.loop_start()
        assert self.connack.wait(10), "no CONNACK"

    def _on_connect(self, c: Any, u: Any, flags: Any, reason: Any, props: Any) -> None:
        self.reason = reason
        if reason.is_failure:  # refused: no retry (paho's loop would wait a second for it)
            c.disconnect()
        self.connack.set()

    def _on_message(self, c: Any, u: Any, msg: Any) -> None:
        with self.got:
            self.messages.append((msg.topic, msg.payload))
            self.got.notify_all()

    @property
    def accepted(self) -> bool:
        return not self.reason.is_failure

    def subscribe(self, *topics: str) -> None:
        done = threading.Event()
        self.c.on_subscribe = lambda *a: done.set()
        self.c.subscribe([(t, 1) for t in topics])
        assert done.wait(10), "no SUBACK"

    def publish(self, t: str, payload: bytes) -> None:
        self.c.publish(t, payload, qos=1).wait_for_publish(10)

    def wait_for(self, t: str, payload: bytes, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        with self.got:
            while (t, payload) not in self.messages:
                left = deadline - time.monotonic()
                assert left > 0, f"never received {t} {payload!r}; got {self.messages}"
                self.got.wait(left)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def init_hall(directory: Path, boards: int = 4, tls: bool = False) -> Hall:
    """A hall for the ACL tests: plain MQTT by default (the ACL is the same over TLS; the TLS
    listener has its own tests below)."""
    hall = make_hall(boards, directory, port=1883, hall=HALL, host="127.0.0.1", tls=tls)
    write_hall(hall)
    return hall


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Hall, Broker]]:
    root = tmp_path_factory.mktemp("hall")
    h = init_hall(root / "hall")
    with Broker(root, conf=h.dir / "mosquitto.conf") as broker:
        yield h, broker


@pytest.fixture
def clients() -> Iterator[list[Client]]:
    made: list[Client] = []
    yield made
    for c in made:
        c.close()


def connect(hb: tuple[Hall, Broker], made: list[Client], user: str | None,
            password: str | None = None, **kw: Any) -> Client:
    h, broker = hb
    if user is not None and password is None:
        password = h.passwords[user]
    c = Client(broker.port, user, password, **kw)
    made.append(c)
    return c


# --- passwords: Mosquitto's own format ---------------------------------------------------------

def test_hash_is_what_mosquitto_passwd_writes(tmp_path: Path) -> None:
    tool = shutil.which("mosquitto_passwd") or shutil.which("mosquitto_passwd",
                                                             path="/usr/sbin:/usr/bin")
    assert tool is not None, "mosquitto_passwd missing (make test installs Debian's mosquitto)"
    f = tmp_path / "pw"
    f.touch()
    subprocess.run([tool, "-b", str(f), "board-1", "s3cr:et é"], check=True, capture_output=True)
    user, stored = f.read_text().strip().split(":", 1)
    kind, iterations, salt_b64, _ = stored.split("$")[1:]
    assert (user, kind, iterations) == ("board-1", "7", "101")
    assert hash_password("s3cr:et é", salt=base64.b64decode(salt_b64)) == stored
    assert hash_password("other", salt=base64.b64decode(salt_b64)) != stored


# --- the broker with the hall's files ----------------------------------------------------------

def test_anonymous_and_wrong_passwords_are_refused(hall: tuple[Hall, Broker],
                                                   clients: list[Client]) -> None:
    assert not connect(hall, clients, None).accepted
    assert not connect(hall, clients, "board-3", "wrong").accepted
    assert not connect(hall, clients, "board-3", hall[0].passwords["board-4"]).accepted
    assert not connect(hall, clients, "board-99", "x").accepted
    assert connect(hall, clients, "board-3").accepted
    assert connect(hall, clients, "hub").accepted


def test_a_board_publishes_its_own_topics_and_reads_its_own_cmd(
        hall: tuple[Hall, Broker], clients: list[Client]) -> None:
    hub = connect(hall, clients, "hub")
    hub.subscribe(f"{ROOT}/#")
    board = connect(hall, clients, "board-3")
    board.subscribe(topic(3, "cmd"))
    for leaf in ("state", "status", "journal", "ack"):
        board.publish(topic(3, leaf), f'{{"leaf": "{leaf}"}}'.encode())
        hub.wait_for(topic(3, leaf), f'{{"leaf": "{leaf}"}}'.encode())
    hub.publish(topic(3, "cmd"), b'{"id": "c1"}')
    board.wait_for(topic(3, "cmd"), b'{"id": "c1"}')


def test_a_board_cannot_publish_for_another_nor_read_its_cmd(
        hall: tuple[Hall, Broker], clients: list[Client]) -> None:
    hub = connect(hall, clients, "hub")
    hub.subscribe(f"{ROOT}/#", "#")
    board = connect(hall, clients, "board-3")
    board.subscribe(topic(3, "cmd"), topic(4, "cmd"), f"{ROOT}/#", "#")
    forbidden = [topic(4, leaf) for leaf in ("state", "status", "journal", "ack", "cmd")]
    forbidden += [topic(3, "cmd"), topic(3, "other"), f"{ROOT}/boards/3", f"{ROOT}/x",
                  "damiera/other-hall/boards/3/journal", "elsewhere"]
    for t in forbidden:
        board.publish(t, b"forged")
    board.publish(topic(3, "journal"), b"after")  # same connection, after the forgeries
    hub.wait_for(topic(3, "journal"), b"after")
    assert [m for m in hub.messages if m[1] == b"forged"] == []
    hub.publish(topic(4, "cmd"), b"for 4")
    hub.publish(topic(3, "cmd"), b"for 3")
    board.wait_for(topic(3, "cmd"), b"for 3")
    assert (topic(4, "cmd"), b"for 4") not in board.messages
    assert {t for t, _ in board.messages} == {topic(3, "cmd")}


def test_the_hub_reads_everything_and_writes_only_commands(
        hall: tuple[Hall, Broker], clients: list[Client]) -> None:
    hub = connect(hall, clients, "hub")
    hub.subscribe(f"{ROOT}/#")
    boards = {n: connect(hall, clients, f"board-{n}") for n in (1, 2, 4)}
    for n, board in boards.items():
        board.subscribe(topic(n, "cmd"))
        board.publish(topic(n, "journal"), f"line of {n}".encode())
        hub.wait_for(topic(n, "journal"), f"line of {n}".encode())
    for t in (topic(1, "journal"), topic(2, "state"), f"{ROOT}/x"):
        hub.publish(t, b"forged by the hub")
    for n, board in boards.items():
        hub.publish(topic(n, "cmd"), f"cmd {n}".encode())
        board.wait_for(topic(n, "cmd"), f"cmd {n}".encode())
        hub.wait_for(topic(n, "cmd"), f"cmd {n}".encode())  # its own, through the '#'
    assert [m for m in hub.messages if m[1] == b"forged by the hub"] == []


def test_no_board_can_take_over_the_hubs_session(hall: tuple[Hall, Broker],
                                                 clients: list[Client]) -> None:
    hub = connect(hall, clients, "hub", client_id=f"damiera-{HALL}-hub")
    hub.subscribe(f"{ROOT}/#")
    thief = connect(hall, clients, "board-3", client_id=f"damiera-{HALL}-hub")
    assert thief.accepted
    thief.publish(topic(3, "journal"), b"still there?")
    hub.wait_for(topic(3, "journal"), b"still there?")
    assert not hub.disconnected.is_set() and hub.c.is_connected()


def test_the_hubs_session_is_persisted_in_the_data_folder(tmp_path: Path) -> None:
    h = init_hall(tmp_path / "hall", boards=2)
    made: list[Client] = []
    with Broker(tmp_path, conf=h.dir / "mosquitto.conf") as broker:
        hb = (h, broker)
        try:
            hub = connect(hb, made, "hub", clean=False, client_id=f"damiera-{HALL}-hub")
            hub.subscribe(f"{ROOT}/#")
            hub.close()
            board = connect(hb, made, "board-2")
            for i in range(3):
                board.publish(topic(2, "journal"), f"line {i}".encode())
            board.close()
            broker.stop()  # a clean stop writes the persistence file
            assert (h.dir / "data" / "mosquitto.db").is_file()
            broker.start()
            hub = connect(hb, made, "hub", clean=False, client_id=f"damiera-{HALL}-hub")
            for i in range(3):
                hub.wait_for(topic(2, "journal"), f"line {i}".encode())
            assert [p for _, p in hub.messages] == [b"line 0", b"line 1", b"line 2"]
        finally:
            for c in made:
                c.close()


# --- the files ---------------------------------------------------------------------------------

def test_files_secrets_modes_and_configurations(tmp_path: Path) -> None:
    h = make_hall(3, tmp_path / "hall", hall=HALL, host="127.0.0.1")  # TLS: the default
    write_hall(h)
    d = h.dir
    for name in ("passwd", "hub.toml", "board-1.toml", "board-2.toml", "board-3.toml",
                 "hall-ca.key", "broker.key"):
        assert stat.S_IMODE(os.stat(d / name).st_mode) == 0o600, name
    for name in (CA_FILE, "broker.crt"):
        assert stat.S_IMODE(os.stat(d / name).st_mode) == 0o644, name
    assert sorted(line.split(":")[0] for line in (d / "passwd").read_text().splitlines()) == \
        ["board-1", "board-2", "board-3", "hub"]
    assert len(set(h.passwords.values())) == 4 and len(set(h.keys.values())) == 3
    for n in (1, 3):
        cfg = load_config(d / f"board-{n}.toml")
        assert cfg.board == n and cfg.mqtt is not None
        assert (cfg.mqtt.hall, cfg.mqtt.board, cfg.mqtt.host, cfg.mqtt.port, cfg.mqtt.tls) == \
            (HALL, n, "127.0.0.1", 8883, True)
        assert (cfg.mqtt.username, cfg.mqtt.password) == (f"board-{n}", h.passwords[f"board-{n}"])
        assert cfg.mqtt.ca == d / CA_FILE and cfg.mqtt.key == bytes.fromhex(h.keys[n])
        assert f"damiera run --config {d / f'board-{n}.toml'}" in (d / f"board-{n}.toml").read_text()
    hub_text = (d / "hub.toml").read_text()
    hub = tomllib.loads(hub_text)
    assert set(hub) == {"hall", "mqtt", "keys"} and hub["hall"] == HALL
    assert set(hub["mqtt"]) == {"url", "ca"} and hub["keys"] == {str(n): k for n, k in h.keys.items()}
    spec = parse_mqtt_url(hub["mqtt"]["url"], ValueError)
    assert (spec.username, spec.password, spec.port, spec.tls) == \
        ("hub", h.passwords["hub"], 8883, True)
    cfg_hub = load_hub_config(d / "hub.toml")
    assert cfg_hub.mqtt is not None and cfg_hub.mqtt.ca == d / CA_FILE
    assert dict(cfg_hub.keys) == {n: bytes.fromhex(k) for n, k in h.keys.items()}
    assert cfg_hub.accept_unsigned == frozenset() and cfg_hub.signing(4) == "refused"
    for key in ("# event = ", "# broadcast_delay = 0", '# http = "0.0.0.0:8090"', "# state_dir = ",
                "# accept_unsigned = "):
        assert key in hub_text
    conf = (d / "mosquitto.conf").read_text()
    for line in ("listener 8883", f"cafile {d / CA_FILE}", f"certfile {d / 'broker.crt'}",
                 f"keyfile {d / 'broker.key'}", "tls_version tlsv1.2", "allow_anonymous false",
                 f"password_file {d / 'passwd'}", f"acl_file {d / 'acl'}", "log_dest topic",
                 "persistence true", f"persistence_location {d}/data/",
                 f"max_queued_messages {queue_limit(3)}", "persistent_client_expiration 1d"):
        assert f"\n{line}" in conf, line
    # the owner of the 0600 files: the broker started with sudo becomes them (issue 16)
    assert f"\nuser {pwd.getpwuid(os.getuid()).pw_name}\n" in conf and (d / "data").is_dir()
    assert "topic read $SYS/broker/log/E" in (d / "acl").read_text()
    assert queue_limit(200) == 120_000 and queue_limit(1000) == 600_000


def test_plain_mqtt_only_when_asked_for_by_name(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    h = make_hall(1, tmp_path / "plain", hall=HALL, host="127.0.0.1", tls=False)
    write_hall(h)
    assert h.port == 1883 and h.url("hub").startswith("mqtt://")
    assert not (h.dir / CA_FILE).exists()
    conf = (h.dir / "mosquitto.conf").read_text()
    assert "\nlisten" + "er 1883\n" in conf and "PLAIN MQTT" in conf and "cafile" not in conf
    cfg = load_hub_config(h.dir / "hub.toml")
    assert cfg.mqtt is not None and not cfg.mqtt.tls and cfg.mqtt.ca is None
    with caplog.at_level("WARNING", logger="pi.hall.hub_run"):
        warn_insecure(cfg)
    assert "PLAIN MQTT" in caplog.text and "in clear" in caplog.text
    caplog.clear()
    tls = load_hub_config(_tls_hall(tmp_path / "tls").dir / "hub.toml")
    with caplog.at_level("WARNING", logger="pi.hall.hub_run"):
        warn_insecure(tls)
    assert caplog.text == ""


def _tls_hall(directory: Path) -> Hall:
    h = make_hall(1, directory, hall=HALL, host="127.0.0.1")
    write_hall(h)
    return h


def test_percent_encoding_of_a_password_and_ipv6_host(tmp_path: Path) -> None:
    h = make_hall(1, tmp_path, hall="h", host="[::1]", port=1884)
    h.passwords["hub"] = "p@ss:w/rd%"
    spec = parse_mqtt_url(h.url("hub"), ValueError)
    assert (spec.host, spec.port, spec.password) == ("::1", 1884, "p@ss:w/rd%")


@pytest.mark.parametrize("kw, words", [
    ({"boards": 0}, "--boards"), ({"boards": 10000}, "--boards"), ({"port": 0}, "--port"),
    ({"port": 65536}, "--port"), ({"hall": "a/b"}, "--hall"), ({"hall": ""}, "--hall"),
    ({"hall": "x" * 65}, "--hall"), ({"hall": "#"}, "--hall"), ({"host": "bad host"}, "--host"),
    ({"host": "a@b"}, "--host"), ({"host": "-x"}, "--host"),
    ({"directory": "a\nlistener 1"}, "--dir"), ({"directory": ""}, "--dir"),
])
def test_bad_options_are_refused(tmp_path: Path, kw: dict[str, Any], words: str) -> None:
    args: dict[str, Any] = {"boards": 2, "directory": tmp_path / "d", "hall": "h",
                            "host": "127.0.0.1"} | kw
    with pytest.raises(HallInitError, match=words):
        make_hall(**args)


# --- the command line --------------------------------------------------------------------------

def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["hub", "init", *argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_writes_a_hall_and_refuses_to_overwrite_it(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    d = tmp_path / "hall"
    code, out, err = cli(capsys, "--boards", "4", "--dir", str(d), "--hall", "h", "--port",
                         "1999", "--host", "hall.local")
    assert code == 0 and err == "" and f"mosquitto -c {d / 'mosquitto.conf'}" in out
    passwd = (d / "passwd").read_bytes()
    assert all(pw not in out for pw in _passwords(d))
    spec = load_config(d / "board-4.toml").mqtt
    assert spec is not None and (spec.host, spec.port, spec.hall) == ("hall.local", 1999, "h")

    code, out, err = cli(capsys, "--boards", "4", "--dir", str(d))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "already" in err and "--force" in err and err.startswith("damiera: ")
    assert (d / "passwd").read_bytes() == passwd

    code, out, err = cli(capsys, "--boards", "2", "--dir", str(d), "--hall", "h", "--force")
    assert code == 0 and (d / "passwd").read_bytes() != passwd
    assert sorted(p.name for p in d.glob("board-*.toml")) == ["board-1.toml", "board-2.toml"]
    assert "board-3" not in (d / "acl").read_text()


@pytest.mark.slow  # 10-25 s of one core: make test-slow, so that make test stays within 4 min
def test_the_largest_hall_init_writes_is_one_its_hub_reads(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    """``hub.toml`` holds every board's key (~76 bytes a board): at 1,000 boards it passed the
    64 KiB a board's ``damiera.toml`` may have, and ``damiera hub --config`` refused the file
    ``hub init`` had just written (issue 19's hall of 1,000 boards). The hub reads what hub init
    writes for that hall, and for its largest, as many boards as it takes."""
    d = tmp_path / "hall"
    code, out, err = cli(capsys, "--boards", "1000", "--dir", str(d), "--host", "127.0.0.1")
    assert code == 0, err
    # and its broker more open files than the usual 1,024 (test_hub_init_broker.py runs it)
    assert f"broker: ulimit -n 2048 && mosquitto -c {d / 'mosquitto.conf'}\n" in out
    assert "LimitNOFILE=2048" in out
    assert (d / "hub.toml").stat().st_size > MAX_CONFIG_BYTES
    config = load_hub_config(d / "hub.toml")
    assert len(config.keys) == 1000
    board = load_config(d / "board-1000.toml").mqtt
    assert board is not None and config.keys[1000] == board.key
    largest = tmp_path / "largest.toml"
    largest.write_text(hub_toml_text(make_hall(MAX_BOARDS, tmp_path / "largest",
                                               host="127.0.0.1")))
    config = load_hub_config(largest)
    assert len(config.keys) == MAX_BOARDS


@pytest.mark.parametrize(("boards", "files"), [
    (1, None), (894, None), (895, 2048), (1000, 2048), (1918, 2048), (1919, 3072),
    (MAX_BOARDS, 10240)])
def test_the_broker_is_given_enough_open_files_for_its_clients(
        tmp_path: Path, boards: int, files: int | None) -> None:
    """A file per client (every board, the hub) and spares, past the usual 1,024: in
    thousands."""
    hall = make_hall(boards, tmp_path, host="127.0.0.1")
    assert broker_open_files(hall) == files
    run = f"mosquitto -c {tmp_path / 'mosquitto.conf'}"
    assert broker_command(hall) == (run if files is None else f"ulimit -n {files} && {run}")
    assert ("LimitNOFILE" in conf_text(hall)) == (files is not None)


def test_a_hub_toml_past_its_limit_is_refused_in_one_line(tmp_path: Path) -> None:
    big = tmp_path / "hub.toml"
    big.write_text('hall = "h"\n# ' + "x" * MAX_HUB_CONFIG_BYTES)
    with pytest.raises(ConfigError, match=f"larger than {MAX_HUB_CONFIG_BYTES} bytes"):
        load_hub_config(big)


def _passwords(d: Path) -> list[str]:
    found = []
    for f in d.glob("*.toml"):
        url = tomllib.loads(f.read_text())["mqtt"]["url"]
        spec = parse_mqtt_url(url, ValueError)
        assert spec.password
        found.append(spec.password)
    return found


@pytest.mark.parametrize("argv", [
    ["--boards", "0"], ["--boards", "10000"], ["--boards", "x"], ["--boards", "-3"],
    ["--port", "0"], ["--port", "70000"], ["--port", "http"], ["--hall", "a b"],
    ["--hall", "a/+"], ["--host", "no such host"], [],
])
def test_cli_bad_options_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        argv: list[str]) -> None:
    base = {"--boards": "3", "--dir": str(tmp_path / "d"), "--host": "127.0.0.1"}
    if argv:
        base[argv[0]] = argv[1]
    flat = [x for k, v in base.items() for x in (k, v)]
    code, out, err = cli(capsys, *flat) if argv else cli(capsys, "--dir", str(tmp_path / "d"))
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "d").exists()


def test_cli_dir_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "f"
    f.write_text("x")
    code, out, err = cli(capsys, "--boards", "1", "--dir", str(f / "sub"), "--host", "h")
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "cannot write" in err


def test_cli_as_a_process(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "init", "--boards", "2", "--dir",
                        str(tmp_path / "hall")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    spec = load_config(tmp_path / "hall" / "board-2.toml").mqtt
    assert spec is not None and spec.host  # this machine's host name
    r = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "init", "--boards", "2", "--dir",
                        str(tmp_path / "hall")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1


# --- TLS, as hub init writes it -----------------------------------------------------------------

def test_the_default_hall_speaks_tls_with_its_own_ca_only(tmp_path: Path) -> None:
    """The broker of a default hall: a board with its board-1.toml (mqtts, the hall's CA) is
    carried; a plain client and a client trusting only the system's CAs are not."""
    h = _tls_hall(tmp_path / "hall")
    spec = load_config(h.dir / "board-1.toml").mqtt
    assert spec is not None and spec.tls and spec.ca == h.dir / CA_FILE
    with Broker(tmp_path, conf=h.dir / "mosquitto.conf") as broker:
        got = threading.Event()
        sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        sub.tls_set(ca_certs=str(h.dir / CA_FILE))
        sub.username_pw_set("hub", h.passwords["hub"])
        ready = threading.Event()
        sub.on_connect = lambda cl, *a: cl.subscribe(f"{ROOT}/#", 1)
        sub.on_subscribe = lambda *a: ready.set()
        sub.on_message = lambda cl, u, m: got.set() if m.payload == b"over tls" else None
        sub.connect("127.0.0.1", broker.port)
        sub.loop_start()
        try:
            assert ready.wait(10)
            pub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
            pub.tls_set(ca_certs=str(spec.ca))
            pub.username_pw_set(spec.username, spec.password)
            pub.connect(spec.host, broker.port)
            pub.loop_start()
            pub.publish(topic(1, "journal"), b"over tls", qos=1).wait_for_publish(10)
            assert got.wait(10)
            pub.disconnect()
            pub.loop_stop()
            plain = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
            plain.username_pw_set(spec.username, spec.password)
            refused = False
            try:  # no TLS: the broker drops the connection
                plain.connect(spec.host, broker.port)
                refused = plain.loop(timeout=2.0) != mqtt.MQTT_ERR_SUCCESS or \
                    plain.loop(timeout=2.0) != mqtt.MQTT_ERR_SUCCESS
            except OSError:
                refused = True
            assert refused
            stranger = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
            stranger.tls_set()  # the system's CAs: the hall's certificate is not theirs
            with pytest.raises(ssl.SSLError):
                stranger.connect(spec.host, broker.port)
        finally:
            sub.disconnect()
            sub.loop_stop()
