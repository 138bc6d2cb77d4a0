"""Bad input tried as a hostile user would (issue 8): a corpus of several hundred inputs, by class
(numbers of absurd size or kind in every place a number is read, in FEN, PDN, traces, time
controls and options; oversized input; files that are not what they claim), each run through the
command line in-process (``pi.cli.main``). Every one must be refused the same way: exit status 2,
one line on standard error of at most 200 characters quoting at most an excerpt of the input,
nothing on standard output, never a traceback. A few run as real processes, and the files of
``tests/corpus/hostile/`` too.
"""

from __future__ import annotations

import io
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pi.cli import main

HOSTILE = Path(__file__).resolve().parent.parent / "corpus" / "hostile"
LONG = 200  # longest error line accepted

# Numbers of absurd size or kind, as text (FEN, PDN, options): thousands of digits, floats where a
# whole number is read, NaN, infinities, negatives, digits int() reads but are not ASCII
# (superscript two, Arabic-Indic, full-width), other bases.
BAD_NUMBERS = ["9" * 5000, "9" * 40, "1e308", "NaN", "nan", "Infinity", "-inf", "-1", "-0.5", "3.5",
               "²", "٣٢", "１２", "0x1F", "1_0", "+5", ""]
# The same in JSON (traces): raw tokens, including what Python's json reads but JSON forbids.
BAD_JSON_NUMBERS = ["9" * 5000, "9" * 4000, "1e308", "1e400", "-1e400", "NaN", "Infinity",
                    "-Infinity", "-1", "-1e-9", '"²"', '"٣٢"', '"1e3"', "true", "[]", "{}", "null",
                    '"' + "9" * 5000 + '"', "3.5"]

START = '{"type": "start", "variant": "italian"}'


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]
    stdin: str = ""
    file: str | None = None  # written to a temporary file whose path replaces "{file}" in argv


def _fen_cases() -> list[Case]:
    out = []
    templates = ["W:W{n}:B12", "W:WK{n}:B12", "W:W21-{n}:B12", "W:W{n}-32:B12", "{n}:W21:B12",
                 "W:W21:B12:H{n}", "W:W21,{n},K{n}:B12"]
    for i, n in enumerate(BAD_NUMBERS):
        for j, t in enumerate(templates):
            fen = t.format(n=n)
            if fen in ("W:W21:B12:H", "W:W:B12"):  # an empty field, a side without pieces: valid
                continue
            variant = ("italian", "english", "international", "brazilian")[(i + j) % 4]
            out.append(Case(f"fen-moves-{i}-{j}", ("moves", "--variant", variant, "--fen", fen,
                                                   "--json")))
            out.append(Case(f"fen-perft-{i}-{j}", ("perft", "--variant", variant, "--fen", fen,
                                                   "--depth", "1")))
        if n:
            out.append(Case(f"fen-stdin-{i}", ("moves", "--variant", "italian", "--json"),
                            stdin=f"W:W{n}:B12\n"))
    return out


