"""Bounded heavy work: charts, reports and fleet plans run through the worker's render gate,
which runs ``render_max_running`` at once, queues ``render_max_waiting`` and refuses the rest
at once with 503 problem+json and ``Retry-After``."""

from __future__ import annotations

import asyncio
import threading

import pytest

from app.api import deps
from app.main import app
from app.render.gate import Busy, RenderGate
from app.settings import Settings


def test_gate_runs_queues_and_refuses():
    gate = RenderGate(max_running=1, max_waiting=1)
    release = threading.Event()
    started = threading.Event()

    def slow() -> str:
        started.set()
        release.wait(5)
        return "done"

    async def scenario() -> list[object]:
        first = asyncio.create_task(gate.run(slow))
        # The slow call holds the one slot before the second is sent (else the second's
        # thread may take the slot first, finish at once and leave one call admitted).
        for _ in range(500):
            if started.is_set():
                break
            await asyncio.sleep(0.01)
        second = asyncio.create_task(gate.run(lambda: "queued"))
        await asyncio.sleep(0.05)
        assert gate.admitted == 2  # one running, one waiting
        with pytest.raises(Busy) as refused:
            await gate.run(lambda: "refused")
        assert refused.value.extra["retry_after_s"] == 1
        release.set()
        return [await first, await second, gate.admitted]

    assert asyncio.run(scenario()) == ["done", "queued", 0]
    assert started.is_set()


def test_busy_is_a_503_problem_with_retry_after(client):
    settings = Settings(render_max_running=1, render_max_waiting=0)
    app.dependency_overrides[deps.settings] = lambda: settings
    gate = deps.gate(1, 0)
    gate._admitted = 1  # one chart in flight in this worker
    try:
        r = client.get("/v1/charts/query", params={"q": "break-even for 3090 at 15% util"})
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert r.headers["content-type"] == "application/problem+json"
        assert r.json()["type"].endswith("/busy")
        assert client.get("/healthz").status_code == 200  # cheap answers are not gated
    finally:
        gate._admitted = 0
        app.dependency_overrides.pop(deps.settings, None)
    r = client.get("/v1/charts/query", params={"q": "break-even for 3090 at 15% util"})
    assert r.status_code == 200
