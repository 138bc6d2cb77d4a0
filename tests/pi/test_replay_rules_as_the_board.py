"""`damiera replay` rules every journal as the board did (issue 35, item 3): one ordering of
events for both paths.

The board (``BoardController``, the daemon's object, driven on a fake clock as its loop drives
it: time alone acts at each deadline — a flag falling, COMP 4.8; a settle timer, IT 3.5 — before
the next input) and ``engine.replay`` reading the same events as a journal with no ``end``
line between them must give the same moves, flags and result after every event, until the
board's game is over. Random journals: moves played naturally or irregularly, pressed, pressed
by the wrong side or forgotten (COMP 4.6), positions put right (IT 8.4, 7.8), the players'
buttons (IT 8.2, COMP 6.15, IT 10.2, 9.3b), the arbiter's actions (COMP 7.3, IT 7.8), and
waits long enough for flags to fall, under several time controls; after the result, notes and
the result corrected (COMP 6.16, issue 37). Half the games are played on a
board that knows which piece is where (issue 40): its places say the piece and the reading (the
piece the move would leave there, or now and then another: a crown missing or misplaced, a
wrong colour), crowns are put on and taken off (``piece`` lines), and its first snapshot says
every piece (IT 4.4, 4.5, 7.8, 8.1.16, 8.1.17, 8.4, INT 4.15).
"""

from __future__ import annotations

import asyncio
import os
import random
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import event as hypothesis_event
from hypothesis import strategies as st

from engine.arbiter import Arbiter
from engine.board import Board
from engine.colour import Colour
from engine.board import Piece
from engine.events import (PIECE_CODES, ArbiterActed, ButtonPressed, Event, PieceChanged,
                           PieceLifted, PiecePlaced, SnapshotTaken)
from engine.replay import Replay, replay_lines
from engine.trace import parse_event
from engine.variants import find_variant
from hardware_mocks.clock import FakeClock
from hardware_mocks.players import physical
from pi.board.arbiter_request import ArbiterRequest
from pi.board.config import Config
from pi.board.controller import BoardController
from pi.board.session import GameSession
from pi.board.statedir import StateDir
from pi.drivers.timebase import GameTime

#: the fake monotonic clock when the game begins (its ``t`` = 0); the epoch of the stamps
BEGIN, EPOCH = 1000.0, 900.0

Ruling = tuple[tuple[str, ...], tuple[tuple[str, str], ...], str]


def _ruling(arbiter: Arbiter) -> Ruling:
    """What an arbiter ruled so far: the moves, every flag with its status, the result."""
    return (tuple(m.notation for m in arbiter.game.moves),
            tuple((f.code, f.status) for f in arbiter.flags), arbiter.game.result)


def _time_passes(board: BoardController, clock: FakeClock, t: float) -> None:
    """The daemon's loop until game time ``t``: it wakes at each deadline and ticks."""
    target = BEGIN + t
    for _ in range(200):
        deadline = board.next_deadline()
        if deadline is None or deadline > target:
            break
        clock.jump_to(deadline)
        before = deadline
        board.tick()
        if board.next_deadline() == before:  # the stamp fell a hair short of it: a ms on
            clock.jump_to(before + 0.001)
            board.tick()
    clock.jump_to(target)


