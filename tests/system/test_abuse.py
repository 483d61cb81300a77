"""Abuse tests (issue 21): real ``gpucost serve`` processes on loopback, on SQLite and (when
configured) PostgreSQL, driven as an outside caller would drive them.

* a flood of anonymous creates stops at the rate limit with 429 and stores nothing; a keyed
  flood stops at the key's quota, and the database holds exactly the quota;
* another key can neither list nor delete a lab's scenario;
* a chart flood from many addresses keeps ``/healthz`` fast (p95 under 50 ms, or 5x its quiet
  p95 in the same test on a busy machine) and every answer is 200, 429 or 503;
* rate limits kept in Redis hold across two workers;
* a worker's drawing processes end with it, even after ``kill -9``;
* (issue 36) 4 MB API keys are 431s that leave the worker's memory as it was; a subnormal
  number is a 422 in a request and in an admin write (compare keeps answering), a NUL in an
  admin note a 422; 50 concurrent keyed creates on one worker all succeed; query, as_of, plan
  and mixed floods from 40 loopback addresses keep ``/healthz`` p95 under 100 ms (or 5x quiet).

The floods' p99 on a quiet machine is the benchmark's (``make bench-flood``), not a test's.
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
from tests.servers import (
    HEALTHZ_PERCENTILE,
    create_key,
    healthz_baseline_ms,
    healthz_budget_ms,
    redis_server,
    seeded_database,
    server,
)

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
        "GPUCOST_RATE_LIMIT_ANONYMOUS": "30/hour",
        "GPUCOST_RATE_LIMIT_KEY": "40/hour",
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
            (429, "quota-exceeded"): 30,  # the rest of the key's 40 an hour
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
            quiet = healthz_baseline_ms(srv.base, srv.proc.pid)
            out = flood(
                srv.base, srv.proc.pid, clients=8, seconds=8, probe_every_s=0.02, addresses=True
            )
    answers, probe = out["answers"], out["healthz"]
    assert not out["hung"], "a request hung"
    assert out["healthz_statuses"] == {200: probe["n"]}
    assert set(answers) <= {200, 429, 503}, answers
    assert answers[200] > 0
    assert probe["n"] > 100
    slow = probe[HEALTHZ_PERCENTILE]
    budget = healthz_budget_ms(50, quiet)
    print(f"chart flood: {answers}, /healthz {probe} over {probe['n']} probes")
    assert slow < budget, f"/healthz {HEALTHZ_PERCENTILE} {slow:.1f} ms (quiet {quiet:.1f})"


def test_rate_limits_in_redis_hold_across_workers(tmp_path):
    with redis_server() as url, seeded_database("sqlite", tmp_path) as env:
        env = {**env, "GPUCOST_REDIS_URL": url, "GPUCOST_RATE_LIMIT_ANONYMOUS": "6/hour"}
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
        # The first chart starts a drawing process (a Python importing matplotlib): on a busy
        # machine that alone passed the default 10 s render timeout (a 503, not a chart).
        env["GPUCOST_RENDER_TIMEOUT_S"] = "120"
        with server(env) as srv:
            r = httpx.post(f"{srv.base}/v1/charts/break-even-sweep", json=SWEEP, timeout=180)
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


# -- issue 36: no caller can exhaust a worker, and no input gives a 500 ---------------------


def _big_header_request(port: int, size: int) -> bytes:
    """Send a GET whose X-API-Key is ``size`` bytes over a raw socket; what came back (the
    server may close the connection while the head is still being sent)."""
    import socket

    head = b"GET /v1/gpus HTTP/1.1\r\nHost: x\r\nX-API-Key: "
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        try:
            s.sendall(head)
            chunk = b"k" * 65536
            for _ in range(size // len(chunk)):
                s.sendall(chunk)
            s.sendall(b"\r\n\r\n")
        except OSError:
            pass  # closed by the server after its 431
        out = b""
        try:
            while data := s.recv(65536):
                out += data
        except OSError:
            pass
        return out


def test_huge_headers_are_refused_and_leave_no_memory(tmp_path):
    """40 requests with 4 MB API keys (the red team's 150 took a worker from 156 to 753 MB):
    each is a 431 problem, and the worker's memory barely moves."""
    from scripts.loadlib import rss_mb

    with seeded_database("sqlite", tmp_path) as env, server(env) as srv:
        port = int(srv.base.rsplit(":", 1)[1])
        assert httpx.get(f"{srv.base}/v1/gpus").status_code == 200
        before = rss_mb(srv.proc.pid)
        answers = [_big_header_request(port, 4 * 1024 * 1024) for _ in range(40)]
        after = rss_mb(srv.proc.pid)
        assert all(a.startswith(b"HTTP/1.1 431 ") for a in answers), answers[0][:200]
        assert b"headers-too-large" in answers[0]
        assert after - before < 30, f"RSS {before:.0f} -> {after:.0f} MB"
        # A key of the wrong form is counted by address and never looked up: still 200.
        r = httpx.get(f"{srv.base}/v1/gpus", headers={"X-API-Key": "x" * 8000})
        assert r.status_code == 200


def _read_all(sock) -> bytes:
    out = b""
    try:
        while data := sock.recv(65536):
            out += data
    except OSError:
        pass
    return out


def test_silent_and_slow_heads_are_timed_out(tmp_path):
    """Issue 48: a connection that sent nothing, or a head a byte at a time (slowloris), was
    held for ever. With a 1 s head timeout: both get 408 problem+json and are closed, a
    kept-alive connection's next request is timed from its first byte, and a prompt request
    is answered."""
    import socket

    with (
        seeded_database("sqlite", tmp_path) as env,
        server({**env, "GPUCOST_REQUEST_HEAD_TIMEOUT_S": "1"}) as srv,
    ):
        port = int(srv.base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=20) as silent:
            started = time.monotonic()
            answer = _read_all(silent)
            waited = time.monotonic() - started
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        assert b"request-timeout" in answer and 0.9 < waited < 15
        with socket.create_connection(("127.0.0.1", port), timeout=20) as slow:
            for byte in b"GET /healthz HTTP/1.1\r\nHost: x\r\n":
                try:
                    slow.sendall(bytes([byte]))
                except OSError:
                    break  # closed after its 408
                time.sleep(0.1)
            answer = _read_all(slow)
        assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
        with httpx.Client(base_url=srv.base) as client:  # one kept-alive connection
            assert client.get("/healthz").status_code == 200
            time.sleep(1.5)  # idle between requests: uvicorn's keep-alive (5 s) applies
            assert client.get("/healthz").status_code == 200


def test_poisoned_numbers_are_422_and_compare_keeps_answering(database):
    """The red team's two 500s: a subnormal utilization on a chart, and a subnormal memory
    bandwidth written by an admin (then every compare was a 500)."""
    admin = create_key(database, "admin", "read", "write")
    with server(database) as srv, httpx.Client(base_url=srv.base, timeout=30) as c:
        body = {**SEED_RUN["break_even"], "utilization": 5e-324}
        assert c.post("/v1/charts/cumulative-cost", json=body).status_code == 422
        key = {"X-API-Key": admin}
        r = c.get("/v1/admin/gpus/rtx-3090", headers=key)
        data = {k: v for k, v in r.json()["data"].items() if k != "id"}
        bad = {**data, "memory_bandwidth_gb_per_s": 5e-324}
        r = c.put(
            "/v1/admin/gpus/rtx-3090", json=bad, headers={**key, "If-Match": r.headers["etag"]}
        )
        assert r.status_code == 422
        assert c.post("/v1/compare", json={"workload": {"benchmark": "yolor"}}).status_code == 200
        nul = {**data, "notes": "a\x00b"}
        r = c.get("/v1/admin/gpus/rtx-3090", headers=key)
        r = c.put(
            "/v1/admin/gpus/rtx-3090", json=nul, headers={**key, "If-Match": r.headers["etag"]}
        )
        assert r.status_code == 422


def test_fifty_concurrent_keyed_creates_all_succeed(database):
    """One pooled connection per keyed create: 50 at once on one worker (pool 5 + 5) are all
    stored (12 emptied the pool before issue 36)."""
    from concurrent.futures import ThreadPoolExecutor

    lab = create_key(database, "lab", "scenarios")
    env = {**database, "GPUCOST_MAX_SCENARIOS_PER_KEY": "100"}
    with server(env) as srv, httpx.Client(base_url=srv.base, timeout=30) as c:
        c.get("/healthz")

        def create(i: int) -> int:
            with httpx.Client(base_url=srv.base, timeout=30) as own:
                r = own.post(
                    "/v1/scenarios",
                    json={**SEED_RUN, "name": f"run {i}"},
                    headers={"X-API-Key": lab},
                )
                return r.status_code

        with ThreadPoolExecutor(50) as pool:
            statuses = Counter(pool.map(create, range(50)))
        assert statuses == {201: 50}, statuses
        assert _stored(srv.base, lab) == 50


@pytest.mark.parametrize("kind", ["query", "as_of", "plan", "mixed"])
def test_a_flood_from_forty_addresses_keeps_health_checks_fast(tmp_path, kind):
    """40 callers at 40 loopback addresses, each within its address's budget, flood one
    endpoint for 6 s (``scripts/bench_flood.py --endpoints``); ``/healthz`` p95 stays under
    100 ms, or 5x its p95 under the control flood (the same callers asking a cheap
    break-even) on a busy machine (as_of: from its second flood; the first builds a dated
    view per price change), every caller gets an answer and none is a 500, and the
    worker's memory stays bounded. The control flood runs just before and just after the
    flood tested, as long as it, and the larger of its two p95s is the baseline: two busy
    processes on two cores make one 6 s window differ from the next by 2x."""
    from scripts.bench_flood import endpoint_flood

    with seeded_database("sqlite", tmp_path) as env:
        env = {k: v for k, v in env.items() if not k.startswith("GPUCOST_RATE_LIMIT")}
        env.pop("GPUCOST_RENDER_PROCESSES", None)
        # ~1,500 access lines would fill the server's stdout pipe, which nobody reads until
        # it stops: the worker would block on its log writes.
        env["GPUCOST_LOG_LEVEL"] = "WARNING"
        with server(env) as srv:
            quiet = healthz_baseline_ms(srv.base, srv.proc.pid, 6, control=True)
            out = endpoint_flood(srv.base, srv.proc.pid, kind, seconds=6)
            if kind == "as_of":
                # The first seconds build a dated view per price change (48 in the shipped
                # catalog, ~33 ms each, kept): bounded, but not yet the steady state. The
                # target holds for the flood that follows.
                first = out
                assert isinstance(first["healthz"], dict), f"too few /healthz samples: {first}"
                assert not first["hung"] and not first["healthz_timeouts"], first
                assert first["healthz"][HEALTHZ_PERCENTILE] < 2000, first
                out = endpoint_flood(srv.base, srv.proc.pid, kind, seconds=6)
            quiet = max(quiet, healthz_baseline_ms(srv.base, srv.proc.pid, 6, control=True))
    answers, probe = out["answers"], out["healthz"]
    print(f"{kind} flood: {out}")
    assert not out["hung"], "a request hung"
    assert not out["healthz_timeouts"]
    assert isinstance(probe, dict), f"too few /healthz samples: {out}"
    assert set(answers) <= {200, 404, 429, 503}, answers
    assert answers.get(200, 0) > 0
    budget = healthz_budget_ms(100, quiet)
    slow = probe[HEALTHZ_PERCENTILE]
    assert slow < budget, f"/healthz {HEALTHZ_PERCENTILE} {slow:.1f} (quiet {quiet:.1f})"
    assert out["worker_rss_after_mb"] < 250, out


def test_an_import_over_http_runs_in_a_drawing_process(database):
    """``POST /v1/admin/imports`` on a worker with drawing processes: the file is parsed and
    written there (a file in an unknown format still a 422, raised there), the offers are
    stored with the file's prices, and the drawing processes are the worker's children."""
    admin = {"X-API-Key": create_key(database, "importer", "read", "write")}
    env = {k: v for k, v in database.items() if k != "GPUCOST_RENDER_PROCESSES"}
    rows = ["provider,instance_type,gpu_id,gpu_count,pricing_model,price_usd_per_hour"]
    rows += [f"lambda,apart-{i},a100-40gb,1,on_demand,{1 + i / 100:.2f}" for i in range(300)]
    with server(env) as srv, httpx.Client(base_url=srv.base, timeout=120) as c:
        bad = c.post(
            "/v1/admin/imports",
            content=b"a,b\n1,2\n",
            headers={**admin, "content-type": "text/csv"},
        )
        assert bad.status_code == 422 and "unknown format" in bad.text, bad.text
        r = c.post(
            "/v1/admin/imports",
            params={"filename": "apart.csv"},
            content=("\n".join(rows) + "\n").encode(),
            headers={**admin, "content-type": "text/csv"},
        )
        assert r.status_code == 200, r.text
        assert r.json()["totals"] == {"added": 300, "changed": 0, "unchanged": 0, "rejected": 0}
        assert children(srv.proc.pid), "no drawing process ran the import"
        stored = c.get("/v1/admin/cloud-offers/lambda-apart-299-on-demand", headers=admin)
        assert stored.status_code == 200, stored.text
        assert stored.json()["data"]["price_usd_per_hour"] == 3.99
