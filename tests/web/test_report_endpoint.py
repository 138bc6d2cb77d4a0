"""``GET /api/games/<id>/report.pdf`` on the board's web server (issue 20): the arbiter's, with
the same token rules as the other game files (401 without it or with a wrong one), 404 for an
unknown id, the viewer's language; and the board's commands of docs/arbiter-report.md run
as written against it.

The block it runs: docs/arbiter-report.md, under ## From the command line."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from web_rig import Rig

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "arbiter-report.md"


def pdf_text(data: bytes) -> str:
    return "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(data)).pages)


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Rig:
    root = tmp_path_factory.mktemp("board")
    with Rig(root / ".state") as rig:
        rig.wait(lambda s: s["phase"] == "playing")
        rig.move("d3", "c4", "white")  # Italian 22-18 (d3 = 22, c4 = 18: IT 2.4)
        rig.wait(lambda s: len(s["moves"]) == 1)
        yield rig


def game_id(rig: Rig) -> str:
    return str(rig.state_now()["game_id"])


def test_the_arbiter_gets_the_pdf_others_are_refused(rig: Rig) -> None:
    gid = game_id(rig)
    path = f"/api/games/{gid}/report.pdf"
    status, headers, body = rig.request("GET", path, token=rig.token)
    assert status == 200 and headers["content-type"].startswith("application/pdf")
    text = pdf_text(body)
    assert f"Game report: {gid}" in text and "22-18" in text and "Ann" in text
    assert rig.request("GET", path)[0] == 401
    assert rig.request("GET", path, token="wrong")[0] == 401
    assert b"%PDF" not in rig.request("GET", path)[2]
    assert rig.request("GET", "/api/games/2026-01-01T0000-999/report.pdf",
                       token=rig.token)[0] == 404
    assert rig.request("GET", "/api/games/..%2f..%2farbiter.token/report.pdf",
                       token=rig.token)[0] == 404


def test_the_pdf_is_in_the_viewers_language(rig: Rig) -> None:
    path = f"/api/games/{game_id(rig)}/report.pdf"
    status, _, body = rig.request("GET", path + "?lang=it", token=rig.token)
    assert status == 200 and "Referto della partita" in pdf_text(body)
    status, _, body = rig.request("GET", path, token=rig.token,
                                  headers={"Accept-Language": "it-IT,it;q=0.9"})
    assert status == 200 and "Referto della partita" in pdf_text(body)


def doc_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


def test_the_documents_board_commands_run_as_written(rig: Rig) -> None:
    blocks = [b for b in doc_blocks() if "/boards/" not in b]
    assert len(blocks) >= 1
    cwd = rig.root.parent
    env = dict(os.environ, BOARD=f"127.0.0.1:{rig.port}",
               PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    for block in blocks:
        run = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=cwd, env=env,
                             capture_output=True, text=True, timeout=180)
        assert run.returncode == 0, (block, run.stderr)
    for name in ("report.pdf", "report.html"):
        assert (cwd / name).stat().st_size > 1000
    assert "Referto della partita" in pdf_text((cwd / "report.pdf").read_bytes())
