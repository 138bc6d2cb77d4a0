"""An expander that lost power and came back with its power-on registers answers every read, so
only the periodic read-back of its configuration can notice it (issue 9: "an expander
power-cycled to its defaults"). Noticed → fault "reset", configured again, cleared, snapshot."""

import pytest

from engine.events import PieceLifted, PiecePlaced, SnapshotTaken
from hardware_mocks.positions import initial_occupancy
from hardware_mocks.rig import SensorRig
from pi.drivers.faults import RESET
from pi.drivers.sensors import SensorFault, SensorFaultCleared
from pi.drivers.wiring import EXAMPLES_DIR, parse_wiring

ITALIAN = initial_occupancy(8, dark_odd=True)
INTERNATIONAL = initial_occupancy(10, dark_odd=False)
U2_SQUARES = ("g2", "h2", "a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3", "a4", "b4", "c4", "d4")


def started(name, occupied, **options):
    rig = SensorRig(EXAMPLES_DIR / f"{name}.toml", scanner_rotation=0, **options)
    rig.start(occupied)
    rig.take()
    return rig


def test_mcp23017_power_cycled_is_noticed_configured_again_and_resynchronised():
    rig = started("mcp23017_8x8", ITALIAN)
    chip = rig.bus.chips[0x21]
    rig.run(0.2)
    rig.bus.power_cycle(0x21)
    assert chip.iocon == 0 and chip.reg16(chip.GPINTEN) == 0  # no interrupts, no pull-ups
    rig.run(0.4)
    rig.board.lift("d3")  # nobody is told (GPINTEN = 0) before the next safety poll at 1.0 s
    rig.run(0.6)
    out = rig.take()
    assert [type(o) for o in out] == [SensorFault, SensorFaultCleared, SnapshotTaken]
    fault, cleared, snapshot = out
    assert fault.kind == cleared.kind == RESET and fault.address == 0x21
    assert fault.squares == cleared.squares == U2_SQUARES
    assert fault.message == "sensor fault: 0x21, squares " + " ".join(U2_SQUARES)
    assert fault.t == pytest.approx(1.0)  # the first check after start-up
    assert snapshot.occupied == ITALIAN - {"d3"}  # the lift during the outage, as a snapshot
    assert chip.iocon == 0x44 and chip.reg16(chip.GPINTEN) == 0x7F7F  # set up again
    rig.board.place("d3")  # interrupts work again: seen at once, stamped at the edge
    rig.run(0.1)
    assert rig.take() == [PiecePlaced(1.2, "d3")]


def test_the_check_is_one_read_per_chip_per_period_and_silent_while_intact():
    rig = started("mcp23017_8x8", ITALIAN)
    rig.bus.log.clear()
    rig.run(3.0)
    checks = [e for e in rig.bus.log if e[0] == "read_i2c_block_data" and e[2] == 0x00]
    assert [e[1] for e in checks] == [0x20, 0x21, 0x22, 0x23, 0x24] * 3
    assert all(e[3] == 14 for e in checks)  # IODIRA..GPPUB in one transaction
    assert rig.take() == []


def test_without_the_check_a_reset_chip_goes_unnoticed():
    rig = started("mcp23017_8x8", ITALIAN, config_check=0)
    rig.bus.power_cycle(0x21)
    rig.board.lift("d3")
    rig.run(5.0)
    # Only the safety poll sees the lift (no interrupt): the chip stays unconfigured.
    assert [type(o) for o in rig.take()] == [PieceLifted]
    assert rig.bus.chips[0x21].iocon == 0


def test_matrix_on_mcp23017_power_cycled_is_noticed():
    rig = started("matrix_mcp23017_8x8", ITALIAN)
    rig.bus.power_cycle(0x20)
    rig.run(1.5)
    out = rig.take()
    assert [type(o) for o in out] == [SensorFault, SensorFaultCleared, SnapshotTaken]
    assert out[0].kind == RESET and out[2].occupied == ITALIAN
    rig.board.lift("d3")
    rig.run(0.1)
    assert [type(o) for o in rig.take()] == [PieceLifted]


def test_tca9555_matrix_power_cycled_is_noticed():
    text = ('board = 8\nmode = "matrix"\n[[chips]]\nname = "u1"\ntype = "tca9555"\n'
            'address = 0x20\n[matrix]\nrows = [' + ", ".join(f'"u1:{p}"' for p in range(8))
            + ']\ncolumns = [' + ", ".join(f'"u1:{p}"' for p in range(8, 16)) + ']\n')
    rig = SensorRig(parse_wiring(text, "tca_matrix.toml"))
    rig.start(ITALIAN)
    rig.take()
    rig.bus.power_cycle(0x20)
    rig.run(1.5)
    out = rig.take()
    assert [type(o) for o in out] == [SensorFault, SensorFaultCleared, SnapshotTaken]
    assert out[0].kind == RESET and out[2].occupied == ITALIAN


@pytest.mark.parametrize("name, address", [("tca9555_10x10", 0x21), ("pcf8575_8x8", 0x21)])
def test_chips_whose_power_on_state_is_our_input_state_read_on_unharmed(name, address):
    # TCA9555 with every pin an input: power-on configuration == ours. PCF8575: no registers
    # at all (and no transaction is spent checking it). Either way nothing to report or redo.
    size = 10 if "10x10" in name else 8
    start = INTERNATIONAL if size == 10 else ITALIAN
    rig = started(name, start)
    rig.bus.log.clear()
    rig.bus.power_cycle(address)
    square = sorted(start)[5]
    rig.board.lift(square)
    rig.run(2.5)
    assert [(type(o), o.square) for o in rig.take()] == [(PieceLifted, square)]
    if name.startswith("pcf8575"):
        assert {e[0] for e in rig.bus.log} == {"i2c_rdwr"}


def test_a_chip_reset_and_failing_while_being_set_up_again_is_retried():
    rig = started("mcp23017_8x8", ITALIAN)
    rig.bus.power_cycle(0x21)
    rig.run(0.99)
    rig.bus.fail(0x21, times=3)  # the check at 1.0 s NACKs, then the first retries
    rig.run(3.0)
    out = rig.take()
    assert [(type(o), o.kind) for o in out[:1]] == [(SensorFault, "no answer")]
    assert [type(o) for o in out][-2:] == [SensorFaultCleared, SnapshotTaken]
    assert out[-1].occupied == ITALIAN
    assert rig.bus.chips[0x21].iocon == 0x44


def test_fault_records_are_the_journal_lines_of_trace_md():
    rig = started("mcp23017_8x8", ITALIAN)
    rig.bus.fail(0x21)
    rig.run(0.6)
    rig.bus.heal(0x21)
    rig.run(1.0)
    fault, cleared, _snapshot = rig.take()
    assert fault.to_dict() == {"t": 0.5, "type": "fault", "squares": list(U2_SQUARES),
                               "message": "sensor fault: 0x21, squares " + " ".join(U2_SQUARES)}
    assert cleared.to_dict() == {"t": cleared.t, "type": "fault_cleared",
                                 "squares": list(U2_SQUARES)}
