"""Perft leaves per second per variant and the ratio to pydraughts: python benchmarks/bench_perft.py"""

import sys

from engine.variants import VARIANTS
from pi.bench import run_perft_bench

if __name__ == "__main__":
    run_perft_bench(seconds=float(sys.argv[1]) if len(sys.argv) > 1 else 2.0,
                    variants=list(VARIANTS), out=sys.stdout)
