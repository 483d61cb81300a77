"""Chart flood (gpucost issue 21): ``CLIENTS`` callers each POST the largest break-even sweep
chart (1,000 utilizations x 100 electricity prices, PNG) back to back for ``SECONDS`` seconds
against one worker, while a probe times ``GET /healthz`` every 50 ms. Prints the answers by
status, the probe's p50/p99/max, the worker's peak RSS and that of its drawing processes, for:

1. before issue 21: no render gate (opened wide), charts drawn in the worker's threads;
2. the render gate, drawing in threads (issue 21, part 2a);
3. the render gate and drawing processes (app/draw_pool.py): the defaults, with callers at
   many addresses (rate limits far above the flood);
4. every default, rate limits included: the flood comes from one address.

    make bench-flood        (or: python scripts/bench_flood.py)
"""

from __future__ import annotations

import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.settings import Settings  # noqa: E402
from scripts.loadlib import children, fresh_sqlite, start_server  # noqa: E402

CLIENTS, SECONDS = 8, 10
SWEEP = {
    "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
    "cloud": {"price_usd_per_hour": 2.14},
    "utilizations": [round(0.001 * i, 3) for i in range(1, 1001)],
    "electricity_prices_usd_per_kwh": [round(0.01 * i, 2) for i in range(1, 101)],
}


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def flood(env: dict[str, str]) -> dict[str, object]:
    srv = start_server(env)
    stop = threading.Event()
    statuses: Counter[int] = Counter()
    probe: list[float] = []
    peak = [0, 0]

    def caller() -> None:
        with httpx.Client(base_url=srv.base, timeout=60) as c:
            while not stop.is_set():
                try:
                    statuses[c.post("/v1/charts/break-even-sweep", json=SWEEP).status_code] += 1
                except httpx.HTTPError:
                    statuses[0] += 1

    def prober() -> None:
        with httpx.Client(base_url=srv.base, timeout=10) as c:
            while not stop.is_set():
                t = time.perf_counter()
                c.get("/healthz")
                probe.append((time.perf_counter() - t) * 1000)
                peak[0] = max(peak[0], _rss_kb(srv.proc.pid))
                peak[1] = max(peak[1], sum(_rss_kb(p) for p in children(srv.proc.pid)))
                time.sleep(0.05)

    threads = [threading.Thread(target=caller) for _ in range(CLIENTS)]
    threads.append(threading.Thread(target=prober))
    try:
        for t in threads:
            t.start()
        time.sleep(SECONDS)
        stop.set()
        for t in threads:
            t.join(120)
    finally:
        srv.stop()
    probe.sort()
    return {
        "answers": dict(sorted(statuses.items())),
        "healthz_p50_ms": round(statistics.median(probe), 1),
        "healthz_p99_ms": round(probe[int(0.99 * (len(probe) - 1))], 1),
        "healthz_max_ms": round(probe[-1], 1),
        "peak_rss_mb": round(peak[0] / 1024),
        "drawing_processes_peak_rss_mb": round(peak[1] / 1024),
    }


def main() -> None:
    env = fresh_sqlite()
    wide = {"GPUCOST_RENDER_MAX_RUNNING": "64", "GPUCOST_RENDER_MAX_WAITING": "1000"}
    threads = {"GPUCOST_RENDER_PROCESSES": "false"}
    defaults = Settings.model_fields
    limits = {
        f"GPUCOST_RATE_LIMIT_{n.upper()}": str(defaults[f"rate_limit_{n}"].default)
        for n in ("anonymous", "anonymous_heavy", "key", "key_heavy")
    }
    runs = (
        ("1. no gate, drawing in threads (before issue 21)", {**env, **wide, **threads}),
        ("2. gate, drawing in threads", {**env, **threads}),
        ("3. gate and drawing processes, many addresses", env),
        ("4. every default, one address (rate limits on)", {**env, **limits}),
    )
    for name, e in runs:
        print(f"{CLIENTS} callers x {SECONDS} s, {name}: {flood(e)}", flush=True)


if __name__ == "__main__":
    main()
