"""``damiera hardware probe|watch|map|test`` on the register-level fakes (``--simulate``), with
each fault of issue 18 planted by ``--fault``, the finding named exactly; exit 0 all well, 1 a
fault of the board, 2 bad input. Set-up checks cite IT 7.1 / IT 7.2 (INT 5.1 on 10×10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.board import Board
from engine.errors import InputError
from engine.i18n import translations
from engine.variants import find_variant
from hardware_mocks.bringup import SimulatedBench
from pi.cli import main
from pi.drivers.board_tester import run_board_test
from pi.drivers.bringup import PlantedFault, parse_fault
from pi.drivers.wiring_map import map_wiring, wiring_text
from pi.drivers.probe import probe_chips
from pi.drivers.wiring import Wiring, example_wiring, load_wiring, parse_wiring

MCP8 = str(example_wiring("mcp23017_8x8"))
EXAMPLES = ("mcp23017_8x8", "mcp23017_10x10", "tca9555_10x10", "pcf8575_8x8")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


def fails(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("FAIL ")]


# ---------------------------------------------------------------------------- probe

def test_probe_without_a_wiring_file_names_the_chips_and_proposes_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "hardware", "probe", "--simulate")
    assert code == 0
    assert lines[0] == "OK   0x20: MCP23017 (power-on values: IOCON 0x00, IODIR 0xffff)"
    assert "OK   0x3c: an OLED answers" in lines
    proposal = "\n".join(lines[lines.index("# no wiring file: a proposal for what answers") + 1:
                               -1])
    assert proposal.count("[[chips]]") == 5 and 'type = "mcp23017"' in proposal
    assert lines[-1] == "OK: 6 ok, 0 warnings, 0 faults"


@pytest.mark.parametrize("name, expected", [
    ("mcp23017_8x8", "OK   0x20: u1: MCP23017 (power-on values: IOCON 0x00, IODIR 0xffff)"),
    ("tca9555_10x10", "OK   0x20: u1: TCA9555 (polarity 0x0000, configuration 0xffff)"),
    ("pcf8575_8x8", "OK   0x20: u1: PCF8575-like, unverifiable (no registers walked by a plain "
                    "read)"),
])
def test_probe_identifies_each_chip_by_its_registers(capsys: pytest.CaptureFixture[str],
                                                     name: str, expected: str) -> None:
    code, lines, _ = run(capsys, "hardware", "probe", "--simulate", "--wiring",
                         str(example_wiring(name)))
    assert code == 0, lines
    assert lines[0] == expected
    assert "OK   GPIO 17: INT at rest" in lines and "OK   GPIO 5: white clock button at rest" in lines
    assert not fails(lines)


def test_an_unknown_two_byte_chip_is_pcf8575_like_and_written_back() -> None:
    bench = SimulatedBench(load_wiring(example_wiring("pcf8575_8x8")))
    findings, chips = probe_chips(bench.open_bus(1), None)
    assert findings[0].line() == ("OK   0x20: PCF8575-like, unverifiable (no registers; a TCA9555 "
                                  "would show its polarity registers)")
    assert [c.kind for c in chips] == ["pcf8575"] * 4
    # the TCA9555 check's command byte, then every pin an input again
    writes = [e[1] for e in bench.bus.log if e[0] == "i2c_rdwr" and e[1][0][0] == "w"
              and e[1][0][1] == 0x20]
    assert writes[0][0] == ("w", 0x20, (0x04,)) and writes[-1] == (("w", 0x20, (0xFF, 0xFF)),)


def test_a_chip_the_wiring_calls_a_pcf8575_gets_no_command_byte() -> None:
    wiring = load_wiring(example_wiring("pcf8575_8x8"))
    bench = SimulatedBench(wiring)
    probe_chips(bench.open_bus(1), wiring)
    assert not [e for e in bench.bus.log if e[0] == "i2c_rdwr" and len(e[1]) == 2]


def test_probe_knows_a_chip_configured_by_the_daemon() -> None:
    wiring = load_wiring(MCP8)
    bench = SimulatedBench(wiring)
    from pi.drivers.bringup import BoardSquares
    BoardSquares(wiring, bench.open_bus(1)).init()  # what the daemon does at start
    findings, chips = probe_chips(bench.open_bus(1), wiring)
    assert chips[0].evidence == "configured by damiera: IOCON 0x44"
    assert all(f.level == "OK" for f in findings)


def test_probe_names_a_missing_chip_and_where_it_answers_instead(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "hardware", "probe", "--simulate", "--wiring", MCP8,
                         "--fault", "missing-chip:0x21")
    assert code == 1
    assert fails(lines) == [
        f"FAIL 0x25: unexpected MCP23017 (power-on values: IOCON 0x00, IODIR 0xffff): not in "
        f"{MCP8} — a chip strapped to the wrong address? check its A0-A2 pins against the "
        "wiring file",
        "FAIL 0x21: missing: u2 MCP23017 does not answer (squares g2 h2 a3 b3 c3 d3 e3 f3 g3 h3 "
        "a4 b4 c4 d4) — check its supply, SDA/SCL and A0-A2 straps (i2cdetect -y 1)"]
    assert lines[-1] == "FAIL: 24 ok, 0 warnings, 2 faults"


def test_probe_of_a_full_bus_names_the_missing_chip_only(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "hardware", "probe", "--simulate", "--wiring",
                         str(example_wiring("mcp23017_10x10")), "--fault", "missing-chip:0x27")
    assert code == 1
    assert [line.split(" —")[0] for line in fails(lines)] == [
        "FAIL 0x27: missing: u8 MCP23017 does not answer (squares i10 j10)"]


def test_probe_names_a_wrong_type(tmp_path: Path) -> None:
    wrong = parse_wiring(Path(MCP8).read_text().replace('type = "mcp23017"\naddress = 0x22',
                                                        'type = "tca9555"\naddress = 0x22'),
                         "wrong.toml")
    bench = SimulatedBench(load_wiring(MCP8))  # the board as built: MCP23017s everywhere
    findings, _ = probe_chips(bench.open_bus(1), wrong)
    assert [f.line() for f in findings if f.level == "FAIL"] == [
        "FAIL 0x22: wrong type: the wiring file has u3 TCA9555, the bus answers as MCP23017 "
        "(power-on values: IOCON 0x00, IODIR 0xffff) — fit the right chip or correct its type"]


@pytest.mark.parametrize("fault, expected", [
    ("stuck:d4", "FAIL d4: closed with the board empty — a stuck switch, or a piece left on it "
                 "(probe wants an empty board)"),
    ("chatter:c3", "FAIL c3: chattering — a loose joint or a broken switch"),
])
def test_probe_names_a_stuck_and_a_chattering_square(capsys: pytest.CaptureFixture[str],
                                                     fault: str, expected: str) -> None:
    code, lines, _ = run(capsys, "hardware", "probe", "--simulate", "--wiring", MCP8,
                         "--fault", fault)
    assert code == 1
    assert fails(lines) == [expected]


@pytest.mark.parametrize("fault", ["swap:b1,d1", "dead:d1"])
def test_probe_cannot_see_what_only_moving_a_piece_shows(capsys: pytest.CaptureFixture[str],
                                                         fault: str) -> None:
    # swapped wires and a dead switch need a piece moved: `test` names them (below)
    code, lines, _ = run(capsys, "hardware", "probe", "--simulate", "--wiring", MCP8,
                         "--fault", fault)
    assert code == 0 and not fails(lines)


def test_probe_with_the_bus_off_is_a_board_fault(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "hardware", "probe", "--simulate", "--wiring", MCP8,
                         "--fault", "bus-off")
    assert code == 1
    assert lines == ["FAIL bus: [Errno 2] No such file or directory: '/dev/i2c-1' — run damiera "
                     "doctor", "FAIL: 0 ok, 0 warnings, 1 fault"]  # one fault: the singular


@pytest.mark.parametrize("argv, message", [
    (["--simulate", "--fault", "melted:c3"], "damiera: --fault 'melted:c3': the kind is one of "
     "missing-chip, swap, dead, stuck, chatter, bus-off, gain, clip"),
    (["--simulate", "--fault", "stuck:z9"], "damiera: --fault 'stuck:z9': 'z9' is not a square "
     "of a 8×8 board"),
    (["--simulate", "--fault", "swap:c3"], "damiera: --fault 'swap:c3': swap takes two "
     "different squares, SQ,SQ"),
    (["--simulate", "--fault", "missing-chip:0x50"], "damiera: --fault 'missing-chip:0x50': an "
     "expander address 0x20..0x27"),
    (["--simulate", "--fault", "bus-off:now"], "damiera: --fault bus-off takes no argument"),
    (["--fault", "bus-off"], "damiera: --fault needs --simulate"),
    (["--simulate", "--bus", "-1"], "damiera: --bus: an I²C bus number 0..255, got -1"),
    (["--simulate", "--wiring", "/nonexistent.toml"], "damiera: /nonexistent.toml: cannot read "
     "the file (No such file or directory)"),
])
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                          message: str) -> None:
    code, lines, err = run(capsys, "hardware", "probe", *argv)
    assert code == 2 and lines == []
    assert err == message + "\n"


def test_a_fault_on_a_square_without_a_sensor_is_bad_input(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "hardware", "probe", "--simulate", "--wiring",
                       str(example_wiring("matrix_mcp23017_8x8")), "--fault", "stuck:d4")
    assert code == 2 and "d4 has no sensor in" in err and len(err.strip().splitlines()) == 1


def test_parse_fault() -> None:
    assert parse_fault("swap:a1,c1", 8) == PlantedFault("swap", ("a1", "c1"))
    assert parse_fault("missing-chip:0x21", 8) == PlantedFault("missing-chip", address=0x21)
    assert parse_fault("bus-off", 10) == PlantedFault("bus-off")


def test_a_fault_takes_the_variants_official_numbers_and_only_wired_squares() -> None:
    """Issue 37: ``--fault dead:22`` was refused (only ``b1``-style names), and a fault on a
    square no sensor is wired to was planted and passed. A number is the variant's official one
    (Italian 22 is not English 22); a square the wiring does not sense is refused, one line."""
    italian, english = find_variant("italian"), find_variant("english")
    assert parse_fault("dead:22", 8, italian).squares == (
        italian.geometry.algebraic(22),)
    assert parse_fault("dead:22", 8, english).squares == (english.geometry.algebraic(22),)
    assert italian.geometry.algebraic(22) != english.geometry.algebraic(22)
    assert parse_fault("swap:1,b1", 8, english).squares == (english.geometry.algebraic(1), "b1")
    with pytest.raises(InputError, match="needs the variant"):
        parse_fault("dead:22", 8)
    with pytest.raises(InputError, match="no square 33"):
        parse_fault("dead:33", 8, italian)
    sensed = load_wiring(example_wiring("mcp23017_8x8")).sensed_squares
    assert parse_fault("stuck:a2", 8, italian, sensed).squares == ("a2",)
    with pytest.raises(InputError, match="a2 has no sensor in the wiring"):
        parse_fault("stuck:a2", 8, italian, sensed - {"a2"})


def _without_a2(tmp_path: Path) -> Path:
    """The 8×8 example wiring with square a2's wire left off (its pin unused)."""
    text = example_wiring("mcp23017_8x8").read_text()
    assert text.count('"a2",') == 1
    path = tmp_path / "no-a2.toml"
    path.write_text(text.replace('"a2",', '"",'))
    assert "a2" not in load_wiring(path).sensed_squares
    return path


