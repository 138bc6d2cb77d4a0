"""Buttons (MockFactory), buzzer patterns, OLED frames (luma dummy), serial link (loop://)."""

import json
import logging
import queue
import time

import pytest

from engine.events import ButtonPressed, PieceLifted, SnapshotTaken
from hardware_mocks.clock import FakeClock
from hardware_mocks.display import dummy_oled, lit_pixels
from hardware_mocks.gpio import mock_factory, press, release, tap
from hardware_mocks.serial import BrokenPort, loop_port
from pi.drivers.buttons import ButtonPanel
from pi.drivers.buzzer import PATTERNS, STEP, Beeper
from pi.drivers.display import (BLACK_FACE_BOX, HEADER_BOX, LAST_MOVE_BOX, MESSAGE_BOX, WHITE_FACE_BOX,
                        BoardDisplay, DisplayState, format_clock)
from pi.drivers.serial_link import SerialLink, parse_command


# -- buttons ----------------------------------------------------------------------------------

def test_button_presses_land_in_the_queue_stamped_by_the_clock():
    factory, out, clock = mock_factory(), queue.Queue(), FakeClock(50.0)
    panel = ButtonPanel({"white": {"clock": 5, "resign": 6}, "black": {"clock": 22}}, out, clock,
                        t0=50.0, pin_factory=factory, bounce_time=None)
    clock.advance(1.5)
    tap(factory, 5)
    clock.advance(0.25)
    press(factory, 22)
    assert panel.is_pressed("black", "clock") and not panel.is_pressed("white", "accept")
    release(factory, 22)
    tap(factory, 6)
    assert [out.get_nowait() for _ in range(3)] == [
        ButtonPressed(1.5, "clock", "white"), ButtonPressed(1.75, "clock", "black"),
        ButtonPressed(1.75, "resign", "white")]
    assert out.empty()  # releases are not events
    panel.close()


def test_unknown_control_is_refused_and_nothing_left_open():
    factory = mock_factory()
    with pytest.raises(ValueError, match="unknown control"):
        ButtonPanel({"white": {"clock": 5, "undo": 6}}, queue.Queue(), FakeClock(),
                    pin_factory=factory)
    ButtonPanel({"white": {"clock": 5}}, queue.Queue(), FakeClock(), pin_factory=factory).close()


# -- buzzer -----------------------------------------------------------------------------------

def test_beep_patterns_are_sampled_on_and_off():
    beeper = Beeper.on_gpio(18, pin_factory=mock_factory())
    samples = beeper.samples("flag")
    assert samples == [True] * 8 + [False] * 6 + [True] * 8 + [False]
    assert set(PATTERNS) >= {"move", "flag", "error", "fault"}
    with pytest.raises(KeyError):
        beeper.samples("fanfare")
    beeper.close()


def test_buzzer_plays_in_the_background():
    factory = mock_factory()
    beeper = Beeper.on_gpio(18, pin_factory=factory)
    beeper.play("move")
    deadline = time.monotonic() + 30
    while len(factory.pin(18).states) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert [s.state for s in factory.pin(18).states][:3] == [False, True, False]
    beeper.close()


def test_tonal_buzzer_pattern_uses_tones_and_silence():
    beeper = Beeper.on_gpio(18, tonal=True, pin_factory=mock_factory(pwm=True))
    samples = beeper.samples("ok")
    assert samples == [0.0] * round(0.06 / STEP) + [None]
    beeper.play("ok")
    beeper.stop()
    assert beeper.device.value is None
    beeper.close()


# -- display ----------------------------------------------------------------------------------

@pytest.mark.parametrize("seconds,text", [(None, "--:--"), (3723, "1h02"), (299.9, "4:59"),
                                          (3599.9, "59:59"), (3600, "1h00"),
                                          (20, "0:20"), (19.99, "19.9"), (0.05, "0.0"),
                                          (-1, "0.0"), (float("nan"), "--:--")])
def test_clock_format(seconds, text):
    """COMP 3.6.2 h: the OLED shows the engine's face (engine.clock_display.format_time); it used
    to have its own (1:02:03, 04:59, 00:20), which the web and the journal did not share."""
    assert format_clock(seconds) == text


def render(**kw):
    device = dummy_oled()
    BoardDisplay(device).render(DisplayState(**kw))
    return device.image


def test_oled_frame_layout():
    image = render(white_time=300, black_time=12.3, running="white", move_number=12,
                   last_move="22-18", message="draw offered")
    assert image.size == (128, 64) and image.mode == "1"
    # The running side's face is drawn inverted (mostly lit), the other outlined.
    white_area = (WHITE_FACE_BOX[2] - WHITE_FACE_BOX[0]) * (WHITE_FACE_BOX[3] - WHITE_FACE_BOX[1])
    assert lit_pixels(image, WHITE_FACE_BOX) > white_area // 2
    assert 0 < lit_pixels(image, BLACK_FACE_BOX) < white_area // 2
    for box in (HEADER_BOX, LAST_MOVE_BOX, MESSAGE_BOX):
        assert lit_pixels(image, box) > 0
    empty = render(white_time=300, black_time=12.3, running="white", move_number=12)
    assert lit_pixels(empty, LAST_MOVE_BOX) == 0 and lit_pixels(empty, MESSAGE_BOX) == 0


