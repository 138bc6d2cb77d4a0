"""The analog Hall board (issue 40): bus bytes and wire time of a full scan at 400 kHz, how soon
a placed piece's identity is decided, and a million scans of the datasheet-level fake with the
wrong identities counted and the margin left named.

Run: .venv/bin/python benchmarks/bench_analog.py [--scans N] [--places N] [--seed S] [--board 10]

1. **Scan**: the real drivers read the shipped example boards (32 squares on four ADS7828, 50 on
   seven ADS7128 and on seven TLA2528) through the register-level fakes; every transaction of
   one scan is counted in bytes on the wire (address bytes included) and in bit times at
   400 kHz (start, 9 bits a byte with its ACK, repeated starts, stop; no clock stretching).
2. **Identity**: pieces of every kind put down on random squares of a calibrated board run by
   the daemon's own scan loop, each I²C transaction taking its wire time on the fake clock; the
   time from the piece touching down to the PiecePlaced that carries it (decided 3 of 5).
3. **A million scans**: the field model of ``hardware_mocks.field`` (DRV5055A4 at 3.3 V, 25×2 mm
   N35 magnets ±10 %, pieces up to 2 mm off centre, a king's top man up to 3 mm off, sensor
   offset, gain and depth spread, the neighbours' magnets, 15–40 °C, the sensor's and the ADC's
   noise, 12-bit quantisation), calibrated once at 25 °C as ``hardware calibrate`` does; every
   ``--scans / 1000`` scans all the pieces are put down afresh (new magnets, new offsets, new
   kinds, a new temperature). Each scan classifies every square as the scanner does, and the
   3-of-5 vote decides; wrong classes and wrong decisions are counted, and the margin left is
   the closest any square's expected reading came to a threshold, less the largest noise drawn.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.board import Piece
from engine.colour import BLACK, WHITE
from engine.events import PiecePlaced
from hardware_mocks.calibrated import calibrated
from hardware_mocks.field import FieldModel
from hardware_mocks.rig import SensorRig
from hardware_mocks.smbus import FakeI2CBus, wire_bits
from hardware_mocks.virtual_board import VirtualBoard
from pi.drivers.analog import CLASSES, thresholds
from pi.drivers.wiring import EXAMPLES_DIR, SquareCalibration, Wiring, load_wiring

RATE = 400_000
KINDS = [Piece(WHITE, False), Piece(BLACK, False), Piece(WHITE, True), Piece(BLACK, True)]


def wiring_as(name: str, chip_type: str | None = None) -> Wiring:
    """A shipped example, its chips of ``chip_type`` if given (same addresses: 0x10..)."""
    import dataclasses
    w = load_wiring(EXAMPLES_DIR / f"{name}.toml")
    if chip_type is not None:
        w = dataclasses.replace(w, chips=tuple(dataclasses.replace(c, kind=chip_type)
                                               for c in w.chips))
    return w


def calibrated_board(w: Wiring, seed: int) -> tuple[Wiring, VirtualBoard]:
    """``w`` with the calibration ``hardware calibrate`` writes on its fake of ``seed``, and
    that fake (empty)."""
    cal = calibrated(w, seed)
    return cal, VirtualBoard(cal, FakeI2CBus(), seed=seed)


# -- 1. the scan on the wire -------------------------------------------------------------------

def scan_figures(name: str, chip_type: str | None) -> tuple[int, int, int, float]:
    """(squares, transactions, bytes, seconds at 400 kHz) of one full scan."""
    w = wiring_as(name, chip_type)
    rig = SensorRig(w, use_interrupt=False)
    rig.start(["a1", "c3"])
    rig.run(0.2)
    rig.bus.log.clear()
    rig.scan()
    entries = list(rig.bus.log)
    rig.close()
    bits = sum(wire_bits(e) for e in entries)
    return len(w.sensed_squares), len(entries), sum(wire_bytes(e) for e in entries), bits / RATE


def wire_bytes(entry: tuple[Any, ...]) -> int:
    """Bytes of a logged transaction on the wire: each message's address byte and its data."""
    if entry[0] != "i2c_rdwr":
        raise ValueError(f"the analog drivers use combined transactions, not {entry[0]}")
    return sum(1 + (payload if kind == "r" else len(payload)) for kind, _a, payload in entry[1])


# -- 2. identity after a place -----------------------------------------------------------------

def identity_latency(name: str, places: int, seed: int) -> list[float]:
    """Seconds from a piece touching down to the PiecePlaced with its piece, ``places`` times."""
    w, _board = calibrated_board(wiring_as(name), seed)
    rig = SensorRig(w)
    # every transaction takes its wire time on the fake clock (the scan is not instantaneous)
    rig.start([])
    rig.run(0.2)
    rig.bus.log.clear()
    rig.scan()
    per_address: dict[int, list[int]] = {}
    for entry in rig.bus.log:
        address = entry[1] if entry[0] != "i2c_rdwr" else entry[1][0][1]
        per_address.setdefault(address, []).append(wire_bits(entry))
    for address, bits in per_address.items():
        rig.bus.latency[address] = statistics.fmean(bits) / RATE
    rng = random.Random(seed)
    emitted: list[tuple[float, Any]] = []

    def sink(outputs: Any) -> None:
        emitted.extend((rig.clock(), o) for o in outputs)
    rig.loop.sink = sink
    squares = sorted(w.sensed_squares)
    out: list[float] = []
    for _ in range(places):
        square = rng.choice(squares)
        piece = rng.choice(KINDS)
        rig.run(rng.uniform(0.0, 0.05))  # a place lands at any moment of the scan cycle
        emitted.clear()
        down = rig.clock()
        rig.board.place(square, piece=piece)
        rig.run(0.3)
        placed = [(at, o) for at, o in emitted if isinstance(o, PiecePlaced)]
        if len(placed) != 1 or placed[0][1].piece != piece:
            raise SystemExit(f"{square}: {piece} placed, the board said {placed}")
        out.append(placed[0][0] - down)
        rig.board.lift(square)
        rig.run(0.1)
    rig.close()
    return out


