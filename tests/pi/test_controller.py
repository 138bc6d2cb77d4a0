"""The board controller without threads: set-up (IT 7.1, 7.2), a game, its end, the next game,
resume after a crash, sensor faults in the journal, and the screen it shows."""

from __future__ import annotations

import json
from gettext import NullTranslations
from pathlib import Path

import pytest

from engine.board import Board
from engine.colour import Colour
from engine.decisions import MoveCommitted
from engine.events import ArbiterActed, ButtonPressed, PieceLifted, PiecePlaced, SnapshotTaken
from engine.squares import square_mirror, square_sort_key
from hardware_mocks.clock import FakeClock
from pi.board.config import Config
from pi.board.controller import BoardController, Phase
from pi.drivers.display import DisplayState
from pi.drivers.faults import SensorFault, SensorFaultCleared
from engine.replay import Fed
from pi.board.session import GameSession
from pi.board.speech import phrases
from pi.board.statedir import StateDir
from pi.drivers.timebase import GameTime

INITIAL = Board(None, "italian").occupied_algebraic()


class Screen:
    def __init__(self) -> None:
        self.shown: list[DisplayState] = []

    def show(self, state: DisplayState) -> None:
        self.shown.append(state)


@pytest.fixture
def rig(tmp_path: Path):  # type: ignore[no-untyped-def]
    clock = FakeClock(1000.0)
    time = GameTime(clock, epoch=900.0)
    screen = Screen()
    beeps: list[str] = []
    published: list[Fed] = []
    with StateDir.open(tmp_path / "state") as state:
        c = BoardController(Config(time_control="600", white="Rossi", black="Bianchi"), state,
                            time, screen=screen, beep=beeps.append, wall=lambda: None,
                            listeners=[published.append])
        yield c, clock, time, screen, beeps, published, state


def _journal(c: BoardController) -> list[dict[str, object]]:
    assert c.session is not None
    return [json.loads(x) for x in c.session.game.trace.read_text().splitlines()]


def _stamp(time: GameTime) -> float:
    return time.stamp()


def test_set_up_lists_the_squares_to_put_right_then_begins(rig) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, screen, _, published, _ = rig
    c.handle(SnapshotTaken(_stamp(time), INITIAL - {"a6"} | {"b5"}))
    assert c.phase == Phase.SETUP
    assert screen.shown[-1].message == "set up: +9 -13"  # IT 7.1, the variant's numbers (IT 2.4)
    clock.advance(3.0)
    c.handle([PieceLifted(_stamp(time), "b5"), PiecePlaced(_stamp(time), "a6")])
    assert c.phase == Phase.PLAYING
    lines = _journal(c)
    assert lines[0]["type"] == "start" and lines[0]["white"] == "Rossi"
    assert lines[1] == {"t": 0.0, "type": "snapshot",
                        "occupied": sorted(INITIAL, key=square_sort_key)}
    assert [f.line for f in published] == [1, 2]


def test_a_board_turned_the_wrong_way_is_said(rig) -> None:  # type: ignore[no-untyped-def]
    c, _, time, screen, _, _, _ = rig
    mirrored = frozenset(square_mirror(s, 8) for s in INITIAL)
    c.handle(SnapshotTaken(_stamp(time), mirrored))
    assert c.phase == Phase.SETUP
    assert screen.shown[-1].message == "IT 7.2 board turned the wrong way"


def _play_opening(c: BoardController, clock: FakeClock, time: GameTime) -> None:
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    clock.advance(1.0)
    c.handle(PieceLifted(_stamp(time), "d3"))
    clock.advance(0.4)
    c.handle(PiecePlaced(_stamp(time), "c4"))
    clock.advance(0.6)
    c.handle(ButtonPressed(_stamp(time), "clock", "white"))


def test_a_move_is_journaled_shown_and_published(rig) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, screen, _, published, _ = rig
    _play_opening(c, clock, time)
    assert [x["type"] for x in _journal(c)] == ["start", "snapshot", "lift", "place", "button"]
    assert _journal(c)[-1]["t"] == 2.0
    last = screen.shown[-1]
    assert last.last_move == "22-18" and last.side_to_move == "black"
    assert last.clock is not None
    moves = [d for f in published for d in f.decisions if type(d).__name__ == "MoveCommitted"]
    assert len(moves) == 1 and published[-1].line == 5


