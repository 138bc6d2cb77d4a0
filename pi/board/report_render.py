"""A game report's :class:`~pi.board.report_layout.Document` drawn: :func:`pdf_bytes` (A4,
fpdf2, pure Python: made on the Pi without a browser) and :func:`html_text` (one self-contained
page, the diagrams as inline SVG).

The PDF's diagrams are vectors (fpdf2's ``rect`` and ``ellipse``, no image), seen from White's
side as the variant's board lies (the dark squares are the numbered ones: the Italian board's
double corner at each player's right, IT 2.3), each dark square labelled in the variant's
notation. Text is in the PDF's core font (Helvetica: no font file to ship or find), which holds
Latin-1 — every Italian letter; a character outside it is written as its nearest Latin-1 form
(quotes, dashes, an ellipsis) or ``?``.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from engine.i18n import translations
from pi.board.report import GameReport
from pi.board.report_layout import (Block, Diagram, Diagrams, Document, Fields, FlagSection,
                                    Heading, Paragraph, Table, compose)

if TYPE_CHECKING:
    from fpdf import FPDF

__all__ = ["pdf_bytes", "html_text", "latin1", "report_pdf", "report_html"]

# A4 portrait, millimetres
_MARGIN = 14.0
_LINE = 4.2
_FONT = "Helvetica"
_LIGHT = (240, 228, 205)
_DARK = (163, 120, 86)
_WHITE_PIECE = (252, 252, 250)
_BLACK_PIECE = (28, 28, 28)
_INK = (20, 20, 20)
_LABEL_ON_DARK = (250, 240, 225)
_LABEL_ON_PIECE = (90, 90, 90)

_PLAIN = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-",
          "\u2014": "-", "\u2026": "...", "\u2212": "-", "\u00a0": " ", "\u2022": "\u00b7"}


def report_pdf(report: GameReport, language: str = "en") -> bytes:
    """The PDF of ``report`` in ``language`` (``en``, ``it``)."""
    return pdf_bytes(compose(report, translations(language), language))


def report_html(report: GameReport, language: str = "en") -> str:
    """The HTML page of ``report`` in ``language`` (``en``, ``it``)."""
    return html_text(compose(report, translations(language), language))


def latin1(text: str) -> str:
    """``text`` in Latin-1 (the core fonts' set): typographic quotes, dashes and the ellipsis
    as their plain forms, any other character outside Latin-1 as ``?``."""
    if text.isascii():
        return text
    out = "".join(_PLAIN.get(c, c) for c in text)
    return out.encode("latin-1", "replace").decode("latin-1")


def pdf_bytes(doc: Document) -> bytes:
    """The PDF of ``doc``."""
    from fpdf import FPDF  # imported where needed: the daemon loads it only for a report

    class _Paper(FPDF):
        def footer(self) -> None:  # fpdf2's hook: drawn on every page
            self.set_y(-10)
            self.set_font(_FONT, "", 7)
            self.set_text_color(110, 110, 110)
            self.cell(0, 4, latin1(f"{doc.title} - {self.page_no()}/{{nb}}"), align="C")
            self.set_text_color(*_INK)

    pdf = _Paper(orientation="P", unit="mm", format="A4")
    pdf.set_margins(_MARGIN, _MARGIN, _MARGIN)
    pdf.set_auto_page_break(True, margin=14)
    pdf.set_title(latin1(doc.title))
    pdf.set_creator("damiera")
    pdf.set_lang(doc.language)
    pdf.add_page()
    pdf.set_font(_FONT, "B", 15)
    pdf.multi_cell(0, 7, latin1(doc.title), new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    for part in doc.parts:
        if isinstance(part, FlagSection):
            # a flag starts on a fresh page unless its heading, fields and diagrams fit here
            if pdf.will_page_break(110):
                pdf.add_page()
            pdf.set_draw_color(90, 90, 90)
            pdf.line(_MARGIN, pdf.get_y() + 1, pdf.w - _MARGIN, pdf.get_y() + 1)
            pdf.ln(2)
            for block in part.blocks:
                _pdf_block(pdf, block)
            pdf.ln(2)
        else:
            _pdf_block(pdf, part)
    return bytes(pdf.output())


def _pdf_block(pdf: FPDF, block: Block) -> None:
    width = pdf.w - 2 * _MARGIN
    if isinstance(block, Heading):
        if pdf.will_page_break(20):
            pdf.add_page()
        pdf.ln(2)
        pdf.set_font(_FONT, "B", 11.5)
        pdf.multi_cell(0, 6, latin1(block.text), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)
    elif isinstance(block, Paragraph):
        pdf.set_font("Courier" if block.mono else _FONT, "", 8.5)
        pdf.multi_cell(0, _LINE, latin1(block.text), new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)
    elif isinstance(block, Fields):
        for label, value in block.rows:
            _row(pdf, (latin1(label), latin1(value)), (42.0, width - 42.0), ("B", ""))
        pdf.ln(1)
    elif isinstance(block, Table):
        widths = tuple(width * share for share in block.widths)
        _row(pdf, tuple(latin1(h) for h in block.head), widths, ("B",) * len(widths),
             fill=True)
        for row in block.rows:
            _row(pdf, tuple(latin1(c) for c in row), widths, ("",) * len(widths),
                 repeat=block.head)
        pdf.ln(1)
    elif isinstance(block, Diagrams):
        _diagrams(pdf, block)


def _width(pdf: FPDF, text: str) -> float:
    """The width of ``text`` (Latin-1) in the current core font, in mm: summed from the font's
    metrics (``get_string_width`` shapes the text first, ten times slower)."""
    font = pdf.current_font
    if font is None:
        return pdf.get_string_width(text)
    return float(font.get_text_width(text, pdf.font_size_pt, None)[1]) / pdf.k


def _row(pdf: FPDF, cells: Sequence[str], widths: Sequence[float], styles: Sequence[str], *,
         fill: bool = False, repeat: Sequence[str] = ()) -> None:
    """One table row of ``cells`` (wrapped within ``widths``); on a new page the head
    ``repeat`` is drawn first. Written with ``text`` (``cell`` lays out every string again)."""
    lines: list[list[str]] = []
    for text, w, style in zip(cells, widths, styles, strict=True):
        pdf.set_font(_FONT, style, 8)
        if "\n" not in text and _width(pdf, text) <= w - 2 * pdf.c_margin:
            lines.append([text])
        else:
            split = pdf.multi_cell(w, _LINE, text, dry_run=True, output="LINES")
            lines.append(list(split) if isinstance(split, list) else [text])
    height = _LINE * max(len(x) for x in lines)
    if pdf.will_page_break(height):
        pdf.add_page()
        if repeat:
            _row(pdf, tuple(latin1(h) for h in repeat), widths, ("B",) * len(widths), fill=True)
    x, y = pdf.l_margin, pdf.get_y()
    if fill:
        pdf.set_fill_color(228, 228, 228)
        pdf.rect(x, y, sum(widths), height, style="F")
    baseline = _LINE / 2 + 0.3 * pdf.font_size
    for text_lines, w, style in zip(lines, widths, styles, strict=True):
        pdf.set_font(_FONT, style, 8)
        for i, text in enumerate(text_lines):
            if text:
                pdf.text(x + pdf.c_margin, y + i * _LINE + baseline, text)
        x += w
    pdf.set_xy(pdf.l_margin, y + height)


def _diagrams(pdf: FPDF, block: Diagrams) -> None:
    n = len(block.boards)
    side = 52.0 if n < 3 else 50.0
    height = side + 12
    if pdf.will_page_break(height):
        pdf.add_page()
    y0 = pdf.get_y() + 1
    gap = (pdf.w - 2 * _MARGIN - n * side) / max(1, n)
    for i, d in enumerate(block.boards):
        x0 = _MARGIN + gap / 2 + i * (side + gap)
        _board(pdf, d, x0, y0, side / d.size)
    pdf.set_xy(pdf.l_margin, y0 + height)


def _board(pdf: FPDF, d: Diagram, x0: float, y0: float, cell: float) -> None:
    n = d.size
    pdf.set_line_width(0.2)
    pdf.set_draw_color(*_INK)
    pdf.set_fill_color(*_LIGHT)
    pdf.rect(x0, y0, cell * n, cell * n, style="DF")
    pdf.set_fill_color(*_DARK)
    for c in d.cells:
        pdf.rect(x0 + c.file * cell, y0 + (n - 1 - c.rank) * cell, cell, cell, style="F")
    for c in d.cells:
        if not c.piece:
            continue
        x, y = x0 + c.file * cell, y0 + (n - 1 - c.rank) * cell
        inset = cell * 0.18
        pdf.set_fill_color(*(_WHITE_PIECE if c.piece in "wW" else _BLACK_PIECE))
        pdf.set_draw_color(*_INK)
        pdf.ellipse(x + inset, y + inset, cell - 2 * inset, cell - 2 * inset, style="DF")
        if c.piece in "WB":  # a king: a second ring inside
            pdf.set_draw_color(*((_INK) if c.piece == "W" else _WHITE_PIECE))
            k = cell * 0.3
            pdf.ellipse(x + k, y + k, cell - 2 * k, cell - 2 * k, style="D")
    pdf.set_font(_FONT, "", 3.6 if n > 8 else 4.2)
    for c in d.cells:
        x, y = x0 + c.file * cell, y0 + (n - 1 - c.rank) * cell
        pdf.set_text_color(*(_LABEL_ON_PIECE if c.piece in ("w", "W") else _LABEL_ON_DARK))
        pdf.text(x + 0.4, y + 1.6, c.label)
    pdf.set_text_color(110, 110, 110)
    pdf.set_font(_FONT, "", 4.5)
    for f in range(n):
        pdf.text(x0 + f * cell + cell / 2 - 0.6, y0 + n * cell + 2.4, "abcdefghij"[f])
    for r in range(n):
        pdf.text(x0 - 2.6, y0 + (n - 1 - r) * cell + cell / 2 + 0.8, str(r + 1))
    pdf.set_text_color(*_INK)
    pdf.set_font(_FONT, "", 7.5)
    pdf.set_xy(x0, y0 + n * cell + 3.4)
    pdf.cell(cell * n, 3.5, latin1(d.caption), align="C")
    pdf.set_draw_color(*_INK)


# ---------------------------------------------------------------------- HTML

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:60em;color:#141414}
h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #999}
table{border-collapse:collapse;width:100%;margin:.4em 0}
th,td{text-align:left;padding:.15em .5em;vertical-align:top;font-size:.92em}
thead th{background:#e4e4e4}tbody tr:nth-child(even){background:#f6f6f6}
table.fields th{width:14em}
section.flag{border-top:2px solid #555;margin-top:1.4em;page-break-inside:avoid}
.diagrams{display:flex;gap:1.5em;flex-wrap:wrap;margin:.6em 0}
figure{margin:0;text-align:center}figcaption{font-size:.85em}
.mono{font-family:monospace}
"""


def html_text(doc: Document) -> str:
    """One HTML page of ``doc`` (UTF-8 text, no outside resource)."""
    out = [f'<!doctype html>\n<html lang="{escape(doc.language)}"><head><meta charset="utf-8">'
           f"<title>{escape(doc.title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{escape(doc.title)}</h1>"]
    for part in doc.parts:
        if isinstance(part, FlagSection):
            out.append('<section class="flag">')
            out.extend(_html_block(b, level=3) for b in part.blocks)
            out.append("</section>")
        else:
            out.append(_html_block(part))
    out.append("</body></html>\n")
    return "\n".join(out)


def _html_block(block: Block, level: int = 2) -> str:
    if isinstance(block, Heading):
        return f"<h{level}>{escape(block.text)}</h{level}>"
    if isinstance(block, Paragraph):
        return f'<p{" class=mono" if block.mono else ""}>{escape(block.text)}</p>'
    if isinstance(block, Fields):
        rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>"
                       for k, v in block.rows)
        return f'<table class="fields">{rows}</table>'
    if isinstance(block, Table):
        head = "".join(f"<th>{escape(h)}</th>" for h in block.head)
        rows = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                       for row in block.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
    return '<div class="diagrams">' + "".join(_svg(d) for d in block.boards) + "</div>"


