"""``DIR/nginx.conf``, written by ``damiera hub init --nginx``: Debian's nginx (with
``libnginx-mod-nchan``) in front of the hub for the spectators past the hall's network
(docs/organiser.md, "Spectators past the hall's network").

- The pages, their scripts and the PDN feeds are cached a second (``proxy_cache_valid``), one
  request to the hub per second and URL however many ask at once (``proxy_cache_lock``), then
  revalidated by ``ETag`` (the hub answers ``If-None-Match`` with 304: only what changed
  crosses).
- The live streams (``/events``, ``/boards/<N>/events``) are nchan's: the hub publishes each
  event once (``pi.hall.nchan``) to a publisher listening on loopback only, and nchan serves
  every subscriber as EventSource at the URLs the pages use.
- The arbiter's requests (the token's header or its login cookie) are never cached and their
  streams are the hub's own (flags, alarms, the live truth).
- Every request forwarded says who asked (``X-Real-IP $remote_addr``, set, not appended): the
  hub (``behind_nginx``) throttles and logs wrong tokens per spectator, not all as 127.0.0.1.
- TLS with the hall's certificate (``broker.crt``, signed by the hall's CA) or the organiser's
  own (``--web-cert``/``--web-key``, one the spectators' browsers trust).

A complete nginx configuration (the module loaded, the limits on connections and open files
for thousands of spectators): it replaces ``/etc/nginx/nginx.conf`` on the machine that serves
the hall to the outside, or runs as a second nginx (``nginx -c DIR/nginx.conf``) with
``--nginx-root``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pi.board.config import BOARD_PATTERN

__all__ = ["WebSpec", "nginx_conf_text", "NCHAN_MODULE", "WORKER_CONNECTIONS", "OPEN_FILES"]

#: Debian's nchan module (``libnginx-mod-nchan``).
NCHAN_MODULE = "/usr/lib/nginx/modules/ngx_nchan_module.so"
#: Connections per nginx worker: spectators, their feeds' keep-alive connections, the hub's.
WORKER_CONNECTIONS = 16384
#: Open files per worker (a connection is one, a cached file another).
OPEN_FILES = 65536


@dataclass(frozen=True)
class WebSpec:
    """nginx in front of the hub: where it listens for spectators (``listen``: ``[HOST:]PORT``),
    its certificate and key (None: plain HTTP), where the hub serves (``hub``: ``HOST:PORT``),
    the nchan publisher's loopback port, and ``root`` (None: Debian's places for the pid, logs,
    cache and temporary files; a folder: all of them under it)."""

    listen: str
    cert: Path | None
    key: Path | None
    hub: str
    nchan_port: int
    root: Path | None = None

    @property
    def nchan_url(self) -> str:
        """``hub.toml``'s ``nchan``."""
        return f"http://127.0.0.1:{self.nchan_port}"


def _places(root: Path | None) -> dict[str, str]:
    if root is None:
        return {"pid": "/run/nginx.pid", "error_log": "/var/log/nginx/error.log",
                "access_log": "/var/log/nginx/access.log", "cache": "/var/cache/nginx/damiera",
                "temp": "/var/lib/nginx"}
    return {"pid": str(root / "nginx.pid"), "error_log": str(root / "error.log"),
            "access_log": str(root / "access.log"), "cache": str(root / "cache"),
            "temp": str(root / "tmp")}


