"""Request ids, JSON logs and Prometheus metrics.

* **Request id**: each request takes ``X-Request-ID`` from the caller (a proxy's, say) when it
  is a sane token, else gets a new one; it is echoed in the response header, put in every log
  line written while the request runs, and in the ``request_id`` of a 500 problem.
* **Logs**: one JSON object per line on stderr (python-json-logger) when
  ``GPUCOST_LOG_FORMAT=json`` (the production default in the Dockerfile), else plain text;
  an access line per request: method, route template, status, duration_ms, request_id
  (:func:`log_access`: the same line, formatted and written without a ``LogRecord``).
* **Metrics** (``GET /metrics``, Prometheus text format): requests by method, route template and
  status; a latency histogram by route; the catalog revision and snapshot rebuilds. With
  several workers, set ``PROMETHEUS_MULTIPROC_DIR`` to an empty directory shared by them and
  every worker's counts are summed (prometheus-client's multiprocess mode). Requests are
  tallied in a dict on the request path and added to the metrics at most
  :data:`METRICS_FLUSH_S` later, and before this worker answers ``/metrics``
  (:func:`observe_request`).
"""

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
# Seconds at most between a request and its count in the Prometheus metrics.
METRICS_FLUSH_S = 1.0


class _Tally:
    """Requests answered but not yet added to the Prometheus metrics, per (method, route
    template, status): ``[count, duration sum s, then a count per latency bucket (not
    cumulative, +Inf last)]``. Adding them once a second instead of per request saves the
    three locked value updates of ``Counter.inc`` and ``Histogram.observe`` (memory-mapped
    file writes in multiprocess mode) on every request."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str, int], list[float]] = {}
        self.lock = threading.Lock()  # /metrics flushes from a worker thread
        self.due: float | None = None  # monotonic time of the scheduled flush, s

    def add(self, method: str, route: str, status: int, elapsed_s: float) -> None:
        """Tally one request (event loop or any thread); schedule a flush on the running
        event loop, or flush now without one or when a scheduled flush never ran (its loop
        ended, as a test client's does)."""
        now = time.monotonic()
        with self.lock:
            row = self.rows.get((method, route, status))
            if row is None:
                row = self.rows[(method, route, status)] = [0.0] * (len(LATENCY_BUCKETS_S) + 3)
            row[0] += 1
            row[1] += elapsed_s
            row[2 + bisect.bisect_left(LATENCY_BUCKETS_S, elapsed_s)] += 1
            due, late = self.due, self.due is not None and now > self.due + METRICS_FLUSH_S
            if due is None:
                self.due = now + METRICS_FLUSH_S
        if late:
            self.flush()
        elif due is None:
            try:
                asyncio.get_running_loop().call_later(METRICS_FLUSH_S, self.flush)
            except RuntimeError:  # no event loop in this thread
                self.flush()

    def flush(self) -> None:
        """Add every tallied request to the Prometheus metrics."""
        with self.lock:
            rows, self.rows, self.due = self.rows, {}, None
        for (method, route, status), row in rows.items():
            REQUEST_COUNTS.get(method, route, str(status)).inc(row[0])
            histogram = REQUEST_LATENCIES.get(method, route)
            # Histogram.observe adds one value; its sum and bucket values take a total.
            histogram._sum.inc(row[1])
            for bucket, count in zip(histogram._buckets, row[2:], strict=True):
                if count:
                    bucket.inc(count)


_TALLY = _Tally()
atexit.register(_TALLY.flush)


def observe_request(method: str, route: str, status: int, elapsed_s: float) -> None:
    """Count one answered request (``route``: its template, a bounded label set) and record
    its duration ``elapsed_s`` (s) in the latency histogram; both appear in the metrics
    within :data:`METRICS_FLUSH_S` s (at once in this worker's ``/metrics``)."""
    _TALLY.add(method, route, status, elapsed_s)


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


# Access lines waiting in the event loop's current turn, at most (then written at once).
ACCESS_BATCH = 256
# Bytes of whole lines per write, at most: a pipe (a container's stderr) takes a write of
# up to PIPE_BUF (4096 on Linux) whole, never interleaved with another worker's.
WRITE_CHUNK = 4096


class _Lines(logging.StreamHandler):  # type: ignore[type-arg]  # generic only in typeshed
    """The handler :func:`configure_logging` installs: a ``StreamHandler`` that can also
    write access lines itself (:meth:`access`), in the line format of its formatter
    (``json_lines``: python-json-logger's fields, else the text format).

    To a stream with a file descriptor (stderr), access lines are queued and written at the
    end of the event loop's turn (``call_soon``), formatted in one loop and written in as few
    ``os.write`` calls as fit :data:`WRITE_CHUNK`: under load, ~10 us less per request than a
    line formatted and written per request (wrk against the server, 2026-11-24). Any other
    record written through this handler first writes the queued lines, so lines stay in
    order. Without an event loop, or with :data:`ACCESS_BATCH` lines queued, or a queued
    write whose loop never ran it (a test client's loop ended), they are written at once."""

    def __init__(self, json_lines: bool) -> None:
        super().__init__(sys.stderr)
        self.json_lines = json_lines
        self._second = -1
        self._stamp = ""
        self._fd: int | None = None
        self._fd_of: object = None
        # (Unix time s, request id, method, route, status, seconds); appended and popped
        # whole (a deque's append and popleft are atomic), from any thread.
        self._queued: deque[tuple[float, str, str, str, int, float]] = deque()
        self._due: float | None = None  # monotonic time the queued lines were scheduled

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

    def _line(self, now: float, rid: str, method: str, route: str, status: int, s: float) -> str:
        """One access line, newline included (``s``: the request's duration, seconds)."""
        message = f"{method} {route} {status} {s * 1000:.1f} ms"
        if not self.json_lines:
            return f"{self._asctime(now)} INFO {ACCESS_LOGGER} [{rid}] {message}\n"
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
        return orjson.dumps(fields, option=orjson.OPT_APPEND_NEWLINE).decode()

    def access(self, method: str, route: str, status: int, elapsed_s: float) -> None:
        """Write (or queue, see the class docstring) the access line of one request: what
        ``access.info`` with the fields as extras would write through this handler's
        formatter (tests/unit/test_access_log.py)."""
        entry = (time.time(), request_id.get(), method, route, status, elapsed_s)
        if self._fileno() is None:
            self._write([self._line(*entry)])
            return
        self._queued.append(entry)
        now = time.monotonic()
        if self._due is None:
            self._due = now
            try:
                asyncio.get_running_loop().call_soon(self.write_queued)
                return
            except RuntimeError:  # no event loop in this thread
                pass
        elif len(self._queued) < ACCESS_BATCH and now - self._due < 1.0:
            return
        self.write_queued()

    def write_queued(self) -> None:
        """Write the queued access lines, in order."""
        self.acquire()  # one writer at a time: lines leave in the order they were queued
        try:
            self._due = None
            lines = []
            while self._queued:
                lines.append(self._line(*self._queued.popleft()))
            if lines:
                self._write(lines)
        finally:
            self.release()

    def _write(self, lines: list[str]) -> None:
        """Write ``lines`` (each ending in a newline) to the stream."""
        self.acquire()
        try:
            fd = self._fileno()
            if fd is None:
                self.stream.write("".join(lines))
                self.flush()
                return
            self.stream.flush()  # what other records left in its buffer goes first
            chunk: list[bytes] = []
            size = 0
            for line in lines:
                data = line.encode()
                if chunk and size + len(data) > WRITE_CHUNK:
                    _write_all(fd, b"".join(chunk))
                    chunk, size = [], 0
                chunk.append(data)
                size += len(data)
            _write_all(fd, b"".join(chunk))
        except Exception:  # noqa: BLE001 - as StreamHandler.emit: report, never raise
            self.handleError(logging.makeLogRecord({"msg": "".join(lines)}))
        finally:
            self.release()

    def emit(self, record: logging.LogRecord) -> None:
        """Write ``record`` after the queued access lines."""
        if self._queued:
            self.write_queued()
        super().emit(record)

    def flush(self) -> None:
        """Write the queued access lines, then flush the stream (``logging.shutdown`` calls
        this at exit)."""
        if self._queued:
            self.write_queued()
        super().flush()


def _write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (one system call unless the kernel takes less)."""
    written = os.write(fd, data)
    while written < len(data):
        written += os.write(fd, data[written:])


ACCESS_LOGGER = "gpucost.access"
_ACCESS = logging.getLogger(ACCESS_LOGGER)
_GPUCOST = logging.getLogger("gpucost")


def log_access(method: str, route: str, status: int, elapsed_s: float) -> None:
    """Log the access line of one request at INFO on ``gpucost.access``: ``method``, route
    template ``route``, ``status`` and ``duration_ms`` (from ``elapsed_s``, s, rounded to
    1 us), with the request id. When the only handler is the one :func:`configure_logging`
    installed (and nobody added handlers or filters), it formats and writes the line itself:
    ~4 us instead of ~40 us through a ``LogRecord`` and python-json-logger (this machine,
    2026-11-24); otherwise the standard ``logging`` call, so any other setup still sees
    every record."""
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
        handlers[0].access(method, route, status, elapsed_s)
        return
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
    log = logging.getLogger("gpucost")
    log.handlers[:] = [handler]
    log.setLevel(level)
    log.propagate = False


def metrics_body() -> tuple[bytes, str]:
    """The metrics in Prometheus text format, summed over workers in multiprocess mode
    (this worker's tallied requests added first)."""
    _TALLY.flush()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # untyped in prometheus-client
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
