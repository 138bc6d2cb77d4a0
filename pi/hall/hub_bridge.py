"""``damiera hub init --dir DIR --bridge HOST[:PORT] --room NAME [--room-boards LIST] [--host H]
[--port P] [--force]``: a room of the hall in ``DIR`` (made by ``hub init --boards N``) with a
Mosquitto of its own, bridged to the hub's broker with Mosquitto's own bridge
(docs/organiser.md, "A hall in several rooms"). The room's boards connect to the room's broker
exactly as they connect to the hub's (same users, passwords, keys, topics, CA); the bridge carries
their topics to the hub's broker and the hub's commands back. A hall feeding a federation's
server is the same: the hall is the room, the federation's hub the hub.

Written into ``DIR/rooms/<NAME>/`` (the room's PC takes this folder, at the same path):

- ``mosquitto.conf`` — the room's broker: a TLS listener for its boards (``--host``,
  ``--port``), the room's users and ACL, persistence in ``data/``, and the bridge: connection
  ``bridge-<NAME>`` to ``HOST:PORT`` over TLS trusting only the hall's CA, logging in as the
  user ``bridge-<NAME>`` (its password is in this file: mode 0600), the topics of the room's
  boards only — ``state``, ``status``, ``journal``, ``ack`` out to the hub, ``cmd`` in — at
  QoS 1, persistent sessions at both ends (``cleansession false``, ``local_cleansession
  false``) and a queue for the whole room while the link is down.
- ``passwd``, ``acl`` — the room's boards (their hall passwords, hashed anew), each its own
  topics as on the hub's broker.
- ``broker.crt``, ``broker.key`` — the room broker's certificate for ``--host`` (and loopback),
  signed by the hall's CA (``DIR/hall-ca.key``, which stays where it is); ``hall-ca.crt``.
- ``board-<n>.toml`` — each of the room's boards' configuration: the hall's, with the room's
  broker as its URL.

And into the hall: the user ``bridge-<NAME>`` in ``DIR/passwd`` and its ACL in ``DIR/acl``
(write the room's boards' ``state``, ``status``, ``journal``, ``ack``; read their ``cmd``;
nothing else). The hub's broker reads them again on SIGHUP (``systemctl reload mosquitto``).

Every refusal is one line (:class:`~pi.hall.errors.HallInitError`, exit 2), nothing written.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import pwd
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import DamieraError, excerpt
from engine.i18n import environment_language, translations
from pi.board.config import load_config
from pi.board.statedir import atomic_write
from pi.hall.errors import HallInitError
from pi.hall.hub_config import load_hub_config
from pi.hall.hub_init import (BROKER_USER, CA_FILE, CERT_DAYS, MAX_BOARDS,
                              MESSAGES_PER_BOARD_MINUTE, PASSWORD_BYTES, QUEUE_MAX_BYTES,
                              QUEUE_MINUTES, TLS_PORT, Hall, board_toml_text, broker_user_text,
                              check_host, hash_password, queue_limit)
from pi.hall.protocol import SEGMENT

log = logging.getLogger(__name__)

__all__ = ["Room", "LEAVES_OUT", "LEAVES_IN", "parse_bridge", "parse_room_boards", "make_room",
           "write_room", "room_conf_text", "bridge_text", "room_acl_text", "hall_acl_section",
           "main_bridge", "bridge_user", "ROOMS"]

#: The board topics' leaves the bridge carries to the hub's broker (PROTOCOL.md: board → hub).
LEAVES_OUT = ("state", "status", "journal", "ack")
#: ... and from it to the room (hub → board).
LEAVES_IN = ("cmd",)
#: The hall's folder of rooms: ``DIR/rooms/<NAME>/``.
ROOMS = "rooms"
#: Seconds between the bridge's attempts to reconnect: from 2, growing (Mosquitto's decorrelated
#: jitter) up to 30 — a link back is used within seconds, a hub's broker away is not hammered.
RESTART_TIMEOUT = (2, 30)
_BOARD_RANGE = re.compile(r"([0-9]{1,4})(?:-([0-9]{1,4}))?")


def bridge_user(room: str) -> str:
    """The room's bridge's user on the hub's broker (and its client id there: the hub's broker
    takes the client id from the user name)."""
    return f"bridge-{room}"


@dataclass(frozen=True)
class Room:
    """A room of a hall: ``name``; ``broker`` — the room's broker as a :class:`Hall` (the hall's
    name, the room's boards' passwords and keys, where the boards reach it, its folder
    ``DIR/rooms/<name>``, who it runs as); ``boards`` — the room's board numbers, ascending;
    ``remote`` — the hub's broker (host, port) as the room's broker reaches it; ``hall_dir`` —
    the hall's folder; ``password`` — the bridge's password on the hub's broker, in clear."""

    name: str
    broker: Hall
    boards: tuple[int, ...]
    remote: tuple[str, int]
    hall_dir: Path
    password: str = field(repr=False)

    @property
    def user(self) -> str:
        return bridge_user(self.name)

    @property
    def dir(self) -> Path:
        return self.broker.dir


