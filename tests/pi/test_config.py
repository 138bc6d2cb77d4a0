"""damiera.toml (pi/board/config.py): defaults, every key validated with the engine's readers, one-line
errors naming the file and the key, absurd numbers, size and nesting limits, the example file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.events import GameStarted
from pi.board.config import (MAX_CONFIG_BYTES, Config, HttpSpec, MqttSpec, load_config, parse_config,
                             parse_http)
from pi.board.errors import ConfigError

EXAMPLE = Path(__file__).resolve().parents[2] / "pi" / "damiera.example.toml"


def test_empty_file_gives_the_defaults() -> None:
    c = parse_config("")
    assert c == Config()
    assert c.game_started() == GameStarted(variant="italian")
    assert c.start_line() == {"type": "start", "variant": "italian", "fen": None, "clock": True,
                              "transcribed": True}


def test_example_file_loads_and_every_commented_key_is_valid(tmp_path: Path) -> None:
    assert load_config(EXAMPLE) == Config(source=str(EXAMPLE))
    # Uncomment every "# key = value" line of the example: the result must load too.
    text = re.sub(r"^# ((?:\[mqtt\])|(?:[a-z_]+ = .*))$", r"\1", EXAMPLE.read_text(),
                  flags=re.MULTILINE)
    path = tmp_path / "damiera.toml"
    path.write_text(text)
    c = load_config(path)
    assert c.time_control == "1800+10" and c.fen == "W:W21-32:B1-12"
    assert c.board == 7 and c.round == "3" and c.white == "Rossi, Mario"
    assert c.http == HttpSpec("0.0.0.0", 8080)
    assert c.mqtt == MqttSpec("mqtt://hall.local:1883", "hall.local", 1883, False,
                              "regionale-2026", 7)
    assert c.state_dir == Path("/var/lib/damiera")
    assert c.speech.enabled and c.speech.voice is None and c.speech.rate == 160


def test_full_config_and_its_start_line(tmp_path: Path) -> None:
    path = tmp_path / "damiera.toml"
    path.write_text('variant = "International"\nclock = false\nsettle = 1.5\n'
                    'time_control = "40/7200:1800+30"\ntranscribed = false\n'
                    'event = "Open"\nsite = "Roma"\nround = 4\nboard = 12\n'
                    'white = "Müller"\nblack = "Smith"\nstate_dir = "state"\n')
    c = load_config(path)
    assert c.variant == "international" and c.round == "4"
    assert c.state_dir == tmp_path / "state"
    assert c.start_line("2026-11-22T0512-b12-001", "2026-11-22T05:12:00Z") == {
        "type": "start", "variant": "international", "fen": None, "clock": False,
        "transcribed": False, "settle": 1.5, "time_control": "40/7200:1800+30",
        "white": "Müller", "black": "Smith", "event": "Open", "round": "4", "site": "Roma",
        "board": 12, "id": "2026-11-22T0512-b12-001", "started_at": "2026-11-22T05:12:00Z"}


def test_no_time_control_spellings() -> None:
    assert parse_config('time_control = "-"').time_control is None
    assert parse_config('time_control = "?"').time_control is None


def test_time_control_warnings_cite_comp_5_3() -> None:
    assert parse_config('time_control = "600+5"').time_control_warnings()[0].startswith("COMP 5.3")
    assert parse_config('time_control = "7200"').time_control_warnings() == ()
    assert parse_config("").time_control_warnings() == ()


@pytest.mark.parametrize("text, key, problem", [
    ('variant = "chess"', "variant", "unknown variant"),
    ("variant = 8", "variant", "expected a string, got 8"),
    ('time_control = "30 minutes"', "time_control", ""),
    ('time_control = "99999999999"', "time_control", ""),
    ("time_control = 1800", "time_control", "expected a string"),
    ('fen = "W:W21-32:B1-12:X"', "fen", "invalid FEN"),
    ('fen = "W:W1:B2"\nvariant = "english"', "fen", "invalid FEN for english"),
    ('clock = "yes"', "clock", "expected true or false"),
    ("clock = 1", "clock", "expected true or false"),
    ("settle = nan", "settle", "not a finite number"),
    ("settle = inf", "settle", "not a finite number"),
    ("settle = -1", "settle", "out of range"),
    ("settle = 0", "settle", "out of range"),
    ("settle = 1e308", "settle", "out of range"),
    ("settle = 99999999999999999", "settle", "out of range"),
    ("settle = true", "settle", "expected a number"),
    ("board = 0", "board", "out of range 1..9999"),
    ("board = -3", "board", "out of range"),
    ("board = 9223372036854775807", "board", "out of range"),
    ("board = 1.5", "board", "expected an integer"),
    ("round = -1", "round", "out of range"),
    ('white = "a\\nb"', "white", "control characters"),
    ('white = "Ann\\u2028Lee"', "white", "control characters"),  # issue 38: split at by readers
    ('black = "Bob\\u0085Ray"', "black", "control characters"),
    ('event = "Open\\u2029"', "event", "control characters"),
    ('white = "   "', "white", "empty"),
    (f'event = "{"x" * 201}"', "event", "longer than 200"),
    ("event = 2026-11-22", "event", "expected a string, got date"),
    ("event = [1, 2]", "event", "expected a string, got an array"),
    ('event = {a = {b = "c"}}', "event", "expected a string, got a table"),
    ("colour = 1", "colour", "unknown key"),
    ("[display]\nx = 1", "display", "unknown key"),
    ('http = "8080"', "http", "expected host:port"),
    ('http = "0.0.0.0:99999"', "http", "out of range"),
    ('http = "0.0.0.0:0"', "http", "out of range"),
    ('http = ":8080"', "http", "no valid host"),
    ('http = "bad host:80"', "http", "no valid host"),
    ("mqtt = 1", "mqtt", "expected a table"),
    ('[mqtt]\nhall = "h"\nboard = "1"', "mqtt.url", "missing"),
    ('[mqtt]\nurl = "http://x"\nhall = "h"\nboard = "1"', "mqtt.url", "expected mqtt://"),
    ('[mqtt]\nurl = "mqtt://:p@x"\nhall = "h"\nboard = "1"', "mqtt.url", "empty user"),
    ('[mqtt]\nurl = "mqtt://x"\nhall = "h"\nboard = "1"\nca = "ca.pem"', "mqtt.ca", "mqtts"),
    ('[mqtt]\nurl = "mqtt://x/t"\nhall = "h"\nboard = "1"', "mqtt.url", "only a host"),
    ('[mqtt]\nurl = "mqtt://x"\nhall = "a/#"\nboard = "1"', "mqtt.hall", "topic level"),
    ('[mqtt]\nurl = "mqtt://x"\nhall = "h"', "mqtt.board", "missing"),
    ('[mqtt]\nurl = "mqtt://x"\nhall = "h"\nboard = "+"', "mqtt.board", "topic level"),
    ('[mqtt]\nurl = "mqtt://x"\nhall = "h"\nboard = "1"\nqos = 2', "mqtt.qos", "unknown key"),
])
def test_bad_values_are_one_line_naming_file_and_key(text: str, key: str, problem: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "damiera.toml")
    message = str(info.value)
    assert message.startswith(f"damiera.toml: {key}: "), message
    assert problem in message
    assert "\n" not in message and len(message) < 400


def test_mqtt_credentials_are_taken_out_of_the_url() -> None:
    c = parse_config('[mqtt]\nurl = "mqtts://board-7:p%40ss%3Aw@broker:8884"\nhall = "h"\n'
                     'board = 7\nca = "certs/ca.pem"', base=Path("/etc/damiera"))
    assert c.mqtt is not None
    assert (c.mqtt.url, c.mqtt.username, c.mqtt.password) == ("mqtts://broker:8884", "board-7",
                                                              "p@ss:w")
    assert c.mqtt.ca == Path("/etc/damiera/certs/ca.pem")
    assert "p@ss" not in repr(c.mqtt)


def test_mqtt_defaults() -> None:
    c = parse_config('board = 7\n[mqtt]\nurl = "mqtts://broker"\nhall = "h"')
    assert c.mqtt == MqttSpec("mqtts://broker", "broker", 8883, True, "h", 7)
    c = parse_config('[mqtt]\nurl = "mqtt://[::1]:1884"\nhall = "h"\nboard = 3')
    assert c.mqtt is not None and (c.mqtt.host, c.mqtt.port, c.mqtt.board) == ("::1", 1884, 3)


@pytest.mark.parametrize("value", ['7', '"7"', '9999', '"9999"'])
def test_mqtt_board_is_a_board_number_as_an_integer_or_its_canonical_text(value: str) -> None:
    """PROTOCOL.md: the hall names a board by its number; ``[mqtt] board`` gives it as an
    integer or as the string of one in canonical decimal."""
    c = parse_config(f'[mqtt]\nurl = "mqtt://x"\nhall = "h"\nboard = {value}')
    assert c.mqtt is not None and c.mqtt.board == int(value.strip('"'))


@pytest.mark.parametrize("value", ['"table-3"', '"07"', '"+7"', '" 7"', '"0"', '0', '-7',
                                   '10000', '"10000"', '7.0', 'true', '"٧"'])
def test_mqtt_board_other_than_a_board_number_is_refused_in_one_line(value: str) -> None:
    """A topic segment that is not a board's number (``table-3``, ``07``: once two boards of
    the hall besides board 7) is refused where the config is read, not dropped by the hub."""
    with pytest.raises(ConfigError) as info:
        parse_config(f'[mqtt]\nurl = "mqtt://x"\nhall = "h"\nboard = {value}', "damiera.toml")
    message = str(info.value)
    assert message.startswith("damiera.toml: mqtt.board: a board number 1..9999"), message
    assert "\n" not in message and len(message) < 200


def test_ipv6_http() -> None:
    assert parse_config('http = "[::]:8080"').http == HttpSpec("::", 8080)


def test_http_text_outside_a_file_reads_as_the_key_does() -> None:
    # ``damiera run --http`` and ``damiera hub --http``: no TOML document around the value.
    assert parse_http(" [::]:8080 ", ValueError) == HttpSpec("::", 8080)
    assert parse_http("board-7.local:80", ValueError) == HttpSpec("board-7.local", 80)
    for value in ("8080", "[::]:0", "a b:80", "h:80\n", "", "h:" + "1" * 300):
        with pytest.raises(ConfigError) as from_file:
            parse_config(f"http = {value!r}".replace("'", '"'))
        with pytest.raises(ValueError) as from_text:
            parse_http(value, ValueError)
        assert str(from_text.value) == from_file.value.problem


def test_not_toml_and_deep_nesting_are_one_line() -> None:
    for text in ("variant = ", "x = " + "[" * 30000 + "]" * 30000,
                 "x = " + "{a = " * 10000 + "1" + "}" * 10000):
        with pytest.raises(ConfigError, match=r"^damiera.toml: not valid TOML") as info:
            parse_config(text)
        assert "\n" not in str(info.value)


def test_unknown_key_with_odd_characters_is_shown_safely() -> None:
    with pytest.raises(ConfigError) as info:
        parse_config('"a\\nb" = 1')
    assert "\n" not in str(info.value) and "unknown key" in str(info.value)


def test_file_limits(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * MAX_CONFIG_BYTES)
    with pytest.raises(ConfigError, match="larger than"):
        load_config(big)
    binary = tmp_path / "bin.toml"
    binary.write_bytes(b"variant = \"\xff\"")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(binary)
    with pytest.raises(ConfigError, match=r"nope.toml: cannot read the file"):
        load_config(tmp_path / "nope.toml")
    with pytest.raises(ConfigError, match="larger than"):
        load_config("/dev/zero")


def test_config_is_frozen() -> None:
    c = parse_config("")
    with pytest.raises(AttributeError):
        c.variant = "english"  # type: ignore[misc]
