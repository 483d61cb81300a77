"""Requests per caller (issue 21, "bounded work"): per client address without a key, per API
key with one, a smaller budget for heavy operations, 429 problem+json with Retry-After past
either, the probes never counted. In process, with the worker's in-memory counters;
tests/system/test_abuse.py drives real servers (and Redis shared by two workers)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session

from app.api.rate_limit import EXEMPT, is_heavy
from app.main import app
from app.models import ApiKey
from app.settings import get_settings
from app.store import keys

CHART = {"gpu": "3090", "utilization": 0.15}


@pytest.fixture
def limited(monkeypatch) -> Iterator[Callable[..., None]]:
    """``limited(anonymous="5/hour", ...)`` sets the limits (as the environment would) for
    this test; the limiter is remade with fresh counters."""

    def configure(**limits: str) -> None:
        for name, value in limits.items():
            monkeypatch.setenv(f"GPUCOST_RATE_LIMIT_{name.upper()}", value)
        get_settings.cache_clear()

    yield configure
    get_settings.cache_clear()


def _from(address: str) -> TestClient:
    return TestClient(app, raise_server_exceptions=False, client=(address, 40000))


def test_an_address_gets_its_budget_then_429_with_retry_after(client, limited):
    limited(anonymous="5/hour")
    remaining = []
    for _ in range(5):
        r = client.get("/v1/barebones")
        assert r.status_code == 200
        assert r.headers["x-ratelimit-limit"] == "5"
        remaining.append(int(r.headers["x-ratelimit-remaining"]))
    assert remaining == [4, 3, 2, 1, 0]
    r = client.get("/v1/barebones")
    assert r.status_code == 429
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert body["type"].endswith("/rate-limited") and body["status"] == 429
    assert "more than 5 requests per hour from this address" in body["detail"]
    assert 1 <= int(r.headers["retry-after"]) <= 3600
    assert int(r.headers["x-ratelimit-reset"]) >= int(time.time())
    # Like any answer: a request id and the API's security headers.
    assert r.headers["x-request-id"] and r.headers["x-content-type-options"] == "nosniff"
    # A refused request is refused before validation: a bad body is still a 429.
    assert client.post("/v1/break-even", json={"nonsense": 1}).status_code == 429
    # The probes are never counted.
    for path in ("/healthz", "/readyz", "/metrics"):
        assert client.get(path).status_code == 200, path
    # Another address has its own budget.
    assert _from("198.51.100.7").get("/v1/barebones").status_code == 200


def test_heavy_operations_have_a_smaller_budget(client, limited):
    limited(anonymous="50/hour", anonymous_heavy="2/hour")
    for _ in range(2):
        assert client.post("/v1/charts/cumulative-cost", json=CHART).status_code != 429
    r = client.post("/v1/charts/cumulative-cost", json=CHART)
    assert r.status_code == 429
    assert "more than 2 heavy requests" in r.json()["detail"]
    assert r.headers["x-ratelimit-limit"] == "2"
    r = client.get("/v1/scenarios/abc/report")
    assert r.status_code == 429  # a report is heavy too
    # A cheap calculation still goes through: it counts against the general budget only.
    r = client.post("/v1/break-even", json={"desktop": {"gpu": "3090"}, "cloud": {}})
    assert r.status_code != 429


def _delete_key(engine, key_id: str) -> None:
    """Keys are written through the engine (not rolled back with the test): remove it."""
    with Session(engine) as s:
        s.delete(s.get(ApiKey, key_id))
        s.commit()


def test_a_valid_key_has_its_own_budget_a_made_up_one_does_not(client, engine, limited, request):
    limited(anonymous="2/hour", key="4/hour")
    with Session(engine) as s:
        row, key = keys.create(s, "lab tool", ["read"])
    request.addfinalizer(lambda: _delete_key(engine, row.id))
    for _ in range(2):
        assert client.get("/v1/barebones").status_code == 200
    assert client.get("/v1/barebones").status_code == 429
    # A key that merely looks like one is counted against the address: still refused.
    fake = "gpc_000000000000_" + "A" * 43
    assert client.get("/v1/barebones", headers={"X-API-Key": fake}).status_code == 429
    keyed = [client.get("/v1/barebones", headers={"X-API-Key": key}) for _ in range(5)]
    assert [r.status_code for r in keyed] == [200, 200, 200, 200, 429]
    assert keyed[0].headers["x-ratelimit-limit"] == "4"
    assert "from this API key" in keyed[-1].json()["detail"]


def test_limits_can_be_turned_off(client, limited, monkeypatch):
    limited(anonymous="1/hour")
    monkeypatch.setenv("GPUCOST_RATE_LIMITS_ENABLED", "false")
    get_settings.cache_clear()
    assert [client.get("/v1/barebones").status_code for _ in range(3)] == [200] * 3
    assert "x-ratelimit-limit" not in client.get("/v1/barebones").headers


def test_every_counted_operation_documents_429():
    paths = app.openapi()["paths"]
    for path, item in paths.items():
        for method, op in item.items():
            documented = "429" in op["responses"]
            assert documented == (path not in EXEMPT), f"{method.upper()} {path}"
    assert is_heavy("/v1/plan/report") and is_heavy("/v1/scenarios/x/report")
    assert not is_heavy("/v1/break-even") and not is_heavy("/v1/scenarios/x/result")
    # the pages of heavy operations, and saving a page's answer, spend the heavy budget
    assert all(is_heavy(p) for p in ("/compare", "/plan", "/llm", "/s"))
    assert not any(is_heavy(p) for p in ("/break-even", "/run-cost", "/s/" + "0" * 32))


def _refused_redis_url() -> str:
    """A Redis URL on a loopback port nothing listens on (connections refused at once)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"redis://127.0.0.1:{port}/0"


