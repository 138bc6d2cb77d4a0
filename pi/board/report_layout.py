"""A game's paperwork (``pi.board.report.GameReport``) worded in a language: a
:class:`Document` of plain blocks — headings, label/value fields, tables, paragraphs and board
diagrams — that ``pi.board.report_render`` draws as PDF or HTML. Every word a person reads is
here, marked for gettext and asked of the translations given (``engine.i18n.translations``, or
``gettext.NullTranslations`` for English); codes stay codes (article codes, docs/trace-format.md button and
action names, the PDN's moves and results). Move and square notation is the variant's: numbers,
algebraic for Brazilian (``Variant.algebraic_pdn``).

Times are labelled with their clock: *game time* is the journal's ``t`` (seconds since the
game's start line), *wall time* the start line's ``started_at`` plus ``t``, in the board's time
zone (the start line's ``timezone``, UTC when it names none), its abbreviation written after it.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass
from datetime import datetime

from engine.articles import title
from engine.board import Board
from engine.colour import Colour
from engine.events import PIECE_CODES
from engine.i18n import N_, localize
from engine.identity import piece_words
from engine.variants import Variant
from pi.board.report import Actor, FlagBlock, GameReport, Shown

__all__ = ["Document", "Block", "Heading", "Fields", "Table", "Paragraph", "Diagram",
           "Diagrams", "Cell", "FlagSection", "compose", "game_time",
           "clock_time"]


@dataclass(frozen=True, slots=True)
class Heading:
    text: str


@dataclass(frozen=True, slots=True)
class Fields:
    """Label/value rows."""

    rows: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Table:
    """``head`` over ``rows``; ``widths``: each column's share of the line (they sum to 1)."""

    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    widths: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class Paragraph:
    text: str
    mono: bool = False


@dataclass(frozen=True, slots=True)
class Cell:
    """A dark square: ``file``, ``rank`` 0-based seen from White's side (a1 = 0, 0), ``label``
    its name in the variant's notation, ``piece``: ``""`` empty, ``"w"``/``"b"`` a man,
    ``"W"``/``"B"`` a king."""

    file: int
    rank: int
    label: str
    piece: str


@dataclass(frozen=True, slots=True)
class Diagram:
    """A board ``size`` × ``size`` seen from White's side (White's pieces at the bottom), its
    dark squares ``cells`` (every other square is light), under ``caption``."""

    caption: str
    size: int
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class Diagrams:
    boards: tuple[Diagram, ...]


Block = Heading | Fields | Table | Paragraph | Diagrams


@dataclass(frozen=True, slots=True)
class FlagSection:
    """One flag's blocks, kept together on paper."""

    blocks: tuple[Block, ...]


@dataclass(frozen=True, slots=True)
class Document:
    """``title``, ``language`` (``en``, ``it``), then the sections in order: a tuple of blocks
    or a :class:`FlagSection`."""

    title: str
    language: str
    parts: tuple[Block | FlagSection, ...]


_VARIANTS = {"italian": N_("Italian draughts"), "english": N_("English draughts"),
             "international": N_("International draughts"),
             "brazilian": N_("Brazilian draughts")}
_KINDS = {"irregularity": N_("irregularity"), "incorrectness": N_("incorrectness"),
          "notice": N_("notice"), "result": N_("result"), "procedure": N_("procedure")}
_STATUSES = {"pending": N_("pending"), "corrected": N_("corrected"),
             "maintained": N_("maintained"), "noted": N_("noted"), "lapsed": N_("lapsed")}
_TAGS = (("Event", N_("Event")), ("Site", N_("Site")), ("Date", N_("Date")),
         ("Round", N_("Round")), ("Board", N_("Board")), ("White", N_("White")),
         ("Black", N_("Black")))
_LINES = {"lift": N_("piece lifted"), "place": N_("piece placed"),
          "snapshot": N_("sensors' snapshot"), "button": N_("button"),
          "arbiter": N_("arbiter"), "end": N_("end of the journal"),
          "fault": N_("sensor fault"), "fault_cleared": N_("sensors answer again"),
          "restart": N_("daemon restarted"), "piece": N_("piece changed")}


