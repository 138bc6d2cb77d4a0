"""Virtual board → fake bus → real drivers → events, including hypothesis invariants."""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from engine.events import PieceLifted, PiecePlaced, SnapshotTaken
from hardware_mocks.positions import initial_occupancy
from hardware_mocks.rig import SensorRig
from pi.drivers.sensors import SensorFault, SensorFaultCleared
from pi.drivers.wiring import EXAMPLES_DIR

pytestmark = pytest.mark.heavy  # whole games through the daemon: run first (tests/conftest.py)

ITALIAN = initial_occupancy(8, dark_odd=True)
INTERNATIONAL = initial_occupancy(10, dark_odd=False)
ALL_EXAMPLES = ["mcp23017_8x8", "pcf8575_8x8", "matrix_mcp23017_8x8", "mcp23017_10x10",
                "tca9555_10x10"]


def replay(events):
    occupied: set[str] = set()
    for e in events:
        if isinstance(e, SnapshotTaken):
            occupied = set(e.occupied)
        elif isinstance(e, PieceLifted):
            assert e.square in occupied, f"lift from empty {e.square}"
            occupied.discard(e.square)
        elif isinstance(e, PiecePlaced):
            assert e.square not in occupied, f"place on occupied {e.square}"
            occupied.add(e.square)
    return occupied


def test_italian_move_22_18_gives_exactly_the_expected_events():
    rig = SensorRig(EXAMPLES_DIR / "mcp23017_8x8.toml", scanner_rotation=0)
    rig.start(ITALIAN)
    rig.run(1.0)
    rig.board.lift("d3")   # Italian 22
    rig.run(0.45)
    rig.board.place("c4")  # Italian 18
    rig.run(0.5)
    assert rig.take() == [SnapshotTaken(0.0, ITALIAN), PieceLifted(1.0, "d3"),
                          PiecePlaced(1.45, "c4")]


@pytest.mark.parametrize("name", ALL_EXAMPLES)
def test_a_capture_on_every_example_wiring(name):
    rig = SensorRig(EXAMPLES_DIR / f"{name}.toml", scanner_rotation=0)
    size = rig.wiring.size
    start = ITALIAN if size == 8 else INTERNATIONAL
    rig.start(start)
    rig.take()
    if size == 8:
        rig.board.set_occupied({"d3", "e4"})  # white man d3 takes e4 to f5
        rig.scanner.request_snapshot()
        rig.run(0.1)
        rig.take()
        moves = [("lift", "d3"), ("place", "f5"), ("lift", "e4")]
    else:
        moves = [("lift", "a1"), ("place", "e5")]
    t = 0.0
    for kind, square in moves:
        getattr(rig.board, kind)(square)
        rig.run(0.2)
        t += 0.2
    events = rig.take()
    assert [(type(e).__name__, e.square) for e in events] == [
        ("PieceLifted" if k == "lift" else "PiecePlaced", s) for k, s in moves]
    assert rig.scanner.occupancy() == rig.board.occupied
    if name.startswith("pcf8575"):  # raw transfers only, ever (the fake raises on the others)
        assert {entry[0] for entry in rig.bus.log} == {"i2c_rdwr"}


def test_a_piece_slid_across_squares_is_seen_on_each():
    rig = SensorRig(EXAMPLES_DIR / "mcp23017_8x8.toml", scanner_rotation=0)
    rig.start({"a1"})
    rig.take()
    rig.slide(["a1", "b2", "c3"], step=0.1)
    assert rig.take() == [PieceLifted(0.0, "a1"), PiecePlaced(0.0, "b2"),
                          PieceLifted(0.1, "b2"), PiecePlaced(0.1, "c3")]
    rig.slide(["c3", "d4", "e5"], step=0.01)  # too fast for the sensor under d4 to count
    rig.run(0.1)
    assert rig.take() == [PieceLifted(0.2, "c3"), PiecePlaced(0.21, "e5")]


ACTIONS = st.lists(st.tuples(st.sampled_from(["lift", "place", "slide", "knock"]),
                             st.integers(0, 10 ** 6), st.integers(0, 120)), max_size=25)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["mcp23017_8x8", "pcf8575_8x8", "matrix_mcp23017_8x8", "tca9555_10x10"]),
       ACTIONS)
def test_replaying_the_events_reproduces_the_final_occupancy(name, actions):
    rig = SensorRig(EXAMPLES_DIR / f"{name}.toml", scanner_rotation=0)
    size = rig.wiring.size
    squares = sorted(rig.wiring.sensed_squares)
    start = ITALIAN if size == 8 else INTERNATIONAL
    rig.start(start)
    for kind, pick, delay_ms in actions:
        occupied = sorted(rig.board.occupied)
        empty = [s for s in squares if s not in rig.board.occupied]
        if kind == "lift" and occupied:
            rig.board.lift(occupied[pick % len(occupied)])
        elif kind == "place" and empty:
            rig.board.place(empty[pick % len(empty)])
        elif kind == "slide" and occupied and empty:
            rig.board.slide_step(occupied[pick % len(occupied)], empty[pick % len(empty)])
        elif kind == "knock" and len(occupied) >= 3:
            rig.board.knock(*{occupied[(pick + i * 7) % len(occupied)] for i in range(3)})
        rig.run(delay_ms / 1000)
    rig.run(0.1)  # let the last changes settle
    events = rig.events
    assert replay(events) == set(rig.board.occupied) == set(rig.scanner.occupancy())
    times = [e.t for e in events]
    assert times == sorted(times)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 80), min_size=1, max_size=30), st.booleans())
def test_debounce_never_reports_a_level_shorter_than_n_ms(durations_ms, polled):
    n_ms = 30
    rig = SensorRig(EXAMPLES_DIR / "mcp23017_8x8.toml", scanner_rotation=0,
                    use_interrupt=not polled)
    rig.start({"d3"})
    rig.take()
    changes = []  # times (ms since start) when the raw level changed
    t_ms = 0
    for d in durations_ms:
        if "d3" in rig.board.occupied:
            rig.board.lift("d3")
        else:
            rig.board.place("d3")
        changes.append(t_ms)
        rig.run(d / 1000)
        t_ms += d
    rig.run(2.5)  # long enough for a square found chattering to be quiet again and resync
    events = [e for e in rig.take() if not isinstance(e, (SensorFault, SensorFaultCleared))]
    for e in events:
        if isinstance(e, SnapshotTaken):
            continue
        e_ms = round(e.t * 1000)
        # the level it reports held, unchanged, for N ms from the time it is stamped with
        assert not any(e_ms < c < e_ms + n_ms for c in changes), (e, changes)
    # every level that held N ms or more at the end is known
    assert ("d3" in rig.scanner.occupancy()) == ("d3" in rig.board.occupied)
    assert replay([SnapshotTaken(0.0, frozenset({"d3"})), *events]) == set(rig.board.occupied)
