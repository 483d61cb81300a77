"""Request ids, JSON logs, /metrics, and the 503 for an unreachable database."""

from __future__ import annotations

import io
import json
import logging
import time

from app import observability as obs
from app.db import make_engine
from tests.dbs import client_for
from tests.factories import break_even

SEED = break_even()


def test_request_ids_are_echoed_or_made(client):
    r = client.post("/v1/break-even", json=SEED, headers={"X-Request-ID": "abc-123"})
    assert r.headers["x-request-id"] == "abc-123"
    r = client.post("/v1/break-even", json=SEED, headers={"X-Request-ID": "bad id\twith spaces"})
    assert len(r.headers["x-request-id"]) == 32 and " " not in r.headers["x-request-id"]
    r = client.post("/v1/break-even", json={"desktop": {}}, headers={"X-Request-ID": "e-1"})
    assert r.status_code == 422 and r.headers["x-request-id"] == "e-1"


def test_metrics_count_requests_by_route_template(client):
    client.post("/v1/break-even", json=SEED)
    client.get("/v1/gpus/rtx-3090")
    text = client.get("/metrics").text
    assert 'gpucost_requests_total{method="POST",route="/v1/break-even",status="200"}' in text
    assert 'route="/v1/gpus/{gpu_id}"' in text  # the template, not the id
    assert "gpucost_request_duration_seconds_bucket" in text


def test_json_logs_carry_the_request_id(client):
    stream = io.StringIO()
    obs.configure_logging("json")
    handler = logging.getLogger("gpucost").handlers[0]
    handler.setStream(stream)
    try:
        client.post("/v1/break-even", json=SEED, headers={"X-Request-ID": "log-me"})
    finally:
        obs.configure_logging("text")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    access = [x for x in lines if x["logger"] == "gpucost.access"]
    assert access and access[-1]["request_id"] == "log-me"
    assert access[-1]["route"] == "/v1/break-even" and access[-1]["status"] == 200
    assert access[-1]["duration_ms"] > 0


def test_an_unreachable_database_is_a_fast_503_problem():
    dead = make_engine("postgresql+psycopg://nobody:x@127.0.0.1:1/none")
    with client_for(dead) as c:
        started = time.perf_counter()
        key = {"X-API-Key": "gpc_0123456789ab_" + "x" * 43}  # well-formed: looked up
        r = c.get("/v1/scenarios", headers=key)
        elapsed = time.perf_counter() - started
    dead.dispose()
    assert r.status_code == 503, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert r.headers["retry-after"] == "1"
    assert r.json()["type"].endswith("/database-unavailable")
    assert elapsed < 5  # connection refused: no hang (the connect timeout is 2 s)


def test_security_headers_on_every_answer(client):
    """An API's security headers (OWASP REST Security Cheat Sheet) on JSON, problems,
    refusals and report pages; the docs page keeps the scripts it loads."""
    answers = [
        client.get("/v1/gpus/rtx-3090"),
        client.get("/v1/gpus/no-such-gpu"),  # 404 problem
        client.post(
            "/v1/break-even", content=b"x" * 70_000, headers={"content-type": "application/json"}
        ),  # 413
        client.post(
            "/v1/break-even", content=b"a=b", headers={"content-type": "text/plain"}
        ),  # 415
    ]
    for r in answers:
        assert r.headers["x-content-type-options"] == "nosniff", r.status_code
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["content-security-policy"] == "default-src 'none'; frame-ancestors 'none'"
    assert [r.status_code for r in answers] == [200, 404, 413, 415]
    plan = {"gpu": "rtx-4090", "baseline_gpu_hours_per_month": 100, "months": 12}
    page = client.post("/v1/plan/report", json=plan)
    assert "style-src 'unsafe-inline'" in page.headers["content-security-policy"]
    # scripts from this origin only (the calculators' vendored htmx): no inline, no eval
    csp = page.headers["content-security-policy"]
    assert "script-src 'self';" in csp and "unsafe-eval" not in csp
    assert "<script" not in page.text
    docs = client.get("/docs")
    assert (
        "content-security-policy" not in docs.headers
        and docs.headers["x-content-type-options"] == "nosniff"
    )
