"""``damiera run --simulate --trace T --speed max``: the daemon on the simulated board acts out
every scenario trace; the journal it leaves replays to the same moves, flags and result as the
trace itself (``damiera replay --json``).

Compared: moves by notation and side, flags by code and status, the result. Not compared: the
times. The journal's ``t`` is what the daemon's sensors stamped: the same as the trace's except
where two physical events of the trace are closer than the sensors' debounce (30 ms), which the
simulator spaces by it so that the sensors see both; and the clock readings follow from those.
Where the daemon differs from a trace by design, the test says exactly how: a wrong set-up is
checked before the game begins, not judged in it (``SET_UP_FLAGS``).
"""

from __future__ import annotations

import contextlib
import glob
import io
import json
import logging
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from hardware_mocks.simulate import SimulateError, config_from_start, main as simulate, \
    parse_speed
from pi.cli import main as cli
from engine.trace import parse_trace
from pi.board.config import Config, parse_config
from pi.drivers.wiring import example_wiring

pytestmark = pytest.mark.heavy  # damiera run --simulate in subprocesses: run first (tests/conftest.py)

ROOT = Path(__file__).resolve().parents[2]
TRACES = ROOT / "tests" / "traces"


def _pending() -> set[str]:
    out = set()
    for line in (TRACES / "PENDING.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.add(line)
    return out


def _knows_pieces(path: str) -> bool:
    """The trace is a board's that knows which piece is where (issue 40: ``piece`` keys, the
    ``piece`` line, a snapshot's ``pieces``)."""
    with open(path, encoding="utf-8") as f:
        return any("piece" in json.loads(line) or '"pieces"' in line for line in f if line.strip())


PENDING = _pending()
#: Acted out on the simulated board, which senses occupancy only: a trace of a board that knows
#: the pieces is acted out by the simulated analog board (issue 40's hardware half), not here.
SCENARIOS = sorted(p for p in glob.glob(str(TRACES / "*" / "*.jsonl"))
                   if str(Path(p).relative_to(TRACES))[:-6] not in PENDING
                   and not _knows_pieces(p))

#: Scenario traces whose first snapshot is a wrong set-up, put right before the first move
#: (IT 7.1 / EN 7.1 / INT 5.2 / BR 5.2: pieces missing; IT 7.2 / EN 7.2 / INT 5.1 / BR 5.1: the
#: board turned the wrong way). Replaying the trace, the arbiter judges that snapshot in the game:
#: the set-up flag and the disturbance it is (IT 7.8 / EN 7.8 / INT 5.5 / BR 5.5), both corrected
#: at the snapshot's ``t``, before anything else. The daemon checks the set-up before a game
#: begins (its set-up screen; nothing is journaled) and begins once the board is right: its
#: journal has neither flag. Everything else is equal.
SET_UP_FLAGS = {
    "brazilian/art_setup_checked": [("BR 5.2", "corrected"), ("BR 5.5", "corrected")],
    "english/art_setup_checked": [("EN 7.1", "corrected"), ("EN 7.8", "corrected")],
    "international/art_setup_checked_5_2": [("INT 5.2", "corrected"), ("INT 5.5", "corrected")],
    "italian/setup_checked": [("IT 7.1", "corrected"), ("IT 7.8", "corrected")],
    "brazilian/art_board_turned_7_2": [("BR 5.1", "corrected"), ("BR 5.5", "corrected")],
    "english/art_board_turned_7_2": [("EN 7.2", "corrected"), ("EN 7.8", "corrected")],
    "international/art_board_turned_5_1": [("INT 5.1", "corrected"), ("INT 5.5", "corrected")],
    "italian/art_board_turned_7_2": [("IT 7.2", "corrected"), ("IT 7.8", "corrected")],
    # issue 40: a man of the wrong colour on the right square, on a board that knows the pieces
    # (acted out by the simulated analog board, tests/pi/test_analog_end_to_end.py)
    "italian/i40_setup_wrong_colour_7_1": [("IT 7.1", "corrected")],
}


def transcript(path: str | os.PathLike[str]) -> tuple[Any, ...]:
    """(moves, flags, result) of ``damiera replay --json path``."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(["replay", "--json", str(path)]) == 0
    report = json.loads(out.getvalue())
    return ([(m["notation"], m["side"]) for m in report["moves"]],
            [(f["code"], f["status"]) for f in report["flags"]], report["result"])


def run_simulated(trace: str | os.PathLike[str], state: Path) -> Path:
    """Runs the simulator on ``trace`` into ``state``; returns the one game's journal."""
    rc = simulate(config=Config(source="(test)"), wiring_path=None, state_dir=str(state),
                  trace=str(trace), speed="max")
    assert rc == 0
    journals = sorted(state.glob("games/*/trace.jsonl"))
    assert len(journals) == 1, journals
    return journals[0]


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every scenario run once. The runs overlap in threads: most of a run's wall time is
    gpiozero joining its button threads at the end (the daemon's signal handlers are only
    installed on the main thread, which is why it may run elsewhere)."""
    base = tmp_path_factory.mktemp("simulated")
    logging.getLogger("hardware_mocks").setLevel(logging.ERROR)

    def one(path: str) -> tuple[str, Any]:
        name = str(Path(path).relative_to(TRACES))[:-6]
        try:
            return name, run_simulated(path, base / name.replace("/", "_"))
        except BaseException as exc:  # noqa: BLE001 - reported by the test of that trace
            return name, exc

    with ThreadPoolExecutor(max_workers=6) as pool:
        journals = dict(pool.map(one, SCENARIOS))
    # Replayed here, on one thread: the command prints its report on (the one) stdout.
    return {name: j if isinstance(j, BaseException) else transcript(j)
            for name, j in journals.items()}


def test_every_variant_has_scenarios() -> None:
    variants = {Path(p).parent.name for p in SCENARIOS}
    assert variants == {"italian", "english", "international", "brazilian"}
    assert len(SCENARIOS) >= 100


@pytest.mark.parametrize("path", SCENARIOS,
                         ids=[str(Path(p).relative_to(TRACES))[:-6] for p in SCENARIOS])
def test_simulated_journal_replays_as_the_trace(path: str, simulated: dict[str, Any]) -> None:
    name = str(Path(path).relative_to(TRACES))[:-6]
    got = simulated[name]
    if isinstance(got, BaseException):
        raise got
    moves, flags, result = transcript(path)
    set_up = SET_UP_FLAGS.get(name, [])
    assert flags[:len(set_up)] == set_up  # the set-up judged in the game, first
    assert got == (moves, flags[len(set_up):], result)


def test_the_journal_keeps_the_traces_times(tmp_path: Path) -> None:
    """Events half a second apart are journaled at the trace's own ``t``."""
    trace = TRACES / "italian" / "touch_move_corrected.jsonl"
    journal = run_simulated(trace, tmp_path)
    sim = [json.loads(line) for line in journal.read_text().splitlines()[2:]]
    src = [json.loads(line) for line in trace.read_text().splitlines()[1:]]
    assert [(d["t"], d["type"]) for d in sim] == [(d["t"], d["type"]) for d in src]


def test_events_closer_than_the_debounce_keep_their_order(tmp_path: Path) -> None:
    """A place and the clock press at the same instant: the press is made once the sensor has
    reported the place (30 ms later), so the move is complete when the clock is pressed."""
    lines = [{"type": "start", "variant": "italian", "fen": None, "clock": True,
              "transcribed": True},
             {"t": 1.0, "type": "lift", "square": 22}, {"t": 1.0, "type": "place", "square": 18},
             {"t": 1.0, "type": "button", "name": "clock", "side": "white"},
             {"t": 2.0, "type": "lift", "square": 11}, {"t": 2.0, "type": "place", "square": 15},
             {"t": 2.0, "type": "button", "name": "clock", "side": "black"}]
    trace = tmp_path / "fast.jsonl"
    trace.write_text("".join(json.dumps(x) + "\n" for x in lines))
    journal = run_simulated(trace, tmp_path / "state")
    sim = [json.loads(line) for line in journal.read_text().splitlines()[2:]]
    assert [d["type"] for d in sim] == ["lift", "place", "button"] * 2
    assert [d["t"] for d in sim] == [1.0, 1.03, 1.06, 2.0, 2.03, 2.06]
    assert transcript(journal)[0] == [("22-18", "white"), ("11-15", "black")]


def test_a_traced_button_press_reaches_the_wirings_gpio(tmp_path: Path) -> None:
    """A button the wiring has a GPIO for is pressed on gpiozero's MockPin (the path a real
    press takes: pin edge, gpiozero's Button, the driver's queue), not handed to the daemon's
    queue: the trace's side is a Colour, the wiring's buttons are keyed by its label."""
    from engine.trace import parse_trace
    from hardware_mocks.simulate import Simulation, run_trace
    from pi.drivers.wiring import load_wiring
    lines = [{"type": "start", "variant": "italian", "fen": None, "clock": True,
              "transcribed": True},
             {"t": 1.0, "type": "lift", "square": 22}, {"t": 1.5, "type": "place", "square": 18},
             {"t": 2.0, "type": "button", "name": "clock", "side": "white"},
             {"t": 3.0, "type": "lift", "square": 11}]
    start, events = parse_trace([json.dumps(x) for x in lines])
    wiring = load_wiring(example_wiring("mcp23017_8x8"))
    clock_gpio = wiring.buttons["white"]["clock"]
    seen: list[Simulation] = []
    config = config_from_start(Config(source="(test)"), start, lines[0], "(test)")
    assert run_trace(config, wiring, tmp_path, events, None,
                     hooks={3: seen.append}) == 0
    levels = [s.state for s in seen[0].factory.pin(clock_gpio).states]
    assert levels[-3:] == [True, False, True]  # pulled up, pressed to ground, released
    journal = next(tmp_path.glob("games/*/trace.jsonl")).read_text()
    assert '"type": "button", "name": "clock", "side": "white"' in journal


def test_a_button_the_wiring_lacks_goes_through_the_daemons_queue(tmp_path: Path) -> None:
    wiring = example_wiring("mcp23017_8x8").read_text()
    cut = wiring.index("[buttons.white]")
    trimmed = wiring[:cut] + "[buttons.white]\nclock = 5\n\n[buttons.black]\nclock = 22\n" + \
        wiring[wiring.index("[buzzer]"):]
    (tmp_path / "w.toml").write_text(trimmed)
    trace = TRACES / "italian" / "resign_and_note.jsonl"
    rc = simulate(config=Config(source="(test)"), wiring_path=str(tmp_path / "w.toml"),
                  state_dir=str(tmp_path / "s"), trace=str(trace), speed="max")
    assert rc == 0
    journal = next((tmp_path / "s").glob("games/*/trace.jsonl"))
    assert transcript(journal) == transcript(trace)
    assert '"resign"' in journal.read_text()


def test_the_games_settings_come_from_the_start_line() -> None:
    from engine.trace import parse_trace
    start_line = {"type": "start", "variant": "international", "fen": None, "clock": True,
                  "transcribed": False, "time_control": "600+5", "settle": 1.5,
                  "white": "A", "black": "B", "event": "E", "round": "3", "site": "S",
                  "board": 7}
    start, _ = parse_trace([json.dumps(start_line)])
    c = config_from_start(Config(state_dir=Path("/x")), start, start_line, "t.jsonl")
    assert (c.variant, c.clock, c.transcribed, c.time_control, c.settle) == \
        ("international", True, False, "600+5", 1.5)
    assert (c.white, c.black, c.event, c.round, c.site, c.board, c.state_dir) == \
        ("A", "B", "E", "3", "S", 7, Path("/x"))


def test_the_configs_board_and_site_stay_under_a_trace(tmp_path: Path) -> None:
    # damiera run --config board-5.toml --simulate --trace FILE (issue 16): the game is board
    # 5's, in its id and its start line, whatever board the trace was recorded on (or none)
    for recorded in ({}, {"board": 7, "site": "Elsewhere"}):
        line = {"type": "start", "variant": "italian", "fen": None, "clock": True,
                "transcribed": True, **recorded}
        start, _ = parse_trace([json.dumps(line)])
        c = config_from_start(Config(board=5, site="Roma"), start, line, "t.jsonl")
        assert (c.board, c.site) == (5, "Roma")
    config = parse_config('board = 5\n', "board-5.toml")
    state = tmp_path / "s"
    assert simulate(config=config, state_dir=str(state), trace=str(TRACES / "italian" /
                    "resign_and_note.jsonl"), speed="max") == 0
    journal = next(state.glob("games/*/trace.jsonl"))
    assert journal.parent.name.endswith(tuple(f"-b05-{n:03d}" for n in range(1, 10)))
    assert json.loads(journal.read_text().splitlines()[0])["board"] == 5


@pytest.mark.parametrize("text", ["0", "-1", "nan", "inf", "fast", ""])
def test_a_bad_speed_is_refused(text: str) -> None:
    with pytest.raises(SimulateError):
        parse_speed(text)


def test_speeds() -> None:
    assert parse_speed("max") is None
    assert parse_speed("4") == 4.0


@pytest.mark.parametrize("args, words", [
    (["--trace", "/nonexistent.jsonl"], "cannot read"),
    (["--trace", "BAD", "--speed", "max"], "line 1"),
    (["--speed", "slow"], "--speed"),
])
def test_bad_simulator_input_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                args: list[str], words: str) -> None:
    if "BAD" in args:
        bad = tmp_path / "bad.jsonl"
        bad.write_text("{not json\n")
        args = [str(bad) if a == "BAD" else a for a in args]
    rc = cli(["run", "--simulate", "--state-dir", str(tmp_path / "s"), "--quiet", *args])
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and words in err


