"""The analog Hall board (issue 40): ADC drivers at register level, the analog wiring file, and
the scanner deciding each piece (colour, crown) by agreement over scans, on the field model."""

import errno

import pytest

from engine.board import Piece
from engine.colour import BLACK, WHITE
from engine.events import PieceChanged, PieceLifted, PiecePlaced, SnapshotTaken
from hardware_mocks.chips import FakeADS7128, FakeADS7828, FakeTLA2528, ProtocolViolation
from hardware_mocks.rig import SensorRig
from hardware_mocks.smbus import FakeI2CBus
from pi.drivers.adcs import ADS7128, ADS7828, TLA2528
from pi.drivers.errors import WiringError
from pi.drivers.sensors import SensorFault, SensorFaultCleared
from pi.drivers.wiring import EXAMPLES_DIR, load_wiring, parse_wiring

ADS7828_8 = EXAMPLES_DIR / "ads7828_8x8.toml"
ADS7128_10 = EXAMPLES_DIR / "ads7128_10x10.toml"
WM, BM, WK, BK = Piece(WHITE, False), Piece(BLACK, False), Piece(WHITE, True), Piece(BLACK, True)

ANALOG = '''kind = "analog-hall"
board = 8
[[chips]]
name = "u1"
type = "ads7828"
address = 0x48
squares = ["a1", "c1"]
'''


# -- drivers -----------------------------------------------------------------------------------

def test_ads7828_command_bytes_follow_the_datasheet_channel_order():
    # SD=1, C2..C0 = (n&1)<<2 | n>>1, PD=01 (internal reference off: VDD is the reference)
    assert [ADS7828.command(n) for n in range(8)] == [0x84, 0xC4, 0x94, 0xD4, 0xA4, 0xE4,
                                                      0xB4, 0xF4]


def test_ads7828_one_combined_transaction_per_chip_and_codes_per_channel():
    bus = FakeI2CBus()
    chip = bus.attach(FakeADS7828(0x48))
    assert isinstance(chip, FakeADS7828)
    chip.analog = lambda ch: 100 * ch + 7
    adc = ADS7828(bus.open(), 0x48, channels=0b1010_0101)
    codes, fired = adc.read()
    assert codes == [7, 0, 207, 0, 0, 507, 0, 707] and fired == 0
    assert [e[0] for e in bus.log] == ["i2c_rdwr"]  # the four channels, repeated starts
    assert bus.log[0][1] == (("w", 0x48, (0x84,)), ("r", 0x48, 2), ("w", 0x48, (0x94,)),
                             ("r", 0x48, 2), ("w", 0x48, (0xE4,)), ("r", 0x48, 2),
                             ("w", 0x48, (0xF4,)), ("r", 0x48, 2))


def test_ads7828_addresses_and_protocol_violations():
    with pytest.raises(ValueError, match="0x20 is not a ADS7828 address"):
        ADS7828(FakeI2CBus().open(), 0x20)
    chip = FakeADS7828(0x48)
    with pytest.raises(ProtocolViolation, match="differential"):
        chip.raw_write(bytes([0x04]))
    with pytest.raises(ProtocolViolation, match="reference"):
        chip.raw_write(bytes([0x8C]))


def test_tla2528_auto_sequence_checks_the_appended_channel_id():
    bus = FakeI2CBus()
    chip = bus.attach(FakeTLA2528(0x10))
    assert isinstance(chip, FakeTLA2528)
    chip.analog = lambda ch: 1000 + ch
    adc = TLA2528(bus.open(), 0x10, channels=0b0000_0110)
    assert not adc.config_intact()  # power-on: BOR set
    adc.init()
    assert adc.config_intact()
    assert adc.read() == ([0, 1001, 1002, 0, 0, 0, 0, 0], 0)
    from smbus2 import i2c_msg
    bus.open().i2c_rdwr(i2c_msg.read(0x10, 2))  # another program's read: out of step
    with pytest.raises(OSError, match="channel 2 where 1 was due") as failed:
        adc.read()
    assert failed.value.errno == errno.EIO  # a failed transaction to the scanner
    chip.power_cycle()
    assert not adc.config_intact()


def test_tla2528_refuses_smbus_register_calls():
    bus = FakeI2CBus()
    bus.attach(FakeTLA2528(0x10))
    with pytest.raises(ProtocolViolation, match="opcode"):
        bus.open().read_byte_data(0x10, 0x00)


