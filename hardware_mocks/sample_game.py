"""Traces of whole games with natural physical events, for the simulator (``make run``) and the
crash tests.

* :func:`pdn_trace` turns a PDN game (``pi/samples/italian_sample.pdn``) into a trace: each move
  played with :func:`hardware_mocks.players.physical` (a brush here and there, captured pieces
  removed in either legal order), a think time, the clock pressed; one touch-move correction
  (IT 8.1.3: the player touches one piece, moves another, the opponent demands the correction,
  the touched piece is moved) and one kept irregularity (a touched piece not moved, the opponent
  accepts: maintained, IT 8.2) woven in without changing the game's moves; the loser resigns.
* :func:`random_trace`: a long random game (the arbiter benchmark's way) for the crash tests.

``python -m hardware_mocks.sample_game`` rewrites ``pi/samples/italian_sample.jsonl``.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from engine.board import Board, Move
from engine.events import ButtonPressed, Event, PieceLifted, PiecePlaced, TraceEnded
from engine.pdn import read_pdn
from engine.variants import find_variant
from hardware_mocks.players import physical

__all__ = ["pdn_trace", "random_trace", "SAMPLE_PDN", "SAMPLE_TRACE"]

SAMPLES = Path(__file__).resolve().parents[1] / "pi" / "samples"
SAMPLE_PDN = SAMPLES / "italian_sample.pdn"
SAMPLE_TRACE = SAMPLES / "italian_sample.jsonl"
SIDES = ("white", "black")


def _find(board: Board, text: str) -> Move:
    for m in board.legal_moves:
        if text in (m.notation(), m.notation(full_path=True)):
            return m
    raise ValueError(f"{text} is not a legal move in {board.fen()}")


def _lines(start: dict[str, Any], events: list[Event]) -> list[str]:
    out = [json.dumps(start)]
    out += [json.dumps(e.to_dict()) for e in events]
    return [line + "\n" for line in out]


def pdn_trace(pdn: Path = SAMPLE_PDN, seed: int = 7, correction_ply: int = 4,
              kept_ply: int = 18) -> list[str]:
    """The trace lines of the first game of ``pdn`` (see the module docstring). The touch-move
    correction is made at ply ``correction_ply``, the kept irregularity at ``kept_ply`` (both
    0-based plies of quiet moves with another playable piece)."""
    text = pdn.read_text(encoding="utf-8")
    game = read_pdn(text)[0]
    variant = game.variant
    rng = random.Random(seed)
    ref = Board(None, variant)
    g = variant.geometry
    alg = g.algebraic_of
    occupied = set(ref.occupied_algebraic())
    events: list[Event] = []
    t = 1.0
    moves = [m for m in game.moves]

    def think() -> None:
        nonlocal t
        t = round(t + rng.uniform(2.0, 6.0), 3)

    def touch(square: int) -> None:
        nonlocal t
        events.append(PieceLifted(round(t + 0.1, 3), alg[square]))
        events.append(PiecePlaced(round(t + 0.3, 3), alg[square]))
        t = round(t + 0.3, 3)

    def play(move: Move) -> None:
        nonlocal t
        evs, t = physical(ref, move, rng, t, occupied)
        events.extend(evs)

    def press(side: str, name: str = "clock") -> None:
        nonlocal t
        t = round(t + 0.4, 3)
        events.append(ButtonPressed(t, name, side))

    for ply, played in enumerate(moves):
        move = _find(ref, played.notation)
        side = SIDES[0] if ref.turn == 0 else SIDES[1]
        think()
        others = [m for m in ref.legal_moves if m.from_square != move.from_square]
        if ply == correction_ply and others and not move.is_capture:
            wrong = others[0]
            touch(move.from_square)                      # touches the piece it must move
            play(wrong)                                  # ... and moves another (IT 8.1.3)
            press(side)
            think()
            press(SIDES[1] if side == "white" else "white", "correct")  # the opponent: correct
            t = round(t + 1.0, 3)
            events.append(PieceLifted(round(t, 3), alg[wrong.to_square]))   # put back
            events.append(PiecePlaced(round(t + 0.4, 3), alg[wrong.from_square]))
            t = round(t + 0.8, 3)
        elif ply == kept_ply and others and not move.is_capture:
            touch(others[0].from_square)                 # touches a piece, moves another
            play(move)
            press(side)
            think()
            press(SIDES[1] if side == "white" else "white", "accept")   # kept: maintained
            ref.push(move)
            occupied = set(ref.occupied_algebraic())
            continue
        play(move)
        press(side)
        ref.push(move)
        occupied = set(ref.occupied_algebraic())
    if game.result in ("1-0", "0-1", "2-0", "0-2") and ref.has_legal_moves():
        think()
        loser = "black" if game.result in ("1-0", "2-0") else "white"
        events.append(ButtonPressed(t, "resign", loser))
    events.append(TraceEnded(round(t + 2.0, 3)))
    tags = dict(game.tags) if hasattr(game, "tags") else {}
    start: dict[str, Any] = {"type": "start", "variant": variant.name, "fen": None,
                             "clock": True, "transcribed": True}
    control = re.search(r'\[TimeControl "([^"]*)"\]', text)  # a tag the reader keeps apart
    if control is not None:
        start["time_control"] = control.group(1)
    for key in ("White", "Black", "Event", "Round", "Site"):
        if tags.get(key):
            start[key.lower()] = tags[key]
    return _lines(start, events)


def random_trace(variant: str = "italian", seed: int = 1, plies: int = 150,
                 clock: bool = True) -> list[str]:
    """A random game of up to ``plies`` plies played with natural physical events (think times
    of 0.5-3 s, the clock pressed after each move), ending with ``end``."""
    rng = random.Random(seed)
    ref = Board(None, find_variant(variant))
    occupied = set(ref.occupied_algebraic())
    events: list[Event] = []
    t = 0.5
    for _ in range(plies):
        legal = ref.legal_moves
        if not legal:
            break
        move = rng.choice(legal)
        side = "white" if ref.turn == 0 else "black"
        evs, t = physical(ref, move, rng, t, occupied)
        events.extend(evs)
        t = round(t + rng.uniform(0.2, 0.6), 3)
        if clock:
            events.append(ButtonPressed(t, "clock", side))
        t = round(t + rng.uniform(0.5, 3.0), 3)
        ref.push(move)
        occupied = set(ref.occupied_algebraic())
    events.append(TraceEnded(round(t + 3.0, 3)))
    start = {"type": "start", "variant": variant, "fen": None, "clock": clock,
             "transcribed": True}
    return _lines(start, events)


if __name__ == "__main__":
    SAMPLE_TRACE.write_text("".join(pdn_trace()), encoding="utf-8")
    print(SAMPLE_TRACE)
