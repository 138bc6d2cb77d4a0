"""The wiring drawings committed in docs/wiring/ are what the code draws from each example
wiring file now (so a drawing never disagrees with its file), and a drawing shows what its file
says."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest

from pi.cli import main
from pi.drivers.diagram import wiring_svg
from pi.drivers.wiring import EXAMPLES_DIR, load_wiring

DOCS = Path(__file__).resolve().parents[2] / "docs" / "wiring"
EXAMPLES = sorted(p.stem for p in EXAMPLES_DIR.glob("*.toml"))


def test_every_example_has_a_drawing() -> None:
    assert sorted(p.stem for p in DOCS.glob("*.svg")) == EXAMPLES


@pytest.mark.parametrize("name", EXAMPLES)
def test_the_drawing_is_the_one_the_file_gives(name: str) -> None:
    drawn = wiring_svg(load_wiring(EXAMPLES_DIR / f"{name}.toml"))
    assert (DOCS / f"{name}.svg").read_text(encoding="utf-8") == drawn, (
        f"docs/wiring/{name}.svg is stale: damiera hardware diagram --wiring "
        f"pi/drivers/wiring/{name}.toml --out docs/wiring/{name}.svg")


def _texts(svg: str) -> list[str]:
    root = ElementTree.fromstring(svg)
    return [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]


def test_a_drawing_says_what_its_file_says() -> None:
    wiring = load_wiring(EXAMPLES_DIR / "mcp23017_8x8.toml")
    texts = _texts(wiring_svg(wiring))
    # every sensed square labelled chip.pin; GPA7 (pin 7) unused
    for chip in wiring.chips:
        for pin, square in enumerate(chip.squares):
            if square:
                assert f"{chip.name}.{pin}" in texts
    assert "u1.7" not in texts
    assert "u2: MCP23017 at 0x21, 14 squares" in texts
    assert "INT (all chips, open-drain): GPIO 17" in texts
    assert "OLED ssd1306 at 0x3c" in texts


def test_a_matrix_drawing_labels_rows_and_columns() -> None:
    texts = _texts(wiring_svg(load_wiring(EXAMPLES_DIR / "matrix_mcp23017_8x8.toml")))
    assert "r0 c0" in texts and "r7 c7" in texts
    assert "rows: u1.7 u1.15 u1.0 u1.1 u1.2 u1.3 u1.4 u1.5" in texts


def test_the_diagram_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "w.svg"
    source = EXAMPLES_DIR / "pcf8575_8x8.toml"
    assert main(["hardware", "diagram", "--wiring", str(source), "--out", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == wiring_svg(load_wiring(source))
    assert main(["hardware", "diagram", "--wiring", str(source)]) == 0
    assert capsys.readouterr().out == wiring_svg(load_wiring(source))
