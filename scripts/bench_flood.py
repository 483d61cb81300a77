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

Endpoint floods (gpucost issue 36): ``python scripts/bench_flood.py --endpoints [query as_of
plan mixed]`` starts one worker with every default setting (rate limits on) and, for each
flood, 40 callers at 40 loopback addresses (127.0.1.1 to 127.0.1.40, each its own source
address, so each has its own per-address budget) send requests paced to stay within their
address's budget for ``--seconds``, while a probe times ``GET /healthz`` every 20 ms:

* ``query``: ``GET /v1/query`` with the longest question the red team sent (a 470-digit
  number: ~80 ms of parsing each before issue 36);
* ``as_of``: ``POST /v1/break-even?as_of=<a different day each time>`` (a dated catalog view
  each);
* ``plan``: ``POST /v1/plan``, a 60-month demand over 8 desktops (~1-2.5 s of CPU each);
* ``mixed``: each caller cycles through the three and the largest sweep chart;
* ``llm``: ``POST /v1/llm/estimate`` naming 96 GPUs (24 distinct), paced as a light request
  (its budget before issue 48);
* ``break_even``: the control, seed 001's break-even (~2.5 ms) at the same rate: what the
  machine gives a worker answering 180 cheap requests a second.

Prints, per flood, the answers by status, the probe's p50/p99/max, and the worker's RSS
(peak during, and 5 s after the flood) and that of its child processes.
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
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
    BREAK_EVEN,
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


ADDRESSES = 40
LONG_QUESTION = "break-even for 3090 at " + "9" * 470 + "% util"
PLAN = {
    "gpu": "rtx-4090",
    # 60 months of demand between 0 and 20,000 GPU-hours (a fixed, varied pattern).
    "gpu_hours_per_month": [(i * 7919) % 20_000 for i in range(60)],
    "desktops": [
        {"gpu": g, "gpu_count": n} for g in ("rtx-4090", "rtx-3090") for n in (1, 2, 3, 4)
    ],
}
# An LLM estimate naming 100 GPUs (50 distinct, each twice): before issue 48 each name was
# estimated, and each scanned every offer, on the event loop.
LLM_ESTIMATE = {
    "model": "llama-3.1-70b",
    "task": "lora",
    "tokens": 2e8,
    "gpus": [
        g
        for g in [
            "h100-sxm",
            "h100-pcie",
            "h200",
            "a100-sxm4-80gb",
            "a100-sxm4-40gb",
            "a100-80gb",
            "l40s",
            "l40",
            "l4",
            "a10g",
            "a10",
            "tesla-t4",
            "v100-16gb",
            "v100-32gb",
            "rtx-4090",
            "rtx-4080",
            "rtx-3090",
            "rtx-3080",
            "rtx-5090",
            "rtx-5080",
            "rtx-a6000",
            "rtx-6000-ada",
            "a40",
            "b200",
        ]
    ]
    * 4,
}
# Requests per second one address may send within the default budgets (300 a minute, 20
# heavy a minute), at 90 % of them.
GENERAL_PER_S, HEAVY_PER_S = 0.9 * 300 / 60, 0.9 * 20 / 60


def _request(kind: str, n: int, i: int) -> tuple[str, str, dict[str, Any]]:
    """(method, path, httpx keyword arguments) of caller ``n``'s ``i``-th request."""
    if kind == "mixed":
        kind = ("query", "as_of", "plan", "chart")[(n + i) % 4]
    if kind == "query":
        return "GET", "/v1/query", {"params": {"q": LONG_QUESTION}}
    if kind == "as_of":
        day = dt.date(2020, 1, 1) + dt.timedelta(days=(n * 997 + i * 31) % 2000)
        return "POST", "/v1/break-even", {"params": {"as_of": day.isoformat()}, "json": BREAK_EVEN}
    if kind == "plan":
        return "POST", "/v1/plan", {"json": PLAN}
    if kind == "llm":  # every GPU asked for twice (100 names: the most a request may name)
        return "POST", "/v1/llm/estimate", {"json": LLM_ESTIMATE}
    if kind == "break_even":  # the control: a cheap calculation at the same rate
        return "POST", "/v1/break-even", {"json": BREAK_EVEN}
    return "POST", "/v1/charts/break-even-sweep", {"json": SWEEP}


def _pace(kind: str, n: int, i: int) -> float:
    """Seconds between caller ``n``'s requests, within its address's budgets."""
    method, path, _ = _request(kind, n, i)
    heavy = path.startswith(("/v1/plan", "/v1/charts"))
    return 1 / HEAVY_PER_S if heavy else 1 / GENERAL_PER_S


def _probe(base: str, pid: int, ready: Any, stop: Any, results: Any) -> None:
    """Open a connection with one untimed ``GET /healthz`` and set ``ready``, then time
    ``GET /healthz`` every 20 ms until ``stop`` is set; put (latencies in ms, how many timed
    out, peak RSS of the worker ``pid`` and of its children, MB) on ``results``."""
    probe: list[float] = []
    timeouts, peak_worker, peak_children = 0, 0.0, 0.0
    with httpx.Client(base_url=base, timeout=30) as c:
        c.get("/healthz")  # the connection and this process's first request, not timed
        ready.set()
        while not stop.is_set():
            t = time.perf_counter()
            try:
                c.get("/healthz")
            except httpx.HTTPError:  # counted at the time it took (the timeout)
                timeouts += 1
            probe.append((time.perf_counter() - t) * 1000)
            peak_worker = max(peak_worker, rss_mb(pid))
            peak_children = max(peak_children, sum(rss_mb(p) for p in children(pid)))
            time.sleep(0.02)
    results.put((probe, timeouts, peak_worker, peak_children))


