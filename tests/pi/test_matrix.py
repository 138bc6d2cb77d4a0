"""Diode matrices on every chip type, on one chip and split over two."""

import pytest

from engine.events import PieceLifted, PiecePlaced, SnapshotTaken
from hardware_mocks.rig import SensorRig
from pi.drivers.wiring import parse_wiring


def matrix_text(kind, size, rows, columns, chips=("u1",)):
    text = f'board = {size}\nmode = "matrix"\n'
    for i, name in enumerate(chips):
        text += f'[[chips]]\nname = "{name}"\ntype = "{kind}"\naddress = 0x{0x20 + i:02x}\n'
    text += "[matrix]\n"
    text += "rows = [" + ", ".join(f'"{r}"' for r in rows) + "]\n"
    text += "columns = [" + ", ".join(f'"{c}"' for c in columns) + "]\n"
    return text


CASES = {
    "tca9555 one chip": matrix_text("tca9555", 8, [f"u1:{p}" for p in range(8)],
                                    [f"u1:{p}" for p in range(8, 16)]),
    "pcf8575 one chip": matrix_text("pcf8575", 8, [f"u1:{p}" for p in range(8)],
                                    [f"u1:{p}" for p in range(8, 16)]),
    "mcp23017 10x10 on two chips": matrix_text(
        "mcp23017", 10, [f"u1:{p}" for p in (0, 1, 2, 3, 4, 5, 6, 7, 8, 15)],
        [f"u2:{p}" for p in (0, 1, 2, 3, 4, 5, 6, 8, 9, 10)], chips=("u1", "u2")),
}


@pytest.mark.parametrize("name", CASES)
def test_matrix_sees_every_square_without_ghosts(name):
    wiring = parse_wiring(CASES[name], name)
    rig = SensorRig(wiring)
    # Three corners of a rectangle: a matrix without diodes would ghost the fourth (c5).
    start = {"a1", "c1", "a5"}
    assert rig.start(start) == [SnapshotTaken(0.0, frozenset(start))]
    rig.take()
    rig.board.lift("a1")
    rig.run(0.1)
    rig.board.place("c5")
    rig.run(0.1)
    events = rig.take()
    # polled every 10 ms: a change is stamped at the first scan that sees it
    assert [(type(e), e.square) for e in events] == [(PieceLifted, "a1"), (PiecePlaced, "c5")]
    assert 0.0 <= events[0].t <= 0.01 and 0.1 <= events[1].t <= 0.11
    assert rig.scanner.occupancy() == {"c1", "a5", "c5"}


def test_matrix_chip_failure_is_a_fault_for_the_whole_matrix():
    wiring = parse_wiring(CASES["mcp23017 10x10 on two chips"], "m.toml")
    rig = SensorRig(wiring)
    rig.start({"a1"})
    rig.take()
    rig.bus.fail(0x21)
    rig.board.lift("a1")
    rig.run(0.2)
    [fault] = rig.take()
    assert fault.message.startswith("sensor fault: 0x21, squares a1 b1 c1")
    assert len(fault.squares) == 100
    rig.bus.heal(0x21)
    rig.run(1.0)
    out = rig.take()
    assert out[-1] == SnapshotTaken(out[-1].t, frozenset())
