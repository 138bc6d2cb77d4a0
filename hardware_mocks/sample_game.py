"""Traces of whole games with natural physical events, for the simulator (``make run``) and the
crash tests.

* :func:`pdn_trace` turns a PDN game (``pi/samples/italian_sample.pdn``) into a trace: each move
  played with :func:`hardware_mocks.players.physical` (a brush here and there, captured pieces
  removed in either legal order), a think time, the clock pressed; one touch-move correction
  (IT 8.1.3: the player touches one piece, moves another, the opponent demands the correction,
  the touched piece is moved) and one kept irregularity (a touched piece not moved, the opponent
  accepts: maintained, IT 8.2) woven in without changing the game's moves; the loser resigns.
* :func:`random_trace`: a long random game (the arbiter benchmark's way) for the crash tests.
* :func:`flagged_trace`: a long game with many flags for the game report (its benchmark and
  tests): moves chosen so that the game lasts, and every so often a touch-move irregularity
  (IT 8.1.3) kept or corrected, a sensor fault and its clearing, a restart of the daemon with
  the arbiter's restart of the clock, and the arbiter's notes.

``python -m hardware_mocks.sample_game`` rewrites ``pi/samples/italian_sample.jsonl``.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from engine.board import Board, Move
from engine.events import (ArbiterActed, ButtonPressed, DaemonRestarted, Event, PieceLifted,
                           PiecePlaced, SensorsFailed, SensorsRecovered, SnapshotTaken,
                           TraceEnded)
from engine.pdn import read_pdn
from engine.variants import find_variant
from hardware_mocks.players import physical

__all__ = ["pdn_trace", "random_trace", "flagged_trace", "SAMPLE_PDN", "SAMPLE_TRACE"]

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


def _lasting(board: Board, rng: random.Random) -> Move:
    """A legal move after which the opponent has no capture, when there is one (a random game
    played so lasts hundreds of plies); else any legal move."""
    legal = board.legal_moves
    quiet = []
    for m in legal:
        board.push(m)
        replies = board.legal_moves
        if replies and not any(r.is_capture for r in replies):
            quiet.append(m)
        board.pop()
    return rng.choice(quiet or legal)


def flagged_trace(variant: str = "italian", seed: int = 3, plies: int = 600,
                  flags: int = 20) -> list[str]:
    """The trace lines of a game of up to ``plies`` plies (fewer if the rules end it) with
    ``flags`` flags, spread evenly (see the module docstring), clock pressed
    after every move (time control 5400+30), players and event named, ``started_at`` set, ending
    with ``end``. Deterministic for a ``seed``."""
    chooser = random.Random(seed)  # the moves alone: the game does not depend on the flags
    rng = random.Random(seed + 1)
    ref = Board(None, find_variant(variant))
    alg = ref.variant.geometry.algebraic_of
    occupied = set(ref.occupied_algebraic())
    events: list[Event] = [SnapshotTaken(0.0, frozenset(occupied))]
    t = 0.5
    # the flags each kind of incident raises, in turn: kept, corrected, fault (two notices and
    # the arbiter's note, COMP 6.16), kept, restart (a notice and the note)
    raises = (1, 1, 3, 1, 2)
    incidents = -(-flags * len(raises) // sum(raises))
    every = max(1, plies // (incidents + 1))
    made = kind = 0
    due_at = every - 1

    def at(dt: float) -> float:
        nonlocal t
        t = round(t + dt, 3)
        return t

    for ply in range(plies):
        if not ref.legal_moves:
            break
        move = _lasting(ref, chooser)
        side = "white" if ref.turn == 0 else "black"
        other = "black" if side == "white" else "white"
        at(rng.uniform(1.0, 6.0))
        others = [m for m in ref.legal_moves if m.from_square != move.from_square]
        if made < flags and ply >= due_at and others and not move.is_capture:
            due_at += every
            incident, kind = kind, (kind + 1) % len(raises)
            if made + raises[incident] > flags:
                incident = 0  # the last one or two: one flag each
            made += raises[incident]
            if incident in (0, 3):  # IT 8.1.3 kept: touches a piece, moves another, accepted
                events += [PieceLifted(at(0.1), alg[others[0].from_square]),
                           PiecePlaced(at(0.2), alg[others[0].from_square])]
                evs, t = physical(ref, move, rng, t, occupied)
                events += evs
                events += [ButtonPressed(at(0.4), "clock", side),
                           ButtonPressed(at(rng.uniform(2.0, 5.0)), "accept", other)]
                ref.push(move)
                occupied = set(ref.occupied_algebraic())
                continue
            if incident == 1:  # IT 8.1.3 corrected: the touched piece must be moved (IT 8.4)
                wrong = others[0]
                events += [PieceLifted(at(0.1), alg[move.from_square]),
                           PiecePlaced(at(0.2), alg[move.from_square])]
                evs, t = physical(ref, wrong, rng, t, occupied)
                events += evs
                events += [ButtonPressed(at(0.4), "clock", side),
                           ButtonPressed(at(rng.uniform(2.0, 5.0)), "correct", other),
                           PieceLifted(at(1.0), alg[wrong.to_square]),
                           PiecePlaced(at(0.4), alg[wrong.from_square])]
            elif incident == 2:  # a sensor fault and its clearing: two notices (BOARD)
                squares = tuple(sorted(alg[n] for n in list(alg)[:3]))
                events += [SensorsFailed(at(0.2), squares, "sensor fault: 0x21, squares "
                                         + " ".join(squares)),
                           SensorsRecovered(at(3.0), squares),
                           SnapshotTaken(at(0.1), frozenset(occupied)),
                           ArbiterActed(at(1.0), "note", text=f"sensors checked after ply {ply}")]
            else:  # the daemon restarted: the arbiter starts the clock again (COMP 7.3-7.4)
                events += [DaemonRestarted(at(40.0), 40.0),
                           SnapshotTaken(at(0.1), frozenset(occupied)),
                           ArbiterActed(at(5.0), "start_clock"),
                           ArbiterActed(at(1.0), "note", text="power cut; board restarted")]
        evs, t = physical(ref, move, rng, t, occupied)
        events += evs
        events.append(ButtonPressed(at(0.4), "clock", side))
        ref.push(move)
        occupied = set(ref.occupied_algebraic())
    events.append(TraceEnded(at(3.0)))
    start: dict[str, Any] = {"type": "start", "variant": variant, "fen": None, "clock": True,
                             "transcribed": True, "time_control": "5400+30",
                             "white": "Bianchi, Anna", "black": "Neri, Marco",
                             "event": "Campionato italiano", "site": "Roma ITA", "round": "3",
                             "board": 7, "date": "2026.11.26",
                             "started_at": "2026-11-26T09:00:00+00:00"}
    return _lines(start, events)


if __name__ == "__main__":
    SAMPLE_TRACE.write_text("".join(pdn_trace()), encoding="utf-8")
    print(SAMPLE_TRACE)
