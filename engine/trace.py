"""Reading physical-event traces (docs/trace-format.md): JSON Lines in, ``GameStarted`` + events out.

A trace is refused, by raising ``TraceError(line_number, message)`` (1-based line numbers), when
it is malformed in any of the ways docs/trace-format.md lists: bad JSON, a line that is not an
object, no start line, an unknown variant or an invalid FEN, an unknown event type, button or
arbiter action, a square that does not exist on the variant's board, time going backwards, a
missing or ill-typed key, an unknown piece code or a reading out of range. Blank lines are skipped
(they still count for line numbers).

Squares arrive as official numbers or algebraic names and leave as algebraic names (the event
classes of ``engine.events``): light squares have no number but the sensors lie under them too.
Pure: no I/O (the caller opens the file and passes its lines).
"""

from __future__ import annotations

import json
import math
import unicodedata
from typing import Any, Iterable, Iterator

from engine.board import Piece, parse_fen
from engine.errors import InputError, TraceError, excerpt
from engine.events import (ARBITER_ACTIONS, BUTTON_NAMES, PIECE_CODES, SIDES, ArbiterActed,
                           ButtonPressed, DaemonRestarted, Event, GameStarted, PieceChanged, PieceLifted,
                           PiecePlaced, SensorsFailed, SensorsRecovered, SnapshotTaken, TraceEnded)
from engine.variants import Geometry, Variant, find_variant

__all__ = ["read_trace", "parse_trace", "load_line", "parse_start", "parse_event", "CLOCK_START_ARBITER",
           "split_lines", "NOT_ONE_LINE", "one_line_problem"]

#: Start-line keys that name the game (``engine.pdn.record_tags`` makes its PDN tags of them).
_TAG_KEYS = ("white", "black", "event", "round", "site", "date", "board", "started_at")
#: The start line's ``clock_start`` value: the clock waits for the arbiter's ``start_clock``.
CLOCK_START_ARBITER = "arbiter"
#: Results an ``adjudicate`` action may carry (both scoring sets, COMP 6.14).
RESULTS = ("1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1")


#: Unicode categories a one-line text (a player's, an event's name; a note) may not hold:
#: control characters (U+0000..U+001F, U+007F..U+009F, U+0085 NEXT LINE among them), line and
#: paragraph separators (U+2028, U+2029) — where a reader that splits at every line break
#: (``str.splitlines()``, a PDN viewer, the OLED) would cut the text.
NOT_ONE_LINE = frozenset({"Cc", "Zl", "Zp"})


