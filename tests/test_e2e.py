"""End to end: a real uvicorn process on a fresh, migrated and seeded SQLite file, over HTTP."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.e2e


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("e2e") / "e2e.db"
    env = {**os.environ, "GPUCOST_DATABASE_URL": f"sqlite:///{db}"}
    cli = [sys.executable, "-m", "app.cli"]
    subprocess.run([*cli, "migrate"], cwd=ROOT, env=env, check=True, capture_output=True)
    subprocess.run([*cli, "seed"], cwd=ROOT, env=env, check=True, capture_output=True)
    port = _free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "app.main:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/readyz", timeout=1).status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail(f"uvicorn did not become ready: {proc.stdout.read().decode()[-2000:]}")
    yield base
    proc.terminate()
    proc.wait(timeout=10)


def test_seed_break_even_over_http(server):
    body = {
        "desktop": {"gpu": "3090", "total_price_usd": 2200},
        "cloud": {"offer_id": "aws-p3.2xlarge-spot-seed-2020"},
        "utilization": 0.15,
        "electricity_price_usd_per_kwh": 0.12,
    }
    out = httpx.post(f"{server}/v1/break-even", json=body, timeout=10).json()
    assert abs(out["break_even_days"] - 293) <= 1
    assert round(out["desktop"]["energy_kwh_per_year"]) == 591


def test_catalog_and_errors_over_http(server):
    gpus = httpx.get(f"{server}/v1/gpus", params={"limit": 500}, timeout=10).json()
    assert gpus["count"] >= 40
    bad = httpx.post(f"{server}/v1/carbon", json={"gpu": "t4"}, timeout=10)
    assert bad.status_code == 422
    assert bad.headers["content-type"].startswith("application/problem+json")
