"""One game replayed: journal lines (docs/trace-format.md) in, each line with the arbiter's decisions out.

Every reader of a journal goes through :class:`Replay`: ``damiera replay`` and the reports
(:func:`replay_lines`), the daemon's game session (its live feed and its resume), the web's SSE
catch-up and step-through replay, the hall hub's replicas and the simulated hall boards. Each
states what a bad line does by the :class:`ErrorPolicy` it passes — python-chess's visitor
``handle_error``: the policy is given the :class:`LineFault` and raises, or answers
:attr:`Verdict.SKIP` (the line is passed over with the fault noted on its :class:`Fed`, the
replay goes on) or :attr:`Verdict.STOP` (the replay ends before the line).

A line goes wrong in one of two :class:`Stage` s: it cannot be *read* (not JSON, not a trace
line, a square that does not exist, time going backwards: ``engine.trace``'s ``TraceError``),
or the *arbiter* raised on its event (a bug: a board contains it and goes on).

Memory is bounded by what is kept: a replay holds its arbiter and the start line, nothing per
line; lines are read from the iterable as they are fed, so a journal of any length streams.

``replay_lines(lines)`` is ``damiera replay``'s report: the :class:`Report` whose ``to_json()`` is
exactly the docs/trace-format.md object (keys ``moves``, ``flags``, ``fen``, ``result``, ``pdn``) and
``to_text()`` a readable summary with the article title of every flag. The command itself
streams the same bytes (:class:`StreamedReport`: each move written out once settled, then
forgotten by the game), so that the record of a trace of any length is never held whole.
"""

from __future__ import annotations

import enum
import json
import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from engine.arbiter import Arbiter
from engine.articles import title
from engine.decisions import Decision, Flag
from engine.errors import StateError, TraceError
from engine.events import Event, GameStarted, TraceEnded
from engine.i18n import DEFAULT_LANGUAGE, localize, translations
from engine.game import Game, RecordedMove
from engine.pdn import MoveNumbers, PdnSnapshot, PdnStream, PdnText, write_pdn
from engine.trace import load_line, parse_event, parse_start
from engine.variants import Variant
from engine.frozen import quick_init

__all__ = ["Report", "RecordText", "RecordSnapshot", "Replay", "Fed", "Stage", "Verdict",
           "LineFault", "ErrorPolicy", "ContainArbiter", "RAISE", "replay_lines", "StreamedReport"]


class Stage(enum.Enum):
    """Where a line went wrong."""

    #: the line cannot be read: not a trace line, or one the reader refuses (``TraceError``)
    READ = "read"
    #: the arbiter raised on the line's event (or advancing the time after it)
    ARBITER = "arbiter"


class Verdict(enum.Enum):
    """What :meth:`ErrorPolicy.handle_error` decides for a bad line (or it raises)."""

    #: the line is passed over: its :class:`Fed` has no decisions and carries the fault
    SKIP = "skip"
    #: the replay ends before the line: it is not fed, nor any line after it
    STOP = "stop"


@dataclass(frozen=True, slots=True)
class LineFault:
    """Line ``line`` went wrong at ``stage`` with ``error``; ``record`` is its JSON object, or
    None when it is not one."""

    line: int
    stage: Stage
    error: Exception
    record: Mapping[str, Any] | None


@quick_init
@dataclass(frozen=True, slots=True)
class Fed:
    """What one journal line did: its ``line`` number (1-based; the web's SSE id, the hall's
    catch-up key), ``record`` (the docs/trace-format.md object exactly as journaled; ``{}`` for a line
    skipped as not JSON), the ``event`` given to the arbiter (None for the start line and a line
    skipped unread), the arbiter's ``decisions``, and ``fault``: why the line was skipped, or
    None."""

    line: int
    record: dict[str, Any]
    event: Event | None
    decisions: tuple[Decision, ...]
    fault: LineFault | None = None


