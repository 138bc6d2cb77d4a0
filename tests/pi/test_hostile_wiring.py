"""Wiring files written by a hostile user: every one is refused with one short line naming the
file (and the key where the file parses), never a traceback, a hang or a memory blow-up."""

import pathlib

import pytest

from engine.errors import DamieraError
from pi.errors import WiringError
from pi.wiring import MAX_WIRING_BYTES, load_wiring, parse_wiring

CORPUS = sorted((pathlib.Path(__file__).parent / "hostile_wiring").glob("*.toml"))
#: File → the key its refusal must name ("" = the file does not parse as TOML at all).
KEYS = {
    "address_5000_digits": "", "board_4400_digits": "", "nested_lists_5000": "",
    "nested_tables_3000": "", "not_utf8": "",
    "address_negative": "chips[0].address", "auto_candidates_huge": "auto_candidates",
    "baudrate_huge": "serial.baudrate", "baudrate_negative": "serial.baudrate",
    "bus_huge": "bus", "chatter_changes_huge": "scan.chatter_changes",
    "chip_name_100k": "chips[0].name", "debounce_1e308": "scan.debounce_ms",
    "debounce_400_digits": "scan.debounce_ms", "gpio_negative": "interrupt.gpio",
    "matrix_pin_arabic_digit": "matrix.columns[0]", "matrix_pin_superscript": "matrix.columns[0]",
    "orientation_huge": "orientation", "poll_nan": "scan.poll_ms",
    "retry_inf": "scan.retry_max_ms", "rotate_1e400": "display.rotate",
    "square_superscript": "chips[0].squares[0]", "stuck_minus_inf": "scan.stuck_after_s",
    "unknown_key_50k": "'kkkk",
}


def test_the_corpus_is_all_listed():
    assert {p.stem for p in CORPUS} == set(KEYS)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_hostile_file_is_one_short_line_naming_file_and_key(path):
    with pytest.raises(WiringError) as e:
        load_wiring(path)
    message = str(e.value)
    assert "\n" not in message and len(message) < 300, message
    key = KEYS[path.stem]
    assert message.startswith(f"{path}: {key}"), message
    assert isinstance(e.value, DamieraError)  # the CLI's bad-input path: one line, exit 2


def test_a_huge_file_is_refused_after_reading_at_most_the_limit(tmp_path):
    big = tmp_path / "big.toml"
    big.write_text("board = 8\n" + "# padding\n" * (MAX_WIRING_BYTES // 10 + 10))
    with pytest.raises(WiringError, match=r"big.toml: larger than 256 KiB"):
        load_wiring(big)


def test_dev_zero_is_refused_without_reading_it_all():
    with pytest.raises(WiringError, match="larger than"):
        load_wiring("/dev/zero")


def test_a_huge_text_is_refused_before_parsing():
    with pytest.raises(WiringError, match="larger than"):
        parse_wiring("x = 1\n" * MAX_WIRING_BYTES, "big.toml")


@pytest.mark.parametrize("value", ["1e308", "-1e308", "nan", "+inf", "-inf", "-0.0", "-5",
                                   "1" * 4000, "1_000_000_000_000_000_000_000"])
@pytest.mark.parametrize("key", ["debounce_ms", "poll_ms", "retry_ms", "retry_max_ms",
                                 "chatter_window_ms", "chatter_recover_ms", "stuck_after_s",
                                 "config_check_ms"])
def test_absurd_scan_numbers_are_refused_or_in_range(key, value):
    text = ('board = 8\n[[chips]]\nname = "u1"\ntype = "mcp23017"\naddress = 0x20\n'
            f'squares = ["a1"]\n[scan]\n{key} = {value}\n')
    try:
        w = parse_wiring(text, "board.toml")
    except WiringError as e:
        assert "\n" not in str(e) and len(str(e)) < 200
        assert str(e).startswith(f"board.toml: scan.{key}: ")
        return
    # accepted only when it is a sensible finite value
    assert value in ("-0.0",) and w.scan is not None
