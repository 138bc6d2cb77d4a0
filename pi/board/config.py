"""The daemon's configuration file, ``damiera.toml``: what game the board runs and where it keeps it.

:func:`load_config` reads and validates a file into a frozen :class:`Config`; every problem is a
:class:`ConfigError` of one line naming the file and the key (``damiera.toml: time_control: …``).
Unknown keys are refused (a misspelt key must not be silently ignored at a tournament), numbers
of absurd kind or size (NaN, infinities, negatives, huge) are refused, the file is read with a
size limit, and TOML nested too deeply to parse is an error, not a crash.

Every key, with its default, is documented in ``pi/damiera.example.toml``. Values are checked
with the engine's own readers: the variant with ``engine.variants.find_variant``, the FEN with
``engine.board.Board``, the time control with ``engine.timecontrol.parse_time_control_tag``.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
import urllib.parse
from types import EllipsisType
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from engine.board import Board
from engine.errors import InputError
from engine.events import GameStarted
from engine.i18n import DEFAULT_LANGUAGE, LANGUAGES
from engine.timecontrol import (MAX_TIME_CONTROL_CHARS, minimum_time_warnings,
                                parse_time_control_tag)
from engine.trace import one_line_problem
from engine.variants import find_variant
from pi.board.localtime import zone_named
from pi.board.errors import ConfigError
from pi.drivers.speech import DEFAULT_RATE, DEFAULT_VOLUME, VOICE_PATTERN

__all__ = ["Config", "HttpSpec", "MqttSpec", "SpeechSpec", "load_config", "parse_config",
           "parse_http", "parse_host_port", "parse_mqtt_url", "read_secret_file",
           "with_password_file", "PASSWORD_VISIBLE", "read_config_text", "load_toml", "TomlReader",
           "read_credential", "MAX_CONFIG_BYTES", "MAX_CREDENTIAL_BYTES", "MAX_BOARD", "BOARD_PATTERN",
           "parse_board"]

#: A configuration file larger than this is refused unread (the example is ~3 kB).
MAX_CONFIG_BYTES = 64 * 1024
_MAX_TEXT = 200          # event/site/players: a PDN tag value, one line
#: A board's number is 1..MAX_BOARD: the hall names boards by it (``parse_board``).
MAX_BOARD = 9999
_MAX_SETTLE = 60.0       # seconds; longer would make a let-go move feel lost
_EXCERPT = 40
_MAX_HTTP = 300          # characters of an http = "host:port"
_TOP_KEYS = frozenset({"variant", "clock", "time_control", "settle", "transcribed", "fen", "event",
                       "site", "round", "board", "white", "black", "state_dir", "http", "mqtt",
                       "broadcast_delay", "language", "speech", "simulate", "timezone"})
_MQTT_KEYS = frozenset({"url", "hall", "board", "ca", "password_credential", "key",
                        "key_credential"})
_SPEECH_KEYS = frozenset({"enabled", "voice", "rate", "volume", "output"})
#: A credential (a password, a key) larger than this is refused unread.
MAX_CREDENTIAL_BYTES = 4096
_TOPIC_SEGMENT = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_HOSTNAME = re.compile(r"(?=.{1,253}\Z)[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?")


#: A board's number as text (a regular expression): canonical decimal, 1..MAX_BOARD digits long.
BOARD_PATTERN = r"[1-9][0-9]{0,%d}" % (len(str(MAX_BOARD)) - 1)
_BOARD_TEXT = re.compile(BOARD_PATTERN)


def parse_board(text: str) -> int | None:
    """A board's number written as text (an MQTT topic segment, a URL, a folder's name, a file's
    field): canonical decimal 1..:data:`MAX_BOARD` — ASCII digits, no sign, no leading zero,
    no space — else None (the caller says why in its own one line). ``str(n)`` writes it
    back: the two are each other's inverse."""
    if not isinstance(text, str) or _BOARD_TEXT.fullmatch(text) is None:
        return None
    number = int(text)
    return number if number <= MAX_BOARD else None


