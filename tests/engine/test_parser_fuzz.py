"""Fuzzing the readers of outside text (issue 8): FEN, move notation, PDN, traces, time controls.
Whatever the text, a reader returns or raises one of the project's errors (``DamieraError``, a
ValueError), never anything else, and never hangs (each example has a deadline)."""

from __future__ import annotations

import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.board import Board, parse_fen
from engine.errors import DamieraError
from engine.pdn import read_pdn
from engine.timecontrol import (TimeControl, parse_clock_comment, parse_pdn_time,
                                parse_time_control_tag)
from engine.trace import parse_trace
from engine.variants import VARIANTS

FUZZ = settings(max_examples=300, deadline=2000, suppress_health_check=[HealthCheck.too_slow])
variants = st.sampled_from(sorted(VARIANTS))

# Numbers as text, of every absurd size and kind (non-ASCII digits that int() reads included).
number_text = st.one_of(
    st.integers(min_value=-10**6, max_value=10**6).map(str),
    st.integers(min_value=1, max_value=5000).map(lambda n: "9" * n),
    st.sampled_from(["NaN", "Infinity", "-inf", "1e308", "1e-400", "0x1F", "1_0", "²", "٣٢",
                     "１２", "3.5", "-0", "+7", ""]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
)


def tokens_of(*alphabet: str) -> st.SearchStrategy[str]:
    """Texts made of well-known pieces of a syntax, numbers of any kind and stray characters."""
    piece = st.one_of(st.sampled_from(alphabet), number_text, st.characters())
    return st.lists(piece, max_size=30).map("".join)


fen_text = st.one_of(st.text(max_size=60),
                     tokens_of("W", "B", "K", ":", ",", "-", "W:W", ":B", "H", "F", "a", "j", "."))
pdn_text = st.one_of(st.text(max_size=200), tokens_of(
    "[", "]", '"', "GameType", "FEN", "TimeControl", "Variant", "Bianco", "WhiteTime", " ", "\n",
    "1.", "1...", "...", "-", "x", ":", "22-18", "10-14", "22x13", "{", "}", "(", ")", "!", "?",
    "(!)", "$", "%", ";", "/FEN", "1-0", "2-0", "*", "[%clock w0:01:00 B0:01:00]", "SetUp"))
time_text = st.one_of(st.text(max_size=40), tokens_of(":", "/", "+", "*", "?", "-", "1", "30"))


@FUZZ
@given(fen_text, variants)
def test_fen_reader_raises_only_its_errors(text: str, variant: str) -> None:
    try:
        parse_fen(text, VARIANTS[variant])
    except DamieraError:
        pass


@FUZZ
@given(tokens_of("-", "x", ":", "22", "18", "a", "c3", "d4", " ", "!", "?"), variants)
def test_move_reader_raises_only_its_errors(text: str, variant: str) -> None:
    try:
        Board(variant=variant).parse_move(text)
    except DamieraError:
        pass


@FUZZ
@given(pdn_text, st.one_of(st.none(), variants))
def test_pdn_reader_raises_only_its_errors(text: str, variant: str | None) -> None:
    try:
        read_pdn(text, variant)
    except DamieraError:
        pass


@FUZZ
@given(time_text)
def test_time_readers_raise_only_their_errors(text: str) -> None:
    for reader in (TimeControl.parse, parse_time_control_tag, parse_pdn_time):
        try:
            reader(text)
        except DamieraError:
            pass
    assert parse_clock_comment(text) is None or len(parse_clock_comment(text) or ()) == 2


# JSON values of every kind, numbers of absurd size included, for the keys a trace reads.
json_numbers = st.one_of(st.integers(min_value=-10**30, max_value=10**30),
                         st.floats(allow_nan=True, allow_infinity=True),
                         st.just(10**4000), st.sampled_from(["²", "٣٢", "22", "e3", "1e3"]))
json_values = st.recursive(st.one_of(st.none(), st.booleans(), json_numbers, st.text(max_size=8)),
                           lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                           max_leaves=8)
KEYS = ["type", "t", "square", "occupied", "name", "side", "action", "result", "text", "variant",
        "fen", "clock", "settle", "time_control", "transcribed", "white", "round"]
TYPES = ["start", "lift", "place", "snapshot", "button", "arbiter", "end", "fault", "restart"]
trace_objects = st.fixed_dictionaries(
    {"type": st.sampled_from(TYPES)},
    optional={k: json_values | (st.sampled_from(TYPES) if k == "type" else json_numbers)
              for k in KEYS[1:]})


def dump(obj: object) -> str:
    try:
        return json.dumps(obj)  # NaN and Infinity too, as Python's json writes (and reads) them
    except ValueError:  # an integer of more digits than str() writes
        return '{"t": ' + "9" * 5000 + "}"


@FUZZ
@given(st.lists(st.one_of(trace_objects.map(dump), st.text(max_size=40)), max_size=12),
       st.sampled_from(sorted(VARIANTS)))
def test_trace_reader_raises_only_its_errors(lines: list[str], variant: str) -> None:
    start = json.dumps({"type": "start", "variant": variant})
    for candidate in ([start, *lines], lines):
        try:
            _, events = parse_trace(candidate)
        except DamieraError:
            continue
        for e in events:  # what is accepted is sane
            assert math.isfinite(e.t) and e.t >= 0
