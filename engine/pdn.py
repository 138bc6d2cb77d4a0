"""PDN 3.0 reading and writing.

Written games carry the seven standard tags (Event, Site, Date, Round, White, Black, Result;
:func:`record_tags` makes them, and ``Board``, of a game's start line), the
full ``GameType`` string of the variant (``22,W,8,8,N2,1`` Italian, ``21,B,8,8,N1,0`` English,
``20,W,10,10,N2,0`` international, ``26,W,8,8,A0,0`` Brazilian with algebraic squares), ``SetUp``
and ``FEN`` for a game that does not start from the initial position, ``TimeControl`` and the final
``WhiteTime``/``BlackTime`` when a clock ran; moves numbered from the variant's first mover, each
followed by its clock comment ``{[%clock …]}`` when known; a ``/FEN "…"/`` setup command after a
move where the game went on from another position (a maintained irregularity); annotation signs of
IT 13 (``! !! ? ?? !? ?! * + =``) glued to the move; the result set of the variant (international
``2-0 1-1 0-2``).

A move that broke the rules and was kept (IT 8.2-8.3, INT 5.4-5.7) is written as played
(``22-14``), with its clock comment like every move, then the comment ``{irregular move: IT 8.1.2,
IT 8.1.6}`` (the articles it broke), then the ``/FEN "…"/`` of the position the game went on
from. Why a comment: PDN 3.0 has no sign for a move against the rules; its move-strength signs
(IT 13: ``?``, ``??``…) judge a legal move and would be read as that, a NAG likewise, and a
changed move text (``22-14 (irregular)``, ``22~14``) is no move token for other programs, which
would stop reading the game there. A comment is the standard's means for text about a move: a
person reading the score sees at the move that it was no legal one, and every PDN reader keeps
or skips it (pydraughts reads the game; its moves list holds the move as played).

Reading accepts all of that plus ``;`` line comments, ``(…)`` variations (skipped), ``$n`` NAGs,
``:`` as capture separator, either result set, and several games in one text; and what archives
written by other programs and by hand hold: ``%`` escape lines, Black's first move after ``1...``
or ``1. ...`` and a trailing ``N. ...``, move-strength signs apart from the move or in
parentheses (``22-18 (!)``), other programs' ``[%…]`` comment commands (dropped), Italian tag
names (``Bianco``, ``Nero``, ``Risultato``, ``Evento``, ``Luogo``, ``Data``, ``Turno``: the
standard tags), a ``Variant`` tag (checked against ``GameType``), and a capture written short
(``3x26``) that fits several legal captures taking different pieces: the one from which the rest
of the game replays (a kept irregular move and its ``/FEN`` too: the position set must be one that
move could have left). Every move is replayed through the rules, so a game read is a game checked.
Reading is linear in the length of the text, and refuses a text over ``MAX_PDN_CHARS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Iterator, Mapping

from engine.board import Board, Move
from engine.colour import BLACK, WHITE, Colour
from engine.timecontrol import (format_clock_comment, format_pdn_time, parse_clock_comment,
                                parse_pdn_time, parse_time_control_tag)
from engine.errors import (AmbiguousMoveError, IllegalMoveError, InputError, InputTooLargeError,
                           InvalidMoveError, PdnError, UndecidedCaptureError, excerpt)
from engine.game import Game, RecordedMove
from engine.variants import VARIANTS, Variant, find_variant

SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_TAG_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?",
                 "Black": "?"}
#: The PDN tag of each start-line key (docs/trace-format.md) that names the game (``started_at`` gives Date).
START_TAGS = {"event": "Event", "site": "Site", "date": "Date", "round": "Round",
              "white": "White", "black": "Black", "board": "Board"}
ANNOTATIONS = ("!!", "??", "!?", "?!", "!", "?", "*", "+", "=")  # IT 13
RESULTS = ("1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*")
_GAME_TYPES = {int(v.game_type.split(",")[0]): v for v in VARIANTS.values()}

#: Largest PDN text read (characters): the longest real games are a few kB and whole archives a
#: few MB; 64 MB is generous, and a bigger input (``/dev/zero``) is refused unread.
MAX_PDN_CHARS = 64 * 1024 * 1024
#: Longest capture path read (squares): 21 is the most an international capture can visit.
_MAX_PATH = 40
#: Most readings of short captures followed at once while the rest of the game decides.
_MAX_BRANCHES = 64

# Tag names of Italian archives, mapped to the standard seven (the standard name wins when a game
# has both).
TAG_ALIASES = {"bianco": "White", "nero": "Black", "risultato": "Result", "evento": "Event",
               "torneo": "Event", "luogo": "Site", "sede": "Site", "data": "Date",
               "turno": "Round"}
# Names a ``Variant`` tag may give a variant damiera plays (other programs' spellings).
_VARIANT_NAMES = {"standard": "international", "international": "international",
                  "draughts": "international", "italian": "italian", "italiana": "italian",
                  "dama italiana": "italian", "english": "english", "checkers": "english",
                  "american": "english", "american checkers": "english", "brazilian": "brazilian"}

_SIGN = r"!!|\?\?|!\?|\?!|!|\?"
_SQUARE = r"(?:[0-9]+|[a-jA-J][0-9]+)"
# Every repetition below is a plain character class or bounded, so that a 5 MB comment costs a few
# MB, not a regex backtracking stack per character; a tag's value is scanned by hand
# (:func:`_tag_value`: with a regex, a 5 MB value cost 1 GB, and one full of ``\"`` 250 MB).
# NAGs have a few ASCII digits; a move number any number of them: it is a label, checked against
# nothing and never converted to an int (a 26-digit one was refused, issue 16).
_TOKEN = re.compile(rf"""
    (?P<ws>\s+)
  | (?<![^\n])%(?P<escape>[^\n]*)
  | \[(?P<tag>[A-Za-z0-9_]+)\s+"(?P<tagval>)
  | \{{(?P<comment>[^}}]*)\}}
  | ;(?P<linecomment>[^\n]*)
  | /FEN\s+"(?P<setup>[^"]*)"\s*/
  | \(\s*(?P<psign>{_SIGN})\s*\)
  | (?P<open>\() | (?P<close>\))
  | (?P<nag>\$[0-9]{{1,3}})(?![0-9])
  | (?P<result>1-0|0-1|1/2-1/2|2-0|0-2|1-1|0-0)(?![-x:0-9a-z])
  | (?P<number>[0-9]+(?:\.\.\.|\.|…))
  | (?P<ellipsis>\.\.\.|…)
  | (?P<move>{_SQUARE}(?:\s*[-x:]\s*{_SQUARE}){{1,{_MAX_PATH}}})(?P<sign>{_SIGN}|\*|\+|=)?
  | (?P<glyph>{_SIGN})
  | (?P<star>\*)
