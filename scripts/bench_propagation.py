"""Catalog propagation (gpucost issue 16): how soon after another process writes the catalog
does every worker answer with the new value? Target: within 1 s on an idle machine (each
worker's poller reads the revision every ``catalog_poll_interval_s``, 0.5 s, then re-reads the
catalog, ~0.5 s of CPU).

Starts uvicorn with two workers on a new migrated and seeded database (SQLite by default;
``--database-url`` for a PostgreSQL database that is already migrated and seeded), then
``--writes`` times: changes a barebone's price and bumps the revision in one transaction, as
``gpucost catalog import`` would, and samples ``GET /v1/barebones`` on fresh connections (each
may reach either worker) every 20 ms until ``--samples`` answers in a row carry the new price.
Prints each write's time to full propagation and the median and max against the 1 s target.

    make bench-propagation        (or: python scripts/bench_propagation.py [--writes 5])
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import httpx
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.db import make_engine  # noqa: E402
from app.store.catalog_writes import bump_revision  # noqa: E402
from scripts.loadlib import fresh_sqlite, start_server  # noqa: E402

BAREBONE = "barebone-2gpu-dettmers-2020"
TARGET_S = 1.0


def _price(base: str) -> float:
    with httpx.Client(base_url=base, timeout=5) as c:  # a new connection each
        rows = c.get("/v1/barebones").json()["data"]
    return next(r["price_usd"] for r in rows if r["id"] == BAREBONE)


def _write(url: str, price: float) -> None:
    engine = make_engine(url)
    with engine.begin() as conn:
        conn.execute(
            text("UPDATE barebone SET price_usd = :p WHERE id = :i"), {"p": price, "i": BAREBONE}
        )
        bump_revision(conn)
    engine.dispose()


def propagation_s(base: str, url: str, price: float, samples: int) -> float:
    """Seconds from the write's commit to the first of ``samples`` answers in a row (fresh
    connections, either worker) that carry it."""
    _write(url, price)
    written = time.monotonic()
    in_a_row, since = 0, written
    while in_a_row < samples:
        now = time.monotonic()
        if _price(base) == price:
            since = since if in_a_row else now
            in_a_row += 1
        else:
            in_a_row = 0
            time.sleep(0.02)
        if now - written > 30:
            raise RuntimeError("not propagated within 30 s")
    return since - written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writes", type=int, default=5)
    ap.add_argument("--samples", type=int, default=20, help="answers in a row with the new price")
    ap.add_argument("--database-url", help="a migrated and seeded database (default: new SQLite)")
    args = ap.parse_args()
    if args.database_url:
        env = {**os.environ, "GPUCOST_DATABASE_URL": args.database_url}
    else:
        env = fresh_sqlite()
    url = env["GPUCOST_DATABASE_URL"]
    srv = start_server(env, workers=2)
    try:
        first = _price(srv.base)
        times = [
            propagation_s(srv.base, url, first + 100.0 * (i + 1), args.samples)
            for i in range(args.writes)
        ]
        _write(url, first)
    finally:
        srv.stop()
    for i, t in enumerate(times, 1):
        print(f"write {i}: every worker answers with it after {t:.2f} s")
    med, worst = statistics.median(times), max(times)
    print(
        f"median {med:.2f} s, max {worst:.2f} s; target {TARGET_S:.1f} s: "
        f"median {med / TARGET_S:.2f}x, max {worst / TARGET_S:.2f}x of it"
    )


if __name__ == "__main__":
    main()