def test_oled_frames_differ_by_what_changed_only():
    a = render(white_time=300, black_time=300, running="black")
    b = render(white_time=300, black_time=299, running="black")
    assert a.crop(WHITE_FACE_BOX).tobytes() == b.crop(WHITE_FACE_BOX).tobytes()
    assert a.crop(BLACK_FACE_BOX).tobytes() != b.crop(BLACK_FACE_BOX).tobytes()
    c = render(white_time=300, black_time=300, running="black", flagged=("white",))
    assert a.crop(WHITE_FACE_BOX).tobytes() != c.crop(WHITE_FACE_BOX).tobytes()


def test_long_message_is_cut_to_the_screen_and_show_message_keeps_the_rest():
    device = dummy_oled()
    display = BoardDisplay(device)
    display.render(DisplayState(white_time=60, black_time=60, last_move="22-18"))
    before = device.image.crop(WHITE_FACE_BOX).tobytes()
    display.show_message("sensor fault: 0x21, squares c3 e3 g3 and a very long tail" * 3)
    assert device.image.crop(WHITE_FACE_BOX).tobytes() == before
    assert lit_pixels(device.image, MESSAGE_BOX) > 0


def test_display_write_errors_are_logged_not_raised(caplog):
    class Failing:
        size, mode = (128, 64), "1"

        def display(self, image):
            raise OSError(121, "Remote I/O error")
    with caplog.at_level(logging.WARNING):
        BoardDisplay(Failing()).render(DisplayState())
    assert "OLED write failed" in caplog.text


# -- serial link ------------------------------------------------------------------------------

def test_parse_command():
    assert parse_command(b'{"type":"button","name":"clock","side":"white"}', 2.0) == \
        ButtonPressed(2.0, "clock", "white")
    for bad, why in [(b"\xff\xfe", "UTF-8"), (b"{", "not JSON"), (b"[1]", "object"),
                     (b'{"type":"lift","square":"d3"}', "unsupported type"),
                     (b'{"type":"button","name":"undo","side":"white"}', "unknown button"),
                     (b'{"type":"button","name":"clock","side":"red"}', "unknown side"),
                     (b'{"type":"button","name":"clock","side":"white","x":1}', "unexpected"),
                     (b'{"t":2.5,"type":"button","name":"clock","side":"white"}', "journal line")]:
        with pytest.raises(ValueError, match=why):
            parse_command(bad, 0.0)


def test_serial_loop_sends_events_and_accepts_commands(caplog):
    out, clock = queue.Queue(), FakeClock(10.0)
    port = loop_port()
    link = SerialLink(port, out, clock, t0=10.0)
    assert link.send(SnapshotTaken(0.0, frozenset({"b1", "d1"})).to_dict())
    assert link.send(PieceLifted(1.25, "d3").to_dict())
    lines = [port.readline(), port.readline()]
    assert [json.loads(x) for x in lines] == [
        {"t": 0.0, "type": "snapshot", "occupied": ["b1", "d1"]},
        {"t": 1.25, "type": "lift", "square": "d3"}]
    port.write(b'{"type": "button", "name": "draw_offer", "side": "black"}\n')
    port.write(b"\x00garbage\n")
    port.write(b'{"type": "button", "name": "clo')  # a line cut in two
    port.write(b'ck", "side": "white"}\n')
    clock.advance(3.0)
    with caplog.at_level(logging.WARNING):
        link.start()
        got = [out.get(timeout=2), out.get(timeout=2)]
    link.close()
    assert got == [ButtonPressed(3.0, "draw_offer", "black"), ButtonPressed(3.0, "clock", "white")]
    assert link.ignored == 1 and "ignored input line" in caplog.text


def test_serial_overlong_line_is_dropped():
    out = queue.Queue()
    port = loop_port()
    link = SerialLink(port, out, FakeClock())
    port.write(b"x" * 3000 + b"\n")
    while port.in_waiting:
        link.poll()
    assert out.empty() and link.ignored >= 1


def test_a_broken_port_never_raises(caplog):
    link = SerialLink(BrokenPort(), queue.Queue(), FakeClock())
    with caplog.at_level(logging.WARNING):
        assert link.send(PieceLifted(0.0, "d3").to_dict()) is False
        assert link.send(PieceLifted(0.0, "d3").to_dict()) is False
        link.close()  # so poll() does not wait after the error
        assert link.poll() == 0
    assert caplog.text.count("events are not broadcast") == 1
    link.close()
