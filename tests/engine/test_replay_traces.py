"""Replays every scenario of tests/traces/<variant>/*.jsonl and compares with its expectation.

Traces listed in tests/traces/PENDING.txt show a rule defect not fixed yet (issue 8): they run as
``xfail(strict=True)``, so the suite stays green while they fail and turns red (XPASS) the moment
the defect is fixed — then the line is removed from PENDING.txt.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.replay import replay_lines

TRACES = Path(__file__).resolve().parent.parent / "traces"
CASES = sorted(TRACES.glob("*/*.jsonl"))


def _pending() -> dict[str, str]:
    """``variant/name`` -> reason, from PENDING.txt (``variant/name  # defect N: reason``)."""
    path = TRACES / "PENDING.txt"
    out: dict[str, str] = {}
    if not path.exists():
        return out
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, _, reason = line.partition("#")
        out[name.strip()] = reason.strip()
    return out


PENDING = _pending()


def _case_id(p: Path) -> str:
    return f"{p.parent.name}/{p.stem}"


def _params() -> list[object]:
    out: list[object] = []
    for p in CASES:
        cid = _case_id(p)
        marks = ([pytest.mark.xfail(strict=True, reason=PENDING[cid])] if cid in PENDING else [])
        out.append(pytest.param(p, id=cid, marks=marks))
    return out


def _movetext(pdn: str) -> str:
    """The PDN movetext: what follows the tag pairs, comments and /FEN/ setups removed."""
    body = "\n".join(line for line in pdn.splitlines() if not line.startswith("["))
    body = re.sub(r"\{[^}]*\}", " ", body)
    return re.sub(r'/FEN "[^"]*"/', " ", body)


def _move_numbers(pdn: str) -> list[int]:
    """The numbers of the movetext's ``N.`` tokens (a ``N...`` continuing a move is not one)."""
    return [int(n) for n in re.findall(r"(?<![\w/.-])(\d+)\.(?![.\d])", _movetext(pdn))]


@pytest.mark.parametrize("path", _params())
def test_scenario(path: Path) -> None:
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text())
    report = replay_lines(path.read_text().splitlines())
    listed = report.moves
    moves = [m["notation"] for m in listed]
    flags = [[f.code, f.status] for f in report.flags]
    assert moves == expected["moves"]
    assert flags == expected["flags"]
    assert report.game.result == expected["result"]
    if "fen" in expected:
        assert report.game.board.fen() == expected["fen"]
    if "sides" in expected:
        assert [m["side"] for m in listed] == expected["sides"]
    pdn = report.pdn()
    flat = " ".join(pdn.split())  # the writer wraps long lines anywhere between tokens
    for part in expected.get("pdn_contains", []):
        assert part in flat
    for part in expected.get("pdn_excludes", []):
        assert part not in flat
    if "flag_texts" in expected:
        assert len(expected["flag_texts"]) == len(report.flags)
        for part, flag in zip(expected["flag_texts"], report.flags, strict=True):
            assert part is None or part in flag.text, flag.text
    if "outcome" in expected:
        assert report.game.outcome is not None
        assert report.game.outcome.code == expected["outcome"]
    # every trace: the PDN numbers its moves 1, 2, 3… once each (no "2. … 2.")
    numbers = _move_numbers(pdn)
    assert numbers == list(range(1, len(numbers) + 1)), pdn
    # and the report's moves are numbered ply 1, 2, 3… in order
    assert [m["ply"] for m in listed] == list(range(1, len(listed) + 1))


def test_library_covers_every_variant() -> None:
    assert {p.parent.name for p in CASES} == {"italian", "english", "international", "brazilian"}


def test_pending_names_existing_traces() -> None:
    names = {_case_id(p) for p in CASES}
    assert set(PENDING) <= names, sorted(set(PENDING) - names)
    for name, reason in PENDING.items():
        assert re.match(r"defect \d+", reason), f"{name}: say which defect of issue 8 ({reason!r})"