class ErrorPolicy:
    """What a replay does with a bad line. This base raises the line's error: a malformed trace
    is refused (``damiera replay``, the step-through replay, the simulated boards). Subclass it
    and override :meth:`handle_error` for another policy."""

    def handle_error(self, fault: LineFault) -> Verdict:
        """Raises, or says whether the replay skips the line or stops before it."""
        raise fault.error


#: The policy that raises every error (a line that cannot be read, an arbiter failure).
RAISE = ErrorPolicy()


class ContainArbiter(ErrorPolicy):
    """A board's policy (the daemon, its web feeds, the hub's replicas): an arbiter failure on
    a line is logged with the line and skipped — one bad event never stops a board (mopidy's
    habit); the line is journaled all the same. A line that cannot be read raises, or, with
    ``unreadable``, is logged and given that verdict. ``log``: the caller's logger; ``where``
    names the game in its messages (``"board 7 game …"``)."""

    def __init__(self, log: logging.Logger, unreadable: Verdict | None = None, *,
                 where: str = "") -> None:
        self.log = log
        self.unreadable = unreadable
        self.where = f"{where} " if where else ""

    def handle_error(self, fault: LineFault) -> Verdict:
        if fault.stage is Stage.ARBITER:
            self.log.error("%sline %d: the arbiter failed (%r); passed over, the game goes on",
                           self.where, fault.line, fault.record, exc_info=fault.error)
            return Verdict.SKIP
        if self.unreadable is None:
            raise fault.error
        self.log.warning("%sline %d cannot be read (%s): %s", self.where, fault.line,
                         "skipped" if self.unreadable is Verdict.SKIP else "replay stopped there",
                         str(fault.error)[:80])
        return self.unreadable