def nginx_conf_text(web: WebSpec, hall: str, board_pattern: str = BOARD_PATTERN) -> str:
    """The whole ``nginx.conf`` (module docstring) for hall ``hall``; its board locations match
    a board's number only, as the hub reads it (``pi.board.config.BOARD_PATTERN``)."""
    p = _places(web.root)
    tls = web.cert is not None and web.key is not None
    if tls:
        listen = f"""        listen {web.listen} ssl;
        ssl_certificate {web.cert};
        ssl_certificate_key {web.key};
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:damiera_tls:10m;"""
    else:
        listen = f"""        # PLAIN HTTP: no certificate was given ('hub init --plain-mqtt' makes none; give
        # --web-cert and --web-key for TLS).
        listen {web.listen};"""
    cached = (r"~ ^(/|/arbiter|/standings|/boards/[^/]+/|/static/.*|/hall/.*|/i18n/.*|/api/hall"
              r"|/api/standings|.*\.pdn)$")
    return f"""\
# nginx in front of the damiera hall "{hall}", written by 'damiera hub init --nginx'
# (docs/organiser.md, "Spectators past the hall's network"). Debian's nginx with
# libnginx-mod-nchan; a whole configuration: as /etc/nginx/nginx.conf, or run beside it with
#   nginx -c {{this file}}
# The hub serves at {web.hub} and publishes its live streams to nchan at {web.nchan_url}
# (hub.toml's nchan).
load_module {NCHAN_MODULE};
user www-data;
worker_processes auto;
# a spectator's connection is a file, its feed's keep-alive connection another
worker_rlimit_nofile {OPEN_FILES};
pid {p["pid"]};
error_log {p["error_log"]} warn;

events {{
    worker_connections {WORKER_CONNECTIONS};
}}

http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {p["access_log"]};
    client_body_temp_path {p["temp"]}/body;
    proxy_temp_path {p["temp"]}/proxy;
    fastcgi_temp_path {p["temp"]}/fastcgi;
    uwsgi_temp_path {p["temp"]}/uwsgi;
    scgi_temp_path {p["temp"]}/scgi;
    sendfile on;
    tcp_nodelay on;
    keepalive_timeout 65;
    server_tokens off;

    # The pages and feeds, a second each: one request per URL and second reaches the hub,
    # however many spectators ask, then the hub is asked whether it changed (ETag: a 304).
    proxy_cache_path {p["cache"]} levels=1:2 keys_zone=damiera:16m max_size=256m inactive=10m
                     use_temp_path=off;

    # The arbiter (the token's header or the login cookie): never cached, the hub's own streams.
    map "$http_authorization$cookie_damiera_arbiter" $damiera_arbiter {{
        "" 0;
        default 1;
    }}

    upstream damiera_hub {{
        server {web.hub};
        keepalive 32;
    }}

    # nchan's publisher: the hub's only, on loopback.
    server {{
        listen 127.0.0.1:{web.nchan_port};
        access_log off;
        location = /pub/hall {{
            nchan_publisher;
            nchan_channel_id hall;
            # a page opening /events gets the last seconds (it loaded /api/hall just before)
            nchan_message_timeout 10s;
            nchan_message_buffer_length 4096;
        }}
        location ~ "^/pub/board-({board_pattern})$" {{
            nchan_publisher;
            nchan_channel_id "board-$1";
            # each line's events end with the board's whole state: a page opening the stream
            # gets the last few (a state among them), then the events after them
            nchan_message_timeout 0;
            nchan_message_buffer_length 8;
        }}
        location / {{
            return 404;
        }}
    }}

    server {{
{listen}
        server_name _;
        client_max_body_size 1m;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host $host;
        # who asked, for the hub's throttle of wrong tokens and its log (hub.toml's
        # behind_nginx): nginx's own value, any the client sent replaced
        proxy_set_header X-Real-IP $remote_addr;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Forwarded-Proto $scheme;

        # the live streams: nchan, the arbiter's the hub's
        location = /events {{
            if ($damiera_arbiter) {{
                rewrite ^ /_hub$uri last;
            }}
            nchan_subscriber eventsource;
            nchan_channel_id hall;
            nchan_subscriber_first_message oldest;
            nchan_eventsource_ping_interval 15;
        }}
        location ~ "^/boards/({board_pattern})/events$" {{
            if ($damiera_arbiter) {{
                rewrite ^ /_hub$uri last;
            }}
            nchan_subscriber eventsource;
            nchan_channel_id "board-$1";
            # what the channel holds (not "-1": nchan 1.3.6 asserts and its worker dies when
            # several subscribers wait so on a channel not yet published to)
            nchan_subscriber_first_message oldest;
            nchan_eventsource_ping_interval 15;
            # tells the hub a spectator came: it publishes that board while anyone watches
            nchan_subscribe_request /_watch/$1;
        }}
        location ~ "^/_watch/({board_pattern})$" {{
            internal;
            proxy_pass http://damiera_hub/nchan/watch/$1;
        }}
        location /_hub/ {{
            internal;
            rewrite ^/_hub(/.*)$ $1 break;
            proxy_pass http://damiera_hub;
            proxy_buffering off;
            proxy_read_timeout 1h;
        }}

        # the pages, their scripts and the feeds: cached a second, revalidated by ETag
        location {cached} {{
            proxy_pass http://damiera_hub;
            proxy_cache damiera;
            proxy_cache_valid 200 1s;
            proxy_cache_lock on;
            proxy_cache_lock_timeout 5s;
            proxy_cache_revalidate on;
            proxy_cache_use_stale updating error timeout;
            # the hub says no-cache to browsers (they revalidate too); nginx keeps its second
            proxy_ignore_headers Cache-Control Expires;
            proxy_cache_bypass $damiera_arbiter;
            proxy_no_cache $damiera_arbiter;
            add_header X-Cache-Status $upstream_cache_status always;
        }}

        # everything else (the console's actions, the arbiter's files): the hub, as it answers
        location / {{
            proxy_pass http://damiera_hub;
            proxy_buffering off;
            proxy_read_timeout 1h;
        }}
    }}
}}
"""