def _seen(data: Any, arbiter: Arbiter, events: list[Event]) -> list[Event]:
    """``events`` as a board that knows the pieces reports them: each place with a piece (the
    one the official position or the move leaves there, or now and then another, or none) and
    a reading, and now and then a crown put on or lifted off an occupied square."""
    g = arbiter.variant.geometry
    board = arbiter.board
    codes = sorted(PIECE_CODES.values())
    out: list[Event] = []
    hand: list[Piece] = []
    for e in events:
        if isinstance(e, PieceLifted) and e.square in g.number_of_algebraic:
            lifted = board.piece_at(g.number_of_algebraic[e.square])
            if lifted is not None:
                hand.append(lifted)
        if isinstance(e, PiecePlaced):
            natural = hand.pop() if hand else None
            piece = data.draw(st.sampled_from([natural, natural, natural, None, *codes]))
            reading = None if piece is None else round(
                (1 if piece.color == 0 else -1) * (2 if piece.king else 1)
                * data.draw(st.floats(0.8, 1.2)), 3)
            e = PiecePlaced(e.t, e.square, piece, reading)
        out.append(e)
    touched = {e.square for e in out if isinstance(e, (PieceLifted, PiecePlaced))}
    still = sorted(arbiter.sensed - touched)
    if out and still and data.draw(st.integers(0, 4)) == 0:
        at = len(out) - 1  # before the last event (a press, mostly), at the time of the one before
        out.insert(at, PieceChanged(out[at - 1].t if at else out[0].t,
                                    data.draw(st.sampled_from(still)),
                                    data.draw(st.sampled_from(codes)),
                                    round(data.draw(st.floats(-2.5, 2.5)), 3)))
    return out


def _events(data: Any, arbiter: Arbiter, rng: random.Random, t: float) -> list[Event]:
    """The next few events of a game: a move (natural or irregular) with or without its press,
    the board put right, a button, an arbiter's action, or a wait."""
    variant = arbiter.variant
    dark = sorted(variant.geometry.number_of_algebraic)
    mover = Colour(arbiter.tracking.ref.turn)
    kind = data.draw(st.sampled_from(["move", "move", "move", "move", "irregular", "put_right",
                                      "button", "button", "arbiter", "wait", "wait"]))
    gap = round(data.draw(st.integers(50, 1500)) / 1000, 3)
    out: list[Event] = []
    if kind == "wait":
        return [ButtonPressed(round(t + data.draw(st.sampled_from([2.0, 15.0, 31.0, 65.0])), 3),
                              data.draw(st.sampled_from(["draw_offer", "correct", "accept",
                                                         "clock"])),
                              data.draw(st.sampled_from(["white", "black"])))]
    if kind == "put_right" and not arbiter.squares_to_fix:
        kind = "button"
    if kind == "put_right" or (kind in ("move", "irregular") and arbiter.squares_to_fix):
        for name in arbiter.squares_to_fix:
            t = round(t + gap, 3)
            out.append(PieceLifted(t, name) if name in arbiter.sensed else PiecePlaced(t, name))
        return out
    board = Board(arbiter.board.fen(), variant)
    shown = arbiter.tracking.after.get(frozenset(arbiter.sensed))
    if shown is not None and kind == "move":  # a press forgotten: the opponent moves on
        board.push(shown)
        mover = mover.opponent
    if kind == "move" and board.legal_moves and set(board.occupied_algebraic()) == set(
            arbiter.sensed):
        move = rng.choice(board.legal_moves)
        out, t = physical(board, move, rng, t, set(arbiter.sensed))
    elif kind in ("move", "irregular"):
        own = sorted(sq for sq in arbiter.sensed if sq in variant.geometry.number_of_algebraic
                     and (p := arbiter.board.piece_at(variant.geometry.number_of_algebraic[sq]))
                     is not None and p.color == mover)
        free = [sq for sq in dark if sq not in arbiter.sensed]
        if not own or not free:
            return [ButtonPressed(round(t + gap, 3), "clock", mover.label)]
        out = [PieceLifted(round(t + gap, 3), rng.choice(own)),
               PiecePlaced(round(t + 2 * gap, 3), rng.choice(free))]
        t = round(t + 2 * gap, 3)
    if kind in ("move", "irregular"):
        who = data.draw(st.sampled_from(["mover", "mover", "mover", "other", "forgotten"]))
        if who != "forgotten":
            side = mover if who == "mover" else mover.opponent
            out.append(ButtonPressed(round(t + gap, 3), "clock", side.label))
        return out
    t = round(t + gap, 3)
    if kind == "button":
        name = data.draw(st.sampled_from(["correct", "correct", "accept", "draw_offer",
                                          "draw_accept", "count", "repetition", "resign",
                                          "accomodo"]))
        return [ButtonPressed(t, name, data.draw(st.sampled_from(["white", "black"])))]
    action = data.draw(st.sampled_from(["stop_clock", "start_clock", "start_clock", "restore",
                                        "note", "impose_count", "adjudicate"]))
    return [ArbiterActed(t, action, result="1-0" if action == "adjudicate" else None,
                         text="noise" if action == "note" else None)]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), variant=st.sampled_from(["italian", "international"]),
       time_control=st.sampled_from(["60", "20+2", "0:1/30", None]),
       clock_mode=st.sampled_from([True, True, True, False]), seed=st.integers(0, 2**32 - 1),
       knows=st.booleans())