class Replay:
    """One game being replayed into a fresh :class:`engine.arbiter.Arbiter`.

    Make one from the start line (``Replay(start)``, then :meth:`feed` the lines in order) or
    from a whole trace (:meth:`read`, then iterate it). ``start`` is the start line's object;
    raises ``TraceError`` for a start line the reader refuses (no policy: there is no game
    without it). Not thread-safe."""

    def __init__(self, start: Mapping[str, Any], policy: ErrorPolicy = RAISE, *,
                 line: int = 1) -> None:
        self.start_line: dict[str, Any] = dict(start)
        parsed, variant = parse_start(line, self.start_line)
        self.start: GameStarted = parsed
        self.variant: Variant = variant
        self.policy = policy
        self.arbiter = Arbiter(parsed)
        self._start_number = line
        #: the number of the last line taken (fed or skipped)
        self.line = line
        #: ``t`` of the last line read (0.0 after the start line)
        self.last_t = 0.0
        #: the last event fed was ``end`` (docs/trace-format.md): no settle timer is left to fire
        self.ended = False
        #: the policy stopped the replay: nothing more is fed
        self.stopped = False
        self._rest: Iterator[tuple[int, str | Mapping[str, Any]]] = iter(())

    @classmethod
    def read(cls, lines: Iterable[str | Mapping[str, Any]],
             policy: ErrorPolicy = RAISE) -> Replay:
        """A replay of the trace ``lines`` (text lines or their JSON objects; blank text lines
        are skipped but counted), its start line read: iterate it for the other lines'
        :class:`Fed` s, read as they are consumed. Raises ``TraceError`` for a trace without a
        good start line."""
        numbered = enumerate(lines, start=1)
        for number, raw in numbered:
            obj = load_line(number, raw) if isinstance(raw, str) else raw
            if obj is None:
                continue
            if not isinstance(obj, Mapping):
                raise TraceError(number, "a trace line must be a JSON object")
            replay = cls(obj, policy, line=number)
            replay._rest = numbered
            return replay
        raise TraceError(1, "no start line (the first line must have \"type\": \"start\")")

    @property
    def first(self) -> Fed:
        """The start line's :class:`Fed` (no event, no decision)."""
        return Fed(self._start_number, self.start_line, None, ())

    def __iter__(self) -> Iterator[Fed]:
        """The :class:`Fed` of every line :meth:`read` has not yet given, in order, until the
        policy stops the replay."""
        for number, raw in self._rest:
            fed = self.feed(raw, number)
            if fed is not None:
                yield fed
            elif self.stopped:
                return

    def feed(self, record: str | Mapping[str, Any], number: int | None = None) -> Fed | None:
        """Line ``number`` (default: the next) fed: read, then given to the arbiter. None for a
        blank text line, or when the policy stops the replay (:attr:`stopped`; every later call
        returns None too). Raises what the policy raises."""
        if self.stopped:
            return None
        number = self.line + 1 if number is None else number
        obj: Mapping[str, Any] | None = None
        try:
            obj = load_line(number, record) if isinstance(record, str) else record
            if obj is None:
                self.line = number
                return None
            event = self.read_event(obj, number)
        except (TraceError, ValueError, TypeError, RecursionError) as exc:
            return self._fault(LineFault(number, Stage.READ, exc, obj))
        return self.take(obj, event, number)

    def read_event(self, record: Mapping[str, Any], number: int | None = None) -> Event:
        """The event of line ``record`` (``number``, default the next), as the arbiter would be
        given it; nothing is fed. Raises ``TraceError`` for a line the reader refuses, time
        going backwards included. (The daemon reads a line before journaling it, and feeds it
        with :meth:`take` once it is on disk.)"""
        number = self.line + 1 if number is None else number
        if not isinstance(record, Mapping):
            raise TraceError(number, "a trace line must be a JSON object")
        event = parse_event(number, record if isinstance(record, dict) else dict(record),
                            self.variant)
        if event.t < self.last_t:
            raise TraceError(number, f"time goes backwards ({event.t} after {self.last_t})")
        return event

    def take(self, record: Mapping[str, Any], event: Event, number: int | None = None) -> Fed:
        """Line ``number`` (default: the next), already read into ``event``, given to the
        arbiter. An arbiter failure goes to the policy (a stop gives a :class:`Fed` with no
        decisions all the same: the line was read)."""
        number = self.line + 1 if number is None else number
        self.line = number
        self.last_t = event.t
        self.ended = isinstance(event, TraceEnded)
        line = record if isinstance(record, dict) else dict(record)
        try:
            decisions = tuple(self.arbiter.feed(event))
        except Exception as exc:  # noqa: BLE001 - the policy decides (a board contains it)
            fault = LineFault(number, Stage.ARBITER, exc, record)
            if self.policy.handle_error(fault) is Verdict.STOP:
                self.stopped = True
            return Fed(number, line, event, (), fault)
        return Fed(number, line, event, decisions)

    def advance(self, t: float) -> tuple[Decision, ...]:
        """The arbiter's decisions when time reaches ``t`` with no event (a settle timer, a flag
        fall). An arbiter failure goes to the policy (as on the last line taken): no
        decisions."""
        try:
            return tuple(self.arbiter.advance(t))
        except Exception as exc:  # noqa: BLE001 - the policy decides
            if self.policy.handle_error(LineFault(self.line, Stage.ARBITER, exc, None)) \
                    is Verdict.STOP:
                self.stopped = True
            return ()

    def finish(self) -> Report:
        """The report at the end of the trace: unless it ended with ``end``, time is advanced to
        the last line's ``t`` first (what the trace shows happened by then)."""
        if not self.ended and not self.stopped:
            self.advance(self.last_t)
        return self.report()

    def report(self) -> Report:
        """The docs/trace-format.md report of the game so far."""
        return Report(self.arbiter.game, self.arbiter.flags)

    def _fault(self, fault: LineFault) -> Fed | None:
        if self.policy.handle_error(fault) is Verdict.STOP:
            self.stopped = True
            return None
        self.line = fault.line
        record = fault.record
        return Fed(fault.line, {} if record is None else dict(record), None, (), fault)