def test_redis_down_fails_open_to_per_worker_limits(client, limited, monkeypatch):
    """Issue 48 (High): with Redis gone every counted request was a 500, missing from the
    metrics and the access log, while /readyz stayed ok. Now: answered, still limited in
    the worker's memory, counted as a dependency error and reported degraded."""
    monkeypatch.setenv("GPUCOST_REDIS_URL", _refused_redis_url())
    limited(anonymous="3/hour")
    statuses = [client.get("/v1/barebones").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    ready = client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["status"] == "degraded"
    assert "Redis unreachable" in ready.json()["degraded"]["rate_limits"]
    metrics = client.get("/metrics").text
    errors = [
        line
        for line in metrics.splitlines()
        if line.startswith('gpucost_dependency_errors_total{dependency="redis"}')
    ]
    assert errors and float(errors[0].split()[-1]) >= 4
    assert 'gpucost_degraded{component="rate_limits"} 1.0' in metrics


def test_an_error_in_the_rate_limiter_is_counted_as_a_500(client, limited, monkeypatch):
    """Whatever fails before the routes (here the limiter itself) is recorded as the 500 it
    is answered with: in the request counter, by route."""
    from app.api import rate_limit

    limited(anonymous="100/hour")

    def broken(*args, **kwargs):
        raise RuntimeError("limiter bug")

    monkeypatch.setattr(rate_limit, "_count_with", broken)
    r = _from("192.0.2.77").get("/v1/barebones")
    assert r.status_code == 500
    assert r.headers["content-type"] == "application/problem+json"
    metrics = client.get("/metrics").text
    assert any(
        line.startswith("gpucost_requests_total{")
        and 'status="500"' in line
        and float(line.split()[-1]) >= 1
        for line in metrics.splitlines()
    )


def test_mcp_is_counted_per_caller(limited):
    """Issue 48: ``/mcp`` was never counted (a tools/list costs 3-7 ms of CPU), so one
    address could take a worker's time without limit. Now it spends the caller's budget."""
    limited(anonymous="3/hour")
    headers = {"accept": "application/json, text/event-stream"}
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    with TestClient(app, raise_server_exceptions=False, client=("192.0.2.90", 1)) as c:
        statuses = [c.post("/mcp", json=listing, headers=headers).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
