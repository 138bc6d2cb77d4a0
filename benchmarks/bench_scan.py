"""CPU time of one full sensor scan (64 and 100 squares) and the I²C wire time it implies; then
how long a scan waits for the bus while the OLED redraws without pause.

Run: .venv/bin/python benchmarks/bench_scan.py

"driver CPU" is measured over a replay bus that answers instantly with canned bytes, so it is
the cost of our code (drivers + debounce + fault bookkeeping) without bus time; "with fake bus"
adds the register models of hardware_mocks. Wire time counts, per transaction: start, address +
R/W + ACK (9 bits), each register/data byte + ACK (9 bits), repeated start, stop — one bit time
each at the clock rate (no clock stretching, no inter-byte gaps, so real buses are a bit slower).
"""

from __future__ import annotations

import ctypes
import statistics
import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware_mocks.clock import FakeClock
from hardware_mocks.positions import initial_occupancy
from hardware_mocks.smbus import I2C_M_RD, FakeI2CBus, wire_bits
from hardware_mocks.virtual_board import VirtualBoard
from pi.drivers.bus import BusLock
from pi.drivers.hardware import build_scanner
from pi.drivers.wiring import EXAMPLES_DIR, load_wiring
from smbus2 import i2c_msg

CASES = [("mcp23017_8x8", 64), ("pcf8575_8x8", 64), ("mcp23017_10x10", 100),
         ("tca9555_10x10", 100), ("matrix_mcp23017_8x8", 64)]


#: What a read is answered with: (address, register) for a register read, (address, the
#: payloads written before the read) for a combined transaction.
AnswerKey = tuple[int, Any]


class ReplayBus:
    """Answers every read with the bytes recorded from the fake bus, at no cost."""

    def __init__(self, answers: dict[AnswerKey, list[int]]) -> None:
        self.answers = answers

    def read_i2c_block_data(self, addr: int, reg: int, length: int) -> list[int]:
        return self.answers.get((addr, reg), [0] * length)

    def write_i2c_block_data(self, addr: int, reg: int, data: list[int]) -> None:
        pass

    def read_byte_data(self, addr: int, reg: int) -> int:
        return self.answers.get((addr, reg), [0])[0]

    def write_byte_data(self, addr: int, reg: int, value: int) -> None:
        pass

    def i2c_rdwr(self, *msgs: Any) -> None:  # smbus2.i2c_msg: its stub types bytes() wrong
        key = tuple(bytes(m) for m in msgs if not m.flags & I2C_M_RD) if len(msgs) > 1 else ()
        for m in msgs:
            if m.flags & I2C_M_RD:
                data = bytes(self.answers.get((m.addr, key), [0xFF] * m.len))
                ctypes.memmove(m.buf, data, m.len)

    def close(self) -> None:
        pass


def measure(scan: Callable[[], object], n: int) -> float:
    """CPU seconds per call of ``scan``, best of 5 runs of ``n`` calls."""
    best = float("inf")
    for _ in range(5):
        t = time.process_time()
        for _ in range(n):
            scan()
        best = min(best, (time.process_time() - t) / n)
    return best


def main() -> None:
    print(f"python {sys.version.split()[0]} on {sys.platform}")
    print(f"{'wiring':22} {'squares':>7} {'chips':>5} {'trans':>5} {'bits':>5} "
          f"{'driver CPU':>11} {'w/ fake bus':>11} {'wire 100kHz':>11} {'wire 400kHz':>11}")
    for name, squares in CASES:
        wiring = load_wiring(EXAMPLES_DIR / f"{name}.toml")
        clock = FakeClock()
        bus = FakeI2CBus(clock)
        board = VirtualBoard(wiring, bus)
        board.set_occupied(initial_occupancy(wiring.size, dark_odd=wiring.size == 8))
        scanner = build_scanner(wiring, bus.open(), clock)
        scanner.start()
        bus.log.clear()
        scanner.scan()
        log = list(bus.log)
        bits = sum(wire_bits(e) for e in log)
        fake_cpu = measure(scanner.scan, 2000)

        # Same scanner code over a bus that replays the answers instantly.
        answers: dict[AnswerKey, list[int]] = {}
        smb = bus.open()
        for entry in log:
            if entry[0] == "read_i2c_block_data":
                answers[(entry[1], entry[2])] = smb.read_i2c_block_data(*entry[1:4])
            elif entry[0] == "i2c_rdwr":
                msgs: list[Any] = [i2c_msg.write(addr, payload) if kind == "w"
                                   else i2c_msg.read(addr, payload)
                                   for kind, addr, payload in entry[1]]
                smb.i2c_rdwr(*msgs)
                key = tuple(bytes(m) for m in msgs if not m.flags & I2C_M_RD)
                for m in msgs:
                    if m.flags & I2C_M_RD:
                        answers[(m.addr, key)] = list(m)
        replay = build_scanner(wiring, ReplayBus(answers), FakeClock())
        replay.start()
        cpu = measure(replay.scan, 20000)
        print(f"{name:22} {squares:>7} {len(wiring.chips):>5} {len(log):>5} {bits:>5} "
              f"{cpu * 1e6:>8.1f} µs {fake_cpu * 1e6:>8.1f} µs "
              f"{bits / 100e3 * 1e3:>8.2f} ms {bits / 400e3 * 1e3:>8.2f} ms")


FRAME = 0.023  # a full SSD1306 frame on the wire at 400 kHz
SCAN = 0.00105  # a 64-square MCP23017 scan on the wire at 400 kHz (table above)
SCAN_EVERY = 0.010


#: Takes the bus for one transfer (``with lock(): ...``).
LockMaker = Callable[[], AbstractContextManager[object]]


def shared_bus_waits(scan_lock: LockMaker, frame_lock: LockMaker,
                     seconds: float) -> list[float]:
    """Seconds each scan waited for the bus while frames are sent back to back."""
    stop = threading.Event()

    def redraw() -> None:
        while not stop.is_set():
            with frame_lock():
                time.sleep(FRAME)

    display = threading.Thread(target=redraw)
    display.start()
    waits = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        asked = time.perf_counter()
        with scan_lock():
            waits.append(time.perf_counter() - asked)
            time.sleep(SCAN)
        time.sleep(SCAN_EVERY)
    stop.set()
    display.join()
    return waits


def shared_bus() -> None:
    print()
    print(f"scan waiting for the bus while the OLED redraws back to back "
          f"({FRAME * 1e3:.0f} ms frames, a scan every {SCAN_EVERY * 1e3:.0f} ms):")
    print(f"{'lock':28} {'scans':>6} {'p50':>8} {'p99':>8} {'max':>8}")
    bus_lock = BusLock()
    plain = threading.Lock()
    locks: list[tuple[str, LockMaker, LockMaker]] = [
        ("BusLock (scans first)", bus_lock.scan, bus_lock.frame),
        ("threading.Lock (no order)", lambda: plain, lambda: plain)]
    for name, scan_lock, frame_lock in locks:
        waits = sorted(shared_bus_waits(scan_lock, frame_lock, 3.0))
        p99 = waits[min(len(waits) - 1, int(len(waits) * 0.99))]
        print(f"{name:28} {len(waits):>6} {statistics.median(waits) * 1e3:>5.1f} ms "
              f"{p99 * 1e3:>5.1f} ms {waits[-1] * 1e3:>5.1f} ms")


if __name__ == "__main__":
    main()
    shared_bus()