""", re.VERBOSE)


@dataclass
class PdnGameText:
    """A game as read, before the moves are replayed: tags, and movetext items in order
    (``("move", text, sign)``, ``("comment", text)``, ``("setup", fen)``), the result token."""

    tags: dict[str, str] = field(default_factory=dict)
    items: list[tuple[str, ...]] = field(default_factory=list)
    result: str = "*"


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def parse_pdn_text(text: str) -> list[PdnGameText]:
    """Split PDN text into games (syntax only): :func:`iter_pdn_text`, all at once."""
    return list(iter_pdn_text(text))


def iter_pdn_text(text: str) -> Iterator[PdnGameText]:
    """The games of a PDN text (syntax only), one at a time, in one linear pass. Raises PdnError
    naming the line of a bad token (when it is reached), or for a text longer than
    ``MAX_PDN_CHARS`` (at once). A result token with nothing before it is no game.

    Besides PDN 3.0 it reads what archives written by other programs and by hand contain: ``%``
    escape lines (skipped), ``1...`` / ``1. ...`` before Black's move, move-strength signs glued
    to a move, after it or in parentheses (``22-18 (!)``), and Italian tag names
    (``TAG_ALIASES``)."""
    if len(text) > MAX_PDN_CHARS:
        raise InputTooLargeError(f"PDN: text longer than {MAX_PDN_CHARS:,} characters")
    cur = PdnGameText()
    aliased: dict[str, str] = {}  # standard tags given under their Italian names
    depth = 0  # nesting of variations being skipped
    pos = 1 if text.startswith("\ufeff") else 0  # a byte-order mark, as Windows programs write
    in_moves = False
    last_move = -1  # index in cur.items of the last move (for a sign that follows it)
    token = _TOKEN.match

    def finish(game: PdnGameText) -> PdnGameText:
        for name, value in aliased.items():
            game.tags.setdefault(name, value)
        aliased.clear()
        return game

    while pos < len(text):
        m = token(text, pos)
        if m is None:
            snippet = text[pos:pos + 20].split("\n")[0]
            raise PdnError(f"PDN line {_line_of(text, pos)}: cannot read {snippet!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind == "tagval":  # the value is scanned even inside a variation being skipped
            value, pos = _tag_value(text, pos)
        if kind in ("ws", "linecomment", "escape", "number", "ellipsis", "nag"):
            continue
        if kind == "open":
            depth += 1
            continue
        if kind == "close":
            if depth == 0:
                raise PdnError(f"PDN line {_line_of(text, pos)}: ')' without '('")
            depth -= 1
            continue
        if depth:
            continue
        if kind == "tagval":
            if in_moves:  # tags after movetext without a result: a new game starts
                yield finish(cur)
                cur = PdnGameText()
                last_move = -1
                in_moves = False
            name = m.group("tag")
            alias = TAG_ALIASES.get(name.lower())
            if alias is not None and alias != name:
                aliased[alias] = value
            else:
                cur.tags[name] = value
        elif kind == "comment":
            cur.items.append(("comment", m.group("comment").strip()))
            in_moves = True
        elif kind == "setup":
            cur.items.append(("setup", m.group("setup")))
            in_moves = True
        elif kind in ("result", "star"):
            cur.result = m.group("result") or "*"
            if cur.items or cur.tags or aliased:
                yield finish(cur)
            cur = PdnGameText()
            last_move = -1
            in_moves = False
        elif kind in ("move", "sign"):
            last_move = len(cur.items)
            cur.items.append(("move", "".join(m.group("move").split()), m.group("sign") or ""))
            in_moves = True
        elif kind in ("psign", "glyph") and last_move >= 0:
            # a move-strength sign after the move, or in parentheses: the move's (IT 13)
            _, notation, sign = cur.items[last_move]
            cur.items[last_move] = ("move", notation, sign or m.group(kind))
    if depth:
        raise PdnError("PDN: unclosed '(' variation")
    if cur.items or cur.tags or aliased:
        yield finish(cur)


_TAG_END = re.compile(r"\s*\]")


def _tag_value(text: str, pos: int) -> tuple[str, int]:
    """The value of a tag whose opening quote ends at ``pos`` (``\\"`` is a quote in it), and
    the position after the tag's ``]``. Raises PdnError for a tag that does not end."""
    start = i = pos
    while True:
        quote = text.find('"', i)
        if quote < 0:
            raise PdnError(f"PDN line {_line_of(text, start)}: a tag value does not end")
        backslashes = 0
        while quote - backslashes - 1 >= start and text[quote - backslashes - 1] == "\\":
            backslashes += 1
        if backslashes % 2 == 0:
            break
        i = quote + 1
    end = _TAG_END.match(text, quote + 1)
    if end is None:
        raise PdnError(f"PDN line {_line_of(text, quote)}: a tag does not end with ']'")
    return text[start:quote].replace('\\"', '"'), end.end()


def variant_of_tags(tags: dict[str, str], default: Variant | str | None = None) -> Variant:
    """The variant named by the GameType tag (its first number), else by a ``Variant`` tag, else
    ``default``. Raises PdnError for a GameType or ``Variant`` naming a game damiera does not
    play, or the two disagreeing."""
    gt = tags.get("GameType", "").strip()
    named = tags.get("Variant", "").strip()
    by_name: Variant | None = None
    if named and named != "?":
        key = _VARIANT_NAMES.get(" ".join(named.lower().split()))
        if key is None:
            raise PdnError(f"PDN: Variant {excerpt(named)} is not a variant damiera plays "
                           f"(known: {', '.join(VARIANTS)})")
        by_name = VARIANTS[key]
    if gt:
        number_text = gt.split(",")[0].strip()
        if not (number_text.isascii() and number_text.isdigit() and len(number_text) <= 3):
            raise PdnError(f"PDN: cannot read GameType {excerpt(gt)}")
        number = int(number_text)
        v = _GAME_TYPES.get(number)
        if v is None:
            raise PdnError(f"PDN: GameType {number} is not a variant damiera plays "
                           f"(known: {', '.join(str(k) for k in sorted(_GAME_TYPES))})")
        fields = [f.strip() for f in gt.split(",")]
        if len(fields) >= 4 and fields[2:4] != [str(v.size)] * 2:
            # the board the GameType string describes must be the variant's (PDN 3.0: columns,
            # rows): "22,W,10,10,…" is no Italian game
            raise PdnError(f"PDN: GameType {excerpt(gt)} is not {v.name} draughts, played on "
                           f"{v.size}x{v.size}")
        if by_name is not None and by_name is not v:
            raise PdnError(f"PDN: GameType {number} is {v.name} but Variant says {excerpt(named)}")
        return v
    if by_name is not None:
        return by_name
    if default is None:
        raise PdnError("PDN: no GameType tag and no variant given")
    return find_variant(default) if isinstance(default, str) else default


def read_pdn(text: str, variant: Variant | str | None = None) -> list[Game]:
    """Every game of a PDN text, replayed through the rules: :func:`iter_pdn`, all at once."""
    return list(iter_pdn(text, variant))


def iter_pdn(text: str, variant: Variant | str | None = None,
             on_undecided: Callable[[UndecidedCaptureError], None] | None = None
             ) -> Iterator[Game]:
    """The games of a PDN text one at a time (an archive of any number of games is read in the
    memory of one), each replayed through the rules, in time linear in the length of the
    text. ``variant`` is used when a game has no GameType tag. A capture written short that fits
    several legal captures taking different pieces is the one from which the rest of the game
    replays. Raises PdnError (bad syntax, illegal move, bad FEN), naming game and move (``move
    12`` / ``move 12...``: the move number as the PDN writes it). A game with a short capture
    that none or several readings of the rest of the game fit raises UndecidedCaptureError,
    or, given ``on_undecided``, is handed to it (the error names game and move) and left out:
    the text's other games are read all the same (an archive is not lost for one game)."""
    for gi, g in enumerate(iter_pdn_text(text), 1):
        try:
            game = _replay_game(gi, g, variant)
        except UndecidedCaptureError as exc:
            if on_undecided is None:
                raise
            on_undecided(exc)
            continue
        yield game


def _replay_game(gi: int, g: PdnGameText, variant: Variant | str | None) -> Game:
    """Game number ``gi`` of a text, ``g``, replayed (:func:`iter_pdn`)."""
    try:
        v = variant_of_tags(g.tags, variant)
    except PdnError as exc:
        raise PdnError(f"PDN game {gi}: {str(exc).removeprefix('PDN: ')}") from None
    fen = g.tags.get("FEN")
    tags = {k: val for k, val in g.tags.items()
            if k not in ("GameType", "FEN", "SetUp", "Result", "TimeControl", "WhiteTime",
                         "BlackTime")}
    try:
        control = g.tags.get("TimeControl")
        if control is not None:
            parse_time_control_tag(control)  # carried, but checked: a number is read there
        game = Game(v, fen=fen, tags=tags, time_control=control)
    except InputError as exc:
        raise PdnError(f"PDN game {gi}: {exc}") from None
    setup_after = _setups_after(g.items)
    for index, item in enumerate(g.items):
        try:
            if item[0] == "move":
                setup = setup_after[index]
                try:
                    try:
                        game.play_notation(item[1])
                    except AmbiguousMoveError:  # a short capture: the rest of the game decides
                        candidates = game.board.move_candidates(item[1])
                        game.play(_resolve(game.board, g.items, index, candidates,
                                           setup_after))
                except (InvalidMoveError, IllegalMoveError):
                    if setup is None:
                        raise
                    # a kept irregularity (IT 8.3): the move as played, then the position
                    game.record_irregular(_as_played(game, item[1]), item[1], game.turn, setup)
                if item[2]:
                    game.annotate(nag=item[2])
            elif item[0] == "setup":
                # already applied when it followed a kept irregular move
                if not (game.moves and game.moves[-1].setup_fen == Board(item[1], v).fen()):
                    game.set_position(item[1])
            elif item[0] == "comment" and game.moves:
                clock = parse_clock_comment(item[1])
                if clock is not None:
                    game.set_clock_of_last_move(clock)
                # other programs' commands ([%eval …], [%emt …], …) are theirs: dropped
                rest = " ".join(_COMMAND.sub(" ", item[1]).split())
                if rest:
                    game.annotate(comment=rest)
        except InputError as exc:
            # a move token is short (its path is bounded): quoted as written
            where = f"move {_move_label(game)} ({item[1]})" if item[0] == "move" else "setup"
            error = UndecidedCaptureError if isinstance(exc, UndecidedCaptureError) else PdnError
            raise error(f"PDN game {gi}, {where}: {exc}") from None
    if "WhiteTime" in g.tags and "BlackTime" in g.tags:
        try:
            game.final_clock = (parse_pdn_time(g.tags["WhiteTime"]),
                                parse_pdn_time(g.tags["BlackTime"]))
        except InputError as exc:
            raise PdnError(f"PDN game {gi}: {exc}") from None
    if g.result != "*" and game.outcome is None:
        game.adjudicate(g.result, reason="result recorded in the PDN")
    return game


def _move_label(game: Game) -> str:
    """The number of the game's next move for a message: ``12`` or ``12...``
    (:func:`move_labels`)."""
    label = move_labels(game)[-1]
    return label if label.endswith("...") else label[:-1]


def move_labels(game: Game) -> list[str]:
    """The move number the PDN writes before each ply of ``game`` and before the next one
    (``len(game.moves) + 1`` labels): ``12.`` for the first mover's ply, ``12...`` for the
    other's; a move is a pair of plies, and a side that moved twice (an irregular move kept)
    numbers on, as :func:`write_pdn` does."""
    numbers = MoveNumbers(game.variant.first_to_move)
    out = [numbers.label(rec.side) for rec in game.moves]
    out.append(numbers.label(game.turn, peek=True))
    return out


class MoveNumbers:
    """The move numbers the PDN writes before the plies of a game, given one ply at a time
    (:func:`move_labels`; a reader that streams the record labels its plies as they come)."""

    def __init__(self, first: int) -> None:
        self.first = first
        self.number = 1
        self.previous: int | None = None

    def label(self, side: int, peek: bool = False) -> str:
        """The label of the next ply, played by ``side``: ``12.`` or ``12...``; ``peek``: the
        label only, the ply not counted (the one to come)."""
        number = self.number
        if side == self.first and self.previous == self.first:
            number += 1
        label = f"{number}." if side == self.first else f"{number}..."
        if not peek:
            self.previous = side
            self.number = number + 1 if side != self.first else number
        return label


# a PDN 3.0 comment command ``[%name …]``; a comment is not nested, so no ``]`` inside
_COMMAND = re.compile(r"\[%[^\]]*\]")


def _setups_after(items: list[tuple[str, ...]]) -> list[str | None]:
    """For each item, the FEN of a ``/FEN "…"/`` that follows it (comments between allowed), in
    one backward pass (looking ahead from every move would make reading quadratic)."""
    out: list[str | None] = [None] * len(items)
    following: str | None = None  # the setup that item i + 1 begins, through comments
    for i in range(len(items) - 1, -1, -1):
        out[i] = following
        kind = items[i][0]
        if kind == "setup":
            following = items[i][1]
        elif kind != "comment":
            following = None
    return out


def _resolve(board: Board, items: list[tuple[str, ...]], index: int,
             candidates: list[Move], setup_after: list[str | None]) -> Move:
    """The one of ``candidates`` (the legal readings of the short capture ``items[index]``) from
    which the moves that follow replay. The readings are followed side by side, move by move,
    until one is left (a later short capture may split a reading again); a ``/FEN`` setup or the
    end of the game ends the search. A move the rules do not allow, followed by a ``/FEN`` (a
    kept irregularity, read as played: ``setup_after``), follows a reading whose pieces it
    could have left as the ``/FEN`` shows them (:func:`_could_leave`). Raises PdnError when no
    reading or several fit."""
    branches: list[tuple[Move, Board]] = []
    for c in candidates:
        b = board.copy(stack=False)
        b.push(c)
        branches.append((c, b))
    roots = len(candidates)
    j = index + 1
    while roots > 1 and j < len(items):
        kind, text = items[j][0], items[j][1]
        j += 1
        if kind == "setup":
            break  # the position is set anew: what follows cannot tell the readings apart
        if kind != "move":
            continue
        following: list[tuple[Move, Board]] = []
        for root, b in branches:
            try:
                moves = b.move_candidates(text)
            except InputError:
                setup = setup_after[j - 1]
                if setup is not None and _could_leave(b, text, setup):
                    following.append((root, b))  # a kept irregularity; the setup comes next
                # else this reading cannot be followed by the next move: it is not the one
                continue
            for k, m in enumerate(moves):
                nb = b if k == len(moves) - 1 else b.copy(stack=False)
                nb.push(m)
                following.append((root, nb))
            if len(following) > _MAX_BRANCHES:
                raise UndecidedCaptureError(f"{excerpt(items[index][1])} and the moves after it "
                                            f"have more than {_MAX_BRANCHES} readings")
        branches = following
        roots = len({root.key for root, _ in branches})
    kept = {root.key: root for root, _ in branches}
    if len(kept) == 1:
        return next(iter(kept.values()))
    names = board.variant.geometry.algebraic_of if board.variant.algebraic_pdn else None
    written = " or ".join(c.notation(True, names) for c in candidates)
    if not kept:
        raise UndecidedCaptureError(f"{excerpt(items[index][1])} may be {written}, and the rest "
                                    "of the game replays from none of them")
    which = ("each of them" if len(kept) == len(candidates)
             else " and from ".join(m.notation(True, names) for m in kept.values()))
    raise UndecidedCaptureError(f"{excerpt(items[index][1])} may be {written}, and the rest of "
                                f"the game does not tell which: it replays from {which}")


def _could_leave(board: Board, text: str, fen: str) -> bool:
    """Whether the move written ``text``, played on ``board`` against the rules and kept (IT
    8.3, INT 5.7), may have left the position ``fen``: the piece on its first square moved to
    its last, pieces removed perhaps (a capture made wrongly), none added, so every piece of
    ``fen`` stands on ``board`` so moved, of its colour. False for a text or FEN that cannot be
    read (the reading goes on as the game would: ``_replay_game`` refuses them)."""
    g = board.variant.geometry
    sep = "x" if "x" in text else ":" if ":" in text else "-"
    try:
        squares = [g.square(tok) for tok in text.split(sep)]
        after = Board(fen, board.variant)
    except InputError:
        return False
    colours = {n: p.color for n, p in board.pieces().items()}
    moved = colours.pop(squares[0], None)
    if moved is None:
        return False
    colours[squares[-1]] = moved
    return all(colours.get(n) == p.color for n, p in after.pieces().items())


def _as_played(game: Game, text: str) -> Move:
    """A move written ``text`` that the rules do not allow, as a Move (squares only)."""
    g = game.variant.geometry
    sep = "x" if "x" in text else ":" if ":" in text else "-"
    try:
        return Move([g.square(tok) for tok in text.split(sep)])
    except InputError as exc:
        raise InvalidMoveError(f"cannot read move {text!r}: {exc}") from None


def record_tags(start: Mapping[str, object], board_in_round: bool = False) -> dict[str, str]:
    """The PDN tags a game's start line (docs/trace-format.md ``start``: ``event``, ``site``, ``date``,
    ``started_at``, ``round``, ``white``, ``black``, ``board``; a pairing's names and round
    given the same way) knows, in the order of the seven standard tags, then ``Board`` (the
    board's number in the hall). ``Date`` is the start line's ``date`` (``YYYY.MM.DD`` or ISO
    ``YYYY-MM-DD``; the daemon writes the local day the game began), else the UTC day of
    ``started_at`` (a trace written by another tool);
    ``board_in_round``: ``Round`` is ``round.board`` (the hall's round feeds, HUB_API.md).
    Unknown or empty values are left out (:func:`seven_tags` writes them ``?``). This is the one
    place a record's tags are made: ``game.pdn``, ``/broadcast.pdn`` and the round feeds."""
    out: dict[str, str] = {}
    for key, name in START_TAGS.items():
        value = start.get(key)
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            continue
        text = " ".join(str(value).split())
        if key == "date":
            text = _pdn_date(text) or ""
        if text:
            out[name] = text
    if "Date" not in out:
        stamp = start.get("started_at")
        day = _pdn_date(stamp[:10]) if isinstance(stamp, str) else None
        if day is not None and isinstance(stamp, str):
            try:
                datetime.fromisoformat(stamp)
            except ValueError:
                day = None
        if day is not None:
            out["Date"] = day
    if board_in_round and "Board" in out:
        out["Round"] = f"{out.get('Round', '?')}.{out['Board']}"
    return {name: out[name] for name in (*SEVEN_TAGS, "Board") if name in out}


_DATE = re.compile(r"([0-9?]{4})[.-]([0-9?]{2})[.-]([0-9?]{2})")


def _pdn_date(text: str) -> str | None:
    """``YYYY.MM.DD`` (PDN) of ``YYYY.MM.DD`` or ``YYYY-MM-DD``; None for anything else."""
    m = _DATE.fullmatch(text)
    return None if m is None else ".".join(m.groups())


def seven_tags(tags: Mapping[str, str], result: str) -> dict[str, str]:
    """The seven standard tags of a written game, in their order (PDN 3.0): each from ``tags``,
    ``?`` (``????.??.??`` for Date) when unknown, and ``Result`` = ``result``."""
    return {name: result if name == "Result" else tags.get(name) or _TAG_DEFAULTS[name]
            for name in SEVEN_TAGS}


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_pdn(game: Game, width: int = 79) -> str:
    """The game as PDN 3.0 text (see the module docstring), ending with a newline."""
    return PdnText(width).update(game).text()


@dataclass(frozen=True, slots=True)
class PdnSnapshot:
    """A game's PDN at one moment, immutable: the tag lines, the finished lines of the move text
    and the line the result goes on. :meth:`text` may run on any thread."""

    tags: tuple[str, ...]
    lines: tuple[str, ...]
    line: str
    result: str
    width: int

    def text(self) -> str:
        """The PDN text, ending with a newline (what :func:`write_pdn` returns)."""
        last = _last_lines(self.line, self.result, self.width)
        return "\n".join([*self.tags, "", *self.lines, *last]) + "\n"


def _last_lines(line: str, result: str, width: int) -> list[str]:
    """The move text's open ``line`` and the ``result`` after it (:func:`_closing`: the result
    token, after the comment of a corrected result): one line, or more when it does not fit
    (words carried to the next line, never split)."""
    lines: list[str] = []
    for word in result.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line]


