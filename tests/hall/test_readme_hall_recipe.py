"""The organiser's hall recipe, run exactly as written, plays a round (issue 16: "The README's
hall recipe, run as root on a fresh machine exactly as written, plays a round").

The commands are read from docs/organiser.md, its sh block under "## A round, step by step, on
one PC" — not copied here — and run in order, as the user running the tests (root in CI, as on
a fresh machine), in an empty folder holding the checkout's files: ``damiera hub init``,
``mosquitto -c hall/mosquitto.conf`` (the generated file unchanged), ``damiera hub``, the
pairings uploaded and "start round 1" through the hub's console API (curl with the token), two
simulated boards logging in with their own ``board-<n>.toml`` and playing their game to its
result, then the results and the round's feed. Only the ports change, through the options and
URLs that name them (tests/doc_blocks.py), as the guide says.

Checked: the pairings kept and the round started; each board's result in ``/results.csv``, in
the round's feed, in the standings (``/api/standings``) and the event's PDN (``/event.pdn``),
with the pairing's players (each board's game begun at its set-up, before its
pairing came, gives way to the pairing's: ``pi.board.supersede``); every replica of the hub
byte-equal to its board's journal.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from pi.board.supersede import first_touch, superseded
from tests.doc_blocks import (
    ROOT,
    Ports,
    Served,
    blocks,
    command_key,
    make_sandbox,
    reachable_folder,
    run_finishing,
    serving,
)

GUIDE = ROOT / "docs" / "organiser.md"
HEADING = "## A round, step by step, on one PC"



def recipe() -> list[str]:
    found = [b for b in blocks(GUIDE) if b.heading == HEADING and b.info == "sh"]
    assert len(found) == 1, f"{GUIDE.name}: one sh block under {HEADING!r}"
    return list(found[0].commands)


def test_the_recipe_is_what_an_organiser_does() -> None:
    keys = [command_key(c).split(" ")[0:3] for c in recipe()]
    assert keys[0] == ["damiera", "hub", "init"]
    assert keys[1][0] == "mosquitto" and keys[2][:2] == ["damiera", "hub"]
    commands = " ".join(recipe())
    assert "/api/pairings" in commands and "/api/rounds/1/start" in commands
    assert len(re.findall(r"damiera run --config hall/board-\d+\.toml", commands)) >= 2


def _replicas_equal(hall: Path) -> tuple[int, list[str]]:
    """How many journals the boards wrote, and those whose replica differs (or is missing)."""
    journals = sorted((hall / "boards").glob("*/games/*/trace.jsonl"))
    differ = []
    for journal in journals:
        board, game = journal.parts[-4], journal.parts[-2]
        replica = hall / "hub" / "boards" / board / "games" / game / "trace.jsonl"
        if not replica.is_file() or replica.read_bytes() != journal.read_bytes():
            differ.append(f"board {board} game {game}")
    return len(journals), differ


@pytest.mark.slow  # a hall's round: 16 s on a quiet machine, more under load
def test_the_recipe_run_as_written_plays_a_round(tmp_path: Path) -> None:
    with reachable_folder() as folder:  # the broker, run as root, becomes mosquitto
        _plays_a_round(tmp_path, make_sandbox(folder / "checkout"))


def _plays_a_round(tmp_path: Path, cwd: Path) -> None:
    hall = cwd / "hall"
    ports = Ports()
    outputs: dict[str, str] = {}
    boards: list[Served] = []
    with serving() as started:
        for i, command in enumerate(recipe()):
            key = command_key(command)
            actual = ports.apply(command)
            if key.startswith(("mosquitto ", "damiera hub --")):
                served = Served(actual, cwd, tmp_path / f"served-{i}.log")
                started.append(served)
                served.wait_up()
            elif key.startswith("damiera run "):
                served = Served(actual, cwd, tmp_path / f"board-{i}.log")
                started.append(served)
                boards.append(served)
            else:
                if boards and key.startswith("curl"):
                    _games_played(boards, hall)
                done = run_finishing(actual, cwd)
                assert done.returncode == 0, (key, done.stdout, done.stderr)
                outputs[key] = done.stdout
        assert all(s.running() for s in started if s not in boards), "broker and hub stayed up"
    assert len(boards) >= 2

    by_path = {re.sub(r"^.*http://\S+?:\S+?(/\S*)$", r"\1", k): v for k, v in outputs.items()
               if k.startswith("curl")}
    kept = json.loads(by_path["/api/pairings"])
    assert kept["rounds"] == ["1", "2"] and kept["kept"] == 4
    assert json.loads(by_path["/api/rounds/1/start"])["started"] is True
    results = [line.split(",") for line in by_path["/results.csv"].splitlines()[1:]]
    round1 = {r[1]: r[-1] for r in results if r[0] == "1"}
    assert round1 == {str(n): "1-0" for n in range(1, len(boards) + 1)}, by_path["/results.csv"]
    # the boards played their pairings: the game each began at the set-up, before the
    # pairing came, was untouched and gave way to round 1's (pi.board.supersede)
    paired = {(r[0], r[1]): (r[2], r[3]) for r in
              (line.split(",") for line in
               (cwd / "pairings.csv").read_text(encoding="utf-8").splitlines()[1:])}
    played = {(r[0], r[1]): (r[2], r[3]) for r in results if r[0] == "1"}
    assert played == {k: v for k, v in paired.items() if k[0] == "1"}, by_path["/results.csv"]
    feed = by_path["/rounds/1/games.pdn"]
    games = [g for g in re.split(r"(?=\[Event )", feed) if g.strip()]
    assert len(games) == len(boards), feed[:2000]
    for n, game in enumerate(games, start=1):  # in board order
        assert f'[Round "1.{n}"]' in game and f'[Board "{n}"]' in game, game[:800]
        white, black = paired[("1", str(n))]
        assert f'[White "{white}"]' in game and f'[Black "{black}"]' in game, game[:800]
        assert '[Result "1-0"]' in game and game.rstrip().endswith("1-0"), game[-300:]
    # the standings after round 1: each winner 2 points (COMP 6.14), each loser 0
    standings = json.loads(by_path["/api/standings"])
    assert standings["round"] == "1", standings
    points = {p["name"]: p["points"] for p in standings["players"]}
    for n in range(1, len(boards) + 1):
        white, black = paired[("1", str(n))]
        assert (points[white], points[black]) == (2, 0), standings
    # the event's PDN: every round's games so far, round 1's as its feed has them
    event = by_path["/event.pdn"]
    assert re.findall(r'\[Round "([^"]+)"\]', event) == \
        [f"1.{n}" for n in range(1, len(boards) + 1)], event[:2000]
    count, differ = _replicas_equal(hall)
    assert count >= len(boards) and not differ, differ
    for n in range(1, len(boards) + 1):
        # on each board: the game begun at the set-up, void, then round 1's, whose clock the
        # hub started before the players' first move (COMP 4.4.2)
        games = [[json.loads(x) for x in j.read_text(encoding="utf-8").splitlines()]
                 for j in sorted((hall / "boards" / str(n) / "games").glob("*/trace.jsonl"))]
        assert [superseded(g[1:]) for g in games] == [True, False], n
        first = first_touch(games[1][1:])
        assert first is not None and first.get("action") == "start_clock", first


def _games_played(boards: list[Served], hall: Path, timeout: float = 120) -> None:
    """The boards acted out their games (each process ended, 0) and the hub's replicas caught
    up with every journal."""
    deadline = time.monotonic() + timeout
    for board in boards:
        board.proc.wait(max(1.0, deadline - time.monotonic()))
        assert board.proc.returncode == 0, board.output()[-3000:]
    while True:
        count, differ = _replicas_equal(hall)
        if count >= len(boards) and not differ:
            return
        assert time.monotonic() < deadline, f"replicas not caught up: {differ}"
        time.sleep(0.2)