def test_the_sample_game_replays_cleanly() -> None:
    """The bundled sample (``make run``): an Italian game with a touch-move correction
    (IT 8.1.3 corrected) and a kept irregularity (maintained)."""
    moves, flags, result = transcript(ROOT / "pi" / "samples" / "italian_sample.jsonl")
    assert len(moves) >= 30
    assert ("IT 8.1.3", "corrected") in flags
    assert any(status == "maintained" for _code, status in flags)
    assert result != "*"


def test_pacing_does_not_change_the_game(tmp_path: Path) -> None:
    """``--speed 20`` (the player sleeps between events) leaves the same journal lines as
    ``--speed max``: only the wall-clock pacing differs."""
    trace = TRACES / "italian" / "touch_move_corrected.jsonl"
    rc = simulate(config=Config(source="(test)"), wiring_path=None,
                  state_dir=str(tmp_path / "paced"), trace=str(trace), speed="20")
    assert rc == 0
    paced = next((tmp_path / "paced").glob("games/*/trace.jsonl")).read_text().splitlines()[1:]
    fast = run_simulated(trace, tmp_path / "max").read_text().splitlines()[1:]
    assert paced == fast


def test_the_terminal_screen_prints_a_line_per_change() -> None:
    from hardware_mocks.display import dummy_oled
    from hardware_mocks.terminal import TerminalDisplay
    from pi.drivers.display import DisplayState
    out = io.StringIO()
    screen = TerminalDisplay(dummy_oled(), out)
    screen.render(DisplayState(white_time=300.0, black_time=300.0, running="white"))
    screen.render(DisplayState(white_time=299.0, black_time=300.0, running="white"))  # clock
    screen.render(DisplayState(white_time=299.0, black_time=300.0, running="black",
                               side_to_move="black", last_move="22-18"))
    screen.render(DisplayState(white_time=299.0, black_time=300.0, running="black",
                               side_to_move="black", last_move="22-18",
                               message="IT 8.1.3 touched 21, moved 22; black: correct or accept"))
    lines = out.getvalue().splitlines()
    assert len(lines) == 3  # not a terminal: a clock-only change is not printed
    assert "W 5:00* B 5:00" in lines[0]
    assert "22-18" in lines[1] and "B 5:00*" in lines[1]
    assert "IT 8.1.3" in lines[2] and "correct or accept" in lines[2]
    assert lit_frame(screen)  # the OLED's frame is still drawn


