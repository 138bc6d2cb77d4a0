"""Real systemd (issue 36): a Debian trixie root booted with systemd 257 as PID 1
(``systemd-nspawn``, tests/system/nspawn.py), the checkout cloned inside, and the board and the
hub installed there as docs/board-builder.md and docs/organiser.md say, verbatim: ``sudo
systemd/install-pi.sh --config …`` (the board on the simulated hardware: ``simulate = true``
in its config, the documented key), ``damiera hub init``, Debian's Mosquitto pointed at the
hall's configuration as the organiser's guide says, ``sudo systemd/install-hub.sh --hall …``,
and the board installed again with the hall's ``board-1.toml``. Then what the units promise
(docs/board-builder.md "What the unit guarantees"): READY after Type=notify, kill -9 → restarted
and the game resumed from the journal, a hung daemon (SIGSTOP) → killed by the watchdog and
resumed, stop and start, ``systemd-analyze verify`` silent and ``security`` ≤ 1.5 as installed,
the board on the hub's hall page, Mosquitto as its own user.

Slow (``make test-slow``): the root is made once by debootstrap and cached
(tests/system/debian_root.py, ~2 min); each run copies it, boots it (under a second) and
installs from the registries (the installers' apt-get and pip: minutes). The clone is of the
checkout's HEAD commit: commit what it should install. Needs root, debootstrap and
systemd-nspawn (`make test-slow` installs them). The container shares the host's network: the
services listen on free loopback ports, which the test reaches from outside."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from debian_root import HOST_ARCH, working_root
from nspawn import Container, ContainerError
from tests.ports import free_port

pytestmark = [pytest.mark.slow, pytest.mark.heavy]

REPO = Path(__file__).resolve().parents[2]
USER = "pi"  # Raspberry Pi OS's first user, in the group sudo, no password asked
CHECKOUT = f"/home/{USER}/damiera"
HALL = "/srv/hall"
STATE = "/var/lib/damiera"
DAMIERA = "/opt/damiera/venv/bin/damiera"
#: docs/board-builder.md: "What the unit guarantees", overall: the limit is 1.5.
EXPOSURE_LIMIT = 1.5
#: The sample game's first two moves (pi/samples/italian_sample.jsonl): white f3-e4, black a6-b5.
OPENING = (("f3", "e4", "white"), ("a6", "b5", "black"))


def http_json(url: str, body: object = None, token: str | None = None,
              timeout: float = 5.0) -> Any:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def wait_for(what: str, probe: Callable[[], Any], timeout: float) -> Any:
    """``probe()``'s first true answer within ``timeout`` s (errors count as not yet)."""
    deadline = time.monotonic() + timeout
    last: object = None
    while time.monotonic() < deadline:
        try:
            answer = probe()
        except (OSError, ValueError, urllib.error.URLError) as exc:
            answer, last = None, exc
        if answer:
            return answer
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {timeout} s (last: {last!r})")


@dataclass
class Hall:
    """The container with the board and the hub installed, and how the test reaches them."""

    box: Container
    board_port: int
    hub_port: int
    token: str = ""
    figures: dict[str, float] = field(default_factory=dict)

    def state(self) -> dict[str, Any]:
        answer = http_json(f"http://127.0.0.1:{self.board_port}/api/state", token=self.token)
        assert isinstance(answer, dict)
        return answer

    def show(self, unit: str, *names: str) -> dict[str, str]:
        out = self.box.ok(f"systemctl show {unit} " + " ".join(f"-p {n}" for n in names))
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def game_in_progress(self) -> tuple[str, list[Any]]:
        """The board's game id and moves, the opening played first when it has no move yet."""
        state = self.state()
        if not state["moves"]:
            for src, dst, side in OPENING:
                for path, body in (("lift", {"square": src}), ("place", {"square": dst}),
                                   ("button", {"name": "clock", "side": side})):
                    http_json(f"http://127.0.0.1:{self.board_port}/api/sim/{path}", body,
                              token=self.token)
                    time.sleep(0.1)  # beyond the sensors' 30 ms debounce
            state = wait_for("the opening played", lambda: (s := self.state())["moves"]
                             and len(s["moves"]) == len(OPENING) and s, 10)
        return str(state["game_id"]), list(state["moves"])

    def resumed(self, game: tuple[str, list[Any]], timeout: float = 30.0) -> None:
        """The board answers again with the same game and the same moves: resumed from the
        journal (a new game would have another id and no moves)."""
        state = wait_for("the board answering again", self.state, timeout)
        assert (str(state["game_id"]), list(state["moves"])) == game


