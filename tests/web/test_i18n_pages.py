"""The board's pages in Italian and English in a real browser (Debian's Chromium, Playwright, as
tests/web/test_pages.py): the language comes from the browser's Accept-Language, the switch on
the page changes it and the choice is kept; the flags' titles are the regulation's own words,
their texts and the board's words translated, times 24-hour in the viewer's locale. Leaves the
Italian live page and arbiter's console, a clock running, in tests/web/artifacts/ (it-live.png,
it-arbiter.png); with DAMIERA_SCREENSHOTS=docs in the environment, in docs/screenshots/ (the
README's pictures; the tree is not changed by an ordinary run)."""

from __future__ import annotations

import json
import os
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api as playwright_api

from engine.i18n import localize
from tests.web.test_pages import ARGS, ARTIFACTS, CHROMIUM, Daemon, login, play

SCREENSHOTS = (Path(__file__).resolve().parents[2] / "docs" / "screenshots"
               if os.environ.get("DAMIERA_SCREENSHOTS") == "docs" else ARTIFACTS)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def start(root: Path) -> Daemon:
    return Daemon(root, time_control="3600", white="Rossi", black="Bianchi",
                  event="Campionato regionale")


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    d = start(tmp_path)
    yield d
    d.stop()


@pytest.fixture(scope="module")
def untouched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """One daemon for the tests that only read its pages and catalogs (the language is the
    browser's choice, kept by the browser): nothing on it changes, and its start is most of
    such a test's time."""
    d = start(tmp_path_factory.mktemp("untouched"))
    yield d
    d.stop()


def italian_page(browser: Any) -> Any:
    """A page of a browser that asks for Italian first (an Italian phone's Accept-Language)."""
    context = browser.new_context(viewport={"width": 1100, "height": 900}, locale="it-IT",
                                  extra_http_headers={"Accept-Language": "it-IT,it;q=0.9,en;q=0.5"})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # checked by each test at its end
    return page


def test_the_live_page_follows_the_browser_then_the_switch(browser: Any,
                                                           untouched: Daemon) -> None:
    daemon = untouched
    page = italian_page(browser)
    page.goto(daemon.url + "/")
    page.wait_for_selector("#turn:text('Muove il Bianco')", timeout=30000)
    assert page.get_attribute("html", "lang") == "it"
    assert page.text_content("#moves-h") == "Mosse"
    assert page.text_content("#flags-h") == "Segnalazioni"
    assert page.text_content("#white-name") == "Bianco: Rossi"
    assert page.text_content("#result") == "in corso"
    assert "in diretta" in (page.text_content("#conn") or "")
    # the plural forms of the page's language (Italian: one, many, other)
    forms = page.evaluate("""async () => {
        const i = await import('/static/i18n.js');
        return [0, 1, 2].map((n) => i.fmt(i.ngettext('{n} piece', '{n} pieces', n), { n }));
    }""")
    assert forms == ["0 pezzi", "1 pezzo", "2 pezzi"]
    # the page's localize() is the engine's: the same Italian for what a board recorded
    texts = ["touched 21, moved 22", "white resigned", "1-0 black ran out of time",
             "IT 8.1.3 touched 21, moved 22; black: correct or accept",
             "moved 9-13, a move no man can make, where a capture was due (IT 8.1.6)",
             "position disturbed (a piece appeared on e4): put it right or restore",
             "captured 2 piece(s) with 22x13 where 3 must be taken", "Rossi, Mario",
             # a sensor fault as the page builds it from /api/state (message and kind)
             "sensor fault: 0x21, squares c3 e3 (no answer)",
             # two article codes in one message ({code} and {code_turned})
             "the initial position matches (IT 7.1), orientation 0° (INT 5.1)"]
    got = page.evaluate("""async (texts) => {
        const i = await import('/static/i18n.js');
        return texts.map((t) => i.localize(t));
    }""", texts)
    assert got == [localize(t, "it") for t in texts]
    # the switch: English, and the choice is kept over the browser's Accept-Language
    page.click("#lang-en")
    page.wait_for_selector("#turn:text('White to move')", timeout=30000)
    assert page.get_attribute("html", "lang") == "en"
    assert page.text_content("#moves-h") == "Moves"
    page.goto(daemon.url + "/")
    page.wait_for_selector("#turn:text('White to move')", timeout=30000)
    assert page.text_content("#flags-h") == "Flags"
    page.click("#lang-it")
    page.wait_for_selector("#turn:text('Muove il Bianco')", timeout=30000)
    assert page.errors == []
    page.context.close()


