"""Scanner: debounce timing on the fake clock, every fault, snapshots, orientation."""

import errno

import pytest

from engine.events import PieceLifted, PiecePlaced, SnapshotTaken
from hardware_mocks.positions import initial_occupancy, light_squares
from hardware_mocks.rig import SensorRig
from pi.drivers.errors import OrientationError
from pi.drivers.sensors import SensorFault, SensorFaultCleared
from pi.drivers.wiring import EXAMPLES_DIR

MCP8 = EXAMPLES_DIR / "mcp23017_8x8.toml"
ITALIAN = initial_occupancy(8, dark_odd=True)
# mcp23017_8x8.toml: u1 0x20 = a1..h1 a2..f2, u2 0x21 = g2 h2 a3..h3 a4..d4, ...
U2_SQUARES = ("g2", "h2", "a3", "b3", "c3", "d3", "e3", "f3", "g3", "h3", "a4", "b4", "c4", "d4")


@pytest.fixture
def rig():
    r = SensorRig(MCP8)
    out = r.start(ITALIAN)
    assert out == [SnapshotTaken(0.0, ITALIAN)]
    r.take()
    yield r
    r.close()


def test_lift_is_reported_after_debounce_with_the_time_of_the_edge(rig):
    rig.run(0.5)
    rig.board.lift("d3")
    rig.run(0.029)
    assert rig.events == []
    rig.run(0.002)
    assert rig.take() == [PieceLifted(0.5, "d3")]


def test_glitch_shorter_than_debounce_gives_nothing(rig):
    rig.board.lift("d3")
    rig.run(0.020)
    rig.board.place("d3")
    rig.run(0.2)
    assert rig.take() == []


def test_bouncing_contact_is_one_place_stamped_when_it_settled(rig):
    rig.board.lift("d3")
    rig.run(0.1)
    rig.take()
    for _ in range(3):  # a reed switch bouncing as the piece lands
        rig.board.place("d3")
        rig.run(0.004)
        rig.board.lift("d3")
        rig.run(0.003)
    rig.board.place("d3")
    rig.run(0.1)
    assert rig.take() == [PiecePlaced(0.121, "d3")]


def test_debounce_is_configurable(rig):
    rig.scanner.debounce = 0.080
    rig.board.lift("d3")
    rig.run(0.079)
    assert rig.events == []
    rig.run(0.002)
    assert rig.take() == [PieceLifted(0.0, "d3")]


def test_simultaneous_changes_on_several_chips_are_ordered_by_time_then_square(rig):
    rig.board.knock("g8", "b1", "d3")
    rig.run(0.05)
    assert rig.take() == [PieceLifted(0.0, "b1"), PieceLifted(0.0, "d3"), PieceLifted(0.0, "g8")]


def test_snapshot_on_demand(rig):
    rig.board.lift("d3")
    rig.run(0.1)
    rig.take()
    rig.scanner.request_snapshot()
    rig.run(0.1)
    assert rig.take() == [SnapshotTaken(0.1, ITALIAN - {"d3"})]


def test_nack_fault_is_reported_by_chip_and_squares_and_nothing_is_invented(rig):
    rig.bus.fail(0x21)  # u2 stops answering (NACK, errno 121)
    rig.scanner.request_snapshot()
    rig.run(0.1)
    faults = rig.take()
    assert len(faults) == 1
    fault = faults[0]
    assert isinstance(fault, SensorFault) and fault.kind == "no answer"
    assert fault.message == "sensor fault: 0x21, squares " + " ".join(U2_SQUARES)
    assert "errno 121" in fault.detail
    # Moves on the dead chip's squares give nothing; elsewhere play goes on; no snapshot while
    # a chip is missing (it would invent the dead chip's squares).
    rig.board.lift("d3")
    rig.board.lift("b7")
    rig.run(0.5)
    assert rig.take() == [PieceLifted(0.1, "b7")]
    rig.bus.heal(0x21)
    rig.run(5.0)
    out = rig.take()
    assert [type(o) for o in out] == [SensorFaultCleared, SnapshotTaken]
    assert out[0].message == fault.message.replace("sensor fault", "sensor ok")
    assert out[1].occupied == ITALIAN - {"d3", "b7"}
    rig.board.place("d3")
    rig.run(0.1)
    assert [type(o) for o in rig.take()] == [PiecePlaced]


def test_retries_back_off(rig):
    rig.bus.fail(0x21, errno.EIO)
    rig.bus.log.clear()
    rig.run(3.2)
    tries = [i for i, e in enumerate(rig.bus.log) if e[1] == 0x21]
    # the safety poll finds it at 0.5 s; each attempt is two transactions (one immediate retry);
    # attempts at 0.5, then +50, +100, +200, +400, +800 ms (the next, +1.6 s, is past 3.2 s)
    assert len(tries) == 12
    assert len(rig.faults) == 1  # reported once per outage


def test_a_single_eio_is_retried_at_once_and_is_not_a_fault(rig):
    rig.bus.fail(0x21, errno.EIO, times=1)
    rig.board.lift("d3")
    rig.run(0.1)
    assert rig.take() == [PieceLifted(0.0, "d3")]


def test_a_power_cycled_chip_is_configured_again_after_the_fault(rig):
    chip = rig.bus.chips[0x21]
    rig.bus.fail(0x21, times=4)
    chip.power_cycle()
    rig.run(1.0)
    assert chip.iocon == 0x44 and chip.reg16(chip.GPINTEN) == 0x7F7F
    out = rig.take()
    assert [type(o) for o in out] == [SensorFault, SensorFaultCleared, SnapshotTaken]


