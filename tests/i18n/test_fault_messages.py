"""Sensor faults and the bring-up's findings in the language of whoever reads them (issue 20):
recorded in English (the journal's ``fault`` line, the logs, the board test's files), shown on
the OLED, the simulator's terminal and the pages in the board's or the viewer's language, like
the flags (engine.i18n.localize on the template msgids they are made from)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from PIL import ImageDraw

from engine.i18n import localize
from hardware_mocks.display import dummy_oled
from hardware_mocks.terminal import state_line
from pi.drivers.bringup import probe_message
from pi.drivers.display import BoardDisplay, DisplayState
from pi.drivers.faults import FAULT_KINDS, SensorFault, SensorFaultCleared
from pi.drivers.probe import FAIL, OK, Finding

ITALIAN_KINDS = {"no answer": "nessuna risposta", "chattering": "instabile",
                 "stuck closed": "bloccata chiusa", "reset": "riavviato"}


def test_every_kind_has_its_italian() -> None:
    assert set(ITALIAN_KINDS) == set(FAULT_KINDS)


@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_a_fault_is_recorded_in_english_and_shown_in_italian(kind: str) -> None:
    fault = SensorFault(3.0, 0x21, ("c3", "e3"), kind)
    assert fault.message == "sensor fault: 0x21, squares c3 e3"  # the journal's, unchanged
    assert fault.to_dict()["message"] == fault.message
    assert fault.shown == f"sensor fault: 0x21, squares c3 e3 ({kind})"
    assert localize(fault.shown, "it") == \
        f"guasto ai sensori: 0x21, caselle c3 e3 ({ITALIAN_KINDS[kind]})"
    assert localize(fault.shown, "en") == fault.shown
    assert localize(fault.message, "it") == "guasto ai sensori: 0x21, caselle c3 e3"
    cleared = SensorFaultCleared(4.0, 0x21, ("c3", "e3"), kind)
    assert localize(cleared.message, "it") == "sensori a posto: 0x21, caselle c3 e3"


@given(st.integers(0x20, 0x27),
       st.lists(st.sampled_from(["a1", "c3", "e3", "g3", "h8", "d4"]), min_size=1, max_size=6,
                unique=True),
       st.sampled_from(FAULT_KINDS))
def test_any_fault_line_is_translated_whole(address: int, squares: list[str], kind: str) -> None:
    shown = localize(SensorFault(0.0, address, tuple(squares), kind).shown, "it")
    assert shown.startswith(f"guasto ai sensori: 0x{address:02x}, caselle {' '.join(squares)} (")
    assert "sensor fault" not in shown and "squares" not in shown


def test_the_simulator_terminal_and_the_oled_show_it_in_the_board_language(
        monkeypatch: pytest.MonkeyPatch) -> None:
    state = DisplayState(message=SensorFault(1.0, 0x21, ("c3",), "no answer").shown,
                         side_to_move="white", move_number=3)
    line, _ = state_line(state, "it")
    assert line.endswith("guasto ai sensori: 0x21, caselle c3 (nessuna risposta)")
    assert state_line(state, "en")[0].endswith("sensor fault: 0x21, squares c3 (no answer)")
    texts: list[str] = []
    original = ImageDraw.ImageDraw.text

    def record(self: Any, xy: Any, text: Any, *args: Any, **kwargs: Any) -> Any:
        texts.append(str(text))
        return original(self, xy, text, *args, **kwargs)
    monkeypatch.setattr(ImageDraw.ImageDraw, "text", record)
    display = BoardDisplay(dummy_oled())
    display.language = "it"
    display.render(state)
    assert "guasto ai sensori" in " ".join(texts) and "sensor fault" not in " ".join(texts)


def test_the_start_up_probe_line_in_the_board_language() -> None:
    findings = [Finding(FAIL, "d4", "stuck closed"),
                Finding(FAIL, "0x21", "missing: u2 MCP23017 does not answer (squares c3)")]
    assert probe_message(findings) == "probe: 0x21 missing; d4 stuck closed"
    assert probe_message(findings, "it") == "verifica: 0x21 mancante; d4 bloccata chiusa"
    assert probe_message([], "it") == ""


def test_a_finding_is_shown_in_the_language_and_written_in_english() -> None:
    finding = Finding(FAIL, "group i2c", "pi is not in it",
                      "sudo usermod -aG i2c pi, then log in again")
    assert finding.shown("en") == finding.line() == \
        "FAIL group i2c: pi is not in it — sudo usermod -aG i2c pi, then log in again"
    assert finding.shown("it") == \
        "FAIL gruppo i2c: pi non ne fa parte — sudo usermod -aG i2c pi, poi rientra nella sessione"
    assert finding.to_json()["text"] == "pi is not in it"
    # the levels are codes; text no catalog knows (a path, a name) comes back as it is
    assert Finding(OK, "/var/lib/damiera", "76 MB free").shown("it") == \
        "OK   /var/lib/damiera: 76 MB liberi"


def test_a_message_with_two_article_codes() -> None:
    # {code} and {code_…} take an article code (engine.i18n: other values never begin with one)
    text = "the initial position matches (IT 7.1), orientation 90° (INT 5.1)"
    assert localize(text, "it") == \
        "la posizione iniziale corrisponde (IT 7.1), orientamento 90° (INT 5.1)"
    wrong = "the initial position matches (a man), orientation 90° (INT 5.1)"
    assert localize(wrong, "it") == wrong  # "a man" is no code: not this template


@pytest.mark.parametrize("n, italian", [(1, "ne resta 1"), (31, "ne restano 31")])
def test_the_free_test_prompt_counts_in_the_plural_form(n: int, italian: str) -> None:
    english = f"lift and put back, or put and lift, any square: {n} left"
    assert localize(english, "it") == \
        f"alza e rimetti, o metti e alza, su una casella qualsiasi: {italian}"