def test_ads7128_alerts_when_a_reading_leaves_its_window_and_clears_on_acknowledge():
    bus = FakeI2CBus()
    chip = bus.attach(FakeADS7128(0x11))
    assert isinstance(chip, FakeADS7128)
    level = {0: 2048}
    chip.analog = lambda ch: level.get(ch, 2048)
    adc = ADS7128(bus.open(), 0x11, channels=0b1)
    adc.init()
    adc.set_windows({0: (1700, 2400)})
    adc.acknowledge(0xFF)
    assert not chip.int_asserted
    level[0] = 2700  # a white man put down
    chip.refresh()
    assert chip.int_asserted
    codes, fired = adc.read()
    assert codes[0] == 2700 and fired == 0b1
    adc.set_windows({0: (2400, 2900)})
    adc.acknowledge(fired)
    assert not chip.int_asserted


# -- wiring ------------------------------------------------------------------------------------

def test_analog_examples_64_and_100_squares():
    w8, w10 = load_wiring(ADS7828_8), load_wiring(ADS7128_10)
    assert (w8.kind, w8.size, len(w8.chips), len(w8.sensed_squares)) == ("analog-hall", 8, 4, 32)
    assert (w10.size, len(w10.chips), len(w10.sensed_squares)) == (10, 7, 50)
    assert [c.address for c in w10.chips] == list(range(0x10, 0x17))
    assert w10.interrupt_gpio == 17 and w8.interrupt_gpio is None
    assert w8.is_analog and not load_wiring(EXAMPLES_DIR / "mcp23017_8x8.toml").is_analog


@pytest.mark.parametrize("text,key,words", [
    (ANALOG.replace("ads7828", "mcp23017"), "chips[0].type", "not one of ads7828"),
    (ANALOG.replace('kind = "analog-hall"\n', ""), "chips[0].type", "not one of mcp23017"),
    (ANALOG.replace("0x48", "0x20"), "chips[0].address", "not a ADS7828 address"),
    (ANALOG.replace('["a1", "c1"]', '["a1","c1","e1","g1","b2","d2","f2","h2","a3"]'),
     "chips[0].squares", "9 entries for 8 inputs"),
    (ANALOG + "[calibration]\na1 = { black_king = 1, black = 2, empty = 3, white = 5, "
              "white_king = 4 }\n", "calibration.a1", "levels must rise"),
    (ANALOG + "[calibration]\ne1 = { black_king = 1, black = 2, empty = 3, white = 4, "
              "white_king = 5 }\n", "calibration.e1", "no sensor"),
    (ANALOG + "[calibration]\na1 = { black = 2, empty = 3, white = 4, white_king = 5 }\n",
     "calibration.a1.black_king", "missing"),
    (ANALOG + "[analog]\nvotes = 2\nwindow = 5\n", "analog.votes", "not a majority"),
    ("board = 8\n[analog]\nvotes = 3\n" + ANALOG.split("\n", 2)[2], "analog",
     "only with kind"),
    ('kind = "sonar"\nboard = 8\n', "kind", "not one of"),
])
def test_malformed_analog_wiring_is_one_line_naming_the_key(text, key, words):
    with pytest.raises(WiringError) as e:
        parse_wiring(text, "board.toml")
    message = str(e.value)
    assert "\n" not in message and message.startswith(f"board.toml: {key}: "), message
    assert words in message


def test_calibration_levels_are_read_per_square():
    w = parse_wiring(ANALOG + "[calibration]\na1 = { black_king = 1000, black = 1400, "
                              "empty = 2050, white = 2700, white_king = 3000, noise = 0.7 }\n")
    assert w.analog is not None
    assert w.analog.square("a1").levels() == (1000, 1400, 2050, 2700, 3000)
    assert w.analog.square("a1").noise == 0.7
    assert w.analog.square("c1").empty == 2048  # not calibrated: the nominal levels


# -- the scanner with identity -------------------------------------------------------------------

@pytest.fixture(params=[ADS7828_8, ADS7128_10], ids=["ads7828-8x8", "ads7128-10x10"])
def rig(request):
    r = SensorRig(request.param)
    r.start(["a1", "c3"])
    r.run(0.1)
    yield r
    r.close()


def test_power_up_snapshot_carries_every_piece(rig):
    snapshots = [o for o in rig.take() if isinstance(o, SnapshotTaken)]
    assert snapshots == [SnapshotTaken(0.0, frozenset({"a1", "c3"}), {"a1": WM, "c3": WM})]


