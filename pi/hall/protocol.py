"""The hall's MQTT messages (``pi/hall/PROTOCOL.md``): topic names, and each payload built and
read back with its checks, shared by the board's link and the hub so that neither can drift.

Reading is strict and never raises anything but :class:`BadMessage` (one line, for the log):
a payload from the network is untrusted. Building returns ``bytes`` ready to publish.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pi.board.config import MAX_BOARD, parse_board
from pi.board.statedir import parse_game_id
from pi.hall.errors import BadMessage
from pi.hall.signing import ack_mac, status_mac
from engine.frozen import quick_init
from engine.trace import one_line_problem

__all__ = ["MAX_PAYLOAD", "SEGMENT", "MAX_BOARD", "parse_board", "Topics", "JournalLine", "Heads", "Resend",
           "Command", "Ack", "parse_topic", "journal_payload", "parse_journal", "status_payload",
           "offline_payload", "parse_status", "resend_payload", "action_payload",
           "pairing_payload", "parse_command", "ack_payload", "parse_ack", "client_id",
           "PAIRING_KEYS", "MAX_GAMES"]

#: A payload larger than this is dropped unread (a journal line is < 1 kB; a state ~ 20 kB).
MAX_PAYLOAD = 64 * 1024
#: A topic segment: the hall's name (a board's number is one too, and more: ``parse_board``).
SEGMENT = re.compile(r"[A-Za-z0-9_.-]{1,64}")
#: ``status`` lists at most this many of the board's newest games.
MAX_GAMES = 64
#: The pairing's keys a board takes (strings, one line, at most 200 characters);
#: ``clock_start`` is "arbiter" only (the game's clock waits for the arbiter's start_clock).
PAIRING_KEYS = ("event", "round", "white", "black", "clock_start")
_MAX_TEXT = 200
_MAX_ID = 128
_LEAVES = ("state", "status", "journal", "ack", "cmd")
_MAC = re.compile(r"[0-9a-f]{64}")
_SESSION = re.compile(r"[0-9a-f]{8,64}")


def _segment(value: str, what: str) -> str:
    if not isinstance(value, str) or SEGMENT.fullmatch(value) is None:
        raise BadMessage(f"{what}: not a topic segment ([A-Za-z0-9_.-]{{1,64}}): {value!r:.40}")
    return value


@dataclass(frozen=True, slots=True)
class Topics:
    """The topics of one hall (``board`` given: of one board)."""

    hall: str

    def __post_init__(self) -> None:
        _segment(self.hall, "hall")

    @property
    def prefix(self) -> str:
        return f"damiera/{self.hall}/boards"

    def board(self, board: int, leaf: str) -> str:
        if leaf not in _LEAVES:
            raise ValueError(f"unknown leaf {leaf!r}")
        return f"{self.prefix}/{board}/{leaf}"

    def all_boards(self, leaf: str) -> str:
        """The subscription to ``leaf`` of every board (``+`` for the number)."""
        if leaf not in _LEAVES:
            raise ValueError(f"unknown leaf {leaf!r}")
        return f"{self.prefix}/+/{leaf}"


def client_id(hall: str, board: int | None = None) -> str:
    """The fixed MQTT client id of a board or (``board`` None) the hub: persistent sessions."""
    return f"damiera-{hall}-hub" if board is None else f"damiera-{hall}-board-{board}"


def parse_topic(topics: Topics, topic: str) -> tuple[int, str]:
    """``(board, leaf)`` of a topic under ``topics``; BadMessage otherwise (a board segment
    that is not a board's number in canonical decimal among them: ``boards/07/…``)."""
    prefix = topics.prefix + "/"
    if not topic.startswith(prefix):
        raise BadMessage(f"topic outside the hall: {topic[:80]!r}")
    rest = topic[len(prefix):].split("/")
    if len(rest) != 2 or rest[1] not in _LEAVES:
        raise BadMessage(f"not a board topic: {topic[:80]!r}")
    board = parse_board(rest[0])
    if board is None:
        raise BadMessage(f"not a board number 1..{MAX_BOARD} in canonical decimal: "
                         f"{rest[0][:20]!r}")
    return board, rest[1]


def _dump(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


#: One decoder for every message (``json.loads`` with an argument makes a new one each call).
_DECODER = json.JSONDecoder(parse_constant=_no_constant)


def _load(payload: bytes, what: str) -> dict[str, Any]:
    if len(payload) > MAX_PAYLOAD:
        raise BadMessage(f"{what}: payload of {len(payload)} bytes (limit {MAX_PAYLOAD})")
    try:
        obj = _DECODER.decode(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadMessage(f"{what}: not JSON ({str(exc)[:60]})") from None
    if not isinstance(obj, dict):
        raise BadMessage(f"{what}: not a JSON object")
    return obj


def _game_id(value: Any, what: str) -> str:
    """A board's game id (``pi.board.statedir``'s form: it names a folder of the hub's replica)."""
    if not isinstance(value, str) or len(value) > _MAX_ID or parse_game_id(value) is None:
        raise BadMessage(f"{what}: bad game id {str(value)[:40]!r}")
    return value


def _line_number(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**9:
        raise BadMessage(f"{what}: bad line number {str(value)[:20]!r}")
    return value


# ---------------------------------------------------------------------- journal


@quick_init
@dataclass(frozen=True, slots=True)
class JournalLine:
    """Line ``line`` (1-based) of game ``game_id``'s journal: ``text`` exactly as on disk, without
    its newline."""

    game_id: str
    line: int
    text: str
    #: the board's HMAC of the line (``pi.hall.signing``), None from a board without a key
    mac: str | None = None
    #: the mac of the board's line ``line - 1`` its ``mac`` chains on ("" for line 1), None
    #: from a board older than it: a line that verifies with it and not after the hub's own
    #: line ``line - 1`` is the board's, whose journal parted from the replica's (issue 38)
    prev: str | None = None


def journal_payload(game_id: str, line: int, text: str, mac: str | None = None,
                    prev: str | None = None) -> bytes:
    obj: dict[str, Any] = {"game": game_id, "line": line, "text": text}
    if mac is not None:
        obj["mac"] = mac
        if prev is not None:
            obj["prev"] = prev
    return _dump(obj)


def parse_journal(payload: bytes) -> JournalLine:
    obj = _load(payload, "journal")
    game_id = _game_id(obj.get("game"), "journal")
    line = _line_number(obj.get("line"), "journal")
    text = obj.get("text")
    if not isinstance(text, str) or not text or "\n" in text or "\r" in text:
        raise BadMessage(f"journal {game_id}:{line}: text is not one journal line")
    what = f"journal {game_id}:{line}"
    prev = obj.get("prev")
    if prev is not None and not (prev == "" and line == 1):
        prev = _mac(prev, what)
    return JournalLine(game_id, line, text, _mac(obj.get("mac"), what), prev)


def _mac(value: Any, what: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or _MAC.fullmatch(value) is None:
        raise BadMessage(f"{what}: mac is not 64 lowercase hex digits")
    return value


# ---------------------------------------------------------------------- status


@dataclass(frozen=True, slots=True)
class Heads:
    """A board's ``status``: online or not, its current game, and its journals' line counts
    (``games``: (id, lines, finished), oldest first)."""

    online: bool
    board: int
    game_id: str | None
    lines: int
    games: tuple[tuple[str, int, bool], ...]
    #: the board's connection (a fresh random hex string each time it connects), or None
    session: str | None = None
    #: how often the broker handed this board's session to another client since it started
    taken_over: int = 0
    #: the board's HMAC of the status (``pi.hall.signing.status_mac``), None if unsigned
    mac: str | None = None
    #: the object as received (what the mac covers)
    body: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


def status_payload(board: int, game_id: str | None, lines: int,
                   games: list[tuple[str, int, bool]], *, session: str | None = None,
                   taken_over: int = 0, key: bytes | None = None) -> bytes:
    """The board's ``status``; ``session`` and ``taken_over`` when given, signed with ``key``
    when given (``pi.hall.signing``)."""
    obj: dict[str, Any] = {"online": True, "board": str(board), "game": game_id, "lines": lines,
                           "games": [list(g) for g in games[-MAX_GAMES:]]}
    if session is not None:
        obj["session"] = session
        obj["taken_over"] = taken_over
    if key is not None:
        obj["mac"] = status_mac(key, obj)
    return _dump(obj)


def offline_payload(board: int) -> bytes:
    """The board's will (Last Will and Testament), retained on ``status``."""
    return _dump({"online": False, "board": str(board)})


def parse_status(payload: bytes) -> Heads:
    obj = _load(payload, "status")
    online = obj.get("online")
    text = obj.get("board")
    board = parse_board(text) if isinstance(text, str) else None
    if not isinstance(online, bool) or board is None:
        raise BadMessage("status: needs online (true/false) and board (its number, a string)")
    if not online:
        return Heads(False, board, None, 0, ())
    game_id = obj.get("game")
    if game_id is not None:
        _game_id(game_id, "status")
    lines = obj.get("lines", 0)
    if isinstance(lines, bool) or not isinstance(lines, int) or lines < 0:
        raise BadMessage("status: bad lines")
    raw = obj.get("games", [])
    if not isinstance(raw, list) or len(raw) > MAX_GAMES:
        raise BadMessage("status: games is not a list of at most 64")
    games = []
    for g in raw:
        if (not isinstance(g, list) or len(g) != 3 or isinstance(g[1], bool)
                or not isinstance(g[1], int) or g[1] < 0 or not isinstance(g[2], bool)):
            raise BadMessage("status: each game is [id, lines, finished]")
        games.append((_game_id(g[0], "status"), g[1], g[2]))
    session = obj.get("session")
    if session is not None and (not isinstance(session, str)
                                or _SESSION.fullmatch(session) is None):
        raise BadMessage("status: session is not 8..64 lowercase hex digits")
    taken = obj.get("taken_over", 0)
    if isinstance(taken, bool) or not isinstance(taken, int) or not 0 <= taken <= 10**9:
        raise BadMessage("status: bad taken_over")
    return Heads(True, board, game_id, lines, tuple(games), session, taken,
                 _mac(obj.get("mac"), "status"), obj)


# ---------------------------------------------------------------------- commands


@dataclass(frozen=True, slots=True)
class Resend:
    game_id: str
    start: int


@dataclass(frozen=True, slots=True)
class Command:
    """An arbiter ``action`` (docs/trace-format.md object less ``t``) or a ``pairing``, with its ``id``."""

    id: str
    action: dict[str, Any] | None = None
    pairing: dict[str, str] | None = None


def resend_payload(game_id: str, start: int) -> bytes:
    return _dump({"resend": {"game": game_id, "from": start}})


def action_payload(cmd_id: str, action: dict[str, Any]) -> bytes:
    return _dump({"id": cmd_id, "action": action})


def pairing_payload(cmd_id: str, pairing: dict[str, str]) -> bytes:
    return _dump({"id": cmd_id, "pairing": {k: pairing[k] for k in PAIRING_KEYS if k in pairing}})


def _one_line(value: Any, what: str) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if (not isinstance(value, str) or len(value) > _MAX_TEXT or one_line_problem(value) is not None
            or '"' in value):  # issue 38: no control or separator character (U+2028, U+0085)
        raise BadMessage(f"{what}: not one line of at most {_MAX_TEXT} characters without quotes")
    return value.strip()


def parse_command(payload: bytes) -> Command | Resend:
    """A ``cmd`` message. The action's own content is checked by the board (the same checks as
    ``POST /api/arbiter``); here only its form."""
    obj = _load(payload, "cmd")
    if "resend" in obj:
        r = obj["resend"]
        if not isinstance(r, dict):
            raise BadMessage("cmd: resend is not an object")
        return Resend(_game_id(r.get("game"), "resend"), _line_number(r.get("from"), "resend"))
    cmd_id = obj.get("id")
    if not isinstance(cmd_id, str) or not 1 <= len(cmd_id) <= _MAX_ID \
            or not cmd_id.isprintable():  # it is in every refusal's one line and in the ack
        raise BadMessage("cmd: needs an id (1..128 printable characters)")
    if "action" in obj:
        action = obj["action"]
        if not isinstance(action, dict) or not isinstance(action.get("action"), str):
            raise BadMessage(f"cmd {cmd_id}: action is not an arbiter action object")
        return Command(cmd_id, action=action)
    if "pairing" in obj:
        p = obj["pairing"]
        if not isinstance(p, dict) or not p:
            raise BadMessage(f"cmd {cmd_id}: pairing is not an object")
        unknown = set(p) - set(PAIRING_KEYS)
        if unknown:
            raise BadMessage(f"cmd {cmd_id}: pairing: unknown key {sorted(unknown)[0]!r}")
        if p.get("clock_start", "arbiter") != "arbiter":
            raise BadMessage(f"cmd {cmd_id}: pairing: clock_start is 'arbiter' or absent")
        return Command(cmd_id, pairing={k: _one_line(v, f"pairing {k}") for k, v in p.items()})
    raise BadMessage(f"cmd {cmd_id}: neither action, pairing nor resend")


# ---------------------------------------------------------------------- ack


@dataclass(frozen=True, slots=True)
class Ack:
    """A board's answer to command ``id``: done (``ok``; an action's journal ``line``) or not
    (``error``). Received: ``mac`` the board's signature (``pi.hall.signing.ack_mac``; None if
    unsigned) and ``body`` the object as received (what the mac covers)."""

    id: str
    ok: bool
    line: int | None = None
    error: str | None = None
    mac: str | None = field(default=None, compare=False)
    body: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


def ack_payload(ack: Ack, key: bytes | None = None) -> bytes:
    """The ``ack`` message, signed with ``key`` when given (``pi.hall.signing``)."""
    obj: dict[str, Any] = {"id": ack.id, "ok": ack.ok}
    if ack.line is not None:
        obj["line"] = ack.line
    if ack.error is not None:
        obj["error"] = ack.error
    if key is not None:
        obj["mac"] = ack_mac(key, obj)
    return _dump(obj)


def parse_ack(payload: bytes) -> Ack:
    obj = _load(payload, "ack")
    cmd_id, ok = obj.get("id"), obj.get("ok")
    if not isinstance(cmd_id, str) or not isinstance(ok, bool):
        raise BadMessage("ack: needs id and ok")
    line = obj.get("line")
    if line is not None:
        line = _line_number(line, "ack")
    error = obj.get("error")
    if error is not None and not isinstance(error, str):
        raise BadMessage("ack: error is not a string")
    return Ack(cmd_id, ok, line, None if error is None else error[:200],
               _mac(obj.get("mac"), "ack"), obj)
