"""Wiring files: the examples load; every malformed file is one clear WiringError line."""

import errno

import pytest

from pi.drivers.errors import BusUnavailableError, WiringError
from pi.drivers.hardware import open_i2c_bus
from pi.drivers.wiring import EXAMPLES_DIR, load_wiring, parse_wiring

MINIMAL = '''
board = 8
[[chips]]
name = "u1"
type = "mcp23017"
address = 0x20
squares = ["a1", "c1"]
'''


def test_examples_cover_8x8_10x10_matrix_and_other_chips():
    names = {p.stem for p in EXAMPLES_DIR.glob("*.toml")}
    assert {"mcp23017_8x8", "mcp23017_10x10", "matrix_mcp23017_8x8", "pcf8575_8x8",
            "tca9555_10x10"} <= names
    w8 = load_wiring(EXAMPLES_DIR / "mcp23017_8x8.toml")
    assert (w8.size, len(w8.chips), len(w8.sensed_squares)) == (8, 5, 64)
    w10 = load_wiring(EXAMPLES_DIR / "mcp23017_10x10.toml")
    assert (w10.size, len(w10.chips), len(w10.sensed_squares)) == (10, 8, 100)
    assert [c.address for c in w10.chips] == list(range(0x20, 0x28))
    for c in w8.chips + w10.chips:
        assert all(not s for pin, s in enumerate(c.squares) if pin in (7, 15))
    assert w8.buttons["white"]["clock"] == 5 and w8.interrupt_gpio == 17
    assert w8.orientation is None and w8.auto_candidates == (0, 1)


def test_minimal_file_defaults():
    w = parse_wiring(MINIMAL)
    assert w.orientation == 0 and w.active_low and w.scan.debounce == 0.030
    assert w.sensed_squares == {"a1", "c1"}


@pytest.mark.parametrize("text,key,words", [
    ("board = 9\n" + MINIMAL.split("\n", 2)[2], "board", "not a board size"),
    (MINIMAL.replace("0x20", "0x30"), "chips[0].address", "0x20-0x27"),
    (MINIMAL.replace('"mcp23017"', '"mcp9999"'), "chips[0].type", "not one of"),
    (MINIMAL.replace('"c1"]', '"c1", "", "", "", "", "", "d1"]'), "chips[0].squares[7]", "erratum"),
    (MINIMAL.replace('"c1"]', '"z9"]'), "chips[0].squares[1]", "not a square"),
    (MINIMAL.replace('"c1"]', '"a1"]'), "chips[0].squares[1]", "already wired"),
    (MINIMAL.replace("board = 8", "board = 8\nbord = 3"), "bord", "unknown key"),
    (MINIMAL.replace("board = 8", 'board = "8"'), "board", "expected an integer"),
    (MINIMAL.replace("board = 8", 'board = 8\norientation = 45'), "orientation", "0, 90"),
    (MINIMAL + "[interrupt]\ngpio = 2\n", "interrupt.gpio", "I²C"),
    (MINIMAL + "[interrupt]\ngpio = 40\n", "interrupt.gpio", "does not exist"),
    (MINIMAL + "[interrupt]\ngpio = 5\n[buttons.white]\nclock = 5\n", "buttons.white.clock",
     "already used"),
    (MINIMAL + "[buttons.white]\nclok = 5\n", "buttons.white.clok", "unknown key"),
    (MINIMAL + "[buttons.red]\nclock = 5\n", "buttons.red", "unknown key"),
    (MINIMAL + "[scan]\ndebounce_ms = -1\n", "scan.debounce_ms", "out of range"),
    (MINIMAL + "[display]\naddress = 0x20\n", "display.address", "OLED"),
    (MINIMAL + "[[chips]]\nname = \"u1\"\ntype = \"pcf8575\"\naddress = 0x21\n", "chips[1].name",
     "two chips"),
    (MINIMAL + "[[chips]]\nname = \"u2\"\ntype = \"pcf8575\"\naddress = 0x20\n",
     "chips[1].address", "two chips"),
    ("board = 8\nchips = []\n", "chips", "at least one"),
    ("board = 8\n", "chips", "missing"),
    ("board = 8\nmode = \"matrix\"\n[[chips]]\nname=\"u1\"\ntype=\"mcp23017\"\naddress=0x20\n"
     "[matrix]\nrows=[\"u1:0\"]\ncolumns=[\"u1:15\"]\n", "matrix.columns[0]", "erratum"),
    ("board = 8\nmode = \"matrix\"\n[[chips]]\nname=\"u1\"\ntype=\"mcp23017\"\naddress=0x20\n"
     "[matrix]\nrows=[\"u1:0\"]\ncolumns=[\"u2:1\"]\n", "matrix.columns[0]", "no chip"),
    ("board = 8\nmode = \"matrix\"\n[[chips]]\nname=\"u1\"\ntype=\"mcp23017\"\naddress=0x20\n"
     "[matrix]\nrows=[\"u1:0\"]\ncolumns=[\"u1:1\"]\n", "matrix.squares", "needed unless"),
])
def test_malformed_wiring_is_one_line_naming_file_and_key(text, key, words):
    with pytest.raises(WiringError) as e:
        parse_wiring(text, "board.toml")
    message = str(e.value)
    assert "\n" not in message
    assert message.startswith(f"board.toml: {key}: "), message
    assert words in message


