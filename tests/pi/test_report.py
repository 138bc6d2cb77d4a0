"""``damiera report GAME_DIR``: the game's paperwork for decisions and appeals (issue 20). The PDF
opens and its extracted text holds every move in order, every flag with its code and article
title, and the journal's SHA-256 and line count (checked against the file itself); the HTML page
likewise; the diagrams are vectors numbered the variant's way; a bad GAME_DIR is one line on
stderr and exit 2."""

from __future__ import annotations

import gettext
import hashlib
import io
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pypdf import PdfReader

from engine.articles import title
from hardware_mocks.sample_game import SAMPLE_TRACE, flagged_trace
from pi.board.report import GameReport, read_game_dir
from pi.board.report_layout import Diagrams, FlagSection, compose
from pi.board.report_render import latin1
from pi.cli import main as cli

ROOT = Path(__file__).resolve().parents[2]
GAME_ID = "2026-11-26T0900-b07-001"


@pytest.fixture(scope="module")
def game_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("state") / "games" / GAME_ID
    folder.mkdir(parents=True)
    (folder / "trace.jsonl").write_text("".join(flagged_trace(plies=160, flags=10)),
                                        encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def report(game_dir: Path) -> GameReport:
    return read_game_dir(game_dir)


@pytest.fixture(scope="module")
def pdf_text(game_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("out") / "r.pdf"
    assert cli(["report", str(game_dir), "--pdf", str(out)]) == 0
    reader = PdfReader(io.BytesIO(out.read_bytes()))
    return "\n".join(page.extract_text() for page in reader.pages)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.lang = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "html":
            self.lang = dict(attrs).get("lang") or ""

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_of(game_dir: Path, out: Path, *lang: str) -> _Text:
    assert cli(["report", str(game_dir), "--html", str(out), *lang]) == 0
    parser = _Text()
    parser.feed(out.read_text(encoding="utf-8"))
    return parser


def in_order(text: str, words: list[str]) -> list[str]:
    """The words not found in ``text`` in this order (each after the one before)."""
    missing, at = [], 0
    for w in words:
        found = text.find(w, at)
        if found < 0:
            missing.append(w)
        else:
            at = found + len(w)
    return missing


def test_the_game_has_what_the_paper_must_show(report: GameReport) -> None:
    codes = {b.flag.code for b in report.flags}
    statuses = {b.flag.status for b in report.flags}
    assert len(report.moves) == 160 and len(report.flags) == 10
    assert {"IT 8.1.3", "BOARD", "COMP 6.16"} <= codes
    assert {"maintained", "corrected", "noted"} <= statuses
    assert report.arbiter and {s.type for s in report.machine} >= {"fault", "restart"}
    corrected = next(b for b in report.flags if b.flag.status == "corrected")
    # IT 8.4: the position after the correction is the one before the irregular move
    assert corrected.after == corrected.before != corrected.played
    assert corrected.decisions[0].by.kind == "player" and corrected.decisions[0].by.what == "correct"


def test_the_pdf_holds_every_move_in_order_every_flag_and_the_digest(
        report: GameReport, pdf_text: str, game_dir: Path) -> None:
    moves_part = pdf_text[:pdf_text.index("Flag 1:")]
    assert in_order(moves_part, [m.notation for m in report.moves]) == []
    for i, b in enumerate(report.flags, start=1):
        assert f"Flag {i}: {b.flag.code}" in pdf_text
    assert in_order(pdf_text, [f"Flag {i}:" for i in range(1, len(report.flags) + 1)]) == []
    assert latin1(title("IT 8.1.3")) in pdf_text
    data = (game_dir / "trace.jsonl").read_bytes()
    assert hashlib.sha256(data).hexdigest() in pdf_text
    count = data.count(b"\n")
    assert re.search(rf"Lines\s*{count}\b", pdf_text)
    # clock readings and both clocks' labels
    assert "game time" in pdf_text and "wall time 2026-11-26 09:" in pdf_text
    assert "Bianchi, Anna" in pdf_text and "5400+30" in pdf_text and "Campionato" in pdf_text


def test_the_diagrams_are_vectors_not_images(game_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.pdf"
    assert cli(["report", str(game_dir), "--pdf", str(out)]) == 0
    reader = PdfReader(out)
    assert all(not page.images for page in reader.pages)
    drawn = [c.get_data() for c in (p.get_contents() for p in reader.pages) if c is not None]
    # a flag's page: squares (re) of its three boards and pieces (Bezier curves, c)
    assert any(ops.count(b" re") > 3 * 32 and ops.count(b" c") > 4 * 30 for ops in drawn)


def test_the_html_holds_every_move_every_flag_and_the_digest(
        report: GameReport, game_dir: Path, tmp_path: Path) -> None:
    page = html_of(game_dir, tmp_path / "r.html")
    text = "\n".join(page.parts)
    assert page.lang == "en"
    assert in_order(text[:text.index("Flag 1:")], [m.notation for m in report.moves]) == []
    for i, b in enumerate(report.flags, start=1):
        assert f"Flag {i}: {b.flag.code}" in text
    assert report.digest.sha256 in text and str(report.digest.lines) in text
    assert (tmp_path / "r.html").read_text(encoding="utf-8").count("<svg") >= 2 * len(report.flags)


@pytest.mark.parametrize("variant,size,first", [("italian", 8, ((0, 7), "1")),
                                                 ("english", 8, ((1, 7), "1")),
                                                 ("international", 10, ((1, 9), "1")),
                                                 ("brazilian", 8, ((1, 7), "b8"))])
def test_diagrams_are_numbered_the_variants_way(variant: str, size: int,
                                                first: tuple[tuple[int, int], str],
                                                tmp_path: Path) -> None:
    folder = tmp_path / "games" / "g-001"
    folder.mkdir(parents=True)
    (folder / "trace.jsonl").write_text("".join(flagged_trace(variant, plies=30, flags=2)),
                                        encoding="utf-8")
    doc = compose(read_game_dir(folder), gettext.NullTranslations())
    boards = [d for part in doc.parts if isinstance(part, FlagSection)
              for block in part.blocks if isinstance(block, Diagrams) for d in block.boards]
    assert boards and all(d.size == size and len(d.cells) == size * size // 2 for d in boards)
    cells = {(c.file, c.rank): c.label for c in boards[0].cells}
    assert cells[first[0]] == first[1]
    # IT 2.3: the Italian board has its dark double corner at each player's right (h1 dark)
    assert ((size - 1, 0) in cells) == (variant == "italian")
    assert ((0, 0) in cells) == (variant != "italian")
    if variant == "brazilian":  # the labels are algebraic, the moves too
        assert all(re.fullmatch(r"[a-h][1-8]", c.label) for c in boards[0].cells)


def test_the_default_output_and_standard_output(game_dir: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch,
                                                capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    monkeypatch.chdir(tmp_path)
    assert cli(["report", str(game_dir)]) == 0
    assert capsysbinary.readouterr().out == f"{GAME_ID}-report.pdf\n".encode()
    assert (tmp_path / f"{GAME_ID}-report.pdf").read_bytes().startswith(b"%PDF-")
    assert cli(["report", str(game_dir), "--pdf", "-"]) == 0
    assert capsysbinary.readouterr().out.startswith(b"%PDF-")


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pi.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("setup", ["missing", "no_trace", "garbage", "empty", "not_utf8",
                                   "a_file"])
def test_a_bad_game_dir_is_one_line_and_exit_2(setup: str, tmp_path: Path) -> None:
    folder = tmp_path / "games" / "x"
    if setup != "missing":
        folder.mkdir(parents=True)
    contents = {"garbage": b"{not json\n", "empty": b"", "not_utf8": b"\xff\xfe\n"}
    if setup in contents:
        (folder / "trace.jsonl").write_bytes(contents[setup])
    target = folder
    if setup == "a_file":
        target = folder / "trace.jsonl"
        target.write_bytes(SAMPLE_TRACE.read_bytes())
    result = run("report", str(target), "--pdf", str(tmp_path / "out.pdf"))
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("damiera: ")
    assert "Traceback" not in result.stderr and not (tmp_path / "out.pdf").exists()


def test_an_unwritable_output_is_one_line(game_dir: Path, tmp_path: Path) -> None:
    result = run("report", str(game_dir), "--pdf", str(tmp_path / "no" / "such" / "r.pdf"))
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1


def test_a_damaged_line_is_listed_not_fatal(tmp_path: Path) -> None:
    folder = tmp_path / "games" / "g-001"
    folder.mkdir(parents=True)
    lines = SAMPLE_TRACE.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(30, "{\"t\": 1, \"type\": \"teleport\"}\n")
    (folder / "trace.jsonl").write_text("".join(lines), encoding="utf-8")
    report = read_game_dir(folder)
    assert [n for n, _ in report.unreadable] == [31]
    assert report.result == "1-0" and report.digest.lines == len(lines)


ITALIAN = ("Referto della partita", "Note e interventi dell'arbitro", "Segnalazione 1: ",
           "Guasti e riavvii", "Il registro della partita", "tempo di gioco", "ora reale",
           "Dama italiana")
ENGLISH = ("Game report", "The arbiter's notes and actions", "Flag 1: ", "Faults and restarts",
           "The journal", "wall time")


def test_lang_it_gives_italian_headings_in_the_pdf_and_the_html(
        report: GameReport, game_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "it.pdf"
    assert cli(["report", str(game_dir), "--pdf", str(out), "--lang", "it"]) == 0
    text = "\n".join(p.extract_text() for p in PdfReader(out).pages)
    assert [w for w in ITALIAN if latin1(w) not in text] == []
    assert [w for w in ENGLISH if w in text] == []
    # the notation stays the variant's, the digest the file's
    assert in_order(text, [m.notation for m in report.moves]) == []
    assert report.digest.sha256 in text
    page = html_of(game_dir, tmp_path / "it.html", "--lang", "it")
    html = "\n".join(page.parts)
    assert page.lang == "it" and [w for w in ITALIAN if w not in html] == []
    assert [w for w in ENGLISH if w in html] == []


def test_an_unknown_language_is_refused_by_the_options(game_dir: Path) -> None:
    result = run("report", str(game_dir), "--lang", "fr")
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1


def test_a_last_line_being_written_is_listed_and_counted_in_the_digest(tmp_path: Path) -> None:
    folder = tmp_path / "games" / "g-001"
    folder.mkdir(parents=True)
    data = SAMPLE_TRACE.read_bytes()
    torn = data + '{"t": 999, "type": "arbiter", "action": "note", "text": "caff\u00e8'.encode()[:-1]
    (folder / "trace.jsonl").write_bytes(torn)
    report = read_game_dir(folder)
    lines = data.count(b"\n")
    assert [n for n, _ in report.unreadable] == [lines + 1]
    assert report.digest == type(report.digest)(hashlib.sha256(torn).hexdigest(), lines + 1,
                                                len(torn))
    assert report.result == "1-0" and not report.arbiter


def test_a_corrected_result_keeps_the_first_in_the_papers(tmp_path: Path) -> None:
    """Issue 37 (COMP 6.16): the result the arbiter corrected after the game is on the paper
    before the one the game has, each with how, when and by whom; the correction's reason is
    among the flags and the arbiter's actions."""
    folder = tmp_path / "games" / "g-001"
    folder.mkdir(parents=True)
    trace = ROOT / "tests" / "traces" / "italian" / "result_corrected_comp_6_16.jsonl"
    (folder / "trace.jsonl").write_bytes(trace.read_bytes())
    report = read_game_dir(folder)
    assert report.result == "0-1" and report.ending is not None
    assert [(e.result, e.article) for e in report.corrected] == [("1-0", "IT 9.2.1")]
    assert (report.ending.result, report.ending.article) == ("0-1", "COMP 6.16")
    page = html_of(folder, tmp_path / "r.html")
    text = "\n".join(page.parts)
    first = text.index("Result before the correction")
    assert text.index("1-0", first) < text.index("0-1", first)
    assert "White resigned; the button pressed was Black's by mistake" in text


@pytest.mark.parametrize("lang, words", [("en", ["Decision 1", "lapsed by COMP", "Status",
                                                 "lapsed"]),
                                         ("it", ["decaduta"])])
def test_an_irregularity_pending_when_the_game_was_adjudicated_is_lapsed_on_paper(
        tmp_path: Path, lang: str, words: list[str]) -> None:
    """IT 8.2-8.3: the opponent decides until his own next move; the arbiter's adjudication
    ended the game first, so the paper shows the irregularity lapsed by the adjudication (made
    by the arbiter), never still pending, and its move in the transcript."""
    folder = tmp_path / "games" / "g-001"
    folder.mkdir(parents=True)
    trace = ROOT / "tests" / "traces" / "italian" / "d1_pending_lapses_when_adjudicated_8_3.jsonl"
    (folder / "trace.jsonl").write_bytes(trace.read_bytes())
    report = read_game_dir(folder)
    [block] = report.flags
    assert (block.flag.code, block.flag.status) == ("IT 8.1.2", "lapsed")
    assert [(d.status, d.article, d.by.kind) for d in block.decisions] == [
        ("lapsed", "COMP", "arbiter")]
    text = "\n".join(html_of(folder, tmp_path / "r.html", "--lang", lang).parts)
    assert not in_order(text, words), text
    assert "pending" not in text and "in sospeso" not in text
