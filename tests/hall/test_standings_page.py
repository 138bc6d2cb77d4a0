"""The hall's standings page (issue 37; ``/standings``, HUB_API.md) in a real browser (Debian's
Chromium, Playwright, as tests/hall/test_hall_pages.py): the standings after the newest round
with a result, points and the event's tie-breaks (COMP 6.14, 6.21 b), each player's games
round by round; a round chosen shows the standings after it; a result coming in is shown
without a reload; the page in Italian. Leaves ``standings.png`` in tests/web/artifacts/, or with
DAMIERA_SCREENSHOTS=docs in docs/screenshots/ (the organiser's guide's picture)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.hall.broker import Broker
from tests.hall.hub_rig import FakeBoard, HubRig, wait
from tests.hall.test_hall_pages import ARTIFACTS, CHROMIUM, _browser
from tests.hall.test_hub_standings import game

pytestmark = pytest.mark.heavy  # headless Chromium: run first (tests/conftest.py)

SCREENSHOTS = (Path(__file__).resolve().parents[2] / "docs" / "screenshots"
               if os.environ.get("DAMIERA_SCREENSHOTS") == "docs" else ARTIFACTS)
CSV = ("round,board,white,black\n"
       "1,1,Rossi,Bianchi\n1,2,Verdi,Neri\n1,3,Gialli,Blu\n"
       "2,1,Neri,Rossi\n2,2,Bianchi,Gialli\n2,3,Blu,Verdi\n"
       "3,1,Rossi,Gialli\n3,2,Verdi,Bianchi\n3,3,Neri,Blu\n")
#: round → board → result of the games played before the page is opened
PLAYED = {"1": {"1": "1-0", "2": "1/2-1/2", "3": "0-1"},
          "2": {"1": "0-1", "2": "1/2-1/2", "3": "1/2-1/2"}}


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[tuple[HubRig, dict[str, FakeBoard]]]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} missing: apt-get install chromium (make system-deps)",
                    pytrace=False)
    with Broker(tmp_path) as broker, HubRig(tmp_path / "hub", broker.url) as rig:
        boards = {n: FakeBoard(broker.url, n) for n in ("1", "2", "3")}
        try:
            assert rig.json("POST", "/api/pairings", raw=CSV.encode(), token=rig.token)[0] == 200
            pairs = {(r.split(",")[0], r.split(",")[1]): r.split(",")[2:]
                     for r in CSV.splitlines()[1:]}
            for rnd, results in PLAYED.items():
                for board, result in results.items():
                    white, black = pairs[(rnd, board)]
                    play(rig, boards[board], rnd, white, black, result)
            yield rig, boards
        finally:
            for b in boards.values():
                b.close()


def play(rig: HubRig, board: FakeBoard, rnd: str, white: str, black: str, result: str) -> None:
    """Board ``board``'s game of round ``rnd`` played to ``result`` (adjudicated)."""
    game_id = f"2026-11-2{rnd}T0900-b0{board.board}-00{rnd}"
    lines = game(game_id, board.board, rnd, white, black, result)
    board.add_game(game_id, lines)
    board.status()
    board.publish_lines(game_id)
    wait(lambda: rig.held(board.board, game_id) == len(lines), what=f"{game_id} replicated")


def cells(page: Any, player: str, selector: str) -> list[str]:
    return page.eval_on_selector_all(f"#standings tbody tr[data-player='{player}'] {selector}",
                                     "cs => cs.map(c => c.textContent)")


def test_the_standings_page_per_round_live_and_in_italian(
        hall: tuple[HubRig, dict[str, FakeBoard]]) -> None:
    from playwright import sync_api
    rig, boards = hall
    with sync_api.sync_playwright() as p:
        browser = _browser(p)
        try:
            context = browser.new_context(viewport={"width": 1200, "height": 520})
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"http://127.0.0.1:{rig.port}/standings")
            page.wait_for_selector("#standings tbody tr[data-player='Rossi']", timeout=30000)
            # after round 2, the newest with a result: Blu 2+1, Rossi 2+2, Neri 1+0 ...
            assert page.input_value("#round-select") == "2"
            names = page.eval_on_selector_all("#standings tbody tr",
                                              "rs => rs.map(r => r.dataset.player)")
            assert names[0] == "Rossi" and len(names) == 6, names
            assert cells(page, "Rossi", "td.points") == ["4"]
            assert cells(page, "Rossi", "td.rank") == ["1"]
            # the default tie-breaks, named in the header and valued per player (COMP 6.21 b)
            assert page.eval_on_selector_all("#standings thead th.tie-break",
                                              "hs => hs.map(h => h.textContent)") == \
                ["Buchholz", "Sonneborn-Berger"]
            assert "2-1-0" in (page.text_content("#scoring") or "")
            # each round's game: points, colour, opponent
            assert cells(page, "Rossi", "td.game") == ["2 ○ Bianchi", "2 ● Neri"]
            # round 1 chosen: the standings after it
            page.select_option("#round-select", "1")
            page.wait_for_function(
                "document.querySelectorAll('#standings thead th.round').length === 1",
                timeout=30000)
            assert cells(page, "Rossi", "td.points") == ["2"]
            assert cells(page, "Neri", "td.points") == ["1"]
            # live: round 3 begins and board 1's game ends; the page follows once round 3 is
            # chosen (the newest with a result), without a reload
            play(rig, boards["1"], "3", "Rossi", "Gialli", "1-0")
            page.select_option("#round-select", "3")
            page.wait_for_function(
                "document.querySelector(\"#standings tbody tr[data-player='Rossi'] td.points\")"
                ".textContent === '6'", timeout=30000)
            play(rig, boards["2"], "3", "Verdi", "Bianchi", "0-1")
            page.wait_for_function(
                "[...document.querySelectorAll(\"#standings tbody tr[data-player='Bianchi'] "
                "td.game\")].map(c => c.textContent).join('|') === "
                "'0 ● Rossi|1 ○ Gialli|2 ● Verdi'", timeout=30000)
            assert cells(page, "Neri", "td.game")[-1] == "* ○ Blu"  # not over yet
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "standings.png"), full_page=True)
            # in Italian: the switch every page has
            page.click("#lang-it")
            page.wait_for_selector("#standings-h:text('Classifica')", timeout=30000)
            page.wait_for_selector("#standings tbody tr[data-player='Rossi']", timeout=30000)
            assert "punti" in page.eval_on_selector_all(
                "#standings thead th", "hs => hs.map(h => h.textContent)")
            assert "spareggi" in (page.text_content("#scoring") or "")
            assert page.get_attribute("html", "lang") == "it"
            assert errors == []
        finally:
            browser.close()
