"""``damiera hub init --boards N --dir DIR [--port P] [--hall NAME] [--host HOST] [--force]
[--plain-mqtt] [--nginx …]``: the files that make a hall (docs/organiser.md, "Security").

- ``DIR/mosquitto.conf`` — the broker: one TLS listener on every interface (port 8883), no
  anonymous clients, the password file and the ACL below, persistence in ``DIR/data/``, queue
  sizes for the hall. With ``--plain-mqtt`` (asked for by name) a plain MQTT listener (port
  1883) instead: the passwords then cross the hall's network in clear, and the hub warns at
  start. Its ``user`` line names who owns the 0600 files, so that the file starts as written
  by that user or by root (sudo on a Pi): run by a user, ``hub init`` names them; run as root,
  it gives the broker's files (password file, key, data) to Mosquitto's own user
  ``mosquitto`` and names it, so that the broker never runs as root.
- ``DIR/hall-ca.crt``, ``DIR/hall-ca.key`` — the hall's own certificate authority (made here
  with ``openssl``; the key never leaves this folder) and ``DIR/broker.crt``,
  ``DIR/broker.key`` — the broker's certificate, signed by it, for ``--host`` (and this
  machine's loopback: a hub beside the broker; ``pi.hall.certs``). Boards and hub trust only
  this CA.
- ``DIR/passwd`` — the users ``hub`` and ``board-1`` … ``board-N`` with random passwords, hashed
  in Mosquitto 2's own format (``$7$``: PBKDF2-HMAC-SHA512), made here in Python so that a
  machine without Mosquitto can prepare a hall.
- ``DIR/acl`` — a board publishes only its own ``state``, ``status``, ``journal`` and ``ack``
  and reads only its own ``cmd``; the hub reads the whole hall and writes the boards' ``cmd``;
  nobody else may do anything.
- ``DIR/hub.toml`` and ``DIR/board-<n>.toml`` — the hub's and each board's configuration, with
  the broker's URL (``mqtts://``) and that user's password in it, the CA (``ca``), and each
  board's own signing key (``[mqtt] key`` of ``board-<n>.toml``; every board's in the hub's
  ``[keys]``): the key signs the board's journal lines for the hub (``pi.hall.signing``) and
  never crosses the network. Copy ``hall-ca.crt`` beside each ``board-<n>.toml``.
- With ``--nginx``: ``DIR/nginx.conf``, nginx in front of the hub for the spectators past the
  hall's network (``pi.hall.nginx_conf``), and ``nchan`` in ``hub.toml`` (where the hub
  publishes its live streams for nginx).

Files holding a password or a key are written mode 0600, each atomically. An existing hall in ``DIR`` is
not overwritten without ``--force``: new passwords would lock out every board configured with
the old ones. Every refusal is one line (:class:`HallInitError`, exit 2).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import ipaddress
import json
import logging
import os
import pwd
import re
import secrets
import socket
import subprocess
import sys
import urllib.parse
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine.errors import excerpt
from engine.i18n import environment_language, translations
from pi.board.config import parse_mqtt_url
from pi.hall.certs import CA_FILE, CERT_DAYS, make_certs
from pi.hall.errors import HallInitError
from pi.hall.nginx_conf import WebSpec, nginx_conf_text
from pi.hall.protocol import SEGMENT
from pi.hall.signing import new_key
from pi.board.statedir import atomic_write

log = logging.getLogger(__name__)

__all__ = ["Hall", "MAX_BOARDS", "HASH_ITERATIONS", "hash_password",
           "make_hall", "write_hall", "main_init", "conf_text", "acl_text", "passwd_text",
           "hub_toml_text", "board_toml_text", "queue_limit", "make_certs", "CA_FILE", "CERT_DAYS",
           "TLS_PORT", "PLAIN_PORT", "broker_open_files",
           "broker_command", "USUAL_OPEN_FILES", "BROKER_SPARE_FILES", "web_spec",
           "NCHAN_PORT", "HUB_HTTP", "check_host", "broker_user_text"]

#: Board numbers of a hall: 1 … MAX_BOARDS (as ``board`` in damiera.toml).
MAX_BOARDS = 9999
#: PBKDF2 iterations of a password hash: ``mosquitto_passwd``'s default (PW_DEFAULT_ITERATIONS).
HASH_ITERATIONS = 101
#: Salt length of Mosquitto's hashes (SALT_LEN in its password code).
SALT_BYTES = 12
#: Random bytes in a generated password (192 bits; URL-safe base64, nothing to percent-encode).
PASSWORD_BYTES = 24
#: nginx's nchan publisher listens on 127.0.0.1:NCHAN_PORT (``--nchan-port``).
NCHAN_PORT = 8091
#: Where nginx finds the hub (``--hub-http``): the hub's ``--http`` of docs/organiser.md.
HUB_HTTP = "127.0.0.1:8090"
#: The broker's port with TLS (the default) and without (``--plain-mqtt``).
TLS_PORT = 8883
PLAIN_PORT = 1883

#: What a board publishes in a minute at a rapid pace, the high end of a tournament: a ply every
#: 15 s is 4 plies a minute, each some 4 journal lines (lift, place, a captured piece's lift,
#: the clock's button) and one ``state``: 20 messages.
MESSAGES_PER_BOARD_MINUTE = 20
#: How long the hub's persistent session should hold the hall's messages while the hub is away.
QUEUE_MINUTES = 30
#: The queue is sized for at least this many boards (a small hall gets the same headroom).
QUEUE_MIN_BOARDS = 200
#: The broker's memory bound on one client's queue (the hub's): 512 MiB.
QUEUE_MAX_BYTES = 512 * 1024 * 1024
#: The limit on open files a process usually starts with (a login shell's, a systemd unit's
#: soft ``RLIMIT_NOFILE``). Mosquitto keeps it, a file per client: at 1,024 it took 1,015
#: clients and refused the rest.
USUAL_OPEN_FILES = 1024
#: Mosquitto's own system user (Debian's package makes it): the broker's when hub init runs as
#: root.
BROKER_USER = "mosquitto"
#: Files the broker needs beside its clients (listeners, log, persistence) and headroom for
#: clients reconnecting while their old connection is not closed yet (a network cut).
BROKER_SPARE_FILES = 128

_FILES = ("mosquitto.conf", "passwd", "acl", "hub.toml", CA_FILE, "hall-ca.key", "broker.crt",
          "broker.key", "nginx.conf")
_BOARD_FILE = re.compile(r"board-([0-9]{1,4})\.toml")
_HOSTNAME = re.compile(r"(?=.{1,253}\Z)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                       r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*")


@dataclass(frozen=True)
class Hall:
    """What ``hub init`` writes: the hall's name, its boards 1..``boards``, where boards reach
    the broker (``host``, ``port``), the folder ``dir`` (absolute) and the users' passwords
    (``hub``, ``board-<n>``) in clear (they go into the TOML files; ``passwd`` has hashes),
    ``tls`` (False: plain MQTT, asked for by name) and each board's signing key (hex)."""

    hall: str
    boards: int
    host: str
    port: int
    dir: Path
    passwords: dict[str, str] = field(repr=False)
    tls: bool = True
    keys: dict[int, str] = field(default_factory=dict, repr=False)
    #: the system user the broker runs as when started as root, given its password file, key
    #: and data (``hub init`` run as root: Mosquitto's own, ``mosquitto``); None: the user
    #: writing the hall, who owns them
    broker_user: str | None = None
    #: nginx in front of the hub (``--nginx``): ``DIR/nginx.conf`` and hub.toml's ``nchan``
    web: WebSpec | None = None

    def url(self, user: str) -> str:
        """The broker's URL with ``user``'s credentials, percent-encoded."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        password = urllib.parse.quote(self.passwords[user], safe="")
        scheme = "mqtts" if self.tls else "mqtt"
        return f"{scheme}://{urllib.parse.quote(user, safe='')}:{password}@{host}:{self.port}"


def hash_password(password: str, salt: bytes | None = None,
                  iterations: int = HASH_ITERATIONS) -> str:
    """``password`` hashed as Mosquitto 2 stores it: ``$7$<iterations>$<salt>$<hash>``, the
    PBKDF2-HMAC-SHA512 of the UTF-8 password (64 bytes) with a random 12-byte salt, both in
    standard base64 (the format ``mosquitto_passwd`` writes and the broker reads)."""
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    digest = hashlib.pbkdf2_hmac("sha512", password.encode("utf-8"), salt, iterations)
    return (f"$7${iterations}${base64.b64encode(salt).decode('ascii')}"
            f"${base64.b64encode(digest).decode('ascii')}")


def queue_limit(boards: int) -> int:
    """``max_queued_messages``: what ``max(boards, 200)`` boards publish in ``QUEUE_MINUTES``
    minutes at ``MESSAGES_PER_BOARD_MINUTE`` (200 boards: 120 000 messages)."""
    return max(boards, QUEUE_MIN_BOARDS) * MESSAGES_PER_BOARD_MINUTE * QUEUE_MINUTES


def check_host(host: str) -> str:
    """The broker's address as boards reach it: a host name, an IPv4 or an IPv6 address
    (normalised). Raises HallInitError (``--host: …``)."""
    text = host.strip()
    try:
        return str(ipaddress.ip_address(text.removeprefix("[").removesuffix("]")))
    except ValueError:
        pass
    if _HOSTNAME.fullmatch(text) is None:
        raise HallInitError(f"--host: not a host name or IP address: {excerpt(host)}")
    return text


def make_hall(boards: int, directory: str | Path, port: int | None = None, hall: str = "hall",
              host: str | None = None, *, tls: bool = True,
              broker_user: str | None = None) -> Hall:
    """Checks the options and draws a fresh password for every user and a key for every board.
    ``port`` None: 8883 with TLS, 1883 without; ``broker_user``: :attr:`Hall.broker_user`
    (a user of this machine). Raises HallInitError."""
    if broker_user is not None:
        try:
            pwd.getpwnam(broker_user)
        except KeyError:
            raise HallInitError(
                f"run as root, hub init gives the broker's files to Mosquitto's user "
                f"{broker_user!r}, and there is none here: install Mosquitto first (Debian's "
                "mosquitto package), or run hub init as yourself") from None
    if port is None:
        port = TLS_PORT if tls else PLAIN_PORT
    if not 1 <= boards <= MAX_BOARDS:
        raise HallInitError(f"--boards: {boards} is out of range 1..{MAX_BOARDS}")
    if not 1 <= port <= 65535:
        raise HallInitError(f"--port: {port} is out of range 1..65535")
    if any(ord(c) < 32 or ord(c) == 127 for c in str(directory)) or not str(directory):
        raise HallInitError(f"--dir: not a usable folder name (empty, or control characters: "
                            f"it goes into mosquitto.conf): {excerpt(str(directory))}")
    if SEGMENT.fullmatch(hall) is None:
        raise HallInitError(f"--hall: letters, digits, '.', '_' or '-' only, at most 64 "
                            f"(an MQTT topic level): {excerpt(hall)}")
    if host is None:
        name = socket.gethostname()
        try:
            host = check_host(name)
        except HallInitError:
            raise HallInitError(f"this machine's host name {excerpt(name)} is not usable in a "
                                "URL; give --host") from None
    else:
        host = check_host(host)
    users = ["hub", *(f"board-{n}" for n in range(1, boards + 1))]
    passwords = {user: secrets.token_urlsafe(PASSWORD_BYTES) for user in users}
    keys = {n: new_key() for n in range(1, boards + 1)}
    hall_ = Hall(hall, boards, host, port, Path(directory).absolute(), passwords, tls, keys,
                 broker_user)
    try:  # the URLs written must read back (pi.board.config's reader is the boards' and the hub's)
        parse_mqtt_url(hall_.url("hub"), lambda problem: HallInitError(problem))
    except HallInitError as exc:
        raise HallInitError(f"--host: {exc}") from None
    return hall_


def broker_open_files(hall: Hall) -> int | None:
    """The limit on open files the hall's broker needs (its clients — every board, the hub and
    a restarted hub's new connection while the broker still holds its old one — and
    :data:`BROKER_SPARE_FILES`), rounded up to a multiple of 1,024; None when
    :data:`USUAL_OPEN_FILES` is enough."""
    need = hall.boards + 2 + BROKER_SPARE_FILES
    if need <= USUAL_OPEN_FILES:
        return None
    return -(-need // 1024) * 1024


def broker_command(hall: Hall) -> str:
    """The command that runs the hall's broker, its limit on open files raised first when the
    hall needs it (a shell's ``ulimit -n``: up to the hard limit, no root needed)."""
    run = f"mosquitto -c {hall.dir / 'mosquitto.conf'}"
    files = broker_open_files(hall)
    return run if files is None else f"ulimit -n {files} && {run}"


def conf_text(hall: Hall) -> str:
    """``mosquitto.conf`` of the hall (Mosquitto 2.0)."""
    data = hall.dir / "data"
    queued = queue_limit(hall.boards)
    minutes, rate = QUEUE_MINUTES, MESSAGES_PER_BOARD_MINUTE
    sizing = f"max({hall.boards}, {QUEUE_MIN_BOARDS}) boards x {rate} x {minutes} min"
    return f"""\
# Mosquitto configuration of the damiera hall "{hall.hall}" ({hall.boards} boards), written by
# 'damiera hub init'. Run it with:  {broker_command(hall)}
# as the user who ran 'hub init', or as root (sudo).{_files_text(hall)}

{broker_user_text(hall)}
{_listener_text(hall)}
# The broker takes the client id from the user name: one session per user, so that no board,
# even with its own valid password, can take over the hub's session (or another board's) by
# connecting with its client id. The sessions stay fixed and persistent, as PROTOCOL.md asks.
use_username_as_clientid true

# Nobody without a user name and password from the file below.
allow_anonymous false
# hub and board-1 … board-{hall.boards}, hashed (PBKDF2-SHA512, Mosquitto 2's "$7$" format).
password_file {hall.dir / 'passwd'}
# Who may publish and subscribe to what: a board its own topics, the hub the whole hall.
acl_file {hall.dir / 'acl'}
# The broker's log goes to its output and to $SYS/broker/log/… (only the hub may read it): the
# hub reads there when a second client connects with a user's credentials ("already
# connected, closing old connection") and raises an alarm on the arbiter's console.
log_dest stderr
log_dest topic

# The queues of the persistent sessions (the hub's above all) and the retained states survive a
# broker restart: saved under {data}/ .
persistence true
persistence_location {data}/
# Saved every 10 s (and at a clean stop). A broker killed between two saves loses at most those
# seconds of queued messages: the hall's catch-up does not depend on them (the boards' journals
# are the outbox and the hub asks for what it misses, pi/hall/PROTOCOL.md).
autosave_interval 10

# The hub's session holds {minutes} minutes of the hall while the hub is away. A board
# publishes at most ~{rate} messages a minute (a ply every 15 s at a rapid pace, ~4 journal
# lines and a state each), so {sizing} = {queued} messages.
# Beyond that the broker drops what comes next for that client, and the hub's resend brings
# the lines back from the boards' journals.
max_queued_messages {queued}
# ... and at most 512 MiB per client (states are the heavy messages, ~20 kB each), whichever
# comes first: the broker's memory stays bounded however long the hub is away.
max_queued_bytes {QUEUE_MAX_BYTES}
# QoS 1 messages on their way to one client before its acknowledgements: 100 keeps a catch-up
# (a full queue, or a resend of a whole game) flowing at LAN speed.
max_inflight_messages 100
# A session not heard from in a day is dropped (a board taken away after the event, a renamed
# hall); a board back after that simply starts a new session and is asked for what is missing.
persistent_client_expiration 1d
# Small messages go out at once (latency from a board's move to the hall page).
set_tcp_nodelay true
"""


def _files_text(hall: Hall) -> str:
    files = broker_open_files(hall)
    if files is None:
        return ""
    return f"""
# The broker keeps a file open per client: {hall.boards} boards and the hub need more than the
# usual limit of {USUAL_OPEN_FILES} (past it, boards are refused). As a systemd service:
# LimitNOFILE={files} in its unit ('systemctl edit mosquitto')."""


def broker_user_text(hall: Hall) -> str:
    """The ``user`` line: who owns the password file and the broker's key (mode 0600) and its
    data: :attr:`Hall.broker_user` (``hub init`` run as root: ``mosquitto``), else the user who
    runs ``hub init``. Started as root, Mosquitto drops to the user named here (without the
    line to ``mosquitto``, who could read neither files of another user: "Unable to open
    pwfile"); started as any other user, the line has no effect."""
    if hall.broker_user is not None:
        return f"""\
# The broker runs as {hall.broker_user}, who owns the password file, the broker's key and data/
# ('hub init' was run as root and gave them to it), and only they may read them: started as
# root (sudo, or Debian's mosquitto service), Mosquitto drops its privileges to it; the folder
# {hall.dir} must be one {hall.broker_user} can reach.
user {hall.broker_user}
"""
    try:
        name = pwd.getpwuid(os.getuid()).pw_name
    except KeyError:  # a user id without a name (a container's): nobody to name
        return ("# This hall's files belong to a user id without a name: run the broker as that\n"
                "# user (started as root, Mosquitto would become 'mosquitto' and could not read\n"
                "# them).\n")
    return f"""\
# The password file and the broker's key belong to {name}, who ran 'hub init', and only they
# may read them. Started as root (sudo, as on a Pi), Mosquitto drops its privileges to the
# user named here (without this line to 'mosquitto', who could not read them); started as
# anyone else, it stays who it is.
user {name}
"""


def _listener_text(hall: Hall) -> str:
    if not hall.tls:
        return f"""\
# The boards and the hub connect here, on every interface of this machine: PLAIN MQTT, asked
# for with --plain-mqtt. Every password crosses the hall's network in clear: anyone on it can
# read them and publish as a board (docs/organiser.md, "Security"). 'hub init' without
# --plain-mqtt makes a TLS listener.
listener {hall.port}
"""
    d = hall.dir
    return f"""\
# The boards and the hub connect here, on every interface of this machine, over TLS (1.2 at
# least): the broker's certificate is signed by the hall's own CA ({CA_FILE}, made by
# 'hub init'), which the boards and the hub trust, and nobody else's.
listener {hall.port}
cafile {d / CA_FILE}
certfile {d / 'broker.crt'}
keyfile {d / 'broker.key'}
tls_version tlsv1.2
"""


def acl_text(hall: Hall) -> str:
    """The ACL: ``topic write``/``topic read`` per user; whatever is not granted is refused."""
    root = f"damiera/{hall.hall}"
    lines = [f"# Access of the damiera hall \"{hall.hall}\", written by 'damiera hub init'.",
             "# Mosquitto refuses whatever is not granted here: a publish outside a user's topics",
             "# is dropped, a subscription outside them is refused, anonymous clients get nothing.",
             "",
             "# The hub reads the whole hall and sends the boards their commands.",
             "user hub",
             f"topic read {root}/#",
             "# the broker's error log: a second connection with someone's credentials",
             "topic read $SYS/broker/log/E",
             f"topic write {root}/boards/+/cmd"]
    for n in range(1, hall.boards + 1):
        prefix = f"{root}/boards/{n}"
        lines += ["", f"user board-{n}",
                  *(f"topic write {prefix}/{leaf}" for leaf in ("state", "status", "journal", "ack")),
                  f"topic read {prefix}/cmd"]
    return "\n".join(lines) + "\n"


def passwd_text(hall: Hall) -> str:
    """The password file: ``user:$7$…`` a line."""
    return "".join(f"{user}:{hash_password(pw)}\n" for user, pw in hall.passwords.items())


def _toml(text: str) -> str:
    return json.dumps(text)  # a TOML basic string (JSON's escapes are TOML's)


def hub_toml_text(hall: Hall) -> str:
    """``hub.toml``: the hall's name, the hub's broker URL and CA, every board's key (the rest
    commented out)."""
    ca = f"ca = {_toml(CA_FILE)}\n" if hall.tls else ""
    keys = "".join(f"{_toml(str(n))} = {_toml(k)}\n" for n, k in hall.keys.items())
    return f"""\
# The hub of the damiera hall "{hall.hall}", written by 'damiera hub init'. Secret: it holds the
# hub's broker password and every board's signing key. Run:
#   damiera hub --config {hall.dir / 'hub.toml'} --http 0.0.0.0:8090 --state-dir DIR
hall = {_toml(hall.hall)}
# The event's name, shown on the hall page and in the round feeds.
# event = "…"
# Minutes the public feeds lag behind the boards (anti-cheating rules ask for 15).
# broadcast_delay = 0
# Where the hall page, the feeds and the arbiter console are served (or --http).
# http = "0.0.0.0:8090"
# The replicas of every board's journal and the hub's files (or --state-dir).
# state_dir = "/var/lib/damiera-hub"
# Boards whose journal lines are taken unsigned (boards without a key: older versions);
# every other board's lines must verify with its key below, or they are refused.
# accept_unsigned = ["12"]
{_nchan_toml(hall)}
# The standings page (/standings): points for a win, a draw and a loss (COMP 6.14), then the
# tie-breaks in their order (COMP 6.21 b; also "wins" and "direct-encounter").
# [standings]
# points = "2-1-0"
# tie_break = ["buchholz", "sonneborn-berger"]
[mqtt]
# The broker, with the hub's user and password, and the hall's CA (beside this file).
url = {_toml(hall.url('hub'))}
{ca}
[keys]
# Each board's signing key (the same as [mqtt] key in its board-<n>.toml).
{keys}"""


def _nchan_toml(hall: Hall) -> str:
    if hall.web is None:
        return ""
    return f"""# nginx's nchan publisher ({hall.dir / 'nginx.conf'}): the hub publishes its public live
# streams there, nginx serves them to the spectators past the hall's network.
nchan = {_toml(hall.web.nchan_url)}
# nginx asks the hub from 127.0.0.1 and says in X-Real-IP who asked it: the arbiter's wrong
# tokens are throttled and logged per address, not all as nginx's.
behind_nginx = true
"""


def web_spec(hall: Hall, listen: str | None, cert: str | None, key: str | None,
             hub: str | None, nchan_port: int | None, root: str | None) -> WebSpec:
    """``--nginx``'s options checked: ``listen`` (``[HOST:]PORT``; default 443 with a
    certificate, 80 without), the organiser's ``cert`` and ``key`` (both or neither; neither:
    the hall's own, ``broker.crt`` and ``broker.key``; none with ``--plain-mqtt``), where the
    hub serves, nchan's port, and nginx's own folder (None: Debian's). Raises HallInitError."""
    if (cert is None) != (key is None):
        raise HallInitError("--web-cert and --web-key go together (the organiser's certificate "
                            "and its key), or neither (the hall's own)")
    cert_path = key_path = None
    if cert is not None and key is not None:
        cert_path, key_path = Path(cert).absolute(), Path(key).absolute()
        for option, path in (("--web-cert", cert_path), ("--web-key", key_path)):
            if not path.is_file():
                raise HallInitError(f"{option}: no such file: {excerpt(str(path))}")
    elif hall.tls:
        cert_path, key_path = hall.dir / "broker.crt", hall.dir / "broker.key"
    port_text = listen or ("443" if cert_path is not None else "80")
    host, _, port = port_text.rpartition(":")
    if not port.isdigit() or not 1 <= int(port) <= 65535 or (
            host and _HOSTNAME.fullmatch(host.strip("[]")) is None
            and not _is_ip(host.strip("[]"))):
        raise HallInitError(f"--web-listen: [HOST:]PORT (e.g. 443 or 0.0.0.0:443): "
                            f"{excerpt(port_text)}")
    hub_text = hub or HUB_HTTP
    hub_host, _, hub_port = hub_text.rpartition(":")
    if not hub_port.isdigit() or not 1 <= int(hub_port) <= 65535 or not hub_host:
        raise HallInitError(f"--hub-http: HOST:PORT, where the hub serves: {excerpt(hub_text)}")
    if hub_host in ("0.0.0.0", "[::]"):  # the hub listens everywhere: nginx asks on loopback
        hub_text = f"{'127.0.0.1' if hub_host == '0.0.0.0' else '[::1]'}:{hub_port}"
    nchan = NCHAN_PORT if nchan_port is None else nchan_port
    if not 1 <= nchan <= 65535:
        raise HallInitError(f"--nchan-port: {nchan} is out of range 1..65535")
    if any(ord(c) < 32 or c in ';{}"' for c in f"{cert_path}{key_path}{root or ''}"):
        raise HallInitError("--web-cert, --web-key, --nginx-root: not usable in nginx.conf "
                            "(control characters, quotes, braces or semicolons)")
    return WebSpec(port_text, cert_path, key_path, hub_text, nchan,
                   None if root is None else Path(root).absolute())


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def board_toml_text(hall: Hall, board: int) -> str:
    """``board-<n>.toml``: a damiera.toml for board ``board`` of the hall."""
    name = f"board-{board}.toml"
    ca = f"ca = {_toml(CA_FILE)}\n" if hall.tls else ""
    ca_note = f",\n# with {CA_FILE} beside it" if hall.tls else ""
    ca_what = f", and the hall's CA ({CA_FILE}, beside this file)" if hall.tls else " (plain MQTT)"
    return f"""\
# Board {board} of the damiera hall "{hall.hall}", written by 'damiera hub init'. Secret: it
# holds this board's broker password and its signing key. A damiera.toml (keys in
# pi/damiera.example.toml): install it on the board with
#   sudo systemd/install-pi.sh --config {name}
# (it becomes /etc/damiera/damiera.toml, root:damiera 0640: the service reads it, nobody else){ca_note}.
# Add the game's keys (variant, time_control, …) if need be, and run the board with it:
#   damiera run --config {hall.dir / name}
# or try it on a PC with the simulated board:
#   damiera run --config {hall.dir / name} --simulate --trace GAME.jsonl
board = {board}

[mqtt]
# The broker, with this board's user and password{ca_what}.
url = {_toml(hall.url(f'board-{board}'))}
hall = {_toml(hall.hall)}
{ca}# This board's own key: it signs every journal line for the hub; it never crosses the network.
key = {_toml(hall.keys[board])}
"""


def _existing(directory: Path) -> list[Path]:
    """The files of a hall already in ``directory``."""
    found = [directory / name for name in _FILES if (directory / name).exists()]
    if directory.is_dir():
        found += sorted(p for p in directory.iterdir() if _BOARD_FILE.fullmatch(p.name))
    return found


def write_hall(hall: Hall, force: bool = False) -> list[Path]:
    """Writes the hall's files into ``hall.dir`` (created if need be) and returns their paths.
    Refuses (HallInitError) when a hall is already there, unless ``force``: then its files are
    replaced and board files beyond ``hall.boards`` removed. OS errors are HallInitErrors."""
    d = hall.dir
    try:
        existing = _existing(d)
        if existing and not force:
            raise HallInitError(f"{d}: a hall is already there ({existing[0].name}); new "
                                "passwords would lock out the boards configured with it "
                                "(--force to replace it)")
        d.mkdir(parents=True, exist_ok=True)
        (d / "data").mkdir(exist_ok=True)
        if hall.web is not None and hall.web.root is not None:  # nginx's own folder (--nginx-root)
            (hall.web.root / "tmp").mkdir(parents=True, exist_ok=True)
        written: list[Path] = []

        def put(name: str, text: str, mode: int) -> None:
            atomic_write(d / name, text, mode=mode)
            written.append(d / name)

        if hall.tls:
            written += make_certs(hall)
        put("passwd", passwd_text(hall), 0o600)
        put("acl", acl_text(hall), 0o644)
        put("hub.toml", hub_toml_text(hall), 0o600)
        if hall.web is not None:
            put("nginx.conf", nginx_conf_text(hall.web, hall.hall), 0o644)
        elif (d / "nginx.conf").exists():  # --force without --nginx: its hub.toml has no nchan
            (d / "nginx.conf").unlink()
        for n in range(1, hall.boards + 1):
            put(f"board-{n}.toml", board_toml_text(hall, n), 0o600)
        for stale in existing:  # --force with fewer boards: their passwords are gone
            m = _BOARD_FILE.fullmatch(stale.name)
            if m is not None and int(m.group(1)) > hall.boards:
                stale.unlink()
        if hall.broker_user is not None:  # the broker's own files: its user's (0600 stays)
            owner = pwd.getpwnam(hall.broker_user)
            for path in (d / "passwd", d / "broker.key", d / "data", *(d / "data").iterdir()):
                if path.exists():
                    os.chown(path, owner.pw_uid, owner.pw_gid)
        put("mosquitto.conf", conf_text(hall), 0o644)  # last: a hall is whole once it is there
    except OSError as exc:
        raise HallInitError(f"{d}: cannot write the hall ({exc.strerror or exc})") from None
    except subprocess.SubprocessError as exc:
        raise HallInitError(f"openssl failed to make the hall's certificates: {exc}"[:300]) \
            from None
    log.info("hall %s: %d boards written to %s", hall.hall, hall.boards, d)
    return written


def main_init(args: argparse.Namespace) -> int:
    """``damiera hub init``: writes the hall and prints what to run (in the terminal's
    language, the commands as they are). Raises HallInitError."""
    if args.boards is None:
        raise HallInitError("--boards N is needed (a hall of N boards; or --bridge HOST: a room "
                            "of the hall in --dir)")
    tls = not bool(getattr(args, "plain_mqtt", False))
    # Run as root, the broker's files are Mosquitto's own user's, who the broker becomes when
    # started as root: never root itself (docs/organiser.md).
    hall = make_hall(args.boards, args.dir, port=args.port, hall=args.hall, host=args.host,
                     tls=tls,
                     broker_user=BROKER_USER if os.getuid() == 0 else None)
    if getattr(args, "nginx", False):
        hall = replace(hall, web=web_spec(
            hall, args.web_listen, args.web_cert, args.web_key, args.hub_http, args.nchan_port,
            args.nginx_root))
    elif any(value is not None for value in (
            args.web_listen, args.web_cert, args.web_key, args.hub_http, args.nchan_port,
            args.nginx_root)):
        raise HallInitError("--web-listen, --web-cert, --web-key, --hub-http, --nchan-port and "
                            "--nginx-root are nginx's: give --nginx too")
    write_hall(hall, force=bool(getattr(args, "force", False)))
    out = sys.stdout
    t = translations(environment_language(os.environ))
    print(t.ngettext("hall {hall}: {n} board, broker {broker}, in {dir}",
                     "hall {hall}: {n} boards, broker {broker}, in {dir}", hall.boards).format(
        hall=hall.hall, n=hall.boards, broker=f"{hall.host}:{hall.port}", dir=hall.dir), file=out)
    print(f"  broker: {broker_command(hall)}", file=out)
    files = broker_open_files(hall)
    if files is not None:
        print("          " + t.gettext(
            "(the broker keeps a file open per client; as a service: LimitNOFILE={files})"
        ).format(files=files), file=out)
    print(f"  hub:    damiera hub --config {hall.dir / 'hub.toml'} --http HOST:PORT "
          "--state-dir DIR", file=out)
    print(f"          sudo systemd/install-hub.sh --hall {hall.dir} "
          + t.gettext("(the hub as a service on this PC, from damiera's checkout)"), file=out)
    if hall.web is not None:
        print(f"  nginx:  sudo install -m 0644 {hall.dir / 'nginx.conf'} /etc/nginx/nginx.conf "
              "&& sudo systemctl reload nginx", file=out)
    print(f"  boards: damiera run --config {hall.dir}/board-<n>.toml "
          + t.gettext("(copy each to its board)"), file=out)
    if hall.tls:
        print("  tls:    " + t.gettext("copy {file} beside each board-<n>.toml").format(
            file=hall.dir / CA_FILE), file=out)
    else:
        print("  WARNING: " + t.gettext("plain MQTT (--plain-mqtt): passwords cross the network "
                                        "in clear"), file=out)
    return 0
