"""Benchmark suite (``make bench``): one run, figures and ratios printed, JSON written to
``reports/bench.json``. Not a test: it measures.

Starts the real server (uvicorn, uvloop + httptools, ``--workers 1``, fresh SQLite catalog)
and drives it with wrk (installed from apt by ``scripts/ensure_wrk.sh``), so the load
generator, written in C, is not the bottleneck. Measures:

1. requests/s of ``POST /v1/break-even`` and of ``GET /healthz`` (a bare JSON endpoint of the
   same app) at 64 connections, and their ratio (target >= 0.8);
2. p50/p99 latency (wrk, 8 connections) of break-even, run-cost, ``/v1/query`` and the Slack
   command (distinct pre-signed requests; target p99 < 100 ms);
3. server time (``Server-Timing``) of ``/v1/compare`` over the full catalog, 200 requests;
4. cold start: process spawn to first break-even answer (target < 2 s), median of 3;
5. resident memory of the worker after the load (target < 150 MB).

    .venv/bin/python scripts/bench.py [--seconds 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from scripts.loadlib import (  # noqa: E402
    BREAK_EVEN,
    QUESTION,
    ROOT,
    RUN_COST,
    fresh_sqlite,
    lua_post,
    lua_slack,
    percentiles,
    rss_mb,
    server_time_ms,
    start_server,
    wrk,
)

COMPARE = {
    "workload": {"benchmark": "stylegan_xl"},
    "runs_per_month": 200,
    "filters": {"cheapest_region_only": False, "include_free_tiers": True},
    "limit": 20,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10, help="Length of each wrk run.")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gpucost-bench-"))
    env = fresh_sqlite()
    results: dict = {"machine": {"cpus": __import__("os").cpu_count()}, "seconds": args.seconds}

    cold = []
    for _ in range(3):
        srv = start_server(env)
        cold.append(srv.started_s)
        srv.stop()
    results["cold_start_s"] = {
        "runs": [round(c, 3) for c in cold],
        "median": round(statistics.median(cold), 3),
    }

    srv = start_server(env)
    try:
        b = srv.base
        # Warm up every path once (snapshot, name index, first Slack parse).
        httpx.post(f"{b}/v1/run-cost", json=RUN_COST).raise_for_status()
        httpx.get(f"{b}/v1/query", params={"q": QUESTION}).raise_for_status()
        be_lua = lua_post("/v1/break-even", BREAK_EVEN, work)
        wrk(f"{b}/v1/break-even", seconds=2, connections=8, script=be_lua)

        bare = wrk(f"{b}/healthz", seconds=args.seconds, connections=64)
        be = wrk(f"{b}/v1/break-even", seconds=args.seconds, connections=64, script=be_lua)
        results["throughput"] = {
            "healthz_rps": bare["requests_per_s"],
            "break_even_rps": be["requests_per_s"],
            "ratio": round(be["requests_per_s"] / bare["requests_per_s"], 3),
            "errors": bare["non_2xx"] + be["non_2xx"] + bare["socket_errors"] + be["socket_errors"],
        }

        # Latency one request at a time (a Slack user's view), and with 8 connections
        # queueing on the one worker (a saturated worker: queueing time included).
        cases = (
            ("break_even", f"{b}/v1/break-even", be_lua),
            ("run_cost", f"{b}/v1/run-cost", lua_post("/v1/run-cost", RUN_COST, work)),
            ("query", f"{b}/v1/query?q={QUESTION.replace(' ', '%20')}", None),
            ("slack_command", f"{b}/slack/commands", None),
        )
        for conns, key in ((1, "latency_1_connection"), (8, "latency_8_connections")):
            table = {}
            threads = 1 if conns == 1 else 2
            for name, url, script in cases:
                if name == "slack_command":  # fresh signatures: replays are refused
                    script = lua_slack(work, 20_000, threads=threads)
                r = wrk(
                    url, seconds=args.seconds, connections=conns, threads=threads, script=script
                )
                table[name] = {k: r[k] for k in ("p50_ms", "p99_ms", "requests_per_s", "non_2xx")}
            results[key] = table
        lat1, lat = results["latency_1_connection"], results["latency_8_connections"]

        server_ms = []
        with httpx.Client(base_url=b, timeout=10) as c:
            for _ in range(20):
                c.post("/v1/compare", json=COMPARE).raise_for_status()
            for _ in range(200):
                r = c.post("/v1/compare", json=COMPARE)
                server_ms.append(server_time_ms(r))
        results["compare_server_ms"] = percentiles(server_ms)
        results["rss_mb_per_worker"] = round(rss_mb(srv.proc.pid), 1)
    finally:
        srv.stop()

    targets = [
        ("break-even / bare JSON requests/s", results["throughput"]["ratio"], ">=", 0.8),
        ("Slack command p99 (1 connection), ms", lat1["slack_command"]["p99_ms"], "<", 100),
        ("Slack command p99 (8 connections), ms", lat["slack_command"]["p99_ms"], "<", 100),
        ("cold start, s", results["cold_start_s"]["median"], "<", 2),
        ("RSS per worker, MB", results["rss_mb_per_worker"], "<", 150),
        ("/v1/compare server p99, ms", results["compare_server_ms"]["p99_ms"], "<", 20),
    ]
    results["targets"] = []
    print(f"\ngpucost bench ({results['machine']['cpus']} CPUs, wrk, {args.seconds} s per run)")
    print(
        f"  healthz {results['throughput']['healthz_rps']:.0f} req/s, break-even "
        f"{results['throughput']['break_even_rps']:.0f} req/s at 64 connections"
    )
    for conns, table in ((1, lat1), (8, lat)):
        for name, r in table.items():
            print(
                f"  {name:<14} p50 {r['p50_ms']:7.2f} ms  p99 {r['p99_ms']:7.2f} ms  "
                f"({r['requests_per_s']:.0f} req/s at {conns} connection(s), "
                f"non-2xx {r['non_2xx']})"
            )
    print(f"  compare server time p50 {results['compare_server_ms']['p50_ms']} ms")
    print(f"  cold start runs {results['cold_start_s']['runs']} s")
    print("\n  target                                  measured   target   ratio   met")
    for name, value, op, target in targets:
        met = value >= target if op == ">=" else value < target
        ratio = value / target
        results["targets"].append(
            {
                "name": name,
                "value": value,
                "target": f"{op} {target}",
                "ratio_to_target": round(ratio, 3),
                "met": met,
            }
        )
        print(f"  {name:<38} {value:>9}  {op}{target:<6} {ratio:6.2f}   {'yes' if met else 'NO'}")
    out = ROOT / "reports" / "bench.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"\nwrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
