"""A wiring file drawn as an SVG: the board seen from above (a1 in the corner facing White with
orientation 0), each square labelled with the expander and pin its sensor is wired to and
tinted by expander; beside it the expanders (name, type, address) and the Pi's GPIOs (INT,
buttons, buzzer) and the OLED. Drawn from a :class:`~pi.drivers.wiring.Wiring` only, so the
drawings in ``docs/wiring/`` never disagree with the files they are drawn from (a test redraws
them). Deterministic: the same wiring gives the same bytes.
"""

from __future__ import annotations

import gettext
from html import escape

from engine.i18n import DEFAULT_LANGUAGE, translations

from pi.drivers.wiring import Wiring

__all__ = ["wiring_svg"]

CELL = 44
MARGIN = 24
#: Tints of the expanders, in the wiring file's order (repeats after eight).
TINTS = ("#fde2e4", "#e2ece9", "#dfe7fd", "#fff1c1", "#e8dff5", "#d7f9f1", "#fce1cf", "#e9f5db")


def _labels(wiring: Wiring) -> dict[str, tuple[str, int]]:
    """Square → (label, chip index)."""
    out: dict[str, tuple[str, int]] = {}
    index = {c.name: i for i, c in enumerate(wiring.chips)}
    if wiring.matrix is not None:
        m = wiring.matrix
        for i, row in enumerate(m.squares):
            for j, square in enumerate(row):
                if square:
                    out[square] = (f"r{i} c{j}", index[m.columns[j].chip])
        return out
    for i, chip in enumerate(wiring.chips):
        for pin, square in enumerate(chip.squares):
            if square:
                out[square] = (f"{chip.name}.{pin}", i)
    return out


def wiring_svg(wiring: Wiring, language: str = DEFAULT_LANGUAGE) -> str:
    """The SVG text of ``wiring`` (module docstring), its words in ``language`` (the names
    of chips, squares, pins and GPIOs as the wiring file writes them)."""
    t = translations(language)
    size = wiring.size
    board = size * CELL
    side_x = MARGIN * 2 + board + 16
    width = side_x + 380
    labels = _labels(wiring)
    lines_side = _side_lines(wiring, t)
    height = max(board + MARGIN * 3, MARGIN * 2 + 18 * (len(lines_side) + 1))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
           f"<title>{escape(_title(wiring, t))}</title>",
           f'<rect width="{width}" height="{height}" fill="white"/>']
    files = "abcdefghij"[:size]
    for rank in range(size):
        y = MARGIN + (size - 1 - rank) * CELL
        out.append(f'<text x="{MARGIN - 6}" y="{y + CELL // 2 + 4}" font-size="11" '
                   f'text-anchor="end">{rank + 1}</text>')
        for f in range(size):
            x = MARGIN + f * CELL
            square = f"{files[f]}{rank + 1}"
            label = labels.get(square)
            fill = TINTS[label[1] % len(TINTS)] if label else "#bbbbbb"
            out.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{fill}" '
                       'stroke="#555" stroke-width="1"/>')
            out.append(f'<text x="{x + 3}" y="{y + 12}" font-size="9" fill="#666">{square}'
                       "</text>")
            out.append(f'<text x="{x + CELL // 2}" y="{y + 30}" font-size="11" '
                       f'text-anchor="middle">{escape(label[0]) if label else "—"}</text>')
    for f in range(size):
        out.append(f'<text x="{MARGIN + f * CELL + CELL // 2}" y="{MARGIN + board + 14}" '
                   f'font-size="11" text-anchor="middle">{files[f]}</text>')
    whites_side = escape(t.gettext("White's side (orientation 0)"), quote=False)
    out.append(f'<text x="{MARGIN}" y="{MARGIN + board + 34}" font-size="11">{whites_side}'
               "</text>")
    y = MARGIN + 4
    for text, tint in lines_side:
        if tint is not None:
            out.append(f'<rect x="{side_x}" y="{y - 11}" width="14" height="14" fill="{tint}" '
                       'stroke="#555"/>')
        indent = 36 if text.startswith("    ") else 20  # SVG collapses leading spaces
        out.append(f'<text x="{side_x + indent}" y="{y}" font-size="12">{escape(text.strip())}'
                   "</text>")
        y += 18
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _title(wiring: Wiring, t: gettext.NullTranslations) -> str:
    return t.gettext("damiera wiring {file}: {size}, {mode}").format(
        file=wiring.source.rsplit('/', 1)[-1], size=f"{wiring.size}×{wiring.size}",
        mode=wiring.kind if wiring.is_analog else wiring.mode)


def _side_lines(wiring: Wiring, t: gettext.NullTranslations) -> list[tuple[str, str | None]]:
    lines: list[tuple[str, str | None]] = [(t.gettext("{size}, {mode}, I²C bus {bus}").format(
        size=f"{wiring.size}×{wiring.size}", mode=wiring.kind if wiring.is_analog else wiring.mode,
        bus=wiring.bus), None)]
    for i, chip in enumerate(wiring.chips):
        used = sum(1 for s in chip.squares if s)
        what = (t.ngettext("{n} square", "{n} squares", used).format(n=used)
                if wiring.matrix is None else t.gettext("matrix"))
        lines.append((t.gettext("{chip}: {kind} at {address}, {what}").format(
            chip=chip.name, kind=chip.kind.upper(), address=f"0x{chip.address:02x}", what=what),
            TINTS[i % len(TINTS)]))
    if wiring.matrix is not None:
        m = wiring.matrix
        lines.append((t.gettext("rows: {pins}").format(
            pins=" ".join(f"{r.chip}.{r.pin}" for r in m.rows)), None))
        lines.append((t.gettext("columns: {pins}").format(
            pins=" ".join(f"{c.chip}.{c.pin}" for c in m.columns)), None))
    if wiring.interrupt_gpio is not None:
        lines.append((t.gettext("INT (all chips, open-drain): GPIO {gpio}").format(
            gpio=wiring.interrupt_gpio), None))
    for side, controls in sorted(wiring.buttons.items()):
        pairs = [f"{name} {gpio}" for name, gpio in sorted(controls.items(), key=lambda kv: kv[1])]
        lines.append((t.gettext("{side} buttons (GPIO):").format(side=t.gettext(side)), None))
        lines += [("    " + ", ".join(pairs[i:i + 4]), None) for i in range(0, len(pairs), 4)]
    if wiring.buzzer_gpio is not None:
        lines.append((t.gettext("buzzer: GPIO {gpio}").format(gpio=wiring.buzzer_gpio), None))
    if wiring.display is not None:
        lines.append((t.gettext("OLED {driver} at {address}").format(
            driver=wiring.display.driver, address=f"0x{wiring.display.address:02x}"), None))
    if wiring.serial is not None:
        lines.append((t.gettext("serial: {port}").format(port=wiring.serial.port), None))
    return lines
