"""Load and fault tests against real servers (loopback only, bounded in time, stop by
themselves). Run by ``make test``; CI runs them next to a real PostgreSQL.

* 64 connections for 60 s (``GPUCOST_LOAD_SECONDS``) against 2 workers on PostgreSQL: zero
  errors.
* ``kill -9`` one worker under load: the service keeps answering and the supervisor starts a
  new worker.
* PostgreSQL stopped under load: requests that need it fail fast with a 503 problem, the
  calculations keep answering from memory, and everything recovers within 5 s of the restart.
* ``kill -9`` during a catalog import: the catalog is unchanged.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text

from app.db import make_engine
from scripts.loadlib import BIN, BREAK_EVEN, children, lua_post, start_server, wrk
from tests.dbs import POSTGRES_URL, REQUIRE_POSTGRES, empty_database, migrate
from tests.servers import create_key

pytestmark = pytest.mark.load
LOAD_SECONDS = int(os.environ.get("GPUCOST_LOAD_SECONDS", "60"))
# How long the load's client waits for an answer before wrk counts a timeout. These tests claim
# that no request fails; they run beside other jobs (`make test-busy` adds two CPU-bound
# processes to a 2-CPU machine), where a request queued behind 63 others can wait seconds
# (a p99 of 2.5 s and a maximum of 4.96 s have been seen there, against wrk's
# default 5 s). Latency is the benchmark's to report
# (scripts/bench.py), not a failure here.
PATIENT_CLIENT_S = 60
# CI (GPUCOST_REQUIRE_LOAD=1) installs wrk and PostgreSQL: there, their absence fails.
REQUIRE_LOAD = os.environ.get("GPUCOST_REQUIRE_LOAD") == "1"
needs_wrk = pytest.mark.skipif(
    shutil.which("wrk") is None and not REQUIRE_LOAD, reason="wrk not installed"
)
needs_pg = pytest.mark.skipif(
    not (POSTGRES_URL or REQUIRE_POSTGRES), reason="GPUCOST_TEST_POSTGRES_URL not set"
)


@pytest.fixture(scope="module")
def pg_env(tmp_path_factory):
    """Environment for a server on a new, migrated and seeded PostgreSQL database."""
    with empty_database("postgresql", tmp_path_factory.mktemp("pg")) as url:
        env = {**os.environ, "GPUCOST_DATABASE_URL": url}
        migrate(url)
        subprocess.run([BIN / "gpucost", "seed"], env=env, check=True, capture_output=True)
        yield env


@needs_wrk
@needs_pg
def test_64_connections_against_2_workers_on_postgres_without_errors(pg_env, tmp_path):
    srv = start_server(pg_env, workers=2)
    try:
        script = lua_post("/v1/break-even", BREAK_EVEN, tmp_path)
        r = wrk(
            f"{srv.base}/v1/break-even",
            seconds=LOAD_SECONDS,
            connections=64,
            script=script,
            timeout_s=PATIENT_CLIENT_S,
        )
    finally:
        srv.stop()
    print(
        f"\n{LOAD_SECONDS} s x 64 connections, 2 workers, PostgreSQL: "
        f"{r['requests']} requests, {r['requests_per_s']:.0f}/s, p99 {r['p99_ms']} ms"
    )
    assert r["requests"] > LOAD_SECONDS * 50
    assert r["non_2xx"] == 0 and r["socket_errors"] == 0, r["raw"]


@needs_wrk
@needs_pg
def test_kill_9_of_a_worker_under_load_the_service_keeps_answering(pg_env, tmp_path):
    srv = start_server(pg_env, workers=2)
    try:
        deadline = time.monotonic() + 10
        while len(children(srv.proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        workers = children(srv.proc.pid)
        assert len(workers) == 2
        script = lua_post("/v1/break-even", BREAK_EVEN, tmp_path)
        load = threading.Thread(
            target=lambda: results.append(
                wrk(
                    f"{srv.base}/v1/break-even",
                    seconds=8,
                    connections=16,
                    script=script,
                    timeout_s=PATIENT_CLIENT_S,
                )
            )
        )
        results: list[dict] = []
        load.start()
        time.sleep(2)
        os.kill(workers[0], signal.SIGKILL)
        load.join(30)
        during = results[0]
        # Only requests in flight on the killed worker can fail; the rest are answered.
        assert during["requests"] > 500
        assert during["non_2xx"] == 0
        assert during["socket_errors"] <= 16, during["raw"]
        # The supervisor replaced the worker, and the service answers without errors.
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            alive = [p for p in children(srv.proc.pid) if p != workers[0]]
            if len(alive) == 2:
                break
            time.sleep(0.2)
        assert len(alive) == 2
        after = wrk(
            f"{srv.base}/v1/break-even",
            seconds=3,
            connections=16,
            script=script,
            timeout_s=PATIENT_CLIENT_S,
        )
        assert after["non_2xx"] == 0 and after["socket_errors"] == 0, after["raw"]
    finally:
        srv.stop()


def _pg_ctl(action: str) -> None:
    """Stop or start the cluster ``scripts/with_postgres.sh`` made (pg_virtualenv sets
    PGVERSION and the cluster is called `regress`)."""
    cmd = ["pg_ctlcluster", os.environ["PGVERSION"], "regress", action]
    if action == "stop":
        cmd += ["-m", "fast"]
    subprocess.run(cmd, check=True, capture_output=True)


@needs_pg
@pytest.mark.skipif(
    "PGVERSION" not in os.environ and not REQUIRE_LOAD, reason="needs scripts/with_postgres.sh"
)
def test_postgres_restart_under_load_fails_fast_then_recovers(pg_env):
    env = {**pg_env, "GPUCOST_DB_CONNECT_TIMEOUT_S": "2"}
    # listing scenarios needs a key (and the database)
    key = {"X-API-Key": create_key(env, "load test", "scenarios")}
    srv = start_server(env, workers=2)
    log: list[tuple[float, str, int, float]] = []  # (time, endpoint, status, seconds)
    stop = threading.Event()

    def hammer(path: str, body: dict | None) -> None:
        with httpx.Client(base_url=srv.base, timeout=10, headers=key) as c:
            while not stop.is_set():
                t = time.monotonic()
                try:
                    r = c.post(path, json=body) if body else c.get(path)
                    status = r.status_code
                    if status == 503:
                        assert r.headers["content-type"] == "application/problem+json"
                except httpx.HTTPError:
                    status = 0
                log.append((t, path, status, time.monotonic() - t))
                time.sleep(0.02)

    threads = [
        threading.Thread(target=hammer, args=("/v1/scenarios", None)),
        threading.Thread(target=hammer, args=("/v1/scenarios", None)),
        threading.Thread(target=hammer, args=("/v1/break-even", BREAK_EVEN)),
    ]
    try:
        for t in threads:
            t.start()
        time.sleep(2)
        _pg_ctl("stop")
        stopped = time.monotonic()
        time.sleep(4)
        restarted = time.monotonic()  # from the start command: recovery counts from here
        _pg_ctl("start")
        time.sleep(7)
    finally:
        stop.set()
        for t in threads:
            t.join(15)
        srv.stop()
    down = [x for x in log if stopped + 0.5 < x[0] < restarted]
    db_down = [x for x in down if x[1] == "/v1/scenarios"]
    calc_down = [x for x in down if x[1] == "/v1/break-even"]
    assert db_down and {x[2] for x in db_down} == {503}, sorted({x[2] for x in db_down})
    assert max(x[3] for x in db_down) < 3.0  # fast: within the connect timeout
    assert calc_down and {x[2] for x in calc_down} == {200}  # served from memory
    recovered = [x[0] for x in log if x[1] == "/v1/scenarios" and x[0] > restarted and x[2] == 200]
    assert recovered and recovered[0] - restarted < 5.0
    print(
        f"\nPostgreSQL down {restarted - stopped:.1f} s: {len(db_down)} x 503 "
        f"(slowest {max(x[3] for x in db_down) * 1000:.0f} ms), {len(calc_down)} x 200 from "
        f"memory; recovered {recovered[0] - restarted:.2f} s after the restart"
    )
    assert all(x[2] == 200 for x in log if x[0] > restarted + 5)


def _big_import(path: Path, rows: int) -> None:
    lines = ["provider,instance_type,gpu_id,gpu_count,pricing_model,price_usd_per_hour,region"]
    lines += [
        f"lambda,load_{i},rtx-a6000,1,on_demand,{1 + i / 1e5:.5f},r{i % 50}" for i in range(rows)
    ]
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_kill_9_during_an_import_leaves_the_catalog_unchanged(backend, tmp_path):
    if backend == "postgresql" and not (POSTGRES_URL or REQUIRE_POSTGRES):
        pytest.skip("GPUCOST_TEST_POSTGRES_URL not set")
    with empty_database(backend, tmp_path) as url:
        env = {**os.environ, "GPUCOST_DATABASE_URL": url}
        migrate(url)
        subprocess.run([BIN / "gpucost", "seed"], env=env, check=True, capture_output=True)
        engine = make_engine(url)

        def state():
            with engine.connect() as conn:
                return tuple(
                    conn.execute(text(q)).scalar_one()
                    for q in (
                        "SELECT count(*) FROM cloud_offer",
                        "SELECT count(*) FROM price_point",
                        "SELECT revision FROM catalog_revision",
                    )
                )

        before = state()
        big = tmp_path / "big.csv"
        _big_import(big, 60_000)
        proc = subprocess.Popen(
            [BIN / "gpucost", "catalog", "import", str(big)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(2.5)  # parsing takes ~1 s; the rows are being compared or staged
        assert proc.poll() is None, "the import finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        assert state() == before
        # Nothing is left locked: a new import goes through.
        small = tmp_path / "small.csv"
        _big_import(small, 3)
        done = subprocess.run(
            [BIN / "gpucost", "catalog", "import", str(small)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert state()[0] == before[0] + 3
        engine.dispose()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-v", "-s"]))


@needs_pg
def test_a_catalog_write_by_another_process_is_seen_by_every_worker(pg_env):
    """Two workers each hold the catalog in memory. Another process (here the test, as
    `gpucost catalog import` or a second replica would) changes a barebone's price and bumps
    the revision in one transaction: every worker comes to answer with the new price (each
    worker's poller reads the revision every 0.5 s, then re-reads the catalog) and none goes
    back to the old one; 40 fresh connections reach both. How soon (issue 16: within 1 s on
    an idle machine) is measured by ``make bench-propagation``, not here: beside two
    CPU-bound processes the re-read alone can take longer. The bound below is an outage's."""
    from app.store.catalog_writes import bump_revision

    srv = start_server(pg_env, workers=2)
    barebone = "barebone-2gpu-dettmers-2020"

    def prices() -> set[float]:
        seen = set()
        for _ in range(40):
            with httpx.Client(base_url=srv.base, timeout=5) as c:  # a new connection each
                rows = c.get("/v1/barebones").json()["data"]
            seen |= {r["price_usd"] for r in rows if r["id"] == barebone}
        return seen

    try:
        before = prices()
        assert len(before) == 1
        new_price = next(iter(before)) + 123.0
        engine = make_engine(pg_env["GPUCOST_DATABASE_URL"])
        with engine.begin() as conn:
            conn.execute(
                text("UPDATE barebone SET price_usd = :p WHERE id = :i"),
                {"p": new_price, "i": barebone},
            )
            bump_revision(conn)
        engine.dispose()
        written = time.monotonic()
        while (seen := prices()) != {new_price} and time.monotonic() - written < 30:
            time.sleep(0.2)
        print(f"\nseen by both workers {time.monotonic() - written:.2f} s after the write")
        assert seen == {new_price}
        assert prices() == {new_price}
    finally:
        srv.stop()