# -- 3. a million scans --------------------------------------------------------------------------

def million(name: str, scans: int, seed: int) -> dict[str, Any]:
    w, board = calibrated_board(wiring_as(name), seed)
    assert w.analog is not None and board.field is not None
    model: FieldModel = board.field
    rng = random.Random(seed + 1)
    squares = sorted(w.sensed_squares)
    cals: list[SquareCalibration] = [w.analog.square(sq) for sq in squares]
    bounds = [thresholds(c) for c in cals]
    per_config = max(10, scans // 1000)  # 5 scans fill the vote; a set-up lasts longer
    wrong_class = wrong_decided = decided = 0
    least_margin = float("inf")  # codes: expected reading to its nearest threshold
    least_fraction = float("inf")  # the same, fraction of the square's man field
    largest_noise = 0.0
    done = 0
    gauss = rng.gauss
    while done < scans:
        kinds: list[Piece | None] = [rng.choice(KINDS) if rng.random() < 0.6 else None
                                     for _ in squares]
        board.set_occupied([sq for sq, k in zip(squares, kinds, strict=True) if k],
                           {sq: k for sq, k in zip(squares, kinds, strict=True) if k})
        model.set_temperature(rng.uniform(15.0, 40.0))
        means = [model.mean_code(sq) for sq in squares]
        sigmas = [model.noise_codes(sq) for sq in squares]
        truth = [CLASSES.index(k) for k in kinds]
        for mean, b, c in zip(means, bounds, cals, strict=True):
            nearest = min(abs(mean - x) for x in b)
            least_margin = min(least_margin, nearest)
            least_fraction = min(least_fraction, nearest / ((c.white - c.black) / 2))
        votes: list[deque[int]] = [deque(maxlen=5) for _ in squares]
        n = min(per_config, scans - done)
        for _ in range(n):
            for i in range(len(squares)):
                noise = gauss(0.0, sigmas[i])
                if abs(noise) > largest_noise:
                    largest_noise = abs(noise)
                code = round(means[i] + noise)
                b = bounds[i]
                k = 0 if code < b[0] else 1 if code < b[1] else 2 if code < b[2] else \
                    3 if code < b[3] else 4
                if k != truth[i]:
                    wrong_class += 1
                v = votes[i]
                v.append(k)
                if len(v) == 5:
                    best = max(set(v), key=v.count)
                    if v.count(best) >= 3:
                        decided += 1
                        if best != truth[i]:
                            wrong_decided += 1
        done += n
    return {"scans": scans, "squares": len(squares), "configs": -(-scans // per_config),
            "wrong_class": wrong_class, "wrong_decided": wrong_decided, "decided": decided,
            "least_margin": least_margin, "least_fraction": least_fraction,
            "largest_noise": largest_noise,
            "sigma": statistics.fmean(model.noise_codes(sq) for sq in squares)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scans", type=int, default=1_000_000)
    p.add_argument("--places", type=int, default=200)
    p.add_argument("--seed", type=int, default=40)
    p.add_argument("--board", type=int, choices=(8, 10), default=8,
                   help="the board of part 3: 8 (32 squares, ADS7828) or 10 (50, ADS7128)")
    args = p.parse_args(argv)

    print("1. one full scan at 400 kHz (bytes on the wire include address bytes)")
    for name, chip, label in (("ads7828_8x8", None, "4 × ADS7828"),
                              ("ads7128_10x10", None, "7 × ADS7128"),
                              ("ads7128_10x10", "tla2528", "7 × TLA2528")):
        squares, transactions, nbytes, seconds = scan_figures(name, chip)
        verdict = "ok" if seconds <= 0.010 else "OVER 10 ms"
        print(f"| {squares} squares, {label} | {transactions} transactions | {nbytes} bytes | "
              f"{seconds * 1000:.2f} ms | {verdict} |")

    print(f"2. a placed piece's identity decided (3 of 5 scans), {args.places} places")
    for name, label in (("ads7828_8x8", "32 squares, ADS7828, polled at 100 Hz"),
                        ("ads7128_10x10", "50 squares, ADS7128, alert-driven")):
        lat = identity_latency(name, args.places, args.seed)
        worst = max(lat)
        print(f"| {label} | median {statistics.median(lat) * 1000:.1f} ms | max "
              f"{worst * 1000:.1f} ms | {'ok' if worst <= 0.050 else 'OVER 50 ms'} |")

    name = "ads7828_8x8" if args.board == 8 else "ads7128_10x10"
    print(f"3. {args.scans:,} scans of the datasheet-level fake ({args.board}×{args.board}, "
          f"{32 if args.board == 8 else 50} squares)")
    started = time.monotonic()
    r = million(name, args.scans, args.seed)
    print(f"| scans {r['scans']:,} × {r['squares']} squares, {r['configs']} set-ups, 15-40 °C "
          f"| wrong classes {r['wrong_class']} | wrong identities {r['wrong_decided']} of "
          f"{r['decided']:,} decided | {time.monotonic() - started:.0f} s |")
    print(f"| margin left: {r['least_margin']:.1f} codes ({r['least_fraction'] * 100:.1f} % of "
          f"a man's field) from the nearest threshold, the largest noise drawn "
          f"{r['largest_noise']:.1f} codes (σ {r['sigma']:.2f}): "
          f"{r['least_margin'] - r['largest_noise']:.1f} codes to spare |")
    return 0 if r["wrong_decided"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