def _pdn_cases() -> list[Case]:
    templates = [
        '[GameType "{n}"]\n\n1. 22-18 *\n',
        '[GameType "22"]\n\n1. {n}-18 *\n',
        '[GameType "22"]\n\n1. 22-{n} *\n',
        '[GameType "22"]\n\n1. 22x{n} *\n',
        '[GameType "22"]\n[SetUp "1"]\n[FEN "W:W{n}:B1"]\n\n*\n',
        '[GameType "22"]\n[TimeControl "{n}"]\n\n1. 22-18 *\n',
        '[GameType "22"]\n[TimeControl "40/{n}"]\n\n1. 22-18 *\n',
        '[GameType "22"]\n[WhiteTime "{n}"]\n[BlackTime "0:01:00"]\n\n1. 22-18 *\n',
        '[GameType "22"]\n[Variant "{n}"]\n\n1. 22-18 *\n',
        '[GameType "22"]\n\n1. 22-18 /FEN "B:W{n}:B1"/ 10-14 *\n',
    ]
    out = []
    for i, n in enumerate(BAD_NUMBERS):
        for j, t in enumerate(templates):
            text = t.replace("{n}", n)
            if j == 5 and n in ("", "+5"):
                continue  # an empty TimeControl means none (PGN); '+5' is tested in PDN time
            if (j == 8 or j == 4) and n == "":
                continue  # an empty Variant tag names nothing; "W:W:B1" is a valid FEN
            out.append(Case(f"pdn-{i}-{j}", ("pdn", "{file}"), file=text))
        # '3.5.' reads as the move numbers '3.' and '5.'; ASCII digits of any length are a move
        # number, a label (test_cli: a 26-digit one is read)
        if n != "3.5" and not (n.isascii() and n.isdigit()):
            out.append(Case(f"pdn-number-{i}", ("pdn", "{file}"),
                            file=f'[GameType "22"]\n\n{n}. 22-18 *\n'))
        out.append(Case(f"pdn-nag-{i}", ("pdn", "{file}"),
                        file=f'[GameType "22"]\n\n1. 22-18 ${n} *\n'))
        out.append(Case(f"pdn-variant-option-{i}", ("pdn", "{file}", "--variant", n),
                        file="1. 22-18 *\n"))
    return out


def _trace_cases() -> list[Case]:
    templates = [
        '{"type": "start", "variant": "italian", "settle": {n}, "clock": false}',
        '{"type": "start", "variant": {n}}',
        START + '\n{"t": {n}, "type": "lift", "square": 22}',
        START + '\n{"t": 1.0, "type": "lift", "square": {n}}',
        START + '\n{"t": 1.0, "type": "place", "square": {n}}',
        START + '\n{"t": 1.0, "type": "snapshot", "occupied": [1, {n}]}',
        START + '\n{"t": {n}, "type": "button", "name": "clock", "side": "white"}',
        START + '\n{"t": 1.0, "type": "lift", "square": 22}\n{"t": {n}, "type": "end"}',
    ]
    out = []
    for i, n in enumerate(BAD_JSON_NUMBERS):
        for j, t in enumerate(templates):
            if j == 0 and n == "null" or n == "3.5" and j in (0, 2, 6, 7):
                continue  # settle: null is the default; 3.5 s is a fine time
            out.append(Case(f"trace-{i}-{j}", ("replay", "{file}", "--json"),
                            file=t.replace("{n}", n) + "\n"))
    for i, n in enumerate(BAD_NUMBERS):
        if n:
            out.append(Case(f"trace-fen-{i}", ("replay", "{file}"), file=(
                f'{{"type": "start", "variant": "italian", "fen": "W:W{n}:B1"}}\n')))
            out.append(Case(f"trace-tc-{i}", ("replay", "{file}"),
                            file=f'{{"type": "start", "variant": "italian", "time_control": "{n}"}}\n'))
            out.append(Case(f"trace-tc-fischer-{i}", ("replay", "{file}"), file=(
                f'{{"type": "start", "variant": "italian", "time_control": "1800+{n}"}}\n')))
    return out


def _option_cases() -> list[Case]:
    out = []
    for i, n in enumerate(BAD_NUMBERS + ["995", "65", "100000"]):
        out.append(Case(f"opt-depth-{i}", ("perft", "--variant", "italian", "--depth", n)))
        if n not in ("3.5", "+5", "995", "65"):  # reasonable durations
            out.append(Case(f"opt-seconds-{i}", ("bench", "--seconds", n, "--variant", "italian")))
        out.append(Case(f"opt-variant-{i}", ("moves", "--variant", n, "--fen", "W:W21:B12")))
    for i, n in enumerate(["nan", "inf", "-1", "0", "1e308", "3601"]):
        out.append(Case(f"opt-seconds-range-{i}", ("bench", "--seconds", n)))
    out.append(Case("opt-bench-unknown-variant", ("bench", "--variant", "checkers")))
    return out


