"""Real uvicorn servers for system tests: a migrated, seeded SQLite file and processes that
serve it on loopback ports."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
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
def uvicorn(env: dict[str, str], timeout_s: float = 30) -> Iterator[str]:
    """``gpucost serve`` (uvicorn, as in production) with ``env``, ready (``/readyz`` 200);
    yields its base URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
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
            raise RuntimeError(
                f"uvicorn did not become ready: {proc.stdout.read().decode()[-2000:]}"
            )  # type: ignore[union-attr]
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)
