"""``damiera hub demo --boards N [--dir DIR] [--http HOST:PORT] [--broker-port P] [--speed X]``:
a whole hall on one PC, made and started as docs/organiser.md tells an organiser to.

1. ``damiera hub init --boards N --dir DIR --host 127.0.0.1`` (a TLS hall; skipped when ``DIR``
   already holds a hall of at least N boards: its replicas and journals grow on). The broker's
   port is ``--broker-port``, else 8883, or one the system gives when 8883 is taken; a hall
   already in ``DIR`` keeps the port its files name (another ``--broker-port`` is refused).
2. ``mosquitto -c DIR/mosquitto.conf``, the file unchanged, as a child process (its output in
   ``DIR/mosquitto.log``). Its port taken by another program (another broker: the hub would
   meet a server its certificate does not name) stops the demo with one line before anything
   starts (issue 37).
3. The hub (``damiera hub --config DIR/hub.toml --http HOST:PORT --state-dir DIR/hub``), in
   this process: the replicas are ``DIR/hub/boards/<N>/games/<id>/trace.jsonl``.
4. N simulated boards (``hardware_mocks.hall_fleet``, found through the ``damiera.hall_fleet``
   entry point as ``damiera run --simulate`` finds its simulator: ``pi`` never imports
   ``hardware_mocks``), each logged in with its ``DIR/board-<N>.toml``, playing natural games
   at ``--speed`` game seconds per wall second; their journals in ``DIR/boards/<N>/games/``.

It prints the hall page's address once the hub answers, and stops on SIGINT (Ctrl-C) or SIGTERM
in the reverse order: the boards (flushing what they published), the hub, the broker (SIGTERM:
it saves its persistence). Nothing is left running; the files stay in ``DIR``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import IO, Protocol, cast

from engine.errors import StateError
from engine.i18n import DEFAULT_LANGUAGE, environment_language, translations
from pi.hall.errors import DemoError
from pi.hall.hub_config import hub_config_from_args, load_hub_config
from pi.hall.hub_init import TLS_PORT, make_hall, write_hall

log = logging.getLogger(__name__)

__all__ = ["main_demo", "SimulatedFleet", "DEFAULT_DIR", "DEFAULT_HTTP"]

DEFAULT_DIR = "hall-demo"
DEFAULT_HTTP = "127.0.0.1:8090"
#: Seconds the broker has to listen, and to stop after SIGTERM.
BROKER_WAIT = 10.0

_BOARD_FILE = re.compile(r"board-([0-9]{1,4})\.toml")


class SimulatedFleet(Protocol):
    """What the ``damiera.hall_fleet`` entry point makes (``hardware_mocks.hall_fleet.Fleet``):
    ``run()`` plays on the calling thread until ``stop()`` (from any thread), then flushes."""

    def run(self, until: float = math.inf) -> None: ...

    def stop(self) -> None: ...


FleetFactory = Callable[[Path, int, Path, float], SimulatedFleet]


def _fleet_factory() -> FleetFactory:
    for ep in entry_points(group="damiera", name="hall_fleet"):
        return cast(FleetFactory, ep.load())
    raise DemoError("hub demo: the simulated boards are not installed (entry point "
                    "damiera/hall_fleet of the damiera package; reinstall with pip install -e .)")


def _mosquitto() -> str:
    found = shutil.which("mosquitto") or shutil.which("mosquitto", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        raise DemoError("hub demo: mosquitto is not installed (Debian's mosquitto package)")
    return found


def _port_free(port: int) -> bool:
    """No program listens on ``port``. SO_REUSEADDR as Mosquitto's own listener sets it: the
    connections of a broker stopped a moment ago (TIME_WAIT) do not count, a listener does."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("", port))
        except OSError:
            return False
    return True


def _any_port() -> int:
    with socket.socket() as s:
        s.bind(("", 0))
        return int(s.getsockname()[1])


def _existing_boards(directory: Path) -> int:
    """How many boards the hall in ``directory`` has (0: no hall there)."""
    if not (directory / "mosquitto.conf").is_file() or not (directory / "hub.toml").is_file():
        return 0
    return sum(1 for p in directory.iterdir() if _BOARD_FILE.fullmatch(p.name))


def prepare_hall(boards: int, directory: Path, broker_port: int | None = None) -> int:
    """The hall in ``directory``: made with ``hub init`` (TLS, host 127.0.0.1, port
    ``broker_port``, else 8883 or a free one), or the one already there when it has ``boards``
    boards or more. Returns the broker's port, free. Raises DemoError (the port taken, or not the
    hall's), HallInitError, ConfigError."""
    have = _existing_boards(directory)
    if have:
        if have < boards:
            raise DemoError(f"--dir: {directory} holds a hall of {have} boards: give --boards "
                            f"{have} or fewer, or another --dir")
        spec = load_hub_config(directory / "hub.toml").mqtt
        assert spec is not None  # hub init writes it
        if broker_port is not None and broker_port != spec.port:
            raise DemoError(f"--broker-port: the hall in {directory} has its broker on port "
                            f"{spec.port} (its certificates and board files name it): give "
                            f"{spec.port}, or another --dir")
        _check_free(spec.port, directory)
        return spec.port
    if broker_port is not None:
        _check_free(broker_port, directory)
        port = broker_port
    else:
        port = TLS_PORT if _port_free(TLS_PORT) else _any_port()
    write_hall(make_hall(boards, directory, port=port, host="127.0.0.1"))
    return port


