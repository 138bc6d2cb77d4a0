"""Time to read a long legal PDN game (issue 8: reading must be linear; a 150,000-ply game, about
1 MB, took well over 20 s before). The game: two kings shuffling back and forth on an otherwise
empty board, a legal game in the variants whose rules draw it only on a player's claim (Italian:
repetition IT 9.3 b1 and the count IT 10 are claimed); written by ``engine.pdn.write_pdn`` style
lines of 79 characters. Figures: tokenizing alone (``parse_pdn_text``) and the whole read with
every move replayed through the rules (``read_pdn``), and the time per ply, which stays flat when
the reader is linear.

Run: ``.venv/bin/python benchmarks/bench_pdn.py [plies ...]`` (default 10000 50000 150000).

Figures (2-core machine shared with other jobs, 2026-11-22): 10,000 / 50,000 / 150,000 plies read
in 0.24 / 1.17 / 4.3 s (24, 23, 29 us a ply; tokenizing 0.3 s of it at 150,000). Before, with a
look-ahead slice per move: 0.51 / 7.85 s at 10,000 / 50,000 plies (51, 157 us a ply, growing).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.pdn import parse_pdn_text, read_pdn

SHUFFLE = {"italian": ("W:WK29:BK4", ("29-25", "25-29"), ("4-8", "8-4"))}


def long_game(plies: int, variant: str = "italian") -> str:
    fen, white, black = SHUFFLE[variant]
    tokens: list[str] = []
    for i in range(plies):
        if i % 2 == 0:
            tokens.append(f"{i // 2 + 1}.")
            tokens.append(white[(i // 2) % 2])
        else:
            tokens.append(black[(i // 2) % 2])
    tokens.append("*")
    lines, line = [], ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > 79:
            lines.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    lines.append(line)
    head = ['[Event "endless"]', '[GameType "22"]', '[SetUp "1"]', f'[FEN "{fen}"]', ""]
    return "\n".join(head + lines) + "\n"


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [10_000, 50_000, 150_000]
    print(f"{'plies':>8}{'bytes':>11}{'tokenize s':>12}{'read s':>9}{'us/ply':>8}")
    for n in sizes:
        text = long_game(n)
        start = time.perf_counter()
        parse_pdn_text(text)
        tokenize = time.perf_counter() - start
        start = time.perf_counter()
        [game] = read_pdn(text)
        read = time.perf_counter() - start
        assert len(game.moves) == n
        print(f"{n:>8,}{len(text):>11,}{tokenize:>12.2f}{read:>9.2f}{read / n * 1e6:>8.1f}",
              flush=True)


if __name__ == "__main__":
    main()