def _closing(game: Game) -> str:
    """What ends the move text: the result token, after a comment naming the results the
    arbiter corrected (COMP 6.16), the first one first."""
    said = [f"{c.before.result} ({c.before.code}: {c.before.reason}) corrected to "
            f"{c.after.result} by the arbiter ({c.after.code}): {c.reason}"
            for c in game.corrections]
    if not said:
        return game.result
    comment = "; ".join(said).replace("}", ")")
    return "{" + " ".join(comment.split()) + "} " + game.result


@dataclass(frozen=True, slots=True)
class _Layout:
    """Where the move text stood before a move: finished lines, the open line, the move number,
    the side that moved last, and the last clock of the record so far."""

    lines: int
    line: str
    number: int
    previous: int | None
    clock: tuple[float, float] | None


class PdnText:
    """``game.pdn`` kept up to date move by move: :meth:`update` lays out only the moves that
    changed since the last call, so its cost does not grow with the game. A record changes only
    at its end (a move added, the last one replaced, moves taken back: ``engine.game``), and a
    move is known by identity (``RecordedMove`` is immutable). One instance per game; not
    thread-safe (the snapshot is)."""

    def __init__(self, width: int = 79) -> None:
        self.width = width
        self._recs: list[object] = []  # the game's moves laid out so far (compared by identity)
        self._before: list[_Layout] = []  # the layout before each of them
        self._lines: list[str] = []
        self._at = _Layout(0, "", 1, None, None)  # after the last move

    def update(self, game: Game) -> PdnSnapshot:
        """The PDN of ``game`` now (``write_pdn(game, width)``)."""
        moves = game.moves
        keep = min(len(self._recs), len(moves))
        # a record changes only at its end: the first move that differs, looking back from there
        while keep and self._recs[keep - 1] is not moves[keep - 1]:
            keep -= 1
        if keep < len(self._recs):
            self._at = self._before[keep]
            del self._recs[keep:], self._before[keep:], self._lines[self._at.lines:]
        for rec in moves[keep:]:
            self._recs.append(rec)
            self._before.append(self._at)
            self._at = _lay_out(game, rec, self._at, self.width, self._lines.append,
                                len(self._lines))
        return PdnSnapshot(_tags(game, self._at.clock), tuple(self._lines), self._at.line,
                           _closing(game), self.width)


