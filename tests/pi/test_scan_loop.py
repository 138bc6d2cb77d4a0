"""The board's scan loop over the drivers' scanner on its own thread (real time), the bus lock it
shares with the OLED, and Hardware.start/stop around it."""

import logging
import queue
import threading
import time

import pytest

from engine.events import ButtonPressed, PieceLifted, PiecePlaced, SnapshotTaken
from hardware_mocks.display import dummy_oled
from hardware_mocks.gpio import mock_factory, tap
from hardware_mocks.positions import initial_occupancy
from hardware_mocks.serial import loop_port
from hardware_mocks.smbus import FakeI2CBus
from hardware_mocks.virtual_board import VirtualBoard
from pi.board.handoff import LoopInbox
from pi.board.scan_loop import ScanLoop
from pi.drivers.bus import BusLock
from pi.drivers.display import DisplayState
from pi.drivers.errors import OrientationError
from pi.drivers.hardware import build_hardware
from pi.drivers.timebase import GameTime
from pi.drivers.wiring import EXAMPLES_DIR, load_wiring

ITALIAN = initial_occupancy(8, dark_odd=True)
WAIT = 5.0  # generous: only liveness is asserted, never speed


def real_hardware_on_fakes(**kwargs):
    wiring = load_wiring(EXAMPLES_DIR / "mcp23017_8x8.toml")
    factory, out = mock_factory(), queue.Queue()
    bus = FakeI2CBus()
    time_source = GameTime()
    kwargs.setdefault("display_device", dummy_oled())
    kwargs.setdefault("serial_port", loop_port())
    hw = build_hardware(wiring, out, time_source, bus_opener=lambda n: bus.open(n),
                        pin_factory=factory, **kwargs)
    board = VirtualBoard(wiring, bus, interrupt_pin=factory.pin(17))
    board.set_occupied(ITALIAN)
    return hw, board, bus, factory, out


def start_scanning(hw, sink):
    """As the daemon starts them: the scan loop over the hardware, the sensors powered up, then
    the loop's thread. Returns the loop and the first outputs."""
    loop = ScanLoop.for_hardware(hw, sink)
    first = hw.start()
    loop.start()
    loop.wake()
    return loop, first


def stop_scanning(loop, hw):
    loop.stop()  # before the bus closes
    hw.stop()


def collect(q, want, timeout=WAIT):
    """Items from ``q`` until ``want(items)`` or the timeout."""
    items = []
    end = time.monotonic() + timeout
    while not want(items) and time.monotonic() < end:
        try:
            items.extend(q.get(timeout=0.05))
        except queue.Empty:
            pass
    return items


def test_the_loop_thread_follows_the_interrupt_line_and_stops_cleanly():
    hw, board, _bus, factory, out = real_hardware_on_fakes()
    sensed: queue.Queue = queue.Queue()
    loop, first = start_scanning(hw, sensed.put)
    try:
        assert first == [SnapshotTaken(first[0].t, ITALIAN)]
        assert loop.running
        board.lift("d3")
        board.place("c4")
        events = collect(sensed, lambda items: len(items) >= 2)
        assert [(type(e), e.square) for e in events] == [(PieceLifted, "d3"), (PiecePlaced, "c4")]
        assert out.empty()  # the interrupt woke the loop, not the daemon's queue
        tap(factory, 5)  # buttons still go to the daemon's queue, on the same time source
        press = out.get(timeout=WAIT)
        assert isinstance(press, ButtonPressed) and press.t >= events[-1].t
    finally:
        stop_scanning(loop, hw)
    assert not loop.running
    assert "sensor-scan" not in {t.name for t in threading.enumerate()}
    hw.stop()  # idempotent


def test_the_safety_poll_finds_a_change_without_interrupt():
    hw, board, _bus, _factory, _out = real_hardware_on_fakes()
    hw.scanner.poll_interval = 0.05
    hw.interrupt.close()  # a broken INT wire
    sensed: queue.Queue = queue.Queue()
    loop, _ = start_scanning(hw, sensed.put)
    try:
        board.lift("d3")
        events = collect(sensed, lambda items: len(items) >= 1)
        assert [(type(e), e.square) for e in events] == [(PieceLifted, "d3")]
    finally:
        stop_scanning(loop, hw)


def test_a_sink_that_raises_is_logged_and_the_loop_goes_on(caplog):
    hw, board, _bus, _factory, _out = real_hardware_on_fakes()
    sensed: queue.Queue = queue.Queue()
    calls = []

    def sink(outputs):
        calls.append(outputs)
        if len(calls) == 1:
            raise RuntimeError("a handler bug")
        sensed.put(outputs)

    loop, _ = start_scanning(hw, sink)
    try:
        with caplog.at_level(logging.ERROR, logger="pi.board.scan_loop"):
            board.lift("d3")
            assert collect(sensed, lambda items: False, timeout=0.3) == []
            board.place("d3")
            events = collect(sensed, lambda items: len(items) >= 1)
        assert [(type(e), e.square) for e in events] == [(PiecePlaced, "d3")]
        assert "sensor scan failed" in caplog.text
    finally:
        stop_scanning(loop, hw)


def test_start_twice_or_after_stop_is_refused():
    hw, *_ = real_hardware_on_fakes()
    hw.start()
    with pytest.raises(RuntimeError, match="already started"):
        hw.start()
    hw.stop()
    with pytest.raises(RuntimeError, match="stopped"):
        hw.start()


