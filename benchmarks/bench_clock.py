"""Cost of the game clock per operation over game lengths (issue 8: no clock operation may cost
time that grows with the number of moves; the OLED and the web read the clock often).

For games of 100 to 100,000 moves under a Fischer control (a credit per press, COMP 5.9.3) and
under mosse lampo (COMP 5.6: odd, zero credits), prints the mean cost of a press, of a reading
(``read``, ``face``, ``record``) taken after every press, and of a ``restore`` of the final
record, in microseconds. Flat columns mean constant cost per operation. Figures only, no
assertion (they depend on the machine).
Run: ``.venv/bin/python benchmarks/bench_clock.py [longest game in moves]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.clock import ClockStopped, GameClock
from engine.colour import WHITE
from engine.timecontrol import TimeControl

CONTROLS = ("1800+10", "40/5400+30:1800+30", "0:1/30")


def run(control: str, moves: int) -> tuple[float, float, float]:
    """Mean microseconds of (press, reading, restore) over a game of ``moves`` presses."""
    timer = time.perf_counter_ns
    game = GameClock(TimeControl.parse(control))
    game.start(WHITE, 0.0)
    press_ns = read_ns = 0
    t = 0.0
    for _ in range(moves):
        t += 0.5
        before = timer()
        game.press(game.to_move, t)
        middle = timer()
        game.read(t)
        game.face(WHITE, t)
        game.record(t)
        read_ns += timer() - middle
        press_ns += middle - before
    stopped = game.stop_both(t)
    if not isinstance(stopped, ClockStopped):  # a flag fell: the readings above are wrong
        raise RuntimeError(f"the clock did not stop cleanly: {stopped!r}")
    record = stopped.record
    rounds = 200
    before = timer()
    for _ in range(rounds):
        GameClock(game.control).restore(record, 0.0)
    restore_ns = timer() - before
    return press_ns / moves / 1000, read_ns / moves / 1000, restore_ns / rounds / 1000


def main(longest: int = 100_000) -> None:
    lengths = [n for n in (100, 1_000, 10_000, 100_000, 1_000_000) if n <= longest]
    print(f"{'control':>20} {'moves':>8} {'press us':>9} {'read us':>9} {'restore us':>11}")
    for control in CONTROLS:
        for moves in lengths:
            press, read, restore = run(control, moves)
            print(f"{control:>20} {moves:>8} {press:9.2f} {read:9.2f} {restore:11.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