@dataclass(frozen=True, slots=True)
class HttpSpec:
    """Where the web server listens (issue 8's HTTP server; the daemon only carries it)."""

    host: str
    port: int


@dataclass(frozen=True, slots=True)
class MqttSpec:
    """The hall's MQTT broker: ``url`` (``mqtt://`` or ``mqtts://``, host and port; the
    credentials taken out of it, so that it can be logged), the ``hall`` topic segment and
    the ``board``'s number (None: not given yet, or the hub's), the ``username`` and
    ``password`` given in the URL (``mqtt://user:pw@host``, percent-encoded), ``ca``: a CA
    certificate file for mqtts (None: the system's), and ``key``:
    the board's own key that signs its journal lines for the hub (``pi/hall/PROTOCOL.md``; 32
    bytes, 64 hex digits in the file; None: the board's lines go unsigned)."""

    url: str
    host: str
    port: int
    tls: bool
    hall: str
    board: int | None
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca: Path | None = None
    key: bytes | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class SpeechSpec:
    """``[speech]``: the board says moves, irregularities and the clock's warnings
    (``pi.board.speech``, espeak-ng). ``enabled`` (default false); ``voice``: an espeak-ng voice
    (``it``, ``en``, ``en-gb``, ``it+f3``), None: the board's language's; ``rate``: words a minute
    (espeak-ng's ``-s``, 80..450); ``volume``: espeak-ng's amplitude ``-a``, 0..200 (100
    normal); ``wav_dir``: each phrase written there as a WAV file (``output = "wav:DIR"``,
    relative to the config file's folder) instead of played on the audio device (None)."""

    enabled: bool = False
    voice: str | None = None
    rate: int = DEFAULT_RATE
    volume: int = DEFAULT_VOLUME
    wav_dir: Path | None = None


@dataclass(frozen=True, slots=True)
class Config:
    """A validated ``damiera.toml``. ``variant`` is the registry's name; ``time_control`` None
    means no time control; ``state_dir`` is absolute or None (then the command line or systemd
    decide, see ``pi.board.statedir.resolve_state_dir``)."""

    source: str = "damiera.toml"
    variant: str = "italian"
    clock: bool = True
    time_control: str | None = None
    settle: float = 2.0
    transcribed: bool = True
    fen: str | None = None
    event: str | None = None
    site: str | None = None
    round: str | None = None
    board: int | None = None
    white: str | None = None
    black: str | None = None
    state_dir: Path | None = None
    http: HttpSpec | None = None
    mqtt: MqttSpec | None = None
    #: Minutes the public web feeds lag behind the board (anti-cheating rules ask for 15).
    broadcast_delay: float = 0.0
    #: ``[speech]``: the board's voice (off by default)
    speech: SpeechSpec = SpeechSpec()
    #: "arbiter": the next game's clock waits for the arbiter's start_clock (a hall's round,
    #: set by its pairing); None: it starts with the game
    clock_start: str | None = None
    #: The language of the board's screen and terminal, one of ``engine.i18n.LANGUAGES``
    #: ("en", "it"); the web pages follow each viewer's browser instead.
    language: str = DEFAULT_LANGUAGE
    #: ``simulate = true``: ``damiera run`` plays on the simulated board (as ``--simulate``:
    #: fake I2C bus, gpiozero MockFactory, luma dummy OLED), e.g. a demo board or a kiosk run by
    #: the installed service, whose command line is the unit's.
    simulate: bool = False
    #: ``timezone``: the board's IANA time zone (``Europe/Rome``) for the record's Date and the
    #: report's times of day (``pi.board.localtime``); None: the system's.
    timezone: str | None = None

    def game_started(self) -> GameStarted:
        """The start of a game under this configuration, as the arbiter takes it."""
        tags = tuple((k, v) for k, v in (("white", self.white), ("black", self.black),
                                          ("event", self.event), ("round", self.round))
                     if v is not None)
        return GameStarted(variant=self.variant, fen=self.fen, clock=self.clock,
                           transcribed=self.transcribed, settle=self.settle,
                           time_control=self.time_control, tags=tags,
                           clock_start=self.clock_start)

    def start_line(self, game_id: str | None = None, started_at: str | None = None
                   ) -> dict[str, Any]:
        """The journal's start line (docs/trace-format.md): :meth:`game_started` plus ``site``, ``board``,
        ``id`` and ``started_at`` (ISO 8601 UTC) when known."""
        line = self.game_started().to_dict()
        for key, value in (("site", self.site), ("board", self.board), ("id", game_id),
                           ("started_at", started_at), ("timezone", self.timezone)):
            if value is not None:
                line[key] = value
        return line

    def time_control_warnings(self) -> tuple[str, ...]:
        """Where the time control falls short of COMP 5.3/5.6 (one line each; to log at start)."""
        control = parse_time_control_tag(self.time_control) if self.time_control else None
        return minimum_time_warnings(control, self.variant) if control is not None else ()


