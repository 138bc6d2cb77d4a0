"""The JSON the web sends of the arbiter's decisions is a contract (pi/web/API.md): for every
scenario trace, the arbiter stream's SSE bytes (as a catch-up from the journal sends them), the
step-through replay's states (``GET /api/replay``; its ``pieces`` in square order, the one
thing in it whose order the hash seed decides) and the decisions of each line (``POST
/api/arbiter``'s ``decisions``) must stay byte for byte what they were when the golden file was
written. The golden holds a SHA-256 per trace and form; rewrite it only for a change of the
contract: ``python tests/web/test_decision_json.py --write`` (it runs on any tree that has these
functions, e.g. ``PYTHONPATH=<old tree>``)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from unittest import mock

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: the scenario traces, and one with the arbiter's clock actions and a restart (the clock's
#: records in the decisions, which no scenario has)
TRACES = sorted((ROOT / "tests" / "traces").rglob("*.jsonl")) + [
    Path(__file__).with_name("decision_json_clock.jsonl")]
GOLDEN = Path(__file__).with_name("golden_decision_json.json")
#: the clock object's ``server_time`` is the wall clock: fixed, so that the bytes are the same
WALL = 1_795_000_000.125


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def forms(path: Path) -> dict[str, str]:
    """The SHA-256 of each form of ``path``'s JSON (or the error it raised)."""
    from engine.arbiter import Arbiter
    from engine.trace import parse_trace
    from engine.replay import Fed
    from pi.web.feeds import replay_journal_events
    from pi.web.replay import replay_states
    from pi.web.views import decisions_json

    out: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines()
    with mock.patch("time.time", return_value=WALL):
        try:
            out["sse"] = _digest(b"".join(replay_journal_events(path, 0)))
        except Exception as exc:  # noqa: BLE001 - the refusal is part of the contract
            out["sse"] = f"{type(exc).__name__}: {exc}"
        try:
            states = replay_states(lines)
            for state in states:  # built from a set of squares: its order is the hash seed's
                state["pieces"] = dict(sorted(state["pieces"].items()))
            out["states"] = _digest(json.dumps(states, separators=(",", ":")).encode())
        except Exception as exc:  # noqa: BLE001
            out["states"] = f"{type(exc).__name__}: {exc}"
    start, events = parse_trace(lines)
    arbiter = Arbiter(start)
    decided = []
    for number, event in enumerate(events, start=2):
        fed = Fed(number, event.to_dict(), event, tuple(arbiter.feed(event)))
        decided.append(json.dumps(decisions_json(fed), separators=(",", ":")))
    out["decisions"] = _digest("\n".join(decided).encode())
    return out


def _key(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("path", TRACES, ids=_key)
def test_the_web_json_of_the_decisions_is_unchanged(path: Path) -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert forms(path) == golden[_key(path)]


def test_every_trace_has_a_golden() -> None:
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert sorted(golden) == [_key(p) for p in TRACES]


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit("usage: test_decision_json.py --write")
    GOLDEN.write_text(json.dumps({_key(p): forms(p) for p in TRACES}, indent=1, sort_keys=True)
                      + "\n", encoding="utf-8")
