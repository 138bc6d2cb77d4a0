"""After the result (issue 37, COMP 6.16): the board takes an arbiter's note and a mistaken
result corrected with its reason — for the game just over, after a restart, and for an earlier
game by id — journaled as lines of their own after the end; game.pdn, report.json and the
``finished`` marker follow, in that order (line, files, marker), and a stop between them is
put right at the next start."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Iterator

import pytest

from engine.board import Board
from engine.events import ArbiterActed, ButtonPressed, PieceLifted, PiecePlaced, SnapshotTaken
from engine.replay import Fed, replay_lines
from hardware_mocks.clock import FakeClock
from pi.board.arbiter_request import ArbiterRequest, check_arbiter_request
from pi.board.config import Config
from pi.board.controller import BoardController, Phase
from pi.board.errors import ActionRefused
from pi.board.session import refresh_game_files
from pi.board.statedir import GameDir, StateDir
from pi.drivers.timebase import GameTime

INITIAL = Board(None, "italian").occupied_algebraic()
REASON = "White resigned; Black's button pressed by mistake"


class Rig:
    def __init__(self, state: StateDir, clock: FakeClock) -> None:
        self.state = state
        self.clock = clock
        self.time = GameTime(clock, epoch=900.0)
        self.told: list[Fed] = []
        self.c = BoardController(Config(white="Rossi", black="Bianchi"), state, self.time,
                                 wall=lambda: None, listeners=[self.told.append])

    def stamp(self) -> float:
        return self.time.stamp()

    def resigned_game(self) -> GameDir:
        """A game begun, 22-18 played, Black resigns: 1-0 (IT 9.2.1)."""
        c = self.c
        c.handle(SnapshotTaken(self.stamp(), INITIAL))
        self.clock.advance(0.5)
        c.handle(PieceLifted(self.stamp(), "d3"))
        self.clock.advance(0.5)
        c.handle(PiecePlaced(self.stamp(), "c4"))
        self.clock.advance(0.5)
        c.handle(ButtonPressed(self.stamp(), "clock", "white"))
        self.clock.advance(1)
        c.handle(ButtonPressed(self.stamp(), "resign", "black"))
        assert c.phase == Phase.OVER and c.session is not None
        return c.session.game

    def act(self, **body: object) -> Fed:
        return asyncio.run(self.c.act(check_arbiter_request(body)))


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    with StateDir.open(tmp_path / "state") as state:
        yield Rig(state, FakeClock(1000.0))


def _lines(game: GameDir) -> list[dict[str, object]]:
    return [json.loads(x) for x in game.trace.read_text().splitlines()]


def _marker(game: GameDir) -> object:
    info = game.finished_info()
    return None if info is None else info.get("result")


def test_a_note_after_the_result_is_journaled_not_refused(rig: Rig) -> None:
    game = rig.resigned_game()
    rig.clock.advance(20)
    fed = rig.act(action="note", text="Black disputes the result")
    assert fed.record == {"t": 22.5, "type": "arbiter", "action": "note",
                          "text": "Black disputes the result"}
    assert _lines(game)[-1] == fed.record
    assert rig.told[-1].line == fed.line  # the feeds and the hall's link have it
    assert json.loads(game.report.read_text())["flags"][-1]["code"] == "COMP 6.16"
    assert _marker(game) == "1-0" and not game.marker_stale()


def test_a_result_corrected_after_the_end_reissues_the_files_and_the_marker(rig: Rig) -> None:
    game = rig.resigned_game()
    rig.clock.advance(60)
    fed = rig.act(action="correct_result", result="0-1", text=REASON)
    assert fed.record == {"t": 62.5, "type": "arbiter", "action": "correct_result",
                          "result": "0-1", "text": REASON}
    assert [type(d).__name__ for d in fed.decisions] == ["FlagRaised", "GameEnded"]
    assert rig.c.session is not None and rig.c.session.arbiter.game.result == "0-1"
    report = json.loads(game.report.read_text())
    assert report["result"] == "0-1"
    assert report["result_history"] == [
        {"t": 2.5, "result": "1-0", "code": "IT 9.2.1", "reason": "black resigned"},
        {"t": 62.5, "result": "0-1", "code": "COMP 6.16", "reason": REASON}]
    pdn = game.pdn.read_text()
    assert '[Result "0-1"]' in pdn and "{1-0 (IT 9.2.1: black resigned) corrected to 0-1" in \
        " ".join(pdn.split())
    assert _marker(game) == "0-1"
    # the journal replays to what the board says (damiera replay): the same report
    assert replay_lines(game.trace.read_text().splitlines()).to_json() == report
    assert rig.c.phase == Phase.OVER and "0-1" in rig.c.message


@pytest.mark.parametrize("body, words", [
    ({"result": "2-0"}, "2-0 is not a result of italian draughts"),  # COMP 6.14's other set
    ({"result": "1-0"}, "is 1-0 already"),
])
def test_a_correction_that_does_not_fit_is_refused_and_not_journaled(
        rig: Rig, body: dict[str, object], words: str) -> None:
    game = rig.resigned_game()
    before = game.trace.read_bytes()
    with pytest.raises(ActionRefused, match=words):
        rig.act(action="correct_result", text="why", **body)
    assert game.trace.read_bytes() == before and _marker(game) == "1-0"


def test_a_correction_in_play_is_refused_other_actions_after_the_result_too(rig: Rig) -> None:
    rig.c.handle(SnapshotTaken(rig.stamp(), INITIAL))
    with pytest.raises(ActionRefused, match="in play: no result to correct"):
        rig.act(action="correct_result", result="0-1", text="why")
    rig.clock.advance(1)
    rig.c.handle(ButtonPressed(rig.stamp(), "resign", "white"))
    for action in ("start_clock", "stop_clock", "restore", "impose_count"):
        with pytest.raises(ActionRefused, match="no game in play"):
            rig.act(action=action)
    with pytest.raises(ActionRefused, match="no game in play"):
        rig.act(action="adjudicate", result="1/2-1/2")


def test_the_request_needs_a_result_and_a_reason() -> None:
    with pytest.raises(ValueError, match="correct_result needs \"result\""):
        check_arbiter_request({"action": "correct_result", "text": "why"})
    with pytest.raises(ValueError, match="correct_result needs \"text\", the reason"):
        check_arbiter_request({"action": "correct_result", "result": "0-1"})
    with pytest.raises(ValueError, match="only note takes \"public\""):
        check_arbiter_request({"action": "correct_result", "result": "0-1", "text": "x",
                               "public": True})
    got = check_arbiter_request({"action": "correct_result", "result": "0-1",
                                 "text": "line\none"})
    assert got == ArbiterRequest("correct_result", "0-1", "line one")


def test_a_game_over_before_a_restart_takes_a_correction_by_its_id(rig: Rig) -> None:
    game = rig.resigned_game()
    assert rig.c.session is not None
    rig.c.session.close()  # the daemon stops; a new one starts on the same state directory
    clock = FakeClock(10.0)
    started = json.loads(game.trace.read_text().splitlines()[0])["started_at"]
    from datetime import datetime
    wall = datetime.fromisoformat(started.replace("Z", "+00:00")).timestamp() + 3600.0
    again = BoardController(Config(), rig.state, GameTime(clock, epoch=0.0),
                            wall=lambda: wall)
    again.resume()
    assert again.phase == Phase.SETUP
    with pytest.raises(ActionRefused, match="no game in play"):  # which game: say it
        asyncio.run(again.act(ArbiterRequest("correct_result", "0-1", REASON)))
    fed = asyncio.run(again.act(ArbiterRequest("correct_result", "0-1", REASON, game=game.id)))
    assert fed.record["t"] == 3600.0  # its time: the wall clock since its start
    assert _marker(game) == "0-1" and json.loads(game.report.read_text())["result"] == "0-1"


def test_an_earlier_game_by_id_takes_a_note_and_a_correction(rig: Rig) -> None:
    first = rig.resigned_game()
    told: list[str] = []
    rig.c.reissued.append(told.append)
    rig.clock.advance(5)
    rig.c.handle(SnapshotTaken(rig.stamp(), INITIAL - {"d3"}))
    rig.c.handle(SnapshotTaken(rig.stamp(), INITIAL))  # set up again: the next game begins
    assert rig.c.session is not None and rig.c.session.game.id != first.id
    playing = rig.c.session.game
    in_play = playing.trace.read_bytes()
    fed = rig.act(action="correct_result", result="0-1", text=REASON, game=first.id)
    rig.act(action="note", text="the players were told", game=first.id)
    assert told == [first.id, first.id]
    lines = _lines(first)
    assert lines[-2] == fed.record and lines[-1]["text"] == "the players were told"
    assert _marker(first) == "0-1" and json.loads(first.report.read_text())["result"] == "0-1"
    assert playing.trace.read_bytes() == in_play  # the game in play is not touched
    assert rig.c.phase == Phase.PLAYING
    with pytest.raises(ActionRefused, match="no game 2099"):
        rig.act(action="note", text="x", game="20990101-000000-999")
    # a game not over, not the board's (a board that has not resumed it yet): refused
    other = BoardController(Config(), rig.state, rig.time, wall=lambda: None)
    with pytest.raises(ActionRefused, match="is not over yet"):
        asyncio.run(other.act(ArbiterRequest("note", None, "x", game=playing.id)))


@pytest.mark.parametrize("stop_after", ["line", "files"])
def test_a_stop_between_the_line_and_the_marker_is_put_right_at_the_next_start(
        rig: Rig, stop_after: str) -> None:
    """The order is line, files, marker: a stop after the line (or after the files) leaves
    the marker with the first result and older than the journal; the next start writes the
    files and the marker from the journal (the fault test kills -9 the daemon there)."""
    game = rig.resigned_game()
    first_pdn = game.pdn.read_bytes()
    # the marker was written at the end, a minute before the arbiter's correction (a file's
    # time moves by the kernel's tick: two writes a millisecond apart may share one)
    ended = game.finished_marker.stat().st_mtime - 60
    os.utime(game.finished_marker, (ended, ended))
    line = {"t": 70.0, "type": "arbiter", "action": "correct_result", "result": "0-1",
            "text": REASON}
    with open(game.trace, "a", encoding="utf-8") as f:
        f.write(json.dumps(line) + "\n")
    if stop_after == "files":
        report = replay_lines(game.trace.read_text().splitlines())
        game.write_pdn(report.pdn())
        game.write_report(report.to_json())
    assert _marker(game) == "1-0" and game.marker_stale()
    assert refresh_game_files(rig.state) == []
    assert _marker(game) == "0-1" and not game.marker_stale()
    assert game.pdn.read_bytes() != first_pdn
    assert json.loads(game.report.read_text())["result"] == "0-1"


def test_a_void_games_note_after_its_end_leaves_it_over_at_resume(rig: Rig) -> None:
    """docs/trace-format.md's ``end``: only an arbiter's note or correction may follow it (issue 37); a game
    whose journal ends so, its marker lost, is over at the next start, not resumed."""
    rig.c.handle(SnapshotTaken(rig.stamp(), INITIAL))
    session = rig.c.session
    assert session is not None
    session.journal_line({"type": "end"})
    session.finish("*")  # a game a pairing voided (pi.board.supersede)
    session.feed(ArbiterActed(session.last_t, "note", None, "the pairing was late"))
    session.close()
    game = session.game
    game.finished_marker.unlink()  # the stop came before the marker
    again = BoardController(Config(), rig.state, GameTime(FakeClock(5.0), epoch=0.0),
                            wall=lambda: None)
    assert "was over (*)" in again.resume()
    assert _marker(game) == "*" and _lines(game)[-1]["text"] == "the pairing was late"
