"""Geometry shared by the scenarios of issue 8 (``issue8_scenarios``, ``issue8_articles``):
snapshots, square names and the translation of an Italian script to the English board (turned
upside down, colours swapped) and the Brazilian board (mirrored).

Square numbers (official, SPEC §1): Italian 1 = a8 … 32 = h1 (White 21-32 moves up, first);
English 1 = b8 … 32 = g1 (Black 1-12 moves down, first); international Manoury 1 = b10 … 50 = i1;
Brazilian as international on 8×8 (1 = b8 … 32 = g1, White 21-32 first, notation algebraic).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.squares import numbered_squares, square_mirror

W, B = "white", "black"
INT_START = "1-20,31-50"


def snap(spec: str) -> str:
    """A snapshot token of the squares ``spec`` (``"1-12,21-32"``)."""
    out: list[str] = []
    for part in spec.split(","):
        a, _, b = part.partition("-")
        out += [str(i) for i in range(int(a), int(b or a) + 1)]
    return "S:" + ",".join(out)


# ---------------------------------------------------------------- geometry of the 8×8 rule sets
def _it_file_rank(n: int) -> tuple[int, int]:
    """Italian square n: (file 0-7 from a, rank 1-8). IT 2.4: 1 = a8, rows left to right."""
    r, i = divmod(n - 1, 4)
    return 2 * i + r % 2, 8 - r


def _en_number(f: int, rank: int) -> int:
    """English / Brazilian square on (file, rank): 1 = b8 … 4 = h8, 5 = a7 … 32 = g1."""
    r = 8 - rank
    return 4 * r + (f - (1 - r % 2)) // 2 + 1


def alg8(n: int) -> str:
    """Algebraic name of English / Brazilian square n (seen from White's side)."""
    return numbered_squares(8, first_dark_file_even=False)[n - 1]


def it_to_en(n: int) -> int:
    """The English square of Italian square n on the board turned upside down: the Italian game
    seen with colours swapped (English Black starts at the top and moves first, EN 2.6, 3.4)."""
    f, rank = _it_file_rank(n)
    return _en_number(f, 9 - rank)


def it_to_br(n: int) -> int:
    """The Brazilian square of Italian square n on the board mirrored left to right (the same
    colours: White 21-32 moves first in both)."""
    f, rank = _it_file_rank(n)
    return _en_number(7 - f, rank)


def _map_square_token(tok: str, sq: Callable[[int], int]) -> str:
    return tok[0] + str(sq(int(tok[1:])))


def translate(script: str, sq: Callable[[int], int], swap: bool) -> str:
    """An Italian script on another 8×8 board: squares mapped, and the sides swapped if
    ``swap`` (White's buttons become Black's)."""
    out = []
    for tok in script.split():
        if tok[0] in "LP" and tok[1:].isdigit():
            tok = _map_square_token(tok, sq)
        elif tok.startswith("S:"):
            tok = "S:" + ",".join(str(sq(int(x))) for x in tok[2:].split(","))
        elif swap and tok in ("Cw", "Cb"):
            tok = "Cb" if tok == "Cw" else "Cw"
        elif swap and tok[-2:] in (":w", ":b"):
            tok = tok[:-1] + ("b" if tok[-1] == "w" else "w")
        out.append(tok)
    return " ".join(out)


def translate_fen(fen: str, sq: Callable[[int], int], swap: bool) -> str:
    turn, *sides = fen.split(":")
    parts = {}
    for part in sides:
        items = []
        for x in part[1:].split(","):
            k = x.startswith("K")
            items.append(("K" if k else "") + str(sq(int(x.lstrip("K")))))
        parts[part[0]] = items
    if swap:
        turn = "B" if turn == "W" else "W"
        parts = {"W": parts.get("B", []), "B": parts.get("W", [])}
    return f"{turn}:W{','.join(parts['W'])}:B{','.join(parts['B'])}"


def mirrored_start(number_to_alg: Callable[[int], str], squares: list[int], size: int) -> str:
    """A snapshot token of the initial position on a board turned the wrong way (IT 7.2, EN 7.2,
    INT 5.1): every piece on the square mirrored left to right, i.e. on the light squares."""
    return "S:" + ",".join(square_mirror(number_to_alg(n), size) for n in squares)


def alg_it(n: int) -> str:
    """Algebraic name of Italian square n (IT 2.4: 1 = a8)."""
    return numbered_squares(8, first_dark_file_even=True)[n - 1]


def alg10(n: int) -> str:
    """Algebraic name of international square n (Manoury: 1 = b10 … 50 = i1)."""
    return numbered_squares(10, first_dark_file_even=False)[n - 1]


def rng(a: int, b: int) -> list[int]:
    return list(range(a, b + 1))


Scenario = tuple[str, str, dict[str, object], str, list[str], list[list[str]], str,
                 dict[str, object]]
