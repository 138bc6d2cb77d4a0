"""The hub's configuration file, ``hub.toml`` (written by ``damiera hub init``), read as strictly as
``damiera.toml`` (``pi.board.config``): every problem is one :class:`pi.board.config.ConfigError` line naming
the file and the key; unknown keys are refused.

    hall = "hall"                  # the hall's topic segment (damiera/<hall>/boards/…)
    event = "Italian championship" # pushed with the pairings; names the round feeds
    broadcast_delay = 15           # minutes the public feeds lag behind (0: live)
    http = "0.0.0.0:8080"          # where the hub serves the hall
    state_dir = "state"            # the replicas and the hub's files (relative: to this file)
    accept_unsigned = ["12"]       # boards whose lines are taken without a key (old boards)
    nchan = "http://127.0.0.1:8091"  # nginx's nchan publisher: the public live streams go there
    behind_nginx = true            # nginx in front: its X-Real-IP names who asked (from 127.0.0.1)
    [mqtt]
    url = "mqtts://hub:secret@broker.local:8883"
    ca = "ca.crt"                  # optional, mqtts only
    [keys]                         # each board's key: its journal lines must verify
    "1" = "<64 hex digits>"
    [standings]                    # the standings page (pi.hall.standings); both optional
    points = "2-1-0"               # win-draw-loss (COMP 6.14; "1-½-0" also reads)
    tie_break = ["buchholz", "sonneborn-berger"]  # in order (COMP 6.21 b), also "wins",
                                   # "direct-encounter"

Journal lines and ``status`` of a board with a key must carry its ``mac`` (``pi.hall.signing``);
a board without a key is refused unless ``accept_unsigned`` names it (PROTOCOL.md, "Signed
lines").

The command line's ``--mqtt``, ``--http`` and ``--state-dir`` override the file's values.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from pi.board.config import (MAX_BOARD, PASSWORD_VISIBLE, HttpSpec, MqttSpec, TomlReader,
                             load_toml, parse_board, parse_http, parse_mqtt_url,
                             read_config_text, with_password_file)
from pi.board.errors import ConfigError
from pi.hall.standings import DEFAULT_SCORING, Scoring, parse_points, parse_tie_breaks

__all__ = ["HubConfig", "load_hub_config", "parse_hub_config", "MAX_HUB_CONFIG_BYTES",
           "hub_config_from_args", "DEFAULT_HALL", "DEFAULT_HTTP"]

log = logging.getLogger(__name__)

DEFAULT_HALL = "hall"
#: ``hub.toml`` larger than this is refused unread. It holds a line per board's key (~76 bytes:
#: ``hub init``'s largest hall, 9,999 boards, writes ~770 kB), where a board's
#: ``damiera.toml`` stays within ``MAX_CONFIG_BYTES`` (64 KiB: passed at ~850 boards).
MAX_HUB_CONFIG_BYTES = 1024 * 1024
DEFAULT_HTTP = HttpSpec("127.0.0.1", 8080)
_TOP_KEYS = frozenset({"hall", "event", "broadcast_delay", "http", "state_dir", "mqtt",
                       "keys", "accept_unsigned", "nchan", "behind_nginx", "standings"})
_MQTT_KEYS = frozenset({"url", "ca"})
_STANDINGS_KEYS = frozenset({"points", "tie_break"})


@dataclass(frozen=True, slots=True)
class HubConfig:
    """A validated hub configuration. ``mqtt.board`` is None (the hub is no board);
    ``state_dir`` is absolute or None (then ``--state-dir`` is required)."""

    source: str = "hub.toml"
    hall: str = DEFAULT_HALL
    event: str | None = None
    broadcast_delay: float = 0.0
    http: HttpSpec = field(default_factory=lambda: DEFAULT_HTTP)
    state_dir: Path | None = None
    mqtt: MqttSpec | None = None
    #: board → its key (the HMAC of its journal lines and status, ``pi.hall.signing``)
    keys: Mapping[int, bytes] = field(default_factory=dict, repr=False)
    #: boards without a key whose unsigned lines are taken all the same (named one by one)
    accept_unsigned: frozenset[int] = frozenset()
    #: nginx's nchan publisher (``http://127.0.0.1:PORT``, loopback only), where the hub
    #: publishes its public live streams for nginx to fan out (``pi.hall.nchan``); None: none
    nchan: str | None = None
    #: nginx in front of the hub (``hub init --nginx``): a request from nginx (127.0.0.1) is
    #: taken as from the address its ``X-Real-IP`` names (``pi.web.site.real_address``: the
    #: arbiter's wrong tokens throttled and logged per spectator, not all as nginx's)
    behind_nginx: bool = False
    #: how the standings score a game and tell equal players apart (``[standings]``)
    standings: Scoring = DEFAULT_SCORING

    def boards(self) -> list[int]:
        """The boards this configuration names (``[keys]`` and ``accept_unsigned``), in
        board order."""
        return sorted(set(self.keys) | self.accept_unsigned)

    def signing(self, board: int) -> str:
        """``signed`` (the board has a key), ``unsigned`` (accepted by name) or ``refused``."""
        if board in self.keys:
            return "signed"
        return "unsigned" if board in self.accept_unsigned else "refused"


def load_hub_config(path: str | os.PathLike[str]) -> HubConfig:
    """Reads and validates ``path`` (at most :data:`MAX_HUB_CONFIG_BYTES`). Raises ConfigError
    (one line)."""
    return parse_hub_config(read_config_text(path, MAX_HUB_CONFIG_BYTES), str(path),
                            base=Path(path).resolve().parent)


def parse_hub_config(text: str, source: str = "hub.toml", base: Path | None = None) -> HubConfig:
    """Validates TOML ``text``; relative paths (``state_dir``, ``mqtt.ca``) are taken from
    ``base`` (the file's folder; the working directory when None)."""
    r = TomlReader(source, load_toml(text, source, MAX_HUB_CONFIG_BYTES))
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
                     mqtt=mqtt, keys=_keys(r), accept_unsigned=_unsigned(r),
                     nchan=_nchan(r), behind_nginx=r.boolean("behind_nginx", False),
                     standings=_standings(r))