def as_pi(box: Container, command: str, timeout: float = 1800.0) -> str:
    return box.ok(command, user=USER, timeout=timeout)


def timed(figures: dict[str, float], name: str, action: Callable[[], object]) -> None:
    start = time.monotonic()
    action()
    figures[name] = round(time.monotonic() - start, 2)


def require_host() -> None:
    if os.geteuid() != 0:
        pytest.fail("the container test needs root (systemd-nspawn, debootstrap)")
    missing = [tool for tool in ("systemd-nspawn", "debootstrap", "nsenter", "unshare")
               if shutil.which(tool) is None]
    if missing:
        pytest.fail(f"not installed: {' '.join(missing)} (make test-slow installs them)")


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hall]:
    require_host()
    base = tmp_path_factory.mktemp("container")
    with working_root(HOST_ARCH, base) as root:
        subprocess.run(["git", "-C", str(REPO), "bundle", "create",
                        str(root / "var/tmp/damiera.bundle"), "HEAD"],
                       check=True, capture_output=True)
        box = Container(root, f"damiera-test-{os.getpid()}", base / "console.log")
        made = Hall(box, board_port=free_port(), hub_port=free_port())
        try:
            made.figures["boot"] = round(box.boot(), 2)
            try:
                install(made)
            except ContainerError as exc:
                raise ContainerError(f"{exc}\n{journals(box)}") from None
            yield made
        finally:
            print("container figures (s):", made.figures)
            box.stop()


def journals(box: Container) -> str:
    """What the services said, for a failed install's error."""
    return "\n".join(box.run(f"journalctl -u {unit} --no-pager -n 60 -o cat").stdout
                     for unit in ("damiera", "damiera-hub", "mosquitto"))


def install(hall: Hall) -> None:
    """As a user of Raspberry Pi OS types it: the board first on its own (the simulated board,
    http on loopback), then the hall on the same machine, then the board again with the hall's
    configuration (an upgrade: the second run of install-pi.sh)."""
    box, figures = hall.box, hall.figures
    # As an image has them: its host name resolves (sudo asks), a first user with sudo.
    box.ok('echo "127.0.1.1 $(hostname)" >> /etc/hosts')
    box.ok(f"useradd --create-home --groups sudo --shell /bin/bash {USER} && "
           f"echo '{USER} ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/010_{USER}-nopasswd")
    as_pi(box, f"git clone --quiet /var/tmp/damiera.bundle {CHECKOUT}")
    as_pi(box, f"printf 'simulate = true\\nhttp = \"127.0.0.1:{hall.board_port}\"\\n' > board.toml")
    timed(figures, "install-pi.sh", lambda: as_pi(
        box, f"cd {CHECKOUT} && sudo systemd/install-pi.sh --config ../board.toml"))
    hall.token = box.ok(f"{DAMIERA} token --state-dir {STATE}").strip()

    # docs/organiser.md, "A real hall": Debian's mosquitto, then the hall made with sudo (which
    # gives the broker's files to Mosquitto's user), and its service pointed at the hall's
    # configuration (systemctl edit, here from stdin).
    as_pi(box, "sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto")
    broker_port = free_port()
    as_pi(box, f"sudo {DAMIERA} hub init --boards 1 --dir {HALL} --hall container-36 "
               f"--host 127.0.0.1 --port {broker_port}")
    as_pi(box, f"printf '[Service]\\nExecStart=\\nExecStart=/usr/sbin/mosquitto -c "
               f"{HALL}/mosquitto.conf\\n' | sudo systemctl edit --stdin mosquitto")
    as_pi(box, "sudo systemctl restart mosquitto")
    timed(figures, "install-hub.sh", lambda: as_pi(
        box, f"cd {CHECKOUT} && sudo systemd/install-hub.sh --hall {HALL} "
             f"--http 127.0.0.1:{hall.hub_port}"))

    # The board's own copy of its hall file, the demo board's two lines put first (top-level
    # keys: the hall's file ends in its [mqtt] table), and the hall's CA beside it.
    as_pi(box, f"mkdir hall-board && printf 'simulate = true\\nhttp = \"127.0.0.1:{hall.board_port}\"\\n' "
               f"> hall-board/board-1.toml && sudo cat {HALL}/board-1.toml >> hall-board/board-1.toml "
               f"&& cp {HALL}/hall-ca.crt hall-board/")
    timed(figures, "install-pi.sh again (hall)", lambda: as_pi(
        box, f"cd {CHECKOUT} && sudo systemd/install-pi.sh --config ../hall-board/board-1.toml"))