def test_allow_gp7_override_and_bad_toml_and_missing_file(tmp_path):
    text = MINIMAL.replace('"c1"]', '"c1", "", "", "", "", "", "d1"]\nallow_gp7_inputs = true')
    assert "d1" in parse_wiring(text).sensed_squares
    with pytest.raises(WiringError, match=r"^x\.toml: not valid TOML: .*line 1"):
        parse_wiring("board = = 8", "x.toml")
    missing = tmp_path / "nope.toml"
    with pytest.raises(WiringError, match="nope.toml: cannot read the file"):
        load_wiring(missing)


def test_matrix_with_explicit_squares_grid():
    w = parse_wiring('board = 8\nmode = "matrix"\n[[chips]]\nname="u1"\ntype="tca9555"\n'
                     'address=0x20\n[matrix]\nrows=["u1:0","u1:1"]\ncolumns=["u1:8","u1:9"]\n'
                     'squares=[["a1","c1"],["b2",""]]\n')
    assert w.sensed_squares == {"a1", "c1", "b2"}


def test_missing_i2c_device_says_how_to_enable_it():
    def opener(bus):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory")
    with pytest.raises(BusUnavailableError) as e:
        open_i2c_bus(1, opener)
    assert "/dev/i2c-1" in str(e.value)
    assert "sudo raspi-config nonint do_i2c 0" in str(e.value)
    assert "dtparam=i2c_arm=on" in str(e.value)


def test_no_permission_says_which_group_to_join():
    def opener(bus):
        raise PermissionError(errno.EACCES, "Permission denied")
    with pytest.raises(BusUnavailableError, match=r"sudo usermod -aG i2c \$USER"):
        open_i2c_bus(1, opener)


def test_real_smbus2_on_a_missing_device_node(tmp_path):
    # smbus2 itself, on a path that does not exist (as on a PC, or a Pi with I²C disabled).
    with pytest.raises(BusUnavailableError, match="raspi-config"):
        open_i2c_bus(str(tmp_path / "i2c-9"))


def test_config_check_period_from_the_wiring_file():
    assert parse_wiring(MINIMAL).scan.config_check == 1.0
    w = parse_wiring(MINIMAL + "[scan]\nconfig_check_ms = 250\n")
    assert w.scan.config_check == 0.25
    assert parse_wiring(MINIMAL + "[scan]\nconfig_check_ms = 0\n").scan.config_check == 0.0
    with pytest.raises(WiringError, match="scan.config_check_ms: -1 is out of range"):
        parse_wiring(MINIMAL + "[scan]\nconfig_check_ms = -1\n")

