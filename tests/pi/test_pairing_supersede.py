"""A pairing that reaches a board whose game began before it (issue 16, "Starting a round"): the
players set the pieces up again as soon as a round ends, so the board begins a game (IT 7.1,
7.2) with the previous pairing's start line long before the arbiter starts the next round. While
that game is untouched the pairing supersedes it: the game is closed with docs/trace-format.md's own lines
(a fixed arbiter ``note``, ``end``), marked finished with ``*``, and a new game begins at once
from the same position with the pairing's start line. A touched game keeps its start line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from engine.board import Board
from engine.events import ArbiterActed, ButtonPressed, PieceLifted, PiecePlaced, SnapshotTaken
from engine.replay import Fed
from engine.squares import square_sort_key
from hardware_mocks.clock import FakeClock
from pi.board.config import Config
from pi.board.controller import BoardController, Phase
from pi.board.statedir import StateDir
from pi.board.supersede import SUPERSEDED_NOTE, superseded
from pi.drivers.timebase import GameTime

INITIAL = Board(None, "italian").occupied_algebraic()
ROUND1 = {"event": "Open", "round": "1", "white": "Rossi", "black": "Bianchi",
          "clock_start": "arbiter"}
ROUND2 = {"event": "Open", "round": "2", "white": "Neri", "black": "Rossi",
          "clock_start": "arbiter"}


@pytest.fixture
def rig(tmp_path: Path):  # type: ignore[no-untyped-def]
    clock = FakeClock(1000.0)
    time = GameTime(clock, epoch=900.0)
    published: list[Fed] = []
    with StateDir.open(tmp_path / "state") as state:
        c = BoardController(Config(time_control="600"), state, time, wall=lambda: None,
                            listeners=[published.append])
        yield c, clock, time, published, state


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _deliver(c: BoardController, posted: list[Any]) -> None:
    """With write-behind: waits until every line journaled is durable, handing the board what
    its writer threads posted meanwhile (as the daemon's loop does)."""
    import time as wall

    s = c.session
    assert s is not None
    deadline = wall.monotonic() + 10
    while s.durable_line < s.journal.line_count:
        assert wall.monotonic() < deadline
        wall.sleep(0.01)
        while posted:
            c.handle(posted.pop(0))
    while posted:
        c.handle(posted.pop(0))


def _set_up_after_round_1(c: BoardController, clock: FakeClock, time: GameTime,
                          posted: list[Any] | None = None) -> str:
    """Round 1's pairing taken, its game over, the pieces set up again: a game of round 1
    begins (its clock waits for the arbiter). Returns its id. ``posted``: the board writes
    behind, its lines out once durable (:func:`_deliver` after each input)."""
    def handle(item: Any) -> None:
        c.handle(item)
        if posted is not None:
            _deliver(c, posted)

    c.set_pairing(ROUND1, "r1")
    handle(SnapshotTaken(time.stamp(), INITIAL))
    handle(ArbiterActed(time.stamp(), "adjudicate", "1-0"))
    assert c.phase == Phase.OVER
    clock.advance(60.0)
    handle(PieceLifted(time.stamp(), "b3"))  # the pieces taken off and put back
    handle(PiecePlaced(time.stamp(), "b3"))
    assert c.phase == Phase.PLAYING and c.session is not None
    assert c.session.start_line["round"] == "1"
    return c.session.id


def test_a_pairing_supersedes_the_untouched_game_begun_before_it(rig) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, published, state = rig
    early = _set_up_after_round_1(c, clock, time)
    clock.advance(600.0)  # ten minutes before the arbiter starts round 2
    first_of_early = next(i for i, f in enumerate(published) if f.line == 1
                          and f.record.get("id") == early)
    c.set_pairing(ROUND2, "r2")
    assert c.session is not None and c.session.id != early
    # the untouched game: closed with the journal's own lines, finished with '*', void
    old = state.game(early)
    lines = _lines(old.trace)
    assert [x["type"] for x in lines] == ["start", "snapshot", "arbiter", "end"]
    assert lines[2] == {"t": 600.0, "type": "arbiter", "action": "note",
                        "text": SUPERSEDED_NOTE}
    assert lines[3] == {"t": 600.0, "type": "end"}
    assert superseded(lines[1:])
    assert old.finished_info() == {"result": "*"}
    report = json.loads(old.report.read_text(encoding="utf-8"))
    assert report["result"] == "*" and report["moves"] == []
    assert [f["text"] for f in report["flags"]] == [SUPERSEDED_NOTE]
    # the pairing's game begun at once from the same position, its clock waiting
    start = _lines(c.session.trace)[0]
    assert {k: start.get(k) for k in ROUND2} == ROUND2
    assert _lines(c.session.trace)[1]["occupied"] == sorted(INITIAL, key=square_sort_key)
    assert c.phase == Phase.PLAYING and not superseded(_lines(c.session.trace)[1:])
    clock_now = c.session.arbiter.clock
    assert clock_now is not None and clock_now.state.name == "READY"
    # the listeners (the hall's link, the web) got the old game's last lines, then the new game
    after = [(f.record.get("type"), f.line) for f in published[first_of_early:]]
    assert after == [("start", 1), ("snapshot", 2), ("arbiter", 3), ("end", 4),
                     ("start", 1), ("snapshot", 2)]
    # the next game plays as any: a move, the clock
    c.handle(ArbiterActed(time.stamp(), "start_clock"))
    c.handle([PieceLifted(time.stamp(), "d3"), PiecePlaced(time.stamp(), "c4")])
    c.handle(ButtonPressed(time.stamp(), "clock", "white"))
    assert len(c.session.arbiter.game.moves) == 1


def test_the_power_on_game_without_a_pairing_is_superseded_too(rig) -> None:  # type: ignore[no-untyped-def]
    """A board switched on set up, before any pairing: its game's clock runs from the set-up
    (its start line does not wait for the arbiter, COMP 4.4.2: started at its first event),
    started by nobody; round 1's pairing supersedes it."""
    c, clock, time, _, state = rig
    c.handle(SnapshotTaken(time.stamp(), INITIAL))
    assert c.session is not None
    early = c.session.id
    clock.advance(30.0)
    c.set_pairing(ROUND1, "r1")
    assert c.session.id != early and c.session.start_line["round"] == "1"
    assert state.game(early).finished_info() == {"result": "*"}


def test_before_the_arbiters_start_straightening_a_piece_or_a_restart_is_no_play(
        rig, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A game waiting for the arbiter's start (COMP 4.4.2: it begins when he starts the
    clocks): the players straighten a piece (lifted, put back) and the board is switched off
    and on between rounds — still no play, and round 2's pairing supersedes it."""
    c, clock, time, published, state = rig
    early = _set_up_after_round_1(c, clock, time)
    clock.advance(5.0)
    c.handle(PieceLifted(time.stamp(), "d3"))
    c.handle(PiecePlaced(time.stamp(), "d3"))
    assert c.session is not None and c.session.id == early
    c.session.close()
    # the board restarts: a new controller resumes the game from its journal
    again = BoardController(Config(time_control="600", **{k: v for k, v in ROUND1.items()}),
                            state, time, wall=lambda: None)
    again.resume()
    again.handle(SnapshotTaken(time.stamp(), INITIAL))
    assert again.session is not None and again.session.id == early
    again.set_pairing(ROUND2, "r2")
    assert again.session.id != early and again.session.start_line["round"] == "2"
    assert superseded(_lines(state.game(early).trace)[1:], waiting=True)
    assert state.game(early).finished_info() == {"result": "*"}


def test_a_lift_in_a_game_whose_clock_runs_touches_it(rig) -> None:  # type: ignore[no-untyped-def]
    """A game whose clock runs from the set-up (no arbiter's start): a piece lifted is play
    (IT 3.7 would bind the player), so the pairing waits for the next game."""
    c, clock, time, _, state = rig
    c.handle(SnapshotTaken(time.stamp(), INITIAL))
    assert c.session is not None
    early = c.session.id
    clock.advance(5.0)
    c.handle(PieceLifted(time.stamp(), "d3"))
    c.handle(PiecePlaced(time.stamp(), "d3"))
    c.set_pairing(ROUND1, "r1")
    assert c.session.id == early and not state.game(early).is_finished()


@pytest.mark.parametrize("touch", ["start_clock", "note", "press"])
def test_a_touched_game_keeps_its_start_line(rig, touch: str) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, _, state = rig
    early = _set_up_after_round_1(c, clock, time)
    clock.advance(5.0)
    if touch == "press":
        c.handle(ButtonPressed(time.stamp(), "clock", "black"))
    else:
        c.handle(ArbiterActed(time.stamp(), touch, None, "x" if touch == "note" else None))
    assert c.session is not None
    before = c.session.trace.read_bytes()
    c.set_pairing(ROUND2, "r2")
    assert c.session.id == early and c.phase == Phase.PLAYING
    assert c.session.trace.read_bytes() == before  # nothing journaled
    assert not state.game(early).is_finished()
    assert c.config.round == "2"  # the next game's start line takes it
    c.handle(ArbiterActed(time.stamp(), "adjudicate", "0-1"))
    c.handle(PieceLifted(time.stamp(), "b3"))
    c.handle(PiecePlaced(time.stamp(), "b3"))
    assert c.session.id != early and c.session.start_line["round"] == "2"


def test_a_pairing_sent_again_does_not_void_the_game_it_began(rig) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, _, state = rig
    early = _set_up_after_round_1(c, clock, time)
    c.set_pairing(ROUND2, "r2")
    assert c.session is not None and c.session.id != early
    paired = c.session.id
    c.set_pairing(ROUND2, "r2")  # the hub's redelivery after a restart
    assert c.session.id == paired and not state.game(paired).is_finished()
    assert len(state.game_dirs()) == 3


def test_no_game_in_play_takes_the_pairing_for_the_next_game(rig) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, _, state = rig
    c.handle(SnapshotTaken(time.stamp(), INITIAL - {"b3"}))  # not set up (IT 7.1)
    c.set_pairing(ROUND1, "r1")
    assert c.session is None and state.game_dirs() == []
    c.handle(PiecePlaced(time.stamp(), "b3"))
    assert c.session is not None and c.session.start_line["round"] == "1"
    assert len(state.game_dirs()) == 1


def test_with_write_behind_the_old_games_lines_leave_before_the_new_game(rig) -> None:  # type: ignore[no-untyped-def]
    """The daemon's journal writes behind: the void game's note and end are durable and handed
    to the listeners before the new game's first line, which follows once durable."""
    c, clock, time, published, state = rig
    posted: list[Any] = []
    c.post = posted.append
    early = _set_up_after_round_1(c, clock, time, posted)
    mark = len(published)
    c.set_pairing(ROUND2, "r2")
    _deliver(c, posted)
    assert c.session is not None and c.session.id != early
    got = [(f.record.get("type"), f.line) for f in published[mark:]]
    assert got == [("arbiter", 3), ("end", 4), ("start", 1), ("snapshot", 2)]
    # the void game is closed on a thread of its own once its last lines are durable
    # (GameSession.close_behind): its finished marker may follow the new game's lines
    import time as wall
    deadline = wall.monotonic() + 10
    while state.game(early).finished_info() is None:
        assert wall.monotonic() < deadline, "the void game never marked finished"
        wall.sleep(0.01)
    assert state.game(early).finished_info() == {"result": "*"}


# ---------------------------------------------------------------------- the invariant

_SQUARES = sorted(INITIAL, key=square_sort_key)[:6] + ["d5", "e4"]
_INPUTS = st.one_of(
    st.tuples(st.just("lift"), st.sampled_from(_SQUARES)),
    st.tuples(st.just("place"), st.sampled_from(_SQUARES)),
    st.tuples(st.just("button"), st.sampled_from(["clock", "accomodo", "draw_offer"]),
              st.sampled_from(["white", "black"])),
    st.tuples(st.just("arbiter"), st.sampled_from(["start_clock", "stop_clock", "note"])),
    st.tuples(st.just("snapshot")),
)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inputs=st.lists(_INPUTS, max_size=4), clock_start=st.booleans())
@example(inputs=[("lift", "b1"), ("place", "b1")], clock_start=True)  # IT 3.10's notice
def test_a_pairing_supersedes_exactly_the_games_with_nothing_past_the_set_up(
        tmp_path_factory: pytest.TempPathFactory, inputs: list[tuple[str, ...]],
        clock_start: bool) -> None:
    """Whatever happened after the set-up: the pairing voids the game if and only if no move
    was played, nothing flagged (in a game waiting for the arbiter's start, the board's own
    notices aside), and its journal holds past its start line only snapshots —
    and, in a game waiting for the arbiter's start, pieces lifted and put back — with the board
    standing set up; otherwise the game and its journal are left exactly as they were."""
    clock = FakeClock(1000.0)
    time = GameTime(clock, epoch=900.0)
    with StateDir.open(tmp_path_factory.mktemp("state")) as state:
        c = BoardController(Config(time_control="600",
                                   clock_start="arbiter" if clock_start else None),
                            state, time, wall=lambda: None)
        c.handle(SnapshotTaken(time.stamp(), INITIAL))
        for item in inputs:
            clock.advance(0.5)
            if item[0] == "lift":
                c.handle(PieceLifted(time.stamp(), item[1]))
            elif item[0] == "place":
                c.handle(PiecePlaced(time.stamp(), item[1]))
            elif item[0] == "button":
                c.handle(ButtonPressed(time.stamp(), item[1], item[2]))
            elif item[0] == "arbiter":
                c.handle(ArbiterActed(time.stamp(), item[1], None,
                                      "x" if item[1] == "note" else None))
            else:
                c.handle(SnapshotTaken(time.stamp(), c.occupied))
        if c.phase != Phase.PLAYING or c.session is None:
            return  # over (a flag fell, a result): a pairing waits for the next game
        game = c.session.id
        before = c.session.trace.read_bytes()
        lines = _lines(c.session.trace)
        no_play = {"snapshot", "lift", "place"} if clock_start else {"snapshot"}
        # in a game waiting for the arbiter's start the board's own notices are no play
        # (a piece lifted and put back raises IT 3.10's notice: noted, no consequence)
        flagged = [f for f in c.session.arbiter.flags
                   if not (clock_start and f.kind == "notice")]
        untouched = all(x["type"] in no_play for x in lines[1:]) \
            and not c.session.arbiter.game.moves \
            and not flagged and c.occupied == INITIAL
        c.set_pairing(ROUND2, "r2")
        if untouched:
            assert c.session.id != game and c.session.start_line["round"] == "2"
            after = _lines(state.game(game).trace)
            assert after[:len(lines)] == lines and superseded(after[1:], clock_start)
            assert [x["type"] for x in after[len(lines):]] == ["arbiter", "end"]
            assert state.game(game).finished_info() == {"result": "*"}
        else:
            assert c.session.id == game and c.session.trace.read_bytes() == before
            assert not state.game(game).is_finished()


