"""The verdict service's bound on concurrent computations serves its waiters in arrival order (issue 33: with
a semaphore a newly arrived request usually took a freed permit before the waiter just woken, and under 16
clients some what-ifs waited for seconds while others passed at once)."""

from __future__ import annotations

import threading
import time

from lexlogic.engine.verdict.build import FairSlots


def _wait_until(cond: object, timeout: float = 5.0) -> None:
    end = time.monotonic() + timeout
    while not cond():  # type: ignore[operator]
        assert time.monotonic() < end, "timed out"
        time.sleep(0.001)


def test_waiters_are_served_in_arrival_order_and_newcomers_wait() -> None:
    slots = FairSlots(1)
    order: list[int] = []
    release = threading.Event()

    def holder() -> None:
        with slots:
            release.wait()
        with slots:  # straight back in: behind those already waiting (a semaphore's permit would be its own)
            order.append(-1)

    def waiter(k: int) -> None:
        with slots:
            order.append(k)
            time.sleep(0.002)

    first = threading.Thread(target=holder)
    first.start()
    _wait_until(lambda: slots._free == 0)
    threads = []
    for k in range(6):  # each queued before the next arrives
        t = threading.Thread(target=waiter, args=(k,))
        t.start()
        threads.append(t)
        _wait_until(lambda k=k: len(slots._waiters) == k + 1)
    release.set()
    # a newcomer arriving while the queue drains must not pass the waiters
    late = threading.Thread(target=waiter, args=(99,))
    late.start()
    for t in [first, *threads, late]:
        t.join(5)
    assert order == [0, 1, 2, 3, 4, 5, -1, 99] or order == [0, 1, 2, 3, 4, 5, 99, -1]


def test_at_most_n_at_once() -> None:
    slots = FairSlots(2)
    inside, peak = [0], [0]
    lock = threading.Lock()

    def work() -> None:
        with slots:
            with lock:
                inside[0] += 1
                peak[0] = max(peak[0], inside[0])
            time.sleep(0.005)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=work) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert peak[0] == 2 and inside[0] == 0 and slots._free == 2 and not slots._waiters