def lit_frame(screen: Any) -> bool:
    from hardware_mocks.display import lit_pixels
    return bool(lit_pixels(screen.device.image))


def test_without_a_trace_the_board_waits_set_up_until_sigterm(tmp_path: Path) -> None:
    """``damiera run --simulate``: the starting position is on the board, a game begins and
    waits for the players; SIGTERM stops it cleanly (exit 0, the game left to resume)."""
    import signal
    import subprocess
    import sys
    import time
    state = tmp_path / "state"
    log = tmp_path / "damiera.err"  # a file, not a pipe nobody reads while it runs
    with open(log, "ab") as err:
        proc = subprocess.Popen([sys.executable, "-m", "pi.cli", "run", "--simulate", "--quiet",
                                 "--state-dir", str(state)], cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT)},
                                stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not list(state.glob("games/*/trace.jsonl")):
            time.sleep(0.05)
        time.sleep(0.3)
    finally:
        proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 0, log.read_text(errors="replace")
    journal = next(state.glob("games/*/trace.jsonl"))
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    assert [x["type"] for x in lines[:2]] == ["start", "snapshot"]
    assert len(lines[1]["occupied"]) == 24
    assert not (journal.parent / "finished").exists()


def test_the_configs_simulate_key_plays_a_trace_on_the_simulated_board(tmp_path: Path) -> None:
    """``simulate = true`` in damiera.toml is ``--simulate``: ``damiera run --config X --trace
    T --speed max`` without the option plays the sample game on the simulated board to its
    result, as with it."""
    config = tmp_path / "damiera.toml"
    config.write_text("simulate = true\n")
    sample = ROOT / "pi" / "samples" / "italian_sample.jsonl"
    assert cli(["run", "--config", str(config), "--state-dir", str(tmp_path / "state"),
                "--trace", str(sample), "--speed", "max", "--http", "off", "--quiet"]) == 0
    journal = next((tmp_path / "state").glob("games/*/trace.jsonl"))
    assert transcript(journal) == transcript(sample)
    # without the key (nor --simulate) the trace is refused: the key is what made it simulated
    config.write_text("simulate = false\n")
    assert cli(["run", "--config", str(config), "--trace", str(sample), "--quiet"]) == 2


