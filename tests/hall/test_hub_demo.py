"""A hall on one PC (issue 16): the simulated fleet joins a hall made by ``damiera hub init`` with
each board's own password, CA and key (``hall_fleet --hall-dir``), and ``damiera hub demo``
starts the broker, the hub and the boards, plays, and stops them all on SIGTERM.

The demo's broker listens as ``hub init`` writes it (every interface, TLS, passwords); the tests
connect to 127.0.0.1 only.
"""

from __future__ import annotations

import json
import os
import signal
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from broker import Broker, free_port
from paho.mqtt.enums import CallbackAPIVersion

from hardware_mocks.hall_fleet import hall_fleet
from pi.hall import protocol
from pi.hall.hub_config import load_hub_config
from pi.hall.hub_init import make_hall, write_hall
from pi.hall.signing import line_mac

ROOT = Path(__file__).resolve().parents[2]


def test_the_fleet_logs_in_to_a_hall_made_by_hub_init(tmp_path: Path) -> None:
    hall = make_hall(2, tmp_path / "hall", port=free_port(), host="127.0.0.1")
    write_hall(hall)
    hub_spec = load_hub_config(hall.dir / "hub.toml").mqtt
    assert hub_spec is not None and hub_spec.ca is not None
    lines: dict[int, list[protocol.JournalLine]] = {}
    lock = threading.Lock()

    def on_message(_c: Any, _u: Any, msg: Any) -> None:
        board, leaf = protocol.parse_topic(protocol.Topics(hall.hall), msg.topic)
        if leaf == "journal":
            with lock:
                lines.setdefault(board, []).append(protocol.parse_journal(msg.payload))

    # the configuration's own port (the board files name it), bound to 127.0.0.1 by the rig
    with Broker(tmp_path, conf=hall.dir / "mosquitto.conf", port=hall.port):
        hub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="hub", protocol=mqtt.MQTTv311)
        hub.username_pw_set(hub_spec.username, hub_spec.password)
        hub.tls_set(ca_certs=str(hub_spec.ca), cert_reqs=ssl.CERT_REQUIRED)
        hub.on_message = on_message
        hub.connect("127.0.0.1", hall.port)
        hub.subscribe(protocol.Topics(hall.hall).all_boards("journal"), 1)
        hub.loop_start()
        fleet = hall_fleet(hall.dir, 2, tmp_path / "boards", pace=500.0)
        runner = threading.Thread(target=fleet.run, args=(time.time() + 30,))
        runner.start()
        try:
            deadline = time.time() + 20
            while time.time() < deadline:
                with lock:
                    if all(len(lines.get(b, [])) >= 5 for b in (1, 2)):
                        break
                time.sleep(0.05)
        finally:
            fleet.stop()
            runner.join(15)
            hub.disconnect()
            hub.loop_stop()
    for board in (1, 2):
        got = lines.get(board, [])
        assert len(got) >= 5, f"board {board}: {len(got)} lines through the broker"
        first = next(j for j in got if j.line == 1)
        # signed with the key of its board-<N>.toml, as the hub verifies it
        assert first.mac == line_mac(bytes.fromhex(hall.keys[board]), first.game_id, 1, first.text, "")
        assert json.loads(first.text)["board"] == board


def _descendants(pid: int) -> set[int]:
    """Every living process whose parent chain reaches ``pid``."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _replica_lines(d: Path) -> int:
    return sum(len(p.read_bytes().splitlines())
               for p in (d / "hub" / "boards").glob("*/games/*/trace.jsonl"))


def test_hub_demo_starts_plays_and_stops_on_sigterm(tmp_path: Path) -> None:
    d = tmp_path / "demo"
    port, broker_port = free_port(), free_port()
    log = tmp_path / "demo.err"  # its log in a file: nobody reads a pipe while it plays
    with open(log, "ab") as err_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "pi.cli", "hub", "demo", "--boards", "2", "--dir", str(d),
             "--http", f"127.0.0.1:{port}", "--broker-port", str(broker_port),
             "--speed", "50"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=err_file, text=True)
    out_lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            out_lines.append(line)
            if "hall page:" in line:
                break
        assert f"http://127.0.0.1:{port}/" in "".join(out_lines), "".join(out_lines)
        assert f"mqtts://127.0.0.1:{broker_port}" in "".join(out_lines)  # the port given
        children = _descendants(proc.pid)
        assert children, "the broker runs as a child"
        # it plays: the replicas grow, and the hall page and its API answer
        deadline = time.time() + 30
        first = _replica_lines(d)
        while time.time() < deadline and _replica_lines(d) < first + 10:
            time.sleep(0.05)
        assert _replica_lines(d) >= first + 10
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
            assert r.status == 200 and b"<html" in r.read().lower()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/hall", timeout=5) as r:
            hall = json.loads(r.read())
        assert {str(b["board"]) for b in hall["boards"]} >= {"1", "2"}
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, log.read_text(errors="replace")
    assert "stopped" in rest
    assert not [c for c in children if _alive(c)], "a child outlived the demo"
    # what stays in DIR: the boards' journals and the hub's replicas of them, alike
    journals = sorted((d / "boards").glob("*/games/*/trace.jsonl"))
    assert {p.parts[-4] for p in journals} == {"1", "2"}
    for p in journals:
        replica = d / "hub" / p.relative_to(d)
        assert replica.read_bytes() == p.read_bytes()
    assert (d / "data" / "mosquitto.db").exists()  # the broker stopped cleanly and saved


@pytest.mark.parametrize("argv, words", [(["--boards", "0"], "--boards"),
                                         (["--boards", "2", "--speed", "0"], "--speed")])
def test_hub_demo_bad_options_one_line(tmp_path: Path, argv: list[str], words: str) -> None:
    r = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "demo", "--dir",
                        str(tmp_path / "d"), *argv], cwd=ROOT, capture_output=True, text=True,
                       timeout=30)
    assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "d").exists()


def test_hub_demo_takes_the_brokers_port_and_stops_in_one_line_when_it_is_taken(
        tmp_path: Path) -> None:
    """Issue 37: ``make hall`` whose broker could not start (its port taken by another broker)
    ran a hub looping on CERTIFICATE_VERIFY_FAILED while it announced the hall. ``hub demo
    --broker-port P`` makes the hall on P; P taken: one line, exit 2, nothing started; a hall
    already made keeps its port, and that port taken is said the same way."""
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        d = tmp_path / "fresh"
        r = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "demo", "--boards", "1",
                            "--dir", str(d), "--broker-port", str(port),
                            "--http", f"127.0.0.1:{free_port()}"],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and f"port {port} is taken" in r.stderr
        assert not (d / "hub.toml").exists() and "hall page" not in r.stdout
        # a hall made on that port earlier: its broker cannot start either
        made = tmp_path / "made"
        write_hall(make_hall(1, made, port=port, host="127.0.0.1"))
        r = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "demo", "--boards", "1",
                            "--dir", str(made), "--http", f"127.0.0.1:{free_port()}"],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and f"port {port} is taken" in r.stderr
        assert "hall page" not in r.stdout
        r = subprocess.run([sys.executable, "-m", "pi.cli", "hub", "demo", "--boards", "1",
                            "--dir", str(made), "--broker-port", str(free_port())],
                           cwd=ROOT, capture_output=True, text=True, timeout=60)
        assert r.returncode == 2 and "--broker-port" in r.stderr, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1