def _lay_out(game: Game, rec: RecordedMove, at: _Layout, width: int,
             finished: Callable[[str], object], lines: int) -> _Layout:
    """The move text after ``rec`` laid out from ``at``: the lines it finishes handed to
    ``finished`` (``lines`` of them before; the layout counts them), the open line kept."""
    first = game.variant.first_to_move
    number, previous = at.number, at.previous
    line = at.line
    tokens: list[str] = []
    # a side that moved twice (an irregular move kept, IT 8.1.1) numbers on: never "2. … 2."
    if rec.side == first:
        if previous == first:
            number += 1
        tokens.append(f"{number}.")
    elif previous != first:
        tokens.append(f"{number}...")
    tokens.append(rec.notation + (rec.nag or ""))
    if rec.clock is not None:
        # after a move the opponent's face runs: its letter is upper case (PDN 3.0, lidraughts)
        running = Colour(rec.side).opponent.label
        tokens.append("{" + format_clock_comment(rec.clock[WHITE], rec.clock[BLACK],
                                                 running) + "}")
    if rec.comment:
        tokens.append("{" + rec.comment.replace("}", ")") + "}")
    if rec.setup_fen:
        tokens.append(f'/FEN "{_fen_for(game, rec.setup_fen)}"/')
    if rec.side != first:
        number += 1
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > width:
            finished(line)
            lines += 1
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    return _Layout(lines, line, number, rec.side, rec.clock if rec.clock else at.clock)


