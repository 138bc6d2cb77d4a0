"""``damiera hardware calibrate`` and ``hardware test`` on an analog Hall board (issue 40): the
levels stored per square, and the squares that cannot tell the pieces apart named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pi.cli import main
from pi.drivers.calibration import calibration_toml, derive, margins, store_calibration
from pi.drivers.wiring import example_wiring, load_wiring


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out.splitlines(), out.err


@pytest.fixture(params=["ads7828_8x8", "ads7128_10x10"])
def board(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "board.toml"
    shutil.copy(example_wiring(request.param), path)
    return path, "english" if request.param.endswith("8x8") else "international"


def calibrate(capsys: pytest.CaptureFixture[str], path: Path, *faults: str) -> int:
    argv = ["hardware", "calibrate", "--wiring", str(path), "--simulate", "--reads", "8"]
    for fault in faults:
        argv += ["--fault", fault]
    code, lines, err = run(capsys, *argv)
    assert err == "" and lines[-1].startswith("calibrated ")
    return code


def test_a_sound_board_is_calibrated_and_passes(capsys: pytest.CaptureFixture[str],
                                                board: tuple[Path, str]) -> None:
    path, variant = board
    before = path.read_text(encoding="utf-8")
    assert calibrate(capsys, path) == 0
    wiring = load_wiring(path)
    assert wiring.analog is not None and set(wiring.analog.calibration) == wiring.sensed_squares
    assert path.read_text(encoding="utf-8").startswith(before.rstrip())  # the rest kept
    code, lines, _err = run(capsys, "hardware", "test", "--wiring", str(path), "--variant",
                            variant)
    assert code == 0 and lines[-1].startswith("OK: ")
    assert not [line for line in lines if line.startswith("FAIL ")]


def test_a_sensor_30_percent_low_and_a_clipping_sensor_are_named(
        capsys: pytest.CaptureFixture[str], board: tuple[Path, str]) -> None:
    path, variant = board
    assert calibrate(capsys, path, "gain:c3:0.7", "clip:e3:80") == 1
    code, lines, _err = run(capsys, "hardware", "test", "--wiring", str(path), "--variant",
                            variant)
    named = [line for line in lines if line.startswith("FAIL ")]
    assert code == 1 and lines[-1].startswith("FAIL: ") and lines[-1].endswith("2 named")
    (gain,) = [line for line in named if line.startswith("FAIL c3:")]
    assert "sensor gain 7" in gain and "% of the board's median" in gain
    (thin,) = [line for line in named if line.startswith("FAIL e3:")]
    assert "man/king margin -" in thin and "codes" in thin


def test_calibrating_a_second_time_replaces_the_table(capsys: pytest.CaptureFixture[str],
                                                      board: tuple[Path, str]) -> None:
    path, _variant = board
    calibrate(capsys, path, "gain:c3:0.7")
    calibrate(capsys, path)
    text = path.read_text(encoding="utf-8")
    assert text.splitlines().count("[calibration]") == 1
    cal = load_wiring(path).analog
    assert cal is not None and abs(cal.square("c3").gain - 1) < 0.2


def test_an_uncalibrated_board_is_tested_on_its_nominal_levels(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _err = run(capsys, "hardware", "test", "--wiring",
                            str(example_wiring("ads7828_8x8")), "--variant", "english")
    assert lines[0].startswith("WARN ") and "not calibrated" in lines[0]
    assert code == 0


@pytest.mark.parametrize("argv,message", [
    (["hardware", "calibrate", "--wiring", str(example_wiring("mcp23017_8x8")), "--simulate"],
     "not an analog Hall board"),
    (["hardware", "calibrate", "--wiring", str(example_wiring("ads7828_8x8")), "--simulate",
      "--fault", "gain:c3:abc"], "gain takes SQ:NUMBER"),
    (["hardware", "calibrate", "--wiring", str(example_wiring("ads7828_8x8")), "--simulate",
      "--fault", "clip:d3:80"], "has no sensor"),
    (["hardware", "calibrate", "--wiring", str(example_wiring("ads7828_8x8")), "--simulate",
      "--reads", "0"], "--reads"),
])
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                          message: str) -> None:
    code, lines, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and message in err


def test_a_level_that_never_moved_names_the_squares() -> None:
    flat = {"a1": {level: (2048.0, 0.5) for level in ("black_king", "black", "empty", "white",
                                                     "white_king")}}
    with pytest.raises(ValueError, match="a1"):
        derive(flat)


def test_store_refuses_what_would_not_parse_and_leaves_the_file(tmp_path: Path) -> None:
    path = tmp_path / "board.toml"
    shutil.copy(example_wiring("ads7828_8x8"), path)
    before = path.read_text(encoding="utf-8")
    measured = {"e2": {"black_king": (1000.0, 0.5), "black": (1400.0, 0.5),
                       "empty": (2048.0, 0.5), "white": (2700.0, 0.5),
                       "white_king": (3100.0, 0.5)}}
    table = derive(measured)
    assert "e2 = {" in calibration_toml(table)
    from pi.drivers.errors import WiringError
    with pytest.raises(WiringError, match="e2"):
        store_calibration(path, table)
    assert path.read_text(encoding="utf-8") == before
    assert margins(load_wiring(path))  # nominal levels: margins computed for every square


def test_probe_names_a_silent_adc_and_a_square_that_is_not_empty() -> None:
    from engine.board import Piece
    from engine.colour import WHITE
    from hardware_mocks.smbus import FakeI2CBus
    from hardware_mocks.virtual_board import VirtualBoard
    from pi.drivers.calibration import probe_analog
    wiring = load_wiring(example_wiring("ads7828_8x8"))
    bus = FakeI2CBus()
    board = VirtualBoard(wiring, bus)
    board.set_occupied(["e3"], {"e3": Piece(WHITE, False)})  # a man left on the board
    del bus.chips[0x4B]  # u4 not soldered
    found = [f.line() for f in probe_analog(wiring, bus.open())]
    assert "FAIL 0x4b: u4 ADS7828 does not answer — check its supply, SDA/SCL and its address " \
           "pins" in found
    assert "OK   0x48: u1 ADS7828: 8 inputs read" in found
    (left,) = [line for line in found if line.startswith("FAIL e3: ")]
    assert "reads a piece with the board empty" in left


def test_watch_shows_an_analog_boards_occupancy(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = run(capsys, "hardware", "watch", "--wiring",
                           str(example_wiring("ads7828_8x8")), "--simulate", "--seconds", "1")
    assert code == 0 and err == "" and lines