def test_the_installed_services_command_line_runs_the_simulated_board(tmp_path: Path) -> None:
    """The unit's command line, ``damiera run --config … --wiring … --state-dir …``, with
    ``simulate = true`` in the config: the daemon starts on the simulated board (the wiring
    file's board, its pieces set up: there is no /dev/i2c-1 here), tells systemd it is ready
    (READY=1 on $NOTIFY_SOCKET, as under the unit's Type=notify) and waits for the players;
    SIGTERM stops it cleanly. How a demo board, a kiosk or the container test runs the
    installed service (docs/board-builder.md)."""
    import signal
    import socket
    import subprocess
    import sys
    import time
    config, state = tmp_path / "damiera.toml", tmp_path / "state"
    with socket.socket() as s:  # a free loopback port for its pages
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config.write_text(f'simulate = true\nhttp = "127.0.0.1:{port}"\n')
    wiring = ROOT / "pi" / "drivers" / "wiring" / "mcp23017_8x8.toml"
    log = tmp_path / "damiera.err"
    told = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    told.bind(str(tmp_path / "notify"))
    told.settimeout(0.05)
    said = b""
    with open(log, "ab") as err:
        proc = subprocess.Popen([sys.executable, "-m", "pi.cli", "run", "--config", str(config),
                                 "--wiring", str(wiring), "--state-dir", str(state)], cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT),
                                     "NOTIFY_SOCKET": str(tmp_path / "notify")},
                                stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (b"READY=1" not in said or not list(
                state.glob("games/*/trace.jsonl"))):
            try:
                said += told.recv(4096) + b"\n"
            except TimeoutError:
                pass
        time.sleep(0.3)
    finally:
        proc.send_signal(signal.SIGTERM)
        told.close()
    assert proc.wait(timeout=20) == 0, log.read_text(errors="replace")
    assert b"READY=1" in said.split(b"\n"), said  # a line of one of its datagrams
    journal = next(state.glob("games/*/trace.jsonl"))
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    assert [x["type"] for x in lines[:2]] == ["start", "snapshot"]
    assert len(lines[1]["occupied"]) == 24


