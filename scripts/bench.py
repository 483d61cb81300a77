"""Benchmark suite (``make bench``): one run, figures and ratios printed, JSON written to
``reports/bench.json``. Not a test: it measures.

The reference is the framework's own floor, not our own endpoints: this module also holds a
**bare FastAPI app** (``scripts.bench:bare``: an async ``/healthz`` returning a small dict and
an async ``/validate`` taking the same pydantic ``BreakEvenRequest``), served by the same
uvicorn with the same flags (uvloop, httptools, one worker) from the same venv. Both servers
run side by side and wrk (C, installed from apt by ``scripts/ensure_wrk.sh``) drives them in
interleaved rounds, so a noisy moment hits both. The product runs as in production: its JSON
access log at INFO (to a file), metrics and request ids on.

Measured:

1. requests/s at 64 connections, median of ``--rounds`` interleaved rounds: bare
   ``/healthz``, bare ``/validate``, product ``/healthz``, product ``POST /v1/break-even``
   (the seed request), and the same break-even on the **ceiling**
   (``scripts.bench_ceiling:app``: the product with the model answering from a cache, so
   what is left is the edge, routing, validation and serialization); ratios product healthz
   / bare healthz (target >= 0.8) and break-even / bare healthz (target >= 0.4, issue 30),
   with the ceiling's ratio beside it: the most a faster model could reach;
2. p50/p99 latency (wrk, 1 and 8 connections) of break-even, run-cost, ``/v1/query`` and the
   signed Slack command (distinct pre-signed requests); target p99 < 100 ms at 8;
3. server time (``Server-Timing``) of ``/v1/compare`` over the full catalog, 200 requests
   (target p50 < 10 ms);
4. cold start: process spawn to first break-even answer (target < 2 s), median of 3;
5. resident memory of the worker after the load (target < 150 MB).

    .venv/bin/python scripts/bench.py [--seconds 10] [--rounds 3] [--throughput-only]

``--throughput-only`` runs (1) alone and prints its figures and ratios, for an edit-measure
loop; ``reports/bench.json`` is left alone then.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
from pathlib import Path

import httpx
from fastapi import FastAPI

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.models.break_even import BreakEvenRequest  # noqa: E402
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

# ---- the reference: a bare FastAPI app in the same venv -------------------------------------
bare = FastAPI()


@bare.get("/healthz")
async def bare_healthz() -> dict[str, str]:
    return {"status": "ok"}


@bare.post("/validate")
async def bare_validate(req: BreakEvenRequest) -> dict[str, float | None]:
    return {"utilization": req.utilization}


# The product with the break-even model answering from a cache (scripts/bench_ceiling.py): how
# fast break-even could be if the model cost nothing.
CEILING = "scripts.bench_ceiling:app"

# -----------------------------------------------------------------------------------------------

COMPARE = {
    "workload": {"benchmark": "stylegan_xl"},
    "runs_per_month": 200,
    "filters": {"cheapest_region_only": False, "include_free_tiers": True},
    "limit": 20,
}


def _cold_starts(env: dict[str, str]) -> dict:
    cold = []
    for _ in range(3):
        srv = start_server(env)
        cold.append(srv.started_s)
        srv.stop()
    return {"runs": [round(c, 3) for c in cold], "median": round(statistics.median(cold), 3)}


def _throughput(
    bare_base: str, base: str, ceiling_base: str, work: Path, seconds: int, rounds: int
) -> dict:
    """Interleaved rounds at 64 connections; medians per endpoint and the ratios."""
    be_lua = lua_post("/v1/break-even", BREAK_EVEN, work)
    val_lua = lua_post("/validate", BREAK_EVEN, work)
    cases = {
        "bare_healthz": (f"{bare_base}/healthz", None),
        "bare_validate": (f"{bare_base}/validate", val_lua),
        "product_healthz": (f"{base}/healthz", None),
        "product_break_even": (f"{base}/v1/break-even", be_lua),
        "ceiling_break_even": (f"{ceiling_base}/v1/break-even", be_lua),
    }
    runs: dict[str, list[float]] = {k: [] for k in cases}
    errors = 0
    for _ in range(rounds):
        for name, (url, script) in cases.items():
            r = wrk(url, seconds=seconds, connections=64, script=script)
            runs[name].append(r["requests_per_s"])
            errors += r["non_2xx"] + r["socket_errors"]
    med = {k: round(statistics.median(v), 1) for k, v in runs.items()}
    return {
        "rounds": runs,
        "median_rps": med,
        "product_healthz_over_bare": round(med["product_healthz"] / med["bare_healthz"], 3),
        "break_even_over_bare_healthz": round(med["product_break_even"] / med["bare_healthz"], 3),
        "bare_validate_over_bare_healthz": round(med["bare_validate"] / med["bare_healthz"], 3),
        "ceiling_break_even_over_bare_healthz": round(
            med["ceiling_break_even"] / med["bare_healthz"], 3
        ),
        "errors": errors,
    }


def _latencies(base: str, work: Path, seconds: int) -> dict:
    cases = (
        ("break_even", f"{base}/v1/break-even", lua_post("/v1/break-even", BREAK_EVEN, work)),
        ("run_cost", f"{base}/v1/run-cost", lua_post("/v1/run-cost", RUN_COST, work)),
        ("query", f"{base}/v1/query?q={QUESTION.replace(' ', '%20')}", None),
        ("slack_command", f"{base}/slack/commands", None),
    )
    out = {}
    for conns in (1, 8):
        table = {}
        threads = 1 if conns == 1 else 2
        for name, url, script in cases:
            if name == "slack_command":  # fresh signatures: replays are refused
                script = lua_slack(work, 20_000, threads=threads)
            r = wrk(url, seconds=seconds, connections=conns, threads=threads, script=script)
            table[name] = {k: r[k] for k in ("p50_ms", "p99_ms", "requests_per_s", "non_2xx")}
        out[f"{conns}_connection{'s' if conns > 1 else ''}"] = table
    return out


def _compare_server_ms(base: str) -> dict:
    server_ms = []
    with httpx.Client(base_url=base, timeout=10) as c:
        for _ in range(20):
            c.post("/v1/compare", json=COMPARE).raise_for_status()
        for _ in range(200):
            server_ms.append(server_time_ms(c.post("/v1/compare", json=COMPARE)))
    return percentiles(server_ms)


def _report(results: dict) -> None:
    t, lat = results["throughput"], results["latency"]
    m = t["median_rps"]
    print(f"\ngpucost bench on {results['machine']} ({results['seconds']} s per wrk run)")
    print(
        f"  requests/s at 64 connections (median of {len(t['rounds']['bare_healthz'])} rounds): "
        f"bare /healthz {m['bare_healthz']:.0f}, bare /validate {m['bare_validate']:.0f}, "
        f"product /healthz {m['product_healthz']:.0f}, break-even {m['product_break_even']:.0f}"
    )
    print(
        f"  break-even's ceiling (the model answering from a cache, not a target): "
        f"{m['ceiling_break_even']:.0f} requests/s, "
        f"{t['ceiling_break_even_over_bare_healthz']} of bare /healthz"
    )
    for conns, table in lat.items():
        for name, r in table.items():
            print(
                f"  {name:<14} p50 {r['p50_ms']:7.2f} ms  p99 {r['p99_ms']:7.2f} ms  "
                f"({r['requests_per_s']:.0f} req/s at {conns}, non-2xx {r['non_2xx']})"
            )
    c = results["compare_server_ms"]
    print(f"  /v1/compare server time p50 {c['p50_ms']} ms, p99 {c['p99_ms']} ms")
    print(f"  cold start runs {results['cold_start_s']['runs']} s")
    eight = lat["8_connections"]
    targets = [
        ("product /healthz / bare /healthz", t["product_healthz_over_bare"], ">=", 0.8),
        ("break-even / bare /healthz", t["break_even_over_bare_healthz"], ">=", 0.4),
        ("Slack command p99 (8 conn.), ms", eight["slack_command"]["p99_ms"], "<", 100),
        ("/v1/query p99 (8 conn.), ms", eight["query"]["p99_ms"], "<", 100),
        ("/v1/compare server p50, ms", c["p50_ms"], "<", 10),
        ("cold start, s", results["cold_start_s"]["median"], "<", 2),
        ("RSS per worker, MB", results["rss_mb_per_worker"], "<", 150),
    ]
    results["targets"] = []
    print("\n  target                              measured   target   ratio   met")
    for name, value, op, target in targets:
        met = value >= target if op == ">=" else value < target
        results["targets"].append(
            {"name": name, "value": value, "target": f"{op} {target}", "met": met}
        )
        print(
            f"  {name:<34} {value:>9}  {op}{target:<6} {value / target:6.2f}   "
            f"{'yes' if met else 'NO'}"
        )


def _throughput_only(env: dict[str, str], work: Path, seconds: int, rounds: int) -> None:
    srv = start_server(env, log_level="INFO", stderr=work / "product.log")
    ref = start_server(env, app="scripts.bench:bare", ready=("GET", "/healthz", None))
    top = start_server(env, app=CEILING, log_level="INFO", stderr=work / "ceiling.log")
    try:
        for server in (srv, ref, top):
            wrk(f"{server.base}/healthz", seconds=2, connections=8)
        t = _throughput(ref.base, srv.base, top.base, work, seconds, rounds)
        rss = rss_mb(srv.proc.pid)
    finally:
        for server in (srv, ref, top):
            server.stop()
    print(json.dumps({k: v for k, v in t.items() if k != "rounds"}, indent=1))
    print("rounds:", json.dumps(t["rounds"]), f"product RSS {rss:.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10, help="Length of each wrk run.")
    parser.add_argument("--rounds", type=int, default=3, help="Interleaved throughput rounds.")
    parser.add_argument(
        "--throughput-only", action="store_true", help="Only the interleaved requests/s rounds."
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gpucost-bench-"))
    env = {**fresh_sqlite(), "GPUCOST_LOG_FORMAT": "json"}  # as the Dockerfile runs it
    if args.throughput_only:
        _throughput_only(env, work, args.seconds, args.rounds)
        return
    results: dict = {
        "machine": f"{os.cpu_count()} CPUs, {platform.machine()}, Python "
        f"{platform.python_version()}",
        "seconds": args.seconds,
        "cold_start_s": _cold_starts(env),
    }
    log = work / "product.log"
    srv = start_server(env, log_level="INFO", stderr=log)
    ref = start_server(env, app="scripts.bench:bare", ready=("GET", "/healthz", None))
    top = start_server(env, app=CEILING, log_level="INFO", stderr=work / "ceiling.log")
    try:
        # Warm up every path once (catalog view, name index, first Slack parse).
        httpx.post(f"{srv.base}/v1/run-cost", json=RUN_COST).raise_for_status()
        httpx.get(f"{srv.base}/v1/query", params={"q": QUESTION}).raise_for_status()
        for server in (srv, ref, top):
            wrk(f"{server.base}/healthz", seconds=2, connections=8)
        results["throughput"] = _throughput(
            ref.base, srv.base, top.base, work, args.seconds, args.rounds
        )
        results["latency"] = _latencies(srv.base, work, args.seconds)
        results["compare_server_ms"] = _compare_server_ms(srv.base)
        results["rss_mb_per_worker"] = round(rss_mb(srv.proc.pid), 1)
        results["bare_rss_mb"] = round(rss_mb(ref.proc.pid), 1)
    finally:
        for server in (srv, ref, top):
            server.stop()
    _report(results)
    out = ROOT / "reports" / "bench.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"\nwrote {out.relative_to(ROOT)} (product access log: {log})")


if __name__ == "__main__":
    main()
