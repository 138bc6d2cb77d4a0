"""The hub process's garbage collector: young collections only, their survivors frozen.

A hall's hub holds every live board's game: a large heap of long-lived objects, growing by ~25
tracked objects per journal line (the line's record, its events and decisions, the feeds' kept
lines), nearly none of them ever cyclic garbage (``benchmarks/bench_hub_cpu.py`` prints what
each generation's collections freed: 21 objects in a 1,000-board run of 22,512 lines). Python's
generations walk each survivor again and again — in the middle collections (every tenth young
one: 50–170 ms of a held loop at 1,000 boards, growing with the games) and in the full ones
(the whole heap, 379 ms and more) — to find garbage that is not there.

So here a young collection (every :data:`YOUNG` allocations) walks the new objects once, frees
the cycles among them, and freezes what survived (``gc.freeze``: never walked again); no middle
or full collection happens by itself. The frozen heap is thawed and collected whole
(:meth:`Collector.full`, logged with what it freed and how long it held the loop) at most every
:data:`FULL_EVERY` seconds, at the first moment the hall is quiet — no journal line for
:data:`QUIET` seconds: between rounds, not in the middle of play — and after
:data:`FULL_AT_LATEST` seconds whatever the hall does. A cycle that became garbage after its
first young collection waits for it, no longer — so what lives a while and then dies must die
by its reference count: a web connection that made a cycle was frozen with it while slow and
stayed until the full collection (issue 38: 52 → 159 MB in a minute of slow connections, then a
2.9 s pause; ``pi.web.guard.GuardedHandler`` breaks those cycles). The full pause grows with
the games held: 1.3 s at 1,000 boards after 90 s of play at 10× (``bench_hub_cpu`` prints it);
Python's own full collections, as long, came every few minutes in the middle of play. Middle pauses are gone
(``bench_hub_cpu``'s "garbage collections while fed").
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Callable

log = logging.getLogger(__name__)

__all__ = ["Collector", "YOUNG", "FULL_EVERY", "FULL_AT_LATEST", "QUIET"]

#: Allocations (net of deallocations) of tracked objects between two young collections: each
#: walks that many objects, ~3–9 ms at 1,000 boards.
YOUNG = 5_000
#: Seconds at least between two collections of the whole heap (frozen objects included)...
FULL_EVERY = 600.0
#: ... and at most, however busy the hall.
FULL_AT_LATEST = 3600.0
#: The hall is quiet after this many seconds without a journal line.
QUIET = 2.0


class Collector:
    """The policy of the module docstring for this process, from :meth:`install` to
    :meth:`uninstall` (``gc`` is the process's: one Collector at a time)."""

    def __init__(self, young: int = YOUNG, full_every: float = FULL_EVERY,
                 full_at_latest: float = FULL_AT_LATEST, quiet: float = QUIET) -> None:
        self.young = young
        self.full_every = full_every
        self.full_at_latest = max(full_at_latest, full_every)
        self.quiet = quiet
        self._saved: tuple[int, int, int] | None = None

    def install(self) -> None:
        """What exists now is frozen (the start's replicas and modules); from now on young
        collections only, each one's survivors frozen."""
        if self._saved is not None:
            return
        self._saved = gc.get_threshold()
        gc.freeze()
        # the middle and full generations stay empty (everything is frozen after each young
        # collection): their thresholds only bound how often an empty walk happens
        gc.set_threshold(self.young, 1_000, 1_000)
        gc.callbacks.append(self._collected)

    def uninstall(self) -> None:
        """Python's own policy again (the frozen objects thawed into the oldest generation)."""
        if self._saved is None:
            return
        gc.callbacks.remove(self._collected)
        gc.set_threshold(*self._saved)
        self._saved = None
        gc.unfreeze()

    @staticmethod
    def _collected(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            gc.freeze()  # the survivors: long-lived, never walked again until the next full

    def full(self) -> tuple[int, float]:
        """The whole heap thawed and collected (then frozen again). Returns (objects freed,
        seconds the collection took)."""
        gc.unfreeze()
        started = time.perf_counter()
        freed = gc.collect()
        return freed, time.perf_counter() - started

    async def run(self, idle: Callable[[], float] | None = None) -> None:
        """:meth:`full`, logged, once :attr:`full_every` seconds have passed since the last, at
        the first moment ``idle()`` (seconds since the hall's last journal line; None: always
        quiet) reaches :attr:`quiet`, or once :attr:`full_at_latest` seconds have passed.
        Cancel to stop."""
        last = time.monotonic()
        while True:
            await asyncio.sleep(min(1.0, self.full_every))
            since = time.monotonic() - last
            if since < self.full_every:
                continue
            if idle is not None and since < self.full_at_latest and idle() < self.quiet:
                continue  # in the middle of play: a second more
            freed, took = self.full()
            last = time.monotonic()
            log.info("garbage collection of the whole heap: %d objects freed, %.0f ms (the "
                     "hall %s)", freed, took * 1000,
                     "quiet" if idle is None or idle() >= self.quiet else "busy: at the latest")
