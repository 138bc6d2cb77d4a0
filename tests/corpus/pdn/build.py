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

from engine.board import Board, Move, Piece
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


def _ambiguous_game(v: Variant, rng: random.Random) -> tuple[Board, list[Move], list[str],
                                                        list[str]]:
    """A random legal game from the initial position up to a capture that, written by its start
    and end squares, fits two captures taking different pieces (issue 35): the position before
    it, its two readings (the one played first), and the moves before it written so (``short``)
    and in full path."""
    while True:
        b = Board(None, v)
        written: list[str] = []
        full: list[str] = []
        for _ in range(rng.randint(10, 60)):
            moves = b.legal_moves
            if not moves:
                break
            m = rng.choice(moves)
            same = [x for x in moves if x.from_square == m.from_square and x.to_square == m.to_square]
            if len(same) == 2 and len({frozenset(x.captures) for x in same}) == 2:
                return b, [m] + [x for x in same if x != m], written, full
            written.append(short(b, m))
            full.append(m.notation(True))
            b.push(m)


def _random_on(board: Board, rng: random.Random, plies: int) -> tuple[list[str], list[str]]:
    """``plies`` random legal moves played on ``board`` (fewer when the game ends): written by
    start and end squares, and in full path."""
    written: list[str] = []
    full: list[str] = []
    for _ in range(plies):
        if not board.legal_moves:
            break
        m = rng.choice(board.legal_moves)
        written.append(short(board, m))
        full.append(m.notation(True))
        board.push(m)
    return written, full


def _readings_left(before: Board, readings: list[Move], rest: list[str]) -> list[int]:
    """For each prefix of ``rest`` (1, 2, … moves), the indices of ``readings`` from which it
    replays, every reading of a later short capture followed (as the reader does)."""
    branches: list[tuple[int, Board]] = []
    for i, r in enumerate(readings):
        nb = before.copy(stack=False)
        nb.push(r)
        branches.append((i, nb))
    out = []
    for text in rest:
        following = []
        for i, b in branches:
            try:
                cands = b.move_candidates(text)
            except DamieraError:
                continue
            for c in cands:
                nb = b.copy(stack=False)
                nb.push(c)
                following.append((i, nb))
        branches = following
        out.append(len({i for i, _ in branches}) if {i for i, _ in branches} != {0} else -1)
    return out


