"""``damiera hub`` (the hall's hub: ``pi.hall.hub_run``), ``damiera hub init`` (a hall's broker
configuration, passwords, ACL and the hub's and boards' configuration files:
``pi.hall.hub_init``; with ``--bridge``, a room's broker bridged to the hub's:
``pi.hall.hub_bridge``) and ``damiera hub demo`` (a hall on one PC: ``pi.hall.hub_demo``). The
parsers only; each command's module is imported when it runs."""

from __future__ import annotations

import argparse
from importlib import import_module
from typing import Any

from pi.hall.errors import HallInitError

__all__ = ["add_hub_parser"]


def add_hub_parser(sub: Any, whole: Any) -> None:
    h = sub.add_parser("hub", help="the hall's hub: every board's journal replicated, hall page, "
                       "round feeds, arbiter console ('hub init' writes a hall's configuration)")
    h.add_argument("--config", default=None, help="hub.toml (written by 'damiera hub init'; "
                   "default: none, then --mqtt and --state-dir are needed)")
    h.add_argument("--mqtt", default=None, metavar="URL",
                   help="the broker, mqtt://[user@]host[:port] (default: --config's [mqtt] "
                        "url); a password here (user:password@) is visible to every user of "
                        "the machine (ps): give it with --mqtt-password-file or in --config")
    h.add_argument("--mqtt-password-file", default=None, metavar="FILE",
                   help="the broker password: the one line of FILE (mode 0600), for the user "
                        "of the broker's URL (default: the URL's or --config's, else none)")
    h.add_argument("--http", default=None, metavar="HOST:PORT",
                   help="serve the hall page, the boards' pages, the feeds and the console here "
                        "(default: --config's http, else 127.0.0.1:8080)")
    h.add_argument("--state-dir", default=None, metavar="DIR",
                   help="the replicas (DIR/boards/<N>/games/<id>/trace.jsonl) and the hub's files "
                        "(default: --config's state_dir)")
    h.add_argument("--accept-unsigned", action="append", default=None, metavar="BOARD",
                   help="take this board's journal lines unsigned (a board without a key; "
                   "repeat for each; adds to hub.toml's accept_unsigned; default: none)")
    h.add_argument("--quiet", action="store_true", help="log warnings only")
    h.set_defaults(func=_cmd_hub)
    hs = h.add_subparsers(dest="hub_command", required=False, parser_class=type(h),
                          title="subcommand", metavar="[init|demo]",
                          help="first, on the hall's PC: write the hall's files ('damiera hub "
                               "init --help'); without it, run the hub")
    i = hs.add_parser("init", help="write a hall's mosquitto.conf, passwd, acl, hub.toml and "
                      "board-<N>.toml")
    i.add_argument("--boards", type=whole, default=None, help="how many boards (1..9999; "
                   "needed, but with --bridge)")
    i.add_argument("--dir", required=True, help="the folder to write the files in (with "
                   "--bridge: the hall's, made before)")
    i.add_argument("--port", type=whole, default=None, help="the broker's port (default 8883; "
                   "1883 with --plain-mqtt; with --bridge the room's broker's)")
    i.add_argument("--hall", default="hall", help="the hall's name, a topic segment "
                   "(letters, digits, . _ -; default 'hall')")
    i.add_argument("--host", default=None, help="the broker's address as boards reach it "
                   "(default: this machine's host name; with --bridge the room's broker's)")
    i.add_argument("--force", action="store_true", help="replace a hall already in --dir (its "
                   "boards' passwords stop working: give them their new board-<N>.toml)")
    i.add_argument("--plain-mqtt", action="store_true", help="a plain MQTT listener instead of "
                   "TLS: every password crosses the hall's network in clear (the hub warns)")
    i.add_argument("--nginx", action="store_true", help="also write DIR/nginx.conf: nginx "
                   "(Debian's, with libnginx-mod-nchan) in front of the hub for spectators past "
                   "the hall's network, pages and feeds cached, live streams fanned out by "
                   "nchan; and hub.toml's nchan, where the hub publishes them")
    i.add_argument("--web-listen", default=None, metavar="[HOST:]PORT",
                   help="--nginx: where nginx serves the spectators (default 443; 80 without "
                   "a certificate)")
    i.add_argument("--web-cert", default=None, metavar="FILE",
                   help="--nginx: the organiser's certificate for the spectators' browsers, "
                   "with --web-key (default: the hall's own, broker.crt, signed by the hall's "
                   "CA; none with --plain-mqtt: plain HTTP)")
    i.add_argument("--web-key", default=None, metavar="FILE", help="--nginx: its key")
    i.add_argument("--hub-http", default=None, metavar="HOST:PORT",
                   help="--nginx: where the hub serves, as its --http (default 127.0.0.1:8090)")
    i.add_argument("--nchan-port", type=whole, default=None, metavar="PORT",
                   help="--nginx: nchan's publisher on 127.0.0.1 (default 8091)")
    i.add_argument("--nginx-root", default=None, metavar="DIR",
                   help="--nginx: nginx's pid, logs, cache and temporary files under DIR, for an "
                   "nginx run beside the system's (default: Debian's places)")
    i.add_argument("--bridge", default=None, metavar="HOST[:PORT]",
                   help="instead of a hall, a room of the hall in --dir: its own broker "
                   "(DIR/rooms/ROOM/mosquitto.conf, its boards' board-<N>.toml) bridged to the "
                   "hub's broker at HOST (port: the hall's), over TLS with the hall's CA, as "
                   "the user bridge-ROOM (added to the hall's passwd and acl: the room's board "
                   "topics only); --host, --port: the room's broker (default: none, a hall)")
    i.add_argument("--room", default=None, metavar="NAME", help="with --bridge: the room's "
                   "name (letters, digits, . _ -)")
    i.add_argument("--room-boards", default=None, metavar="LIST", help="with --bridge: the "
                   "room's boards, e.g. 1-20,25 (default: every board of the hall)")
    i.set_defaults(func=_cmd_hub_init)
    d = hs.add_parser("demo", help="a whole hall on this PC: hub init, mosquitto, the hub and "
                      "simulated boards playing; Ctrl-C stops them all")
    d.add_argument("--boards", type=whole, required=True, help="how many simulated boards "
                   "(1..200)")
    d.add_argument("--dir", default="hall-demo", help="the hall's files, the replicas "
                   "(DIR/hub) and the boards' journals (DIR/boards); a hall already there is "
                   "used again (default ./hall-demo)")
    d.add_argument("--http", default="127.0.0.1:8090", metavar="HOST:PORT",
                   help="the hall page and the arbiter console (default 127.0.0.1:8090)")
    d.add_argument("--broker-port", type=whole, default=None, metavar="PORT",
                   help="the broker's port for a new hall (default 8883, or a free one when "
                        "8883 is taken); a hall already in --dir keeps its own")
    d.add_argument("--speed", default="1", help="game seconds per wall second (default 1: "
                   "games at a real player's pace)")
    d.add_argument("--verbose", action="store_true", help="log the hub's work (INFO)")
    d.set_defaults(func=_cmd_hub_demo)


def _cmd_hub(args: argparse.Namespace) -> int:
    return int(import_module("pi.hall.hub_run").main_hub(args))


def _cmd_hub_demo(args: argparse.Namespace) -> int:
    return int(import_module("pi.hall.hub_demo").main_demo(args))


def _cmd_hub_init(args: argparse.Namespace) -> int:
    if args.bridge is not None:  # a room of a hall (pi.hall.hub_bridge)
        return int(import_module("pi.hall.hub_bridge").main_bridge(args))
    if args.room is not None or args.room_boards is not None:
        raise HallInitError("--room and --room-boards make a room: they go with --bridge HOST")
    return int(import_module("pi.hall.hub_init").main_init(args))
