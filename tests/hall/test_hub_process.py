"""``damiera hub`` as a process: kill -9 mid-game, restart, catch up (PROTOCOL.md: the
replica's torn line cut, what the last sync missed asked again); bad configurations are one
line and exit 2; hub.toml read as strictly as damiera.toml."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from pi.board.errors import ConfigError
from pi.hall.hub_config import hub_config_from_args, load_hub_config, parse_hub_config
from tests.hall.broker import Broker, free_port
from tests.hall.hub_rig import ROOT, SAMPLE, FakeBoard, hub_process, request, trace_lines, wait

G = "2026-11-22T0900-b08-001"


def _hall(port: int) -> dict | None:
    import json
    try:
        status, _, body = request(port, "GET", "/api/hall", timeout=2)
    except OSError:
        return None
    return json.loads(body) if status == 200 else None


def _lines_at_hub(port: int, board: str) -> int:
    hall = _hall(port)
    if hall is None:
        return -1
    return next((b["lines"] for b in hall["boards"] if b["board"] == board), 0)


def _subscribed(port: int, board: FakeBoard) -> None:
    """Returns once the hub holds line 1 of ``G``, published again until it does: the hub has
    subscribed (a line published before that is lost: the board has said nothing of its game
    in a status, and the hub holds no line 1 twice)."""
    def taken() -> bool:
        board.publish_line(G, 1)
        return _lines_at_hub(port, "8") >= 1
    wait(taken, 20, "the hub's subscriptions")


def test_hub_killed_mid_game_catches_up_after_restart(tmp_path):
    state = tmp_path / "hub"
    lines = trace_lines(SAMPLE, game=G, board="8")
    half = len(lines) // 2
    with Broker(tmp_path) as broker:
        board = FakeBoard(broker.url, "8")
        board.add_game(G, lines)
        port = free_port()
        hub = hub_process(state, broker.url, port)
        try:
            wait(lambda: _hall(port) is not None, 20, "the hub's HTTP")
            _subscribed(port, board)
            board.publish_lines(G, range(1, half + 1))
            wait(lambda: _lines_at_hub(port, "8") == half, 20, "the first half")
            os.killpg(hub.pid, signal.SIGKILL)
            hub.wait(10)
            # the replica may have lost its unsynced tail, even half a line: a hub crash
            path = state / "boards" / "8" / "games" / G / "trace.jsonl"
            data = path.read_bytes()
            path.write_bytes(data[: max(data.find(b"\n") + 1, len(data) - 150)])
            board.publish_lines(G, range(half + 1, len(lines) + 1))  # queued by the broker
            board.status()
            hub = hub_process(state, broker.url, port)
            wait(lambda: _lines_at_hub(port, "8") == len(lines), 30, "the catch-up")
            hub.send_signal(signal.SIGTERM)
            assert hub.wait(15) == 0
            assert path.read_bytes() == "".join(t + "\n" for t in lines).encode()
        finally:
            if hub.poll() is None:
                os.killpg(hub.pid, signal.SIGKILL)
                hub.wait()
            board.close()


def _hub_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pi.cli", "hub", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("text, key", [
    ('hall = "h"\nbogus = 1\n', "bogus"),
    ('hall = "a/b"\n', "hall"),
    ('http = "nowhere"\n', "http"),
    ('broadcast_delay = -1\n', "broadcast_delay"),
    ('broadcast_delay = nan\n', "broadcast_delay"),
    ('[mqtt]\nurl = "http://x"\n', "mqtt.url"),
    ('[mqtt]\nurl = "mqtt://x"\nca = "ca.crt"\n', "mqtt.ca"),
    ('[mqtt]\nurl = "mqtt://x"\nhall = "h"\n', "mqtt.hall"),
    ('event = 5\n', "event"),
    ('hall = [\n', ""),
])
def test_bad_hub_toml_is_one_line_naming_file_and_key(tmp_path, text, key):
    path = tmp_path / "hub.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_hub_config(path)
    assert str(err.value).startswith(f"{path}: {key}") and "\n" not in str(err.value)
    run = _hub_cli("--config", str(path), "--state-dir", str(tmp_path / "s"))
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr


def test_hub_toml_as_hub_init_writes_it_and_the_overrides(tmp_path):
    text = ('hall = "open"\nevent = "Italian Open"\nbroadcast_delay = 15\n'
            'http = "0.0.0.0:8080"\nstate_dir = "state"\n'
            '[mqtt]\nurl = "mqtts://hub:s%40cret@broker.local"\nca = "ca.crt"\n')
    cfg = parse_hub_config(text, "hub.toml", base=tmp_path)
    assert (cfg.hall, cfg.event, cfg.broadcast_delay) == ("open", "Italian Open", 15.0)
    assert (cfg.http.host, cfg.http.port) == ("0.0.0.0", 8080)
    assert cfg.state_dir == tmp_path / "state"
    assert cfg.mqtt is not None and cfg.mqtt.password == "s@cret" and cfg.mqtt.port == 8883
    assert cfg.mqtt.hall == "open" and cfg.mqtt.ca == tmp_path / "ca.crt"
    assert "s@cret" not in cfg.mqtt.url
    path = tmp_path / "hub.toml"
    path.write_text(text, encoding="utf-8")
    over = hub_config_from_args(str(path), "mqtt://127.0.0.1:1999", "127.0.0.1:9", str(tmp_path))
    assert over.mqtt is not None and (over.mqtt.port, over.mqtt.hall) == (1999, "open")
    assert (over.http.port, over.state_dir) == (9, tmp_path.resolve())
    with pytest.raises(ConfigError, match="--mqtt"):
        hub_config_from_args(None, "mqtt://", None, str(tmp_path))
    with pytest.raises(ConfigError, match="no broker"):
        hub_config_from_args(None, None, None, str(tmp_path))
    with pytest.raises(ConfigError, match="state_dir"):
        hub_config_from_args(None, "mqtt://127.0.0.1", None, None)


def test_http_address_in_use_is_one_line_exit_2(tmp_path):
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        run = _hub_cli("--mqtt", "mqtt://127.0.0.1:1", "--http", f"127.0.0.1:{port}",
                       "--state-dir", str(tmp_path / "s"), "--quiet")
    assert run.returncode == 2 and "cannot listen" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1


def test_state_dir_that_cannot_be_made_is_one_line_exit_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    run = _hub_cli("--mqtt", "mqtt://127.0.0.1:1", "--http", "127.0.0.1:0",
                   "--state-dir", str(blocker / "sub"), "--quiet")
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1
    assert "Traceback" not in run.stderr
    assert Path(blocker).read_text() == "x"


def test_the_token_command_prints_the_hubs_token(tmp_path):
    from pi.hall.hub import Hub
    from pi.hall.hub_config import HubConfig
    token = Hub(HubConfig(state_dir=tmp_path), tmp_path).token  # created at the hub's start
    assert (tmp_path / "arbiter.token").stat().st_mode & 0o777 == 0o600
    run = subprocess.run([sys.executable, "-m", "pi.cli", "token", "--state-dir", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == token


def test_a_second_hub_on_the_same_state_directory_is_refused_in_one_line(tmp_path):
    """Issue 38: two hubs on one state directory both ran and wrote every replica line twice.
    The board's lock (``DIR/lock``): the second is one line and exit 2, before it touches
    anything; the replica stays the
    board's journal line for line."""
    state = tmp_path / "hub"
    lines = trace_lines(SAMPLE, game=G, board="8")[:20]
    with Broker(tmp_path) as broker:
        board = FakeBoard(broker.url, "8")
        board.add_game(G, lines)
        port = free_port()
        hub = hub_process(state, broker.url, port)
        try:
            wait(lambda: _hall(port) is not None, 20, "the hub's HTTP")
            run = _hub_cli("--mqtt", broker.url, "--http", f"127.0.0.1:{free_port()}",
                           "--state-dir", str(state), "--quiet", "--accept-unsigned", "8")
            assert run.returncode == 2 and run.stdout == "", run.stderr
            assert len(run.stderr.strip().splitlines()) == 1, run.stderr
            assert "in use by another hub" in run.stderr and str(state) in run.stderr
            _subscribed(port, board)  # the first hub's subscriptions
            board.publish_lines(G)
            wait(lambda: _lines_at_hub(port, "8") == len(lines), 20, "the lines")
            hub.send_signal(signal.SIGTERM)
            assert hub.wait(15) == 0
            path = state / "boards" / "8" / "games" / G / "trace.jsonl"
            assert path.read_bytes() == "".join(t + "\n" for t in lines).encode()
        finally:
            if hub.poll() is None:
                os.killpg(hub.pid, signal.SIGKILL)
                hub.wait()
            board.close()
