"""Request ids, JSON logs and Prometheus metrics.

* **Request id**: each request takes ``X-Request-ID`` from the caller (a proxy's, say) when it
  is a sane token, else gets a new one; it is echoed in the response header, put in every log
  line written while the request runs, and in the ``request_id`` of a 500 problem.
* **Logs**: one JSON object per line on stderr (python-json-logger) when
  ``GPUCOST_LOG_FORMAT=json`` (the production default in the Dockerfile), else plain text;
  an access line per request: method, route template, status, duration_ms, request_id.
* **Metrics** (``GET /metrics``, Prometheus text format): requests by method, route template and
  status; a latency histogram by route; the catalog revision and snapshot rebuilds. With
  several workers, set ``PROMETHEUS_MULTIPROC_DIR`` to an empty directory shared by them and
  every worker's counts are summed (prometheus-client's multiprocess mode).
"""

from __future__ import annotations

import logging
import os
import random
import re
import sys
from contextvars import ContextVar
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # metric files are written from the start
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)

request_id: ContextVar[str] = ContextVar("request_id", default="-")
_SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

REQUESTS = Counter(
    "gpucost_requests_total", "HTTP requests answered.", ["method", "route", "status"]
)
LATENCY = Histogram(
    "gpucost_request_duration_seconds",
    "Time spent in the application per request, s.",
    ["method", "route"],
    # prometheus-client's default buckets start at 5 ms; ours start at 1 ms because a
    # break-even takes ~1 ms (make bench, 2026-11-22), and end past Slack's 3 s reply limit.
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
CATALOG_REVISION = Gauge(
    "gpucost_catalog_revision",
    "Catalog revision of this worker's in-memory catalog view.",
    multiprocess_mode="max",
)
SNAPSHOT_BUILDS = Counter(
    "gpucost_snapshot_builds_total",
    "In-memory catalog views built (`current`: a new revision read; `dated`: an as_of view).",
    ["kind"],
)
DATABASE_ERRORS = Counter(
    "gpucost_database_errors_total", "Requests answered 503 because the database failed."
)


class _Children:
    """Labelled children of a metric, looked up once per label set: ``labels()`` takes a
    lock and validates the labels on every call, which the request path need not repeat."""

    def __init__(self, metric: Any) -> None:
        self.metric = metric
        self.children: dict[tuple[str, ...], Any] = {}

    def get(self, *labels: str) -> Any:
        child = self.children.get(labels)
        if child is None:
            child = self.children[labels] = self.metric.labels(*labels)
        return child


REQUEST_COUNTS = _Children(REQUESTS)
REQUEST_LATENCIES = _Children(LATENCY)


def new_request_id(given: str | None) -> str:
    """The caller's ``X-Request-ID`` when it is 1-128 safe characters, else 128 new random
    bits in hex (a correlation id, not a secret: Python's per-process generator, seeded from
    the OS, costs no system call, unlike ``uuid4``)."""
    if given and _SANE_ID.fullmatch(given):
        return given
    return f"{random.getrandbits(128):032x}"


class _RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


def configure_logging(fmt: str, level: str = "INFO") -> None:
    """Log to stderr: JSON lines (``fmt == "json"``) or text, each with the request id.

    Records skip what our lines never print (the Logging HOWTO's "Optimization" section):
    the caller's file and line, thread, process and multiprocessing names; ~13 us less per
    access line on this machine (2026-11-22)."""
    logging._srcfile = None  # no findCaller() per record
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_RequestIdFilter())
    if fmt == "json":
        # python-json-logger's orjson formatter: the same JSON lines, ~25 % cheaper per line
        # than its json one (20 vs 27 us, measured 2026-11-22), on every request's access line.
        from pythonjsonlogger.orjson import OrjsonFormatter

        handler.setFormatter(
            OrjsonFormatter(
                "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s",
                rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            )
        )
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")
        )
    log = logging.getLogger("gpucost")
    log.handlers[:] = [handler]
    log.setLevel(level)
    log.propagate = False


def metrics_body() -> tuple[bytes, str]:
    """The metrics in Prometheus text format, summed over workers in multiprocess mode."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # untyped in prometheus-client
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
