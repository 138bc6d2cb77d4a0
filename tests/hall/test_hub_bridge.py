"""``damiera hub init --bridge`` (pi/hall/hub_bridge.py): the room's files as written — its broker's
bridge to the hub's (TLS with the hall's CA, its own user, the room's boards' topics only, in
the right directions, QoS 1, persistent sessions, a queue for the room), its boards' files (the
hall's users, passwords and keys, the room's broker), the bridge's user in the hall's password
file and ACL — and its refusals: one line, exit 2, nothing written. The brokers run with these
files in tests/hall/test_hall_bridge.py."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pi.board.config import load_config
from pi.cli import main
from pi.hall.hub_bridge import parse_bridge, parse_room_boards
from pi.hall.hub_init import hash_password, make_hall, write_hall

HALL = "club"
ROOT = f"damiera/{HALL}/boards"


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["hub", "init", *argv])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A hall of 5 boards, as ``hub init`` writes it (made once: its certificates take time)."""
    d = tmp_path_factory.mktemp("made") / "hall"
    write_hall(make_hall(5, d, port=18883, hall=HALL, host="127.0.0.1"))
    return d


@pytest.fixture
def hall(made: Path, tmp_path: Path) -> Path:
    """A copy of the hall, the test's own."""
    return Path(shutil.copytree(made, tmp_path / "hall"))


def room(capsys: pytest.CaptureFixture[str], d: Path, *more: str) -> tuple[int, str, str]:
    return cli(capsys, "--dir", str(d), "--bridge", "hub.local", "--room", "east",
               "--room-boards", "1-2,4", "--host", "127.0.0.1", "--port", "18884", *more)


def verifies(password: str, stored: str) -> bool:
    """``password`` against a ``$7$`` hash of a password file."""
    _, seven, iterations, salt, _ = stored.split("$")
    assert seven == "7"
    return hash_password(password, base64.b64decode(salt), int(iterations)) == stored


def settings(conf: str) -> dict[str, list[str]]:
    """``mosquitto.conf``'s settings: name → values, in order (comments left out)."""
    out: dict[str, list[str]] = {}
    for line in conf.splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition(" ")
            out.setdefault(name, []).append(value)
    return out


