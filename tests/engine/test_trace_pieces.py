"""Which piece is where (issue 40): the optional ``piece``/``reading`` keys of ``place`` lines,
the ``piece`` line and a snapshot's ``pieces`` are read, written back identically, and absent
from every line of a board that sees occupancy only (docs/trace-format.md)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.board import Piece
from engine.colour import BLACK, WHITE
from engine.errors import TraceError
from engine.events import (PIECE_CODES, Event, PieceChanged, PieceLifted, PiecePlaced, SnapshotTaken,
                           parse_piece, piece_code)
from engine.replay import replay_lines
from engine.trace import MAX_READING, parse_trace
from engine.variants import find_variant

START = json.dumps({"type": "start", "variant": "italian", "fen": None, "clock": True,
                    "transcribed": True})
WM, BM, WK, BK = Piece(WHITE, False), Piece(BLACK, False), Piece(WHITE, True), Piece(BLACK, True)


def _read(*lines: dict[str, object]) -> list[Event]:
    return parse_trace([START] + [json.dumps(line) for line in lines])[1]


def test_piece_codes_name_the_four_pieces() -> None:
    assert PIECE_CODES == {"wm": WM, "bm": BM, "wk": WK, "bk": BK}
    for code, piece in PIECE_CODES.items():
        assert piece_code(piece) == code and parse_piece(code) == piece
    with pytest.raises(ValueError, match="'wm', 'bm', 'wk' or 'bk'"):
        parse_piece("WM")


def test_place_with_piece_and_reading() -> None:
    events = _read({"t": 1, "type": "place", "square": 18, "piece": "wk", "reading": 2.04},
                   {"t": 2, "type": "place", "square": "b6", "piece": "bm", "reading": -1},
                   {"t": 3, "type": "place", "square": "c5", "reading": 0.98})
    assert events == [PiecePlaced(1.0, "c4", WK, 2.04), PiecePlaced(2.0, "b6", BM, -1.0),
                      PiecePlaced(3.0, "c5", None, 0.98)]
    assert events[0].to_dict() == {"t": 1.0, "type": "place", "square": "c4", "piece": "wk",
                                   "reading": 2.04}


def test_piece_line() -> None:
    events = _read({"t": 1, "type": "piece", "square": 22, "piece": "wk", "reading": 1.97},
                   {"t": 2, "type": "piece", "square": "d3", "piece": "wm"})
    assert events == [PieceChanged(1.0, "d3", WK, 1.97), PieceChanged(2.0, "d3", WM, None)]
    assert events[1].to_dict() == {"t": 2.0, "type": "piece", "square": "d3", "piece": "wm"}


def test_snapshot_with_pieces() -> None:
    events = _read({"t": 1, "type": "snapshot", "occupied": [1, "c3", 22],
                    "pieces": {"1": "bk", "c3": "wm"}})
    snapshot = events[0]
    assert isinstance(snapshot, SnapshotTaken)
    assert snapshot.occupied == {"a8", "c3", "d3"} and snapshot.pieces == {"a8": BK, "c3": WM}
    assert snapshot.to_dict() == {"t": 1.0, "type": "snapshot", "occupied": ["c3", "d3", "a8"],
                                  "pieces": {"c3": "wm", "a8": "bk"}}
    assert hash(snapshot) == hash(SnapshotTaken(1.0, snapshot.occupied, {"a8": BK}))


def test_occupancy_only_lines_are_written_as_before() -> None:
    assert PiecePlaced(1.0, "c4").to_dict() == {"t": 1.0, "type": "place", "square": "c4"}
    assert SnapshotTaken(1.0, frozenset({"c3"})).to_dict() == {"t": 1.0, "type": "snapshot",
                                                               "occupied": ["c3"]}
    events = _read({"t": 1, "type": "place", "square": 18, "piece": None, "reading": None})
    assert events == [PiecePlaced(1.0, "c4")]
    assert events[0].to_dict() == {"t": 1.0, "type": "place", "square": "c4"}


@pytest.mark.parametrize("line, words", [
    ({"t": 1, "type": "place", "square": 18, "piece": "queen"}, "a piece is 'wm'"),
    ({"t": 1, "type": "place", "square": 18, "piece": 1}, "a piece is 'wm'"),
    ({"t": 1, "type": "place", "square": 18, "reading": "high"}, "'reading' must be a number"),
    ({"t": 1, "type": "place", "square": 18, "reading": True}, "'reading' must be a number"),
    ({"t": 1, "type": "place", "square": 18, "reading": 1e308}, "'reading' must be a number from"),
    ({"t": 1, "type": "place", "square": 18, "reading": -10 ** 400}, "'reading' must be a number from"),
    ({"t": 1, "type": "piece", "square": 18}, "missing key 'piece'"),
    ({"t": 1, "type": "piece", "piece": "wk"}, "missing key 'square'"),
    ({"t": 1, "type": "piece", "square": 33, "piece": "wk"}, "no square"),
    ({"t": 1, "type": "snapshot", "occupied": ["c3"], "pieces": ["wm"]}, "'pieces' must be a dict"),
    ({"t": 1, "type": "snapshot", "occupied": ["c3"], "pieces": {"e3": "wm"}}, "not in 'occupied'"),
    ({"t": 1, "type": "snapshot", "occupied": ["c3"], "pieces": {"c3": "xx"}}, "a piece is"),
    ({"t": 1, "type": "snapshot", "occupied": ["c3"], "pieces": {"z9": "wm"}}, "no square"),
])
def test_bad_piece_keys_are_refused(line: dict[str, object], words: str) -> None:
    with pytest.raises(TraceError) as info:
        _read(line)
    assert info.value.line == 2 and words in info.value.message


def test_nan_reading_is_refused() -> None:
    with pytest.raises(TraceError, match="'reading' must be a number from"):
        parse_trace([START, '{"t": 1, "type": "place", "square": 18, "reading": NaN}'])


# --- written, then read: the same event -------------------------------------------------------

_SQUARES = sorted(find_variant("international").geometry.all_names)
_pieces = st.sampled_from(sorted(PIECE_CODES.values()))
_readings = st.none() | st.floats(-MAX_READING, MAX_READING, allow_nan=False)
_t = st.floats(0, 1e6, allow_nan=False)


@st.composite
def _snapshots(draw: st.DrawFn) -> SnapshotTaken:
    occupied = draw(st.frozensets(st.sampled_from(_SQUARES), max_size=20))
    if draw(st.booleans()):
        return SnapshotTaken(draw(_t), occupied)
    known = draw(st.lists(st.sampled_from(sorted(occupied)), unique=True)) if occupied else []
    return SnapshotTaken(draw(_t), occupied, {square: draw(_pieces) for square in known})


_events = st.one_of(
    st.builds(PieceLifted, _t, st.sampled_from(_SQUARES)),
    st.builds(PiecePlaced, _t, st.sampled_from(_SQUARES), st.none() | _pieces, _readings),
    st.builds(PieceChanged, _t, st.sampled_from(_SQUARES), _pieces, _readings),
    _snapshots(),
)


@given(_events)
def test_an_event_written_then_read_is_the_same(event: Event) -> None:
    start = json.dumps({"type": "start", "variant": "international"})
    line = json.dumps(event.to_dict())
    _, events = parse_trace([start, line])
    assert events == [event]
    assert json.dumps(events[0].to_dict()) == line


def test_a_game_with_piece_keys_replays_as_the_same_game_seen_by_occupancy() -> None:
    """Until the rules that read them (issue 40), the piece keys change nothing a replay says."""
    plain = [START, '{"t": 1, "type": "lift", "square": 22}',
             '{"t": 1.5, "type": "place", "square": 18}',
             '{"t": 2, "type": "button", "name": "clock", "side": "white"}',
             '{"t": 3, "type": "lift", "square": 11}', '{"t": 3.5, "type": "place", "square": 15}',
             '{"t": 4, "type": "button", "name": "clock", "side": "black"}']
    seen = [START, '{"t": 1, "type": "lift", "square": 22}',
            '{"t": 1.5, "type": "place", "square": 18, "piece": "wm", "reading": 1.01}',
            '{"t": 2, "type": "button", "name": "clock", "side": "white"}',
            '{"t": 3, "type": "lift", "square": 11}',
            '{"t": 3.5, "type": "place", "square": 15, "piece": "bm", "reading": -0.97}',
            '{"t": 4, "type": "button", "name": "clock", "side": "black"}']
    assert replay_lines(seen).to_json() == replay_lines(plain).to_json()