def test_hardware_test_takes_a_fault_by_number_and_refuses_an_unwired_square(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    wiring = _without_a2(tmp_path)
    code, _, err = run(capsys, "hardware", "test", "--simulate", "--wiring", str(wiring),
                       "--variant", "italian", "--state-dir", str(tmp_path),
                       "--fault", "dead:a2")
    assert code == 2 and "a2 has no sensor in the wiring" in err
    assert len(err.strip().splitlines()) == 1
    code, out, err = run(capsys, "hardware", "test", "--simulate", "--wiring",
                         str(example_wiring("mcp23017_8x8")), "--variant", "italian",
                         "--state-dir", str(tmp_path), "--fault", "dead:22")
    dead = find_variant("italian").geometry.algebraic(22)
    assert code == 1 and any(dead in line for line in fails(out)), (out, err)


# ---------------------------------------------------------------------------- map

@pytest.mark.parametrize("name", EXAMPLES)
def test_map_writes_back_the_example_the_board_was_wired_from(name: str) -> None:
    example = load_wiring(example_wiring(name))
    variant = find_variant("international" if example.size == 10 else "italian")
    said: list[str] = []
    result = map_wiring(SimulatedBench(example), variant, said.append)
    assert result.ok, result.findings
    learnt = parse_wiring(wiring_text(result), "learnt.toml")
    assert learnt.size == example.size and learnt.display == example.display

    def chips(w: Wiring) -> list[tuple[str, str, int, tuple[str, ...]]]:
        out = []
        for c in w.chips:
            squares = list(c.squares)
            while squares and not squares[-1]:
                squares.pop()
            out.append((c.name, c.kind, c.address, tuple(squares)))
        return out
    assert chips(learnt) == chips(example)
    # asked in the official numbering first (IT 2.4: 1 = a8 ...; INT 2.6: 1 = b10)
    assert said[1] == ("put a piece on 1 (a8)" if example.size == 8 else "put a piece on 1 (b10)")


def test_map_command_writes_the_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "w.toml"
    code, lines, _ = run(capsys, "hardware", "map", "--simulate", "--variant", "italian",
                         "--out", str(out))
    assert code == 0
    assert lines[0] == "take every piece off the board"
    assert lines[-2] == f"OK   {out}: 64 squares on 5 expanders written"
    assert load_wiring(out).chips[1].squares[:3] == ("g2", "h2", "a3")


@pytest.mark.parametrize("fault, expected", [
    ("stuck:d4", ["FAIL 0x21 pin 14: closed with the board empty — a stuck switch, or a piece "
                  "left on the board",
                  "FAIL d4: no input closes — a dead switch, or its wire is off"]),
    ("dead:c1", ["FAIL c1: no input closes — a dead switch, or its wire is off"]),
    ("chatter:e5", ["FAIL 0x22 pin 9: chatters with the board empty — a loose joint or a broken "
                    "switch", "FAIL e5: no input closes — a dead switch, or its wire is off"]),
    ("missing-chip:0x24", []),  # it answers at 0x25: mapped there, nothing refused
])
def test_map_refuses_and_says_which(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                    fault: str, expected: list[str]) -> None:
    out = tmp_path / "w.toml"
    code, lines, _ = run(capsys, "hardware", "map", "--simulate", "--variant", "italian",
                         "--out", str(out), "--fault", fault)
    assert fails(lines) == expected
    assert code == (1 if expected else 0)
    assert out.exists() == (not expected)
    if not expected:
        assert [c.address for c in load_wiring(out).chips] == [0x20, 0x21, 0x22, 0x23, 0x25]


def test_map_learns_crossed_wires_as_built(tmp_path: Path) -> None:
    example = load_wiring(MCP8)
    bench = SimulatedBench(example, [PlantedFault("swap", ("a1", "c1"))])
    result = map_wiring(bench, find_variant("italian"), lambda _line: None)
    assert result.ok and result.squares[0x20][0] == "c1" and result.squares[0x20][2] == "a1"


def test_map_refuses_two_inputs_for_one_square() -> None:
    example = load_wiring(MCP8)
    bench = SimulatedBench(example)
    # a second switch wired from the same square to a spare pin (0x24 pin 12)
    spare = bench.board.chips["u5"]
    original = spare.external_low
    spare.external_low = lambda: original() | ((1 << 12) if "e5" in bench.board.pieces else 0)
    result = map_wiring(bench, find_variant("italian"), lambda _line: None)
    assert [f.line() for f in result.findings if f.level == "FAIL"] == [
        "FAIL e5: shows on two inputs: 0x22 pin 9, 0x24 pin 12 — two wires joined, or two "
        "switches under the square"]


def test_map_refuses_one_input_for_two_squares() -> None:
    example = load_wiring(MCP8)
    bench = SimulatedBench(example)
    chip = bench.board.chips["u1"]  # a1 on pin 0; b1's wire soldered to pin 0, not pin 1
    original = chip.external_low
    chip.external_low = lambda: (original() & ~0b10) | (1 if "b1" in bench.board.pieces else 0)
    result = map_wiring(bench, find_variant("italian"), lambda _line: None)
    assert [f.line() for f in result.findings if f.level == "FAIL"] == [
        "FAIL 0x20 pin 0: answers for b1 and a1 — two switches on one wire"]


# ---------------------------------------------------------------------------- test

def _test(capsys: pytest.CaptureFixture[str], tmp_path: Path, *faults: str,
          wiring: str = MCP8, variant: str = "italian") -> tuple[int, list[str]]:
    argv = ["hardware", "test", "--simulate", "--wiring", wiring, "--variant", variant,
            "--state-dir", str(tmp_path / "state")]
    for fault in faults:
        argv += ["--fault", fault]
    code, lines, err = run(capsys, *argv)
    assert err == ""
    return code, lines


def test_a_good_board_passes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, lines = _test(capsys, tmp_path)
    assert code == 0
    assert "OK   set-up: the initial position matches (IT 7.1), orientation 0° (IT 7.2)" in lines
    assert "OK   squares: 32 of 32 dark squares closed and opened cleanly" in lines
    # every sensor wired: the light squares too (issue 37)
    assert "OK   light squares: 32 of 32 light squares closed and opened cleanly" in lines
    assert "OK   GPIO 5: white's clock button pressed" in lines
    assert "OK   GPIO 22: black's clock button pressed" in lines
    assert "OK   OLED: test card shown — check every edge and square by eye" in lines
    assert "OK   GPIO 18: the buzzer sounded — listen for it" in lines
    # asked in the official numbering: 32 = h1 (IT 2.4), a piece there at the start
    assert "take the piece off 32 (h1)" in lines and "put a piece on 13 (b5)" in lines
    reports = sorted((tmp_path / "state" / "board-tests").iterdir())
    assert [p.suffix for p in reports] == [".json", ".txt"]
    data = json.loads(reports[0].read_text())
    assert data["verdict"] == "OK" and data["rotation"] == 0
    assert data["when"].endswith("+00:00") and reports[0].name.startswith(
        data["when"][:10].replace("-", ""))
    assert len(data["squares"]) == 64 and set(data["squares"].values()) == {"ok"}
    assert reports[1].read_text().startswith(f"board test of {MCP8} (italian) at {data['when']}: "
                                             "OK\n")


def test_a_good_10x10_board_passes(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, lines = _test(capsys, tmp_path, wiring=str(example_wiring("tca9555_10x10")),
                        variant="international")
    assert code == 0
    assert "OK   set-up: the initial position matches (IT 7.1), orientation 0° (INT 5.1)" in lines
    assert "OK   squares: 50 of 50 dark squares closed and opened cleanly" in lines


@pytest.mark.parametrize("faults, expected", [
    (["stuck:b1"], ["FAIL b1: stuck — never opens: a stuck switch or a short to ground"]),
    (["stuck:e4"], ["FAIL set-up: the initial position does not match (IT 7.1, IT 7.2): seen "
                    "but empty e4 — the squares below say why",
                    "FAIL e4: stuck — never opens: a stuck switch or a short to ground"]),
    (["stuck:d4"], ["FAIL set-up: the initial position does not match (IT 7.1, IT 7.2): seen "
                    "but empty d4 — the squares below say why",
                    "FAIL d4: stuck — never opens: a stuck switch or a short to ground"]),
    (["dead:d1"], ["FAIL set-up: the initial position does not match (IT 7.1, IT 7.2): not seen "
                   "d1 — the squares below say why",
                   "FAIL d1: dead — never closes: a broken switch, or its wire is off"]),
    (["dead:c4"], ["FAIL c4: dead — never closes: a broken switch, or its wire is off"]),
    (["chatter:g4"], ["FAIL g4: chattering — changes on its own: a loose joint or a broken "
                      "switch"]),
    (["chatter:a2"], ["FAIL a2: chattering — changes on its own: a loose joint or a broken "
                      "switch"]),
    (["swap:b1,d1"], ["FAIL b1: swapped with d1 — the wires of these squares are crossed: swap "
                      "them (or run damiera hardware map)",
                      "FAIL d1: swapped with b1 — the wires of these squares are crossed: swap "
                      "them (or run damiera hardware map)"]),
    (["swap:a4,b1"], ["FAIL set-up: the initial position does not match (IT 7.1, IT 7.2): not "
                      "seen b1; seen but empty a4 — the squares below say why",
                      "FAIL b1: swapped with a4 — the wires of these squares are crossed: swap "
                      "them (or run damiera hardware map)",
                      "FAIL a4: swapped with b1 — the wires of these squares are crossed: swap "
                      "them (or run damiera hardware map)"]),
])
def test_each_fault_is_named(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                             faults: list[str], expected: list[str]) -> None:
    code, lines = _test(capsys, tmp_path, *faults)
    assert code == 1
    assert [line for line in fails(lines)
            if not line.startswith(("FAIL squares", "FAIL light squares"))] == expected
    data = json.loads(next((tmp_path / "state" / "board-tests").glob("*.json")).read_text())
    assert data["verdict"] == "FAIL"


def test_a_missing_chip_leaves_its_squares_untested(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    code, lines = _test(capsys, tmp_path, "missing-chip:0x21")
    assert code == 1
    assert fails(lines)[0] == ("FAIL 0x21: does not answer ([Errno 121] Remote I/O error); not "
                               "tested: g2 h2 a3 b3 c3 d3 e3 f3 g3 h3 a4 b4 c4 d4 — run damiera "
                               "hardware probe")
    assert "WARN g2: not tested" in lines
    assert "FAIL squares: 25 of 32 dark squares closed and opened cleanly" in lines


def test_the_bus_off_is_a_board_fault(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, lines = _test(capsys, tmp_path, "bus-off")
    assert code == 1 and lines[0].startswith("FAIL bus: [Errno 2]")


def test_the_test_card_is_drawn_on_the_oled() -> None:
    from hardware_mocks.display import lit_pixels
    wiring = load_wiring(MCP8)
    bench = SimulatedBench(wiring)
    variant = find_variant("italian")
    report = run_board_test(bench, wiring, variant, Board(None, variant).occupied_algebraic(),
                            lambda _line: None)
    assert report.verdict == "OK"
    assert lit_pixels(bench.oled.image, (4, 4, 68, 20)) == 8 * 64  # the checkerboard's top rows


def test_a_board_too_small_for_the_variant_is_bad_input(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    code, lines, err = run(capsys, "hardware", "test", "--simulate", "--wiring", MCP8,
                           "--variant", "international", "--state-dir", str(tmp_path))
    assert code == 2 and lines == []
    assert err == f"damiera: {MCP8}: a 8x8 board cannot play international\n"


# ---------------------------------------------------------------------------- watch

def test_watch_draws_the_board_and_counts_bounces(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = run(capsys, "hardware", "watch", "--simulate", "--seconds", "1",
                         "--fault", "stuck:d4", "--fault", "chatter:e5")
    assert code == 0
    assert lines[:3] == [" 8 . . . . . . . .", " 7 . . . . . . . .", " 6 . . . . . . . ."]
    assert lines[3] in (" 5 . . . . # . . .", " 5 . . . . . . . .")  # e5 as first read
    assert lines[4:9] == [" 4 . . . # . . . .", " 3 . . . . . . . .", " 2 . . . . . . . .",
                          " 1 . . . . . . . .", "   a b c d e f g h"]
    assert lines[9].startswith("    0.010 e5 ")
    assert lines[-1].startswith("bounce e5: ") and int(lines[-1].split(": ")[1]) >= 90
    assert not any("d4" in line for line in lines[9:])


def test_watch_page(capsys: pytest.CaptureFixture[str]) -> None:
    import json
    import socket
    import urllib.request

    from pi.drivers.bringup import WatchView, watch
    from pi.hardware_cli import serve_watch
    wiring = load_wiring(MCP8)
    bench = SimulatedBench(wiring, [PlantedFault("stuck", ("d4",)),
                                    PlantedFault("chatter", ("e5",))])
    view = WatchView(wiring.size)
    watch(bench, wiring, lambda _line: None, 0.5, view)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = serve_watch(view, "127.0.0.1", port)
    try:
        base = f"http://127.0.0.1:{port}"
        page = urllib.request.urlopen(base + "/", timeout=5).read().decode()
        state = json.loads(urllib.request.urlopen(base + "/watch.json", timeout=5).read())
    finally:
        server.shutdown()
        server.server_close()
    assert "watch.json" in page and "<title>damiera hardware watch</title>" in page
    assert state["size"] == 8 and "d4" in state["closed"]
    server = serve_watch(view, "127.0.0.1", port, language="it")  # the terminal's language
    try:
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read().decode()
    finally:
        server.shutdown()
        server.server_close()
    title = translations("it").gettext("damiera hardware watch")
    assert title != "damiera hardware watch" and f"<h1>{title}</h1>" in page
    assert '<html lang="it">' in page
    assert state["bounces"]["e5"] >= 40 and state["changes"][-1].endswith(("e5 open", "e5 closed"))


def test_watch_command_with_http(capsys: pytest.CaptureFixture[str]) -> None:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, lines, _ = run(capsys, "hardware", "watch", "--simulate", "--seconds", "1",
                         "--http", f"127.0.0.1:{port}")
    assert code == 0 and lines[0] == f"watch page: http://127.0.0.1:{port}/"
    code, _, err = run(capsys, "hardware", "watch", "--simulate", "--http", "nowhere")
    assert code == 2 and err.startswith("damiera: --http: expected host:port")


def test_the_report_goes_to_the_configs_state_directory(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    config = tmp_path / "damiera.toml"
    config.write_text(f'state_dir = "{tmp_path / "kept"}"\n')
    code, lines, _ = run(capsys, "hardware", "test", "--simulate", "--wiring", MCP8,
                         "--variant", "italian", "--config", str(config))
    assert code == 0 and lines[-1].startswith(f"report: {tmp_path / 'kept' / 'board-tests'}/")


@pytest.mark.parametrize("faults, expected", [
    ([], []),
    (["dead:c4"], ["FAIL c4: dead — never closes: a broken switch, or its wire is off"]),
    (["stuck:b1"], ["FAIL b1: stuck — never opens: a stuck switch or a short to ground"]),
    (["chatter:g4"], ["FAIL g4: chattering — changes on its own: a loose joint or a broken "
                      "switch"]),
])
def test_the_free_test_ticks_squares_off(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                         faults: list[str], expected: list[str]) -> None:
    argv = ["hardware", "test", "--free", "--simulate", "--wiring", MCP8, "--variant",
            "italian", "--state-dir", str(tmp_path)]
    for fault in faults:
        argv += ["--fault", fault]
    code, lines, _ = run(capsys, *argv)
    assert [line for line in fails(lines)
            if not line.startswith(("FAIL squares", "FAIL light squares"))] == expected
    assert code == (1 if expected else 0)
    asked = "lift and put back, or put and lift, any square: "
    assert lines[1] == asked + ("63 left" if faults == ["chatter:g4"] else "64 left")


def test_the_free_test_ends_when_crossed_wires_tick_nothing(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # swapped wires cannot be told in any order: it ends, one of the two not ticked
    code, lines, _ = run(capsys, "hardware", "test", "--free", "--simulate", "--wiring", MCP8,
                         "--variant", "italian", "--state-dir", str(tmp_path),
                         "--fault", "swap:b1,d1")
    assert code == 1
    assert "FAIL squares: 31 of 32 dark squares closed and opened cleanly" in lines


@pytest.mark.parametrize("fault, verdict", [("dead:a1", "dead"), ("chatter:b8", "chattering")])
def test_a_dead_or_chattering_light_square_fails_the_test(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, fault: str, verdict: str) -> None:
    """Issue 37: ``hardware test`` passed a board whose light-square sensors were dead or
    chattering ("32 of 32 dark squares"), though the parts list needs them to see a board
    turned the wrong way. Every sensor wired is tested."""
    code, lines = _test(capsys, tmp_path, fault)
    assert code == 1
    square = fault.split(":")[1]
    assert any(line.startswith(f"FAIL {square}: {verdict}") for line in lines), lines
    assert "FAIL light squares: 31 of 32 light squares closed and opened cleanly" in lines
    assert "OK   squares: 32 of 32 dark squares closed and opened cleanly" in lines


def test_map_learns_the_clock_buttons_and_takes_the_interrupt_and_buzzer(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Issue 37: ``map`` wrote a wiring without the clock buttons, the interrupt line and the
    buzzer, and the daemon then started a clocked game on a board with no buttons. Each
    player's clock button is learnt by a press; the INT line and the buzzer, which no press
    shows, are given (``--interrupt``, ``--buzzer``); the file passes ``run``'s check."""
    from pi.board.config import Config
    from pi.run import check_clock_buttons
    out = tmp_path / "wiring.toml"
    code, lines, err = run(capsys, "hardware", "map", "--variant", "italian", "--out", str(out),
                           "--simulate", "--interrupt", "17", "--buzzer", "18")
    assert code == 0, (lines, err)
    assert "OK   GPIO 5: white's clock button" in lines
    assert "OK   GPIO 22: black's clock button" in lines
    mapped, example = load_wiring(out), load_wiring(example_wiring("mcp23017_8x8"))
    assert mapped.buttons == {"white": {"clock": 5}, "black": {"clock": 22}}
    assert {s: c["clock"] for s, c in example.buttons.items()} == {"white": 5, "black": 22}
    assert (mapped.interrupt_gpio, mapped.buzzer_gpio) == (17, 18)
    check_clock_buttons(Config(), mapped)  # a clocked game is taken on it
    assert "not learnt" not in out.read_text()
    code, _, err = run(capsys, "hardware", "map", "--variant", "italian", "--out", str(out),
                       "--simulate", "--buzzer", "40")
    assert code == 2 and "--buzzer: a BCM GPIO 2..27" in err
