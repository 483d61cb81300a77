"""Abuse tests (issue 21): real ``gpucost serve`` processes on loopback, on SQLite and (when
configured) PostgreSQL, driven as an outside caller would drive them.

* a flood of anonymous creates stops at the rate limit with 429 and stores nothing; a keyed
  flood stops at the key's quota, and the database holds exactly the quota;
* another key can neither list nor delete a lab's scenario;
* a chart flood from many addresses keeps ``/healthz`` fast (p99 < 50 ms) and every answer is
  200, 429 or 503;
* rate limits kept in Redis hold across two workers;
* a worker's drawing processes end with it, even after ``kill -9``.
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from pathlib import Path

import httpx
import pytest

from app.main import WARM_UP_AFTER_S
from scripts.bench_flood import SWEEP, flood
from scripts.loadlib import children
from tests.dbs import backends
from tests.factories import scenario
from tests.servers import create_key, redis_server, seeded_database, server

pytestmark = pytest.mark.e2e

SEED_RUN = scenario()


def _stored(base: str, key: str) -> int:
    r = httpx.get(f"{base}/v1/scenarios", headers={"X-API-Key": key}, params={"limit": 100})
    assert r.status_code == 200
    return r.json()["count"]


@pytest.fixture(params=backends())
def database(request, tmp_path):
    with seeded_database(request.param, tmp_path) as env:
        yield env


def test_create_floods_stop_at_the_rate_limit_and_the_quota(database):
    env = {
        **database,
        "GPUCOST_RATE_LIMIT_ANONYMOUS": "30/minute",
        "GPUCOST_RATE_LIMIT_KEY": "40/minute",
        "GPUCOST_MAX_SCENARIOS_PER_KEY": "10",
    }
    lab = create_key(env, "lab", "scenarios")
    with server(env) as srv, httpx.Client(base_url=srv.base, timeout=30) as c:
        anonymous = Counter(c.post("/v1/scenarios", json=SEED_RUN).status_code for _ in range(100))
        assert anonymous == {401: 30, 429: 70}  # never stored, then not even looked at
        answers = []
        for i in range(60):
            r = c.post(
                "/v1/scenarios",
                json={**SEED_RUN, "name": f"run {i}"},
                headers={"X-API-Key": lab},
            )
            answers.append((r.status_code, r.json().get("type", "").rsplit("/", 1)[-1]))
        assert Counter(answers) == {
            (201, ""): 10,  # the quota
            (429, "quota-exceeded"): 30,  # the rest of the key's 40 a minute
            (429, "rate-limited"): 20,
        }
        # The probes are never limited, and nothing beyond the quota was stored.
        assert c.get("/healthz").status_code == 200
    with server(env) as fresh:  # a new worker: fresh counters, same database
        assert _stored(fresh.base, lab) == 10


def test_another_key_cannot_list_or_delete_a_labs_scenario(database):
    lab = create_key(database, "lab", "scenarios")
    other = create_key(database, "other lab", "scenarios")
    with server(database) as srv, httpx.Client(base_url=srv.base, timeout=30) as c:
        r = c.post("/v1/scenarios", json={**SEED_RUN, "name": "ours"}, headers={"X-API-Key": lab})
        assert r.status_code == 201
        sid = r.json()["id"]
        assert _stored(srv.base, other) == 0
        assert c.delete(f"/v1/scenarios/{sid}", headers={"X-API-Key": other}).status_code == 404
        assert c.delete(f"/v1/scenarios/{sid}").status_code == 401
        assert c.get(f"/v1/scenarios/{sid}").status_code == 200  # a shared link still reads
        assert c.delete(f"/v1/scenarios/{sid}", headers={"X-API-Key": lab}).status_code == 204


def test_a_chart_flood_keeps_health_checks_fast(tmp_path):
    """8 callers at 8 addresses (``X-Forwarded-For``, trusted from loopback as behind a
    proxy) post the largest sweep chart back to back for 8 s with every default setting;
    a probe times ``/healthz`` every 20 ms (``scripts/bench_flood.py``'s flood)."""
    with seeded_database("sqlite", tmp_path) as env:
        env = {k: v for k, v in env.items() if not k.startswith("GPUCOST_RATE_LIMIT")}
        env.pop("GPUCOST_RENDER_PROCESSES", None)
        with server(env) as srv:
            out = flood(
                srv.base, srv.proc.pid, clients=8, seconds=8, probe_every_s=0.02, addresses=True
            )
    answers, probe = out["answers"], out["healthz"]
    assert not out["hung"], "a request hung"
    assert out["healthz_statuses"] == {200: probe["n"]}
    assert set(answers) <= {200, 429, 503}, answers
    assert answers[200] > 0
    assert probe["n"] > 100
    p99 = probe["p99_ms"]
    print(f"chart flood: {answers}, /healthz p99 {p99:.1f} ms over {probe['n']} probes")
    assert p99 < 50, f"/healthz p99 {p99:.1f} ms under the flood ({answers})"


def test_rate_limits_in_redis_hold_across_workers(tmp_path):
    with redis_server() as url, seeded_database("sqlite", tmp_path) as env:
        env = {**env, "GPUCOST_REDIS_URL": url, "GPUCOST_RATE_LIMIT_ANONYMOUS": "6/minute"}
        with server(env) as a, server(env) as b:
            first = [httpx.get(f"{srv.base}/v1/barebones") for srv in (a, b, a, b, a, b)]
            assert [r.status_code for r in first] == [200] * 6
            assert [r.headers["x-ratelimit-remaining"] for r in first] == list("543210")
            assert httpx.get(f"{a.base}/v1/barebones").status_code == 429
            assert httpx.get(f"{b.base}/v1/barebones").status_code == 429


def _gone(pids: list[int], within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not any(Path(f"/proc/{p}").exists() for p in pids):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_drawing_processes_end_with_their_worker(tmp_path, how):
    with seeded_database("sqlite", tmp_path) as env:
        env.pop("GPUCOST_RENDER_PROCESSES", None)
        with server(env) as srv:
            r = httpx.post(f"{srv.base}/v1/charts/break-even-sweep", json=SWEEP, timeout=60)
            assert r.status_code == 200 and r.headers["content-type"] == "image/png"
            # The first chart starts one process; the warm-up (app.main.WARM_UP_AFTER_S after
            # start-up) starts the rest.
            deadline = time.monotonic() + WARM_UP_AFTER_S + 10
            while len(drawing := children(srv.proc.pid)) < 2 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert len(drawing) == 2  # GPUCOST_RENDER_MAX_RUNNING's default
            srv.proc.send_signal(getattr(signal, how))
            srv.proc.wait(timeout=15)
            assert _gone(drawing, within_s=3), f"drawing processes outlived a {how}"
            if how == "SIGTERM":
                assert "leaked" not in srv.output()
    # no process of ours is left behind
    assert not any(os.path.exists(f"/proc/{p}") for p in drawing)
