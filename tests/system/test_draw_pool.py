"""Charts drawn in separate processes (app/render/draw_pool.py): the same bytes as drawn in the
caller, a 503 (Busy) for a drawing past its time limit or a process that died, and a new
pool after that. tests/system/test_abuse.py checks them under a real server (a chart flood,
SIGTERM and kill -9)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from app.render import drawing as charts
from app.render.draw_pool import DrawPool
from app.render.gate import Busy

SEED_CHART = dict(
    # Seed 001: a $2,200 desktop at 15 % utilization vs a $2.14/h V100 spot instance.
    upfront=2200.0,
    desktop_per_day=0.45 * 24 * 0.15 * 0.12,
    cloud_per_day=2.14 * 24 * 0.15,
    break_even_days=2200 / (2.14 * 3.6 - 0.45 * 3.6 * 0.12),
    days=1095.0,
    title="Buy (seed 001) or rent",
    fmt="svg",
)


@pytest.fixture(scope="module")
def pool() -> Iterator[DrawPool]:
    p = DrawPool(processes=1, timeout_s=60)
    p.warm_up()[0].result(timeout=60)
    yield p
    p.close()


def test_a_chart_drawn_in_a_process_is_the_one_drawn_here(pool):
    here = charts.cumulative_cost(**SEED_CHART)
    there = pool.draw(charts.cumulative_cost, SEED_CHART)
    assert there == here  # same bytes (SVG ids are salted, dates left out), same texts
    assert pool.pids() and os.getpid() not in pool.pids()


def test_a_drawing_past_its_time_limit_is_busy(pool):
    hurried = DrawPool(processes=1, timeout_s=0.001)
    try:
        with pytest.raises(Busy) as busy:
            hurried.draw(charts.cumulative_cost, SEED_CHART)
        assert busy.value.status == 503 and "longer than 0.001 s" in busy.value.detail
    finally:
        hurried.close()


def test_a_dead_drawing_process_is_busy_then_replaced(pool):
    for pid in pool.pids():
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.5)
    with pytest.raises(Busy, match="died"):
        pool.draw(charts.cumulative_cost, SEED_CHART)
    assert pool.draw(charts.cumulative_cost, SEED_CHART) == charts.cumulative_cost(**SEED_CHART)
