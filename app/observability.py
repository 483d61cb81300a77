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

Both the access line and the request metrics come from :func:`record_request`, which only
queues the request: at the end of the event loop's turn the queued requests are counted
(one metric update per label set) and their access lines formatted and written together
(:class:`_Requests`)."""

from __future__ import annotations

import asyncio
import atexit
import bisect
import logging
import os
import random
import re
import sys
import threading
import time
from collections import deque
from contextvars import ContextVar
from typing import Any

import orjson
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
# prometheus-client's default buckets start at 5 ms; ours start at 1 ms because a
# break-even takes ~1 ms (make bench, 2026-11-22), and end past Slack's 3 s reply limit.
LATENCY_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
LATENCY = Histogram(
    "gpucost_request_duration_seconds",
    "Time spent in the application per request, s.",
    ["method", "route"],
    buckets=LATENCY_BUCKETS_S,
)
CATALOG_REVISION = Gauge(
    "gpucost_catalog_revision",
    "Catalog revision of this worker's in-memory catalog view.",
    multiprocess_mode="max",
)
PRICE_AGE_DAYS = Gauge(
    "gpucost_catalog_price_age_days",
    "Age of each provider's newest current price, days (set when /metrics or /readyz is read).",
    ["provider"],
    multiprocess_mode="mostrecent",
)
LAST_REFRESH = Gauge(
    "gpucost_catalog_last_refresh_success_timestamp_seconds",
    "When `gpucost catalog refresh` last passed the integrity gate for a provider, Unix s "
    "(0: never).",
    ["provider"],
    multiprocess_mode="mostrecent",
)
OWNED_RATE = Gauge(
    "gpucost_owned_rate_usd_per_gpu_hour",
    "All-in owned rate of each partition of the server's machines file (GPUCOST_MACHINES_FILE), "
    "USD per GPU-hour, as POST /v1/owned-rates/skypilot-slurm writes it (set when /metrics is "
    "read).",
    ["gpu", "cluster", "partition", "site"],
    multiprocess_mode="mostrecent",
)
SNAPSHOT_BUILDS = Counter(
    "gpucost_snapshot_builds_total",
    "In-memory catalog views built (`current`: a new revision read; `dated`: an as_of view).",
    ["kind"],
)
DEGRADED = Gauge(
    "gpucost_degraded",
    "1 while a component of this worker runs degraded (`catalog`: the newest revision cannot "
    "be built, the last good view answers; `rate_limits`: Redis unreachable, limits counted "
    "per worker), else 0.",
    ["component"],
    multiprocess_mode="max",
)
DEPENDENCY_ERRORS = Counter(
    "gpucost_dependency_errors_total",
    "Failures of a dependency that the service survived by falling back (`redis`: a rate-limit "
    "count made in the worker's memory instead; `catalog`: a revision that could not be built).",
    ["dependency"],
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
# Requests queued in the event loop's current turn, at most (then handled at once).
REQUESTS_BATCH = 256
# Seconds after which requests queued on a loop that never ran its turn's end (a test
# client's loop ended) are handled by the next request.
STALE_QUEUE_S = 1.0

Record = tuple[float, str, str, str, int, float]  # Unix time s, id, method, route, status, s


class _Requests:
    """Requests answered but not yet counted or logged: :meth:`add` queues one (a tuple on
    a deque: no lock, no formatting, no metric update on the request path) and, once per
    event-loop turn, schedules :meth:`handle_queued` with ``call_soon``. Handling them in
    one pass costs ~10 us less per request under load than a metric update and an access
    line per request (wrk against the server, 2026-11-24)."""

    def __init__(self) -> None:
        self.queue: deque[Record] = deque()  # append and popleft are atomic
        self.lock = threading.RLock()  # one handler at a time, so lines leave in order
        self.due: float | None = None  # Unix time the queued requests were scheduled
        # Handle each request at once: the log goes to a stream without a file descriptor
        # (a test's StringIO, read right after the request).
        self.at_once = False

    def add(self, method: str, route: str, status: int, elapsed_s: float) -> None:
        """Queue one request (event loop or any thread); without an event loop, with
        :data:`REQUESTS_BATCH` queued or a stale queue, handle them now."""
        now = time.time()
        self.queue.append((now, request_id.get(), method, route, status, elapsed_s))
        if self.at_once:
            pass
        elif self.due is None:
            self.due = now
            try:
                asyncio.get_running_loop().call_soon(self.handle_queued)
                return
            except RuntimeError:  # no event loop in this thread
                pass
        elif len(self.queue) < REQUESTS_BATCH and now - self.due < STALE_QUEUE_S:
            return
        self.handle_queued()

    def handle_queued(self) -> None:
        """Count every queued request in the metrics and write their access lines."""
        with self.lock:
            self.due = None
            records: list[Record] = []
            while self.queue:
                records.append(self.queue.popleft())
            if records:
                _count(records)
                _log(records)


def _count(records: list[Record]) -> None:
    """Add ``records`` to the request counter and latency histogram: one update per label
    set and value (locked, and memory-mapped file writes in multiprocess mode)."""
    rows: dict[tuple[str, str, int], list[float]] = {}
    for _, _, method, route, status, elapsed_s in records:
        row = rows.get((method, route, status))
        if row is None:
            row = rows[(method, route, status)] = [0.0] * (len(LATENCY_BUCKETS_S) + 3)
        row[0] += 1
        row[1] += elapsed_s
        row[2 + bisect.bisect_left(LATENCY_BUCKETS_S, elapsed_s)] += 1  # le semantics
    for (method, route, status), row in rows.items():
        REQUEST_COUNTS.get(method, route, str(status)).inc(row[0])
        histogram = REQUEST_LATENCIES.get(method, route)
        # Histogram.observe adds one value; its sum and (per-bucket, not cumulative)
        # bucket values take a total.
        histogram._sum.inc(row[1])
        for bucket, count in zip(histogram._buckets, row[2:], strict=True):
            if count:
                bucket.inc(count)


_REQUESTS = _Requests()
atexit.register(_REQUESTS.handle_queued)  # before logging.shutdown (registered earlier)


def record_request(method: str, route: str, status: int, elapsed_s: float) -> None:
    """Count one answered request (``route``: its template, a bounded label set) with its
    duration ``elapsed_s`` (s) in the metrics and write its access line (at INFO on
    ``gpucost.access``: method, route, status, ``duration_ms`` rounded to 1 us, the request
    id), both at the end of the event loop's turn (see :class:`_Requests`); this worker's
    ``/metrics`` counts every request recorded before it."""
    _REQUESTS.add(method, route, status, elapsed_s)


_degraded: dict[str, str] = {}


def set_degraded(component: str, reason: str | None) -> None:
    """Mark ``component`` degraded for ``reason`` (None: healthy again); ``/readyz`` lists
    :func:`degraded` and the ``gpucost_degraded`` gauge follows."""
    if reason is None:
        _degraded.pop(component, None)
    else:
        _degraded[component] = reason
    DEGRADED.labels(component).set(0 if reason is None else 1)


def degraded() -> dict[str, str]:
    """This worker's degraded components and why (empty: none)."""
    return dict(_degraded)


