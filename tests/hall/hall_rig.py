"""A simulated board in the hall, for the link's tests: the web tests' rig (``tests/web/web_rig``:
the daemon's own ``run_daemon`` on the simulator, in a thread, its web server on a free loopback
port for the simulator's controls) with ``[mqtt]`` set, and a plain paho client standing in for
the hub (it records what the board publishes and sends commands)."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import paho.mqtt.client as mqtt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "web"))

from web_rig import Rig

from hardware_mocks.sim_web import sim_routes
from pi.board.config import Config, MqttSpec
from pi.daemon import LinkTimers, run_daemon

HALL = "t"
NUMBER = 7
BOARD = str(NUMBER)  # as the wire and the command line write it
#: The rigs' paho backoff between attempts to reach the broker (first, longest seconds).
RECONNECT = (1, 1)


def hall_config(port: int, spec: MqttSpec | None = None, **kw: Any) -> Config:
    spec = spec or MqttSpec(f"mqtt://127.0.0.1:{port}", "127.0.0.1", port, False, HALL, NUMBER)
    base: dict[str, Any] = dict(source="(test)", time_control="600+5", white="Ann", black="Bob",
                                event="Test", board=7, mqtt=spec)
    base.update(kw)
    return Config(**base)


class HallRig(Rig):
    """``Rig`` with the hall link on (``rig.link``: the ``BoardLink``)."""

    def __init__(self, root: Path, port: int, spec: MqttSpec | None = None, *,
                 connect_grace: float = 1.0, **kw: Any) -> None:
        super().__init__(root, config=hall_config(port, spec, **kw))
        self.link: Any = None
        #: the link tries the broker again every second (its own backoff grows to 10 s: a
        #: broker started late was reached up to 4 s after it was up); ``connect_grace``: 0
        #: for a board the broker refuses (its stop would wait a second for a connection)
        self.timers = LinkTimers(RECONNECT, connect_grace)

    def _run(self, wiring: Any) -> None:
        async def main() -> None:
            self.loop = asyncio.get_running_loop()
            self.stop_event = asyncio.Event()

            def got(server: Any) -> None:  # the link is there before it (pi.daemon)
                self.server = server
                if self.link is not None:
                    self._ready.set()

            def linked(link: Any) -> None:
                self.link = link
                if self.server is not None:
                    self._ready.set()
            parts = self.sim.parts(http=("127.0.0.1", 0), on_web=got, on_link=linked,
                                  web_routes=sim_routes(self.sim, self.config.variant),
                                  link_timers=self.timers)
            await run_daemon(self.config, wiring, self.state, parts, stop=self.stop_event)
        try:
            asyncio.run(main())
        except BaseException as exc:  # noqa: BLE001 - reported to the test's thread
            self.error = exc
            self._ready.set()

    def __enter__(self) -> HallRig:
        super().__enter__()
        end = time.monotonic() + 10  # the pieces stand in the starting position: a game begins
        while self.link.game_id is None:
            if time.monotonic() > end:
                raise RuntimeError("no game began")
            time.sleep(0.01)
        return self

    @property
    def controller(self) -> Any:
        return self.link.view

    def trace(self, game: str | None = None) -> Path:
        game = game or self.link.game_id
        return self.root / "games" / game / "trace.jsonl"

    def lines_on_disk(self, game: str | None = None) -> list[str]:
        data = self.trace(game).read_bytes()
        return data.decode("utf-8").split("\n")[:-1]

    def move(self, src: str, dst: str, side: str) -> None:
        """``Rig.move``, held until the clock's press is in the journal (the move's last line,
        fed to the board after the HTTP answer): every line of the move is on disk when it
        returns."""
        game = self.link.game_id
        pressed = self._presses(game)
        super().move(src, dst, side)
        end = time.monotonic() + 30
        while self._presses(game) == pressed:
            assert time.monotonic() < end, "the clock's press never reached the journal"
            time.sleep(0.005)

    def _presses(self, game: str) -> int:
        return sum(json.loads(t)["type"] == "button" for t in self.lines_on_disk(game))

    def sim_action(self, action: dict[str, Any]) -> None:
        """``POST /api/arbiter``: answered once its line is on disk."""
        status, data = self.json("POST", "/api/arbiter", action, token=self.token)
        assert status == 200, data


class Hub:
    """A paho client in the hub's place: every message under the board's topics, in arrival
    order (``messages``: (leaf, payload, retain)). ``session``: a persistent session
    (clean_session false) under that client id."""

    def __init__(self, port: int, session: str | None = None,
                 auth: tuple[str, str] | None = None) -> None:
        self.port = port
        self.messages: list[tuple[str, bytes, bool]] = []
        self.times: list[float] = []  # time.monotonic() each message came
        self.cond = threading.Condition()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                                  client_id=session or "", clean_session=session is None,
                                  protocol=mqtt.MQTTv311)
        self.client.reconnect_delay_set(*RECONNECT)
        if auth is not None:
            self.client.username_pw_set(*auth)
        self.subscribed = threading.Event()
        prefix = f"damiera/{HALL}/boards/{BOARD}/"

        def on_connect(c: mqtt.Client, u: Any, f: Any, rc: Any, p: Any) -> None:
            c.subscribe([(prefix + leaf, 1) for leaf in ("journal", "state", "status", "ack")])

        def on_subscribe(c: Any, u: Any, mid: Any, rcs: Any, p: Any) -> None:
            self.subscribed.set()

        def on_message(c: Any, u: Any, m: mqtt.MQTTMessage) -> None:
            with self.cond:
                self.messages.append((m.topic[len(prefix):], m.payload, bool(m.retain)))
                self.times.append(time.monotonic())
                self.cond.notify_all()
        self.client.on_connect = on_connect
        self.client.on_subscribe = on_subscribe
        self.client.on_disconnect = lambda *_a: self.subscribed.clear()
        self.client.on_message = on_message

    def start(self) -> Hub:
        self.client.connect("127.0.0.1", self.port, keepalive=10)
        self.client.loop_start()
        assert self.subscribed.wait(5), "the hub's subscription was not granted"
        return self

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def __enter__(self) -> Hub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def of(self, leaf: str) -> list[dict[str, Any]]:
        with self.cond:
            return [json.loads(p) for lf, p, _ in self.messages if lf == leaf]

    def wait(self, predicate: Callable[[Hub], bool], timeout: float = 30.0, what: str = "") -> None:
        end = time.monotonic() + timeout
        with self.cond:
            while not predicate(self):
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"the hub never saw {what or 'it'}: "
                                         f"{[(lf, p[:120]) for lf, p, _ in self.messages[-8:]]}")
                self.cond.wait(min(left, 0.1))

    def journal(self, game: str) -> dict[int, str]:
        """Line number → text of ``game``, first copy kept (the hub's rule)."""
        out: dict[int, str] = {}
        for m in self.of("journal"):
            if m["game"] == game:
                out.setdefault(m["line"], m["text"])
        return out

    def send(self, payload: bytes | dict[str, Any]) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        assert self.subscribed.wait(10), "the hub is not connected"
        info = self.client.publish(f"damiera/{HALL}/boards/{BOARD}/cmd", data, qos=1)
        info.wait_for_publish(5)

    def acks(self, cmd_id: str) -> list[dict[str, Any]]:
        return [a for a in self.of("ack") if a.get("id") == cmd_id]


def retained(port: int, leaf: str, timeout: float = 5.0) -> dict[str, Any] | None:
    """The retained message of the board's ``leaf``, read by a fresh client."""
    got: list[bytes] = []
    done = threading.Event()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.on_connect = lambda cl, u, f, rc, pr: cl.subscribe(f"damiera/{HALL}/boards/{BOARD}/{leaf}", 1)
    c.on_message = lambda cl, u, m: (got.append(m.payload), done.set()) if m.retain else None
    c.connect("127.0.0.1", port)
    c.loop_start()
    done.wait(timeout)
    c.disconnect()  # first: loop_stop alone waits up to paho's 1 s select
    c.loop_stop()
    return json.loads(got[0]) if got else None