def parse_bridge(text: str) -> tuple[str, int | None]:
    """``--bridge``: ``HOST``, ``HOST:PORT`` or ``[IPv6]:PORT`` (a bare IPv6 address without a
    port too). Returns the host (checked as ``--host`` is) and the port (None: not given).
    Raises HallInitError."""
    body, port_text = text.strip(), None
    if body.startswith("["):
        host, bracket, rest = body[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            raise HallInitError(f"--bridge: not HOST, HOST:PORT or [IPv6]:PORT: {excerpt(text)}")
        body, port_text = host, rest[1:] if rest else None
    elif body.count(":") == 1:
        body, port_text = body.split(":")
    try:
        host = check_host(body)
    except HallInitError:
        raise HallInitError(f"--bridge: not a host name or IP address (HOST or HOST:PORT): "
                            f"{excerpt(text)}") from None
    if port_text is None:
        return host, None
    if not port_text.isascii() or not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise HallInitError(f"--bridge: the port must be 1..65535: {excerpt(text)}")
    return host, int(port_text)


def parse_room_boards(text: str, hall_boards: list[int]) -> tuple[int, ...]:
    """``--room-boards``: numbers and ranges, ``1-20,25``, each a board of the hall. Raises
    HallInitError."""
    chosen: set[int] = set()
    for part in text.split(","):
        m = _BOARD_RANGE.fullmatch(part.strip())
        if m is None:
            raise HallInitError(f"--room-boards: board numbers and ranges, e.g. 1-20,25: "
                                f"{excerpt(text)}")
        low = int(m.group(1))
        high = low if m.group(2) is None else int(m.group(2))
        if not 1 <= low <= high <= MAX_BOARDS:
            raise HallInitError(f"--room-boards: {excerpt(part.strip())} is not a range of "
                                f"1..{MAX_BOARDS}")
        chosen.update(range(low, high + 1))
    missing = sorted(chosen - set(hall_boards))
    if missing:
        raise HallInitError(f"--room-boards: board {missing[0]} is not one of the hall's "
                            f"({_ranges(hall_boards)})")
    return tuple(sorted(chosen))


def _ranges(boards: list[int] | tuple[int, ...]) -> str:
    """``1-20,25``: ``boards`` (ascending) as ranges."""
    out: list[str] = []
    start = prev = None
    for n in [*boards, None]:
        if start is not None and prev is not None and (n is None or n != prev + 1):
            out.append(str(start) if start == prev else f"{start}-{prev}")
            start = None
        if start is None:
            start = n
        prev = n
    return ",".join(out)


def make_room(hall_dir: str | Path, bridge: str, room: str | None, boards: str | None = None,
              host: str | None = None, port: int | None = None, *,
              broker_user: str | None = None) -> Room:
    """Reads the hall in ``hall_dir`` (its ``hub.toml`` and ``board-<n>.toml``) and checks the
    options; draws the bridge's password. ``boards`` None: every board of the hall; ``host``
    None: this machine's host name; ``port`` None: 8883. Raises HallInitError."""
    if room is None:
        raise HallInitError("--bridge: name the room with --room NAME (letters, digits, . _ -)")
    if SEGMENT.fullmatch(room) is None:
        raise HallInitError(f"--room: letters, digits, '.', '_' or '-' only, at most 64: "
                            f"{excerpt(room)}")
    remote_host, remote_port = parse_bridge(bridge)
    d = Path(hall_dir).absolute()
    if not (d / "hub.toml").is_file():
        raise HallInitError(f"--bridge: {d} holds no hall (no hub.toml): make it first with "
                            "'damiera hub init --boards N --dir DIR'")
    try:
        hub = load_hub_config(d / "hub.toml")
    except DamieraError as exc:
        raise HallInitError(f"--bridge: the hall's {exc}") from None
    if hub.mqtt is None or not hub.mqtt.tls:
        raise HallInitError("--bridge: the hall's broker is plain MQTT (--plain-mqtt); a room's "
                            "bridge carries its password to it over TLS only: make the hall "
                            "without --plain-mqtt")
    for name in (CA_FILE, "hall-ca.key", "passwd", "acl"):
        if not (d / name).is_file():
            raise HallInitError(f"--bridge: {d / name} is not there: run --bridge in the folder "
                                "where 'damiera hub init' made the hall")
    hall_boards = sorted(hub.keys)
    chosen = tuple(hall_boards) if boards is None else parse_room_boards(boards, hall_boards)
    if not chosen:
        raise HallInitError(f"--bridge: {d / 'hub.toml'} names no board")
    try:
        elsewhere = _rooms_of_boards((d / "acl").read_text(encoding="utf-8"), hub.hall)
    except (OSError, UnicodeDecodeError) as exc:
        raise HallInitError(f"--bridge: cannot read {d / 'acl'}: {exc}") from None
    taken = [(n, elsewhere[n]) for n in chosen if elsewhere.get(n, room) != room]
    if taken:
        raise HallInitError(f"--room-boards: board {taken[0][0]} is in room {taken[0][1]} "
                            "already (a board is in one room: its broker's bridge carries it)")
    passwords: dict[str, str] = {}
    keys: dict[int, str] = {}
    for n in chosen:
        try:
            spec = load_config(d / f"board-{n}.toml").mqtt
        except DamieraError as exc:
            raise HallInitError(f"--bridge: board {n}: {exc}") from None
        if spec is None or spec.username is None or spec.password is None or spec.key is None:
            raise HallInitError(f"--bridge: {d / f'board-{n}.toml'} has no [mqtt] url with a "
                                "user and password, or no key: not as 'hub init' wrote it")
        passwords[spec.username] = spec.password
        keys[n] = spec.key.hex()
    if port is not None and not 1 <= port <= 65535:
        raise HallInitError(f"--port: {port} is out of range 1..65535")
    if host is None:
        name = socket.gethostname()
        try:
            host = check_host(name)
        except HallInitError:
            raise HallInitError(f"this machine's host name {excerpt(name)} is not usable in a "
                                "URL; give --host (the room's broker as its boards reach it)") \
                from None
    else:
        host = check_host(host)
    if broker_user is not None:
        try:
            pwd.getpwnam(broker_user)
        except KeyError:
            raise HallInitError(
                f"run as root, hub init gives the room broker's files to Mosquitto's user "
                f"{broker_user!r}, and there is none here: install Mosquitto first (Debian's "
                "mosquitto package), or run hub init as yourself") from None
    broker = Hall(hall=hub.hall, boards=len(chosen), host=host,
                  port=TLS_PORT if port is None else port, dir=d / ROOMS / room,
                  passwords=passwords, tls=True, keys=keys, broker_user=broker_user)
    return Room(room, broker, chosen, (remote_host, remote_port or hub.mqtt.port), d,
                secrets.token_urlsafe(PASSWORD_BYTES))


def room_conf_text(room: Room) -> str:
    """The room broker's ``mosquitto.conf`` (Mosquitto 2.0): listener, users, persistence,
    queues, and :func:`bridge_text`."""
    b = room.broker
    d = b.dir
    return f"""\
# Mosquitto configuration of the room "{room.name}" of the damiera hall "{b.hall}" (boards
# {_ranges(room.boards)}), written by 'damiera hub init --bridge'. Secret: it holds the bridge's
# password on the hub's broker. Run it on the room's PC, this folder at this same path, with:
#   mosquitto -c {d / 'mosquitto.conf'}
# as the user who ran 'hub init', or as root (sudo).

{broker_user_text(b)}
# The room's boards connect here, on every interface of the room's PC, over TLS (1.2 at least):
# this broker's certificate is signed by the hall's CA ({CA_FILE}), which the boards trust.
listener {b.port}
cafile {d / CA_FILE}
certfile {d / 'broker.crt'}
keyfile {d / 'broker.key'}
tls_version tlsv1.2

# One session per user, the client id taken from the user name, as on the hub's broker.
use_username_as_clientid true
allow_anonymous false
# The room's boards, with the same passwords as on the hub's broker, hashed.
password_file {d / 'passwd'}
# Each board publishes its own topics and reads its own cmd, as on the hub's broker.
acl_file {d / 'acl'}
log_dest stderr

# The boards' sessions, the retained states and what waits for the hub survive a restart of
# this broker: saved in data/ every 10 s and at a clean stop. A broker killed between two
# saves loses at most those seconds of the queue; the hub asks the boards for the lines it
# misses (pi/hall/PROTOCOL.md, "Catch-up"), their journals being the outbox.
persistence true
persistence_location {d / 'data'}/
autosave_interval 10
# While the link to the hub's broker is down, the bridge's queue holds {QUEUE_MINUTES} minutes
# of the room: max({len(room.boards)}, 200) boards x {MESSAGES_PER_BOARD_MINUTE} messages a
# minute, at most 512 MiB (beyond, the hub's resend brings the lines from the journals).
max_queued_messages {queue_limit(len(room.boards))}
max_queued_bytes {QUEUE_MAX_BYTES}
max_inflight_messages 100
persistent_client_expiration 1d
set_tcp_nodelay true

{bridge_text(room)}"""


def bridge_text(room: Room) -> str:
    """The ``connection`` section of the room's broker: the bridge to the hub's broker."""
    host, port = room.remote
    address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    b = room.broker
    prefix = f"damiera/{b.hall}/boards"
    topics = "".join(
        f"topic {prefix}/{n}/{leaf} out 1\n" for n in room.boards for leaf in LEAVES_OUT) + "".join(
        f"topic {prefix}/{n}/{leaf} in 1\n" for n in room.boards for leaf in LEAVES_IN)
    return f"""\
# The bridge to the hub's broker (Mosquitto's own): the room's boards' topics out, their
# commands in, nothing else. Over TLS 1.2, the hub's broker's certificate checked against the
# hall's CA and its name ({host}).
connection {room.user}
address {address}
bridge_cafile {b.dir / CA_FILE}
bridge_tls_version tlsv1.2
bridge_insecure false
bridge_protocol_version mqttv311
# The bridge's own user on the hub's broker (its ACL there: these topics only).
remote_username {room.user}
remote_password {room.password}
remote_clientid {room.user}
local_clientid local.{room.user}
# Persistent sessions at both ends: while the link is down the room's messages wait here (the
# queue above, saved with the rest) and the commands for the room wait at the hub's broker;
# both are sent once it is back, at QoS 1 (at least once: the hub and the boards drop the
# copies by line number and command id).
cleansession false
local_cleansession false
start_type automatic
restart_timeout {RESTART_TIMEOUT[0]} {RESTART_TIMEOUT[1]}
keepalive_interval 30
# The link's state ("1" up, "0" down), retained on this broker only:
# $SYS/broker/connection/{room.user}/state
notifications true
notifications_local_only true
try_private true
{topics}"""


def room_acl_text(room: Room) -> str:
    """The room broker's ACL: each of the room's boards its own topics (as on the hub's)."""
    root = f"damiera/{room.broker.hall}/boards"
    lines = [f"# Access of the room \"{room.name}\" of the damiera hall \"{room.broker.hall}\", "
             "written by 'damiera hub init --bridge'.",
             "# Each board publishes its own state, status, journal and ack, and reads its own "
             "cmd; the bridge",
             "# (inside the broker) carries them to the hub's broker. Nothing else is granted."]
    for n in room.boards:
        lines += ["", f"user board-{n}",
                  *(f"topic write {root}/{n}/{leaf}" for leaf in LEAVES_OUT),
                  *(f"topic read {root}/{n}/{leaf}" for leaf in LEAVES_IN)]
    return "\n".join(lines) + "\n"


def _begin(room: str) -> str:
    return f"# begin room {room} (damiera hub init --bridge)"


def _end(room: str) -> str:
    return f"# end room {room}"


def hall_acl_section(room: Room) -> str:
    """The bridge's section of the hub broker's ACL: it writes what the room's boards publish
    and reads their commands, nothing else (not the other boards', not the broker's log)."""
    root = f"damiera/{room.broker.hall}/boards"
    lines = [_begin(room.name),
             f"# The room's broker's bridge: boards {_ranges(room.boards)}, their topics only.",
             f"user {room.user}"]
    for n in room.boards:
        lines += [*(f"topic write {root}/{n}/{leaf}" for leaf in LEAVES_OUT),
                  *(f"topic read {root}/{n}/{leaf}" for leaf in LEAVES_IN)]
    return "\n".join([*lines, _end(room.name)]) + "\n"


def _rooms_of_boards(acl: str, hall: str) -> dict[int, str]:
    """The rooms already in the hall's ACL: board number → room (from each room's section)."""
    found: dict[int, str] = {}
    room = None
    begin = re.compile(r"# begin room (\S+) \(damiera hub init --bridge\)")
    cmd = re.compile(rf"topic read damiera/{re.escape(hall)}/boards/([0-9]+)/cmd")
    for line in acl.splitlines():
        m = begin.fullmatch(line)
        if m is not None:
            room = m.group(1)
        elif room is not None and line == _end(room):
            room = None
        elif room is not None and (c := cmd.fullmatch(line)) is not None:
            found[int(c.group(1))] = room
    return found


def _without_room(acl: str, room: str) -> str:
    """The hall's ACL less the section of ``room`` (a room made again with ``--force``)."""
    out: list[str] = []
    skipping = False
    for line in acl.splitlines(keepends=True):
        if line.rstrip("\n") == _begin(room):
            skipping = True
        elif skipping and line.rstrip("\n") == _end(room):
            skipping = False
        elif not skipping:
            out.append(line)
    return "".join(out)


def _without_user(passwd: str, user: str) -> str:
    return "".join(line for line in passwd.splitlines(keepends=True)
                   if not line.startswith(f"{user}:"))


def write_room(room: Room, force: bool = False) -> list[Path]:
    """Writes the room's files into ``DIR/rooms/<name>/`` and the bridge's user into the hall's
    ``passwd`` and ``acl``; returns the paths written. Refuses (HallInitError) a room already
    there, unless ``force``. OS and openssl errors are HallInitErrors."""
    d, hall = room.dir, room.hall_dir
    try:
        passwd = (hall / "passwd").read_text(encoding="utf-8")
        acl = (hall / "acl").read_text(encoding="utf-8")
        there = (d / "mosquitto.conf").exists() or f"\n{room.user}:" in f"\n{passwd}"
        if there and not force:
            raise HallInitError(f"room {room.name} is already there ({d}); a new bridge password "
                                "would lock out its broker (--force to replace it)")
        d.mkdir(parents=True, exist_ok=True)
        (d / "data").mkdir(exist_ok=True)
        written = _room_cert(room)
        shutil.copyfile(hall / CA_FILE, d / CA_FILE)
        os.chmod(d / CA_FILE, 0o644)
        written.append(d / CA_FILE)

        def put(path: Path, text: str, mode: int) -> None:
            atomic_write(path, text, mode=mode)
            written.append(path)

        put(d / "passwd", "".join(f"{user}:{hash_password(pw)}\n"
                                  for user, pw in room.broker.passwords.items()), 0o600)
        put(d / "acl", room_acl_text(room), 0o644)
        for n in room.boards:
            put(d / f"board-{n}.toml", board_toml_text(room.broker, n), 0o600)
        for stale in d.glob("board-*.toml"):  # --force with fewer boards
            if stale not in written:
                stale.unlink()
        put(d / "mosquitto.conf", room_conf_text(room), 0o600)
        if room.broker.broker_user is not None:  # the room broker's own files: its user's
            owner = pwd.getpwnam(room.broker.broker_user)
            for path in (d / "passwd", d / "broker.key", d / "mosquitto.conf", d / "data",
                         *(d / "data").iterdir()):
                os.chown(path, owner.pw_uid, owner.pw_gid)
        # the hall's broker: the bridge's user, once (the hall's files keep their owner)
        line = f"{room.user}:{hash_password(room.password)}\n"
        _rewrite(hall / "passwd", _without_user(passwd, room.user) + line)
        acl = _without_room(acl, room.name)
        _rewrite(hall / "acl", acl + ("" if acl.endswith("\n\n") else "\n")
                 + hall_acl_section(room))
        written += [hall / "passwd", hall / "acl"]
    except OSError as exc:
        raise HallInitError(f"{d}: cannot write the room ({exc.strerror or exc})") from None
    except subprocess.SubprocessError as exc:
        raise HallInitError(f"openssl failed to make the room's certificate: {exc}"[:300]) \
            from None
    log.info("room %s of hall %s: boards %s, bridged to %s:%d", room.name, room.broker.hall,
             _ranges(room.boards), *room.remote)
    return written


def _rewrite(path: Path, text: str) -> None:
    """``path`` replaced by ``text`` atomically, its mode and owner kept."""
    st = path.stat()
    atomic_write(path, text, mode=st.st_mode & 0o777)
    if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
        os.chown(path, st.st_uid, st.st_gid)


def _room_cert(room: Room) -> list[Path]:
    """The room broker's certificate for its host (and localhost, 127.0.0.1, ::1), signed by
    the hall's CA, made with ``openssl`` (EC P-256) in a private temporary folder; key 0600.
    Raises HallInitError (no openssl), OSError or SubprocessError."""
    tool = shutil.which("openssl")
    if tool is None:
        raise HallInitError("openssl is not installed: it makes the room broker's certificate "
                            "(Debian's openssl package)")
    b = room.broker
    host = b.host
    try:
        names = [f"IP:{ipaddress.ip_address(host)}"]
    except ValueError:
        names = [f"DNS:{host}"]
    names += [n for n in ("DNS:localhost", "IP:127.0.0.1", "IP:::1") if n not in names]
    with tempfile.TemporaryDirectory(dir=b.dir) as tmp:
        t = Path(tmp)

        def run(*args: str) -> None:
            subprocess.run([tool, *args], cwd=t, check=True, capture_output=True, timeout=60)
        run("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", "broker.key", "-out", "broker.csr", "-subj", f"/CN={host}")
        (t / "ext").write_text(f"subjectAltName={','.join(names)}\nbasicConstraints=CA:FALSE\n"
                               "keyUsage=critical,digitalSignature\n"
                               "extendedKeyUsage=serverAuth\n", encoding="ascii")
        run("x509", "-req", "-in", "broker.csr", "-CA", str(room.hall_dir / CA_FILE),
            "-CAkey", str(room.hall_dir / "hall-ca.key"), "-set_serial",
            f"0x{secrets.token_hex(16)}", "-days", str(CERT_DAYS), "-extfile", "ext",
            "-out", "broker.crt")
        out = []
        for name, mode in (("broker.crt", 0o644), ("broker.key", 0o600)):
            os.chmod(t / name, mode)
            os.replace(t / name, b.dir / name)
            out.append(b.dir / name)
        return out


def main_bridge(args: argparse.Namespace) -> int:
    """``damiera hub init --bridge``: writes the room and prints what to run. Raises
    HallInitError."""
    if getattr(args, "boards", None) is not None:
        raise HallInitError("--bridge makes a room of the hall already in --dir: give its boards "
                            "with --room-boards, not --boards")
    if getattr(args, "plain_mqtt", False):
        raise HallInitError("--bridge: a room's broker and its bridge speak TLS only "
                            "(--plain-mqtt is for a hall's own broker)")
    room = make_room(args.dir, args.bridge, getattr(args, "room", None),
                     getattr(args, "room_boards", None), host=args.host, port=args.port,
                     broker_user=BROKER_USER if os.getuid() == 0 else None)
    write_room(room, force=bool(getattr(args, "force", False)))
    out = sys.stdout
    t = translations(environment_language(os.environ))
    d, (host, port) = room.dir, room.remote
    print(t.gettext("room {room} of hall {hall}: boards {boards}, broker {broker}, bridged to "
                    "{hub}, in {dir}").format(
        room=room.name, hall=room.broker.hall, boards=_ranges(room.boards),
        broker=f"{room.broker.host}:{room.broker.port}", hub=f"{host}:{port}", dir=d), file=out)
    print(f"  room:   mosquitto -c {d / 'mosquitto.conf'} "
          + t.gettext("(on the room's PC, this folder copied there at the same path)"), file=out)
    print("  hub:    systemctl reload mosquitto "
          + t.gettext("(the hub's broker reads {passwd} and {acl} again; or kill -HUP)").format(
              passwd=room.hall_dir / "passwd", acl=room.hall_dir / "acl"), file=out)
    print(f"  boards: damiera run --config {d}/board-<n>.toml "
          + t.gettext("(copy each to its board)"), file=out)
    print("  tls:    " + t.gettext("copy {file} beside each board-<n>.toml").format(
        file=d / CA_FILE), file=out)
    return 0
