"""Wiring files written by a hostile user: every one is refused with one short line naming the
file (and the key where the file parses), never a traceback, a hang or a memory blow-up."""

import pathlib

import pytest

from engine.errors import DamieraError
from pi.drivers.errors import WiringError
from pi.drivers.wiring import MAX_WIRING_BYTES, load_wiring, parse_wiring

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


# -- property: any single hostile value anywhere in a valid file is refused in one line ----------

import json  # noqa: E402
import math  # noqa: E402
import tomllib  # noqa: E402

from hypothesis import given, settings, strategies as st  # noqa: E402

from pi.drivers.wiring import EXAMPLES_DIR  # noqa: E402


def to_toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) \
            else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(to_toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {to_toml_value(x)}" for k, x in v.items()) + "}"


def to_toml(doc):
    return "\n".join(f"{json.dumps(k)} = {to_toml_value(v)}" for k, v in doc.items()) + "\n"


HOSTILE = st.recursive(
    st.one_of(st.integers(), st.integers(min_value=10 ** 300, max_value=10 ** 1000),
              st.floats(), st.booleans(), st.text(max_size=30),
              st.sampled_from(["²", "u1:²", "u1:٣", "a¹", "auto", "", "x" * 5000])),
    lambda inner: st.one_of(st.lists(inner, max_size=5),
                            st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=12)
BASES = [tomllib.loads((EXAMPLES_DIR / f"{n}.toml").read_text())
         for n in ("mcp23017_8x8", "matrix_mcp23017_8x8", "tca9555_10x10")]


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, prefix + (i,))


def replaced(value, path, new):
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: replaced(value[head], rest, new)}
    return [replaced(v, rest, new) if i == head else v for i, v in enumerate(value)]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(range(len(BASES))), st.data(), HOSTILE)
def test_any_hostile_value_anywhere_is_refused_in_one_line_or_accepted(base_index, data, value):
    base = BASES[base_index]
    where = data.draw(st.sampled_from([p for p in paths(base) if p]))
    text = to_toml(replaced(base, where, value))
    try:
        parse_wiring(text, "board.toml")
    except WiringError as e:
        message = str(e)
        assert "\n" not in message and len(message) < 400, message
        assert message.startswith("board.toml: ")


def test_the_property_tests_emitter_writes_the_examples_back_faithfully():
    for base in BASES:
        assert tomllib.loads(to_toml(base)) == base
        parse_wiring(to_toml(base), "board.toml")