def test_the_board_is_ready_once_it_says_so(hall: Hall) -> None:
    """Type=notify: `systemctl restart` returns once the daemon sent READY=1, and then the
    service is active and its pages answer."""
    assert hall.show("damiera", "Type")["Type"] == "notify"
    timed(hall.figures, "restart to READY", lambda: hall.box.ok("systemctl restart damiera"))
    shown = hall.show("damiera", "ActiveState", "SubState")
    assert shown == {"ActiveState": "active", "SubState": "running"}
    wait_for("the board's state", hall.state, 10)


def test_kill_9_restarts_it_and_the_game_resumes(hall: Hall) -> None:
    game = hall.game_in_progress()
    before = hall.show("damiera", "NRestarts", "MainPID")
    os.kill(hall.box.host_pid("damiera"), signal.SIGKILL)
    start = time.monotonic()
    wait_for("restarted after kill -9", lambda: (s := hall.show(
        "damiera", "NRestarts", "ActiveState", "MainPID"))["ActiveState"] == "active"
        and s["NRestarts"] == str(int(before["NRestarts"]) + 1), 30)
    hall.figures["kill -9 to READY"] = round(time.monotonic() - start, 2)
    hall.resumed(game)


def test_a_hung_daemon_is_killed_by_the_watchdog_and_the_game_resumes(hall: Hall) -> None:
    game = hall.game_in_progress()
    before = hall.show("damiera", "NRestarts", "WatchdogUSec")
    watchdog = int(before["WatchdogUSec"].removesuffix("s")) if before["WatchdogUSec"].endswith(
        "s") and before["WatchdogUSec"][:-1].isdigit() else 20
    since = hall.box.ok("date '+%Y-%m-%d %H:%M:%S'").strip()
    os.kill(hall.box.host_pid("damiera"), signal.SIGSTOP)
    start = time.monotonic()
    wait_for("restarted after the watchdog", lambda: (s := hall.show(
        "damiera", "NRestarts", "ActiveState"))["ActiveState"] == "active"
        and s["NRestarts"] == str(int(before["NRestarts"]) + 1), watchdog + 40)
    hall.figures["SIGSTOP to READY again"] = round(time.monotonic() - start, 2)
    journal = hall.box.ok(f"journalctl -u damiera --since '{since}' --no-pager")
    assert "Watchdog timeout" in journal, journal[-3000:]
    hall.resumed(game)


def test_stop_and_start(hall: Hall) -> None:
    game = hall.game_in_progress()
    hall.box.ok("systemctl stop damiera")
    assert hall.show("damiera", "ActiveState", "MainPID") == {"ActiveState": "inactive",
                                                                "MainPID": "0"}
    with pytest.raises(OSError):
        hall.state()
    hall.box.ok("systemctl start damiera")
    hall.resumed(game, timeout=10)


@pytest.mark.parametrize("unit", ["damiera.service", "damiera-hub.service"])
def test_units_verify_and_stay_under_the_exposure_limit_as_installed(hall: Hall, unit: str) -> None:
    verified = hall.box.run(f"systemd-analyze verify /etc/systemd/system/{unit}")
    assert (verified.returncode, verified.stdout, verified.stderr) == (0, "", "")
    report = hall.box.ok(f"systemd-analyze security --no-pager {unit}")
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", report)
    assert found is not None, report
    hall.figures[f"exposure {unit}"] = float(found.group(1))
    assert float(found.group(1)) <= EXPOSURE_LIMIT, report


def test_the_hub_is_ready_and_the_board_joins_it(hall: Hall) -> None:
    assert hall.show("damiera-hub", "Type", "ActiveState") == {"Type": "notify",
                                                                 "ActiveState": "active"}
    game_id, _ = hall.game_in_progress()
    wait_for("board 1 online on the hub's /api/hall with the board's game", lambda: [
        board for board in http_json(f"http://127.0.0.1:{hall.hub_port}/api/hall")["boards"]
        if board["board"] == "1" and board["online"] and board["game_id"] == game_id], 30)


def test_mosquitto_runs_as_its_own_user(hall: Hall) -> None:
    """docs/organiser.md, "A real hall": Debian's mosquitto service runs as the user mosquitto."""
    assert hall.show("mosquitto", "ActiveState")["ActiveState"] == "active"
    users = hall.box.ok("ps -o user= -C mosquitto").split()
    assert users and set(users) == {"mosquitto"}