def new_request_id(given: str | None) -> str:
    """The caller's ``X-Request-ID`` when it is 1-128 safe characters, else 128 new random
    bits in hex (a correlation id, not a secret: Python's per-process generator, seeded from
    the OS, costs no system call, unlike ``uuid4``)."""
    if given and _SANE_ID.fullmatch(given):
        return given
    return f"{random.getrandbits(128):032x}"


class _RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if "request_id" not in record.__dict__:  # an access record brings its own
            record.request_id = request_id.get()
        return True


# Bytes of whole lines per write, at most: a pipe (a container's stderr) takes a write of
# up to PIPE_BUF (4096 on Linux) whole, never interleaved with another worker's.
WRITE_CHUNK = 4096


class _Lines(logging.StreamHandler):  # type: ignore[type-arg]  # generic only in typeshed
    """The handler :func:`configure_logging` installs: a ``StreamHandler`` that also writes
    access lines itself (:meth:`write_access`), in the line format of its formatter
    (``json_lines``: python-json-logger's fields, else the text format). Any other record
    is written after the access lines still queued (:class:`_Requests`), so lines stay in
    order."""

    def __init__(self, json_lines: bool) -> None:
        super().__init__(sys.stderr)
        self.json_lines = json_lines
        self._second = -1
        self._stamp = ""
        self._fd: int | None = None
        self._fd_of: object = None

    def setStream(self, stream: Any) -> Any:  # noqa: N802 - logging's name
        """Write to ``stream`` from now on; requests are then logged at once when it has no
        file descriptor (:attr:`_Requests.at_once`)."""
        old = super().setStream(stream)
        _REQUESTS.at_once = self._fileno() is None
        return old

    def _asctime(self, now: float) -> str:
        """``logging.Formatter``'s default ``asctime`` of Unix time ``now`` (local time,
        milliseconds after a comma); the date part is formatted once a second."""
        second = int(now)
        if second != self._second:
            self._stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
            self._second = second
        return f"{self._stamp},{int((now - second) * 1000):03d}"

    def _fileno(self) -> int | None:
        """The file descriptor of the stream (None for one without, e.g. a ``StringIO``),
        looked up once per stream."""
        if self._fd_of is not self.stream:
            try:
                self._fd = self.stream.fileno()
            except (AttributeError, OSError, ValueError):
                self._fd = None
            self._fd_of = self.stream
        return self._fd

    def _line(self, now: float, rid: str, method: str, route: str, status: int, s: float) -> bytes:
        """One access line in UTF-8, newline included (``s``: the request's duration,
        seconds): what ``access.info`` with the fields as extras writes through this
        handler's formatter (tests/unit/test_access_log.py)."""
        message = f"{method} {route} {status} {s * 1000:.1f} ms"
        if not self.json_lines:
            return f"{self._asctime(now)} INFO {ACCESS_LOGGER} [{rid}] {message}\n".encode()
        fields = {
            "time": self._asctime(now),
            "level": "INFO",
            "logger": ACCESS_LOGGER,
            "message": message,
            "request_id": rid,
            "method": method,
            "route": route,
            "status": status,
            "duration_ms": round(s * 1000, 3),
        }
        return orjson.dumps(fields, option=orjson.OPT_APPEND_NEWLINE)

    def write_access(self, records: list[Record]) -> None:
        """Write the access lines of ``records``: to the stream's file descriptor in
        ``os.write`` calls of whole lines, at most :data:`WRITE_CHUNK` bytes each (else with
        the stream's ``write``)."""
        self.acquire()
        try:
            lines = [self._line(*r) for r in records]
            fd = self._fileno()
            if fd is None:
                self.stream.write(b"".join(lines).decode())
                self.flush()
                return
            self.stream.flush()  # what other records left in its buffer goes first
            chunk: list[bytes] = []
            size = 0
            for line in lines:
                if chunk and size + len(line) > WRITE_CHUNK:
                    _write_all(fd, b"".join(chunk))
                    chunk, size = [], 0
                chunk.append(line)
                size += len(line)
            _write_all(fd, b"".join(chunk))
        except Exception:  # noqa: BLE001 - as StreamHandler.emit: report, never raise
            self.handleError(logging.makeLogRecord({"msg": f"{len(records)} access lines"}))
        finally:
            self.release()

    def handle(self, record: logging.LogRecord) -> bool:
        """Write ``record`` after the access lines still queued (outside this handler's
        lock: the queue's lock is always taken first)."""
        if _REQUESTS.queue:
            _REQUESTS.handle_queued()
        return super().handle(record)


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (one system call unless the kernel takes less)."""
    written = os.write(fd, data)
    while written < len(data):
        written += os.write(fd, data[written:])


ACCESS_LOGGER = "gpucost.access"
_ACCESS = logging.getLogger(ACCESS_LOGGER)
_GPUCOST = logging.getLogger("gpucost")


def _log(records: list[Record]) -> None:
    """The access lines of ``records``, at INFO on ``gpucost.access``. When the only handler
    is the one :func:`configure_logging` installed (and nobody added handlers or filters),
    it writes them itself (:meth:`_Lines.write_access`); otherwise one standard ``logging``
    call per request, so any other setup still sees every record."""
    if not _ACCESS.isEnabledFor(logging.INFO):
        return
    handlers = _GPUCOST.handlers
    if (
        len(handlers) == 1
        and isinstance(handlers[0], _Lines)
        and len(handlers[0].filters) == 1
        and handlers[0].level <= logging.INFO
        and not _ACCESS.handlers
        and not _ACCESS.filters
        and not _GPUCOST.filters
        and not _GPUCOST.propagate
        and _ACCESS.propagate
    ):
        handlers[0].write_access(records)
        return
    for _, rid, method, route, status, elapsed_s in records:
        _ACCESS.info(
            "%s %s %s %.1f ms",
            method,
            route,
            status,
            elapsed_s * 1000,
            extra={
                "method": method,
                "route": route,
                "status": status,
                "duration_ms": round(elapsed_s * 1000, 3),
                "request_id": rid,
            },
        )


def configure_logging(fmt: str, level: str = "INFO") -> None:
    """Log to stderr: JSON lines (``fmt == "json"``) or text, each with the request id.

    Records skip what our lines never print (the Logging HOWTO's "Optimization" section):
    the caller's file and line, thread, process and multiprocessing names; ~13 us less per
    access line on this machine (2026-11-22)."""
    logging._srcfile = None  # no findCaller() per record
    logging.logThreads = False
    logging.logProcesses = False
    logging.logMultiprocessing = False
    handler = _Lines(json_lines=fmt == "json")
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
    _REQUESTS.at_once = handler._fileno() is None
    log = logging.getLogger("gpucost")
    log.handlers[:] = [handler]
    log.setLevel(level)
    log.propagate = False


def metrics_body() -> tuple[bytes, str]:
    """The metrics in Prometheus text format, summed over workers in multiprocess mode
    (this worker's queued requests counted first)."""
    _REQUESTS.handle_queued()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # untyped in prometheus-client
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