def split_lines(text: str) -> list[str]:
    """A trace's (a journal's) text as its lines: a line ends at ``"\n"`` alone (docs/trace-format.md), so
    a name holding U+2028 or U+0085 (JSON leaves them raw) stays inside its line, where
    ``str.splitlines()`` would split it. A last line without its ``"\n"`` is kept (the
    caller cuts a torn one); no empty line after the last ``"\n"``."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


def one_line_problem(text: str) -> str | None:
    """What keeps ``text`` from being one line of a name (None: nothing): its first control or
    separator character (:data:`NOT_ONE_LINE`), named by its code point."""
    for ch in text:
        if unicodedata.category(ch) in NOT_ONE_LINE:
            return f"a control or line-separator character (U+{ord(ch):04X}) is not allowed"
    return None


#: Longest trace line read (characters): a snapshot of 100 squares is under 1 kB, so 1 MB is
#: generous; a longer line (``/dev/zero``, a runaway writer) is refused, never held in memory.
MAX_LINE_CHARS = 1_000_000
#: Largest time read (``t``, ``settle``): 10^9 s is over 31 years, beyond any game or journal.
MAX_SECONDS = 1e9
#: Largest sensor reading read (``reading``, either sign): a king reads about ±2.0, so 1000 is
#: far beyond any sensor that is calibrated at all.
MAX_READING = 1000.0
#: Longest settle time (seconds): a move left that long is long complete (docs/trace-format.md, IT 3.5).
MAX_SETTLE = 3600.0


def read_trace(lines: Iterable[str]) -> tuple[GameStarted, Iterator[Event]]:
    """The start line of a trace, and a lazy iterator of its events: lines are read only as the
    events are consumed (a trace of any length is replayed in constant memory). Raises
    ``TraceError`` for a bad start (here) or a bad later line (from the iterator, when reached).
    """
    numbered = enumerate(lines, start=1)
    for number, raw in numbered:
        obj = load_line(number, raw)
        if obj is not None:
            start, variant = parse_start(number, obj)
            return start, _events(numbered, variant)
    raise TraceError(1, "no start line (the first line must have \"type\": \"start\")")


def _events(numbered: Iterator[tuple[int, str]], variant: Variant) -> Iterator[Event]:
    last_t = 0.0
    for number, raw in numbered:
        obj = load_line(number, raw)
        if obj is None:
            continue
        event = parse_event(number, obj, variant)
        if event.t < last_t:
            raise TraceError(number, f"time goes backwards ({event.t} after {last_t})")
        last_t = event.t
        yield event


def parse_trace(lines: Iterable[str]) -> tuple[GameStarted, list[Event]]:
    """The start line and the events of a trace, all in memory (:func:`read_trace` streams).
    Raises ``TraceError`` (see module docstring)."""
    start, events = read_trace(lines)
    return start, list(events)


def load_line(number: int, raw: str) -> dict[str, Any] | None:
    """The JSON object of trace line ``number`` (text ``raw``), or None for a blank line.
    Raises ``TraceError`` for a line too long, bad JSON, or JSON that is not an object."""
    text = _text(number, raw)
    return _load(number, text) if text else None


def _text(number: int, raw: str) -> str:
    if len(raw) > MAX_LINE_CHARS:
        raise TraceError(number, f"line longer than {MAX_LINE_CHARS:,} characters")
    return raw.strip()


def _load(number: int, text: str) -> dict[str, Any]:
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        # JSONDecodeError, and the bare ValueError of an integer of more than 4300 digits
        message = str(exc) if len(str(exc)) <= 80 else str(exc)[:79] + "…"
        raise TraceError(number, f"bad JSON: {message}") from None
    if not isinstance(obj, dict):
        raise TraceError(number, "a trace line must be a JSON object")
    return obj


def parse_start(number: int, obj: dict[str, Any]) -> tuple[GameStarted, Variant]:
    """The ``start`` line ``obj`` (line ``number``) and its variant. Raises ``TraceError``."""
    if obj.get("type") != "start":
        raise TraceError(number, "no start line (the first line must have \"type\": \"start\")")
    name = _key(number, obj, "variant", str)
    try:
        variant = find_variant(name)
    except InputError as exc:
        raise TraceError(number, str(exc)) from None
    fen = _opt(number, obj, "fen", str)
    if fen is not None:
        try:
            parse_fen(fen, variant)
        except InputError as exc:
            raise TraceError(number, f"invalid FEN: {exc}") from None
    clock = _opt(number, obj, "clock", bool)
    transcribed = _opt(number, obj, "transcribed", bool)
    settle = _opt_number(number, obj, "settle")
    if settle is not None and not 0 < settle <= MAX_SETTLE:
        raise TraceError(number, f"settle must be a positive number of seconds up to {MAX_SETTLE:g}")
    time_control = _opt(number, obj, "time_control", str)
    if time_control is not None:
        from engine.timecontrol import parse_time_control_tag  # stdlib-only sibling
        try:
            parse_time_control_tag(time_control)
        except InputError as exc:
            raise TraceError(number, f"invalid time_control: {exc}") from None
    clock_start = _opt(number, obj, "clock_start", str)
    if clock_start not in (None, CLOCK_START_ARBITER):
        raise TraceError(number, f"clock_start must be {CLOCK_START_ARBITER!r} (the arbiter "
                                 f"starts the clock), not {excerpt(clock_start)}")
    tags = []
    for key in _TAG_KEYS:
        value = obj.get(key)
        if value is not None:
            if not isinstance(value, (str, int)) or isinstance(value, bool):
                raise TraceError(number, f"{key!r} must be a string, not {excerpt(value)}")
            tags.append((key, str(value)))
    start = GameStarted(variant=variant.name, fen=fen, clock=True if clock is None else clock,
                        transcribed=True if transcribed is None else transcribed,
                        settle=2.0 if settle is None else float(settle),
                        time_control=time_control, tags=tuple(tags), clock_start=clock_start)
    return start, variant


def parse_event(number: int, obj: dict[str, Any], variant: Variant) -> Event:
    """One event line ``obj`` (line ``number``) of a ``variant`` trace. Raises ``TraceError``."""
    kind = obj.get("type")
    if kind == "start":
        raise TraceError(number, "a second start line")
    t = _opt_number(number, obj, "t")
    if t is None:
        raise TraceError(number, "missing key 't'")
    g = variant.geometry
    if kind in ("lift", "place"):
        square = _square(number, obj.get("square", _MISSING), g)
        if kind == "lift":
            return PieceLifted(t, square)
        piece = _piece(number, obj["piece"]) if obj.get("piece") is not None else None
        return PiecePlaced(t, square, piece, _reading(number, obj))
    if kind == "piece":
        square = _square(number, obj.get("square", _MISSING), g)
        if obj.get("piece") is None:
            raise TraceError(number, "missing key 'piece'")
        return PieceChanged(t, square, _piece(number, obj["piece"]), _reading(number, obj))
    if kind == "snapshot":
        occupied = frozenset(_square(number, s, g) for s in _key(number, obj, "occupied", list))
        pieces = _opt(number, obj, "pieces", dict)
        if pieces is None:
            return SnapshotTaken(t, occupied)
        return SnapshotTaken(t, occupied, _pieces(number, pieces, occupied, g))
    if kind == "button":
        name = _key(number, obj, "name", str)
        if name not in BUTTON_NAMES:
            raise TraceError(number, f"unknown button {excerpt(name)}")
        side = _key(number, obj, "side", str)
        if side not in SIDES:
            raise TraceError(number, f"unknown side {excerpt(side)} (white or black)")
        return ButtonPressed(t, name, side)
    if kind == "arbiter":
        action = _key(number, obj, "action", str)
        if action not in ARBITER_ACTIONS:
            raise TraceError(number, f"unknown arbiter action {excerpt(action)}")
        result = text = None
        public = False
        if action in ("adjudicate", "correct_result"):
            result = _key(number, obj, "result", str)
            if result not in RESULTS:
                raise TraceError(number, f"unknown result {excerpt(result)}")
        if action == "correct_result":  # the reason (COMP 6.16): said, never blank
            text = _key(number, obj, "text", str)
            if not text.strip():
                raise TraceError(number, "correct_result needs a reason (\"text\")")
        if action == "note":
            text = _key(number, obj, "text", str)
            public = obj.get("public") is True  # optional; any other value: private
        return ArbiterActed(t, action, result, text, public)
    if kind == "end":
        return TraceEnded(t)
    if kind in ("fault", "fault_cleared"):
        squares = tuple(_square(number, s, g) for s in _key(number, obj, "squares", list))
        if kind == "fault_cleared":
            return SensorsRecovered(t, squares)
        message = _opt(number, obj, "message", str)
        return SensorsFailed(t, squares, "" if message is None else message)
    if kind == "restart":
        down = _opt_number(number, obj, "down")
        if down is not None and down < 0:
            raise TraceError(number, "'down' must be a number of seconds >= 0, or null")
        return DaemonRestarted(t, down)
    if kind is None:
        raise TraceError(number, "missing key 'type'")
    raise TraceError(number, f"unknown event type {excerpt(kind)}")


_MISSING = object()


def _piece(number: int, token: object) -> Piece:
    if not isinstance(token, str) or token not in PIECE_CODES:
        raise TraceError(number, f"a piece is 'wm', 'bm', 'wk' or 'bk', not {excerpt(token)}")
    return PIECE_CODES[token]


def _reading(number: int, obj: dict[str, Any]) -> float | None:
    """The optional ``reading``: a finite number from -MAX_READING to MAX_READING."""
    value = obj.get("reading")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TraceError(number, f"'reading' must be a number, not {excerpt(value)}")
    if not (isinstance(value, int) or math.isfinite(value)) or abs(value) > MAX_READING:
        raise TraceError(number, f"'reading' must be a number from -{MAX_READING:g} to "
                                 f"{MAX_READING:g}, not {excerpt(value)}")
    return float(value)


def _pieces(number: int, obj: dict[str, Any], occupied: frozenset[str],
            g: Geometry) -> dict[str, Piece]:
    """A snapshot's ``pieces``: square (number or name) to piece code, every square occupied."""
    pieces: dict[str, Piece] = {}
    for token, code in obj.items():
        square = _square(number, token, g)
        if square not in occupied:
            raise TraceError(number, f"'pieces' names {excerpt(token)}, a square not in 'occupied'")
        pieces[square] = _piece(number, code)
    return pieces


