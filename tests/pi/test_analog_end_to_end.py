"""Issue 40 end to end: every scenario trace of a board that knows which piece is where
(``piece`` keys, ``piece`` lines, a snapshot's ``pieces``: the traces tests/pi/test_simulate.py
leaves out) acted out on the *simulated analog Hall board* — the virtual board's
magnets over DRV5055 sensors and ADCs (hardware_mocks.field), the real drivers, the scanner
deciding each piece over its scans, the daemon and its arbiter — and the journal it leaves
replays to the trace's own moves, flags (article and status: flagged, then corrected or kept)
and result. The readings are the sensors' own, not the trace's.

The occupancy-only scenario is not among them: on an analog board the sensors do see the
pieces (that trace is for a presence board, run by tests/pi/test_simulate.py)."""

from __future__ import annotations

import glob
import json
import logging
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from engine.variants import find_variant
from hardware_mocks.simulate import main as simulate
from pi.board.config import Config
from pi.drivers.wiring import example_wiring
from test_simulate import PENDING, _knows_pieces, transcript

pytestmark = pytest.mark.heavy  # damiera run --simulate, one per trace: run first

TRACES = Path(__file__).resolve().parents[1] / "traces"
SCENARIOS = sorted(p for p in glob.glob(str(TRACES / "*" / "*.jsonl"))
                   if str(Path(p).relative_to(TRACES))[:-6] not in PENDING
                   and _knows_pieces(p))


def analog_wiring(path: str) -> str:
    variant = Path(path).parent.name
    return str(example_wiring("ads7128_10x10" if find_variant(variant).size == 10
                              else "ads7828_8x8"))


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("analog")
    logging.getLogger("hardware_mocks").setLevel(logging.ERROR)

    def one(path: str) -> tuple[str, Any]:
        name = str(Path(path).relative_to(TRACES))[:-6]
        state = base / name.replace("/", "_")
        try:
            rc = simulate(config=Config(source="(test)"), wiring_path=analog_wiring(path),
                          state_dir=str(state), trace=path, speed="max")
            journals = sorted(state.glob("games/*/trace.jsonl"))
            assert rc == 0 and len(journals) == 1, (rc, journals)
            return name, journals[0]
        except BaseException as exc:  # noqa: BLE001 - reported by the test of that trace
            return name, exc

    with ThreadPoolExecutor(max_workers=4) as pool:
        journals = dict(pool.map(one, SCENARIOS))
    return {name: j if isinstance(j, BaseException) else (j, transcript(j))
            for name, j in journals.items()}


def test_there_are_issue_40_scenarios_in_every_variant() -> None:
    assert {Path(p).parent.name for p in SCENARIOS} == {"italian", "english", "international",
                                                      "brazilian"}


@pytest.mark.parametrize("path", SCENARIOS,
                         ids=[str(Path(p).relative_to(TRACES))[:-6] for p in SCENARIOS])
def test_the_analog_board_flags_each_irregularity_as_the_trace(
        path: str, simulated: dict[str, Any]) -> None:
    name = str(Path(path).relative_to(TRACES))[:-6]
    got = simulated[name]
    if isinstance(got, BaseException):
        raise got
    journal, replayed = got
    assert replayed == transcript(path)
    # every place and piece change carries what the sensors read (not what the trace said),
    # and the board saw each crown put on or lifted off that the trace has (a snapshot acted
    # as pieces exchanged without a lift is one more: a piece seen to change on its square)
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    sensed = [ln for ln in lines if ln.get("type") in ("place", "piece")]
    assert all(ln["piece"] in ("wm", "bm", "wk", "bk") and isinstance(ln["reading"], float)
               for ln in sensed)
    written = [json.loads(line) for line in Path(path).read_text().splitlines()]
    seen = iter(ln["piece"] for ln in lines if ln.get("type") == "piece")
    assert all(ln["piece"] in seen for ln in written if ln.get("type") == "piece")
    if not any(ln.get("type") == "snapshot" for ln in written[1:]):
        assert sum(ln.get("type") == "piece" for ln in lines) \
            == sum(ln.get("type") == "piece" for ln in written)
