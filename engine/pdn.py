"""PDN 3.0 reading and writing.

Written games carry the seven standard tags (Event, Site, Date, Round, White, Black, Result), the
full ``GameType`` string of the variant (``22,W,8,8,N2,1`` Italian, ``21,B,8,8,N1,0`` English,
``20,W,10,10,N2,0`` international, ``26,W,8,8,A0,0`` Brazilian with algebraic squares), ``SetUp``
and ``FEN`` for a game that does not start from the initial position, ``TimeControl`` and the final
``WhiteTime``/``BlackTime`` when a clock ran; moves numbered from the variant's first mover, each
followed by its clock comment ``{[%clock …]}`` when known; a ``/FEN "…"/`` setup command after a
move where the game went on from another position (a maintained irregularity); annotation signs of
IT 13 (``! !! ? ?? !? ?! * + =``) glued to the move; the result set of the variant (international
``2-0 1-1 0-2``).

Reading accepts all of that plus ``;`` line comments, ``(…)`` variations (skipped), ``$n`` NAGs,
``:`` as capture separator, either result set, and several games in one text. Every move is
replayed through the rules, so a game read is a game checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.board import Board, Move
from engine.timecontrol import (format_clock_comment, format_pdn_time, parse_clock_comment,
                                parse_pdn_time)
from engine.errors import DamieraError, InvalidMoveError, PdnError
from engine.game import Game
from engine.variants import BLACK, COLOR_NAMES, VARIANTS, WHITE, Variant, find_variant

SEVEN_TAGS = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_TAG_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?",
                 "Black": "?"}
ANNOTATIONS = ("!!", "??", "!?", "?!", "!", "?", "*", "+", "=")  # IT 13
RESULTS = ("1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*")
_GAME_TYPES = {int(v.game_type.split(",")[0]): v for v in VARIANTS.values()}

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | \[(?P<tag>[A-Za-z0-9_]+)\s+"(?P<tagval>(?:[^"\\]|\\.)*)"\s*\]
  | \{(?P<comment>[^}]*)\}
  | ;(?P<linecomment>[^\n]*)
  | /FEN\s+"(?P<setup>[^"]*)"\s*/
  | (?P<open>\() | (?P<close>\))
  | (?P<nag>\$\d+)
  | (?P<result>1-0|0-1|1/2-1/2|2-0|0-2|1-1|0-0)(?![-x:0-9a-z])
  | (?P<number>\d+\.(?:\.\.)?)
  | (?P<move>(?:\d+|[a-jA-J]\d+)(?:\s*[-x:]\s*(?:\d+|[a-jA-J]\d+))+)(?P<sign>!!|\?\?|!\?|\?!|!|\?|\*|\+|=)?
  | (?P<star>\*)
""", re.VERBOSE)


@dataclass
class PdnGameText:
    """A game as read, before the moves are replayed: tags, and movetext items in order
    (``("move", text, sign)``, ``("comment", text)``, ``("setup", fen)``), the result token."""

    tags: dict[str, str] = field(default_factory=dict)
    items: list[tuple[str, ...]] = field(default_factory=list)
    result: str = "*"