def load_config(path: str | os.PathLike[str]) -> Config:
    """Reads and validates the file ``path``. Raises ConfigError (one line)."""
    return parse_config(read_config_text(path), str(path), base=Path(path).resolve().parent)


def read_config_text(path: str | os.PathLike[str], limit: int = MAX_CONFIG_BYTES) -> str:
    """The text of a configuration file, read with a size limit (``limit`` bytes). Raises
    ConfigError (one line: unreadable, too large, not UTF-8). Shared by ``damiera.toml`` and the
    hub's ``hub.toml`` (whose limit is its own: it holds a key per board of the hall)."""
    source = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise ConfigError(source, "", f"cannot read the file ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise ConfigError(source, "", f"larger than {limit} bytes; not a config file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(source, "", f"not UTF-8 text (byte {exc.start})") from None
    return text


def parse_config(text: str, source: str = "damiera.toml", base: Path | None = None) -> Config:
    """Validates TOML ``text``; ``source`` names it in errors; a relative ``state_dir`` is taken
    from ``base`` (the config file's folder; the working directory when None)."""
    r = TomlReader(source, load_toml(text, source))
    r.check_keys(_TOP_KEYS)
    try:
        variant = find_variant(r.text("variant", "italian", limit=32) or "italian").name
    except InputError as exc:
        raise r.error("variant", str(exc)) from None
    time_control = r.text("time_control", None, limit=MAX_TIME_CONTROL_CHARS)
    if time_control is not None:
        try:
            if parse_time_control_tag(time_control) is None:
                time_control = None  # "-", "?" or empty: no time control
        except InputError as exc:
            raise r.error("time_control", str(exc)) from None
    fen = r.text("fen", None, limit=400)
    if fen is not None:
        try:
            Board(fen, variant)
        except InputError as exc:
            raise r.error("fen", f"invalid FEN for {variant}: {exc}") from None
    board = r.integer("board", None, 1, MAX_BOARD)
    language = r.text("language", DEFAULT_LANGUAGE, limit=8) or DEFAULT_LANGUAGE
    if language not in LANGUAGES:
        raise r.error("language", f"unknown language {language!r}: expected one of "
                                  f"{', '.join(LANGUAGES)}")
    state_dir = r.text("state_dir", None, limit=4096)
    zone = r.text("timezone", None, limit=64)
    if zone is not None and zone_named(zone) is None:
        raise r.error("timezone", f"unknown time zone {_excerpt(zone)}: an IANA name such as "
                                  "Europe/Rome (default: the system's)")
    return Config(
        source=source, variant=variant, clock=r.boolean("clock", True), time_control=time_control,
        settle=r.number("settle", 2.0, 0.0, _MAX_SETTLE, low_open=True),
        transcribed=r.boolean("transcribed", True), fen=fen,
        event=r.text("event", None), site=r.text("site", None),
        round=r.text("round", None, limit=32, allow_int=True), board=board,
        white=r.text("white", None), black=r.text("black", None),
        state_dir=(base or Path.cwd()) / state_dir if state_dir is not None else None,
        http=_http(r), mqtt=_mqtt(r, board, base),
        broadcast_delay=r.number("broadcast_delay", 0.0, 0.0, 24 * 60.0), language=language,
        speech=_speech(r, base, language), simulate=r.boolean("simulate", False),
        timezone=zone)


def _speech(r: TomlReader, base: Path | None, language: str) -> SpeechSpec:
    """``[speech]`` (absent: off); its voice must speak the board's ``language`` (the phrases
    are in it)."""
    m = r.sub("speech")
    if m is None:
        return SpeechSpec()
    m.check_keys(_SPEECH_KEYS)
    voice = m.text("voice", None, limit=40)
    if voice is not None and not VOICE_PATTERN.fullmatch(voice):
        raise m.error("voice", f"not an espeak-ng voice name (it, en, en-gb, it+f3): "
                               f"{_excerpt(voice)}")
    if voice is not None and voice.split("+")[0].split("-")[0] != language:
        raise m.error("voice", f"{voice!r} does not speak the board's language {language!r} "
                               "(language = …, at the top of the file)")
    rate = m.integer("rate", DEFAULT_RATE, 80, 450)
    volume = m.integer("volume", DEFAULT_VOLUME, 0, 200)
    assert rate is not None and volume is not None
    output = m.text("output", "audio", limit=4096) or "audio"
    wav_dir = None
    if output.startswith("wav:"):
        folder = output[4:].strip()
        if not folder:
            raise m.error("output", 'wav: needs a folder, e.g. "wav:spoken"')
        wav_dir = (base or Path.cwd()) / folder
    elif output != "audio":
        raise m.error("output", f'expected "audio" or "wav:DIR", got {_excerpt(output)}')
    return SpeechSpec(enabled=m.boolean("enabled", False), voice=voice, rate=rate,
                      volume=volume, wav_dir=wav_dir)


def load_toml(text: str, source: str, limit: int = MAX_CONFIG_BYTES) -> dict[str, Any]:
    """The TOML document ``text`` (at most ``limit`` characters) as a table. Raises ConfigError
    (one line naming ``source``): too large, not TOML, nested too deeply to parse. Shared by
    ``damiera.toml`` and the hub's ``hub.toml``."""
    if len(text) > limit:
        raise ConfigError(source, "", f"larger than {limit} bytes; not a config file")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(source, "", f"not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(source, "", "not valid TOML: nested too deeply") from None
    except ValueError:  # tomllib's int() of a literal over Python's 4,300 digits
        raise ConfigError(source, "", "not valid TOML: a number too long to read "
                          "(more than 4,300 digits)") from None


def _http(r: TomlReader) -> HttpSpec | None:
    value = r.text("http", None, limit=_MAX_HTTP)
    if value is None:
        return None
    return parse_http(value, lambda problem: r.error("http", problem))


def parse_http(value: str, error: Callable[[str], Exception]) -> HttpSpec:
    """``HOST:PORT`` (``0.0.0.0:8080``, ``[::]:8080``), checked as the ``http`` key of
    ``damiera.toml`` and ``hub.toml`` is: one line of at most 300 characters, a valid host, a port
    1..65535 (for ``--http`` on a command line). ``error(problem)`` makes the exception raised."""
    problem = _line_problem(value, _MAX_HTTP)
    if problem is not None:
        raise error(problem)
    return HttpSpec(*parse_host_port(value.strip(), error, default_port=None))


def parse_host_port(value: str, error: Callable[[str], Exception],
                    default_port: int | None) -> tuple[str, int]:
    """``host[:port]`` (an IPv6 host in brackets) → (host, port); the port may be left out only
    when ``default_port`` is given. ``error(problem)`` makes the exception raised."""
    m = re.fullmatch(r"(\[[0-9A-Fa-f:.]+\]|[^:\[\]]*)(?::([0-9]{1,5}))?", value)
    if m is None or (m.group(2) is None and default_port is None):
        raise error(f"expected host:port (e.g. 0.0.0.0:8080 or [::]:8080), got {_excerpt(value)}")
    host = m.group(1).strip("[]")
    if not host or (":" not in host and not _HOSTNAME.fullmatch(host)):
        raise error(f"no valid host in {_excerpt(value)}")
    port = int(m.group(2)) if m.group(2) is not None else default_port
    assert port is not None  # by the match check above
    if not 1 <= port <= 65535:
        raise error(f"port {port} is out of range 1..65535")
    return host, port


def _mqtt_board(m: TomlReader, board: int | None) -> int:
    """``[mqtt] board``: an integer, or a string of one in canonical decimal ("7"); absent, the
    top-level ``board``. The hall names boards by number (``pi/hall/PROTOCOL.md``)."""
    value = m.table.get("board")
    if value is None:
        if board is None:
            raise m.error("board", "missing (set it, or the top-level board number)")
        return board
    number: int | None = None
    if isinstance(value, str):
        number = parse_board(value)
    elif isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_BOARD:
        number = value
    if number is None:
        raise m.error("board", f"a board number 1..{MAX_BOARD}, its topic level (the hall names "
                               f"boards by number), got {_excerpt(value)}")
    return number


def _mqtt(r: TomlReader, board: int | None, base: Path | None = None) -> MqttSpec | None:
    m = r.sub("mqtt")
    if m is None:
        return None
    m.check_keys(_MQTT_KEYS)
    url = m.text("url", ..., limit=300)
    assert url is not None
    spec = parse_mqtt_url(url, lambda problem: m.error("url", problem))
    ca_text = m.text("ca", None, limit=4096)
    ca = None if ca_text is None else (base or Path.cwd()) / ca_text
    if ca is not None and not spec.tls:
        raise m.error("ca", "a CA file is for mqtts:// only")
    hall = m.text("hall", ..., limit=64)
    assert hall is not None
    if not _TOPIC_SEGMENT.fullmatch(hall):
        raise m.error("hall", "letters, digits, '.', '_' or '-' only (an MQTT topic level)")
    topic_board = _mqtt_board(m, board)
    password = spec.password
    credential = m.text("password_credential", None, limit=64)
    if credential is not None:
        if password is not None:
            raise m.error("password_credential", "the url holds a password too: give it one way")
        if spec.username is None:
            raise m.error("password_credential", "the url names no user (mqtt://user@host)")
        password = read_credential(credential, lambda p: m.error("password_credential", p))
    return MqttSpec(spec.url, spec.host, spec.port, spec.tls, hall, topic_board, spec.username,
                    password, ca, _signing_key(m))


def _signing_key(m: TomlReader) -> bytes | None:
    """``key`` (64 hex digits) or ``key_credential`` (the systemd credential holding them), or
    None: the board's lines go unsigned."""
    key_text = m.text("key", None, limit=200)
    credential = m.text("key_credential", None, limit=64)
    name = "key"
    if credential is not None:
        if key_text is not None:
            raise m.error("key_credential", "key is given too: give it one way")
        name = "key_credential"
        key_text = read_credential(credential, lambda p: m.error("key_credential", p))
    if key_text is None:
        return None
    text = key_text.strip()
    if len(text) != 64 or any(c not in "0123456789abcdefABCDEF" for c in text):
        raise m.error(name, "64 hexadecimal digits (damiera hub init writes one)")
    return bytes.fromhex(text)


def read_credential(name: str, error: Callable[[str], Exception],
                    environ: Mapping[str, str] = os.environ) -> str:
    """The secret systemd passed to the service as credential ``name`` (``LoadCredential=`` in
    the unit, the file ``$CREDENTIALS_DIRECTORY/<name>``, readable by the service alone): its
    UTF-8 text, one trailing line break removed. A secret given so stays out of the config file,
    which may then be world-readable. ``error(problem)`` makes the exception raised: no such
    credential, no ``$CREDENTIALS_DIRECTORY``, a bad name, empty, over ``MAX_CREDENTIAL_BYTES``,
    not one line of UTF-8."""
    if not _TOPIC_SEGMENT.fullmatch(name) or name.startswith("."):
        raise error(f"not a credential name (letters, digits, '.', '_', '-'): {_excerpt(name)}")
    directory = environ.get("CREDENTIALS_DIRECTORY")
    if not directory:
        raise error(f"credential {name!r}: no $CREDENTIALS_DIRECTORY (systemd sets it for a unit "
                    "with LoadCredential=; install-pi.sh --credential writes that)")
    return read_secret_file(Path(directory) / name, f"credential {name!r}", error)


def read_secret_file(path: Path, what: str, error: Callable[[str], Exception]) -> str:
    """The one-line secret in the file ``path`` (``what`` names it in errors: a systemd
    credential, ``--mqtt-password-file``): its UTF-8 text, one trailing line break removed.
    ``error(problem)`` makes the exception raised: unreadable, empty, over
    ``MAX_CREDENTIAL_BYTES``, not one line of UTF-8 (never the secret in it)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CREDENTIAL_BYTES + 1)
    except OSError as exc:
        raise error(f"{what}: cannot read it ({exc.strerror or exc})") from None
    if len(data) > MAX_CREDENTIAL_BYTES:
        raise error(f"{what}: larger than {MAX_CREDENTIAL_BYTES} bytes")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{what}: not UTF-8 text") from None
    text = text.removesuffix("\n").removesuffix("\r")  # as `echo` or an editor leaves it
    if not text or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise error(f"{what}: empty or not one line")
    return text


#: Said when ``--mqtt``'s URL holds a password (``ps`` shows a process's arguments to everyone).
PASSWORD_VISIBLE = ("--mqtt: the password in the URL is visible to every user of this machine "
                    "(ps); give it with --mqtt-password-file FILE or in the configuration's "
                    "[mqtt] instead")


def with_password_file(spec: MqttSpec, path: str, error: Callable[[str], Exception]) -> MqttSpec:
    """``spec`` with the broker password read from the file ``path``
    (``--mqtt-password-file``): its URL must name the user and hold no password."""
    if spec.username is None:
        raise error("the broker URL names no user (mqtt://user@host)")
    if spec.password is not None:
        raise error("the broker URL holds a password too: give it one way")
    return replace(spec, password=read_secret_file(Path(path), path, error))


def parse_mqtt_url(url: str, error: Callable[[str], Exception]) -> MqttSpec:
    """``mqtt://[user:password@]host[:port]`` or ``mqtts://…`` read into a spec with an empty
    ``hall`` and no ``board`` (the caller's); ``error(problem)`` makes the exception raised.
    User and password are percent-decoded; the spec's ``url`` has them taken out."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts"):
        shown = _excerpt(url.split("@")[-1])  # never a password in an error
        raise error(f"expected mqtt://host[:port] or mqtts://…, got {shown}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        shown = _excerpt(url.split("@")[-1])
        raise error(f"only a host and a port ([user:password@]host[:port]), got {shown}")
    netloc = parts.netloc.rpartition("@")[2]
    username = password = None
    if "@" in parts.netloc:
        username = urllib.parse.unquote(parts.username or "")
        password = urllib.parse.unquote(parts.password or "") if parts.password is not None else None
        if not username:
            raise error("an empty user name before '@'")
    default = 8883 if parts.scheme == "mqtts" else 1883
    host, port = parse_host_port(netloc, error, default)
    return MqttSpec(f"{parts.scheme}://{netloc}", host, port, parts.scheme == "mqtts", "", None,
                    username, password)


def _excerpt(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _EXCERPT else text[:_EXCERPT] + "…"


_TOML_KINDS = {str: "a string", bool: "true or false", int: "an integer", float: "a number",
               dict: "a table", list: "an array"}


def _kind(value: object) -> str:
    for typ, name in _TOML_KINDS.items():
        if isinstance(value, typ):
            return name
    return type(value).__name__  # TOML dates and times


def _line_problem(value: str, limit: int) -> str | None:
    """What is wrong with ``value`` as a one-line text of at most ``limit`` characters, or None."""
    if len(value) > limit:
        return f"longer than {limit} characters"
    if one_line_problem(value) is not None:  # issue 38: U+2028, U+0085 break lines too
        return f"control characters (line breaks, tabs…) not allowed: {_excerpt(value)}"
    if not value.strip():
        return "empty (leave the key out instead)"
    return None


class TomlReader:
    """Typed access to a TOML table that names the file (``source``) and the key in every
    :class:`ConfigError`; ``prefix`` is the table's own key (``"mqtt."``). The reader of
    ``damiera.toml`` and ``hub.toml``."""

    def __init__(self, source: str, table: Mapping[str, Any], prefix: str = "") -> None:
        self.source = source
        self.table = table
        self.prefix = prefix

    def error(self, name: str, problem: str) -> ConfigError:
        return ConfigError(self.source, f"{self.prefix}{name}", problem)

    def check_keys(self, allowed: frozenset[str]) -> None:
        for k in self.table:
            if k not in allowed:
                shown = k if re.fullmatch(r"[A-Za-z0-9_-]{1,40}", k) else _excerpt(k)
                raise self.error(shown, f"unknown key (known: {', '.join(sorted(allowed))})")

    def _wrong(self, name: str, expected: str, value: object) -> ConfigError:
        shown = _excerpt(value) if isinstance(value, (str, int, float, bool)) else _kind(value)
        return self.error(name, f"expected {expected}, got {shown}")

    def text(self, name: str, default: str | None | EllipsisType, limit: int = _MAX_TEXT,
             allow_int: bool = False) -> str | None:
        """A one-line string (``default`` when absent; ``...`` = required)."""
        if name not in self.table:
            if default is ...:
                raise self.error(name, "missing")
            assert not isinstance(default, EllipsisType)
            return default
        value = self.table[name]
        if allow_int and isinstance(value, int) and not isinstance(value, bool):
            if not 0 <= value <= 10**6:
                raise self.error(name, f"{value} is out of range 0..1000000")
            return str(value)
        if not isinstance(value, str):
            raise self._wrong(name, "a string", value)
        problem = _line_problem(value, limit)
        if problem is not None:
            raise self.error(name, problem)
        return value.strip()

    def boolean(self, name: str, default: bool) -> bool:
        value = self.table.get(name, default)
        if not isinstance(value, bool):
            raise self._wrong(name, "true or false", value)
        return value

    def integer(self, name: str, default: int | None, low: int, high: int) -> int | None:
        if name not in self.table:
            return default
        value = self.table[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._wrong(name, "an integer", value)
        if not low <= value <= high:
            raise self.error(name, f"{_excerpt(value)} is out of range {low}..{high}")
        return value

    def number(self, name: str, default: float, low: float, high: float,
               low_open: bool = False) -> float:
        value = self.table.get(name, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._wrong(name, "a number", value)
        if isinstance(value, float) and not math.isfinite(value):
            raise self.error(name, f"{_excerpt(value)} is not a finite number")
        # Compared before float(): a huge TOML integer would overflow the conversion.
        if value < low or (low_open and value == low) or value > high:
            bounds = f"more than {low:g}" if low_open else f"at least {low:g}"
            raise self.error(name, f"{_excerpt(value)} is out of range ({bounds}, at most "
                                   f"{high:g})")
        number = float(value)
        return number

    def sub(self, name: str) -> TomlReader | None:
        if name not in self.table:
            return None
        value = self.table[name]
        if not isinstance(value, dict):
            raise self._wrong(name, "a table", value)
        return TomlReader(self.source, value, f"{self.prefix}{name}.")