def endpoint_flood(
    base: str, pid: int, kind: str, *, seconds: float = 10, addresses: int = ADDRESSES
) -> dict[str, Any]:
    """``addresses`` callers, each from its own loopback address, send ``kind`` requests
    (see the module docstring) paced within their budgets for ``seconds`` while a probe times
    ``/healthz`` every 20 ms; the answers by status (0: no answer; ``no_answer`` counts them
    by request and error), the probe's latencies (ms), and the worker's RSS (MB): peak
    during, and 5 s after."""
    stop = threading.Event()
    answers: Counter[int] = Counter()
    errors: Counter[str] = Counter()
    probe: list[float] = []
    peak = [0.0, 0.0]
    timeouts = [0]

    def caller(n: int) -> None:
        # An idle connection is dropped by the client after 2 s, before uvicorn's 5 s
        # keep-alive timeout closes it: a heavy caller waits 3.3 s between requests, and a
        # starved client thread sending at the moment the server closes would count a
        # "server disconnected" that no status describes.
        transport = httpx.HTTPTransport(
            local_address=f"127.0.1.{n + 1}", limits=httpx.Limits(keepalive_expiry=2.0)
        )
        with httpx.Client(base_url=base, timeout=60, transport=transport) as c:
            i = 0
            next_at = time.monotonic() + (n / addresses) * _pace(kind, n, 0)  # spread starts
            while not stop.wait(max(0.0, next_at - time.monotonic())):
                method, path, kwargs = _request(kind, n, i)
                try:
                    answers[c.request(method, path, **kwargs).status_code] += 1
                except httpx.HTTPError as e:
                    answers[0] += 1
                    errors[f"{method} {path}: {type(e).__name__}: {e}"] += 1
                next_at += _pace(kind, n, i)
                i += 1

    # The probe runs in a process of its own: in a thread beside 40 callers it would wait for
    # this process's interpreter lock and measure the load generator, not the server.
    ctx = multiprocessing.get_context("spawn")
    stop_probe, probe_ready = ctx.Event(), ctx.Event()
    results: Any = ctx.Queue()
    probe_proc = ctx.Process(target=_probe, args=(base, pid, probe_ready, stop_probe, results))
    probe_proc.start()
    # A spawned probe takes a second or more to start on a busy machine: the flood starts
    # once it is timing, so the whole flood is probed.
    if not probe_ready.wait(120):
        raise RuntimeError("the /healthz probe did not start within 120 s")
    threads = [threading.Thread(target=caller, args=(n,)) for n in range(addresses)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    stop_probe.set()
    probe, timeouts[0], peak[0], peak[1] = results.get(timeout=120)
    probe_proc.join(30)
    for t in threads:
        t.join(60)
    time.sleep(5)
    return {
        "answers": dict(sorted(answers.items())),
        "no_answer": dict(errors),
        "healthz": percentiles(probe) if len(probe) > 1 else probe,
        "healthz_timeouts": timeouts[0],
        "hung": any(t.is_alive() for t in threads),
        "worker_peak_rss_mb": round(peak[0]),
        "worker_rss_after_mb": round(rss_mb(pid)),
        "children_peak_rss_mb": round(peak[1]),
    }


def endpoints_main(kinds: list[str], seconds: float) -> None:
    env = fresh_sqlite()
    defaults = Settings.model_fields
    limits = {
        f"GPUCOST_RATE_LIMIT_{n.upper()}": str(defaults[f"rate_limit_{n}"].default)
        for n in ("anonymous", "anonymous_heavy", "key", "key_heavy")
    }
    for kind in kinds:
        srv = start_server({**env, **limits})
        try:
            idle = rss_mb(srv.proc.pid)
            out = endpoint_flood(srv.base, srv.proc.pid, kind, seconds=seconds)
            print(
                f"{kind} flood, {ADDRESSES} addresses x {seconds:g} s (RSS idle {idle:.0f} MB): {out}"
            )
        finally:
            srv.stop()


def limiter_memory(entries: int = 50_000) -> None:
    """Fill one worker's in-memory rate-limit table (``rate_limit_max_entries`` counters)
    from IPv6 addresses sending heavy requests, and print its size (tracemalloc)."""
    import asyncio
    import gc
    import tracemalloc

    from app.api.rate_limit import RateLimits

    class App:
        dependency_overrides: dict[str, Any] = {}

    tracemalloc.start()
    limits = RateLimits(Settings(rate_limit_max_entries=entries))
    gc.collect()
    base = tracemalloc.get_traced_memory()[0]

    async def fill() -> None:
        for n in range(entries):
            host = f"2001:db8:{n:x}:ffff:ffff:ffff:ffff:ffff"
            await limits.check({"client": (host, 1), "app": App()}, None, heavy=True)

    asyncio.run(fill())
    gc.collect()
    used = tracemalloc.get_traced_memory()[0] - base
    n = len(limits.memory_keys)
    print(f"{n} counters: {used / 1e6:.1f} MB, {used // n} bytes each")


def main() -> None:
    if "--limiter-memory" in sys.argv:
        limiter_memory()
        return
    if "--endpoints" in sys.argv:
        args = sys.argv[sys.argv.index("--endpoints") + 1 :]
        seconds = 10.0
        if "--seconds" in args:
            at = args.index("--seconds")
            seconds = float(args[at + 1])
            del args[at : at + 2]
        endpoints_main(args or ["query", "as_of", "plan", "mixed"], seconds)
        return
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