def test_a_journal_that_fails_while_superseding_marks_nothing_and_stops_the_board(
        rig, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The disk fails as the note and the end are written (write-behind): the game is not
    marked finished (the marker never ahead of its journal), the pairing's game begun meanwhile
    leaves no folder (its start line failed too), nothing of the lost lines leaves the board,
    and the board stops (the daemon resumes the void game from the disk)."""
    import errno
    import os
    import time as wall

    from pi.board.controller import JournalFailed
    from pi.board.errors import JournalWriteError
    c, clock, time, published, state = rig
    posted: list[Any] = []
    c.post = posted.append
    early = _set_up_after_round_1(c, clock, time, posted)
    assert c.session is not None
    mark = len(published)

    def failing(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    real = os.fsync
    monkeypatch.setattr(os, "fsync", failing)
    c.set_pairing(ROUND2, "r2")
    deadline = wall.monotonic() + 10
    while len([p for p in posted if isinstance(p, JournalFailed)]) < 2:  # both journals
        assert wall.monotonic() < deadline
        wall.sleep(0.01)
    with pytest.raises(JournalWriteError):
        for item in list(posted):
            c.handle(item)
    monkeypatch.setattr(os, "fsync", real)
    c.stop()
    assert published[mark:] == [] and not state.game(early).is_finished()
    assert len(state.game_dirs()) == 2 and state.unfinished() == state.game(early)


def test_a_pairing_that_comes_while_a_piece_is_in_hand_supersedes_once_it_is_put_back(
        rig) -> None:  # type: ignore[no-untyped-def]
    """The arbiter starts round 2 while a player straightens a piece of the game waiting for
    his start (COMP 4.4.2: no play yet): the board cannot begin a game from a position whose
    pieces do not stand right (IT 7.1, 7.2), so the game waits; once the piece is back it is
    still untouched, and the pairing supersedes it then — not at the game after next."""
    c, clock, time, _, state = rig
    early = _set_up_after_round_1(c, clock, time)
    clock.advance(5.0)
    c.handle(PieceLifted(time.stamp(), "d3"))
    c.set_pairing(ROUND2, "r2")
    assert c.session is not None and c.session.id == early  # the piece in hand: not yet
    clock.advance(1.0)
    c.handle(PiecePlaced(time.stamp(), "d3"))
    assert c.session.id != early and c.session.start_line["round"] == "2"
    lines = _lines(state.game(early).trace)
    assert [x["type"] for x in lines] == ["start", "snapshot", "lift", "place", "arbiter", "end"]
    assert superseded(lines[1:], waiting=True)
    assert state.game(early).finished_info() == {"result": "*"}
    # a touched game keeps its start line though its pieces come to stand right again
    c.handle(ButtonPressed(time.stamp(), "clock", "white"))  # touched (COMP 4.4.2)
    touched = c.session.id
    c.handle(PieceLifted(time.stamp(), "d3"))
    c.set_pairing({**ROUND2, "round": "3"}, "r3")
    c.handle(PiecePlaced(time.stamp(), "d3"))
    assert c.session.id == touched and c.session.start_line["round"] == "2"


def test_a_stop_before_the_void_games_marker_finishes_it_at_the_next_start(
        rig, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    """Killed after the superseded game's note and end were durable, before its ``*`` marker
    (written behind the pairing's game) and before the pairing's game's start line: at the next
    start the game that never began is removed, and the void game is finished ``*`` — never
    resumed with a restart line after its end (docs/trace-format.md: the trace ends at ``end``)."""
    c, clock, time, _, state = rig
    early = _set_up_after_round_1(c, clock, time)
    c.set_pairing(ROUND2, "r2")
    assert c.session is not None
    pairing_game = c.session.game
    c.stop()
    old = state.game(early)
    old.finished_marker.unlink()  # the kill came before it ...
    for f in pairing_game.path.iterdir():  # ... and before the new game's start line
        f.unlink()
    pairing_game.trace.write_bytes(b"")
    again = BoardController(Config(time_control="600"), state, time, wall=lambda: None)
    said = again.resume()
    assert said == f"game {early} was over (*)"
    assert [x["type"] for x in _lines(old.trace)] == ["start", "snapshot", "arbiter", "end"]
    assert old.finished_info() == {"result": "*"}
    assert [g.id for g in state.game_dirs()][-1] == early  # the pairing's game: no folder
    again.stop()
