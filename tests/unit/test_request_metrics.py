"""Requests recorded on the request path (observability.record_request) reach the Prometheus
metrics as per-request Counter.inc and Histogram.observe calls would: the same count, sum
and buckets (boundaries included); at the end of the event loop's turn, at once in
/metrics, or by the next request when the loop that queued them ended."""

from __future__ import annotations

import asyncio
import time
import uuid

from prometheus_client import CollectorRegistry, Counter, Histogram

from app import observability as obs

DURATIONS_S = [0.0, 0.0004, 0.001, 0.0011, 0.0025, 0.049, 0.5, 1.0, 2.6, 5.0, 7.5, 0.001]


def _samples(metric, **labels: str) -> dict[tuple[str, str], float]:
    """Sample name suffix and `le` -> value, for the child with ``labels``."""
    out = {}
    for family in metric.collect():
        for s in family.samples:
            if all(s.labels.get(k) == v for k, v in labels.items()) and not s.name.endswith(
                "_created"
            ):
                out[(s.name.rsplit("_", 1)[-1], s.labels.get("le", ""))] = s.value
    return out


def test_tallied_requests_equal_observed_ones():
    route = f"/tally-{uuid.uuid4().hex}"
    registry = CollectorRegistry()
    counter = Counter("ref_requests_total", "ref", ["method", "route", "status"], registry=registry)
    histogram = Histogram(
        "ref_duration_seconds",
        "ref",
        ["method", "route"],
        buckets=obs.LATENCY_BUCKETS_S,
        registry=registry,
    )
    for d in DURATIONS_S:
        obs.record_request("GET", route, 200, d)  # no event loop here: counted at once
        counter.labels("GET", route, "200").inc()
        histogram.labels("GET", route).observe(d)
    obs.metrics_body()
    assert _samples(obs.REQUESTS, route=route) == _samples(counter, route=route)
    got, want = _samples(obs.LATENCY, route=route), _samples(histogram, route=route)
    assert got.keys() == want.keys() and got[("count", "")] == len(DURATIONS_S)
    for key, value in want.items():
        assert abs(got[key] - value) < 1e-9, key


def test_in_the_event_loop_they_are_counted_at_the_end_of_its_turn():
    route = f"/tally-{uuid.uuid4().hex}"

    async def scenario() -> tuple[float, float]:
        obs.record_request("POST", route, 201, 0.002)
        before = _samples(obs.REQUESTS, route=route).get(("total", ""), 0.0)
        await asyncio.sleep(0)
        return before, _samples(obs.REQUESTS, route=route)[("total", "")]

    assert asyncio.run(scenario()) == (0.0, 1.0)


def test_metrics_count_what_is_queued():
    route = f"/tally-{uuid.uuid4().hex}"

    async def scenario() -> str:
        obs.record_request("GET", route, 200, 0.002)
        return obs.metrics_body()[0].decode()  # before the turn ends

    assert f'route="{route}",status="200"}} 1.0' in asyncio.run(scenario())


def test_a_queue_whose_loop_ended_is_counted_by_the_next_request():
    route = f"/tally-{uuid.uuid4().hex}"
    obs._REQUESTS.queue.append((time.time(), "-", "GET", route, 200, 0.001))
    obs._REQUESTS.due = time.time() - 5  # scheduled on a loop that never ran it
    obs.record_request("GET", route, 200, 0.002)
    assert _samples(obs.REQUESTS, route=route)[("total", "")] == 2.0
    assert obs._REQUESTS.due is None
