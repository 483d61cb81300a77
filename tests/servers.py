"""Real uvicorn servers for system tests: a migrated, seeded SQLite file and processes that
serve it on loopback ports."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def seeded_sqlite(directory: Path) -> dict[str, str]:
    """The environment of a fresh, migrated and seeded SQLite file in ``directory``."""
    env = {**os.environ, "GPUCOST_DATABASE_URL": f"sqlite:///{directory / 'gpucost.db'}"}
    cli = [sys.executable, "-m", "app.cli"]
    subprocess.run([*cli, "migrate"], cwd=ROOT, env=env, check=True, capture_output=True)
    subprocess.run([*cli, "seed"], cwd=ROOT, env=env, check=True, capture_output=True)
    return env


@contextmanager
def seeded_database(backend: str, directory: Path) -> Iterator[dict[str, str]]:
    """The environment of a fresh, migrated and seeded database: an SQLite file in
    ``directory``, or a new PostgreSQL database on ``GPUCOST_TEST_POSTGRES_URL``'s server
    (dropped afterwards)."""
    if backend == "sqlite":
        yield seeded_sqlite(directory)
        return
    from tests.dbs import empty_database

    with empty_database(backend, directory) as url:
        env = {**os.environ, "GPUCOST_DATABASE_URL": url}
        cli = [sys.executable, "-m", "app.cli"]
        for step in ("migrate", "seed"):
            subprocess.run([*cli, step], cwd=ROOT, env=env, check=True, capture_output=True)
        yield env


def create_key(env: dict[str, str], name: str, *scopes: str) -> str:
    """A new API key with ``scopes`` in the database of ``env``, made as an operator makes
    one (``gpucost keys create``); the key itself."""
    scope_args = [arg for scope in scopes for arg in ("--scope", scope)]
    out = subprocess.run(
        [sys.executable, "-m", "app.cli", "keys", "create", name, *scope_args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return out.stdout.strip()


@dataclass
class Server:
    """A running ``gpucost serve``: its base URL and process."""

    base: str
    proc: subprocess.Popen[bytes]

    def output(self) -> str:
        """What it printed (once it has stopped)."""
        out = self.proc.stdout.read() if self.proc.stdout else b""
        return out.decode(errors="replace")


@contextmanager
def server(env: dict[str, str], timeout_s: float = 120) -> Iterator[Server]:
    """``gpucost serve`` (uvicorn, as in production) with ``env``, ready (``/readyz`` 200)
    within ``timeout_s`` (a bound for a busy machine, not a target);
    stopped with SIGTERM (then killed) afterwards. It freezes its heap as a deployed one does
    (the in-process suite's ``GPUCOST_FREEZE_HEAP=false`` is not passed on)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env={k: v for k, v in env.items() if k != "GPUCOST_FREEZE_HEAP"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        else:
            proc.kill()
            out = proc.stdout.read().decode() if proc.stdout else ""
            raise RuntimeError(f"uvicorn did not become ready: {out[-2000:]}")
        yield Server(base, proc)
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


@contextmanager
def uvicorn(env: dict[str, str], timeout_s: float = 120) -> Iterator[str]:
    """:func:`server`, yielding its base URL only."""
    with server(env, timeout_s) as srv:
        yield srv.base


REQUIRE_REDIS = os.environ.get("GPUCOST_REQUIRE_REDIS") == "1"


@contextmanager
def redis_server() -> Iterator[str]:
    """A throwaway ``redis-server`` (Debian's package; .ci/run installs it) on a free loopback
    port, nothing persisted; yields its URL. Skips the test when there is none, unless
    ``GPUCOST_REQUIRE_REDIS=1`` (set by .ci/run) makes that a failure."""
    import pytest

    binary = shutil.which("redis-server")
    if binary is None:
        if REQUIRE_REDIS:
            pytest.fail("GPUCOST_REQUIRE_REDIS=1 but redis-server is not installed")
        pytest.skip("redis-server not installed (.ci/run installs it)")
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError("redis-server did not start")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


# The /healthz percentile a flood test holds to a budget, and how many times its quiet value
# (taken in the same test, so a busy machine slows both) it may reach before the test calls
# the probe starved. p95, not p99: with other jobs on the machine's cores the slowest 1 % of
# ~100 probes is the operating system's scheduling, not the service; a load balancer's check
# also tolerates one slow probe in a row of them. The p99 and its targets on a quiet machine
# are the benchmark's (``make bench-flood`` prints them).
HEALTHZ_PERCENTILE = "p95_ms"
BASELINE_FACTOR = 5.0


def healthz_baseline_ms(
    base: str, pid: int, seconds: float = 3.0, *, control: bool = False
) -> float:
    """``/healthz`` :data:`HEALTHZ_PERCENTILE` (ms) of the server at ``base``, probed as the
    flood tests probe it (``scripts/bench_flood.py``'s probe process, every 20 ms): with no
    flood, or with ``control`` under the control flood (40 addresses asking seed 001's
    break-even at the pace a flood test's callers keep: what this machine, with whatever
    else runs on it, gives a worker answering that many cheap requests)."""
    from scripts.bench_flood import ADDRESSES, endpoint_flood

    callers = ADDRESSES if control else 0
    out = endpoint_flood(base, pid, "break_even", seconds=seconds, addresses=callers)
    return float(out["healthz"][HEALTHZ_PERCENTILE])


def healthz_budget_ms(target_ms: float, baseline_ms: float) -> float:
    """The /healthz :data:`HEALTHZ_PERCENTILE` a flood test allows: its target, or
    :data:`BASELINE_FACTOR` times the baseline taken in the same test, whichever is more."""
    return max(target_ms, BASELINE_FACTOR * baseline_ms)