def test_stop_goes_in_reverse_order_and_survives_a_part_that_fails(caplog):
    hw, *_ = real_hardware_on_fakes()
    order = []
    for name in ("serial_link", "display", "beeper", "buttons", "interrupt"):
        part = getattr(hw, name)
        original = part.close

        def close(name=name, original=original):
            order.append(name)
            original()
            if name == "display":
                raise OSError("the OLED is gone")
        part.close = close
    loop, _ = start_scanning(hw, lambda outputs: None)
    stop_scanning(loop, hw)
    assert order == ["serial_link", "display", "beeper", "buttons", "interrupt"]
    assert "stopping the display" in caplog.text and not loop.running
    assert hw.bus.handle.closed


def test_a_scan_waits_for_at_most_the_frame_on_the_wire():
    lock = BusLock()
    frame_started, release_frame = threading.Event(), threading.Event()
    got = []

    def frame(name, hold=None):
        with lock.frame():
            got.append(name)
            if hold is not None:
                frame_started.set()
                hold.wait(WAIT)

    def scan():
        with lock.scan():
            got.append("scan")

    first = threading.Thread(target=frame, args=("frame 1", release_frame))
    first.start()
    assert frame_started.wait(WAIT)
    scanner = threading.Thread(target=scan)
    scanner.start()
    while lock.scans_waiting == 0:
        time.sleep(0.001)
    second = threading.Thread(target=frame, args=("frame 2",))  # asks while the scan waits
    second.start()
    time.sleep(0.02)
    release_frame.set()
    for t in (first, scanner, second):
        t.join(WAIT)
    assert got == ["frame 1", "scan", "frame 2"]


def test_oled_frames_go_through_the_bus_lock():
    hw, *_ = real_hardware_on_fakes()
    frames = []
    original = hw.lock.frame

    def frame():
        frames.append(1)
        return original()
    hw.lock.frame = frame
    hw.display.render(DisplayState(white_time=600, black_time=600, running="white"))
    assert frames == [1]
    hw.display.clear()  # a blank frame: also under the lock
    assert frames == [1, 1]
    hw.stop()  # the last frame stays on the glass: no frame at close
    assert frames == [1, 1]


def test_step_scans_only_when_woken_or_due():
    from hardware_mocks.clock import FakeClock
    from pi.drivers.hardware import build_scanner
    wiring = load_wiring(EXAMPLES_DIR / "mcp23017_8x8.toml")
    clock = FakeClock(10.0)
    bus = FakeI2CBus(clock)
    board = VirtualBoard(wiring, bus)
    board.set_occupied(ITALIAN)
    scanner = build_scanner(wiring, bus.open(), clock)
    scanner.start()
    got = []
    loop = ScanLoop(scanner, got.extend)
    assert loop.step() == [] and loop.scans == 0  # nothing due before the safety poll
    loop.wake()
    assert loop.step() == [] and loop.scans == 1  # woken: scans (nothing changed)
    board.lift("d3")
    clock.jump_to(loop.next_wake())
    assert clock() == pytest.approx(10.5)  # the safety poll
    assert loop.step() == []  # seen, waiting for the debounce
    clock.jump_to(loop.next_wake())
    assert loop.step() == [PieceLifted(0.5, "d3")] == got


def test_outputs_reach_an_asyncio_loop_in_order():
    import asyncio

    async def main():
        hw, board, *_ = real_hardware_on_fakes()
        inbox: asyncio.Queue = asyncio.Queue()
        loop, first = start_scanning(hw, LoopInbox(asyncio.get_running_loop(), inbox).put)
        try:
            board.lift("d3")
            board.place("c4")
            got = []
            while len(got) < 2:
                got.extend(await asyncio.wait_for(inbox.get(), WAIT))
            return first, got
        finally:
            stop_scanning(loop, hw)

    first, got = asyncio.run(main())
    assert [type(o) for o in first] == [SnapshotTaken]
    assert [(type(e), e.square) for e in got] == [(PieceLifted, "d3"), (PiecePlaced, "c4")]


def test_commands_run_on_the_loop_thread_between_scans():
    hw, board, *_ = real_hardware_on_fakes()
    sensed: queue.Queue = queue.Queue()
    loop, _ = start_scanning(hw, sensed.put)
    try:
        threads = []

        def orient(scanner):
            threads.append(threading.current_thread().name)
            return scanner.orient(ITALIAN, (0, 1))
        assert loop.submit(orient).result(WAIT) == 0
        assert threads == ["sensor-scan"]
        [snapshot] = collect(sensed, lambda items: len(items) >= 1)
        assert snapshot == SnapshotTaken(snapshot.t, ITALIAN)  # a new orientation: a snapshot
        failing = loop.submit(lambda scanner: scanner.orient({"a1"}))
        with pytest.raises(OrientationError):
            failing.result(WAIT)
    finally:
        stop_scanning(loop, hw)
    late = loop.submit(lambda scanner: scanner.request_snapshot())
    with pytest.raises(RuntimeError, match="stopped"):
        late.result(WAIT)


def test_commands_on_the_fake_clock_rig_run_at_the_next_turn():
    from hardware_mocks.rig import SensorRig
    rig = SensorRig(EXAMPLES_DIR / "mcp23017_8x8.toml")
    rig.start(ITALIAN)
    rig.take()
    future = rig.loop.submit(lambda scanner: scanner.request_snapshot())
    assert not future.done()
    rig.run(0.0)
    assert future.done() and rig.take() == [SnapshotTaken(0.0, ITALIAN)]