def _square(number: int, token: object, g: Geometry) -> str:
    """The algebraic name of a trace square (official number or algebraic name, light squares
    included). Raises ``TraceError`` for a square that does not exist."""
    if type(token) is int and 1 <= token <= g.count:  # the common case, first (snapshots)
        return g.algebraic_of[token]
    if token is _MISSING:
        raise TraceError(number, "missing key 'square'")
    if isinstance(token, bool) or not isinstance(token, (int, str)):
        raise TraceError(number, f"a square must be a number or a name, not {excerpt(token)}")
    text = token.strip() if isinstance(token, str) else ""
    digits = text.isdigit()
    if digits and not (text.isascii() and len(text) <= 4):
        # int() reads '²', Arabic-Indic digits and thousands of digits: none names a square
        raise TraceError(number, f"no square {excerpt(token)} on this board (1-{g.count})")
    if isinstance(token, int) or digits:
        n = int(token)
        if not 1 <= n <= g.count:
            raise TraceError(number, f"no square {excerpt(token)} on this board (1-{g.count})")
        return g.algebraic_of[n]
    name = token.strip().lower()
    if name not in g.all_names:
        raise TraceError(number, f"no square {excerpt(token)} on this board")
    return name


def _key(number: int, obj: dict[str, Any], key: str, typ: type) -> Any:
    if key not in obj:
        raise TraceError(number, f"missing key {key!r}")
    value = obj[key]
    if not isinstance(value, typ) or (typ is not bool and isinstance(value, bool)):
        raise TraceError(number, f"{key!r} must be a {typ.__name__}, not {excerpt(value)}")
    return value


def _opt(number: int, obj: dict[str, Any], key: str, typ: type) -> Any:
    if obj.get(key) is None:
        return None
    return _key(number, obj, key, typ)


def _opt_number(number: int, obj: dict[str, Any], key: str) -> float | None:
    """A time in seconds: a finite number from 0 to ``MAX_SECONDS`` (NaN, infinities, 1e308 and
    integers of thousands of digits are refused before any arithmetic on them)."""
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TraceError(number, f"{key!r} must be a number, not {excerpt(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise TraceError(number, f"{key!r} must be a finite number, not {value!r}")
    if value < 0:
        raise TraceError(number, f"{key!r} must not be negative")
    if value > MAX_SECONDS:
        raise TraceError(number, f"{key!r} is too large ({excerpt(value)} > {MAX_SECONDS:g} s)")
    return float(value)