def _svg(d: Diagram) -> str:
    n, c = d.size, 26
    pad = 14
    side = n * c
    rgb = "#{:02x}{:02x}{:02x}".format
    parts = [f'<figure><svg xmlns="http://www.w3.org/2000/svg" width="{side + pad}" '
             f'height="{side + pad}" viewBox="{-pad} 0 {side + pad} {side + pad}" '
             f'role="img" aria-label="{escape(d.caption)}" font-family="sans-serif">',
             f'<rect width="{side}" height="{side}" fill="{rgb(*_LIGHT)}" stroke="#141414"/>']
    for cell in d.cells:
        x, y = cell.file * c, (n - 1 - cell.rank) * c
        parts.append(f'<rect x="{x}" y="{y}" width="{c}" height="{c}" fill="{rgb(*_DARK)}"/>')
        if cell.piece:
            fill = rgb(*(_WHITE_PIECE if cell.piece in "wW" else _BLACK_PIECE))
            parts.append(f'<circle cx="{x + c / 2}" cy="{y + c / 2}" r="{c * 0.36:.1f}" '
                         f'fill="{fill}" stroke="#141414"/>')
            if cell.piece in "WB":
                ring = "#141414" if cell.piece == "W" else "#fcfcfa"
                parts.append(f'<circle cx="{x + c / 2}" cy="{y + c / 2}" r="{c * 0.2:.1f}" '
                             f'fill="none" stroke="{ring}"/>')
        colour = "#787878" if cell.piece in ("w", "W") else rgb(*_LABEL_ON_DARK)
        parts.append(f'<text x="{x + 2}" y="{y + 8}" font-size="7" fill="{colour}">'
                     f"{escape(cell.label)}</text>")
    for f in range(n):
        parts.append(f'<text x="{f * c + c / 2 - 3}" y="{side + 11}" font-size="9" '
                     f'fill="#666">{"abcdefghij"[f]}</text>')
    for r in range(n):
        parts.append(f'<text x="{-12}" y="{(n - 1 - r) * c + c / 2 + 3}" font-size="9" '
                     f'fill="#666">{r + 1}</text>')
    parts.append(f"</svg><figcaption>{escape(d.caption)}</figcaption></figure>")
    return "".join(parts)
