"""Issue 40: a flag about a crown or a colour carries the sensor readings that show it, in its
text and in the board's lines the arbiter's review prints beside it (pi.board.report,
report_layout); an occupancy-only journal's lines read as before."""

from __future__ import annotations

import gettext
import json

from engine.i18n import localize, translations
from pi.board.report import game_report
from pi.board.report_layout import FlagSection, Table, compose

START = {"type": "start", "variant": "italian", "fen": "W:WK18,30:B1", "clock": True,
         "transcribed": True}


def _journal(*lines: dict[str, object]) -> bytes:
    return "".join(json.dumps(x) + "\n" for x in (START, *lines)).encode()


def _flag_rows(data: bytes, t: gettext.NullTranslations, language: str) -> list[list[str]]:
    """The board's lines printed in each flag's section, as text."""
    doc = compose(game_report("g", data), t, language)
    out = []
    for part in doc.parts:
        if isinstance(part, FlagSection):
            tables = [b for b in part.blocks if isinstance(b, Table)]
            out.append([row[-1] for table in tables for row in table.rows])
    return out


UNMARKED = _journal(
    {"t": 1.0, "type": "piece", "square": 18, "piece": "wm", "reading": 0.98},
    {"t": 2.0, "type": "lift", "square": 18},
    {"t": 2.5, "type": "place", "square": 14, "piece": "wm", "reading": 1.03},
    {"t": 3.0, "type": "button", "name": "clock", "side": "white"})


def test_the_unmarked_king_flag_shows_the_readings() -> None:
    report = game_report("g", UNMARKED)
    codes = [(b.flag.code, b.flag.status) for b in report.flags]
    assert codes == [("IT 4.5", "noted"), ("IT 8.1.16", "pending")]
    assert "reads +1.03" in report.flags[1].flag.text  # IT 8.1.16: the man on 14
    rows = _flag_rows(UNMARKED, gettext.NullTranslations(), "en")
    assert "piece placed d5: a white man (reads +1.03)" in rows[1]
    assert "piece changed c4: a white man (reads +0.98)" in rows[0]


def test_the_readings_in_italian() -> None:
    rows = _flag_rows(UNMARKED, translations("it"), "it")
    assert any("+1.03" in row and "pedina bianca" in row for row in rows[1]), rows[1]


def test_an_occupancy_only_line_reads_as_before() -> None:
    data = _journal({"t": 2.0, "type": "lift", "square": 18},
                    {"t": 2.5, "type": "place", "square": 9},
                    {"t": 3.0, "type": "button", "name": "clock", "side": "white"})
    rows = _flag_rows(data, gettext.NullTranslations(), "en")
    assert "piece placed a6" in rows[0]  # 9 = a6 (IT 2.4)


def test_the_flag_texts_read_in_italian() -> None:
    """The journal's English flag texts localized, the piece named in Italian too."""
    report = game_report("g", UNMARKED)
    italian = [localize(b.flag.text, "it") for b in report.flags]
    assert italian == [
        "la dama su 18 ha perso il contrassegno (legge +0.98): la trascrizione la conta ancora "
        "dama",
        "mossa la dama 18-14 senza contrassegno: 14 legge +1.03, una pedina bianca; la "
        "trascrizione la conta dama"]
