"""The broker password as a systemd credential (issue 17): ``[mqtt] password_credential = NAME``
reads ``$CREDENTIALS_DIRECTORY/NAME`` (what ``LoadCredential=`` in install-pi.sh's drop-in gives
the service) instead of a password in the config file; every problem is one line naming the key
and never the secret."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi.board.config import MAX_CREDENTIAL_BYTES, parse_config, read_credential
from pi.board.errors import ConfigError

ROOT = Path(__file__).resolve().parents[2]
MQTT = '[mqtt]\nurl = "mqtts://board-7@hall.local:8883"\nhall = "open"\nboard = 7\n'
SECRET = "Zq3-v9/secret+pw"


@pytest.fixture
def credentials(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A credentials folder as systemd makes it, named by $CREDENTIALS_DIRECTORY."""
    folder = tmp_path / "credentials"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(folder))
    return folder


def test_password_comes_from_the_credential(credentials: Path) -> None:
    (credentials / "mqtt-password").write_text(SECRET + "\n")  # as `echo` leaves it
    c = parse_config(MQTT + 'password_credential = "mqtt-password"\n')
    assert c.mqtt is not None
    assert (c.mqtt.url, c.mqtt.username, c.mqtt.password) == (
        "mqtts://hall.local:8883", "board-7", SECRET)
    assert SECRET not in repr(c)


def test_without_the_key_the_credentials_are_not_read(credentials: Path) -> None:
    (credentials / "mqtt-password").write_text(SECRET)
    c = parse_config(MQTT)
    assert c.mqtt is not None and c.mqtt.password is None


@pytest.mark.parametrize("extra, content, problem", [
    ('password_credential = "absent"', None, "credential 'absent': cannot read it"),
    ('password_credential = "../mqtt-password"', SECRET, "not a credential name"),
    ('password_credential = ".hidden"', SECRET, "not a credential name"),
    ('password_credential = "mqtt-password"', "", "empty or not one line"),
    ('password_credential = "mqtt-password"', "\n", "empty or not one line"),
    ('password_credential = "mqtt-password"', SECRET + "\nsecond", "empty or not one line"),
    ('password_credential = "mqtt-password"', "x" * (MAX_CREDENTIAL_BYTES + 1), "larger than"),
    ('password_credential = "mqtt-password"', b"\xff\xfe", "not UTF-8"),
])
def test_bad_credentials_are_one_line_without_the_secret(
        credentials: Path, extra: str, content: str | bytes | None, problem: str) -> None:
    if content is not None:
        path = credentials / "mqtt-password"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    with pytest.raises(ConfigError) as info:
        parse_config(MQTT + extra + "\n")
    message = str(info.value)
    assert message.startswith("damiera.toml: mqtt.password_credential: "), message
    assert problem in message and "\n" not in message and SECRET not in message


def test_a_password_given_twice_or_without_a_user_is_refused(credentials: Path) -> None:
    (credentials / "mqtt-password").write_text(SECRET)
    with_password = MQTT.replace("board-7@", "board-7:pw@")
    with pytest.raises(ConfigError, match="holds a password too"):
        parse_config(with_password + 'password_credential = "mqtt-password"\n')
    without_user = MQTT.replace("board-7@", "")
    with pytest.raises(ConfigError, match="names no user"):
        parse_config(without_user + 'password_credential = "mqtt-password"\n')


def test_outside_systemd_the_missing_directory_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)
    with pytest.raises(ConfigError, match=r"no \$CREDENTIALS_DIRECTORY.*LoadCredential="):
        parse_config(MQTT + 'password_credential = "mqtt-password"\n')


def test_read_credential_takes_the_environment_it_is_given(tmp_path: Path) -> None:
    (tmp_path / "signing-key").write_text("k" * 64 + "\r\n")
    assert read_credential("signing-key", ValueError,
                           {"CREDENTIALS_DIRECTORY": str(tmp_path)}) == "k" * 64
    with pytest.raises(ValueError, match="no \\$CREDENTIALS_DIRECTORY"):
        read_credential("signing-key", ValueError, {})


def test_the_example_config_documents_the_key() -> None:
    example = (ROOT / "pi" / "damiera.example.toml").read_text()
    assert '`password_credential = "mqtt-password"`' in example
    assert "install-pi.sh --credential mqtt-password=FILE" in example
