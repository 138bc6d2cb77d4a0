"""The board's language (damiera.toml ``language``): the OLED and the simulator's terminal speak
it, English by default; an unknown language is a one-line configuration error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PIL import ImageDraw

from hardware_mocks.clock import FakeClock
from hardware_mocks.display import dummy_oled
from hardware_mocks.simulate import main as simulate
from hardware_mocks.terminal import state_line
from engine.i18n import localize
from pi.board.config import Config, parse_config
from pi.board.controller import BoardController
from pi.board.errors import ConfigError
from pi.board.statedir import StateDir
from pi.drivers.display import BoardDisplay, DisplayState
from pi.drivers.timebase import GameTime

SAMPLE = Path(__file__).resolve().parents[2] / "pi" / "samples" / "italian_sample.jsonl"


def test_the_language_key() -> None:
    assert parse_config("").language == "en"
    assert parse_config('language = "it"').language == "it"
    with pytest.raises(ConfigError) as err:
        parse_config('language = "fr"')
    assert "language" in str(err.value) and "\n" not in str(err.value)


def drawn(monkeypatch: pytest.MonkeyPatch, language: str, state: DisplayState) -> list[str]:
    """The texts a frame of ``state`` draws on the OLED in ``language``."""
    texts: list[str] = []
    original = ImageDraw.ImageDraw.text

    def record(self: Any, xy: Any, text: Any, *args: Any, **kwargs: Any) -> Any:
        texts.append(str(text))
        return original(self, xy, text, *args, **kwargs)
    monkeypatch.setattr(ImageDraw.ImageDraw, "text", record)
    display = BoardDisplay(dummy_oled())
    display.language = language
    display.render(state)
    return texts


STATE = DisplayState(white_time=0.0, black_time=300.0, move_number=12, side_to_move="white",
                     last_move="22-18", flagged=("white",), message="IT 8.1.3 corrected")
#: a flag's line as the controller writes it (long: it takes the last move's line too)
FLAGGED = DisplayState(white_time=60.0, black_time=300.0, move_number=12, side_to_move="white",
                       message="IT 8.1.3 touched 21, moved 22; black: correct or accept")


def test_the_oled_in_italian(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = drawn(monkeypatch, "it", STATE)
    assert texts == ["mossa 12  muove bianco", "ZERO", "5:00", "ultima: 22-18",
                     "IT 8.1.3 corretta"]
    # two lines, split where the message says "; " (pi/drivers/display.py message_layout)
    assert drawn(monkeypatch, "it", FLAGGED)[3:] == ["IT 8.1.3 toccato 21, mosso 22",
                                                     "nero: correggere o accettare"]


#: the restart's flag as the controller puts it on the message line (BOARD, engine/arbiter.py):
#: 85 characters, more than the screen's line holds
RESTARTED = ("BOARD the board restarted after 12 s away; clocks stopped until the arbiter "
             "restarts them")


def test_a_message_longer_than_the_line_is_translated_whole_then_fitted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The message is translated before anything is cut from it: cut first, the English no
    longer matched its template and stayed English on an Italian board."""
    assert len(RESTARTED) > 80
    state = DisplayState(white_time=60.0, black_time=300.0, move_number=12,
                         side_to_move="white", message=RESTARTED)
    lines = drawn(monkeypatch, "it", state)[3:]
    assert lines and lines[0].startswith("BOARD ") and "restarted" not in " ".join(lines)
    italian = "BOARD " + localize(RESTARTED[6:], "it")
    assert italian != RESTARTED and italian.startswith(lines[0].removesuffix(".."))


def test_the_controller_keeps_the_whole_message_for_the_screen_to_translate(
        tmp_path: Path) -> None:
    with StateDir.open(tmp_path) as state:
        c = BoardController(Config(), state, GameTime(FakeClock(1000.0), epoch=900.0),
                            wall=lambda: None)
        c.notice = RESTARTED
        assert c.display_state().message == RESTARTED


def test_the_oled_in_english_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = drawn(monkeypatch, "en", STATE)
    assert texts == ["move 12  white to play", "FLAG", "5:00", "last: 22-18",
                     "IT 8.1.3 corrected"]
    assert drawn(monkeypatch, "en", FLAGGED)[3:] == ["IT 8.1.3 touched 21, moved 22",
                                                     "black: correct or accept"]


def test_the_terminal_line_in_each_language() -> None:
    state = DisplayState(white_time=61.0, black_time=300.0, move_number=3, side_to_move="black",
                         last_move="22-18", message="set up the pieces")
    assert state_line(state)[0] == "move   3 black | W 1:01  B 5:00  | 22-18  set up the pieces"
    assert state_line(state, "it")[0] == ("mossa   3 nero  | B 1:01  N 5:00  | 22-18  "
                                          "disponi i pezzi")


def test_make_sample_speaks_the_boards_language(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    """The sample game on the simulated board (as `make sample`) with ``language = "it"``:
    the terminal's lines are the Italian OLED's."""
    rc = simulate(config=Config(source="(test)", language="it"), wiring_path=None,
                  state_dir=str(tmp_path / "s"), trace=str(SAMPLE), speed="max")
    assert rc == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.strip()]
    assert lines and all(line.startswith("mossa ") for line in lines), lines[:5]
    assert any(" B " in line and " N " in line for line in lines)