def championship(rng: random.Random) -> tuple[str, dict[str, object]]:
    """``italian/championship.pdn``: an Italian championship's archive as its organisers write it
    (Italian tags, no GameType: read with ``--variant italian``, CRLF line ends, every capture
    by its start and end squares, results) holding five games (issue 35):

    1. a game without a short capture that fits two readings;
    2. a short capture that fits two readings, told apart only two or more plies later: the
       reading the rest of the game replays from is read;
    3. a short capture followed by a reply both readings allow and a kept irregular move (no
       move of the rules, then ``/FEN``): the position set tells the readings apart;
    4. a short capture as the game's last move: the rest fits both readings, the game is
       reported and left out;
    5. another plain game: read like the first, after the one left out."""
    v = VARIANTS["italian"]
    start = Board(None, v).fen()
    games: list[dict[str, object]] = []
    texts: list[str] = []

    def write(n: int, result: str, tokens: list[str]) -> None:
        texts.append("\r\n".join([
            '[Evento "Campionato Italiano Assoluto"]', '[Luogo "Palermo"]',
            f'[Data "2023.11.0{n}"]', f'[Turno "{n}"]', f'[Bianco "Giocatore {2 * n - 1}"]',
            f'[Nero "Giocatore {2 * n}"]', f'[Risultato "{result}"]', "", *wrap(tokens), result,
            ""]))

    def plain(n: int) -> None:
        while True:
            written, full = _random_on(Board(None, v), rng, 40)
            try:  # no short capture with two readings: every move written short is one move
                b = Board(None, v)
                for text in written:
                    b.push(b.parse_move(text))
            except DamieraError:
                continue
            write(n, "1-0", numbered(v, start, written))
            games.append({"moves": full, "result": "1-0"})
            return

    plain(1)
    # 2: told apart two or more plies after the capture (the first reading is the one)
    while True:
        before, readings, written, full = _ambiguous_game(v, rng)
        after = before.copy(stack=False)
        after.push(readings[0])
        rest, rest_full = _random_on(after, rng, 12)
        left = _readings_left(before, readings, rest)
        if -1 in left and left.index(-1) >= 1:
            write(2, "0-1", numbered(v, start, written + [short(before, readings[0])] + rest))
            games.append({"moves": full + [readings[0].notation(True)] + rest_full,
                          "result": "0-1"})
            break
    # 3: a reply both readings allow, then a man of the capturing side one square backwards
    # (IT 8.1.2), kept: the /FEN "…"/ after it shows the pieces of the first reading
    while True:
        before, readings, written, full = _ambiguous_game(v, rng)
        branches = []
        for r in readings:
            nb = before.copy(stack=False)
            nb.push(r)
            branches.append(nb)
        replies = [m for m in branches[0].legal_moves
                   if _parse_everywhere(branches, short(branches[0], m)) == [True, True]]
        if not replies:
            continue
        reply = rng.choice(replies)
        on = branches[0].copy(stack=False)
        on.push(reply)
        mover = on.turn
        steps = [(n, to) for n, piece in sorted(on.pieces(mover).items()) if not piece.king
                 for to in range(1, v.geometry.count + 1)
                 if on.piece_at(to) is None and _is_backward_step(v, n, to, mover)]
        if not steps:
            continue
        frm, to = steps[0]
        pieces = on.pieces()
        pieces[to] = pieces.pop(frm)
        fen = _fen_of(pieces, 1 - mover)
        kept = Board(fen, v)
        if not kept.legal_moves:
            continue
        last = rng.choice(kept.legal_moves)
        moves = written + [short(before, readings[0]), short(branches[0], reply), f"{frm}-{to}",
                           short(kept, last)]
        decorate = [""] * (len(moves) - 2) + [f'{{irregular move: IT 8.1.2}} /FEN "{fen}"/', ""]
        write(3, "1/2-1/2", numbered(v, start, moves, decorate))
        games.append({"moves": full + [readings[0].notation(True), reply.notation(True),
                                       f"{frm}-{to}", last.notation(True)],
                      "result": "1/2-1/2"})
        break
    # 4: the short capture is the game's last move: nothing tells its readings apart
    before, readings, written, _ = _ambiguous_game(v, rng)
    write(4, "1-0", numbered(v, start, written + [short(before, readings[0])]))
    ply = len(written)
    left_out = {"game": 4, "move": f"{ply // 2 + 1}" + ("..." if ply % 2 else ""),
                "written": short(before, readings[0]),
                "readings": sorted(r.notation(True) for r in readings)}
    plain(5)
    return "\r\n".join(texts), {"games": games, "left_out": [left_out]}


def _is_backward_step(v: Variant, frm: int, to: int, side: int) -> bool:
    """``to`` is one diagonal step from ``frm`` towards ``side``'s own back row."""
    (f1, r1), (f2, r2) = v.geometry.coords[frm], v.geometry.coords[to]
    toward_own = -1 if side == v.first_to_move else 1
    return abs(f1 - f2) == 1 and r2 - r1 == toward_own


def _fen_of(pieces: dict[int, Piece], turn: int) -> str:
    parts = ["W" if turn == 0 else "B"]
    for tag, colour in (("W", 0), ("B", 1)):
        own = sorted((n, p.king) for n, p in pieces.items() if p.color == colour)
        parts.append(tag + ",".join(("K" if king else "") + str(n) for n, king in own))
    return ":".join(parts)


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
    # issue 35: a championship's archive with short captures, Italian only (its own seed)
    text, expected = championship(random.Random("pdn-corpus-championship"))
    (HERE / "italian" / "championship.pdn").write_bytes(text.encode("utf-8"))
    (HERE / "italian" / "championship.expected.json").write_text(
        json.dumps(expected, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