def test_replay_rules_every_event_as_the_board_did(data: Any, variant: str,
                                                   time_control: str | None, clock_mode: bool,
                                                   seed: int, knows: bool) -> None:
    rng = random.Random(seed)
    clock = FakeClock(BEGIN)
    time = GameTime(clock, epoch=EPOCH)
    # the disk's durability is not what is tested here: no fsync (the journal's lines are
    # written all the same, each before the arbiter sees it)
    with mock.patch.object(os, "fsync", lambda _fd: None), \
            tempfile.TemporaryDirectory() as folder, \
            StateDir.open(Path(folder) / "state") as state:
        board = BoardController(Config(variant=variant, time_control=time_control,
                                       clock=clock_mode, settle=1.0), state, time,
                                wall=lambda: None)
        start = Board(None, find_variant(variant))
        initial = start.occupied_algebraic()
        pieces = None
        if knows:  # the set-up right (the board begins no game on a wrong one, IT 7.1)
            names = start.variant.geometry.algebraic_of
            pieces = {names[n]: p for n, p in start.pieces().items()}
        board.handle(SnapshotTaken(time.stamp(), initial, pieces))  # the game begins: t = 0
        session = board.session
        assert isinstance(session, GameSession)
        journal = [session.start_line, SnapshotTaken(0.0, initial, pieces).to_dict()]
        rulings: list[Ruling] = []
        try:
            t = 0.0
            for _ in range(data.draw(st.integers(3, 30))):
                if session.arbiter.game.outcome is not None:
                    break
                events = _events(data, session.arbiter, rng, t)
                for event in _seen(data, session.arbiter, events) if knows else events:
                    t = event.t
                    _time_passes(board, clock, t)
                    board.handle(replace(event, t=time.stamp()))
                    journal.append(event.to_dict())
                    rulings.append(_ruling(session.arbiter))
                    if session.arbiter.game.outcome is not None:
                        break
            game = session.arbiter.game
            if game.outcome is not None:
                # after the result (issue 37): notes, and the result corrected by the arbiter
                # (COMP 6.16) with one of the variant's other results, as the console sends them
                for _ in range(data.draw(st.integers(0, 3))):
                    t = round(t + data.draw(st.floats(0.1, 90.0)), 3)
                    clock.jump_to(BEGIN + t)
                    others = [r for r in game.variant.results if r != game.result]
                    request = (ArbiterRequest("note", None, "after the result")
                               if data.draw(st.sampled_from([True, False, False]))
                               else ArbiterRequest("correct_result",
                                                   data.draw(st.sampled_from(others)),
                                                   "the sheets say otherwise"))
                    fed = asyncio.run(board.act(request))
                    hypothesis_event(request.action)
                    journal.append(dict(fed.record))
                    rulings.append(_ruling(session.arbiter))
        finally:
            board.stop()
        board_journal = session.trace.read_text(encoding="utf-8")
    replay = Replay.read(journal)
    replayed = [_ruling(replay.arbiter) for _ in replay][1:]  # after the snapshot: none
    for line, (played, read) in enumerate(zip(rulings, replayed, strict=True), start=3):
        assert read == played, (line, journal[:line])
    # and the board's own journal (its `end` line where time alone ended the game) replays to
    # what it ruled at the end
    report = replay_lines(board_journal.splitlines())
    assert (tuple(m.notation for m in report.game.moves),
            tuple((f.code, f.status) for f in report.flags), report.game.result) == rulings[-1]


