"""Replays every scenario of tests/traces/<variant>/*.jsonl and compares with its expectation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.replay import replay_lines

TRACES = Path(__file__).resolve().parent.parent / "traces"
CASES = sorted(TRACES.glob("*/*.jsonl"))


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_scenario(path: Path) -> None:
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text())
    report = replay_lines(path.read_text().splitlines())
    moves = [m.notation for m in report.game.moves]
    flags = [[f.code, f.status] for f in report.flags]
    assert moves == expected["moves"]
    assert flags == expected["flags"]
    assert report.game.result == expected["result"]
    if "fen" in expected:
        assert report.game.board.fen() == expected["fen"]


def test_library_covers_every_variant() -> None:
    assert {p.parent.name for p in CASES} == {"italian", "english", "international", "brazilian"}
