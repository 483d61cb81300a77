"""Benchmark: server time of POST /v1/compare over the full catalog and of a 100-point
POST /v1/break-even/sweep, against a real server.

Starts uvicorn (uvloop + httptools, one worker) on a fresh migrated and seeded SQLite
database, warms up, then sends each request N times from one client and reads the
application's own time from the ``Server-Timing: app;dur=<ms>`` header (so the client and
loopback are not counted), and the round trip as seen by the client. Prints p50/p95/p99 in
ms with the ratio to the targets and writes ``reports/bench_compare.json``.
Targets (issue 6): compare < 20 ms, 100-point sweep < 5 ms, on this 2-core machine.

    .venv/bin/python scripts/bench_compare.py [--requests 300]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from scripts.loadlib import (  # noqa: E402
    ROOT,
    fresh_sqlite,
    percentiles,
    server_time_ms,
    start_server,
)

CASES = {
    # Every option: 1,593 offers + desktop builds, a measured benchmark, runs per month.
    "compare_full_catalog": (
        "/v1/compare",
        {
            "workload": {"benchmark": "stylegan_xl"},
            "runs_per_month": 200,
            "filters": {"cheapest_region_only": False, "include_free_tiers": True},
            "limit": 20,
        },
        20.0,
    ),
    "compare_reference_gpu": (
        "/v1/compare",
        {"workload": {"gpu": "rtx-3090"}, "utilization": 0.15, "horizon_months": 36},
        20.0,
    ),
    "sweep_100_points": (
        "/v1/break-even/sweep",
        {
            "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
            "cloud": {"price_usd_per_hour": 2.14},
            "electricity_prices_usd_per_kwh": [0.12],
        },
        5.0,
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=300)
    args = parser.parse_args()
    server = start_server(fresh_sqlite())
    report: dict = {"requests_per_case": args.requests, "cases": {}}
    try:
        with httpx.Client(base_url=server.base, timeout=30) as client:
            for name, (path, body, target) in CASES.items():
                first = client.post(path, json=body)
                first.raise_for_status()
                for _ in range(20):  # warm-up
                    client.post(path, json=body)
                server_ms, round_trip_ms = [], []
                for _ in range(args.requests):
                    t = time.perf_counter()
                    r = client.post(path, json=body)
                    round_trip_ms.append((time.perf_counter() - t) * 1000)
                    r.raise_for_status()
                    server_ms.append(server_time_ms(r))
                s = percentiles(server_ms)
                row = {
                    "target_ms": target,
                    "server": s,
                    "round_trip": percentiles(round_trip_ms),
                    "p50_over_target": round(s["p50_ms"] / target, 3),
                    "p99_over_target": round(s["p99_ms"] / target, 3),
                }
                if path == "/v1/compare":
                    row["options_considered"] = first.json()["summary"]["considered"]
                    row["options_ranked"] = first.json()["summary"]["ranked"]
                else:
                    row["grid_points"] = sum(len(r) for r in first.json()["break_even_days"])
                report["cases"][name] = row
                print(
                    f"{name:<24} server p50 {s['p50_ms']:7.2f} ms  p95 {s['p95_ms']:7.2f}  "
                    f"p99 {s['p99_ms']:7.2f}  (target {target:g} ms: p50 x{row['p50_over_target']:.2f},"
                    f" p99 x{row['p99_over_target']:.2f})  round trip p50 "
                    f"{row['round_trip']['p50_ms']:.2f} ms"
                )
    finally:
        server.stop()
    out = ROOT / "reports" / "bench_compare.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