def test_a_flag_in_italian_on_the_console_and_the_live_page(browser: Any, daemon: Daemon) -> None:
    """Touched 21, moved 22 (IT 8.1.3): the article's title is the regulation's own words, the
    flag's text and status translated; the wall-clock time 24-hour."""
    page = italian_page(browser)
    page.goto(daemon.url + "/arbiter")
    login(page, daemon.token)
    daemon.request("/api/arbiter", {"action": "start_clock"})  # COMP 4.4.2: the arbiter's
    page.wait_for_selector(".clock.running", timeout=30000)
    play(daemon, "-b3", "+b3", "-d3", "+c4")
    daemon.request("/api/sim/button", {"name": "clock", "side": "white"})
    flag = page.locator('#flags .flag[data-code="IT 8.1.3"]')
    flag.wait_for(timeout=30000)
    text = flag.text_content() or ""
    assert "toccare un proprio pezzo e muoverne un altro" in text, text
    assert "toccato 21, mosso 22" in text and "in sospeso" in text, text
    assert re.search(r"ora locale [0-2]\d:[0-5]\d:[0-5]\d", text), text
    # the JSON API keeps its English contract (the arbiter's view: the flag's own text)
    flags = daemon.request("/api/state")["flags"]
    assert flags[0]["status"] == "pending" and flags[0]["text"] == "touched 21, moved 22"
    flag.click()
    page.wait_for_selector("#diagram-before figcaption:text('prima')", timeout=30000)
    assert "Eventi dei sensori attorno" in (page.text_content("#review-body") or "")
    assert page.text_content("#actions-h") == "Azioni"
    assert page.locator("#action-start_clock").text_content() == "Avvia l'orologio"
    page.wait_for_selector("#replay-step:text('riga')", timeout=30000)

    live = italian_page(browser)  # the public: no arbiter's cookie
    live.goto(daemon.url + "/")
    live.wait_for_selector('#flags .flag[data-code="IT 8.1.3"]', timeout=30000)
    # the public is told only that an irregularity waits (views.HELD_TEXT), in Italian too
    held = live.text_content('#flags .flag[data-code="IT 8.1.3"]') or ""
    assert "un'irregolarità: l'avversario decide se va corretta" in held, held

    # Black accepts (IT 8.2): the flag is kept, Black's clock runs; both pages are shot so
    daemon.request("/api/sim/button", {"name": "accept", "side": "black"})
    page.wait_for_selector('#flags .flag[data-code="IT 8.1.3"]:has-text("mantenuta")', timeout=30000)
    page.wait_for_selector("#clock-black.running", timeout=30000)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "it-arbiter.png"), full_page=True)

    live.wait_for_selector('#flags .flag:has-text("toccato 21, mosso 22")', timeout=30000)
    assert live.text_content("#clock-h") == "Orologio"
    live.wait_for_selector("#clock-black.running", timeout=30000)
    live.wait_for_selector("#turn:text('Muove il Nero')", timeout=30000)
    live.screenshot(path=str(SCREENSHOTS / "it-live.png"), full_page=True)
    assert page.errors == [] and live.errors == []
    page.context.close()
    live.context.close()


def test_the_catalog_is_served_from_the_compiled_mo(untouched: Daemon) -> None:
    daemon = untouched
    with urllib.request.urlopen(daemon.url + "/i18n/it.json", timeout=5) as r:
        catalog = json.loads(r.read())
    assert catalog["lang"] == "it"
    assert catalog["messages"]["Flags"] == "Segnalazioni"
    assert catalog["messages"]["{n} piece"] == ["{n} pezzo", "{n} pezzi", "{n} pezzi"]
    try:
        urllib.request.urlopen(daemon.url + "/i18n/fr.json", timeout=5)
        raise AssertionError("a language without a catalog was served")
    except urllib.error.HTTPError as e:
        assert e.code == 404
