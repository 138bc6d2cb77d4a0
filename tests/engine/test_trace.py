"""engine.trace: malformed traces are refused with the line number (docs/trace-format.md)."""

from __future__ import annotations

import itertools
import json
from typing import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import TraceError
from engine.events import ButtonPressed, PieceLifted, SnapshotTaken
from engine.replay import replay_lines
from engine.trace import MAX_LINE_CHARS, one_line_problem, parse_trace, read_trace, split_lines

START = json.dumps({"type": "start", "variant": "italian", "fen": None, "clock": True,
                    "transcribed": True})


def test_good_trace_squares_become_algebraic() -> None:
    start, events = parse_trace([
        START,
        '{"t": 1, "type": "lift", "square": 22}',
        '{"t": 1.5, "type": "place", "square": "c4"}',
        '{"t": 2, "type": "snapshot", "occupied": [1, "b1", "d4"]}',
        '{"t": 3, "type": "button", "name": "clock", "side": "white"}',
        "",
        '{"t": 4, "type": "end"}',
    ])
    assert start.variant == "italian" and start.clock and start.settle == 2.0
    assert events[0] == PieceLifted(1.0, "d3")
    assert isinstance(events[2], SnapshotTaken) and events[2].occupied == {"a8", "b1", "d4"}
    assert isinstance(events[3], ButtonPressed)


@pytest.mark.parametrize("line, where, words", [
    ("{not json", 2, "bad JSON"),
    ('[1, 2]', 2, "object"),
    ('{"t": 1, "type": "jump", "square": 22}', 2, "unknown event type"),
    ('{"t": 1, "type": "button", "name": "pause", "side": "white"}', 2, "unknown button"),
    ('{"t": 1, "type": "button", "name": "clock", "side": "red"}', 2, "side"),
    ('{"t": 1, "type": "arbiter", "action": "dance"}', 2, "unknown arbiter action"),
    ('{"t": 1, "type": "arbiter", "action": "adjudicate"}', 2, "result"),
    ('{"t": 1, "type": "lift", "square": 33}', 2, "no square"),
    ('{"t": 1, "type": "lift", "square": "z9"}', 2, "no square"),
    ('{"t": 1, "type": "lift"}', 2, "missing key 'square'"),
    ('{"type": "lift", "square": 22}', 2, "missing key 't'"),
    ('{"t": "soon", "type": "lift", "square": 22}', 2, "'t' must be a number"),
    ('{"t": 1, "type": "snapshot", "occupied": "all"}', 2, "'occupied'"),
])
def test_malformed_lines_are_refused(line: str, where: int, words: str) -> None:
    with pytest.raises(TraceError) as info:
        parse_trace([START, line])
    assert info.value.line == where
    assert words in info.value.message


def test_time_going_backwards() -> None:
    with pytest.raises(TraceError) as info:
        parse_trace([START, '{"t": 2, "type": "lift", "square": 22}',
                      '{"t": 1, "type": "place", "square": 18}'])
    assert info.value.line == 3 and "backwards" in info.value.message


@pytest.mark.parametrize("first, words", [
    ('{"t": 0, "type": "lift", "square": 22}', "no start line"),
    ('{"type": "start", "variant": "russian"}', "unknown variant"),
    ('{"type": "start", "variant": "italian", "fen": "X:W1"}', "invalid FEN"),
    ('{"type": "start", "variant": "italian", "clock": "yes"}', "'clock'"),
    ('{"type": "start"}', "missing key 'variant'"),
])
def test_bad_start(first: str, words: str) -> None:
    with pytest.raises(TraceError) as info:
        parse_trace([first])
    assert info.value.line == 1 and words in info.value.message


def test_empty_trace_has_no_start() -> None:
    with pytest.raises(TraceError, match="no start line"):
        parse_trace([])


def test_brazilian_algebraic_fen_and_light_squares() -> None:
    start, events = parse_trace([
        '{"type": "start", "variant": "brazilian", "fen": "W:Wc3:Bd4", "clock": false, "settle": 1}',
        '{"t": 0.5, "type": "place", "square": "d3"}',
    ])
    assert start.settle == 1.0 and not start.clock
    assert events[0].square == "d3"  # a light square: sensors lie under it too


# --- the reader streams (issue 8): events are parsed as they are consumed ----------------------

def endless_trace() -> Iterator[str]:
    yield START
    t = 0.0
    while True:
        t += 0.5
        yield json.dumps({"t": t, "type": "lift", "square": 22})
        yield json.dumps({"t": t + 0.25, "type": "place", "square": 22})


