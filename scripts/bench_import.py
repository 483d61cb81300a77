"""How long a large catalog import holds SQLite's write lock (gpucost issue 36).

``python scripts/bench_import.py [--rows N] [--http]`` imports N offers (default 60,000, in
gpucost's own CSV format, every row a new offer of a catalog GPU) into a fresh migrated and
seeded SQLite database, while a separate process asks for the write lock (``BEGIN
IMMEDIATE``, then ``ROLLBACK``) every 10 ms: the longest it waited is the longest the import
held the lock against any other writer (an admin write, a scenario save, a Slack replay).
Prints the import's wall time, the longest wait and how many waits passed 100 ms and 1 s.

In process by default (``app.store.imports.apply`` after ``importer.parse``); with
``--http`` the file goes to ``POST /v1/admin/imports`` of one worker started with every
default, while a third process times ``GET /healthz`` every 20 ms (p50/p99 printed).
"""

from __future__ import annotations

import multiprocessing
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scripts.loadlib import fresh_sqlite, percentiles, start_server  # noqa: E402


def offers_csv(rows: int, gpus: list[str]) -> bytes:
    """``rows`` new offers of ``gpus`` in gpucost's own CSV format (prices are made up: the
    bench times the write, not the prices)."""
    lines = ["provider,instance_type,gpu_id,gpu_count,pricing_model,price_usd_per_hour,region"]
    for i in range(rows):
        gpu = gpus[i % len(gpus)]
        lines.append(
            f"lambda,bench-{i},{gpu},{1 + i % 8},on_demand,{0.5 + (i % 400) / 100},r{i % 50}"
        )
    return ("\n".join(lines) + "\n").encode()


def _lock_probe(path: str, stop: Any, results: Any) -> None:
    """Ask for the write lock every 10 ms until ``stop``; put the waits (s)."""
    conn = sqlite3.connect(path, timeout=120, isolation_level=None)
    waits: list[float] = []
    while not stop.is_set():
        started = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        waits.append(time.perf_counter() - started)
        conn.execute("ROLLBACK")
        time.sleep(0.01)
    results.put(waits)


def _healthz_probe(base: str, stop: Any, results: Any) -> None:
    """Time ``GET /healthz`` every 20 ms until ``stop``; put (monotonic start, ms) pairs."""
    timed: list[tuple[float, float]] = []
    with httpx.Client(base_url=base, timeout=60) as c:
        while not stop.is_set():
            t = time.monotonic()
            c.get("/healthz")
            timed.append((t, (time.monotonic() - t) * 1000))
            time.sleep(0.02)
    results.put(timed)


def _lock_summary(waits: list[float]) -> dict[str, Any]:
    return {
        "lock_probes": len(waits),
        "longest_wait_ms": round(max(waits, default=0) * 1000, 1),
        "waits_over_100ms": sum(w > 0.1 for w in waits),
        "waits_over_1s": sum(w > 1 for w in waits),
    }


def _admin_key() -> str:
    from sqlmodel import Session

    from app.db import get_engine
    from app.store import keys

    with Session(get_engine()) as s:
        return keys.create(s, "bench-import", ["read", "write"])[1]


def main() -> None:
    rows = int(sys.argv[sys.argv.index("--rows") + 1]) if "--rows" in sys.argv else 60_000
    env = fresh_sqlite()
    os.environ["GPUCOST_DATABASE_URL"] = env["GPUCOST_DATABASE_URL"]
    path = env["GPUCOST_DATABASE_URL"].removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        gpus = [r[0] for r in conn.execute("SELECT id FROM gpu ORDER BY id")]
    data = offers_csv(rows, gpus)
    ctx = multiprocessing.get_context("spawn")
    stop, results = ctx.Event(), ctx.Queue()
    if "--http" in sys.argv:
        key = _admin_key()
        srv = start_server(env)
        try:
            probe_stop, probe_results = ctx.Event(), ctx.Queue()
            probe = ctx.Process(target=_healthz_probe, args=(srv.base, probe_stop, probe_results))
            probe.start()
            locker = ctx.Process(target=_lock_probe, args=(path, stop, results))
            locker.start()
            time.sleep(1)
            started, at = time.perf_counter(), time.monotonic()
            r = httpx.post(
                f"{srv.base}/v1/admin/imports",
                params={"filename": "bench.csv"},
                content=data,
                headers={"X-API-Key": key, "content-type": "text/csv"},
                timeout=600,
            )
            took = time.perf_counter() - started
            time.sleep(0.5)
            stop.set()
            probe_stop.set()
            timed = probe_results.get(timeout=120)
            waits = results.get(timeout=120)
            during = [ms for t, ms in timed if at <= t <= at + took]
            slow = [f"+{t - at:.1f}s:{ms:.0f}ms" for t, ms in timed if ms > 100]
            print(
                f"{rows} rows over HTTP: {r.status_code} {r.json().get('totals')}, "
                f"{took:.2f} s (apply {r.json().get('seconds')} s); /healthz during it "
                f"{percentiles(during)}; {_lock_summary(waits)}; probes over 100 ms: {slow}"
            )
        finally:
            srv.stop()
        return
    from app.catalog import importer
    from app.db import get_engine
    from app.store import imports

    parsed = importer.parse("bench.csv", data)
    locker = ctx.Process(target=_lock_probe, args=(path, stop, results))
    locker.start()
    time.sleep(1)
    report = imports.apply(get_engine(), [parsed])
    time.sleep(0.5)
    stop.set()
    waits = results.get(timeout=120)
    print(
        f"{rows} rows in process: {report.counts()}, {report.price_points_added} price points, "
        f"{report.seconds:.2f} s; {_lock_summary(waits)}"
    )


if __name__ == "__main__":
    main()