def test_bus_vanishes_and_comes_back(rig):
    rig.bus.remove()
    rig.board.lift("d3")
    rig.run(1.0)
    out = rig.take()
    assert all(isinstance(o, SensorFault) for o in out)
    assert {o.address for o in out} == {0x20, 0x21, 0x22, 0x23, 0x24}
    assert all("errno 19" in o.detail for o in out)
    rig.bus.restore()
    rig.run(6.0)
    out = rig.take()
    assert sum(isinstance(o, SensorFaultCleared) for o in out) == 5
    assert out[-1] == SnapshotTaken(out[-1].t, ITALIAN - {"d3"})
    assert rig.scanner.bus.handle is not rig.smbus  # a new handle was opened
    rig.board.place("d3")
    rig.run(0.1)
    assert [type(o) for o in rig.take()] == [PiecePlaced]


def test_power_up_with_a_chip_missing_waits_for_it_before_the_snapshot():
    rig = SensorRig(MCP8)
    rig.board.set_occupied(ITALIAN)
    rig.bus.fail(0x23)
    out = rig.start(ITALIAN)
    assert [type(o) for o in out] == [SensorFault]
    assert out[0].message.startswith("sensor fault: 0x23, squares ")
    rig.run(0.3)
    rig.bus.heal(0x23)
    rig.run(2.0)
    assert [type(o) for o in rig.take()][-2:] == [SensorFaultCleared, SnapshotTaken]
    assert rig.scanner.occupancy() == ITALIAN


def test_square_stuck_closed_on_a_light_square_is_reported(rig):
    rig.scanner.set_stuck_watch(light_squares(8, dark_odd=True))
    rig.scanner.stuck_after = 10.0
    chip = rig.bus.chips[0x21]
    chip.stuck_low = 1 << 14  # pin 14 of u2 = d4, a light square in Italian
    rig.board.refresh()
    rig.run(9.0)
    assert rig.take() == [PiecePlaced(0.0, "d4")]
    rig.run(1.1)
    out = rig.take()
    assert len(out) == 1 and out[0].kind == "stuck closed"
    assert out[0].message == "sensor fault: 0x21, squares d4"
    chip.stuck_low = 0
    rig.board.refresh()
    rig.run(0.1)
    assert [type(o) for o in rig.take()] == [SensorFaultCleared, PieceLifted]


def test_chattering_square_is_reported_ignored_then_resynchronised():
    rig = SensorRig(MCP8, use_interrupt=False)  # polled every 5 ms
    rig.start(ITALIAN)
    rig.take()
    chip = rig.bus.chips[0x21]
    chip.set_chatter(1 << 5)  # d3 flips at every read
    rig.run(1.0)
    out = rig.take()
    assert [type(o) for o in out] == [SensorFault]
    assert out[0].kind == "chattering" and out[0].message == "sensor fault: 0x21, squares d3"
    chip.set_chatter(0)
    rig.run(2.5)
    out = rig.take()
    assert [type(o) for o in out] == [SensorFaultCleared, SnapshotTaken]
    assert out[1].occupied == ITALIAN


def test_latency_does_not_move_event_times():
    rig = SensorRig(MCP8)
    rig.start(ITALIAN)
    rig.take()
    for a in range(0x20, 0x25):
        rig.bus.latency[a] = 0.0008  # 100 kHz-like transactions
    rig.board.lift("d3")
    rig.run(0.1)
    [ev] = rig.take()
    assert ev.square == "d3" and ev.t == pytest.approx(0.0, abs=0.005)


def test_orientation_detected_from_the_initial_position_then_used():
    rig = SensorRig(MCP8, rotation=1)  # an English-coloured board turned for Italian play
    rig.start(ITALIAN)
    assert rig.scanner.occupancy() != ITALIAN
    rig.take()
    with pytest.raises(OrientationError, match="several"):
        rig.scanner.orient(ITALIAN)
    assert rig.scanner.orient(ITALIAN, (0, 1)) == 1
    rig.run(0.01)
    assert rig.take() == [SnapshotTaken(0.0, ITALIAN)]  # a snapshot follows at once
    rig.board.lift("d3")
    rig.board.place("c4")
    rig.run(0.1)
    assert rig.take() == [PieceLifted(0.01, "d3"), PiecePlaced(0.01, "c4")]


def test_fixed_orientation_from_the_wiring_file():
    from pi.drivers.wiring import parse_wiring
    text = (EXAMPLES_DIR / "pcf8575_8x8.toml").read_text().replace('orientation = "auto"',
                                                                  "orientation = 180")
    wiring = parse_wiring(text, "turned.toml")
    rig = SensorRig(wiring, rotation=2)
    rig.start({"a1", "b2"})
    assert rig.scanner.occupancy() == {"a1", "b2"}
    assert rig.scanner.physical_occupancy() == {"h8", "g7"}


def test_next_deadline_follows_pending_debounce(rig):
    rig.run(0.1)
    assert rig.scanner.next_deadline() == pytest.approx(rig.clock() - 0.1 + 0.5, abs=0.002)
    rig.board.lift("d3")
    rig.run(0.001)
    assert rig.scanner.next_deadline() == pytest.approx(rig.clock() - 0.001 + 0.030, abs=1e-6)
