"""The in-memory rate-limit counters (app.api.rate_limit.LocalWindows) give what `limits`'
sliding-window-counter strategy over its MemoryStorage gives, request by request, across
window edges; and callers gone quiet are swept."""

from __future__ import annotations

import random
import types

import limits.storage.memory
import limits.strategies
import pytest
from limits import parse
from limits.storage import MemoryStorage
from limits.strategies import SlidingWindowCounterRateLimiter

from app.api import rate_limit
from app.api.rate_limit import LocalWindows


class Clock:
    """A settable ``time`` module for `limits` (Unix time, s)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    clock = Clock(1_795_000_000.25)
    fake = types.SimpleNamespace(time=clock.time)
    monkeypatch.setattr(limits.storage.memory, "time", fake)
    monkeypatch.setattr(limits.strategies, "time", fake)
    return clock


@pytest.mark.parametrize("spec", ["5/minute", "3/second", "20/10 seconds"])
def test_same_verdicts_and_windows_as_limits(clock, spec):
    item = parse(spec)
    reference = SlidingWindowCounterRateLimiter(MemoryStorage())
    local = LocalWindows()
    rng = random.Random(spec)
    expiry = item.get_expiry()
    for step in range(400):
        clock.now += rng.choice([0.0, 0.01, expiry / 7, expiry / 3, expiry * 1.5])
        caller = rng.choice(["address:a", "address:b"])
        expected = reference.hit(item, "general", caller)
        stats = reference.get_window_stats(item, "general", caller)
        got = local.hit(item, "general", caller, clock.now)
        assert got[0] == expected, step
        assert got[1] == stats.remaining, step
        assert got[2] == pytest.approx(stats.reset_time, abs=1e-6), step


def test_quiet_callers_are_swept(monkeypatch):
    item = parse("5/minute")
    local = LocalWindows()
    now = 1_795_000_000.0
    local.hit(item, "general", "address:gone", now)
    local.hit(item, "general", "address:here", now + 100)
    monkeypatch.setattr(rate_limit, "SWEEP_EVERY_S", 0.0)
    local.sweep(now + 130)  # "gone" last counted two windows ago; "here" in the previous one
    assert [key[1] for key in local._windows] == ["address:here"]
