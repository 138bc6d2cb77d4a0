"""The hand-offs around the daemon's event loop: the one bridge into it (LoopInbox) and the one
newest-only worker out of it (LatestWorker: the OLED's frames, the game's files)."""

import asyncio
import logging
import threading

from pi.board.handoff import LatestWorker, LoopInbox

WAIT = 5.0


class Gate:
    """A ``work`` that records its items and holds on the first until released."""

    def __init__(self) -> None:
        self.done: list[int] = []
        self.entered = threading.Event()
        self.release = threading.Event()

    def __call__(self, item: int) -> None:
        self.entered.set()
        assert self.release.wait(WAIT)
        self.done.append(item)


def test_items_waiting_behind_a_slow_one_are_replaced_by_the_newest():
    gate = Gate()
    worker = LatestWorker(gate, "test-worker")
    worker.submit(1)
    assert gate.entered.wait(WAIT)
    worker.submit(2)
    worker.submit(3)  # 2 never worked on: 3 replaced it while 1 was on the wire
    gate.release.set()
    worker.flush()
    assert gate.done == [1, 3]
    worker.close()
    assert "test-worker" not in {t.name for t in threading.enumerate()}


def test_run_now_is_never_undone_by_an_older_item():
    gate = Gate()
    worker = LatestWorker(gate, "test-worker")
    worker.submit(1)
    assert gate.entered.wait(WAIT)
    worker.submit(2)  # waiting
    now = threading.Thread(target=worker.run_now, args=(3,))
    now.start()  # newer than 2: 2 is dropped, 3 runs once 1 is over
    gate.release.set()
    now.join(WAIT)
    worker.flush()
    worker.close()
    assert gate.done == [1, 3]


def test_a_failing_item_is_logged_and_the_worker_goes_on(caplog):
    done = []

    def work(item: int) -> None:
        if item == 1:
            raise OSError("the bus is gone")
        done.append(item)
    worker = LatestWorker(work, "test-worker")
    with caplog.at_level(logging.ERROR, logger="pi.board.handoff"):
        worker.submit(1)
        worker.flush()
        worker.submit(2)
        worker.close()
    assert done == [2]
    assert "test-worker: failed" in caplog.text and "the bus is gone" in caplog.text


def test_after_close_an_item_is_worked_on_at_once_on_the_callers_thread():
    threads = []
    worker = LatestWorker(lambda item: threads.append(threading.current_thread().name), "w")
    worker.close()
    worker.submit(1)
    assert threads == [threading.current_thread().name]


def test_items_put_from_another_thread_reach_the_loop_in_order():
    async def main() -> list[object]:
        queue: asyncio.Queue[object] = asyncio.Queue()
        inbox = LoopInbox(asyncio.get_running_loop(), queue)
        sender = threading.Thread(target=lambda: [inbox.put(n) for n in range(5)])
        sender.start()
        got = [await asyncio.wait_for(queue.get(), WAIT) for _ in range(5)]
        sender.join(WAIT)
        return got
    assert asyncio.run(main()) == [0, 1, 2, 3, 4]


def test_a_put_after_the_loop_closed_is_dropped_without_an_error():
    loop = asyncio.new_event_loop()
    inbox = LoopInbox(loop, asyncio.Queue())
    loop.close()
    inbox.put("late")  # the daemon is stopping: a press now goes nowhere, and raises nothing


def test_the_oled_draws_the_newest_state_only_and_the_last_one_at_close():
    from pi.daemon import OledScreen

    class Display:
        def __init__(self) -> None:
            self.render = Gate()
    display = Display()
    screen = OledScreen(display)
    screen.show(1)
    assert display.render.entered.wait(WAIT)
    screen.show(2)
    screen.show(3)
    display.render.release.set()
    screen.close()
    assert display.render.done == [1, 3] and screen.frames == 2
