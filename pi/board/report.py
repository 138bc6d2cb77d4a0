"""A game's paperwork for decisions and appeals, read from its journal (``damiera report``,
``GET …/games/<id>/report.pdf``): :func:`read_game` replays the journal's lines through the one
replay (``engine.replay.Replay``) and gathers what an arbiter and an appeals committee need —
the PDN tags and time control, the moves with the clock readings, every flag with who decided
what and when, the positions before and after it and the board's lines around it, the arbiter's
notes and actions, the faults and restarts, the result and how it came — into a
:class:`GameReport`, a language-neutral value. ``pi.board.report_layout`` words it in a
language; ``pi.board.report_render`` draws it as PDF or HTML.

The journal's SHA-256 and line count are of its bytes exactly as read (``sha256sum
trace.jsonl`` and ``wc -l`` agree), so the paper can be checked against the file.

A line the reader refuses is not the end of the paperwork: it is listed (``unreadable``) and the
replay goes on, as on the board (``ContainArbiter``); only a journal without a good start line
is refused (:class:`~pi.board.errors.GameDirError`, one line).
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import Literal

from engine.board import Board
from engine.colour import Colour
from engine.decisions import Decision, Flag, FlagDecided, FlagRaised, GameEnded
from engine.errors import TraceError
from engine.events import (ArbiterActed, ButtonPressed, DaemonRestarted, Event, PieceChanged, PieceLifted,
                           PiecePlaced, SensorsFailed, SensorsRecovered, SnapshotTaken,
                           TraceEnded, piece_code)
from engine.game import RecordedMove
from engine.pdn import move_labels, record_tags
from engine.replay import ErrorPolicy, LineFault, Replay, Verdict
from engine.trace import load_line
from engine.variants import Variant
from pi.board.errors import GameDirError
from pi.board.localtime import board_zone

__all__ = ["GameReport", "FlagBlock", "Decided", "Actor", "Shown", "Ending", "Digest",
           "read_game", "read_game_dir", "game_report", "TRACE_NAME", "MAX_JOURNAL_BYTES",
           "LINES_BEFORE", "LINES_AFTER", "MAX_LINES_AROUND"]

#: The journal's file name in a game's folder (``pi.board.statedir``; the hub's replicas too).
TRACE_NAME = "trace.jsonl"
#: A journal larger than this is refused (a long game's is well under 1 MB).
MAX_JOURNAL_BYTES = 64 * 1024 * 1024
#: The board's lines shown before the line that raised a flag …
LINES_BEFORE = 6
#: … and after it (more while the flag waits for its decision, up to :data:`MAX_LINES_AROUND`).
LINES_AFTER = 6
MAX_LINES_AROUND = 30

ActorKind = Literal["player", "arbiter", "board", "time"]


@dataclass(frozen=True, slots=True)
class Actor:
    """Who made a line happen: a ``player`` (``side``, ``what`` the button), the ``arbiter``
    (``what`` the action), the ``board`` (its sensors or the daemon: ``what`` the line's type), or
    ``time`` (the clock ran on: no line)."""

    kind: ActorKind
    side: Colour | None = None
    what: str = ""


@dataclass(frozen=True, slots=True)
class Shown:
    """One journal line as the paper shows it: ``line`` number, game time ``t``, ``type`` (the
    docs/trace-format.md type), and what it carries: ``squares`` (lift, place, fault…; a snapshot's
    occupancy), ``name``/``side`` (a button), ``action``/``text``/``result``/``public`` (the
    arbiter's), ``down`` (a restart); ``piece`` (``"wm"``…) and ``reading`` (a place or a
    ``piece`` line of a board that knows the pieces: what the sensor read, the evidence of a
    flag about a crown or a colour, issue 40)."""

    line: int
    t: float
    type: str
    squares: tuple[str, ...] = ()
    name: str = ""
    side: Colour | None = None
    action: str = ""
    text: str = ""
    result: str = ""
    public: bool = False
    down: float | None = None
    piece: str = ""
    reading: float | None = None


@dataclass(frozen=True, slots=True)
class Decided:
    """A flag's status changed at ``t`` (``line``; None when time alone decided) to ``status``
    by the rule ``article``, made by ``by``."""

    t: float
    line: int | None
    status: str
    article: str
    by: Actor


@dataclass(frozen=True, slots=True)
class FlagBlock:
    """One flag: ``flag`` its last value, raised at ``raised_line`` by ``raised_by``; its
    ``decisions`` in order; the official positions (FEN) ``before`` the line that raised it and
    ``played`` after the line that raised it (an irregular move as made) and ``after`` the line
    that last decided it (the raising line's when none did); ``lines`` the
    board's lines around it, ``more`` how many were left out past :data:`MAX_LINES_AROUND`."""

    flag: Flag
    raised_line: int | None
    raised_by: Actor
    decisions: tuple[Decided, ...]
    before: str
    played: str
    after: str
    lines: tuple[Shown, ...]
    more: int = 0


@dataclass(frozen=True, slots=True)
class Ending:
    """How the game ended: ``result`` (PDN), ``reason``, ``article``, at ``t`` (``line``), by
    ``by``."""

    t: float
    line: int | None
    result: str
    reason: str
    article: str
    by: Actor


@dataclass(frozen=True, slots=True)
class Digest:
    """The journal's SHA-256 (hex), its lines (newline-terminated ones, plus a last one without
    a newline) and bytes."""

    sha256: str
    lines: int
    size: int


@dataclass(frozen=True, slots=True)
class GameReport:
    """A game's paperwork (module docstring), language-neutral. ``labels``: each move's number
    as the PDN writes it (``12.``, ``12...``; ``engine.pdn.move_labels``)."""

    game_id: str
    variant: Variant
    tags: dict[str, str]
    time_control: str | None
    started_at: datetime | None
    clock: bool
    moves: tuple[RecordedMove, ...]
    labels: tuple[str, ...]
    flags: tuple[FlagBlock, ...]
    arbiter: tuple[Shown, ...]
    machine: tuple[Shown, ...]
    ending: Ending | None
    result: str
    final_fen: str
    digest: Digest
    unreadable: tuple[tuple[int, str], ...] = field(default=())
    #: The board's time zone (the start line's ``timezone``; UTC when it names none)
    zone: tzinfo = timezone.utc
    #: The results the arbiter corrected after the game (COMP 6.16), first one first: the
    #: game's history of its results; ``ending`` is the one it has
    corrected: tuple[Ending, ...] = field(default=())

    def wall(self, t: float) -> datetime | None:
        """The wall-clock time of game time ``t`` in the board's ``zone``: the start line's
        ``started_at`` plus ``t`` (after a restart ``t`` includes the time the daemon was away,
        docs/trace-format.md); None when the journal does not say when the game began."""
        if self.started_at is None:
            return None
        return (self.started_at + timedelta(seconds=t)).astimezone(self.zone)


class _Listed(ErrorPolicy):
    """Every bad line is passed over and listed: the paper shows what the journal holds."""

    def __init__(self) -> None:
        self.faults: list[tuple[int, str]] = []

    def handle_error(self, fault: LineFault) -> Verdict:
        self.faults.append((fault.line, " ".join(str(fault.error).split())[:160]))
        return Verdict.SKIP


def _actor(event: Event | None) -> Actor:
    if isinstance(event, ButtonPressed):
        return Actor("player", event.side, event.name)
    if isinstance(event, ArbiterActed):
        return Actor("arbiter", None, event.action)
    if event is None:
        return Actor("time")
    return Actor("board", None, _TYPES[type(event)])


_TYPES: dict[type, str] = {PieceLifted: "lift", PiecePlaced: "place", PieceChanged: "piece",
                           SnapshotTaken: "snapshot",
                           ButtonPressed: "button", ArbiterActed: "arbiter", TraceEnded: "end",
                           SensorsFailed: "fault", SensorsRecovered: "fault_cleared",
                           DaemonRestarted: "restart"}


def _shown(line: int, event: Event) -> Shown:
    kind = _TYPES[type(event)]
    if isinstance(event, (PiecePlaced, PieceChanged)):
        return Shown(line, event.t, kind, (event.square,),
                     piece="" if event.piece is None else piece_code(event.piece),
                     reading=event.reading)
    if isinstance(event, PieceLifted):
        return Shown(line, event.t, kind, (event.square,))
    if isinstance(event, SnapshotTaken):
        return Shown(line, event.t, kind, tuple(sorted(event.occupied)))
    if isinstance(event, ButtonPressed):
        return Shown(line, event.t, kind, name=event.name, side=event.side)
    if isinstance(event, ArbiterActed):
        return Shown(line, event.t, kind, action=event.action, text=event.text or "",
                     result=event.result or "", public=event.public)
    if isinstance(event, SensorsFailed):
        return Shown(line, event.t, kind, event.squares, text=event.message)
    if isinstance(event, SensorsRecovered):
        return Shown(line, event.t, kind, event.squares)
    if isinstance(event, DaemonRestarted):
        return Shown(line, event.t, kind, down=event.down)
    return Shown(line, event.t, kind)


class _Open:
    """A flag being gathered: its lines, and the lines still to take after it."""

    def __init__(self, flag: Flag, line: int | None, by: Actor, before: str, played: str,
                 lines: list[Shown]) -> None:
        self.flag = flag
        self.line = line
        self.by = by
        self.before = before
        self.played = played
        self.after = played
        self.lines = lines
        self.decisions: list[Decided] = []
        self.to_take = LINES_AFTER
        self.more = 0

    def take(self, shown: Shown) -> None:
        waiting = self.flag.status == "pending"
        if self.to_take <= 0 and not waiting:
            return
        if len(self.lines) >= MAX_LINES_AROUND:
            self.more += 1
            return
        self.lines.append(shown)
        self.to_take -= 1

    def block(self) -> FlagBlock:
        return FlagBlock(self.flag, self.line, self.by, tuple(self.decisions), self.before,
                         self.played, self.after, tuple(self.lines), self.more)


def _digest(data: bytes) -> Digest:
    lines = data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    return Digest(hashlib.sha256(data).hexdigest(), lines, len(data))


def _started_at(start: Mapping[str, object]) -> datetime | None:
    stamp = start.get("started_at")
    if not isinstance(stamp, str):
        return None
    try:
        when = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)


def game_report(game_id: str, data: bytes) -> GameReport:
    """The paperwork of the journal ``data`` (its bytes, docs/trace-format.md) of game ``game_id``: its
    newline-ended lines (a last line without its newline, being written or cut short by a power
    cut, is listed as unreadable; the digest covers every byte). Raises GameDirError (one line)
    for a journal that is not UTF-8 or has no good start line."""
    cut = data.rfind(b"\n") + 1
    whole, tail = data[:cut], data[cut:]
    try:
        text = whole.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise GameDirError(f"{game_id}: the journal is not UTF-8 text (byte {exc.start})") \
            from None
    lines = text.split("\n")[:-1]  # U+2028 and the like may be inside a line: "\n" alone ends one
    torn = (len(lines) + 1, "an incomplete last line (being written, or cut short)") \
        if tail else None
    return _read(game_id, lines, _digest(data), torn)


def _read(game_id: str, lines: Iterable[str], digest: Digest,
          torn: tuple[int, str] | None) -> GameReport:
    numbered = enumerate(lines, start=1)
    policy = _Listed()
    replay: Replay | None = None
    try:
        for number, raw in numbered:
            obj = load_line(number, raw)
            if obj is None:
                continue
            replay = Replay(obj, policy, line=number)
            break
    except TraceError as exc:
        raise GameDirError(f"{game_id}: the journal cannot be read: {exc}") from None
    if replay is None:
        raise GameDirError(f"{game_id}: the journal is empty (no start line)")
    game = replay.arbiter.game
    board = game.board
    scratch = Board(None, replay.variant)
    recent: deque[Shown] = deque(maxlen=LINES_BEFORE)
    opened: dict[int, _Open] = {}
    arbiter: list[Shown] = []
    machine: list[Shown] = []
    ending: Ending | None = None
    corrected: list[Ending] = []  # the results the arbiter corrected (COMP 6.16), in order

    def decide(decisions: Iterable[Decision], line: int | None, event: Event | None,
               shown: Shown | None, before: str | None) -> None:
        nonlocal ending
        after: str | None = None
        for d in decisions:
            if isinstance(d, FlagRaised):
                if before is None:
                    before = board.fen()
                after = after or board.fen()
                kept = list(recent) + ([shown] if shown is not None else [])
                opened[d.flag.id] = _Open(d.flag, line, _actor(event), before, after, kept)
            elif isinstance(d, FlagDecided):
                o = opened.get(d.flag.id)
                if o is None:  # a flag raised on a line that was passed over
                    continue
                o.flag = d.flag
                o.after = after = after or board.fen()
                o.decisions.append(Decided(d.t, line, d.flag.status, d.article, _actor(event)))
            elif isinstance(d, GameEnded):
                if ending is not None:  # the game's end said anew: a result corrected
                    corrected.append(ending)
                ending = Ending(d.t, line, d.result, d.reason, d.article, _actor(event))

    for number, raw in numbered:
        key = board.position_key()
        fed = replay.feed(raw, number)
        if fed is None:
            if replay.stopped:
                break
            continue
        if fed.event is None:
            continue
        shown = _shown(number, fed.event)
        for o in opened.values():
            o.take(shown)
        if fed.decisions:
            before: str | None = None  # None: unchanged, the board's own
            if board.position_key() != key:
                # the position before this line, rebuilt from its key (a FEN only here)
                scratch.white, scratch.black, scratch.kings = key[:3]
                scratch.turn = Colour(key[3])
                before = scratch.fen()
            decide(fed.decisions, number, fed.event, shown, before)
        recent.append(shown)
        if shown.type == "arbiter":
            arbiter.append(shown)
        elif shown.type in ("fault", "fault_cleared", "restart"):
            machine.append(shown)
    if not replay.ended and not replay.stopped:
        decide(replay.advance(replay.last_t), None, None, None, None)
    start = replay.start_line
    control = start.get("time_control")
    return GameReport(
        game_id=game_id, variant=replay.variant, tags=record_tags(start),
        time_control=control if isinstance(control, str) and control else None,
        started_at=_started_at(start), clock=bool(start.get("clock", True)),
        moves=tuple(game.moves), labels=tuple(move_labels(game)[:len(game.moves)]),
        flags=tuple(o.block() for o in opened.values()),
        arbiter=tuple(arbiter), machine=tuple(machine), ending=ending,
        corrected=tuple(corrected), result=game.result,
        final_fen=board.fen(), digest=digest,
        unreadable=tuple(policy.faults) + ((torn,) if torn is not None else ()),
        zone=board_zone(zone if isinstance(zone := start.get("timezone"), str) else None))


def read_game(path: Path, game_id: str | None = None) -> GameReport:
    """The paperwork of the journal file ``path`` (game ``game_id``, default its folder's
    name). Raises GameDirError (one line) for a file that cannot be read or is too large."""
    gid = game_id if game_id is not None else path.parent.name
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_JOURNAL_BYTES + 1)
    except OSError as exc:
        raise GameDirError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_JOURNAL_BYTES:
        raise GameDirError(f"{path}: larger than {MAX_JOURNAL_BYTES // (1024 * 1024)} MiB, "
                           "not a game's journal")
    return game_report(gid, data)


def read_game_dir(folder: Path) -> GameReport:
    """The paperwork of the game folder ``folder`` (``STATE/games/<id>/``, or a hub's
    ``DIR/boards/<N>/games/<id>/``): its ``trace.jsonl``. Raises GameDirError (one line) for a
    folder that is not a game's."""
    if not folder.is_dir():
        raise GameDirError(f"{folder}: not a game directory (no such directory)")
    trace = folder / TRACE_NAME
    if not trace.is_file():
        raise GameDirError(f"{folder}: not a game directory (no {TRACE_NAME} in it)")
    return read_game(trace, folder.resolve().name)
