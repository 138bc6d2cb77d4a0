"""The OLED draws the engine's clock faces (COMP 3.6.2 h, 5.7; issue 8): golden frames on luma's
``dummy`` device, stored as text pictures (``#`` lit, ``.`` dark) in ``tests/pi/golden/`` so a
change of face shows in review. After a deliberate change of the screen, rewrite them with
``DAMIERA_WRITE_GOLDEN=1 pytest tests/pi/test_display_faces.py`` and look at the pictures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.clock import GameClock
from engine.colour import BLACK, WHITE
from engine.clock_display import face_display
from engine.timecontrol import TimeControl
from hardware_mocks.display import dummy_oled
from pi.drivers.display import BLACK_FACE_BOX, WHITE_FACE_BOX, BoardDisplay, DisplayState, face_texts

GOLDEN = Path(__file__).parent / "golden"


def _picture(image) -> str:
    width, height = image.size
    pixels = image.load()
    return "\n".join("".join("#" if pixels[x, y] else "." for x in range(width))
                     for y in range(height)) + "\n"


def _frame(state: DisplayState):
    device = dummy_oled()
    BoardDisplay(device).render(state)
    return device.image


def _clock(text: str, t: float, presses: tuple[float, ...] = ()) -> GameClock:
    game = GameClock(TimeControl.parse(text))
    game.start(WHITE, 0.0)
    for at in presses:
        game.press(game.to_move, at)
    return game


def _faces() -> dict[str, DisplayState]:
    lampo = _clock("60:1/30", 0.0)
    fischer = _clock("3600+5", 0.0, (1.0, 3541.0))  # White 1h00 and a bit, Black 1:05
    return {
        # An hour and a minute against twenty seconds: never "1:01" against "0:20".
        "hours_and_seconds": DisplayState(white_time=3_660, black_time=20, running="black",
                                          move_number=31, side_to_move="black",
                                          last_move="22-18"),
        # Twenty minutes against the last tenths, and a fallen flag.
        "minutes_and_tenths": DisplayState(white_time=1_200, black_time=19.95, running="white",
                                           move_number=40, side_to_move="white"),
        "flag": DisplayState(white_time=0, black_time=600, flagged=("white",),
                             message="white lost on time"),
        # From the clock itself: White in the mosse-lampo countdown (COMP 5.7), Black's 1:00.
        "lampo": DisplayState(clock=lampo.read(80.0), move_number=1, side_to_move="white"),
        "fischer": DisplayState(clock=fischer.read(3541.5), move_number=2, side_to_move="white"),
        "no_clock": DisplayState(move_number=5, last_move="11x18"),
    }


@pytest.mark.parametrize("name", sorted(_faces()))
def test_oled_frame_matches_its_golden_picture(name: str) -> None:
    picture = _picture(_frame(_faces()[name]))
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("DAMIERA_WRITE_GOLDEN"):
        path.write_text(picture)
    assert path.exists(), f"no golden picture {path.name}: write it (module docstring)"
    assert picture == path.read_text(), f"the OLED frame {name} changed (module docstring)"


def test_golden_faces_show_the_engines_texts() -> None:
    """The faces in the golden frames are the engine's (no format of the OLED's own)."""
    texts = {name: tuple(text for text, _ in face_texts(state))
             for name, state in _faces().items()}
    assert texts == {"hours_and_seconds": ("1h01", "0:20"), "minutes_and_tenths": ("20:00", "19.9"),
                     "flag": ("FLAG", "10:00"), "lampo": ("-10", "1:00"),
                     "fischer": ("1h00", "1:05"), "no_clock": ("--:--", "--:--")}


def test_a_clock_reading_is_drawn_as_the_engine_faces_it() -> None:
    """COMP 5.7: the OLED draws face_display() of the clock's reading, running face inverted; a
    frame from the reading and one from the same texts given as times are the same faces."""
    game = _clock("60:1/30", 0.0)
    reading = game.read(80.0)
    state = DisplayState(clock=reading)
    assert face_texts(state) == ((face_display(reading.white).time, True),
                                 (face_display(reading.black).time, False))
    from_reading = _frame(DisplayState(clock=game.read(30.0)))
    from_times = _frame(DisplayState(white_time=30.0, black_time=60.0, running=WHITE))
    for box in (WHITE_FACE_BOX, BLACK_FACE_BOX):
        assert from_reading.crop(box).tobytes() == from_times.crop(box).tobytes()


def test_a_flag_from_the_clock_is_drawn() -> None:
    """COMP 4.8: the face whose flag fell says so."""
    game = _clock("5", 0.0)
    texts = face_texts(DisplayState(clock=game.read(6.0)))
    assert texts == (("FLAG", False), ("5.0", False))
    assert face_texts(DisplayState(white_time=1, black_time=1, flagged=(BLACK,))) == (
        ("1.0", False), ("FLAG", False))


def test_every_face_of_the_last_hour_fits_its_box_with_its_seconds() -> None:
    """Issue 16: the OLED never drops the seconds in the last hour, and the face texts it shows
    fit the face's box in the font drawn (a text too wide would be cut to ``59:..``)."""
    from PIL import Image, ImageDraw

    from engine.clock_display import format_time
    display = BoardDisplay(dummy_oled())
    draw = ImageDraw.Draw(Image.new("1", (128, 64)))
    texts = {format_time(seconds * 1000) for seconds in range(3600)}
    texts |= {format_time(ms) for ms in range(0, 20_000, 100)}
    texts |= {format_time(hours * 3_600_000 + minutes * 60_000)
              for hours in range(1, 100) for minutes in range(60)}
    assert "59:59" in texts and not any(text.startswith("0h") for text in texts)
    for left, _top, right, _bottom in (WHITE_FACE_BOX, BLACK_FACE_BOX):
        room = right - left - 4  # what BoardDisplay leaves inside a face's frame
        too_wide = sorted(t for t in texts if draw.textlength(t, font=display.large) > room)
        assert too_wide == []
    frame = _frame(DisplayState(white_time=3_599.5, black_time=2_748.0, running="white"))
    assert face_texts(DisplayState(white_time=3_599.5, black_time=2_748.0)) == (
        ("59:59", False), ("45:48", False))
    # the faces' frames are whole: the text drew inside them
    for box in (WHITE_FACE_BOX, BLACK_FACE_BOX):
        assert frame.crop(box).getbbox() is not None
