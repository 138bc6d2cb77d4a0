"""The hall's two pages in a real browser (headless Chromium from the Debian package, driven by
Playwright as tests/web/test_pages.py): the hall page shows every board at a glance and follows
them live; the hall's arbiter console lists the pending flags across boards, sends pairings to
the boards and shows the results. Screenshots are saved in tests/web/artifacts/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from pi.hall import protocol as P

from tests.hall.broker import Broker
from tests.hall.hub_rig import SAMPLE, TRACES, FakeBoard, HubRig, trace_lines, wait

pytestmark = pytest.mark.heavy  # the hall's pages in headless Chromium: run first (tests/conftest.py)

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "web" / "artifacts"
G4 = "2026-11-22T0900-b04-001"
G7 = "2026-11-22T0900-b07-001"
G9 = "2026-11-22T0900-b09-001"
#: IT 8.2: an irregularity the opponent accepts (pending until then) - tests/traces/italian.
KEPT = TRACES / "italian" / "d1_kept_by_accept_8_2.jsonl"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module (Playwright's driver and the browser take a second
    or two to start); each test opens a context of its own (cookies, storage, clock), so no
    test's pages see another's. Not one for the session: while Playwright's sync API is
    started, ``asyncio.run`` in the main thread refuses to run (other modules' tests use it)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} missing: apt-get install chromium (make system-deps)",
                    pytrace=False)
    from playwright import sync_api
    with sync_api.sync_playwright() as p:
        launched = _browser(p)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[dict[str, Any]]:
    with Broker(tmp_path) as broker:
        b4 = FakeBoard(broker.url, "4")
        b7 = FakeBoard(broker.url, "7")
        b4.add_game(G4, trace_lines(SAMPLE, game=G4, board="4", white="Bianchi", black="Neri"))
        b7.add_game(G7, trace_lines(KEPT, game=G7, board="7", white="Rossi", black="Verdi"))
        for b, g in ((b4, G4), (b7, G7)):  # online, as a board says on connecting; its lines follow
            b.client.publish(b.topics.board(b.board, "status"),
                             P.status_payload(b.board, g, 0, [], session="00ff00ff", key=b.key),
                             qos=1, retain=True).wait_for_publish(5)
        try:
            # the hub ticks every 0.1 s, not every second: it starts a round's clocks at a tick
            with HubRig(tmp_path / "hub", broker.url, tick=0.1) as rig:
                yield {"rig": rig, "b4": b4, "b7": b7, "url": broker.url}
        finally:
            b4.close()
            b7.close()


def _until_pending(rig: HubRig, board: FakeBoard, game: str) -> int:
    """Publishes ``game`` line by line until the hub shows a pending flag; the lines sent."""
    lines = board.journals[game]
    for n in range(1, len(lines) + 1):
        board.publish_line(game, n)
        wait(lambda n=n: rig.held(board.board, game) == n)
        _, hall = rig.json("GET", "/api/hall", token=rig.token)
        if any(b["board"] == board.board and b["pending_flags"] for b in hall["boards"]):
            return n
    raise AssertionError("no pending flag in the trace")


def _round_on_hub(rig: HubRig, rnd: str) -> dict[str, dict[str, Any]]:
    """Board → its row of round ``rnd`` as the hub answers the console (GET /api/rounds/<r>)."""
    status, got = rig.json("GET", f"/api/rounds/{rnd}", token=rig.token)
    return {b["board"]: b for b in got["boards"]} if status == 200 else {}


def _browser(p: Any) -> Any:
    return p.chromium.launch(executable_path=CHROMIUM, args=[
        "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
        "--autoplay-policy=no-user-gesture-required"])


def _watched(context: Any) -> tuple[Any, list[str]]:
    """A new page of the browser ``context`` and the list its scripts' errors go to."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return page, errors