def _standings(r: TomlReader) -> Scoring:
    """``[standings]``: ``points`` (win-draw-loss, default COMP 6.14's 2-1-0) and
    ``tie_break`` (default COMP 6.21 b: Buchholz, then Sonneborn-Berger)."""
    s = r.sub("standings")
    if s is None:
        return DEFAULT_SCORING
    s.check_keys(_STANDINGS_KEYS)
    scoring = DEFAULT_SCORING
    text = s.text("points", None, limit=40)
    if text is not None:
        try:
            win, draw, loss = parse_points(text)
        except ValueError as exc:
            raise s.error("points", str(exc)) from None
        scoring = replace(scoring, win=win, draw=draw, loss=loss)
    if "tie_break" in s.table:
        try:
            scoring = replace(scoring, tie_break=parse_tie_breaks(s.table["tie_break"]))
        except ValueError as exc:
            raise s.error("tie_break", str(exc)) from None
    return scoring


def _nchan(r: TomlReader) -> str | None:
    """``nchan``: an http:// URL on this machine's loopback (the hub's events are public, but
    whoever takes them could publish to nginx's spectators: never another machine)."""
    from urllib.parse import urlsplit
    text = r.text("nchan", None, limit=300)
    if text is None:
        return None
    try:
        url = urlsplit(text)
        port = url.port
    except ValueError:
        url, port = None, None
    if url is None or url.scheme != "http" or url.hostname not in ("127.0.0.1", "::1",
                                                                      "localhost") \
            or port is None or url.path not in ("", "/") or url.query or url.username:
        raise r.error("nchan", "http://127.0.0.1:PORT, nginx's nchan publisher on this "
                               "machine's loopback ('damiera hub init' writes it)")
    return text.rstrip("/")