def _oversized_cases() -> list[Case]:
    big = "x" * 10_000_000
    return [
        Case("pdn-10mb-token", ("pdn", "{file}"), file='[GameType "22"]\n\n1. ' + big + " *\n"),
        Case("pdn-10mb-fen", ("pdn", "{file}"), file=f'[GameType "22"]\n[FEN "W:W{big}"]\n\n*\n'),
        Case("trace-10mb-line", ("replay", "{file}"), file=START + "\n" + '{"t": "' + big + '"}\n'),
        Case("trace-10mb-variant", ("replay", "{file}"),
             file='{"type": "start", "variant": "' + big + '"}\n'),
        Case("stdin-10mb-fen", ("moves", "--variant", "italian"), stdin="W:W" + big + "\n"),
        Case("option-10mb-fen", ("moves", "--variant", "italian", "--fen", "W:W" + big)),
        Case("option-1mb-variant", ("perft", "--variant", "v" * 1_000_000, "--depth", "1")),
        Case("trace-deep-json", ("replay", "{file}"), file=START + "\n" + "[" * 100_000 + "\n"),
        Case("pdn-deep-variations", ("pdn", "{file}"), file="(" * 100_000 + "\n"),
        Case("pdn-empty", ("pdn", "{file}"), file=""),
        Case("pdn-only-spaces", ("pdn", "{file}"), file="\n \n\t\n"),
        Case("pdn-only-escapes", ("pdn", "{file}"), file="% nothing here\n% at all\n"),
        Case("trace-empty", ("replay", "{file}"), file=""),
        Case("pdn-binary", ("pdn", "{file}"), file="\udcff\udcfe\x00\x01\udc81 22-18"),
        Case("trace-not-utf8", ("replay", "{file}"), file=START + "\n\udcff\n"),
    ]


CASES = _fen_cases() + _pdn_cases() + _trace_cases() + _option_cases() + _oversized_cases()


def test_the_corpus_is_large() -> None:
    assert len(CASES) > 400
    assert len({c.name for c in CASES}) == len(CASES)


def run_in_process(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    argv = list(case.argv)
    if case.file is not None:
        path = tmp_path / "input"
        # surrogates stand for bytes that are not UTF-8
        path.write_bytes(case.file.encode("utf-8", "surrogateescape"))
        argv = [str(path) if a == "{file}" else a for a in argv]
    monkeypatch.setattr(sys, "stdin", io.StringIO(case.stdin))
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(code: int, out: str, err: str) -> None:
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n"), err[:500]
    assert lines[0].startswith("damiera: ") and len(lines[0]) <= LONG, lines[0][:500]
    assert "Traceback" not in err


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_refused_cleanly(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture[str]) -> None:
    assert_refused(*run_in_process(case, tmp_path, monkeypatch, capsys))


@pytest.mark.parametrize("path", sorted(HOSTILE.iterdir()), ids=lambda p: p.name)
def test_corpus_files_refused(path: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    command = "replay" if path.suffix == ".jsonl" else "pdn"
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = main([command, str(path)])
    out, err = capsys.readouterr()
    assert_refused(code, out, err)


@pytest.mark.parametrize("value", ["e" * 5_000_000, '\\"' * 2_000_000], ids=["plain", "escapes"])
def test_a_5mb_tag_value_costs_little_memory(value: str, tmp_path: Path) -> None:
    """Measured in a fresh process (the regex engine's own stack, which took 1 GB for this tag,
    is not seen by tracemalloc): the peak resident memory stays far below."""
    path = tmp_path / "big_tag.pdn"
    path.write_text('[GameType "22"]\n[Event "' + value + '"]\n\n1. 22-18 *\n')
    # VmHWM: the peak of this process's own memory (ru_maxrss would include the parent's, which
    # a forked child inherits)
    probe = ("import sys\nfrom pi.cli import main\ncode = main(['pdn', sys.argv[1]])\n"
             "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
             "print(code, hwm[0], file=sys.stderr)")
    r = subprocess.run([sys.executable, "-c", probe, str(path)], capture_output=True, text=True,
                       timeout=120)
    code, peak_kb = r.stderr.split()
    assert code == "0" and r.stdout.startswith('[Event "')
    assert int(peak_kb) < 200_000, f"peak {int(peak_kb) // 1024} MB for a 5 MB tag"


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pi.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args", [
    ("pdn", "/dev/zero"), ("replay", "/dev/zero"), ("pdn", "/dev/null"), ("replay", "/dev/null"),
    ("perft", "--variant", "italian", "--depth", "995"), ("bench", "--seconds", "nan"),
    ("bench", "--seconds", "-2"), ("perft", "--variant", "italian", "--depth", "²"),
])
def test_refused_by_a_real_process(args: tuple[str, ...]) -> None:
    r = run(*args)
    assert_refused(r.returncode, r.stdout, r.stderr)


