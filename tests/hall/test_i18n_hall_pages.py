"""The hall's pages in Italian and English in a real browser (Debian's Chromium, Playwright, as
tests/hall/test_hall_pages.py): the hall page and the hall's arbiter console follow the
browser's Accept-Language, the switch changes it; a board's pages on the hub too; counts take
the language's plural forms."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pi.hall import protocol as P
from tests.hall.broker import Broker
from tests.hall.hub_rig import TRACES, FakeBoard, HubRig, trace_lines, wait

CHROMIUM = "/usr/bin/chromium"
G7 = "2026-11-22T0900-b07-001"
#: IT 8.2: an irregularity the opponent accepts (pending until then) - tests/traces/italian.
KEPT = TRACES / "italian" / "d1_kept_by_accept_8_2.jsonl"
ITALIAN = {"Accept-Language": "it-IT,it;q=0.9,en;q=0.5"}


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[tuple[HubRig, FakeBoard]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} missing: apt-get install chromium (make system-deps)",
                    pytrace=False)
    with Broker(tmp_path) as broker:
        b7 = FakeBoard(broker.url, "7")
        b7.add_game(G7, trace_lines(KEPT, game=G7, board="7", white="Rossi", black="Verdi"))
        b7.client.publish(b7.topics.board(7, "status"),
                          P.status_payload(7, G7, 0, [], session="00ff00ff", key=b7.key),
                          qos=1, retain=True).wait_for_publish(5)
        try:
            with HubRig(tmp_path / "hub", broker.url) as rig:
                yield rig, b7
        finally:
            b7.close()


def _pending(rig: HubRig, board: FakeBoard) -> None:
    """Publishes the game line by line until the hub shows its pending flag."""
    for n in range(1, len(board.journals[G7]) + 1):
        board.publish_line(G7, n)
        wait(lambda n=n: rig.held(7, G7) == n)
        _, hall = rig.json("GET", "/api/hall", token=rig.token)
        if any(b["pending_flags"] for b in hall["boards"]):
            return
    raise AssertionError("no pending flag in the trace")


def test_hall_page_and_console_in_italian_then_english(hall: tuple[HubRig, FakeBoard]) -> None:
    from playwright import sync_api
    rig, b7 = hall
    _pending(rig, b7)
    url = f"http://127.0.0.1:{rig.port}"
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"])
        try:
            context = browser.new_context(viewport={"width": 1200, "height": 800},
                                          locale="it-IT", extra_http_headers=ITALIAN)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url + "/")
            page.wait_for_selector("#board-7 .badge.flag", timeout=30000)
            assert page.get_attribute("html", "lang") == "it"
            assert page.text_content("#board-7 .title") == "Damiera 7"
            assert page.text_content("#summary") == "1 damiera"       # one: the singular form
            assert page.locator("#round-filter option").first.text_content() == "tutte"
            page.click("#lang-en")
            page.wait_for_selector("#board-7 .title:text('Board 7')", timeout=30000)
            assert page.text_content("#summary") == "1 board"
            page.click("#lang-it")
            page.wait_for_selector("#board-7 .title:text('Damiera 7')", timeout=30000)

            # the hall's arbiter console: the flag's article in the regulation's own words
            page.goto(url + "/arbiter")
            page.wait_for_selector("#token", timeout=30000)
            assert page.locator("th:text('quando (ora locale)')").count() == 2
            page.fill("#token", rig.token)
            page.keyboard.press("Enter")
            page.wait_for_function("document.querySelector('#who').textContent === 'arbitro'",
                                   timeout=30000)
            row = page.wait_for_selector("#flags tbody tr[data-board='7']", timeout=30000)
            text = row.text_content() or ""
            assert "IT 8" in text and "in sospeso" in text, text
            assert any(t in text for t in ("muovere", "toccare", "tralasciare", "spostare")), text
            page.click("#lang-en")
            row = page.wait_for_selector("#flags tbody tr[data-board='7']", timeout=30000)
            assert "pending" in (row.text_content() or "")
            assert page.text_content("#who") == "arbiter"

            # a board's pages on the hub: the same catalog, the choice kept (English now)
            page.goto(url + "/boards/7/")
            page.wait_for_selector("#moves-h:text('Moves')", timeout=30000)
            page.click("#lang-it")
            page.wait_for_selector("#moves-h:text('Mosse')", timeout=30000)
            assert errors == []
        finally:
            browser.close()
