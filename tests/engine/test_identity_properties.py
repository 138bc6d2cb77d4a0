"""Issue 40, property: a board that knows which piece is where and sees nothing wrong rules as a
board that sees occupancy only. Random legal games of every variant, played naturally
(``hardware_mocks.players.physical``: paths shown or carried, brushes, removals in either order),
each place saying the piece that really lands there with a reading, every new king crowned
before the press (IT 4.4), the first snapshot with every piece: the replay's report (moves,
flags, result, PDN) is the one of the same trace stripped of the piece keys. And a crown left
off until the opponent's move is always flagged IT 4.4 (EN 4.5, INT/BR 3.5), nothing else
changing."""

from __future__ import annotations

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board import Board, Piece
from engine.events import (ButtonPressed, Event, PieceChanged, PieceLifted, PiecePlaced,
                           SnapshotTaken)
from engine.replay import replay_lines
from hardware_mocks.players import physical

VARIANTS = ["italian", "english", "international", "brazilian"]


def _reading(piece: Piece, rng: random.Random) -> float:
    return round((1 if piece.color == 0 else -1) * (2 if piece.king else 1)
                 * rng.uniform(0.85, 1.15), 3)


def _game(variant: str, seed: int, plies: int, late: bool) -> tuple[list[Event], int]:
    """A game's events as a board that knows the pieces reports them. ``late``: every crown
    goes on only on its player's next turn, after the opponent's press, and that king is then
    played if it can be (IT 4.4 -> 3.7: crowning it late touched it). Returns the events and
    the number of late crownings the arbiter must flag: each crown still off when the
    opponent's move is complete, and each put on late."""
    rng = random.Random(seed)
    board = Board(None, variant)
    names = board.variant.geometry.algebraic_of
    phys = {names[n]: p for n, p in board.pieces().items()}
    events: list[Event] = [SnapshotTaken(0.0, frozenset(phys), dict(phys))]
    t, crowned_late = 0.0, 0
    owed: dict[int, Piece] = {}  # square (official number) -> the king whose crown is off
    for _ in range(plies):
        moves = board.legal_moves
        if not moves:
            break
        side = board.turn
        bound: set[int] = set()
        for n, king in sorted(owed.items()):
            if king.color == side:  # on his own turn, after the opponent's press: late
                del owed[n]
                phys[names[n]] = king
                events.append(PieceChanged(t, names[n], king, _reading(king, rng)))
                t = round(t + 0.1, 3)
                crowned_late += 1
                bound.add(n)
        # the first king crowned late that can move is bound (IT 3.7, 3.8)
        touched = next(([m for m in moves if m.from_square == n] for n in sorted(bound)
                        if any(m.from_square == n for m in moves)), [])
        move = rng.choice(touched or moves)
        out, t = physical(board, move, rng, t, set(phys))
        hand: list[Piece] = []
        for e in out:
            if isinstance(e, PieceLifted):
                hand.append(phys.pop(e.square))
                events.append(e)
            elif isinstance(e, PiecePlaced):
                piece = phys[e.square] = hand.pop()
                events.append(PiecePlaced(e.t, e.square, piece, _reading(piece, rng)))
        before = board.piece_at(move.from_square)
        board.push(move)
        after = board.piece_at(move.to_square)
        assert before is not None and after is not None
        for n in list(owed):  # a king still owing its crown, taken
            if board.piece_at(n) is None:
                del owed[n]
        t = round(t + 0.1, 3)
        # IT 4.4: the opponent's move completes with a crown still off (flagged at this press)
        crowned_late += sum(1 for king in owed.values() if king.color != side)
        if after.king and not before.king:
            if late:
                owed[move.to_square] = after
            else:
                phys[names[move.to_square]] = after
                events.append(PieceChanged(t, names[move.to_square], after, _reading(after, rng)))
                t = round(t + 0.1, 3)
        events.append(ButtonPressed(t, "clock", side.label))
    return events, crowned_late


def _lines(variant: str, events: list[Event], strip: bool) -> list[str]:
    start = json.dumps({"type": "start", "variant": variant, "fen": None, "clock": True,
                        "transcribed": True})
    out = [start]
    for e in events:
        if strip and isinstance(e, PieceChanged):
            continue
        d = e.to_dict()
        if strip:
            d = {k: v for k, v in d.items() if k not in ("piece", "reading", "pieces")}
        out.append(json.dumps(d))
    return out


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1),
       plies=st.integers(1, 120))
def test_a_board_that_sees_nothing_wrong_rules_as_occupancy(variant: str, seed: int,
                                                            plies: int) -> None:
    events, _ = _game(variant, seed, plies, late=False)
    seen = replay_lines(_lines(variant, events, strip=False)).to_json()
    plain = replay_lines(_lines(variant, events, strip=True)).to_json()
    assert seen == plain


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 2**32 - 1),
       plies=st.integers(40, 160))
def test_a_crown_left_off_until_the_opponent_moves_is_flagged(variant: str, seed: int,
                                                              plies: int) -> None:
    events, crowned_late = _game(variant, seed, plies, late=True)
    seen = replay_lines(_lines(variant, events, strip=False))
    plain = replay_lines(_lines(variant, events, strip=True))
    assert seen.moves == plain.moves and seen.game.result == plain.game.result
    late = {"italian": "IT 4.4", "english": "EN 4.5", "international": "INT 3.5",
            "brazilian": "BR 3.5"}[variant]
    # each crown put on late: flagged when the opponent's move is complete, and again when it
    # goes on (IT 4.4 -> 3.7, 3.10)
    flagged = [(f.code, f.status) for f in seen.flags if f.code == late]
    assert flagged == [(late, "noted")] * crowned_late
    others = [(f.code, f.status) for f in seen.flags if f.code != late]
    assert others == [(f.code, f.status) for f in plain.flags]