def _tags(game: Game, last_clock: tuple[float, float] | None) -> tuple[str, ...]:
    """The tag lines of ``game``'s PDN (``last_clock``: the last clock of its move text)."""
    tags = seven_tags(game.tags, game.result)
    tags["GameType"] = game.variant.game_type
    if game.custom_start:
        tags["SetUp"] = "1"
        tags["FEN"] = _fen_for(game, game.start_fen)
    if game.time_control:
        tags["TimeControl"] = game.time_control
    final = game.final_clock or last_clock
    if final is not None:
        tags["WhiteTime"] = format_pdn_time(final[WHITE])
        tags["BlackTime"] = format_pdn_time(final[BLACK])
    for k, val in game.tags.items():
        if k not in tags:
            tags[k] = val
    return tuple(f'[{k} "{_quote(val)}"]' for k, val in tags.items())


class PdnStream:
    """:func:`write_pdn`'s text for a reader that streams a record of any length: moves are
    laid out one by one as they settle (:meth:`add`, in order, each once), every finished line
    of the move text handed on at once, nothing of a move kept; :meth:`tags` and :meth:`last`
    give the rest once the game is over. ``tags`` + ``""`` + the lines handed on + ``last``,
    joined by newlines with one after, is ``write_pdn(game, width)`` byte for byte."""

    def __init__(self, width: int = 79) -> None:
        self.width = width
        self._at = _Layout(0, "", 1, None, None)

    def add(self, game: Game, rec: RecordedMove, finished: Callable[[str], object]) -> None:
        """``rec``, the next move of ``game``'s record, laid out; its finished lines to
        ``finished``."""
        self._at = _lay_out(game, rec, self._at, self.width, finished, self._at.lines)

    def tags(self, game: Game) -> tuple[str, ...]:
        """The tag lines, once every move was added."""
        return _tags(game, self._at.clock)

    def last(self, game: Game) -> list[str]:
        """The last line(s): the open line and the result."""
        return _last_lines(self._at.line, _closing(game), self.width)


def _fen_for(game: Game, fen: str) -> str:
    if not game.variant.algebraic_pdn:
        return fen
    # Brazilian PDN squares are algebraic (GameType 26, notation A0)
    return Board(fen, game.variant).fen(algebraic=True)
