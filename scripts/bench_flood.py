"""Chart flood (gpucost issue 21): ``CLIENTS`` callers each POST the largest break-even sweep
chart (1,000 utilizations x 100 electricity prices, PNG) back to back for ``SECONDS`` seconds
against one worker, while a probe times ``GET /healthz`` every 50 ms. Prints the answers by
status, the probe's p50/p99/max, the worker's peak RSS and that of its drawing processes, for:

1. before issue 21: no render gate (opened wide), charts drawn in the worker's threads;
2. the render gate, drawing in threads (issue 21, part 2a);
3. the render gate and drawing processes (app/render/draw_pool.py): the defaults, with callers at
   many addresses (rate limits far above the flood);
4. every default, rate limits included: the flood comes from one address.

    make bench-flood        (or: python scripts/bench_flood.py)
"""

from __future__ import annotations

import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.settings import Settings  # noqa: E402
from scripts.loadlib import (  # noqa: E402
    children,
    fresh_sqlite,
    percentiles,
    rss_mb,
    start_server,
)

CLIENTS, SECONDS = 8, 10
SWEEP = {
    "desktop": {"gpu": "rtx-3090", "total_price_usd": 2200},
    "cloud": {"price_usd_per_hour": 2.14},
    "utilizations": [round(0.001 * i, 3) for i in range(1, 1001)],
    "electricity_prices_usd_per_kwh": [round(0.01 * i, 2) for i in range(1, 101)],
}


def flood(
    base: str,
    pid: int,
    *,
    clients: int = CLIENTS,
    seconds: float = SECONDS,
    probe_every_s: float = 0.05,
    addresses: bool = False,
) -> dict[str, Any]:
    """``clients`` callers post :data:`SWEEP` as a PNG chart to ``base`` back to back for
    ``seconds`` while a probe times ``GET /healthz`` every ``probe_every_s``; with
    ``addresses``, each caller comes from its own address (``X-Forwarded-For``, trusted from
    loopback as from a proxy). Returns the answers by status (0: no answer), the probe's
    statuses and latencies (:func:`percentiles`, ms), whether a request hung (a thread still
    running a minute after the end) and the peak RSS (MB) of the worker ``pid`` and of its
    drawing processes."""
    stop = threading.Event()
    answers: Counter[int] = Counter()
    probe_statuses: Counter[int] = Counter()
    probe: list[float] = []
    peak = [0.0, 0.0]

    def caller(n: int) -> None:
        headers = {"X-Forwarded-For": f"203.0.113.{n + 1}"} if addresses else {}
        with httpx.Client(base_url=base, timeout=60, headers=headers) as c:
            while not stop.is_set():
                try:
                    answers[c.post("/v1/charts/break-even-sweep", json=SWEEP).status_code] += 1
                except httpx.HTTPError:
                    answers[0] += 1

    def prober() -> None:
        with httpx.Client(base_url=base, timeout=10) as c:
            c.get("/healthz")  # the connection, not the flood
            while not stop.is_set():
                t = time.perf_counter()
                probe_statuses[c.get("/healthz").status_code] += 1
                probe.append((time.perf_counter() - t) * 1000)
                peak[0] = max(peak[0], rss_mb(pid))
                peak[1] = max(peak[1], sum(rss_mb(p) for p in children(pid)))
                time.sleep(probe_every_s)

    threads = [threading.Thread(target=caller, args=(n,)) for n in range(clients)]
    threads.append(threading.Thread(target=prober))
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(60)
    return {
        "answers": dict(sorted(answers.items())),
        "healthz": percentiles(probe),
        "healthz_statuses": dict(probe_statuses),
        "hung": any(t.is_alive() for t in threads),
        "peak_rss_mb": round(peak[0]),
        "drawing_processes_peak_rss_mb": round(peak[1]),
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
        srv = start_server(e)
        try:
            print(f"{CLIENTS} callers x {SECONDS} s, {name}: {flood(srv.base, srv.proc.pid)}")
        finally:
            srv.stop()


if __name__ == "__main__":
    main()
