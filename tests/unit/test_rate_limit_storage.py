"""app.api.rate_limit.SweptMemoryStorage: `limits`' in-memory store with its expired-counter
sweep every second instead of every 10 ms. It counts as the library's store does, starts
one sweep thread where the library's starts one per 10 ms of traffic, and still frees
expired counters."""

from __future__ import annotations

import math
import time

from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import SlidingWindowCounterRateLimiter

from app.api.rate_limit import SweptMemoryStorage


def test_the_library_still_has_the_hook_it_replaces():
    # Renamed in a new `limits`: the override would silently stop taking effect.
    assert callable(getattr(MemoryStorage, "_MemoryStorage__schedule_expiry", None))
    assert callable(getattr(MemoryStorage, "_MemoryStorage__expire_events", None))


def test_it_counts_as_the_librarys_store_does():
    item = parse("5/hour")  # 14 hits take microseconds: no window boundary between them
    verdicts = []
    for storage in (MemoryStorage(), SweptMemoryStorage()):
        limiter = SlidingWindowCounterRateLimiter(storage)
        verdicts.append([limiter.hit(item, "general", f"address:{i % 2}") for i in range(14)])
    assert verdicts[0] == verdicts[1]
    assert verdicts[1].count(False) == 4  # two callers, 5 each of 7 hits


def _timers_started(storage: MemoryStorage, hits: int, spacing_s: float) -> tuple[int, float]:
    """Timers the store started over ``hits`` hits ``spacing_s`` apart, and the seconds taken."""
    limiter = SlidingWindowCounterRateLimiter(storage)
    item = parse("1000000/minute")
    seen = [storage.timer]  # kept, so no two timers share an id
    started = time.monotonic()
    for _ in range(hits):
        limiter.hit(item, "general", "address:1")
        if storage.timer is not seen[-1]:
            seen.append(storage.timer)
        time.sleep(spacing_s)
    return len(seen) - 1, time.monotonic() - started


def test_one_sweep_thread_a_second_where_the_library_starts_one_per_10_ms():
    # 40 hits 11 ms apart: each of the library's 10 ms timers has run out by the next hit,
    # which starts another; ours starts one a SWEEP_INTERVAL_S (however slow the machine).
    library, _ = _timers_started(MemoryStorage(), 40, 0.011)
    ours, took_s = _timers_started(SweptMemoryStorage(), 40, 0.011)
    assert library >= 20
    assert ours <= math.ceil(took_s / SweptMemoryStorage.SWEEP_INTERVAL_S)


def test_expired_counters_are_still_freed():
    storage = SweptMemoryStorage()
    storage.SWEEP_INTERVAL_S = 0.05  # type: ignore[misc]
    storage.incr("k", expiry=0.01)
    assert "k" in storage.storage
    deadline = time.time() + 2
    while "k" in storage.storage and time.time() < deadline:
        time.sleep(0.02)
        storage.incr("other", expiry=60)  # a write schedules the next sweep
    assert "k" not in storage.storage