def _unfinished_game(tmp_path: Path, plies_lines: int = 12) -> Path:
    """A state directory holding an unfinished game as ``make run`` leaves it: the sample's
    opening (its first ``plies_lines`` lines) played with ``make run``'s start line (an hour
    each, no players), then the daemon stopped."""
    lines = (ROOT / "pi" / "samples" / "italian_sample.jsonl").read_text().splitlines()
    start = {"type": "start", "variant": "italian", "fen": None, "clock": True,
             "transcribed": True, "time_control": "3600"}
    trace = tmp_path / "opening.jsonl"
    trace.write_text("\n".join([json.dumps(start), *lines[1:plies_lines]]) + "\n")
    state = tmp_path / "state"
    assert simulate(config=Config(source="(test)"), state_dir=str(state), trace=str(trace),
                    speed="max") == 0
    journal = next(state.glob("games/*/trace.jsonl"))
    assert not (journal.parent / "finished").exists()
    return state


def test_a_trace_never_plays_into_another_unfinished_game(tmp_path: Path) -> None:
    """Issue 37: ``make sample`` after a ``make run`` stopped mid-game fed the sample's events
    into that game (bogus IT 8.1.13 and 8.1.7 flags in the user's game, exit 0). A trace plays
    in a game of its own: another game left unfinished in the state directory is refused in
    one line, and nothing is written into it."""
    state = _unfinished_game(tmp_path)
    journal = next(state.glob("games/*/trace.jsonl"))
    before = journal.read_text()
    with pytest.raises(SimulateError, match="not this trace's"):
        simulate(config=Config(source="(test)"), state_dir=str(state),
                 trace=str(ROOT / "pi" / "samples" / "italian_sample.jsonl"), speed="max")
    assert journal.read_text() == before


