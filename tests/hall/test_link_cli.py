"""``damiera run --mqtt URL --board N [--hall NAME]`` (pi/run.py): the options over the config's
``[mqtt]``, their refusals (one line, exit 2, never the password), and whole boards as processes
on a real Mosquitto: a simulated game played out to the hub, a board killed (-9) whose will says
it is offline and whose restart gives its journal heads."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from broker import Broker
from hall_rig import BOARD, Hub, retained

from pi.cli import main as cli
from pi.board.config import Config, MqttSpec, parse_config
from pi.run import RunError, hall_options

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "pi" / "samples" / "italian_sample.jsonl"


def test_mqtt_and_board_make_the_hall_spec() -> None:
    c = hall_options(Config(), "mqtt://board7:s%40cret@10.0.0.2", "7", None)
    assert c.board == 7
    assert c.mqtt == MqttSpec("mqtt://10.0.0.2", "10.0.0.2", 1883, False, "hall", 7,
                              "board7", "s@cret")
    c = hall_options(Config(board=4), "mqtts://hall.local:8884", None, "open-2026")
    assert c.mqtt is not None and (c.mqtt.hall, c.mqtt.board, c.mqtt.tls) == ("open-2026", 4,
                                                                             True)


def test_the_password_comes_from_a_file_and_one_in_the_url_is_warned_about(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Issue 38: ``--mqtt user:password@…`` shows the password to every user of the machine
    (``ps``); ``--mqtt-password-file`` reads it from a file instead; a password in the URL
    still works, with one warning saying it is visible; one given both ways is refused."""
    import logging
    secret = tmp_path / "mqtt-password"
    secret.write_text("s3cret pw\n")
    with caplog.at_level(logging.WARNING):
        c = hall_options(Config(), "mqtt://board7@10.0.0.2", "7", None, str(secret))
        assert c.mqtt is not None and (c.mqtt.username, c.mqtt.password) == ("board7",
                                                                             "s3cret pw")
        assert not caplog.records
        hall_options(Config(), "mqtt://board7:hunter2@10.0.0.2", "7", None)
    warned = [r.getMessage() for r in caplog.records]
    assert len(warned) == 1 and "visible" in warned[0] and "--mqtt-password-file" in warned[0]
    assert "hunter2" not in warned[0]
    for url, words in (("mqtt://board7:hunter2@h", "give it one way"),
                       ("mqtt://h", "names no user")):
        with pytest.raises(RunError, match=words):
            hall_options(Config(), url, "7", None, str(secret))
    with pytest.raises(RunError, match="--mqtt-password-file: .*cannot read it"):
        hall_options(Config(), "mqtt://board7@h", "7", None, str(tmp_path / "none"))
    with pytest.raises(RunError, match="--mqtt-password-file needs --mqtt"):
        hall_options(Config(), None, None, None, str(secret))


def test_the_hubs_password_comes_from_a_file(tmp_path: Path) -> None:
    from pi.hall.hub_config import hub_config_from_args
    secret = tmp_path / "hub-password"
    secret.write_text("hub pw\n")
    cfg = hub_config_from_args(None, "mqtts://hub@hall.local", None, str(tmp_path),
                               mqtt_password_file=str(secret))
    assert cfg.mqtt is not None and (cfg.mqtt.username, cfg.mqtt.password) == ("hub", "hub pw")


def test_the_options_go_over_the_configs_mqtt_table() -> None:
    config = parse_config('board = 3\n[mqtt]\nurl = "mqtt://a.local"\nhall = "regionale"\n')
    c = hall_options(config, "mqtt://b.local:1999", "12", None)
    assert c.mqtt is not None and c.board == 12
    assert (c.mqtt.host, c.mqtt.port, c.mqtt.hall, c.mqtt.board) == ("b.local", 1999,
                                                                     "regionale", 12)
    c = hall_options(config, None, None, "other")
    assert c.mqtt is not None and (c.mqtt.host, c.mqtt.hall, c.mqtt.board) == ("a.local",
                                                                               "other", 3)
    assert hall_options(Config(), None, None, None).mqtt is None