#: The journal hypothesis found (issue 35): international, ``20+2``, a board that knows the
#: pieces. Black's man h10 put on i5 and pressed: the position disturbed (INT 5.5); White's
#: face reaches zero at t = 20.0 (COMP 4.8), the very moment the man is put back on h10.
FLAG_THEN_PUT_BACK = [
    {"t": 0.1, "type": "lift", "square": "b4"},
    {"t": 0.2, "type": "place", "square": "c5", "piece": "wk", "reading": 2.0},
    {"t": 0.3, "type": "lift", "square": "a7"},
    {"t": 0.4, "type": "place", "square": "b6", "piece": "bm", "reading": -1.0},
    {"t": 1.112, "type": "button", "name": "clock", "side": "white"},
    {"t": 16.112, "type": "button", "name": "draw_offer", "side": "white"},
    {"t": 16.212, "type": "lift", "square": "c5"},
    {"t": 16.312, "type": "place", "square": "c6", "piece": "wk", "reading": 2.0},
    {"t": 16.412, "type": "lift", "square": "c6"},
    {"t": 16.512, "type": "place", "square": "a7"},
    {"t": 16.612, "type": "lift", "square": "b6"},
    {"t": 16.976, "type": "button", "name": "clock", "side": "white"},
    {"t": 17.934, "type": "lift", "square": "h10"},
    {"t": 18.892, "type": "place", "square": "i5", "piece": "bm", "reading": -1.0},
    {"t": 18.892, "type": "piece", "square": "a1", "piece": "wm", "reading": 0.0},
    {"t": 19.85, "type": "button", "name": "clock", "side": "black"},
    {"t": 19.9, "type": "place", "square": "c5"},
    {"t": 19.95, "type": "lift", "square": "i5"},
    {"t": 19.95, "type": "piece", "square": "a1", "piece": "wm", "reading": 0.0},
    {"t": 20.0, "type": "place", "square": "h10"},
]


def test_a_disturbance_put_back_after_the_flag_fell_stays_pending_as_on_the_board() -> None:
    """INT 5.5 (IT 7.8): a disturbance is undone at once, in the game. White's flag falls
    (COMP 4.8) before the man comes back to h10 at the same ``t``: the board, its game over,
    takes the place as the next game's set-up, and the replay of the journal that has the
    place with no ``end`` before it must rule it so too — the notice stays pending."""
    variant = find_variant("international")
    clock = FakeClock(BEGIN)
    time = GameTime(clock, epoch=EPOCH)
    with mock.patch.object(os, "fsync", lambda _fd: None), \
            tempfile.TemporaryDirectory() as folder, \
            StateDir.open(Path(folder) / "state") as state:
        board = BoardController(Config(variant="international", time_control="20+2",
                                       clock=True, settle=1.0), state, time, wall=lambda: None)
        start = Board(None, variant)
        initial = start.occupied_algebraic()
        names = variant.geometry.algebraic_of
        pieces = {names[n]: p for n, p in start.pieces().items()}
        board.handle(SnapshotTaken(time.stamp(), initial, pieces))
        session = board.session
        assert isinstance(session, GameSession)
        journal = [session.start_line, SnapshotTaken(0.0, initial, pieces).to_dict(),
                   *FLAG_THEN_PUT_BACK]
        rulings: list[Ruling] = []
        try:
            for number, line in enumerate(FLAG_THEN_PUT_BACK, start=3):
                event = parse_event(number, dict(line), variant)
                _time_passes(board, clock, event.t)
                board.handle(replace(event, t=time.stamp()))
                rulings.append(_ruling(session.arbiter))
        finally:
            board.stop()
    replay = Replay.read(journal)
    replayed = [_ruling(replay.arbiter) for _ in replay][1:]
    assert replayed == rulings
    assert rulings[-1][1:] == ((("INT 3.5", "maintained"), ("COMP 6.15", "noted"),
                                ("INT 5.5", "pending")), "0-2")