def test_an_irregularity_prompts_the_opponent_and_beeps(rig) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, screen, beeps, _, _ = rig
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    clock.advance(1.0)
    c.handle(PieceLifted(_stamp(time), "d3"))  # touched 22 ...
    c.handle(PiecePlaced(_stamp(time), "d3"))
    c.handle(PieceLifted(_stamp(time), "b3"))  # ... moved 21: IT 8.1.3
    c.handle(PiecePlaced(_stamp(time), "a4"))
    clock.advance(0.5)
    c.handle(ButtonPressed(_stamp(time), "clock", "white"))
    assert "IT 8.1.3" in screen.shown[-1].message
    assert screen.shown[-1].message.endswith("black: correct or accept")
    assert "flag" in beeps


def test_two_irregularities_in_one_move_one_prompt_one_beep(tmp_path: Path) -> None:
    """IT 8.1.3 and IT 8.1.6 in one move (24 touched, 22 moved while a capture was due): two
    flags in the journal's report, one decision asked (IT 8.4) — one prompt, one beep."""
    clock = FakeClock(1000.0)
    time = GameTime(clock, epoch=900.0)
    screen = Screen()
    beeps: list[str] = []
    with StateDir.open(tmp_path / "state") as state:
        c = BoardController(Config(fen="W:W22,24:B18,20,1"), state, time, screen=screen,
                            beep=beeps.append, wall=lambda: None)
        c.handle(SnapshotTaken(_stamp(time), frozenset({"d3", "h3", "c4", "g4", "a8"})))
        clock.advance(1.0)
        for item in (PieceLifted(_stamp(time), "h3"), PiecePlaced(_stamp(time), "h3"),
                     PieceLifted(_stamp(time), "d3"), PiecePlaced(_stamp(time), "e4")):
            c.handle(item)
        clock.advance(0.5)
        c.handle(ButtonPressed(_stamp(time), "clock", "white"))
        assert c.session is not None
        assert [(f.code, f.status) for f in c.session.arbiter.flags] == [
            ("IT 8.1.3", "pending"), ("IT 8.1.6", "pending")]
        assert screen.shown[-1].message == ("IT 8.1.3 touched 24, moved 22; black: correct or "
                                            "accept")
        assert beeps == ["flag"]
        c.stop()


def test_time_alone_flags_and_ends_the_game(rig) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, screen, beeps, published, _ = rig
    _play_opening(c, clock, time)
    deadline = c.next_deadline()
    assert deadline == pytest.approx(clock() + 600.0)
    clock.jump_to(deadline)
    c.tick()
    assert c.phase == Phase.OVER
    assert _journal(c)[-1] == {"t": 602.0, "type": "end"}
    assert published[-1].record["type"] == "end"
    assert screen.shown[-1].message.startswith("1-0")
    assert "long" in beeps  # the clock's zero (COMP 3.6.2 i)


def test_a_forgotten_press_is_pointed_out_by_nobody(rig) -> None:  # type: ignore[no-untyped-def]
    """COMP 4.6: White moves and forgets to press; his face runs on while Black thinks on it.
    Nothing reminds him (no beep, no prompt on the screen, no voice); when Black lifts his piece
    White's move is a move, recorded, and Black's move after it."""
    c, clock, time, screen, beeps, published, _ = rig
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    clock.advance(1.0)
    c.handle(PieceLifted(_stamp(time), "d3"))
    c.handle(PiecePlaced(_stamp(time), "c4"))  # 22-18, the clock not pressed
    for _ in range(3):
        clock.advance(10.0)
        c.refresh()
        deadline = c.next_deadline()
        if deadline is not None and clock() >= deadline:
            c.tick()
    assert screen.shown[-1].message == "" and beeps == []
    assert screen.shown[-1].side_to_move == "white"
    c.handle(PieceLifted(_stamp(time), "e6"))  # Black moves on: White's move stands
    assert c.session is not None and [m.notation for m in c.session.arbiter.game.moves] == ["22-18"]
    c.handle(PiecePlaced(_stamp(time), "f5"))
    clock.advance(1.0)
    c.handle(ButtonPressed(_stamp(time), "clock", "black"))
    game = c.session.arbiter.game
    assert [m.notation for m in game.moves] == ["22-18", "11-15"]
    assert c.session.arbiter.flags == []
    assert screen.shown[-1].message == "" and beeps == []
    reading = screen.shown[-1].clock
    assert reading is not None and reading.running is Colour.WHITE  # his face runs on
    decisions = [d for f in published for d in f.decisions]
    committed = [d for d in decisions if isinstance(d, MoveCommitted)]
    assert [d.article for d in committed] == ["COMP 4.6", "COMP 4.5"]
    said = [p.text for p in phrases(decisions, NullTranslations())]
    assert said == ["11 15"]  # White's move is not said: it would point the press out


