"""Bounded headers, keys and counters (issue 36, part 1), in process: headers past
``max_header_bytes`` are a 431 before the rate limiter sees them, a malformed API key is never
looked up nor remembered, the limiter's table of counters stops growing at its bound, and an
unexpected error is counted in ``/metrics`` and the access log as the 500 it answers.
tests/system/test_abuse.py checks the same against ``gpucost serve`` (whose protocol stops
reading a head at the bound)."""

from __future__ import annotations

import asyncio
import io
import json
import logging

from app import observability as obs
from app.api.rate_limit import RateLimits
from app.main import app
from app.settings import Settings, get_settings
from tests.factories import break_even


def _edge_limiter():
    """The edge's limiter (the outermost user middleware of the built stack)."""
    stack = app.middleware_stack
    while stack is not None and not hasattr(stack, "limiter"):
        stack = getattr(stack, "app", None)
    assert stack is not None
    return stack.limiter


def test_headers_over_the_bound_are_a_431_problem(client):
    limit = get_settings().max_header_bytes
    r = client.get("/v1/gpus", headers={"X-Padding": "x" * limit})
    assert r.status_code == 431
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert body["type"].endswith("/headers-too-large") and body["status"] == 431
    assert str(limit) in body["detail"]
    assert r.headers["x-request-id"] and r.headers["x-content-type-options"] == "nosniff"
    # Just under the bound: answered.
    assert client.get("/v1/gpus", headers={"X-Padding": "x" * (limit // 2)}).status_code == 200


def test_a_huge_api_key_is_refused_before_the_limiter_remembers_it(client, monkeypatch):
    monkeypatch.setenv("GPUCOST_RATE_LIMIT_ANONYMOUS", "1000/hour")
    get_settings.cache_clear()
    try:
        client.get("/healthz")  # builds the middleware stack
        limiter = _edge_limiter()
        r = client.get("/v1/gpus", headers={"X-API-Key": "k" * 4_000_000})
        assert r.status_code == 431
        # Malformed but small keys are counted by address and never looked up nor kept.
        for n in range(50):
            r = client.get("/v1/gpus", headers={"X-API-Key": f"not-a-key-{n}" * 20})
            assert r.status_code == 200
        limits = limiter.limits(get_settings())
        assert len(limits._key_ids) == 0
    finally:
        get_settings.cache_clear()


class _App:
    dependency_overrides: dict = {}


def test_the_counters_stop_growing_at_their_bound():
    """2,000 addresses, a table of 100 counters: past the bound, new addresses share one
    budget (``address:overflow``) and the table stays at about its bound."""
    limits = RateLimits(Settings(rate_limit_max_entries=100, rate_limit_anonymous="5/hour"))
    callers = set()
    for n in range(2000):
        scope = {"client": (f"10.0.{n // 250}.{n % 250}", 1), "app": _App()}
        caller, _, verdict = asyncio.run(limits.check(scope, None, heavy=False))
        callers.add(caller)
    assert len(limits.memory_keys) <= 100 + 2  # the overflow caller's own counters
    assert "address:overflow" in callers
    # The overflow caller has one shared budget: it was refused long before 2,000.
    scope = {"client": ("10.9.9.9", 1), "app": _App()}
    _, _, verdict = asyncio.run(limits.check(scope, None, heavy=False))
    assert verdict.refused


def test_a_host_longer_than_an_address_is_not_kept_whole():
    limits = RateLimits(Settings())
    scope = {"client": ("x" * 10_000, 1), "app": _App()}
    caller, _, _ = asyncio.run(limits.check(scope, None, heavy=False))
    assert caller == "address:malformed"


def test_an_unexpected_error_is_counted_and_logged_as_a_500(client, monkeypatch):
    from app import usecases

    def boom(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(usecases, "compute_break_even", boom)
    stream = io.StringIO()
    obs.configure_logging("json")
    logging.getLogger("gpucost").handlers[0].setStream(stream)
    try:
        r = client.post("/v1/break-even", json=break_even())
    finally:
        obs.configure_logging("text")
    assert r.status_code == 500
    text = client.get("/metrics").text
    assert 'gpucost_requests_total{method="POST",route="/v1/break-even",status="500"}' in text
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    access = [x for x in lines if x["logger"] == "gpucost.access"]
    assert access and access[-1]["status"] == 500


def test_dated_views_are_kept_per_price_change(engine):
    """Every day between two price changes reads one dated view (built once, then served
    with its own ``as_of``); a day after the next change reads another."""
    import datetime as dt

    from app.catalog.live import live_catalog

    catalog = live_catalog(engine)
    base = catalog.view
    days = sorted({point[0] for points in base.history.values() for point in points})
    start, end = next((a, b) for a, b in zip(days, days[1:], strict=False) if (b - a).days > 2)
    first = catalog.view_on(start + dt.timedelta(days=1))
    second = catalog.cached_on(end - dt.timedelta(days=1))  # same span: no build needed
    assert second is not None and second.as_of == end - dt.timedelta(days=1)
    assert second.offers is first.offers and second.gpus is first.gpus
    assert catalog.cached_on(end) is None or catalog.cached_on(end).offers is not first.offers
    later = catalog.view_on(end)
    assert later.as_of == end and later.offers is not first.offers


def test_a_full_table_keeps_the_callers_it_already_counts():
    """Issue 48: while the table was full, every address, even one counted a moment before,
    was counted as ``address:overflow`` (sharing the flood's budget). Now a caller counted
    in its window keeps its own budget; only new ones share the overflow's."""
    limits = RateLimits(Settings(rate_limit_max_entries=100, rate_limit_anonymous="5/hour"))
    lab = {"client": ("192.0.2.10", 1), "app": _App()}
    caller, _, verdict = asyncio.run(limits.check(lab, None, heavy=False))
    assert caller == "address:192.0.2.10" and verdict.remaining == 4
    for n in range(2000):
        scope = {"client": (f"10.0.{n // 250}.{n % 250}", 1), "app": _App()}
        asyncio.run(limits.check(scope, None, heavy=False))
    caller, _, verdict = asyncio.run(limits.check(lab, None, heavy=False))
    assert caller == "address:192.0.2.10"
    assert not verdict.refused and verdict.remaining == 3  # its own budget, one spent before
    newcomer = {"client": ("198.51.100.7", 1), "app": _App()}
    assert asyncio.run(limits.check(newcomer, None, heavy=False))[0] == "address:overflow"


def test_ipv6_is_counted_per_64_block():
    """One host gets a /64 (RFC 6177): its 2^64 addresses share one budget; the next /64 is
    another caller; an IPv4-mapped address is its IPv4 address."""
    limits = RateLimits(Settings(rate_limit_anonymous="3/hour"))

    def ask(host: str):
        return asyncio.run(limits.check({"client": (host, 1), "app": _App()}, None, False))

    same = ["2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:fffe", "2001:db8:1:2:a:b:c:d"]
    callers = {ask(h)[0] for h in same}
    assert callers == {"address:2001:db8:1:2::/64"}
    caller, _, verdict = ask("2001:db8:1:2:1234::9")
    assert verdict.refused  # the fourth request of the block within the hour
    caller, _, verdict = ask("2001:db8:1:3::1")
    assert caller == "address:2001:db8:1:3::/64" and not verdict.refused
    assert ask("::ffff:192.0.2.1")[0] == "address:192.0.2.1"
