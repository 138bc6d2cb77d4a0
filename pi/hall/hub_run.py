"""``damiera hub``: the hall's hub process (``pi/hall/PROTOCOL.md``, ``pi/hall/HUB_API.md``).

Reads ``hub.toml`` (or the command line), finds the replicas, serves HTTP, connects to the
broker, reads the live games back a board at a time (the pages and the link answer meanwhile) and
runs until SIGTERM/SIGINT. A bad configuration, an HTTP address that cannot be had or a state
directory another hub holds (``DIR/lock``) is one line on stderr and exit 2; a broker that is
not up yet is retried, never fatal.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import resource
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import StateError
from pi.board.notify import Notifier, keep_told
from pi.board.statedir import lock_state_dir
from pi.hall.collector import Collector
from pi.hall.hub import TICK, Hub
from pi.hall.hub_config import HubConfig, hub_config_from_args
from pi.hall.rounds import round_order

if TYPE_CHECKING:
    from pi.hall.mqttlink import MqttLink
    from pi.hall.nchan import NchanFeed
    from pi.web.server import LiveFeeds

log = logging.getLogger(__name__)

__all__ = ["main_hub", "run_hub", "HubApp", "warn_insecure"]


class HubApp:
    """The hub's parts started and stopped together (tests run it in-process). ``tick``: the
    hall server's tick (:class:`pi.hall.hall_http.HallServer`)."""

    def __init__(self, config: HubConfig, *, tick: float = TICK) -> None:
        from pi.hall.hall_http import HallServer
        assert config.state_dir is not None
        self.config = config
        self.root = Path(config.state_dir)
        self.root.mkdir(parents=True, exist_ok=True)
        # one hub per state directory (issue 38: two both ran and wrote every replica line
        # twice), the board's lock
        self._lock: int | None = lock_state_dir(
            self.root, "in use by another hub (one hub per state directory: two would write "
            "every replica line twice); stop it first")
        self.hub = Hub(config, self.root)
        self.server = HallServer(self.hub, config.http.host, config.http.port, tick=tick)
        self.link: MqttLink | None = None  # imported when started (paho)
        #: the public live streams published to nginx's nchan (hub.toml's ``nchan``)
        self.nchan: NchanFeed | None = None
        if config.nchan is not None:
            from pi.hall.nchan import NchanFeed, NchanPublisher
            self.nchan = NchanFeed(NchanPublisher(config.nchan), self.server.hall_clients,
                                   self._feeds_of)
            self.nchan.routes(self.server.app)
            self.hub.listeners.append(self.nchan.on_board)
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        from pi.hall.mqttlink import MqttLink
        # the live games are read back once the hub listens and is linked (Hub.read_back): the
        # hall page shows the boards as they are read, the console and the link answer at once
        self.hub.load(read_back=False)
        self.server.pairings.load()
        for _, board in self.server.pairings.rows:
            self.hub.board(board)
        # the pairings of the round started last go to its boards again when each is next
        # seen online (the hub cannot know whether a board had its pairing before it stopped);
        # later rounds wait for the arbiter's start
        self.hub.rounds.load()
        for ws in self.hub.servers.values():
            ws.start_feeds()
        await self.server.start()
        if self.nchan is not None:
            await self.nchan.start()
        loop = asyncio.get_running_loop()
        assert self.config.mqtt is not None
        warn_insecure(self.config)
        self.link = MqttLink(self.config.mqtt, self.config.hall, loop, self.hub.deliver,
                             self.hub.connected)
        self.hub.publish = self.link.publish
        self.link.start()
        self._tasks = [asyncio.ensure_future(self.hub.read_back()),
                       asyncio.ensure_future(self.hub.sync_loop()),
                       asyncio.ensure_future(self.server.tick_loop())]

    def _feeds_of(self, board: int) -> LiveFeeds | None:
        server = self.hub.servers.get(board)
        return None if server is None else server.feeds

    @property
    def port(self) -> int:
        return self.server.port

    def status(self) -> str:
        """One line for systemd's ``STATUS=`` (``systemctl status damiera-hub``): where it
        serves, whether the broker is linked, the boards online, the read-back's progress."""
        linked = self.link is not None and self.link.subscribed.is_set()
        views = self.hub.views.values()
        parts = [f"http {self.server.host}:{self.port}",
                 "broker linked" if linked else "broker not linked (retrying)",
                 f"{sum(1 for v in views if v.online)} of {len(views)} boards online"]
        reading = self.hub.reading_back()
        if reading is not None:
            parts.append(f"reading the games back: {reading['boards']} of {reading['of']} boards")
        return "; ".join(parts)

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        if self.link is not None:
            self.link.stop()
        if self.nchan is not None:
            await self.nchan.stop()
        await self.server.stop()
        self.hub.close()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