def _keys(r: TomlReader) -> dict[int, bytes]:
    from pi.hall.signing import parse_key
    k = r.sub("keys")
    if k is None:
        return {}
    out = {}
    for name in k.table:
        board = parse_board(name) if isinstance(name, str) else None
        if board is None:
            raise k.error(str(name)[:40], f"a board's number 1..{MAX_BOARD} in canonical "
                                          "decimal (the hall names boards by number)")
        text = k.text(name, ..., limit=200)
        assert text is not None
        try:
            out[board] = parse_key(text)
        except ValueError as exc:
            raise k.error(name, str(exc)) from None
    return out


def _unsigned(r: TomlReader) -> frozenset[int]:
    value = r.table.get("accept_unsigned", [])
    if not isinstance(value, list) or not all(isinstance(v, (str, int)) and
                                               not isinstance(v, bool) for v in value):
        raise r.error("accept_unsigned", "a list of board numbers")
    boards = set()
    for v in value:
        board = parse_board(v) if isinstance(v, str) else v if 1 <= v <= MAX_BOARD else None
        if board is None:
            raise r.error("accept_unsigned", f"not a board number 1..{MAX_BOARD}: {str(v)[:40]!r}")
        boards.add(board)
    return frozenset(boards)


def _check_hall(r: TomlReader, hall: str) -> None:
    from pi.hall.protocol import SEGMENT
    if not SEGMENT.fullmatch(hall):
        raise r.error("hall", "letters, digits, '.', '_' or '-' only (an MQTT topic level)")


def hub_config_from_args(config: str | None, mqtt: str | None, http: str | None,
                         state_dir: str | None,
                         accept_unsigned: list[str] | None = None,
                         mqtt_password_file: str | None = None) -> HubConfig:
    """The file's configuration (or the defaults) with the command line's overrides. Raises
    ConfigError (one line; ``--mqtt`` etc. named as the key) and requires a broker and a state
    directory from one or the other."""
    cfg = load_hub_config(config) if config is not None else HubConfig(source="command line")
    cli = TomlReader("command line", {})
    if mqtt is not None:
        spec = parse_mqtt_url(mqtt, lambda problem: cli.error("--mqtt", problem))
        if spec.password is not None:
            log.warning(PASSWORD_VISIBLE)
        cfg = replace(cfg, mqtt=replace(spec, hall=cfg.hall))
    if mqtt_password_file is not None:
        if cfg.mqtt is None:
            raise cli.error("--mqtt-password-file", "needs --mqtt (or [mqtt] url)")
        cfg = replace(cfg, mqtt=with_password_file(
            cfg.mqtt, mqtt_password_file,
            lambda problem: cli.error("--mqtt-password-file", problem)))
    if http is not None:
        cfg = replace(cfg, http=parse_http(http, lambda problem: cli.error("--http", problem)))
    if state_dir is not None:
        cfg = replace(cfg, state_dir=Path(state_dir).resolve())
    if accept_unsigned:
        named = [parse_board(b) for b in accept_unsigned]
        bad = [b for b, n in zip(accept_unsigned, named, strict=True) if n is None]
        if bad:
            raise cli.error("--accept-unsigned", f"not a board number 1..{MAX_BOARD}: "
                                                 f"{bad[0][:40]!r}")
        cfg = replace(cfg, accept_unsigned=cfg.accept_unsigned |
                      frozenset(n for n in named if n is not None))
    if cfg.mqtt is None:
        raise ConfigError(cfg.source, "mqtt", "no broker: give --config DIR/hub.toml (written "
                          "by damiera hub init --boards N --dir DIR), --mqtt URL or [mqtt] url")
    if cfg.state_dir is None:
        raise ConfigError(cfg.source, "state_dir", "no state directory: give --state-dir DIR "
                                                   "or state_dir")
    return cfg
