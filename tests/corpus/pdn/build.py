"""Authoring tool of the PDN archive corpus: writes ``<variant>/<name>.pdn`` in the forms real
archives use (issue 8, "Real PDN archives") and, for the files that must be read, the
``<name>.expected.json`` that ``tests/engine/test_pdn_archives.py`` compares with what the reader
finds. Run ``python tests/corpus/pdn/build.py`` after editing; the output is deterministic.

The games are random but legal (seeded), so the expectation is what the rules say the moves are
(full paths), computed here from the board, not from the reader under test:

* ``archive_forms``: two games. The first from the initial position with ``%`` escape lines,
  Italian tag names (``Bianco``, ``Nero``, ``Risultato``, ``Evento``, ``Luogo``, ``Data``,
  ``Turno``), move-strength signs glued, apart and in parentheses, comments full of other
  programs' ``[%…]`` commands, a trailing ``N. ...``; the second from a position with the second
  mover to move, its first move written ``1. ...`` and later ones after ``N...``.
* ``short_capture``: a capture written short (``a x b``) that fits two legal captures taking
  different pieces; only one of them lets the rest of the game replay.
* ``short_capture_several`` / ``short_capture_none``: the rest of the game fits both readings /
  neither (the reader must refuse, naming game and move).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent.parent.parent))

from engine.board import Board, Move
from engine.errors import DamieraError
from engine.variants import VARIANTS, Variant

GAME_TYPE = {"italian": "22", "english": "21", "international": "20", "brazilian": "26"}
SIGNS = ("!", "?", "!!", "??", "!?", "?!")


def short(board: Board, move: Move) -> str:
    """The move as an archive writes it: start and end squares only."""
    names = board.variant.geometry.algebraic_of if board.variant.algebraic_pdn else None
    sq = (lambda n: names[n]) if names else str
    sep = "x" if move.is_capture else "-"
    return f"{sq(move.from_square)}{sep}{sq(move.to_square)}"


def random_game(v: Variant, rng: random.Random, plies: int,
                fen: str | None = None) -> tuple[str, list[str], list[str]]:
    """(start FEN, moves as written, moves in full path) of a random legal game."""
    b = Board(fen, v)
    start = b.fen()
    written, full = [], []
    for _ in range(plies):
        moves = b.legal_moves
        if not moves:
            break
        m = rng.choice(moves)
        written.append(b.notation(m))
        full.append(m.notation(True))
        b.push(m)
    return start, written, full


def numbered(v: Variant, start_fen: str, moves: list[str], decorate: list[str] | None = None,
             glued: bool = False) -> list[str]:
    """Movetext tokens: numbers from the variant's first mover; ``decorate[i]`` after move i."""
    b = Board(start_fen, v)
    first = v.first_to_move
    side = b.turn
    number = 1
    out: list[str] = []
    for i, text in enumerate(moves):
        if side == first:
            out.append(f"{number}.")
        elif i == 0:
            out.append(f"{number}..." if glued else f"{number}. ...")
        out.append(text)
        if decorate and decorate[i]:
            out.append(decorate[i])
        if side != first:
            number += 1
        side = 1 - side
    return out


def wrap(tokens: list[str], width: int = 70) -> list[str]:
    lines, line = [], ""
    for tok in tokens:
        if line and len(line) + 1 + len(tok) > width:
            lines.append(line)
            line = tok
        else:
            line = f"{line} {tok}" if line else tok
    lines.append(line)
    return lines


def archive_forms(v: Variant, rng: random.Random) -> tuple[str, dict[str, object]]:
    start, written, full = random_game(v, rng, 24)
    decorate: list[str] = []
    nags: dict[str, str] = {}
    for i in range(len(written)):
        r = i % 6
        if r == 1:
            sign = SIGNS[i % len(SIGNS)]
            written[i] += sign  # glued
            nags[str(i + 1)] = sign
            decorate.append("")
        elif r == 2:
            sign = SIGNS[(i + 1) % len(SIGNS)]
            decorate.append(f"({sign})")  # in parentheses after the move
            nags[str(i + 1)] = sign
        elif r == 3:
            decorate.append("{[%eval 0.25] [%emt 0:00:07] [%cal Gc3d4,Rb6a5] good [%csl Rd4]}")
        elif r == 4:
            sign = SIGNS[(i + 2) % len(SIGNS)]
            decorate.append(sign)  # apart
            nags[str(i + 1)] = sign
        else:
            decorate.append("")
    tokens = numbered(v, start, written, decorate)
    tokens.append(f"{len(written) // 2 + 1}. ...")  # a trailing "N. ..." some writers leave
    lines = ["% written by hand from a club's score sheets",
             "% escape lines are ignored by readers",
             '[Evento "Campionato sociale"]', '[Luogo "Napoli"]', '[Data "2024.03.09"]',
             '[Turno "3"]', '[Bianco "Rossi, M."]', '[Nero "Bianchi, L."]',
             f'[GameType "{GAME_TYPE[v.name]}"]', '[Risultato "*"]', ""]
    body = wrap(tokens)
    body.insert(1, "%  a note of the transcriber in the middle of the moves")
    lines += body + ["*", ""]
    game1 = {"moves": full, "nags": nags, "result": "*",
             "tags": {"Event": "Campionato sociale", "Site": "Napoli", "Date": "2024.03.09",
                      "Round": "3", "White": "Rossi, M.", "Black": "Bianchi, L."},
             "comment_of": {str(i + 1): "good" for i in range(len(written)) if i % 6 == 3}}

    # game 2: the second mover moves first (a position), written "1. ..." then "2..." style
    b = Board(None, v)
    b.push(b.legal_moves[0])
    start2, written2, full2 = random_game(v, rng, 9, b.fen())
    tokens2 = numbered(v, start2, written2)
    lines += [f'[GameType "{GAME_TYPE[v.name]}"]', '[SetUp "1"]', f'[FEN "{start2}"]', "",
              *wrap(tokens2), "*", ""]
    game2 = {"moves": full2, "nags": {}, "result": "*", "tags": {}, "comment_of": {}}
    lines += [f'[GameType "{GAME_TYPE[v.name]}"]', '[SetUp "1"]', f'[FEN "{start2}"]', "",
              *wrap(numbered(v, start2, written2, glued=True)), "*", ""]
    return "\n".join(lines), {"games": [game1, game2, game2]}


