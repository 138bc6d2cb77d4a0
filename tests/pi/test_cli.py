"""The command-line contracts of issue 2 (exact forms and outputs), run as a real process."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.pdn import read_pdn
from pi.cli import main

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pi.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_perft_last_line_is_the_count() -> None:
    r = run("perft", "--variant", "italian", "--depth", "4")
    assert r.returncode == 0 and r.stdout.strip().splitlines()[-1] == "1469"


def test_perft_divide() -> None:
    r = run("perft", "--variant", "international", "--depth", "2", "--divide")
    lines = r.stdout.strip().splitlines()
    assert lines[-1] == "81" and len(lines) == 10 and lines[0].endswith(": 9")


def test_perft_with_fen() -> None:
    r = run("perft", "--variant", "italian", "--fen", "W:WK31:B18,20,K27,K28", "--depth", "1")
    assert r.stdout.strip() == "2"


def test_moves_json_with_fen() -> None:
    r = run("moves", "--variant", "italian", "--fen", "W:W30:B27", "--json")
    assert r.returncode == 0
    assert json.loads(r.stdout) == [{"from": 30, "to": 23, "path": [30, 23], "captures": [27],
                                     "notation": "30x23"}]


def test_moves_initial_position_shape() -> None:
    r = run("moves", "--variant", "italian", "--fen", "W:W21-32:B1-12", "--json")
    moves = json.loads(r.stdout)
    assert {"from": 22, "to": 18, "path": [22, 18], "captures": [], "notation": "22-18"} in moves
    assert len(moves) == 7


def test_moves_from_stdin_one_line_each_in_order() -> None:
    r = run("moves", "--variant", "italian", "--json",
            stdin="W:W30:B27\nW:W30:BK26\nW:WK31:B18,20,K27,K28\n")
    lines = r.stdout.splitlines()
    assert r.returncode == 0 and len(lines) == 3
    assert [m["notation"] for m in json.loads(lines[0])] == ["30x23"]
    assert [m["notation"] for m in json.loads(lines[1])] == ["30-27"]
    assert sorted(m["notation"] for m in json.loads(lines[2])) == ["31x13", "31x15"]


@pytest.mark.parametrize("args", [
    ("moves", "--variant", "checkers", "--fen", "W:W30:B27", "--json"),
    ("moves", "--variant", "italian", "--fen", "W:W30,B27", "--json"),
    ("moves", "--variant", "italian", "--fen", "W:W33:B1", "--json"),
    ("moves", "--variant", "italian", "--fen", "W:W1:B20", "--json"),  # man on its crowning row
    ("perft", "--variant", "italian", "--depth", "x"),
    ("perft", "--variant", "italian"),
    ("replay", "/nonexistent/trace.jsonl"),
    ("pdn", "/nonexistent/game.pdn"),
])
def test_bad_input_one_line_exit_2(args: tuple[str, ...]) -> None:
    r = run(*args)
    assert r.returncode == 2
    assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr


def test_bad_fen_on_stdin_keeps_earlier_answers() -> None:
    r = run("moves", "--variant", "italian", "--json", stdin="W:W30:B27\nnonsense\n")
    assert r.returncode == 2 and len(r.stdout.splitlines()) == 1
    assert "line 2" in r.stderr


def test_pdn_command_prints_the_sample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pdn", "pi/samples/italian_sample.pdn"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('[Event "damiera sample game"]') and out.rstrip().endswith("1-0")


@pytest.mark.parametrize("value,problem", [
    ("8080", "expected host:port (e.g. 0.0.0.0:8080 or [::]:8080), got '8080'"),
    ("127.0.0.1:70000", "port 70000 is out of range 1..65535"),
    ("bad host:80", "no valid host in 'bad host:80'"),
    ("127.0.0.1:80\t", "control characters (line breaks, tabs…) not allowed: '127.0.0.1:80\\t'"),
    (" ", "empty (leave the key out instead)"),
    ("x" * 301, "longer than 300 characters"),
])
def test_run_http_is_checked_as_the_configs_http_is(value: str, problem: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # Refused before anything is opened: the wiring file does not even exist.
    args = ["run", "--wiring", str(tmp_path / "none.toml"), "--state-dir", str(tmp_path),
            "--http", value]
    assert main(args) == 2
    assert capsys.readouterr().err.splitlines() == [f"damiera: --http: {problem}"]
    assert list(tmp_path.iterdir()) == []


def test_errors_of_every_family_are_one_line_exit_2(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The command line catches the one root (engine.errors.DamieraError) once: an address in
    use (a network error), a state directory that cannot be made (a state error) and a config
    that cannot be read (a configuration error) each give one line and exit status 2."""
    import socket
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        cases = {
            "cannot listen": ("run", "--simulate", "--quiet", "--http", f"127.0.0.1:{port}",
                              "--state-dir", str(tmp_path / "s")),
            str(blocker): ("run", "--simulate", "--quiet", "--http", "off",
                           "--state-dir", str(blocker / "sub")),
            "nope.toml": ("run", "--simulate", "--config", str(tmp_path / "nope.toml")),
        }
        for words, args in cases.items():
            r = run(*args)
            assert r.returncode == 2 and r.stdout == "", (args, r.stderr)
            assert len(r.stderr.strip().splitlines()) == 1 and words in r.stderr, r.stderr