def warn_insecure(config: HubConfig) -> None:
    """The hub's warnings at start about what leaves the hall open (docs/organiser.md,
    "Security"): a plain MQTT broker, boards taken unsigned."""
    if config.mqtt is not None and not config.mqtt.tls:
        log.warning("PLAIN MQTT to %s: every board's password crosses the hall's network in "
                    "clear; anyone on it can publish as a board (signed journal lines are "
                    "still checked). 'damiera hub init' without --plain-mqtt makes a TLS hall",
                    config.mqtt.url)
    if config.accept_unsigned:
        log.warning("boards taken UNSIGNED (accept_unsigned): %s; their lines cannot be told "
                    "from forgeries", ", ".join(map(str, sorted(config.accept_unsigned))))


def raise_open_files() -> None:
    """The process's soft limit on open files raised to its hard limit (at most 65,536): the
    replica keeps a file open per board in play (``pi.hall.replica.MAX_OPEN``, a quarter of
    the limit), the HTTP side a socket per page."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 65_536 if hard == resource.RLIM_INFINITY else min(hard, 65_536)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
        except (ValueError, OSError) as exc:
            log.warning("the limit on open files stays %d (%s)", soft, exc)


async def run_hub(config: HubConfig) -> None:
    """The hub until SIGTERM/SIGINT. Under systemd (``systemd/damiera-hub.service``, ``Type=
    notify``): READY=1 once it listens and its link is started — the read-back follows, the
    pages answer meanwhile — then STATUS= (:meth:`HubApp.status`) and WATCHDOG=1 from the loop,
    STOPPING=1 at the end."""
    app = HubApp(config)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    raise_open_files()
    notifier = Notifier(unset_environment=True)
    await app.start()
    said = app.status()
    notifier.ready(said)
    told = asyncio.ensure_future(keep_told(notifier, app.status, said))
    # young collections only, survivors frozen, the whole heap when the hall is quiet
    # (pi.hall.collector): what the start reads back is frozen as it comes, never walked again
    collector = Collector()
    collector.install()
    full = asyncio.ensure_future(collector.run(app.hub.idle))
    try:
        await stop.wait()
    finally:
        notifier.stopping("stopping")
        full.cancel()
        told.cancel()
        await app.stop()
        notifier.close()


def round_key(rnd: str) -> tuple[int, float, str]:
    """Rounds in their order (``pi.hall.rounds.round_order``)."""
    return round_order(rnd)


def main_hub(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING if args.quiet else logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    # a bad configuration (ConfigError) or an address that cannot be had (WebError) is a
    # DamieraError: the command line prints its one line (exit 2)
    config = hub_config_from_args(args.config, args.mqtt, args.http, args.state_dir,
                                  getattr(args, "accept_unsigned", None),
                                  getattr(args, "mqtt_password_file", None))
    try:
        asyncio.run(run_hub(config))
    except OSError as exc:  # the state directory cannot be made or written
        raise StateError(f"hub: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")) from None
    return 0
