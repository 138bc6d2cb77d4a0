"""The hub's configuration file, ``hub.toml`` (written by ``damiera hub init``), read as strictly as
``damiera.toml`` (``pi.board.config``): every problem is one :class:`pi.board.config.ConfigError` line naming
the file and the key; unknown keys are refused.

    hall = "hall"                  # the hall's topic segment (damiera/<hall>/boards/…)
    event = "Italian championship" # pushed with the pairings; names the round feeds
    broadcast_delay = 15           # minutes the public feeds lag behind (0: live)
    http = "0.0.0.0:8080"          # where the hub serves the hall
    state_dir = "state"            # the replicas and the hub's files (relative: to this file)
    [mqtt]
    url = "mqtt://hub:secret@broker.local:1883"
    ca = "ca.crt"                  # optional, mqtts only

The command line's ``--mqtt``, ``--http`` and ``--state-dir`` override the file's values.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from pi.board.config import (HttpSpec, MqttSpec, TomlReader, load_toml, parse_http, parse_mqtt_url,
                             read_config_text)
from pi.board.errors import ConfigError

__all__ = ["HubConfig", "load_hub_config", "parse_hub_config", "hub_config_from_args",
           "DEFAULT_HALL", "DEFAULT_HTTP"]

DEFAULT_HALL = "hall"
DEFAULT_HTTP = HttpSpec("127.0.0.1", 8080)
_TOP_KEYS = frozenset({"hall", "event", "broadcast_delay", "http", "state_dir", "mqtt"})
_MQTT_KEYS = frozenset({"url", "ca"})


@dataclass(frozen=True, slots=True)
class HubConfig:
    """A validated hub configuration. ``mqtt.board`` is empty (the hub is no board);
    ``state_dir`` is absolute or None (then ``--state-dir`` is required)."""

    source: str = "hub.toml"
    hall: str = DEFAULT_HALL
    event: str | None = None
    broadcast_delay: float = 0.0
    http: HttpSpec = field(default_factory=lambda: DEFAULT_HTTP)
    state_dir: Path | None = None
    mqtt: MqttSpec | None = None


def load_hub_config(path: str | os.PathLike[str]) -> HubConfig:
    """Reads and validates ``path``. Raises ConfigError (one line)."""
    return parse_hub_config(read_config_text(path), str(path), base=Path(path).resolve().parent)


def parse_hub_config(text: str, source: str = "hub.toml", base: Path | None = None) -> HubConfig:
    """Validates TOML ``text``; relative paths (``state_dir``, ``mqtt.ca``) are taken from
    ``base`` (the file's folder; the working directory when None)."""
    r = TomlReader(source, load_toml(text, source))
    r.check_keys(_TOP_KEYS)
    hall = r.text("hall", DEFAULT_HALL, limit=64) or DEFAULT_HALL
    _check_hall(r, hall)
    http = DEFAULT_HTTP
    http_text = r.text("http", None, limit=300)
    if http_text is not None:
        http = parse_http(http_text, lambda problem: r.error("http", problem))
    state_dir = r.text("state_dir", None, limit=4096)
    root = base or Path.cwd()
    mqtt = None
    m = r.sub("mqtt")
    if m is not None:
        m.check_keys(_MQTT_KEYS)
        url = m.text("url", ..., limit=300)
        assert url is not None
        spec = parse_mqtt_url(url, lambda problem: m.error("url", problem))
        ca_text = m.text("ca", None, limit=4096)
        if ca_text is not None and not spec.tls:
            raise m.error("ca", "a CA file is for mqtts:// only")
        mqtt = replace(spec, hall=hall, ca=None if ca_text is None else root / ca_text)
    return HubConfig(source=source, hall=hall, event=r.text("event", None),
                     broadcast_delay=r.number("broadcast_delay", 0.0, 0.0, 24 * 60.0),
                     http=http, state_dir=None if state_dir is None else root / state_dir,
                     mqtt=mqtt)


def _check_hall(r: TomlReader, hall: str) -> None:
    from pi.hall.protocol import SEGMENT
    if not SEGMENT.fullmatch(hall):
        raise r.error("hall", "letters, digits, '.', '_' or '-' only (an MQTT topic level)")


def hub_config_from_args(config: str | None, mqtt: str | None, http: str | None,
                         state_dir: str | None) -> HubConfig:
    """The file's configuration (or the defaults) with the command line's overrides. Raises
    ConfigError (one line; ``--mqtt`` etc. named as the key) and requires a broker and a state
    directory from one or the other."""
    cfg = load_hub_config(config) if config is not None else HubConfig(source="command line")
    cli = TomlReader("command line", {})
    if mqtt is not None:
        spec = parse_mqtt_url(mqtt, lambda problem: cli.error("--mqtt", problem))
        cfg = replace(cfg, mqtt=replace(spec, hall=cfg.hall))
    if http is not None:
        cfg = replace(cfg, http=parse_http(http, lambda problem: cli.error("--http", problem)))
    if state_dir is not None:
        cfg = replace(cfg, state_dir=Path(state_dir).resolve())
    if cfg.mqtt is None:
        raise ConfigError(cfg.source, "mqtt", "no broker: give --config DIR/hub.toml (written "
                          "by damiera hub init --boards N --dir DIR), --mqtt URL or [mqtt] url")
    if cfg.state_dir is None:
        raise ConfigError(cfg.source, "state_dir", "no state directory: give --state-dir DIR "
                                                   "or state_dir")
    return cfg