def test_pdn_archive_with_one_undecided_short_capture_keeps_the_other_games(
        tmp_path: Path) -> None:
    # issue 16: a championship archive was refused whole for one game's "3x26" that fits two
    # captures and that the rest of that game does not decide
    corpus = ROOT / "tests" / "corpus" / "pdn" / "italian"
    ok = (corpus / "archive_forms.pdn").read_text(encoding="utf-8")
    undecided = (corpus / "short_capture_several.pdn").read_text(encoding="utf-8")
    path = tmp_path / "campionato.pdn"
    path.write_text(ok + "\n" + undecided + "\n" + ok, encoding="utf-8")
    r = run("pdn", str(path))
    assert r.returncode == 3 and "Traceback" not in r.stderr
    [line] = r.stderr.strip().splitlines()
    assert "PDN game 4, move 1 (25x2)" in line and "does not tell which" in line
    assert len(read_pdn(r.stdout)) == 6  # the six other games, whole


def test_pdn_championship_archive_with_short_captures() -> None:
    # issue 35: every game the rest of it decides is printed; the one it cannot is named on
    # stderr, and the status says the output is partial
    path = ROOT / "tests" / "corpus" / "pdn" / "italian" / "championship.pdn"
    r = run("pdn", "--variant", "italian", str(path))
    assert r.returncode == 3, r.stderr
    games = read_pdn(r.stdout)
    assert [g.tags["Round"] for g in games] == ["1", "2", "3", "5"]
    [line] = r.stderr.splitlines()
    assert "left out: PDN game 4, move 9... (5x30)" in line and "Traceback" not in r.stderr


def test_pdn_file_of_only_undecided_games_is_refused() -> None:
    r = run("pdn", str(ROOT / "tests" / "corpus" / "pdn" / "italian" /
                       "short_capture_several.pdn"))
    assert r.returncode == 2 and r.stdout == "" and "does not tell which" in r.stderr