@pytest.mark.parametrize("piece", [WM, BM, WK, BK])
def test_a_place_carries_the_piece_and_its_reading_within_50_ms(rig, piece):
    rig.take()
    rig.board.place("e3", piece=piece)
    placed_at = rig.clock()
    rig.run(0.05)
    events = rig.take()
    assert len(events) == 1 and isinstance(events[0], PiecePlaced)
    assert events[0].square == "e3" and events[0].piece == piece
    assert events[0].t == pytest.approx(placed_at - 100.0, abs=0.011)
    sign = 1 if piece.color == WHITE else -1
    assert events[0].reading is not None
    assert 0.6 < sign * events[0].reading < (2.5 if piece.king else 1.45)


def test_crowning_and_uncrowning_on_an_occupied_square_are_piece_changes(rig):
    rig.board.place("e3", piece=BM)
    rig.run(0.1)
    rig.take()
    rig.board.crown("e3")
    rig.run(0.4)
    (crowned,) = rig.take()
    assert isinstance(crowned, PieceChanged) and (crowned.square, crowned.piece) == ("e3", BK)
    rig.board.uncrown("e3")
    rig.run(0.4)
    (uncrowned,) = rig.take()
    assert isinstance(uncrowned, PieceChanged) and uncrowned.piece == BM


def test_a_hand_passing_a_man_over_a_man_is_no_crowning(rig):
    rig.board.place("e3", piece=WM)
    rig.run(0.1)
    rig.take()
    for square in ("c1", "d2", "e3", "f4", "g5"):  # a hand carrying a man 10 mm above the board
        if square not in rig.wiring.sensed_squares:
            continue
        assert rig.board.field is not None
        rig.board.field.hover(square, WM, 10.0)
        rig.board.refresh()
        rig.run(0.04)
        rig.board.field.clear_hover()
        rig.board.refresh()
    rig.board.field.hover("e3", WM, 0.0)  # even touching the man's top for 20 ms
    rig.board.refresh()
    rig.run(0.02)
    rig.board.field.clear_hover()
    rig.board.refresh()
    rig.run(0.5)
    assert [o for o in rig.take() if isinstance(o, PieceChanged)] == []


def test_a_move_puts_the_lifted_piece_down_again(rig):
    rig.take()
    rig.board.lift("c3")
    rig.run(0.1)
    rig.board.place("d4" if "d4" in rig.wiring.sensed_squares else "e5")
    rig.run(0.1)
    lifted, placed = rig.take()
    assert lifted == PieceLifted(lifted.t, "c3")
    assert isinstance(placed, PiecePlaced) and placed.piece == WM


def test_an_idle_ads7128_board_is_not_polled():
    r = SensorRig(ADS7128_10)
    r.start(["a1", "c3"])
    r.run(0.2)
    before = r.scans
    r.run(5.0)
    # the safety poll (0.5 s) only: no alert while nothing changes
    assert r.scans - before <= 11
    r.board.place("e3", piece=BM)
    r.run(0.1)
    assert any(isinstance(o, PiecePlaced) for o in r.take())
    r.close()


def test_a_reset_adc_is_reported_configured_again_and_resynchronised():
    r = SensorRig(ADS7128_10)
    r.start(["a1", "c3"])
    r.run(0.2)
    r.take()
    r.bus.power_cycle(0x10)
    r.run(1.5)
    out = r.take()
    faults = [o for o in out if isinstance(o, SensorFault)]
    # found by the read (BOR in SYSTEM_STATUS) or by the periodic configuration check
    assert len(faults) == 1 and faults[0].address == 0x10
    assert faults[0].kind == "reset" or "power-on state" in faults[0].detail
    assert any(isinstance(o, SensorFaultCleared) for o in out)
    snaps = [o for o in out if isinstance(o, SnapshotTaken)]
    assert snaps and snaps[-1].pieces == {"a1": WM, "c3": WM}
    r.close()


def test_an_adc_that_stops_answering_is_a_fault_with_its_squares():
    r = SensorRig(ADS7828_8)
    r.start(["a1", "c3"])
    r.run(0.1)
    r.take()
    r.bus.fail(0x48, errno.EREMOTEIO)
    r.run(0.1)
    faults = [o for o in r.take() if isinstance(o, SensorFault)]
    assert len(faults) == 1 and faults[0].address == 0x48 and "a1" in faults[0].squares
    r.close()