def ambiguous_position(v: Variant, rng: random.Random) -> tuple[Board, list[Move]]:
    """A random position (not too empty) where a capture from one square to another can take
    two different sets of pieces."""
    g = v.geometry
    while True:
        squares = rng.sample(range(1, g.count + 1), 14)
        own, opp = squares[:4], squares[4:]
        side = v.first_to_move
        tags = ("W", "B") if side == 0 else ("B", "W")
        king = rng.random() < 0.3
        fen = (f"{tags[0]}:{tags[0]}{'K' if king else ''}{own[0]},{','.join(map(str, own[1:]))}"
               f":{tags[1]}{','.join(map(str, opp))}")
        try:
            b = Board(fen, v)
        except DamieraError:
            continue
        groups: dict[tuple[int, int], list[Move]] = {}
        for m in b.legal_moves:
            if m.is_capture:
                groups.setdefault((m.from_square, m.to_square), []).append(m)
        for cands in groups.values():
            if len({frozenset(m.captures) for m in cands}) == len(cands) == 2:
                return b, cands


def _parse_everywhere(boards: list[Board], text: str) -> list[bool]:
    out = []
    for b in boards:
        try:
            b.move_candidates(text)
            out.append(True)
        except DamieraError:
            out.append(False)
    return out


def short_capture(v: Variant, rng: random.Random) -> dict[str, tuple[str, dict[str, object] | None]]:
    """The three short-capture files of a variant."""
    found: dict[str, tuple[str, dict[str, object] | None]] = {}
    while len(found) < 3:
        b, cands = ambiguous_position(v, rng)
        branches = []
        for c in cands:
            nb = b.copy(stack=False)
            nb.push(c)
            branches.append(nb)
        if not all(nb.legal_moves for nb in branches):
            continue
        text = short(b, cands[0])
        head = [f'[GameType "{GAME_TYPE[v.name]}"]', '[SetUp "1"]',
                f'[FEN "{b.fen(algebraic=v.algebraic_pdn)}"]', ""]

        def write(moves: list[str], head: list[str] = head, b: Board = b) -> str:
            return "\n".join(head + wrap(numbered(v, b.fen(), moves)) + ["*", ""])

        # resolved: the reply is legal after one reading only; a few more plies follow
        if "short_capture" not in found:
            for pick in (0, 1):
                nb = branches[pick]
                replies = [m for m in nb.legal_moves
                           if _parse_everywhere(branches, nb.notation(m)) == [i == pick for i in (0, 1)]]
                if replies:
                    reply = rng.choice(replies)
                    after = nb.copy(stack=False)
                    written = [text, after.notation(reply)]
                    full = [cands[pick].notation(True), reply.notation(True)]
                    after.push(reply)
                    for _ in range(4):
                        if not after.legal_moves:
                            break
                        m = rng.choice(after.legal_moves)
                        written.append(after.notation(m))
                        full.append(m.notation(True))
                        after.push(m)
                    found["short_capture"] = (write(written), {"games": [
                        {"moves": full, "nags": {}, "result": "*", "tags": {}, "comment_of": {}}]})
                    break
        # several: the reply is legal after both readings (and nothing else follows)
        if "short_capture_several" not in found:
            both = [m for m in branches[0].legal_moves
                    if _parse_everywhere(branches, branches[0].notation(m)) == [True, True]]
            if both:
                found["short_capture_several"] = (write([text, branches[0].notation(both[0])]), None)
        # none: a reply legal after neither reading (a move of the capturing piece's square)
        if "short_capture_none" not in found:
            g = v.geometry
            for to in range(1, g.count + 1):
                bad = short(b, Move([cands[0].from_square, to]))
                if _parse_everywhere(branches, bad) == [False, False]:
                    found["short_capture_none"] = (write([text, bad]), None)
                    break
    return found


def main() -> None:
    for name, v in VARIANTS.items():
        rng = random.Random(f"pdn-corpus-{name}")
        out = HERE / name
        out.mkdir(exist_ok=True)
        files = {"archive_forms": archive_forms(v, rng)}
        files.update(short_capture(v, rng))
        for stem, (text, expected) in files.items():
            (out / f"{stem}.pdn").write_text(text, encoding="utf-8")
            if expected is not None:
                (out / f"{stem}.expected.json").write_text(
                    json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