def test_hall_page_shows_every_board_and_follows_them_live(hall: dict[str, Any],
                                                          browser: Any) -> None:
    rig, b4, b7 = hall["rig"], hall["b4"], hall["b7"]
    b4.publish_lines(G4)
    wait(lambda: rig.held(4, G4) == len(b4.journals[G4]))
    sent = _until_pending(rig, b7, G7)
    with browser.new_context(viewport={"width": 900, "height": 700}) as context:
        page, errors = _watched(context)
        page.goto(f"http://127.0.0.1:{rig.port}/")
        page.wait_for_selector("#board-4 .result:text('1-0')", timeout=30000)
        assert "Bianchi" in page.text_content("#board-4 .white")
        assert "Neri" in page.text_content("#board-4 .black")
        assert page.locator("#board-4 svg circle.piece").count() > 0
        # issue 16: the card's clocks read as a DGT3000's (58:03, not 0h58)
        for face in ("cw", "cb"):
            text = page.text_content(f"#board-4 .mini-clocks .{face}") or ""
            assert re.fullmatch(r"[○●] [1-5]?[0-9]:[0-5][0-9]", text), text
        # board 7: the pending irregularity is a badge, its card framed
        page.wait_for_selector("#board-7.flagged .badge.flag", timeout=30000)
        assert "Rossi" in page.text_content("#board-7 .white")
        # the boards in number order, whatever order they were heard in
        order = page.eval_on_selector_all("article.card", "cs => cs.map(c => c.dataset.board)")
        assert order == ["4", "7"]
        # live: the rest of board 7's game arrives without a reload
        before = page.text_content("#board-7 .moves")
        b7.publish_lines(G7, range(sent + 1, len(b7.journals[G7]) + 1))
        page.wait_for_function(
            "b => document.querySelector('#board-7 .moves').textContent !== b", arg=before,
            timeout=30000)
        page.wait_for_selector("#board-7:not(.flagged)", timeout=30000)
        # a round filter hides the other rounds' boards (both are round 1 here)
        assert page.locator("#round-filter option").count() == 2
        # board 9 in mid-game, its clock running: the README's screenshot shows one ticking
        b9 = FakeBoard(hall["url"], "9")
        try:
            b9.add_game(G9, trace_lines(SAMPLE, game=G9, board="9", white="Gialli",
                                        black="Blu"))
            b9.client.publish(b9.topics.board(9, "status"),
                              P.status_payload(9, G9, 0, [], session="00ff00ff", key=b9.key),
                              qos=1, retain=True).wait_for_publish(5)
            b9.publish_lines(G9, range(1, len(b9.journals[G9]) // 2))
            page.wait_for_selector("#board-9 .mini-clocks .running", timeout=30000)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "hall.png"), full_page=True)
        finally:
            b9.close()
        assert errors == []