@dataclass
class Report:
    """The outcome of a replay: the game record and the flags."""

    game: Game
    flags: list[Flag]

    @property
    def moves(self) -> list[dict[str, Any]]:
        return [m.to_dict() for m in self.game.moves]

    def pdn(self) -> str:
        """PDN 3.0 text of the game (``engine.pdn.write_pdn``)."""
        return write_pdn(self.game)

    def to_json(self) -> dict[str, Any]:
        """The docs/trace-format.md report object."""
        out: dict[str, Any] = {"moves": self.moves, "flags": [f.to_dict() for f in self.flags],
                               "fen": self.game.board.fen(), "result": self.game.result,
                               "pdn": self.pdn()}
        if self.game.corrections:
            out["result_history"] = result_history(self.game)
        return out

    def to_text(self, language: str = DEFAULT_LANGUAGE) -> str:
        """A readable summary: plies, flags with their article titles, result. Words: a *ply* is
        one player's move (the transcript's entries, numbered ``ply`` 1, 2, 3…), a *move* the
        pair numbered ``N.`` in the PDN (White's and Black's); the same everywhere a person
        reads them (pi/web/API.md, Words). In ``language``: the words, the flags' kinds,
        statuses, sides, texts and article titles, the result's reason; the notation, the
        codes, the FEN and the result stay as they are."""
        from engine.pdn import move_labels
        labels = move_labels(self.game)
        ply = translations(language).gettext("ply")
        rows = [_ply_line(m, labels[m.ply - 1], ply) for m in self.game.moves]
        lines = [*_text_head(self.game, len(rows), language), *rows,
                 *_text_tail(self.game, self.flags, not rows, language)]
        return "\n".join(lines) + "\n"


def _text_head(game: Game, plies: int, language: str) -> list[str]:
    """The lines of :meth:`Report.to_text` before its plies."""
    t = translations(language)
    return [t.ngettext("{variant} game, {n} ply", "{variant} game, {n} plies", plies).format(
                variant=game.variant.name, n=plies), "",
            t.gettext("Plies (ply, move as the PDN numbers it):")]


def _ply_line(m: RecordedMove, label: str, ply: str) -> str:
    """One ply of :meth:`Report.to_text` (``label``: its number as the PDN writes it; ``ply``:
    the word, translated)."""
    at = "" if m.t is None else f" ({m.t:g}s)"
    # a kept irregular move says so (its comment) before the position it left
    return (f"  {ply} {m.ply:>3}  {label} {m.notation}{at}"
            + (f"  {{{m.comment}}}" if m.comment else "")
            + (f"  [FEN {m.setup_fen}]" if m.setup_fen else ""))


def _text_tail(game: Game, flags: list[Flag], no_plies: bool, language: str) -> list[str]:
    """The lines of :meth:`Report.to_text` after its plies (``no_plies``: "(none)" first)."""
    t = translations(language)
    none = "  " + t.gettext("(none)")
    lines = [none] if no_plies else []
    lines += ["", t.gettext("Flags:")]
    if not flags:
        lines.append(none)
    for f in flags:
        side = localize(f.side.label, language) if f.side is not None else "-"
        head = (f"  {f.t:>8g}s  {f.code:<11} {localize(f.kind, language):<13} "
                f"{localize(f.status, language):<10} {side:<5} {localize(f.text, language)}")
        lines.append(head)
        art = title(f.code, language)
        if art:
            lines.append(f"{'':24}{f.code}: {art}")
    lines += ["", t.gettext("Position: {fen}").format(fen=game.board.fen())]
    o = game.outcome
    result = t.gettext("Result: {result}").format(result=game.result)
    lines.append(result + (f" ({o.code}: {localize(o.reason, language)})" if o else ""))
    for c in game.corrections:  # the results corrected (COMP 6.16), the first one first
        b = c.before
        lines.append("  " + t.gettext("{result} at {t}s ({code}: {reason}), corrected to {after} "
                                      "at {when}s: {why}").format(
            result=b.result, t="?" if c.before_t is None else f"{c.before_t:g}", code=b.code,
            reason=localize(b.reason, language), after=c.after.result, when=f"{c.t:g}",
            why=c.reason))
    return lines


