"""``damiera replay``'s report streamed (issue 35, item 5c): :class:`engine.replay.StreamedReport`
writes each settled move out and has the game forget it, and what it writes is the report of
:func:`engine.replay.replay_lines` byte for byte — the JSON text (docs/trace-format.md's object, a contract)
and the readable text — for every scenario trace (corrections, kept irregular moves and their
/FEN/, disturbances, results), with moves forgotten as early as they may be, and for a long game
held in the memory of its last moves."""

from __future__ import annotations

import importlib.util
import io
import json
import sys
import tracemalloc
from pathlib import Path
from types import ModuleType

import pytest

from engine.replay import Replay, StreamedReport, replay_lines

ROOT = Path(__file__).resolve().parents[2]
TRACES = sorted((ROOT / "tests" / "traces").glob("*/*.jsonl"))


def _bench_length() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_length",
                                                  ROOT / "benchmarks" / "bench_length.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def streamed(lines: list[str], form: str, forget_batch: int = 4096,
             language: str = "en") -> tuple[str, Replay]:
    body, pdn = io.StringIO(), io.StringIO()
    replay = Replay.read(lines)
    stream = StreamedReport(replay, "json" if form == "json" else "text", body.write, pdn.write,
                            language=language, forget_batch=forget_batch)
    for _ in replay:
        stream.settle()
    head, middle, tail = stream.finish()
    return head + body.getvalue() + middle + pdn.getvalue() + tail, replay


def whole(lines: list[str], form: str, language: str = "en") -> str:
    report = replay_lines(lines)
    return json.dumps(report.to_json(), ensure_ascii=False) if form == "json" \
        else report.to_text(language)


@pytest.mark.parametrize("form", ["json", "text"])
@pytest.mark.parametrize("path", TRACES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_streamed_report_is_the_report_with_every_move_forgotten_at_once(path: Path,
                                                                         form: str) -> None:
    # forget_batch=1: every settled move leaves the game as soon as it settles, so a correction
    # (IT 8.4) that took the record back past one would raise or change the report
    lines = path.read_text(encoding="utf-8").splitlines()
    text, _ = streamed(lines, form, forget_batch=1)
    assert text == whole(lines, form)


def test_streamed_text_report_in_italian() -> None:
    lines = (ROOT / "tests" / "traces" / "italian" / "touch_move_accepted.jsonl").read_text(
        encoding="utf-8").splitlines()
    text, _ = streamed(lines, "text", forget_batch=1, language="it")
    assert text == whole(lines, "text", language="it")


@pytest.fixture(scope="module")
def long_game() -> list[str]:
    bench = _bench_length()
    start = {"type": "start", "variant": "italian", "fen": bench.FEN, "time_control": "5400+1"}
    return [json.dumps(start)] + [json.dumps(e.to_dict()) for e in bench.king_endgame(30_000)]


@pytest.mark.slow  # 10-25 s of one core: make test-slow, so that make test stays within 4 min
@pytest.mark.parametrize("form", ["json", "text"])
def test_a_long_game_is_held_in_the_memory_of_its_last_moves(long_game: list[str],
                                                              form: str) -> None:
    text, replay = streamed(long_game, form, forget_batch=1000)
    game = replay.arbiter.game
    assert game.ply > 7_000 and len(game.moves) <= 1_001
    assert game.moves[-1].ply == game.ply
    assert text == whole(long_game, form)


def held_by_stream(events: int) -> tuple[int, int]:
    """(bytes still allocated by a streamed replay of ``events`` events, its plies); the bodies
    are counted and dropped, as a spool on disk would hold them."""
    bench = _bench_length()
    start = {"type": "start", "variant": "italian", "fen": bench.FEN, "time_control": "5400+1"}
    lines = [json.dumps(e.to_dict()) for e in bench.king_endgame(events)]
    written = [0]

    def drop(text: str) -> None:
        written[0] += len(text)

    tracemalloc.start(1)
    try:
        before = tracemalloc.get_traced_memory()[0]
        replay = Replay(start)
        stream = StreamedReport(replay, "json", drop, drop, forget_batch=256)
        for number, line in enumerate(lines, start=2):
            replay.feed(line, number)
            stream.settle()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert written[0] > 0
    return held, replay.arbiter.game.ply


@pytest.mark.slow  # 10-25 s of one core: make test-slow, so that make test stays within 4 min
def test_memory_of_a_streamed_replay_does_not_grow_with_its_record() -> None:
    small, plies_small = held_by_stream(2_000)
    large, plies_large = held_by_stream(12_000)
    per_ply = (large - small) / (plies_large - plies_small)
    # what stays per ply is the repetition history's reference (8 B, IT 9.3b counts a position
    # over the whole game) and its list's spare room; the record's entry (~250 B, issue 19's
    # test) is written out and forgotten
    assert per_ply < 24, f"{per_ply:.0f} bytes per ply"