def test_hall_console_lists_flags_sends_pairings_and_shows_results(hall: dict[str, Any],
                                                                   browser: Any) -> None:
    rig, b4, b7 = hall["rig"], hall["b4"], hall["b7"]
    b4.publish_lines(G4)
    wait(lambda: rig.held(4, G4) == len(b4.journals[G4]))
    b7.publish_lines(G7, [1])
    wait(lambda: rig.held(7, G7) == 1)
    # an en-US browser (its toLocaleTimeString says "02:03:07 PM"): the console still writes
    # 24-hour local time and says so (issue 16)
    with browser.new_context(viewport={"width": 1200, "height": 800},
                             locale="en-US") as context:
        # Playwright's clock in the page: time flows as ever, and the test moves it on past
        # the console's 2 s poll of the round once the hub has what the poll is to show
        context.clock.install()
        page, errors = _watched(context)
        page.goto(f"http://127.0.0.1:{rig.port}/arbiter")
        assert page.locator("th:text('when (local time)')").count() == 2
        # not logged in: nothing but the login box
        page.wait_for_selector("#token", timeout=30000)
        assert page.locator("#flags tbody tr").count() == 0
        page.fill("#token", rig.token)
        page.keyboard.press("Enter")
        page.wait_for_function("document.querySelector('#who').textContent === 'arbiter'",
                               timeout=30000)
        page.wait_for_selector("#conn:text('live')", timeout=30000)
        assert page.locator("#alarms tbody tr").count() == 0
        # someone publishing for board 4 with its password but not its key: an alarm, live
        b4.raw("journal", P.journal_payload(G4, len(b4.journals[G4]) + 1,
                                            '{"t": 1.0, "type": "x"}', "ab" * 32))
        alarm = page.wait_for_selector("#alarms tbody tr[data-board='4']", timeout=30000)
        assert "does not verify" in alarm.text_content()
        assert re.fullmatch(r"[0-2]\d:[0-5]\d:[0-5]\d",
                            alarm.query_selector("td").text_content()), alarm.text_content()
        assert page.locator("#alarms-empty").is_hidden()
        # a flag raised now, on board 7, reaches the console live
        sent = _until_pending(rig, b7, G7)
        row = page.wait_for_selector("#flags tbody tr[data-board='7']", timeout=30000)
        assert "IT 8" in row.text_content() and "pending" in row.text_content()
        assert re.fullmatch(r"[0-2]\d:[0-5]\d:[0-5]\d",
                            row.query_selector("td").text_content()), row.text_content()
        href = page.get_attribute("#flags tbody tr[data-board='7'] a", "href")
        assert href is not None and href.startswith("/boards/7/arbiter?flag=")
        # decided: it leaves the pending list
        b7.publish_lines(G7, range(sent + 1, len(b7.journals[G7]) + 1))
        page.wait_for_selector("#flags tbody tr[data-board='7']", state="detached",
                               timeout=30000)
        page.select_option("#status-filter", "")
        assert page.locator("#flags tbody tr[data-board='7']").count() >= 1
        # pairings of two rounds: kept whole, nothing sent before a round starts
        page.fill("#pairings-csv", "round,board,white,black\n2,4,Gialli,Blu\n2,7,Viola,Rosa\n"
                  "3,4,Rosa,Gialli\n3,7,Blu,Viola\n")
        page.click("#pairings-send")
        page.wait_for_selector("#pairings-status:text('4 pairings kept (rounds 2, 3)')",
                               timeout=30000)
        assert not [c for c in b4.commands + b7.commands if c.pairing]
        # "Start round 2": each board gets round 2's pairing (not round 3's, the last rows)
        page.wait_for_selector("#round-select option[value='2']", state="attached")
        page.select_option("#round-select", "2")
        page.click("#round-start")
        wait(lambda: any(c.pairing and c.pairing.get("white") == "Gialli"
                         for c in b4.commands), what="board 4's pairing")
        wait(lambda: any(c.pairing and c.pairing.get("black") == "Rosa"
                         for c in b7.commands), what="board 7's pairing")
        assert {c.pairing["round"] for c in b4.commands + b7.commands if c.pairing} == {"2"}
        # neither board has begun a game of round 2: both listed as not ready, with why
        # (its pairing taken, its round 1 game still in play): once the hub says so, the
        # console shows it at its next poll
        wait(lambda: (r := _round_on_hub(rig, "2")) and r["4"]["state"] == "not_ready"
             and r["7"]["state"] == "not_ready" and "round 1 is still in play" in r["7"]["why"],
             what="round 2's boards not ready on the hub", show=lambda: _round_on_hub(rig, "2"))
        page.clock.fast_forward(2000)
        page.wait_for_selector("#round-boards tbody tr[data-board='7'].not_ready"
                               ":has-text('round 1 is still in play')", timeout=30000)
        assert page.locator("#round-boards tbody tr[data-board='4'].not_ready").count() == 1
        # board 7's round 2 game begins (set up): the hub starts its clock (COMP 4.4.2)
        g = "2026-11-22T1400-b07-002"
        b7.add_game(g, [trace_lines(SAMPLE, game=g, board="7", rnd="2", white="Viola",
                                    black="Rosa")[0]])
        b7.status()
        b7.publish_lines(g)
        wait(lambda: _round_on_hub(rig, "2").get("7", {}).get("state") == "started",
             what="board 7 started on the hub", show=lambda: _round_on_hub(rig, "2"))
        page.clock.fast_forward(2000)
        page.wait_for_selector("#round-boards tbody tr[data-board='7'].started",
                               timeout=30000)
        assert [c.action for c in b7.commands if c.action] == \
            [{"action": "start_clock", "game": g}]
        assert "round 2: 1 of 2 boards" in page.text_content("#round-status")
        # a bad CSV is refused, nothing sent
        page.fill("#pairings-csv", "round,board,white,black\n2,4,Gialli\n")  # a column short
        page.click("#pairings-send")
        page.wait_for_selector("#pairings-status.error", timeout=30000)
        # results
        page.wait_for_selector("#results tbody tr:has-text('1-0')", timeout=30000)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hall-arbiter.png"), full_page=True)
        assert errors == []


def test_a_boards_console_names_the_game_and_shows_the_boards_refusal(
        hall: dict[str, Any], browser: Any) -> None:
    """An action from the board's review console (served by the hub) names the game shown and
    the last line seen; the board's refusal is shown as the answer (PROTOCOL.md, Commands)."""
    rig, b7 = hall["rig"], hall["b7"]
    b7.publish_lines(G7, [1, 2, 3])
    wait(lambda: rig.held(7, G7) == 3)
    b7.refuse = f"this action is for game {G4}; the board plays game {G7}: not done"
    with browser.new_context(viewport={"width": 1200, "height": 800}) as context:
        page, errors = _watched(context)
        page.goto(f"http://127.0.0.1:{rig.port}/boards/7/arbiter")
        page.wait_for_selector("#token", timeout=30000)
        page.fill("#token", rig.token)
        page.keyboard.press("Enter")
        page.wait_for_selector("#action-stop_clock", timeout=30000)
        page.wait_for_function("document.querySelector('#login-section').hidden",
                               timeout=30000)
        page.click("#action-stop_clock")
        shown = page.wait_for_selector("#action-status.error", timeout=30000)
        assert "stop_clock refused" in shown.text_content()
        assert "this action is for game" in shown.text_content()
        sent = b7.commands[-1].action
        assert sent is not None and sent["game"] == G7 and sent["seen"] >= 1, sent
        assert errors == []


