"""In-process timings of the use cases through the whole app (``TestClient``, rate limits
off), one run, medians and ratios to a seed break-even: the targets of gpucost issue 42.

    .venv/bin/python scripts/bench_usecases.py [--repeat 30] [--extra-offers 15000]

Measured, each the median of ``--repeat`` calls after two warm-up calls:

* ``POST /v1/break-even`` (seed 001's request);
* ``POST /v1/llm/estimate`` over every GPU with a tensor figure (Llama 3.1 8B LoRA);
* ``POST /v1/compare`` over the whole catalog (the schema example: StyleGAN-XL, 200 runs a month).

With ``--extra-offers N`` the catalog is then grown by N on-demand offers (an admin import
of synthetic rows, in a scratch database) and the LLM estimate, the compare and a
``GET /v1/cloud-offers`` listing (the grown GPU's offers, first page) timed again: each one's
growth per added offer (targets <= 1 us, issues 42 and 43). Needs a migrated, seeded database in ``GPUCOST_DATABASE_URL``
(a scratch SQLite file is made when unset). Not a test: it measures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SEED = {
    "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
    "cloud": {"price_usd_per_hour": 2.14},
    "utilization": 0.15,
    "electricity_price_usd_per_kwh": 0.12,
}
LLM = {"model": "llama-3.1-8b", "task": "lora", "tokens": 10_000_000}
COMPARE = {"workload": {"benchmark": "stylegan_xl"}, "runs_per_month": 200, "limit": 5}


def _median_ms(call: Any, repeat: int) -> float:
    for _ in range(2):
        call()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        call()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def _post(client: Any, path: str, body: dict[str, Any]) -> Any:
    def call() -> None:
        r = client.post(path, json=body)
        assert r.status_code == 200, r.text

    return call


def _get(client: Any, path: str, params: dict[str, Any]) -> Any:
    def call() -> None:
        r = client.get(path, params=params)
        assert r.status_code == 200, r.text

    return call


def _grow(client: Any, key: str, n: int) -> None:
    rows = ["provider,instance_type,gpu_id,gpu_count,pricing_model,price_usd_per_hour"]
    rows += [f"lambda,bench-{i},a100-40gb,1,on_demand,{1 + i / n:.4f}" for i in range(n)]
    r = client.post(
        "/v1/admin/imports",
        params={"filename": "bench.csv"},
        content=("\n".join(rows) + "\n").encode(),
        headers={"X-API-Key": key, "content-type": "text/csv"},
    )
    assert r.status_code == 200, r.text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--extra-offers", type=int, default=0)
    args = parser.parse_args()
    scratch = tempfile.mkdtemp(prefix="gpucost-bench-")
    if "GPUCOST_DATABASE_URL" not in os.environ:
        os.environ["GPUCOST_DATABASE_URL"] = f"sqlite:///{scratch}/bench.db"
        for step in (["migrate"], ["seed"]):
            subprocess.run([sys.executable, "-m", "app.cli", *step], check=True, cwd=ROOT)
    os.environ["GPUCOST_RATE_LIMITS_ENABLED"] = "false"
    os.environ["GPUCOST_LOG_LEVEL"] = "WARNING"
    from fastapi.testclient import TestClient

    from app.main import create_app

    with TestClient(create_app()) as client:
        be = _median_ms(_post(client, "/v1/break-even", SEED), args.repeat)
        llm = _median_ms(_post(client, "/v1/llm/estimate", LLM), args.repeat)
        cmp_ = _median_ms(_post(client, "/v1/compare", COMPARE), args.repeat)
        print(f"break-even      {be:8.2f} ms")
        print(f"llm estimate    {llm:8.2f} ms  {llm / be:6.1f}x break-even (target <= 4x)")
        print(f"compare         {cmp_:8.2f} ms  {cmp_ / be:6.1f}x break-even")
        if args.extra_offers:
            out = subprocess.run(
                [sys.executable, "-m", "app.cli", "keys", "create", "bench", "--scope", "write"],
                check=True, cwd=ROOT, capture_output=True, text=True,
            ).stdout  # fmt: skip
            key = next(word for word in out.split() if word.startswith("gpc_"))
            listing = _get(client, "/v1/cloud-offers", {"gpu": "a100-40gb", "limit": 50})
            before = {"cloud-offers": _median_ms(listing, args.repeat)}
            _grow(client, key, args.extra_offers)
            after = {
                "llm estimate": _median_ms(_post(client, "/v1/llm/estimate", LLM), args.repeat),
                "compare": _median_ms(_post(client, "/v1/compare", COMPARE), args.repeat),
                "cloud-offers": _median_ms(listing, args.repeat),
            }
            before |= {"llm estimate": llm, "compare": cmp_}
            for name, grown in after.items():
                per = (grown - before[name]) * 1000 / args.extra_offers
                print(
                    f"{name} +{args.extra_offers} offers {before[name]:8.2f} -> {grown:8.2f} ms: "
                    f"{per:+.2f} us per added offer (target <= 1 us)"
                )


if __name__ == "__main__":
    main()