def _check_free(port: int, directory: Path) -> None:
    """Raises DemoError (one line) when another program listens on the broker's ``port``: the
    hub would log in to it, which does not know the hall's certificate."""
    if not _port_free(port):
        raise DemoError(f"hub demo: the broker's port {port} is taken by another program "
                        f"(another broker?): stop it, or use another --dir with "
                        f"--broker-port (the hall in {directory} is not started)")


class Broker:
    """``mosquitto -c DIR/mosquitto.conf`` as a child process, as docs/organiser.md runs it."""

    def __init__(self, directory: Path, port: int) -> None:
        self.directory = directory
        self.port = port
        self.log_path = directory / "mosquitto.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    def start(self) -> None:
        """Starts it and waits until it listens. Raises DemoError (it exits: its log's tail)."""
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([_mosquitto(), "-c", str(self.directory / "mosquitto.conf")],
                                     stdin=subprocess.DEVNULL, stdout=self._log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + BROKER_WAIT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                tail = " | ".join(self.log_path.read_text(errors="replace").splitlines()[-3:])
                self.stop()
                raise DemoError(f"hub demo: mosquitto exited ({tail})")
            with contextlib.suppress(OSError):
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    if self.proc.poll() is None:  # it listens, not another program
                        return
            time.sleep(0.05)
        self.stop()
        raise DemoError(f"hub demo: mosquitto did not listen on port {self.port} in "
                        f"{BROKER_WAIT:g} s (see {self.log_path})")

    def stop(self) -> None:
        """SIGTERM (it saves its persistence), SIGKILL after ``BROKER_WAIT`` s; idempotent."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.terminate()
                try:
                    self.proc.wait(BROKER_WAIT)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.proc = None
        if self._log is not None:
            self._log.close()
            self._log = None


async def run_demo(directory: Path, boards: int, http: str, speed: float,
                   out: IO[str] = sys.stdout, language: str = DEFAULT_LANGUAGE,
                   broker_port: int | None = None) -> None:
    """The demo (module docstring) until SIGINT or SIGTERM; what it prints for the person
    who started it in ``language`` (the logs stay English). Raises DamieraError (one line)."""
    t = translations(language)
    from pi.hall.hub_run import HubApp
    factory = _fleet_factory()
    port = prepare_hall(boards, directory, broker_port)
    config = hub_config_from_args(str(directory / "hub.toml"), None, http, str(directory / "hub"))
    fleet = factory(directory, boards, directory / "boards", speed)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    broker = Broker(directory, port)
    try:
        broker.start()
        app = HubApp(config)
        await app.start()
        try:
            runner = threading.Thread(target=fleet.run, name="hall-fleet", daemon=True)
            runner.start()
            try:
                print(t.ngettext("hall of {n} board in {dir}: broker {url}",
                                 "hall of {n} boards in {dir}: broker {url}", boards).format(
                    n=boards, dir=directory, url=f"mqtts://127.0.0.1:{port}"), file=out)
                page, console = t.gettext("hall page:"), t.gettext("arbiter console:")
                width = max(len(page), len(console))
                print(f"  {page:<{width}} http://{app.server.host}:{app.port}/", file=out)
                print(f"  {console:<{width}} http://{app.server.host}:{app.port}/arbiter "
                      + t.gettext("(token: {command})").format(
                          command=f"damiera token --state-dir {directory / 'hub'}"), file=out)
                print("  " + t.gettext("Ctrl-C stops the boards, the hub and the broker"),
                      file=out, flush=True)
                await stop.wait()
            finally:
                fleet.stop()
                await loop.run_in_executor(None, runner.join)
        finally:
            await app.stop()
    finally:
        broker.stop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
    print(t.gettext("stopped; the replicas are in {hub}, the boards' journals in {boards}").format(
        hub=directory / "hub", boards=directory / "boards"), file=out)


def main_demo(args: argparse.Namespace) -> int:
    """``damiera hub demo``. Raises DemoError, HallInitError, ConfigError, WebError (one line,
    exit 2)."""
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stderr)
    if not 1 <= args.boards <= 200:
        raise DemoError(f"--boards: {args.boards} is out of range 1..200 (one PC)")
    try:
        speed = float(args.speed)
    except ValueError:
        raise DemoError(f"--speed: a positive number, got {args.speed[:20]!r}") from None
    if not (math.isfinite(speed) and 0 < speed <= 1000):
        raise DemoError(f"--speed: a positive number up to 1000, got {args.speed[:20]!r}")
    broker_port = args.broker_port
    if broker_port is not None and not 1 <= broker_port <= 65535:
        raise DemoError(f"--broker-port: a TCP port 1..65535, got {broker_port}")
    directory = Path(args.dir).absolute()
    try:
        asyncio.run(run_demo(directory, args.boards, args.http, speed,
                             language=environment_language(os.environ),
                             broker_port=broker_port))
    except OSError as exc:
        raise StateError(f"hub demo: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")) \
            from None
    return 0