def test_dev_zero_on_stdin_is_refused_by_a_real_process() -> None:
    with open("/dev/zero") as zero:
        r = subprocess.run([sys.executable, "-m", "pi.cli", "moves", "--variant", "italian"],
                           stdin=zero, capture_output=True, text=True, timeout=120)
    assert_refused(r.returncode, r.stdout, r.stderr)


@pytest.mark.parametrize("encoded", [
    '\ufeff[GameType "22"]\n[Site "Città"]\n\n1. 22-18 *\n'.encode("utf-8"),
    '[GameType "22"]\n[Site "Città"]\n\n1. 22-18 *\n'.encode("cp1252"),
], ids=["utf8-bom", "cp1252"])
def test_archive_encodings_are_read(encoded: bytes, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "archive.pdn"
    path.write_bytes(encoded)
    assert main(["pdn", str(path)]) == 0
    out, err = capsys.readouterr()
    assert '[Site "Città"]' in out and "1. 22-18 *" in out and err == ""


def test_stdin_not_utf8_is_refused_by_a_real_process() -> None:
    r = subprocess.run([sys.executable, "-m", "pi.cli", "moves", "--variant", "italian"],
                       input=b"\xff\xfe W:W21:B12\n", capture_output=True, timeout=120)
    assert_refused(r.returncode, r.stdout.decode(), r.stderr.decode())
    assert "line 1" in r.stderr.decode()


# --- any bytes at all: the command line answers 0 with output, or 2 with one line -------------

PDN_PIECES = [b'[GameType "22"]', b'[FEN "W:W21-32:B1-12"]', b"1.", b"22-18", b"10-14", b"x",
              b"{", b"}", b"(", b")", b"%", b"\n", b" ", b"*", b"1-0", b"\xff", b"\x00", b'"']
TRACE_PIECES = [b'{"type": "start", "variant": "italian"}\n', b'{"t": 1, "type": "lift", ',
                b'"square": 22}\n', b'{"t": 2, "type": "place", "square": 18}\n', b"NaN", b"1e400",
                b"[", b"]", b"\n", b"\xff", b"9" * 50]


def answers_cleanly(command: str, data: bytes, tmp_path: Path,
                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "input"
    path.write_bytes(data)
    code = main([command, str(path)] + (["--variant", "italian"] if command == "pdn" else []))
    out, err = capsys.readouterr()
    if code == 0:
        assert out and err == ""
    else:
        assert_refused(code, out, err)


@settings(max_examples=150, deadline=5000,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.one_of(st.binary(max_size=200),
                      st.lists(st.sampled_from(PDN_PIECES), max_size=25).map(b" ".join)))
def test_any_bytes_as_pdn(data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers_cleanly("pdn", data, tmp_path, capsys)


@settings(max_examples=150, deadline=5000,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.one_of(st.binary(max_size=200),
                      st.lists(st.sampled_from(TRACE_PIECES), max_size=12).map(b"".join)))
def test_any_bytes_as_trace(data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    answers_cleanly("replay", data, tmp_path, capsys)