@pytest.mark.parametrize("url, board, hall, words", [
    ("mqtt://h", None, None, "--board"),
    ("mqtt://h", "0", None, "--board"),
    ("mqtt://h", "seven", None, "--board"),
    ("mqtt://h", "07", None, "--board"),
    ("mqtt://h", "+7", None, "--board"),
    ("mqtt://h", "10000", None, "--board"),
    ("http://user:hunter2@h", "1", None, "--mqtt"),
    ("mqtt://user:hunter2@h/x", "1", None, "--mqtt"),
    ("mqtt://h", "1", "a/b", "--hall"),
    (None, None, "h", "--hall needs --mqtt"),
])
def test_bad_options_are_refused_in_one_line(url: str | None, board: str | None,
                                             hall: str | None, words: str) -> None:
    with pytest.raises(RunError) as exc:
        hall_options(Config(), url, board, hall)
    assert words in str(exc.value) and "hunter2" not in str(exc.value)
    assert "\n" not in str(exc.value)


def test_a_bad_option_exits_2_with_one_line(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli(["run", "--simulate", "--state-dir", str(tmp_path), "--quiet",
              "--mqtt", "mqtt://u:hunter2@127.0.0.1:1", "--board", "x"])
    out, err = capsys.readouterr()
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "--board" in err and "hunter2" not in err


def _damiera(log: Path, *args: str) -> subprocess.Popen[bytes]:
    """``damiera run --simulate`` with its standard error in ``log`` (never a pipe nobody reads
    while it runs: past 64 KiB the daemon would block writing its log)."""
    with open(log, "ab") as err:
        return subprocess.Popen([sys.executable, "-m", "pi.cli", "run", "--simulate", "--quiet",
                                 "--http", "off", *args], cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT)},
                                stdout=subprocess.DEVNULL, stderr=err)


def test_a_simulated_game_played_out_reaches_the_hub_whole(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with Broker(tmp_path) as broker, Hub(broker.port) as hub:
        log = tmp_path / "damiera.err"
        proc = _damiera(log, "--trace", str(SAMPLE), "--speed", "max", "--state-dir",
                        str(state), "--mqtt", broker.url, "--board", BOARD, "--hall", "t")
        assert proc.wait(timeout=60) == 0, log.read_text(errors="replace")
        journal = next(state.glob("games/*/trace.jsonl"))
        game = journal.parent.name
        disk = journal.read_text(encoding="utf-8").split("\n")[:-1]
        hub.wait(lambda h: len(h.journal(game)) == len(disk), what="the whole game")
        got = hub.journal(game)
        assert [got[i] for i in range(1, len(disk) + 1)] == disk
        assert retained(broker.port, "status") == {"online": False, "board": BOARD}
        state_msg = retained(broker.port, "state")
        assert state_msg is not None and state_msg["result"] != "*"


def test_a_board_killed_says_offline_by_its_will_and_its_restart_gives_the_heads(
        tmp_path: Path) -> None:
    state = tmp_path / "state"
    with Broker(tmp_path) as broker:
        def board() -> subprocess.Popen[bytes]:
            return _damiera(tmp_path / "damiera.err", "--state-dir", str(state), "--mqtt",
                            broker.url, "--board", BOARD, "--hall", "t")
        proc = board()
        try:
            deadline = time.monotonic() + 30
            while True:
                s = retained(broker.port, "status", timeout=0.5)
                if s is not None and s.get("online") and s.get("game") is not None:
                    break
                assert time.monotonic() < deadline, "the board never said it was online"
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            # the broker sends the will once the keepalive runs out or the socket closes
            deadline = time.monotonic() + 60
            while retained(broker.port, "status", timeout=0.5) != {"online": False,
                                                                 "board": BOARD}:
                assert time.monotonic() < deadline, "no will"
            proc = board()  # resumes: a restart line; the status says how many lines
            journal = next(state.glob("games/*/trace.jsonl"))
            deadline = time.monotonic() + 30
            while True:
                s = retained(broker.port, "status", timeout=0.5)
                types = [json.loads(x)["type"] for x in journal.read_text().splitlines()]
                restart = types.index("restart") + 1 if "restart" in types else None
                if (s is not None and s.get("online") and restart is not None
                        and s.get("lines", 0) >= restart):
                    break
                assert time.monotonic() < deadline, f"status {s} never gave the restart line"
            assert s["game"] == journal.parent.name
            assert [journal.parent.name, s["lines"], False] in s["games"]
        finally:
            proc.send_signal(signal.SIGTERM)
            assert proc.wait(20) == 0, (tmp_path / "damiera.err").read_text(errors="replace")