def test_a_rooms_broker_bridged_to_the_hubs(hall: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = room(capsys, hall)
    assert code == 0 and err == "", err
    r = hall / "rooms" / "east"
    assert f"mosquitto -c {r / 'mosquitto.conf'}" in out and "bridged to hub.local:18883" in out
    conf = (r / "mosquitto.conf").read_text()
    s = settings(conf)
    # the room's boards' listener, with a certificate of the hall's CA
    assert s["listener"] == ["18884"] and s["cafile"] == [str(r / "hall-ca.crt")]
    assert s["allow_anonymous"] == ["false"] and s["use_username_as_clientid"] == ["true"]
    assert s["password_file"] == [str(r / "passwd")] and s["acl_file"] == [str(r / "acl")]
    assert s["persistence"] == ["true"] and s["persistence_location"] == [f"{r / 'data'}/"]
    # the bridge: to the hub's broker (the hall's port), over TLS trusting the hall's CA only
    assert s["connection"] == ["bridge-east"] and s["address"] == ["hub.local:18883"]
    assert s["bridge_cafile"] == [str(r / "hall-ca.crt")] and s["bridge_insecure"] == ["false"]
    assert (r / "hall-ca.crt").read_bytes() == (hall / "hall-ca.crt").read_bytes()
    assert s["remote_username"] == ["bridge-east"] == s["remote_clientid"]
    # nothing lost while the link is down: persistent sessions at both ends, a queue, QoS 1
    assert s["cleansession"] == ["false"] == s["local_cleansession"]
    assert int(s["max_queued_messages"][0]) >= 200 * 20 * 30
    # the room's boards' topics only, each in its direction
    expected = [f"{ROOT}/{n}/{leaf} out 1" for n in (1, 2, 4)
                for leaf in ("state", "status", "journal", "ack")]
    expected += [f"{ROOT}/{n}/cmd in 1" for n in (1, 2, 4)]
    assert sorted(s["topic"]) == sorted(expected)
    # the bridge's password: in the room's conf (0600), its hash in the hall's password file
    assert (r / "mosquitto.conf").stat().st_mode & 0o777 == 0o600
    hall_users = dict(line.split(":", 1) for line in (hall / "passwd").read_text().splitlines())
    assert verifies(s["remote_password"][0], hall_users["bridge-east"])
    # the hall's ACL: the bridge writes its boards' topics and reads their cmd, nothing else
    acl = (hall / "acl").read_text()
    section = acl[acl.index("user bridge-east"):].splitlines()
    grants = [line for line in section[1:] if line.startswith("topic")]
    assert sorted(grants) == sorted(
        [f"topic write {ROOT}/{n}/{leaf}" for n in (1, 2, 4)
         for leaf in ("state", "status", "journal", "ack")]
        + [f"topic read {ROOT}/{n}/cmd" for n in (1, 2, 4)])
    assert not any(line.startswith(("user", "pattern")) for line in section[1:])
    # the room's boards: the hall's users, passwords and keys, the room's broker
    room_users = dict(line.split(":", 1) for line in (r / "passwd").read_text().splitlines())
    assert sorted(room_users) == ["board-1", "board-2", "board-4"]
    assert sorted(p.name for p in r.glob("board-*.toml")) == [
        "board-1.toml", "board-2.toml", "board-4.toml"]
    for n in (1, 2, 4):
        mine, theirs = load_config(r / f"board-{n}.toml"), load_config(hall / f"board-{n}.toml")
        assert mine.board == n and mine.mqtt is not None and theirs.mqtt is not None
        assert (mine.mqtt.host, mine.mqtt.port, mine.mqtt.tls) == ("127.0.0.1", 18884, True)
        assert (mine.mqtt.username, mine.mqtt.password, mine.mqtt.key, mine.mqtt.hall) == (
            theirs.mqtt.username, theirs.mqtt.password, theirs.mqtt.key, HALL)
        assert mine.mqtt.ca == r / "hall-ca.crt"
        assert mine.mqtt.password is not None
        assert verifies(mine.mqtt.password, room_users[f"board-{n}"])
    room_acl = (r / "acl").read_text()
    assert "board-3" not in room_acl and f"topic read {ROOT}/4/cmd" in room_acl
    # the room's broker's certificate: the hall's CA signed it, for the room's host
    check = subprocess.run(["openssl", "verify", "-CAfile", str(hall / "hall-ca.crt"),
                            "-verify_ip", "127.0.0.1", str(r / "broker.crt")],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr
    assert (r / "broker.key").stat().st_mode & 0o777 == 0o600


def test_a_room_again_only_with_force_and_then_once(hall: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert room(capsys, hall)[0] == 0
    r = hall / "rooms" / "east"
    first = (r / "mosquitto.conf").read_text()
    passwd, acl = (hall / "passwd").read_text(), (hall / "acl").read_text()
    code, out, err = room(capsys, hall)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "--force" in err
    assert (r / "mosquitto.conf").read_text() == first and (hall / "passwd").read_text() == passwd
    code, out, err = cli(capsys, "--dir", str(hall), "--bridge", "hub.local:1999", "--room",
                         "east", "--room-boards", "3", "--host", "127.0.0.1", "--force")
    assert code == 0, err
    s = settings((r / "mosquitto.conf").read_text())
    assert s["address"] == ["hub.local:1999"] and s["listener"] == ["8883"]
    assert sorted(p.name for p in r.glob("board-*.toml")) == ["board-3.toml"]
    new_passwd = (hall / "passwd").read_text()
    assert new_passwd.count("bridge-east:") == 1 and new_passwd != passwd
    assert verifies(s["remote_password"][0], dict(
        line.split(":", 1) for line in new_passwd.splitlines())["bridge-east"])
    new_acl = (hall / "acl").read_text()
    assert new_acl.count("user bridge-east") == 1 and f"{ROOT}/3/cmd" in new_acl.split(
        "user bridge-east")[1] and f"{ROOT}/1/cmd" not in new_acl.split("user bridge-east")[1]
    # a second room beside it (not with a board of the first); the hall's own lines untouched
    code, out, err = cli(capsys, "--dir", str(hall), "--bridge", "hub.local", "--room", "west",
                         "--room-boards", "3-5", "--host", "127.0.0.1")
    assert code == 2 and len(err.splitlines()) == 1 and "board 3 is in room east" in err
    assert cli(capsys, "--dir", str(hall), "--bridge", "hub.local", "--room", "west",
               "--room-boards", "5", "--host", "127.0.0.1")[0] == 0
    assert (hall / "acl").read_text().startswith(acl[:acl.index("# begin room")])
    assert {line.split(":")[0] for line in (hall / "passwd").read_text().splitlines()} == {
        "hub", *(f"board-{n}" for n in range(1, 6)), "bridge-east", "bridge-west"}


@pytest.mark.parametrize("argv, words", [
    (["--bridge", ""], "--bridge"), (["--bridge", "bad host"], "--bridge"),
    (["--bridge", "a@b"], "--bridge"), (["--bridge", "hub:0"], "--bridge"),
    (["--bridge", "hub:70000"], "--bridge"), (["--bridge", "hub:x"], "--bridge"),
    (["--bridge", "hub:"], "--bridge"), (["--bridge", "[::1"], "--bridge"),
    (["--bridge", "[::1]x"], "--bridge"), (["--bridge", "hub:1\nconnection x"], "--bridge"),
    (["--room", None], "--room"), (["--room", "a/b"], "--room"), (["--room", "a b"], "--room"),
    (["--room-boards", "0"], "--room-boards"), (["--room-boards", "3-1"], "--room-boards"),
    (["--room-boards", "6"], "--room-boards"), (["--room-boards", "1,x"], "--room-boards"),
    (["--room-boards", ""], "--room-boards"), (["--host", "bad host"], "--host"),
    (["--port", "0"], "--port"), (["--boards", "3"], "--boards"),
    (["--plain-mqtt", None], "--plain-mqtt"),
])
def test_bad_values_one_line_exit_2_nothing_written(
        hall: Path, capsys: pytest.CaptureFixture[str], argv: list[str | None],
        words: str) -> None:
    base: dict[str, str | None] = {"--dir": str(hall), "--bridge": "hub.local", "--room": "east",
                                   "--host": "127.0.0.1"}
    name, value = argv
    assert name is not None
    if name == "--room" and value is None:
        del base["--room"]
    else:
        base[name] = value
    flat = [x for k, v in base.items() for x in ((k,) if v is None else (k, v))]
    before = {p.name: p.read_bytes() for p in hall.iterdir() if p.is_file()}
    code, out, err = cli(capsys, *flat)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and "Traceback" not in err
    assert words in err
    assert not (hall / "rooms").exists()
    assert {p.name: p.read_bytes() for p in hall.iterdir() if p.is_file()} == before


def test_no_hall_a_plain_hall_and_room_options_alone_are_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "--dir", str(tmp_path / "none"), "--bridge", "hub", "--room",
                         "r", "--host", "h")
    assert code == 2 and len(err.splitlines()) == 1 and "no hall" in err
    plain = tmp_path / "plain"
    assert cli(capsys, "--boards", "2", "--dir", str(plain), "--plain-mqtt", "--host", "h")[0] == 0
    code, out, err = cli(capsys, "--dir", str(plain), "--bridge", "hub", "--room", "r",
                         "--host", "h")
    assert code == 2 and len(err.splitlines()) == 1 and "TLS" in err
    code, out, err = cli(capsys, "--boards", "2", "--dir", str(tmp_path / "x"), "--room", "r")
    assert code == 2 and len(err.splitlines()) == 1 and "--bridge" in err
    assert not (tmp_path / "x").exists()
    code, out, err = cli(capsys, "--dir", str(tmp_path / "x"))
    assert code == 2 and len(err.splitlines()) == 1 and "--boards" in err


def test_bad_bridge_as_a_process(hall: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "init", "--dir", str(hall),
                        "--bridge", "hub:99999", "--room", "east"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.splitlines()) == 1
    assert re.search(r"--bridge: .*1\.\.65535", r.stderr)


@pytest.mark.parametrize("text, parsed", [
    ("hub.local", ("hub.local", None)), ("hub.local:1884", ("hub.local", 1884)),
    ("10.0.0.2:8883", ("10.0.0.2", 8883)), ("[fd00::2]:8883", ("fd00::2", 8883)),
    ("fd00::2", ("fd00::2", None)), ("[fd00::2]", ("fd00::2", None)),
])
def test_bridge_addresses(text: str, parsed: tuple[str, int | None]) -> None:
    assert parse_bridge(text) == parsed


def test_room_boards() -> None:
    assert parse_room_boards("4, 1-2,2", [1, 2, 3, 4]) == (1, 2, 4)