def result_history(game: Game) -> list[dict[str, object]]:
    """The report's ``result_history`` (only in a game whose result the arbiter corrected,
    COMP 6.16): the first result, then each correction, with their times and reasons."""
    if not game.corrections:
        return []
    return [game.corrections[0].first_to_dict(), *(c.to_dict() for c in game.corrections)]


@dataclass(frozen=True, slots=True)
class RecordSnapshot:
    """A game's derived files at one moment, immutable (made on the board's loop, written by
    another thread): :meth:`pdn` is ``Report.pdn()`` and :meth:`report_json` is
    ``json.dumps(Report.to_json(), ensure_ascii=False, allow_nan=False)``, byte for byte."""

    moves: tuple[str, ...]  # each move's JSON object
    flags: tuple[str, ...]
    fen: str
    result: str
    pdn_text: PdnSnapshot
    #: the report's ``result_history`` as JSON ("" when the result was never corrected)
    history: str = ""

    def pdn(self) -> str:
        return self.pdn_text.text()

    def report_json(self) -> str:
        # json.dumps of the report without indent is its parts' dumps joined with its separators
        history = f', "result_history": {self.history}' if self.history else ""
        return (f'{{"moves": [{", ".join(self.moves)}], "flags": [{", ".join(self.flags)}], '
                f'"fen": {_dumps(self.fen)}, "result": {_dumps(self.result)}, '
                f'"pdn": {_dumps(self.pdn())}{history}}}')


class RecordText:
    """The report and the PDN of a game kept up to date: :meth:`update` encodes only the moves
    and flags that changed since the last call (a record changes at its end; moves and flags
    are immutable values, known by identity), so a move late in a long game costs what one early
    does. One instance per game, on one thread; its snapshots go anywhere."""

    def __init__(self) -> None:
        self._pdn = PdnText()
        self._recs: list[object] = []
        self._moves: list[str] = []
        self._flags: list[Flag] = []
        self._flag_json: list[str] = []

    def update(self, game: Game, flags: list[Flag]) -> RecordSnapshot:
        """The files of ``game`` with ``flags`` (the arbiter's) now. Raises ValueError for a
        value JSON cannot hold."""
        moves = game.moves
        keep = min(len(self._recs), len(moves))
        while keep and self._recs[keep - 1] is not moves[keep - 1]:
            keep -= 1
        del self._recs[keep:], self._moves[keep:]
        for rec in moves[keep:]:
            self._recs.append(rec)
            self._moves.append(_dumps(rec.to_dict()))
        # a flag changes status anywhere in the list (a few per game): each is checked
        del self._flags[len(flags):], self._flag_json[len(flags):]
        for i, flag in enumerate(flags):
            if i == len(self._flags):
                self._flags.append(flag)
                self._flag_json.append(_dumps(flag.to_dict()))
            elif self._flags[i] is not flag:
                self._flags[i] = flag
                self._flag_json[i] = _dumps(flag.to_dict())
        return RecordSnapshot(tuple(self._moves), tuple(self._flag_json), game.board.fen(),
                              game.result, self._pdn.update(game),
                              _dumps(result_history(game)) if game.corrections else "")