def _side(t: gettext.NullTranslations, side: Colour | None) -> str:
    if side is None:
        return "-"
    return t.gettext("White") if side == Colour.WHITE else t.gettext("Black")


def game_time(seconds: float) -> str:
    """``h:mm:ss.s`` of a game time."""
    tenths = int(round(max(0.0, seconds) * 10))
    h, rest = divmod(tenths, 36000)
    m, rest = divmod(rest, 600)
    return f"{h}:{m:02d}:{rest // 10:02d}.{rest % 10}"


def clock_time(seconds: float) -> str:
    """``h:mm:ss`` of a clock reading (time left, whole seconds down)."""
    whole = int(max(0.0, seconds))
    h, rest = divmod(whole, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}"


def _wall(when: datetime | None) -> str:
    return "-" if when is None else when.strftime("%Y-%m-%d %H:%M:%S %Z")


def _article(t: gettext.NullTranslations, code: str) -> str:
    text = title(code)
    return f"{code} - {t.gettext(text)}" if text else code


class _Words:
    """The translations, and the report's names for people."""

    def __init__(self, report: GameReport, t: gettext.NullTranslations, language: str) -> None:
        self.r = report
        self.t = t
        self.language = language

    def recorded(self, text: str) -> str:
        """An English text the engine recorded (a flag's, a result's reason) in the report's
        language (``engine.i18n.localize``)."""
        return localize(text, self.language)

    def player(self, side: Colour | None) -> str:
        name = self.r.tags.get("White" if side == Colour.WHITE else "Black") if side is not None \
            else None
        return f"{_side(self.t, side)} ({name})" if name else _side(self.t, side)

    def actor(self, a: Actor) -> str:
        t = self.t
        if a.kind == "player":
            return t.gettext("{player}, button {button}").format(player=self.player(a.side),
                                                                 button=a.what)
        if a.kind == "arbiter":
            return t.gettext("the arbiter, action {action}").format(action=a.what)
        if a.kind == "board":
            return t.gettext("the board ({line})").format(line=t.gettext(_LINES.get(a.what,
                                                                                  a.what)))
        return t.gettext("the clock (time ran on)")

    def when(self, seconds: float, line: int | None) -> str:
        t = self.t
        text = t.gettext("game time {game} · wall time {wall}").format(
            game=game_time(seconds), wall=_wall(self.r.wall(seconds)))
        if line is not None:
            text += " · " + t.gettext("line {line}").format(line=line)
        return text

    def shown(self, s: Shown) -> str:
        t = self.t
        what = t.gettext(_LINES.get(s.type, s.type))
        if s.type in ("lift", "place", "piece"):
            text = f"{what} {' '.join(s.squares)}"
            if s.piece in PIECE_CODES:  # issue 40: what the sensor saw, the flag's evidence
                text += ": " + t.gettext(piece_words(PIECE_CODES[s.piece]))
            if s.reading is not None:
                text += " (" + t.gettext("reads {reading}").format(reading=f"{s.reading:+.2f}") + ")"
            return text
        if s.type == "snapshot":
            return what + ": " + t.ngettext("{n} square occupied", "{n} squares occupied",
                                            len(s.squares)).format(n=len(s.squares))
        if s.type == "button":
            return f"{what} {s.name}: {self.player(s.side)}"
        if s.type == "arbiter":
            detail = s.action
            if s.result:
                detail += f" {s.result}"
            if s.text:
                detail += f": \u201c{s.text}\u201d"
                if s.public:
                    detail += " (" + t.gettext("public") + ")"
            return f"{what}: {detail}"
        if s.type in ("fault", "fault_cleared"):
            return f"{what}: {' '.join(s.squares)}" + (f" ({s.text})" if s.text else "")
        if s.type == "restart":
            if s.down is None:
                return what + ", " + t.gettext("time away unknown")
            return what + ", " + t.gettext("away {seconds} s").format(seconds=f"{s.down:g}")
        return what