def test_a_forgotten_press_after_a_capture_is_pointed_out_by_nobody(tmp_path: Path) -> None:
    """COMP 4.6 after a capture: White takes 22x13 and forgets to press. Black's lift alone
    decides nothing (it may be White's hand taking off a piece too many, IT 8.1.12); put down as
    5-9, a legal move of Black's, it makes White's capture a move. No beep, no prompt, no voice
    at any step; White's face runs on."""
    alg = Board(None, "italian").variant.geometry.algebraic_of
    clock = FakeClock(1000.0)
    time = GameTime(clock, epoch=900.0)
    screen = Screen()
    beeps: list[str] = []
    published: list[Fed] = []
    with StateDir.open(tmp_path / "state") as state:
        c = BoardController(Config(time_control="600", fen="W:W22,24,31:B18,1,5"), state, time,
                            screen=screen, beep=beeps.append, wall=lambda: None,
                            listeners=[published.append])
        c.handle(SnapshotTaken(_stamp(time), frozenset(alg[n] for n in (22, 24, 31, 18, 1, 5))))
        for lifted, placed in ((22, 13), (18, None)):  # 22x13, the clock not pressed
            clock.advance(0.5)
            c.handle(PieceLifted(_stamp(time), alg[lifted]))
            if placed is not None:
                c.handle(PiecePlaced(_stamp(time), alg[placed]))
        for _ in range(3):
            clock.advance(10.0)
            c.refresh()
            deadline = c.next_deadline()
            if deadline is not None and clock() >= deadline:
                c.tick()
        assert c.session is not None
        arbiter = c.session.arbiter
        c.handle(PieceLifted(_stamp(time), alg[5]))
        assert [m.notation for m in arbiter.game.moves] == []  # judged at the place
        assert screen.shown[-1].message == "" and beeps == []
        clock.advance(1.0)
        c.handle(PiecePlaced(_stamp(time), alg[9]))
        assert [m.notation for m in arbiter.game.moves] == ["22x13"]
        clock.advance(1.0)
        c.handle(ButtonPressed(_stamp(time), "clock", "black"))
        assert [m.notation for m in arbiter.game.moves] == ["22x13", "5-9"]
        assert arbiter.flags == []
        assert screen.shown[-1].message == "" and beeps == []
        reading = screen.shown[-1].clock
        assert reading is not None and reading.running is Colour.WHITE  # his face runs on
        decisions = [d for f in published for d in f.decisions]
        committed = [d for d in decisions if isinstance(d, MoveCommitted)]
        assert [d.article for d in committed] == ["COMP 4.6", "COMP 4.5"]
        assert [p.text for p in phrases(decisions, NullTranslations())] == ["5 9"]
        c.stop()


def test_the_next_game_begins_once_the_board_is_set_up_again(rig) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, _, _, _, state = rig
    _play_opening(c, clock, time)
    c.handle(ButtonPressed(_stamp(time), "resign", "black"))
    first = c.session.game.id
    assert c.phase == Phase.OVER and c.session.game.is_finished()
    # pieces taken off, then set up again
    clock.advance(10)
    c.handle(SnapshotTaken(_stamp(time), frozenset()))
    assert c.phase == Phase.OVER
    clock.advance(30)
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    assert c.phase == Phase.PLAYING and c.session.game.id != first
    assert _journal(c)[1]["t"] == 0.0
    assert len(state.game_ids()) == 2


def test_sensor_faults_reach_the_journal_and_the_screen(rig) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, screen, _, _, _ = rig
    _play_opening(c, clock, time)
    clock.advance(1)
    c.handle(SensorFault(_stamp(time), 0x21, ("c3", "e3"), "no answer"))
    assert screen.shown[-1].message.startswith("sensor fault: 0x21, squares c3 e3")
    clock.advance(2)
    c.handle([SensorFaultCleared(_stamp(time), 0x21, ("c3", "e3"), "no answer"),
              SnapshotTaken(_stamp(time), c.occupied)])
    types = [x["type"] for x in _journal(c)]
    assert types[-3:] == ["fault", "fault_cleared", "snapshot"]
    assert _journal(c)[-3]["message"] == "sensor fault: 0x21, squares c3 e3"
    assert not c.faults