def parse_pdn_text(text: str) -> list[PdnGameText]:
    """Split PDN text into games (syntax only). Raises PdnError naming the line of a bad token."""
    games: list[PdnGameText] = []
    cur = PdnGameText()
    depth = 0  # nesting of variations being skipped
    pos = 0
    in_moves = False
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            line = text.count("\n", 0, pos) + 1
            snippet = text[pos:pos + 20].split("\n")[0]
            raise PdnError(f"PDN line {line}: cannot read {snippet!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws" or kind == "linecomment":
            continue
        if kind == "open":
            depth += 1
            continue
        if kind == "close":
            if depth == 0:
                line = text.count("\n", 0, pos) + 1
                raise PdnError(f"PDN line {line}: ')' without '('")
            depth -= 1
            continue
        if depth:
            continue
        if kind == "tag" or m.group("tag"):
            if in_moves:  # tags after movetext without a result: a new game starts
                games.append(cur)
                cur = PdnGameText()
                in_moves = False
            cur.tags[m.group("tag")] = m.group("tagval").replace('\\"', '"')
        elif m.group("comment") is not None:
            cur.items.append(("comment", m.group("comment").strip()))
            in_moves = True
        elif m.group("setup") is not None:
            cur.items.append(("setup", m.group("setup")))
            in_moves = True
        elif m.group("result") or m.group("star"):
            cur.result = m.group("result") or "*"
            games.append(cur)
            cur = PdnGameText()
            in_moves = False
        elif m.group("move"):
            cur.items.append(("move", re.sub(r"\s+", "", m.group("move")), m.group("sign") or ""))
            in_moves = True
        # numbers and NAGs carry nothing we keep
    if depth:
        raise PdnError("PDN: unclosed '(' variation")
    if cur.items or cur.tags:
        games.append(cur)
    return games


def variant_of_tags(tags: dict[str, str], default: Variant | str | None = None) -> Variant:
    """The variant named by the GameType tag (its first number), else ``default``."""
    gt = tags.get("GameType")
    if gt:
        try:
            number = int(gt.split(",")[0])
        except ValueError:
            raise PdnError(f"PDN: cannot read GameType {gt!r}") from None
        v = _GAME_TYPES.get(number)
        if v is None:
            raise PdnError(f"PDN: GameType {number} is not a variant damiera plays "
                           f"(known: {', '.join(str(k) for k in sorted(_GAME_TYPES))})")
        return v
    if default is None:
        raise PdnError("PDN: no GameType tag and no variant given")
    return find_variant(default) if isinstance(default, str) else default


def read_pdn(text: str, variant: Variant | str | None = None) -> list[Game]:
    """Every game of a PDN text, replayed through the rules. ``variant`` is used when a game has no
    GameType tag. Raises PdnError (bad syntax, illegal move, bad FEN), naming game and move."""
    out = []
    for gi, g in enumerate(parse_pdn_text(text), 1):
        v = variant_of_tags(g.tags, variant)
        fen = g.tags.get("FEN")
        tags = {k: val for k, val in g.tags.items()
                if k not in ("GameType", "FEN", "SetUp", "Result", "TimeControl", "WhiteTime",
                             "BlackTime")}
        try:
            game = Game(v, fen=fen, tags=tags, time_control=g.tags.get("TimeControl"))
        except DamieraError as exc:
            raise PdnError(f"PDN game {gi}: {exc}") from None
        for index, item in enumerate(g.items):
            try:
                if item[0] == "move":
                    setup = _setup_after(g.items, index)
                    try:
                        game.play_notation(item[1])
                    except DamieraError:
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
                    rest = re.sub(r"\[%(?:clock|clk)[^\]]*\]", "", item[1]).strip()
                    if rest:
                        game.annotate(comment=rest)
            except DamieraError as exc:
                where = f"move {game.ply + 1} ({item[1]})" if item[0] == "move" else "setup"
                raise PdnError(f"PDN game {gi}, {where}: {exc}") from None
        if "WhiteTime" in g.tags and "BlackTime" in g.tags:
            try:
                game.final_clock = (parse_pdn_time(g.tags["WhiteTime"]),
                                    parse_pdn_time(g.tags["BlackTime"]))
            except DamieraError as exc:
                raise PdnError(f"PDN game {gi}: {exc}") from None
        if g.result != "*" and game.outcome is None:
            game.adjudicate(g.result, reason="result recorded in the PDN")
        out.append(game)
    return out


def _setup_after(items: list[tuple[str, ...]], index: int) -> str | None:
    """The FEN of a ``/FEN "…"/`` that follows item ``index`` (comments between allowed)."""
    for item in items[index + 1:]:
        if item[0] == "setup":
            return item[1]
        if item[0] != "comment":
            return None
    return None


def _as_played(game: Game, text: str) -> Move:
    """A move written ``text`` that the rules do not allow, as a Move (squares only)."""
    g = game.variant.geometry
    sep = "x" if "x" in text else ":" if ":" in text else "-"
    try:
        return Move([g.square(tok) for tok in text.split(sep)])
    except DamieraError as exc:
        raise InvalidMoveError(f"cannot read move {text!r}: {exc}") from None


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def write_pdn(game: Game, width: int = 79) -> str:
    """The game as PDN 3.0 text (see the module docstring), ending with a newline."""
    v = game.variant
    tags: dict[str, str] = {}
    for name in SEVEN_TAGS:
        if name == "Result":
            tags[name] = game.result
        else:
            tags[name] = game.tags.get(name, _TAG_DEFAULTS[name])
    tags["GameType"] = v.game_type
    if game.custom_start:
        tags["SetUp"] = "1"
        tags["FEN"] = _fen_for(game, game.start_fen)
    if game.time_control:
        tags["TimeControl"] = game.time_control
    final = game.final_clock or next((m.clock for m in reversed(game.moves) if m.clock), None)
    if final is not None:
        tags["WhiteTime"] = format_pdn_time(final[WHITE])
        tags["BlackTime"] = format_pdn_time(final[BLACK])
    for k, val in game.tags.items():
        if k not in tags:
            tags[k] = val
    lines = [f'[{k} "{_quote(val)}"]' for k, val in tags.items()]

    tokens: list[str] = []
    first = v.first_to_move
    number = 1
    previous: int | None = None
    for rec in game.moves:
        # a side that moved twice (an irregular move kept, IT 8.1.1) numbers on: never "2. … 2."
        if rec.side == first:
            if previous == first:
                number += 1
            tokens.append(f"{number}.")
        elif previous != first:
            tokens.append(f"{number}...")
        previous = rec.side
        text = rec.notation + (rec.nag or "")
        tokens.append(text)
        if rec.clock is not None:
            # after a move the opponent's face runs: its letter is upper case (PDN 3.0, lidraughts)
            running = COLOR_NAMES[1 - rec.side]
            tokens.append("{" + format_clock_comment(rec.clock[WHITE], rec.clock[BLACK], running) + "}")
        if rec.comment:
            tokens.append("{" + rec.comment.replace("}", ")") + "}")
        if rec.setup_fen:
            tokens.append(f'/FEN "{_fen_for(game, rec.setup_fen)}"/')
        if rec.side != first:
            number += 1
    tokens.append(game.result)
    lines.append("")
    line = ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > width:
            lines.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    lines.append(line)
    return "\n".join(lines) + "\n"


def _fen_for(game: Game, fen: str) -> str:
    if not game.variant.algebraic_pdn:
        return fen
    # Brazilian PDN squares are algebraic (GameType 26, notation A0)
    return Board(fen, game.variant).fen(algebraic=True)