def _diagram(caption: str, fen: str, variant: Variant) -> Diagram:
    board = Board(fen, variant)
    g = variant.geometry
    cells = []
    for n in range(1, g.count + 1):
        f, r = g.coords[n]
        p = board.piece_at(n)
        piece = "" if p is None else ("w" if p.color == Colour.WHITE else "b")
        if p is not None and p.king:
            piece = piece.upper()
        cells.append(Cell(f, r, g.algebraic_of[n] if variant.algebraic_pdn else str(n), piece))
    return Diagram(caption, variant.size, tuple(cells))


def _header(w: _Words) -> list[Block]:
    r, t = w.r, w.t
    rows = [(t.gettext("Game"), r.game_id),
            (t.gettext("Variant"), t.gettext(_VARIANTS.get(r.variant.name, r.variant.name)))]
    for key, label in _TAGS:
        if key in r.tags:
            rows.append((t.gettext(label), r.tags[key]))
    rows.append((t.gettext("Time control"), r.time_control or "-"))
    rows.append((t.gettext("Started (wall time)"), _wall(r.wall(0.0))))
    rows.append((t.gettext("Result"), r.result))
    return [Fields(tuple(rows))]


def _moves(w: _Words) -> list[Block]:
    r, t = w.r, w.t
    first = r.variant.first_to_move
    head = (t.gettext("No."), _side(t, first), t.gettext("clock"), t.gettext("game time"),
            _side(t, first.opponent), t.gettext("clock"), t.gettext("game time"))
    rows: list[list[str]] = []
    for rec, label in zip(r.moves, r.labels, strict=True):
        number = label.rstrip(".")
        text = rec.notation + (f" {rec.nag}" if rec.nag else "")
        if rec.comment:
            text += f" {{{rec.comment}}}"
        clock = "-" if rec.clock is None else clock_time(rec.clock[int(rec.side)])
        when = "-" if rec.t is None else game_time(rec.t)
        col = 1 if rec.side == first else 4
        if not rows or rows[-1][0] != number or rows[-1][col]:
            rows.append([number, "", "", "", "", "", ""])
        rows[-1][col:col + 3] = [text, clock, when]
    if not rows:
        return [Paragraph(t.gettext("No move was played."))]
    return [Paragraph(t.gettext("Each move with the clock of the side that played it after "
                                "the move (time left), and the game time it was completed.")),
            Table(head, tuple(tuple(row) for row in rows),
                  (0.08, 0.2, 0.12, 0.14, 0.2, 0.12, 0.14))]


def _flag(w: _Words, number: int, b: FlagBlock) -> FlagSection:
    r, t = w.r, w.t
    f = b.flag
    head = t.gettext("Flag {number}: {code}").format(number=number, code=f.code)
    name = title(f.code)
    if name:
        head += f" - {t.gettext(name)}"
    rows = [(t.gettext("Article"), _article(t, f.code)),
            (t.gettext("Kind"), t.gettext(_KINDS.get(f.kind, f.kind))),
            (t.gettext("Player concerned"), w.player(f.side)),
            (t.gettext("Description"), w.recorded(f.text)),
            (t.gettext("Raised"), w.when(f.t, b.raised_line)),
            (t.gettext("Raised by"), w.actor(b.raised_by))]
    for i, d in enumerate(b.decisions, start=1):
        rows.append((t.gettext("Decision {n}").format(n=i),
                     t.gettext("{status} by {article}; {when}; made by {who}").format(
                         status=t.gettext(_STATUSES.get(d.status, d.status)),
                         article=_article(t, d.article), when=w.when(d.t, d.line),
                         who=w.actor(d.by))))
    rows.append((t.gettext("Status"), t.gettext(_STATUSES.get(f.status, f.status))))
    boards = [_diagram(t.gettext("Before"), b.before, r.variant)]
    if b.played != b.after:
        boards.append(_diagram(t.gettext("As played"), b.played, r.variant))
    boards.append(_diagram(t.gettext("After") if b.decisions else t.gettext("After the line"),
                           b.after, r.variant))
    blocks: list[Block] = [Heading(head), Fields(tuple(rows)), Diagrams(tuple(boards))]
    if b.lines:
        blocks.append(Table((t.gettext("Line"), t.gettext("game time"), t.gettext("The board's line")),
                            tuple((str(s.line), game_time(s.t), w.shown(s)) for s in b.lines),
                            (0.1, 0.16, 0.74)))
    if b.more:
        blocks.append(Paragraph(t.ngettext("… and {n} more line", "… and {n} more lines",
                                           b.more).format(n=b.more)))
    return FlagSection(tuple(blocks))


