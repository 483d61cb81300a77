"""Benchmark: latency of the Slack slash command and GET /v1/query against a real server.

Starts uvicorn (uvloop + httptools, one worker) on a fresh migrated and seeded SQLite
database, then sends signed ``/gpucost break-even for 3090 at 15% util`` commands (each with
a unique ``trigger_id``, as Slack sends, so the replay check passes) from 1 and from 4
concurrent clients, and the same question to ``GET /v1/query``. Prints p50/p95/p99/max in ms
and writes ``reports/bench_slack.json``. Target (issue 3): Slack p99 < 100 ms.

    .venv/bin/python scripts/bench_slack.py [--requests 1000]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from scripts.loadlib import (  # noqa: E402
    QUESTION,
    ROOT,
    fresh_sqlite,
    percentiles,
    signed_slack_command,
    start_server,
)


def slack_request(client: httpx.Client, base: str) -> float:
    body, headers = signed_slack_command()
    t0 = time.perf_counter()
    r = client.post(f"{base}/slack/commands", content=body, headers=headers)
    elapsed = (time.perf_counter() - t0) * 1000
    assert r.status_code == 200 and r.json()["text"].startswith("Break-even: "), r.text
    return elapsed


def query_request(client: httpx.Client, base: str) -> float:
    t0 = time.perf_counter()
    r = client.get(f"{base}/v1/query", params={"q": QUESTION})
    elapsed = (time.perf_counter() - t0) * 1000
    assert r.status_code == 200 and r.json()["answered"], r.text
    return elapsed


def run(fn, base: str, n: int, concurrency: int) -> list[float]:
    def worker(count: int) -> list[float]:
        with httpx.Client(timeout=10) as client:
            return [fn(client, base) for _ in range(count)]

    per = [n // concurrency] * concurrency
    with ThreadPoolExecutor(concurrency) as pool:
        return [ms for chunk in pool.map(worker, per) for ms in chunk]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    server = start_server(fresh_sqlite())
    base = server.base
    try:
        run(slack_request, base, 50, 1)  # warm-up
        results = {
            "slack_break_even_1_client": percentiles(run(slack_request, base, args.requests, 1)),
            "slack_break_even_4_clients": percentiles(run(slack_request, base, args.requests, 4)),
            "query_break_even_1_client": percentiles(run(query_request, base, args.requests, 1)),
        }
    finally:
        server.stop()
    print(f"{'':30} {'n':>6} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for name, r in results.items():
        print(
            f"{name:30} {r['n']:>6} {r['p50_ms']:>8} {r['p95_ms']:>8} {r['p99_ms']:>8} "
            f"{r['max_ms']:>8}"
        )
    p99 = results["slack_break_even_1_client"]["p99_ms"]
    print(f"Slack p99 / 100 ms target: {p99 / 100:.2f}")
    out = ROOT / "reports" / "bench_slack.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"question": QUESTION, "results": results}, indent=2))
    print(f"written {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
