"""``GET /boards/<N>/api/games/<id>/report.pdf`` on the hub (issue 20): made from the hub's replica
of the board's journal — its SHA-256 is the board's journal's — the arbiter's only (401 without
the token or with a wrong one), 404 for an unknown game or board. (The hub's commands of
docs/arbiter-report.md, against ``make hall``, are run as written by
tests/test_docs_commands.py.)"""

from __future__ import annotations

import hashlib
import io

import pytest
from pypdf import PdfReader

from tests.hall.broker import Broker
from tests.hall.hub_rig import ROOT, SAMPLE, FakeBoard, HubRig, trace_lines, wait

BOARD = 7
GAME = "2026-11-22T0900-b07-001"
DOC = ROOT / "docs" / "arbiter-report.md"


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("hall")
    with Broker(tmp) as broker:
        with HubRig(tmp / ".hall", broker.url) as rig:
            board = FakeBoard(broker.url, BOARD)
            lines = trace_lines(SAMPLE, game=GAME, board=BOARD, white="Bianchi, Anna",
                                black="Neri, Marco")
            board.add_game(GAME, lines)
            board.publish_lines(GAME)
            wait(lambda: rig.held(BOARD, GAME) == len(lines))
            yield rig, lines, tmp
            board.close()


def pdf_text(data: bytes) -> str:
    return "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)


def test_the_hubs_report_is_the_boards_journal_for_the_arbiter_only(hall) -> None:
    rig, lines, _ = hall
    path = f"/boards/{BOARD}/api/games/{GAME}/report.pdf"
    status, headers, body = rig.request("GET", path, token=rig.token)
    assert status == 200 and headers["content-type"].startswith("application/pdf")
    text = pdf_text(body)
    journal = "".join(line + "\n" for line in lines).encode("utf-8")
    assert hashlib.sha256(journal).hexdigest() in text
    assert "Flag 1: IT 8.1.3" in text and "Flag 2: IT 8.1.3" in text
    assert "Bianchi, Anna" in text and "Sala Roma" in text
    assert rig.request("GET", path)[0] == 401
    assert rig.request("GET", path, token="wrong")[0] == 401
    assert rig.request("GET", f"/boards/{BOARD}/api/games/nope/report.pdf",
                       token=rig.token)[0] == 404
    assert rig.request("GET", f"/boards/99/api/games/{GAME}/report.pdf",
                       token=rig.token)[0] == 404
    status, _, body = rig.request("GET", path + "?lang=it", token=rig.token)
    assert status == 200 and "Referto della partita" in pdf_text(body)