def test_a_stopped_simulated_board_keeps_its_pieces_and_the_game_resumes(tmp_path: Path) -> None:
    """Issue 37: ``make run`` stopped mid-game and started again came back in the initial
    position, so the game raised IT 7.8 "position disturbed". The simulated board keeps its
    pieces where they stood, as a real one does through a power cut: the snapshot after the
    restart is the journal's own position and the only new flag is the restart's notice."""
    import signal
    import subprocess
    import sys
    import time
    state = _unfinished_game(tmp_path)
    journal = next(state.glob("games/*/trace.jsonl"))
    before = transcript(journal)
    log = tmp_path / "damiera.err"
    with open(log, "ab") as err:
        proc = subprocess.Popen([sys.executable, "-m", "pi.cli", "run", "--simulate", "--quiet",
                                 "--http", "off", "--state-dir", str(state)], cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT)},
                                stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and '"restart"' not in journal.read_text():
            time.sleep(0.05)
        time.sleep(0.5)
    finally:
        proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 0, log.read_text(errors="replace")
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    kinds = [x["type"] for x in lines]
    assert "restart" in kinds and kinds[kinds.index("restart") + 1] == "snapshot"
    moves, flags, result = transcript(journal)
    assert (moves, result) == before[:1] + before[2:]
    assert [f for f in flags if f[0] != "BOARD"] == before[1], flags
    assert [f[0] for f in flags].count("BOARD") == 1


def test_the_games_last_state_is_drawn_before_the_daemons_last_word(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The screen draws the newest state only: a state shown while a frame is on the wire
    replaces any waiting. A trace played out at ``--speed max`` ends the game (IT 9.2.3: no
    pieces left) and the daemon at once; on a slow display (a loaded machine, a Pi's I²C) the
    result's frame waited when "stopped" came and was never drawn — the terminal ended on
    "stopped" without the result. The daemon now draws what waits before its last word."""
    from hardware_mocks.terminal import TerminalDisplay
    render = TerminalDisplay.render

    def slow(self: TerminalDisplay, state: Any) -> None:
        time.sleep(0.2)  # a frame on a slow bus: the game's states pile up behind it
        render(self, state)
    monkeypatch.setattr(TerminalDisplay, "render", slow)
    sample = ROOT / "pi" / "samples" / "italian_sample.jsonl"
    rc = cli(["run", "--simulate", "--trace", str(sample), "--speed", "max", "--http", "off",
              "--quiet", "--state-dir", str(tmp_path / "s")])
    out, err = capsys.readouterr()
    assert rc == 0, err
    lines = out.splitlines()
    assert lines[-1].endswith("stopped"), lines[-3:]
    assert lines[-2].endswith("black has no pieces"), lines[-3:]
