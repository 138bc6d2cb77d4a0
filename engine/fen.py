"""PDN FEN (PDN 3.0, ``W:W21-32:B1-12``), read into bitboards and written back in runs.

Read by :func:`parse_fen` (syntax errors are ``InvalidFenError``, positions that cannot occur
``ImpossiblePositionError``, each one line quoting an excerpt of the input); written by
``Board.fen`` with :func:`fen_runs`.
"""

from __future__ import annotations

from engine.colour import BLACK, WHITE, Colour
from engine.errors import ImpossiblePositionError, InvalidFenError, InvalidSquareError, excerpt
from engine.variants import Variant

__all__ = ["parse_fen", "fen_runs"]


def fen_runs(items: list[tuple[int, bool]], names: dict[int, str] | None) -> list[str]:
    """The squares of one colour, in order, as FEN tokens: kings as ``K<n>``, runs of three or
    more men as ``a-b`` (numbers only), else one by one (``names``: algebraic squares)."""
    out: list[str] = []
    sq = (lambda n: names[n]) if names else str
    i = 0
    while i < len(items):
        n, king = items[i]
        if king:
            out.append(f"K{sq(n)}")
            i += 1
            continue
        j = i
        while j + 1 < len(items) and not items[j + 1][1] and items[j + 1][0] == items[j][0] + 1:
            j += 1
        if names is None and j - i >= 2:
            out.append(f"{n}-{items[j][0]}")
            i = j + 1
        else:
            out.append(sq(n))
            i += 1
    return out


def parse_fen(fen: str, variant: Variant) -> tuple[int, int, int, Colour]:
    """(white, black, kings bitboards, side to move) of a PDN FEN. Raises InvalidFenError for bad
    syntax and ImpossiblePositionError for positions that cannot occur."""
    g = variant.geometry
    text = fen.strip().strip('"').strip().rstrip(".")
    if not text:
        raise InvalidFenError("empty FEN")
    fields = [f.strip() for f in text.split(":")]
    turn_tok = fields[0].upper()
    if turn_tok not in ("W", "B"):
        raise InvalidFenError(f"FEN {excerpt(fen)}: side to move must be W or B, not {excerpt(fields[0])}")
    turn = WHITE if turn_tok == "W" else BLACK
    bbs = {"W": 0, "B": 0}
    kings = 0
    seen_colors: set[str] = set()
    seen: set[int] = set()
    for f in fields[1:]:
        if not f:
            continue
        tag = f[0].upper()
        if tag in ("H", "F") and f[1:].isdigit():
            if not (f[1:].isascii() and len(f) <= 7):  # '²', Arabic-Indic or absurd numbers
                raise InvalidFenError(f"FEN {excerpt(fen)}: cannot read field {excerpt(f)}")
            continue  # half-move clock / move number fields of some writers
        if tag not in ("W", "B"):
            raise InvalidFenError(f"FEN {excerpt(fen)}: field {excerpt(f)} must start with W or B")
        if tag in seen_colors:
            raise InvalidFenError(f"FEN {excerpt(fen)}: {tag} listed twice")
        seen_colors.add(tag)
        body = f[1:].strip()
        if not body:
            continue
        for tok in body.split(","):
            tok = tok.strip()
            if not tok:
                raise InvalidFenError(f"FEN {excerpt(fen)}: empty square in {excerpt(f)}")
            king = tok[0] in "Kk"
            if king:
                tok = tok[1:]
            try:
                if "-" in tok:
                    a, b = tok.split("-", 1)
                    lo, hi = g.square(a), g.square(b)
                    if lo > hi:
                        raise InvalidFenError(f"FEN {excerpt(fen)}: range {excerpt(tok)} goes backwards")
                    squares = list(range(lo, hi + 1))
                else:
                    squares = [g.square(tok)]
            except InvalidSquareError as exc:
                raise InvalidFenError(f"FEN {excerpt(fen)}: {exc}") from None
            except ValueError:
                raise InvalidFenError(f"FEN {excerpt(fen)}: cannot read square {excerpt(tok)}") from None
            for n in squares:
                if n in seen:
                    raise ImpossiblePositionError(f"FEN {excerpt(fen)}: square {n} occupied twice")
                seen.add(n)
                m = 1 << g.bit_of[n]
                bbs[tag] |= m
                if king:
                    kings |= m
    white, black = bbs["W"], bbs["B"]
    if white & ~kings & g.promotion_row[WHITE] or black & ~kings & g.promotion_row[BLACK]:
        raise ImpossiblePositionError(
            f"FEN {excerpt(fen)}: a man stands on the row where it would be crowned")
    limit = variant.men_rows * variant.size // 2
    for name, bb in (("white", white), ("black", black)):
        if bb.bit_count() > limit:
            raise ImpossiblePositionError(f"FEN {excerpt(fen)}: {name} has more than {limit} pieces")
    return white, black, kings, turn
