"""``damiera doctor``'s checks, in the order it prints them: the Pi's (:func:`pi.drivers.system.
pi_checks`: I²C, groups, GPIO, clock, unit), the OLED answering on the bus, then the daemon's
state directory (:func:`state_checks`: free space, writable, the fsync latency of the journal's
own appends). The command (its options, the printing, the exit status) is in
``pi/hardware_cli.py``; the checks run on whatever :class:`pi.drivers.bringup.Bench` it is given
(the Pi, or the simulator's fakes)."""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from engine.i18n import N_
from pi.drivers.bringup import Bench
from pi.drivers.errors import BusUnavailableError
from pi.drivers.probe import FAIL, OK, OLED_ADDRESSES, WARN, Finding, answering
from pi.drivers.system import pi_checks

__all__ = ["doctor_checks", "oled_check", "state_checks", "fsync_latency", "FSYNC_SAMPLES",
           "FSYNC_WARN", "FSYNC_FAIL", "FREE_WARN"]

#: Journal-sized appends timed by the doctor, and the p99 above which it warns / fails.
FSYNC_SAMPLES = 50
FSYNC_WARN, FSYNC_FAIL = 0.050, 0.300
#: Free space in the state directory below which the doctor warns (a game is ~100 KB).
FREE_WARN = 100 * 1024 * 1024


def doctor_checks(bench: Bench, state_root: Callable[[], Path]) -> Iterator[Finding]:
    """Every finding of the doctor, each group as it is checked (module docstring);
    ``state_root()``: the daemon's state directory, asked for once the Pi and the OLED are
    checked (a bad ``--config`` is said after their findings)."""
    yield from pi_checks(bench.system())
    yield oled_check(bench)
    yield from state_checks(state_root())


def oled_check(bench: Bench) -> Finding:
    """The OLED answers at one of its addresses on bus 1 (a bus that cannot be opened: FAIL,
    not checked)."""
    try:
        found = [a for a in answering(bench.open_bus(1), OLED_ADDRESSES)]
        return (Finding(OK, f"0x{found[0]:02x}", N_("the OLED answers")) if found else
                Finding(FAIL, "OLED", N_("nothing answers at 0x3c or 0x3d"),
                        N_("check its supply and SDA/SCL (i2cdetect -y 1)")))
    except (BusUnavailableError, OSError) as exc:
        return Finding(FAIL, "OLED", N_("not checked: {error}").format(error=exc))


def fsync_latency(folder: Path, samples: int = FSYNC_SAMPLES) -> tuple[float, float]:
    """(p50, p99) seconds of journal-sized appends in ``folder``, each written and fsync'd by
    the journal's own :meth:`pi.board.journal.Journal.append` to a scratch journal (removed)."""
    from pi.board.journal import Journal
    scratch = Path(tempfile.mkdtemp(prefix=".doctor-", dir=folder))
    try:
        journal = Journal.create(scratch / "trace.jsonl", {"t": 0.0, "type": "start",
                                                           "variant": "italian"})
        times = []
        try:
            for i in range(samples):
                line = {"t": float(i + 1), "type": "place", "square": "c3"}
                began = time.perf_counter()
                journal.append(line)
                times.append(time.perf_counter() - began)
        finally:
            journal.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


def state_checks(root: Path) -> list[Finding]:
    """The state directory ``root`` (made when missing): its free space, that it is writable,
    and the fsync latency of the journal's appends in it (:func:`fsync_latency`)."""
    if not root.is_dir():
        try:
            root.mkdir(parents=True)
        except OSError as exc:
            return [Finding(FAIL, str(root), N_("cannot be made ({error})").format(
                error=exc.strerror or exc), N_("sudo systemd/install-pi.sh makes "
                                               "/var/lib/damiera"))]
    free = shutil.disk_usage(root).free
    out = [Finding(OK if free >= FREE_WARN else WARN, str(root),
                   N_("{mb} MB free").format(mb=free // (1024 * 1024)),
                   "" if free >= FREE_WARN else N_("make room: each game keeps its journal"))]
    if not os.access(root, os.W_OK):
        return out + [Finding(FAIL, str(root), N_("not writable"),
                              N_("run as the daemon's user"))]
    p50, p99 = fsync_latency(root)
    level = OK if p99 < FSYNC_WARN else WARN if p99 < FSYNC_FAIL else FAIL
    out.append(Finding(level, "fsync", N_("journal append p50 {p50} ms, p99 {p99} ms").format(
        p50=f"{p50 * 1000:.1f}", p99=f"{p99 * 1000:.1f}"), "" if level == OK else
        N_("a slow SD card delays every move: use an A1/A2 card or an SSD")))
    return out