def test_events_come_before_the_trace_ends() -> None:
    start, events = read_trace(endless_trace())  # an endless trace: only a stream can answer
    first = list(itertools.islice(events, 5))
    assert start.variant == "italian"
    assert first[0] == PieceLifted(0.5, "d3") and len(first) == 5


def test_a_bad_line_is_refused_when_it_is_reached() -> None:
    lines = [START, '{"t": 1, "type": "lift", "square": 22}', '{"t": 2, "type": "lift"}']
    start, events = read_trace(iter(lines))
    assert next(events) == PieceLifted(1.0, "d3")
    with pytest.raises(TraceError, match="^line 3: missing key 'square'"):
        next(events)


def test_no_start_line_is_refused_at_once() -> None:
    with pytest.raises(TraceError, match="^line 1: no start line"):
        read_trace(iter(['{"t": 1, "type": "lift", "square": 22}']))


def test_replay_consumes_any_iterable_of_lines() -> None:
    lines = (line for line in [START, '{"t": 1, "type": "lift", "square": 22}',
                               '{"t": 2, "type": "place", "square": 18}',
                               '{"t": 3, "type": "button", "name": "clock", "side": "white"}'])
    report = replay_lines(lines)
    assert [m["notation"] for m in report.moves] == ["22-18"]


@pytest.mark.parametrize("line,words", [
    ('{"t": 1e308, "type": "end"}', "'t' is too large"),
    ('{"t": NaN, "type": "end"}', "'t' must be a finite number"),
    ('{"t": -Infinity, "type": "end"}', "'t' must be a finite number"),
    ('{"t": ' + "9" * 4000 + ', "type": "end"}', "'t' is too large"),
    ('{"t": ' + "9" * 5000 + ', "type": "end"}', "bad JSON"),
    ('{"t": 1, "type": "lift", "square": "²"}', "no square '²'"),
    ('{"t": 1, "type": "lift", "square": "٢٢"}', "no square '٢٢'"),
    ('{"t": 1, "type": "lift", "square": ' + "2" * 400 + "}", "no square 2222"),
    ('{"t": 1, "type": "lift", "square": "' + "x" * 10_000 + '"}', "(10000 chars)"),
    ('{"t": 1, "type": "lift", "square": 22}' + " " * MAX_LINE_CHARS, "line longer than"),
])
def test_absurd_numbers_and_long_values_are_refused_with_an_excerpt(line: str, words: str) -> None:
    with pytest.raises(TraceError) as info:
        parse_trace([START, line])
    assert str(info.value).startswith("line 2: ") and words in str(info.value)
    assert len(str(info.value)) < 200


@pytest.mark.parametrize("settle", ["0", "-1", "1e308", "3601", "NaN", "true", '"2"'])
def test_settle_out_of_range_is_refused(settle: str) -> None:
    with pytest.raises(TraceError, match="^line 1: 'settle'|^line 1: settle"):
        parse_trace(['{"type": "start", "variant": "italian", "settle": ' + settle + "}"])


# issue 38: a journal line ends at "\n" alone; names are one line where they enter

@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n")), max_size=8))
def test_split_lines_splits_at_newline_alone(lines: list[str]) -> None:
    text = "".join(line + "\n" for line in lines)
    assert split_lines(text) == lines
    assert split_lines(text + "torn") == lines + ["torn"]


def test_a_name_with_a_line_separator_stays_in_its_journal_line() -> None:
    start = json.dumps({**json.loads(START), "white": "Ann\u2028Lee", "black": "Bob\x85Ray"},
                       ensure_ascii=False)
    text = f'{start}\n{{"t": 1, "type": "end"}}\n'
    assert len(text.splitlines()) == 4  # what broke the hold: the start line cut in three
    got, _ = parse_trace(split_lines(text))
    assert dict(got.tags) == {"white": "Ann\u2028Lee", "black": "Bob\x85Ray"}


@pytest.mark.parametrize("name,code", [("Ann\u2028Lee", "U+2028"), ("Bob\x85Ray", "U+0085"),
                                       ("a\u2029b", "U+2029"), ("a\tb", "U+0009"),
                                       ("a\x7fb", "U+007F")])
def test_one_line_problem_names_the_character(name: str, code: str) -> None:
    problem = one_line_problem(name)
    assert problem is not None and code in problem and "\n" not in problem


def test_a_plain_name_is_one_line() -> None:
    assert one_line_problem("Anna Maria Öztürk-Lê 李") is None