def test_a_boards_pages_on_the_hub_have_no_dead_link(hall: dict[str, Any],
                                                     browser: Any) -> None:
    """Issue 16: the board's review console served by the hub linked to a simulator that
    answers 404 there. Every link shown on the board's pages answers."""
    rig, b7 = hall["rig"], hall["b7"]
    b7.publish_lines(G7, [1, 2, 3])
    wait(lambda: rig.held(7, G7) == 3)
    with browser.new_context(viewport={"width": 1200, "height": 800}) as context:
        page = context.new_page()
        base = f"http://127.0.0.1:{rig.port}/boards/7/"
        for path in ("arbiter", ""):
            page.goto(base + path)
            if path == "arbiter":
                page.fill("#token", rig.token)
                page.keyboard.press("Enter")
                page.wait_for_function("document.querySelector('#who').textContent "
                                       "=== 'arbiter'", timeout=30000)
            else:
                page.wait_for_load_state("networkidle")
            links = page.eval_on_selector_all(
                "a[href]", "as => as.filter(a => a.offsetParent !== null)"
                ".map(a => a.href)")
            assert links or path == "", path  # the console has its nav at least
            for href in links:
                assert page.request.get(href).status != 404, href


def test_a_boards_live_page_on_the_hub_names_it_and_links_its_pdn(hall: dict[str, Any],
                                                                  browser: Any) -> None:
    """Issue 16: the live page served by the hub names the board and the round, says whose move
    it is and links the board's PDN (a link that answers)."""
    rig, b7 = hall["rig"], hall["b7"]
    b7.publish_lines(G7, [1, 2, 3])
    wait(lambda: rig.held(7, G7) == 3)
    with browser.new_context(viewport={"width": 1000, "height": 800}) as context:
        page, errors = _watched(context)
        page.goto(f"http://127.0.0.1:{rig.port}/boards/7/")
        page.wait_for_function(
            "document.querySelector('#names').textContent === 'Board 7 · Round 1'",
            timeout=30000)
        assert page.text_content("#turn") in ("White to move", "Black to move")
        href = page.eval_on_selector("#pdn-link", "a => a.href")
        answer = page.request.get(href)
        assert answer.status == 200 and '[White "Rossi"]' in answer.text()
        assert errors == []


def test_the_pages_opened_while_the_hub_reads_back_say_so_and_load_once_it_has(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, browser: Any) -> None:
    """HUB_API.md ``reading_back``: on a hub just restarted, its games not yet read back, the
    hall page says how far the read-back is and shows the board once it is read; the hall's
    console says why it cannot load (the hub's 503) and loads by itself once they are: board
    7's pending flag (IT 8.2) listed, nobody reloading either page."""
    import asyncio
    import threading

    from pi.hall.hub import Hub
    release = threading.Event()
    read_back = Hub.read_back

    async def held(self: Hub) -> None:  # the read-back waits for the test's word
        while not release.is_set():
            await asyncio.sleep(0.05)
        await read_back(self)
    with Broker(tmp_path) as broker:
        b7 = FakeBoard(broker.url, "7")
        b7.add_game(G7, trace_lines(KEPT, game=G7, board="7", white="Rossi", black="Verdi"))
        try:
            with HubRig(tmp_path / "hub", broker.url) as rig:
                _until_pending(rig, b7, G7)
            monkeypatch.setattr(Hub, "read_back", held)
            with HubRig(tmp_path / "hub", broker.url, read_back=False) as rig, \
                    browser.new_context(viewport={"width": 1200, "height": 800}) as context:
                assert rig.json("GET", "/api/hall")[1]["reading_back"] == {"boards": 0, "of": 1}
                # Playwright's clock in the pages: time flows as ever, and the test moves it on
                # past the console's wait before it loads again (5 s) once the hub has read back
                context.clock.install()
                hall_page = context.new_page()
                hall_page.goto(f"http://127.0.0.1:{rig.port}/")
                hall_page.wait_for_selector(
                    "#reading:text('reading the games back after a restart: 0 of 1 "
                    "boards')", timeout=30000)
                assert hall_page.locator("#board-7").count() == 0
                page = context.new_page()
                page.goto(f"http://127.0.0.1:{rig.port}/arbiter")
                page.wait_for_selector("#token", timeout=30000)
                page.fill("#token", rig.token)
                page.keyboard.press("Enter")
                page.wait_for_selector("#conn:has-text('reading its games back')",
                                       timeout=30000)
                release.set()
                wait(lambda: rig.json("GET", "/api/hall")[1]["reading_back"] is None,
                     what="the hub's games read back")
                page.clock.fast_forward(5000)
                row = page.wait_for_selector("#flags tbody tr[data-board='7']", timeout=30000)
                assert "IT 8" in row.text_content() and "pending" in row.text_content()
                page.wait_for_selector("#conn:text('live')", timeout=30000)
                hall_page.wait_for_selector("#board-7", timeout=30000)
                hall_page.wait_for_selector("#reading", state="hidden", timeout=30000)
        finally:
            b7.close()