def _dumps(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


class StreamedReport:
    """``damiera replay``'s report — :meth:`Report.to_json` as ``json.dumps(…,
    ensure_ascii=False)``, or :meth:`Report.to_text` — written while the trace is replayed, in
    memory that does not grow with the record: each move nothing can change any more
    (``Arbiter.settled_plies``) is written as it settles to ``body`` (its JSON object, or its
    line of the text) and, for JSON, its finished PDN lines to ``pdn_body`` (escaped for a JSON
    string), then the game forgets it (``Game.forget``, ``forget_batch`` at once: a list
    deletion, so that its cost per move stays constant). Call :meth:`settle` after
    every line fed; once the trace is over, :meth:`finish` writes the last moves and gives what
    only the end knows (the ply count, the flags, the position, the result, the PDN's tags):
    the report is ``head + body + middle + pdn_body + tail``, byte for byte. The game of
    ``replay`` holds its last moves only, from the first :meth:`settle` on. Pure (the caller
    keeps the bodies); one thread."""

    def __init__(self, replay: Replay, form: Literal["json", "text"],
                 body: Callable[[str], object], pdn_body: Callable[[str], object],
                 language: str = DEFAULT_LANGUAGE, forget_batch: int = 4096) -> None:
        self._replay = replay
        self._batch = forget_batch
        self._json = form == "json"
        self._body = body
        self._pdn_body = pdn_body
        self._language = language
        self._ply_word = translations(language).gettext("ply")
        self._numbers = MoveNumbers(replay.variant.first_to_move)
        self._pdn = PdnStream()
        self._written = 0  # plies written to the body

    def settle(self) -> None:
        """Write the moves settled since the last call; the game forgets them by batches."""
        arbiter = self._replay.arbiter
        game = arbiter.game
        if game.ply - 1 <= self._written:
            return  # nothing new can have settled (most lines: a touch, a press)
        self._write_to(arbiter.settled_plies)
        held_written = self._written - (game.ply - len(game.moves))
        if held_written >= self._batch:
            game.forget(held_written)

    def finish(self) -> tuple[str, str, str]:
        """The replay finished (``Replay.finish``: time advanced to its last line), every move
        left written: (head, middle, tail)."""
        report = self._replay.finish()
        game = report.game
        self._write_to(game.ply)
        if not self._json:
            return ("\n".join(_text_head(game, game.ply, self._language)) + "\n", "",
                    "\n".join(_text_tail(game, report.flags, game.ply == 0, self._language))
                    + "\n")
        middle = ('], "flags": [' + ", ".join(_json(f.to_dict()) for f in report.flags)
                  + '], "fen": ' + _json(game.board.fen()) + ', "result": '
                  + _json(game.result) + ', "pdn": "'
                  + _escaped("\n".join(self._pdn.tags(game)) + "\n\n"))
        history = (', "result_history": ' + _json(result_history(game))
                   if game.corrections else "")
        tail = _escaped("\n".join(self._pdn.last(game)) + "\n") + '"' + history + "}"
        return '{"moves": [', middle, tail

    def _write_to(self, ply: int) -> None:
        game = self._replay.arbiter.game
        if ply < self._written:
            raise StateError(f"the record went back to ply {ply} after {self._written} plies "
                             "were written out")
        first_held = game.ply - len(game.moves) + 1  # the ply of game.moves[0]
        for rec in game.moves[self._written + 1 - first_held:ply + 1 - first_held]:
            self._write(game, rec)
        self._written = ply

    def _write(self, game: Game, rec: RecordedMove) -> None:
        label = self._numbers.label(rec.side)
        if not self._json:
            self._body(_ply_line(rec, label, self._ply_word) + "\n")
            return
        self._body((", " if rec.ply > 1 else "") + _json(rec.to_dict()))
        self._pdn.add(game, rec, lambda line: self._pdn_body(_escaped(line + "\n")))


def _json(value: object) -> str:
    """``value`` as ``damiera replay --json`` writes it (``json.dumps``, ``ensure_ascii=False``)."""
    return json.dumps(value, ensure_ascii=False)


def _escaped(text: str) -> str:
    """``text`` as it stands inside a JSON string (``_json(text)`` without its quotes): the
    pieces of a string escaped one by one are the string escaped."""
    return _json(text)[1:-1]


def replay_lines(lines: Iterable[str]) -> Report:
    """``damiera replay``: a JSONL trace replayed (any iterable of lines, e.g. an open file:
    each line is read as it is fed, never all held at once) and its report. Policy
    :data:`RAISE`: raises ``TraceError(line, message)`` for a malformed trace when its bad line
    is reached, and whatever the arbiter raises."""
    replay = Replay.read(lines, RAISE)
    for _ in replay:
        pass
    return replay.finish()
