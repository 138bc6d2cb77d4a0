"""The command-line contracts of issue 2 (exact forms and outputs), run as a real process."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pi.cli import main


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