def test_resume_after_a_crash(rig, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, _, _, _, state = rig
    _play_opening(c, clock, time)
    game = c.session.game.id
    c.session.close()  # the process dies here; a new one starts on the same state directory
    clock2 = FakeClock(50.0)
    again = BoardController(Config(time_control="600"), state, GameTime(clock2, epoch=0.0),
                            wall=lambda: None)
    status = again.resume()
    assert again.phase == Phase.PLAYING and again.session.game.id == game
    assert "resumed at move 2" in status
    assert _journal(again)[-1] == {"t": 2.0, "type": "restart", "down": None}
    clock2.advance(1.5)
    after_move = (INITIAL - {"d3"}) | {"c4"}
    again.handle(SnapshotTaken(again.time.stamp(), after_move))  # the board is as it was
    assert _journal(again)[-1]["t"] == 3.5
    clock2.advance(1)
    again.handle(ArbiterActed(clock2(), "start_clock"))
    assert again.session.arbiter.clock.running is not None


def test_a_damaged_journal_is_abandoned_and_a_new_game_begins(rig) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, _, _, _, state = rig
    _play_opening(c, clock, time)
    old = c.session.game
    c.session.close()
    old.trace.write_bytes(old.trace.read_bytes().replace(b'"type": "lift"', b'"type": lift', 1))
    again = BoardController(Config(), state, time, wall=lambda: None)
    status = again.resume()
    assert "journal damaged" in status and again.phase == Phase.SETUP
    assert old.finished_info()["abandoned"]
    again.handle(SnapshotTaken(time.stamp(), INITIAL))
    assert again.phase == Phase.PLAYING and again.session.game.id != old.id


def test_auto_orientation_is_asked_once_per_arrangement(tmp_path: Path) -> None:
    asked: list[frozenset[str]] = []
    clock = FakeClock(10.0)
    time = GameTime(clock, epoch=0.0)
    with StateDir.open(tmp_path / "s") as state:
        c = BoardController(Config(), state, time, orient=asked.append, wall=lambda: None)
        turned = frozenset(square_mirror(s, 8) for s in INITIAL)
        c.handle(SnapshotTaken(time.stamp(), turned))
        c.handle(SnapshotTaken(time.stamp(), turned))  # nothing moved: not asked again
        assert asked == [INITIAL] and c.phase == Phase.SETUP
        c.handle(SnapshotTaken(time.stamp(), INITIAL))  # the sensors turned: the game begins
        assert c.phase == Phase.PLAYING


def test_a_game_from_the_configs_fen(tmp_path: Path) -> None:
    fen = "W:W21,22:B5"
    clock = FakeClock(10.0)
    time = GameTime(clock, epoch=0.0)
    with StateDir.open(tmp_path / "s") as state:
        c = BoardController(Config(fen=fen), state, time, wall=lambda: None)
        c.handle(SnapshotTaken(time.stamp(), INITIAL))
        assert c.phase == Phase.SETUP
        c.handle(SnapshotTaken(time.stamp(), Board(fen, "italian").occupied_algebraic()))
        assert c.phase == Phase.PLAYING
        assert _journal(c)[0]["fen"] == fen


# ---------------------------------------------------------------------- the writes: act, set_pairing


def test_an_action_is_answered_with_its_own_line_not_another_of_the_same_content(rig) -> None:  # type: ignore[no-untyped-def]
    """Another source (a serial command, a trace) journals the very same action first: each
    ``act`` is answered with the line its own input became (no matching by content)."""
    import asyncio

    from pi.board.arbiter_request import ArbiterRequest
    c, clock, time, _, _, _, _ = rig
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    queued: list[object] = []
    c.submit = queued.append  # the daemon's queue, emptied by hand

    async def scenario() -> tuple[Fed, Fed]:
        first = asyncio.ensure_future(c.act(ArbiterRequest("note", None, "same")))
        second = asyncio.ensure_future(c.act(ArbiterRequest("note", None, "same")))
        await asyncio.sleep(0)  # both acts ran up to their wait: their inputs are queued
        assert len(queued) == 2 and not first.done()
        c.handle(ArbiterActed(_stamp(time), "note", None, "same"))  # the other source's, first
        c.handle(queued.pop(1))  # then the second act's, then the first's
        c.handle(queued.pop(0))
        return await first, await second

    one, two = asyncio.run(scenario())
    lines = _journal(c)
    assert [x.get("text") for x in lines[-3:]] == ["same", "same", "same"]
    assert (one.line, two.line) == (len(lines), len(lines) - 1)
    assert one.record == lines[-1] and two.record == lines[-2]


def test_an_action_without_a_game_is_refused_then_and_when_its_turn_comes(rig) -> None:  # type: ignore[no-untyped-def]
    """``no game in play`` (API.md's 409, PROTOCOL.md's refusal): before a game, and for an
    action queued while the game ended (answered at once, not left to time out); a note is
    the game's still (issue 37: notes after the result, COMP 6.16)."""
    import asyncio

    from pi.board.arbiter_request import ArbiterRequest
    from pi.board.errors import ActionRefused
    c, clock, time, _, _, _, _ = rig
    with pytest.raises(ActionRefused, match="no game in play"):
        asyncio.run(c.act(ArbiterRequest("start_clock")))
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    queued: list[object] = []
    c.submit = queued.append

    async def scenario() -> None:
        late = asyncio.ensure_future(c.act(ArbiterRequest("stop_clock")))
        note = asyncio.ensure_future(c.act(ArbiterRequest("note", None, "after the end")))
        await asyncio.sleep(0)
        c.handle(ButtonPressed(_stamp(time), "resign", "white"))
        assert c.phase == Phase.OVER
        c.handle(queued.pop(0))
        with pytest.raises(ActionRefused, match="no game in play"):
            await asyncio.wait_for(late, 1.0)
        c.handle(queued.pop(0))
        assert (await asyncio.wait_for(note, 1.0)).record["text"] == "after the end"

    asyncio.run(scenario())
    assert _journal(c)[-1].get("text") == "after the end"  # after the resignation's line
    assert all(x.get("action") != "stop_clock" for x in _journal(c))


def test_an_action_not_handled_in_time_is_late(rig, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The 10 s of PROTOCOL.md's ``the board did not journal the action in time``: one timer,
    the controller's, for the web and the hall alike."""
    import asyncio

    import pi.board.controller as controller_module
    from pi.board.arbiter_request import ArbiterRequest
    from pi.board.errors import ActionLate
    c, clock, time, _, _, _, _ = rig
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    c.submit = lambda item: None  # never handled
    monkeypatch.setattr(controller_module, "ACT_TIMEOUT", 0.05)
    with pytest.raises(ActionLate, match="did not journal the action in time"):
        asyncio.run(c.act(ArbiterRequest("start_clock")))


def test_the_halls_trouble_is_on_the_header_instead_of_the_banner(rig) -> None:  # type: ignore[no-untyped-def]
    """Issue 38: a broker certificate the board refuses is on its screen (the header, while no
    game is in play), not only in its log; linked again, the banner is back."""
    c, _, _, screen, _, _, _ = rig
    c.set_pairing({"round": "3", "white": "Ann"}, "r3 Ann - ?")
    c.set_hall_trouble("hall: certificate refused")
    assert screen.shown[-1].title == "hall: certificate refused"
    c.set_hall_trouble("")
    assert screen.shown[-1].title == "r3 Ann - ?"


def test_a_pairing_goes_into_the_next_games_start_line_and_the_header(rig) -> None:  # type: ignore[no-untyped-def]
    c, clock, time, screen, _, _, _ = rig
    c.set_pairing({"round": "3", "white": "Ann", "black": None}, "r3 Ann - ?")
    assert screen.shown[-1].title == "r3 Ann - ?"
    with pytest.raises(ValueError, match="not a pairing field: site"):
        c.set_pairing({"site": "Roma"}, "")
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    start = _journal(c)[0]
    assert (start["round"], start["white"], start.get("black")) == ("3", "Ann", None)


# ---------------------------------------------------------------------- write-behind (the daemon)

class Stall:
    """The journal's fsync held until :meth:`release` (a disk stalling): posted inputs are
    collected as the daemon's bridge would carry them to the loop."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import os
        import threading
        self.real = os.fsync
        self.gate = threading.Event()
        self.gate.set()
        self.posted: list[object] = []
        self.arrived = threading.Condition()
        monkeypatch.setattr(os, "fsync", self.fsync)

    def fsync(self, fd: int) -> None:
        assert self.gate.wait(10)
        self.real(fd)

    def post(self, item: object) -> None:
        with self.arrived:
            self.posted.append(item)
            self.arrived.notify_all()

    def hold(self) -> None:
        self.gate.clear()

    def release(self) -> None:
        self.gate.set()

    def deliver(self, c: BoardController) -> None:
        """Waits until every journaled line is durable, then hands the posts to ``c``."""
        assert c.session is not None
        with self.arrived:
            assert self.arrived.wait_for(lambda: c.session is not None and
                                         c.session.durable_line == c.session.journal.line_count,
                                         10)
        while self.posted:
            c.handle(self.posted.pop(0))  # type: ignore[arg-type]


def test_write_behind_shows_at_once_and_publishes_once_durable(rig, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The disk stalls during a move: the screen shows it at once (the issue allows the OLED's
    early show); the listeners get its lines only once they are durable, in order."""
    c, clock, time, screen, _, published, _ = rig
    stall = Stall(monkeypatch)
    c.post = stall.post
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    stall.deliver(c)
    assert [f.line for f in published] == [1, 2]
    stall.hold()
    clock.advance(1.0)
    c.handle(PieceLifted(_stamp(time), "d3"))
    clock.advance(0.4)
    c.handle(PiecePlaced(_stamp(time), "c4"))
    clock.advance(0.6)
    c.handle(ButtonPressed(_stamp(time), "clock", "white"))
    assert screen.shown[-1].last_move == "22-18"  # shown, its lines not on disk
    assert [f.line for f in published] == [1, 2]  # nothing has left the board
    assert c.session is not None and c.session.journal.line_count == 5
    assert c.session.line == c.session.durable_line < 5  # what the web and the hall may read
    stall.release()
    stall.deliver(c)
    assert [f.line for f in published] == [1, 2, 3, 4, 5]
    assert [x["type"] for x in _journal(c)] == ["start", "snapshot", "lift", "place", "button"]


def test_write_behind_answers_an_action_once_durable(rig, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    from pi.board.arbiter_request import ArbiterRequest
    c, clock, time, _, _, _, _ = rig
    stall = Stall(monkeypatch)
    c.post = stall.post
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    stall.deliver(c)
    queued: list[object] = []
    c.submit = queued.append

    async def scenario() -> Fed:
        asking = asyncio.ensure_future(c.act(ArbiterRequest("note", None, "held")))
        await asyncio.sleep(0)
        stall.hold()
        c.handle(queued.pop())  # type: ignore[arg-type]
        await asyncio.sleep(0.05)
        assert not asking.done()  # journaled, not durable: no answer yet
        stall.release()
        stall.deliver(c)
        return await asyncio.wait_for(asking, 5)

    fed = asyncio.run(scenario())
    assert fed.line == 3 and _journal(c)[2]["text"] == "held"


def test_write_behind_a_failed_journal_stops_the_board(rig, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A failed fsync: the lines after the last durable one are lost; what they caused never
    leaves the board and ``handle`` raises (the daemon stops and resumes from the disk)."""
    import errno
    import os

    from pi.board.controller import JournalFailed
    from pi.board.errors import JournalWriteError
    c, clock, time, _, _, published, _ = rig
    stall = Stall(monkeypatch)
    c.post = stall.post
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    stall.deliver(c)

    def failing(fd: int) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", failing)
    clock.advance(1.0)
    c.handle(PieceLifted(_stamp(time), "d3"))
    with stall.arrived:
        assert stall.arrived.wait_for(lambda: any(isinstance(p, JournalFailed)
                                                  for p in stall.posted), 10)
    with pytest.raises(JournalWriteError, match=r"lines 3-3 .*NOT recorded.*\[EIO\]"):
        for item in list(stall.posted):
            c.handle(item)  # type: ignore[arg-type]
    monkeypatch.setattr(os, "fsync", stall.real)
    c.stop()
    assert [f.line for f in published] == [1, 2]  # line 3 never left the board


def test_write_behind_a_game_begins_without_waiting_for_the_disk(
        rig, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Issue 19: the loop never waits for the disk, at a game's beginning either. With every
    fsync held, the set-up that begins the game returns at once (before: the folder's, the
    journal's and the files' ten fsyncs on the loop), the screen shows the game; nothing of it
    leaves the board — the listeners, the readers' game and phase — until its start line is
    durable. Then the journal, the folders and ``game.pdn``/``report.json`` are on disk."""
    import time as wall

    c, clock, time, screen, _, published, state = rig
    stall = Stall(monkeypatch)
    c.post = stall.post
    stall.hold()
    began = wall.perf_counter()
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    took = wall.perf_counter() - began
    assert took < 1.0, f"the loop waited {took:.3f} s for the disk"  # a held fsync: 10 s
    assert screen.shown[-1].move_number == 1 and screen.shown[-1].side_to_move == "white"
    assert c.session is not None and c.session.line == 0
    assert (c.phase, c.game, published) == (Phase.SETUP, None, [])  # nothing out yet
    stall.release()
    stall.deliver(c)
    assert c.phase == Phase.PLAYING and c.game is not None and c.game.id == c.session.id
    assert [f.line for f in published] == [1, 2]
    c.session.flush()
    game = c.session.game
    assert [x["type"] for x in _journal(c)] == ["start", "snapshot"]
    assert game.pdn.is_file() and json.loads(game.report.read_text())["result"] == "*"
    assert state.unfinished() == game


def _game_over_behind(c: BoardController, time: GameTime, stall: Stall) -> GameSession:
    """With write-behind (``stall``'s posts): a game begun, resigned by white, every line
    durable and handed out. Returns its session."""
    c.post = stall.post
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    stall.deliver(c)
    c.handle(ButtonPressed(_stamp(time), "resign", "white"))
    stall.deliver(c)
    assert c.session is not None
    return c.session


def test_write_behind_the_game_before_stays_the_readers_until_the_new_one_is_out(
        rig, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """A game over, the pieces set up again with the disk held: the readers (the web, the hall)
    still see the game over, in its phase, until the new game's start line is durable."""
    c, clock, time, _, _, published, _ = rig
    stall = Stall(monkeypatch)
    session = _game_over_behind(c, time, stall)
    session.flush()
    over = session.id
    clock.advance(10)
    c.handle(SnapshotTaken(_stamp(time), frozenset()))
    stall.hold()
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    assert c.session.id != over
    assert c.phase == Phase.OVER and c.game is not None and c.game.id == over
    assert c.game.arbiter.game.result == "0-1"
    stall.release()
    stall.deliver(c)
    assert c.phase == Phase.PLAYING and c.game is not None and c.game.id == c.session.id
    assert [(f.record.get("type"), f.line) for f in published[-2:]] == [("start", 1),
                                                                        ("snapshot", 2)]


def test_write_behind_a_game_end_writes_its_record_and_marker_off_the_loop(
        rig, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The game's last line durable, its record and ``finished`` marker follow on the files'
    thread (six fsyncs the loop no longer waits for); the marker after the record, and the
    session is :attr:`finished` once it is on disk."""
    import time as wall

    c, clock, time, _, _, _, _ = rig
    stall = Stall(monkeypatch)
    c.post = stall.post
    _play_opening(c, clock, time)
    stall.deliver(c)
    c.handle(ButtonPressed(_stamp(time), "resign", "black"))
    assert c.session is not None
    session = c.session
    with stall.arrived:  # the end line durable, its news posted
        assert stall.arrived.wait_for(lambda: session.durable_line == session.journal.line_count,
                                      10)
    stall.hold()
    began = wall.perf_counter()
    while stall.posted:
        c.handle(stall.posted.pop(0))  # type: ignore[arg-type]
    took = wall.perf_counter() - began
    assert took < 1.0, f"the loop waited {took:.3f} s for the disk"
    assert c.phase == Phase.OVER and not session.game.is_finished() and not session.finished
    stall.release()
    session.flush()
    assert session.game.finished_info() == {"result": "1-0"} and session.finished
    assert json.loads(session.game.report.read_text())["result"] == "1-0"
    assert "1-0" in session.game.pdn.read_text()


def test_write_behind_a_start_line_that_fails_leaves_no_game_and_stops_the_board(
        rig, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The disk fails at the new game's first fsync (on the writer thread): its folder is
    removed (no unfinished game without a start line blocks the next one), nothing of it left
    the board, and the board stops (the daemon resumes from the disk)."""
    import errno
    import os

    from pi.board.controller import JournalFailed
    from pi.board.errors import JournalWriteError
    c, clock, time, _, _, published, state = rig
    stall = Stall(monkeypatch)
    c.post = stall.post

    def failing(fd: int) -> None:
        assert stall.gate.wait(10)  # failing once the set-up's input is handled (no race)
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "fsync", failing)
    stall.hold()
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    stall.release()
    with stall.arrived:
        assert stall.arrived.wait_for(lambda: any(isinstance(p, JournalFailed)
                                                  for p in stall.posted), 10)
    assert state.game_dirs() == [] and state.unfinished() is None
    with pytest.raises(JournalWriteError, match=r"lines 1-.*NOT recorded.*\[EIO\]"):
        for item in list(stall.posted):
            c.handle(item)  # type: ignore[arg-type]
    monkeypatch.setattr(os, "fsync", stall.real)
    c.stop()
    assert published == [] and c.game is None


def test_a_stop_while_the_game_before_was_being_closed_finishes_it_at_the_next_start(
        rig, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    """The daemon closes a game over behind the next one (its record and marker on a thread of
    their own, the next game begun meanwhile). Killed before that marker is written, the next
    start resumes the newer game and marks the older one finished, with the result its
    journal gives, its files rewritten — no game left unfinished for ever."""

    c, clock, time, _, _, _, state = rig
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    c.handle(ButtonPressed(_stamp(time), "resign", "white"))
    assert c.session is not None and c.session.finished
    over = c.session.game
    c.stop()
    over.finished_marker.unlink()  # the kill came before the closing thread wrote it
    over.report.unlink()
    newer = GameSession.begin(state, c.config.start_line(), closing=[over.id])
    newer.close()
    again = BoardController(Config(time_control="600"), state, time, wall=lambda: None)
    said = again.resume()
    assert again.session is not None and again.session.id == newer.id, said
    assert over.finished_info() == {"result": "0-1"}
    assert json.loads(over.report.read_text())["result"] == "0-1"
    assert f"game {over.id} was being closed when the daemon stopped" in caplog.text
    again.stop()


def test_a_stop_before_the_start_line_was_durable_leaves_no_game(
        rig, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    """Killed between a game's beginning and its start line's fsync (the journal's writer
    thread has it): nothing of the game left the board, so the next start removes its folder
    quietly — not "journal damaged", no abandoned game in the list — and the next set-up
    begins the game anew."""
    import logging


    c, clock, time, screen, _, _, state = rig
    begun = GameSession.begin(state, c.config.start_line(), defer=True)  # never written
    begun.journal.close()  # the kill: its start line never written
    assert begun.game.trace.read_bytes() == b""
    caplog.set_level(logging.INFO)
    said = c.resume()
    assert said == "waiting for the pieces to be set up"
    assert state.game_dirs() == [] and "never began" in caplog.text
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    assert c.phase == Phase.PLAYING and c.session is not None and c.session.game.seq == 1
    assert "damaged" not in screen.shown[-1].message


def test_write_behind_a_begin_that_fails_is_tried_again_and_closes_the_game_before_once(
        rig, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The new game's folder cannot be made (a full disk): the set-up is logged and the board
    goes on; the next sensor event tries again. The game before is closed once, on its own
    thread, and marked finished; the next game begins once the folder can be made."""
    from pi.board.statedir import StateDirError

    c, clock, time, _, _, _, state = rig
    stall = Stall(monkeypatch)
    over = _game_over_behind(c, time, stall)
    c.handle(SnapshotTaken(_stamp(time), frozenset()))
    closes: list[str] = []
    real_close = GameSession.close_behind
    monkeypatch.setattr(GameSession, "close_behind",
                        lambda self, done: (closes.append(self.id), real_close(self, done))[1])
    real_begin = GameSession.begin.__func__  # type: ignore[attr-defined]
    failures = [StateDirError("games: cannot create the game folder: No space left on device")]

    def begin(cls, *a, **kw):  # type: ignore[no-untyped-def]
        if failures:
            raise failures.pop()
        return real_begin(cls, *a, **kw)

    monkeypatch.setattr(GameSession, "begin", classmethod(begin))
    c.handle(SnapshotTaken(_stamp(time), INITIAL))  # logged, the board goes on
    assert c.session is over
    c.handle(SnapshotTaken(_stamp(time), INITIAL))  # tried again
    stall.deliver(c)
    assert c.session is not over and c.phase == Phase.PLAYING
    assert closes == [over.id]
    c.stop()
    assert over.game.finished_info() == {"result": "0-1"}


def test_write_behind_the_next_start_line_waits_for_the_game_befores_last_lines(
        rig, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """The disk stalls on the resignation's line; the players take the pieces off and set them
    up again (the loop does not wait: the next game begins on the screen). The next game's start
    line is not written before the game before's last line is on disk: killed in between, the
    next start finds the game before as its journal has it (resumed: its result never reached
    the disk, never left the board) and no trace of the next — the games' lines reach the disk
    in the order they were played, as when the loop waited for them."""
    import errno
    import os
    import threading
    import time as wall

    c, clock, time, _, _, _, state = rig
    stall = Stall(monkeypatch)
    c.post = stall.post
    c.handle(SnapshotTaken(_stamp(time), INITIAL))
    stall.deliver(c)
    assert c.session is not None
    first = c.session.game
    held, killed = threading.Event(), threading.Event()
    real_write = os.write

    def write(fd: int, data: bytes) -> int:  # the first game's journal writer: no answer
        if held.is_set() and threading.current_thread().name == "journal" \
                and os.readlink(f"/proc/self/fd/{fd}") == str(first.trace):
            assert killed.wait(10)
            raise OSError(errno.EIO, os.strerror(errno.EIO))  # the process is gone
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)
    held.set()
    c.handle(ButtonPressed(_stamp(time), "resign", "white"))
    c.handle(SnapshotTaken(_stamp(time), frozenset()))
    c.handle(SnapshotTaken(_stamp(time), INITIAL))  # the next game, begun on the loop
    second = c.session.game
    assert second != first and c.phase == Phase.OVER  # the readers: still the game before
    wall.sleep(0.3)
    assert second.trace.read_bytes() == b""  # its start line waits for the game before's end
    # the kill: a new controller on the same state directory
    again = BoardController(Config(time_control="600"), state, time, wall=lambda: None)
    said = again.resume()
    assert again.session is not None and again.session.game == first, said
    assert [g.id for g in state.game_dirs()] == [first.id] and not first.is_finished()
    killed.set()  # the old process's threads end (their writes fail)
    again.stop()