def test_moves_with_standard_input_closed_is_one_line() -> None:
    # issue 16: `damiera moves --variant italian --json <&-` ended in a traceback
    r = subprocess.run(["sh", "-c", f'exec "{sys.executable}" -m pi.cli moves --variant italian '
                        "--json <&-"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "standard input is closed" in r.stderr


FIVE_THOUSAND = "9" * 5000  # over Python's 4,300-digit limit of int()


@pytest.mark.parametrize("config,args", [
    (f"board = {FIVE_THOUSAND}\n", ("token", "--config")),
    (f"round = {FIVE_THOUSAND}\n", ("token", "--config")),
    (None, ("run", "--simulate", "--http", "off", "--board", FIVE_THOUSAND)),
])
def test_numbers_of_five_thousand_digits_are_one_line(tmp_path: Path, config: str | None,
                                                      args: tuple[str, ...]) -> None:
    # issue 16: a config's or an option's number past the int-string limit was a traceback
    if config is not None:
        path = tmp_path / "damiera.toml"
        path.write_text(config, encoding="utf-8")
        args = (*args, str(path))
    r = run(*args, "--state-dir", str(tmp_path / "state"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


# 3,600 seconds behind five thousand zeros: a number of 3,600 written with 5,004 digits
ZEROS_3600 = "0" * 5000 + "3600"


@pytest.mark.parametrize("where", ["--time-control", "config", "trace", "pdn"])
def test_a_time_control_of_thousands_of_digits_is_one_line(tmp_path: Path, where: str) -> None:
    # issue 35: past Python's int-string limit a time control was a traceback, however small its
    # value; every reader now refuses a TimeControl over 64 characters in one line, exit 2
    state = ("--state-dir", str(tmp_path / "state"))
    if where == "--time-control":
        r = run("run", "--simulate", "--http", "off", "--time-control", ZEROS_3600, *state)
    elif where == "config":
        path = tmp_path / "damiera.toml"
        path.write_text(f'time_control = "{ZEROS_3600}"\n', encoding="utf-8")
        r = run("run", "--simulate", "--http", "off", "--config", str(path), *state)
    elif where == "trace":
        path = tmp_path / "game.jsonl"
        path.write_text(json.dumps({"type": "start", "variant": "italian",
                                    "time_control": ZEROS_3600}) + "\n"
                        + json.dumps({"t": 1.0, "type": "end"}) + "\n", encoding="utf-8")
        r = run("replay", str(path))
    else:
        path = tmp_path / "game.pdn"
        path.write_text(f'[GameType "22"]\n[TimeControl "{ZEROS_3600}"]\n\n1. 22-18 *\n',
                        encoding="utf-8")
        r = run("pdn", str(path))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "longer than 64 characters" in r.stderr and r.stdout == ""


def test_a_move_number_of_26_digits_is_a_label(tmp_path: Path) -> None:
    # issue 16: move numbers are only labels; a 26-digit one was refused
    path = tmp_path / "game.pdn"
    path.write_text('[GameType "22"]\n\n12345678901234567890123456. 22-18 12-16 *\n',
                    encoding="utf-8")
    r = run("pdn", str(path))
    assert r.returncode == 0 and "1. 22-18 12-16 *" in r.stdout


def test_replay_text_counts_plies_and_numbers_moves_as_the_pdn(
        capsys: pytest.CaptureFixture[str]) -> None:
    # issue 16: "5 move(s)" counted plies; one word for each: ply (one player's), move (the pair)
    trace = ROOT / "tests" / "traces" / "italian" / "d1_moved_twice_kept_8_1_1.jsonl"
    assert main(["replay", str(trace)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("italian game, 5 plies\n")
    assert "  ply   2  1... 11-15 " in out
    assert "  ply   4  3. 25-21 (6s)  {irregular move: IT 8.1.1}  [FEN " in out
    assert "move(s)" not in out


def test_run_refuses_a_clocked_game_on_a_board_without_clock_buttons(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 37: the wiring ``hardware map`` wrote had no clock buttons, and the daemon started
    a clocked game on it without a word (no move could be completed, COMP 4.5). ``run`` refuses
    in one line, before the state directory is touched; without a clock (``clock = false``, no
    time control) the same board is taken."""
    from pi.drivers.wiring import example_wiring, load_wiring
    from pi.run import RunError, check_clock_buttons
    from pi.board.config import parse_config
    text = example_wiring("mcp23017_8x8").read_text()
    cut = text[:text.index("[buttons]")]
    wiring_path = tmp_path / "mapped.toml"
    wiring_path.write_text(cut)
    state = tmp_path / "state"
    assert main(["run", "--wiring", str(wiring_path), "--state-dir", str(state)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "no clock button for white and black" in err[0], err
    assert not state.exists()
    wiring = load_wiring(wiring_path)
    check_clock_buttons(parse_config("clock = false\n"), wiring)  # nothing to press: taken
    with pytest.raises(RunError):
        check_clock_buttons(parse_config('clock = false\ntime_control = "300+3"\n'), wiring)
    check_clock_buttons(parse_config(""), load_wiring(example_wiring("mcp23017_8x8")))
