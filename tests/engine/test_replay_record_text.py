"""The game's files kept up to date move by move (``engine.replay.RecordText``, ``engine.pdn.PdnText``):
after every line of every scenario trace the incremental text is the text made afresh, byte for
byte, through takebacks, kept irregularities (``/FEN``), annotations and flags changing status."""

from __future__ import annotations

import glob
import json
from pathlib import Path

import pytest

from engine.pdn import PdnText, write_pdn
from engine.replay import RecordText, Replay

ROOT = Path(__file__).resolve().parents[2]
TRACES = sorted(glob.glob(str(ROOT / "tests" / "traces" / "*" / "*.jsonl"))) + \
    [str(ROOT / "pi" / "samples" / "italian_sample.jsonl")]


def fresh(replay: Replay) -> tuple[str, str]:
    report = replay.report()
    return report.pdn(), json.dumps(report.to_json(), ensure_ascii=False, allow_nan=False)


@pytest.mark.parametrize("path", TRACES, ids=lambda p: str(Path(p).relative_to(ROOT)))
def test_after_every_line_the_text_kept_up_to_date_is_the_text_made_afresh(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        replay = Replay.read(f)
        text = RecordText()
        for _fed in replay:
            snap = text.update(replay.arbiter.game, replay.arbiter.flags)
            assert (snap.pdn(), snap.report_json()) == fresh(replay)
        snap = text.update(replay.finish().game, replay.arbiter.flags)
        assert (snap.pdn(), snap.report_json()) == fresh(replay)


def test_pdn_text_follows_a_takeback_and_a_replaced_last_move() -> None:
    """The record changes only at its end; a move is known by identity (IT 8.3's kept
    irregularity replaces the last move with one carrying ``/FEN``)."""
    from engine.game import Game
    game = Game(variant="italian")
    text = PdnText(width=30)  # narrow: the layout wraps, and must unwrap on a takeback
    def play(clock: tuple[float, float] | None = None) -> None:
        board = game.board
        game.play_notation(board.notation(board.legal_moves[-1]), clock=clock)

    for _ in range(8):
        play(clock=(60.0, 59.5))
        assert text.update(game).text() == write_pdn(game, 30)
    mark = game.mark()
    play()
    game.annotate(nag="!", comment="a long comment that wraps the line")
    assert text.update(game).text() == write_pdn(game, 30)
    game.undo_to(mark)
    assert text.update(game).text() == write_pdn(game, 30)
    game.set_position(game.board.fen())
    assert text.update(game).text() == write_pdn(game, 30)
    assert "/FEN" in text.update(game).text()