def _lines_table(w: _Words, lines: tuple[Shown, ...]) -> Table:
    t = w.t
    return Table((t.gettext("Line"), t.gettext("game time"), t.gettext("wall time"),
                  t.gettext("What")),
                 tuple((str(s.line), game_time(s.t), _wall(w.r.wall(s.t)), w.shown(s))
                       for s in lines),
                 (0.08, 0.14, 0.24, 0.54))


def compose(report: GameReport, t: gettext.NullTranslations, language: str = "en") -> Document:
    """The document of ``report`` in ``language`` (``en``, ``it``), ``t`` its translations
    (``engine.i18n.translations``; ``gettext.NullTranslations()`` is English too)."""
    w = _Words(report, t, language)
    parts: list[Block | FlagSection] = []
    parts += _header(w)
    parts.append(Paragraph(t.gettext("Times: game time is the time since the start of the "
                                     "game's journal; wall time is the date and time of day "
                                     "on the board (its time zone: {zone}), from the journal's "
                                     "start.").format(zone=str(report.zone))))
    parts.append(Heading(t.gettext("Moves")))
    parts += _moves(w)
    parts.append(Heading(t.gettext("Flags")))
    if not report.flags:
        parts.append(Paragraph(t.gettext("No flag was raised.")))
    else:
        parts.append(Paragraph(t.ngettext("{n} flag, each on its own block.",
                                          "{n} flags, each on its own block.",
                                          len(report.flags)).format(n=len(report.flags))))
    for i, block in enumerate(report.flags, start=1):
        parts.append(_flag(w, i, block))
    parts.append(Heading(t.gettext("The arbiter's notes and actions")))
    parts.append(_lines_table(w, report.arbiter) if report.arbiter
                 else Paragraph(t.gettext("None.")))
    parts.append(Heading(t.gettext("Faults and restarts")))
    parts.append(_lines_table(w, report.machine) if report.machine
                 else Paragraph(t.gettext("None.")))
    if report.unreadable:
        parts.append(Heading(t.gettext("Lines that could not be read")))
        parts.append(Table((t.gettext("Line"), t.gettext("Why")),
                           tuple((str(n), why) for n, why in report.unreadable), (0.1, 0.9)))
    parts.append(Heading(t.gettext("Result")))
    e = report.ending
    if e is None:
        parts.append(Fields(((t.gettext("Result"), report.result),
                             (t.gettext("How"), t.gettext("the game is not over in the "
                                                          "journal")))))
    else:
        for c in report.corrected:  # the game's history of its results (COMP 6.16)
            parts.append(Fields(((t.gettext("Result before the correction"), c.result),
                                 (t.gettext("How"),
                                  f"{w.recorded(c.reason)} ({_article(t, c.article)})"),
                                 (t.gettext("When"), w.when(c.t, c.line)),
                                 (t.gettext("By"), w.actor(c.by)))))
        parts.append(Fields(((t.gettext("Result"), e.result),
                             (t.gettext("How"), f"{w.recorded(e.reason)} ({_article(t, e.article)})"),
                             (t.gettext("When"), w.when(e.t, e.line)),
                             (t.gettext("By"), w.actor(e.by)))))
    parts.append(Fields(((t.gettext("Final position"), report.final_fen),)))
    parts.append(Diagrams((_diagram(t.gettext("Final position"), report.final_fen,
                                    report.variant),)))
    parts.append(Heading(t.gettext("The journal")))
    d = report.digest
    parts.append(Paragraph(t.gettext("Check this paper against the file: the SHA-256 of "
                                     "trace.jsonl and its number of lines.")))
    parts.append(Fields(((t.gettext("SHA-256"), d.sha256),
                         (t.gettext("Lines"), str(d.lines)),
                         (t.gettext("Bytes"), str(d.size)))))
    return Document(t.gettext("Game report: {game}").format(game=report.game_id), language,
                    tuple(parts))
