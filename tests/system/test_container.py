"""The container recipe: the Dockerfile passes hadolint, compose.yaml runs the API with
PostgreSQL, the runtime lock agrees with the full lock, and the image's start-up sequence
(its ENV, CMD and HEALTHCHECK, read from the Dockerfile) works outside a container (no Docker
engine runs here)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

from scripts.loadlib import free_port

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = (ROOT / "Dockerfile").read_text()
BIN = Path(sys.executable).parent


def test_dockerfile_passes_hadolint():
    hadolint = shutil.which("hadolint") or str(BIN / "hadolint")
    res = subprocess.run([hadolint, str(ROOT / "Dockerfile")], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr


def test_dockerfile_has_cached_dependencies_a_non_root_user_and_a_health_check():
    deps = DOCKERFILE.index("requirements.runtime.lock")
    assert deps < DOCKERFILE.index("COPY app ./app")  # dependencies in their own layer
    user = re.search(r"^USER (\S+)$", DOCKERFILE, re.M).group(1)
    assert user.isdigit() and user != "0"
    assert "HEALTHCHECK" in DOCKERFILE and "/readyz" in DOCKERFILE


def test_compose_runs_the_api_against_postgres():
    doc = yaml.safe_load((ROOT / "compose.yaml").read_text())
    api, db = doc["services"]["api"], doc["services"]["db"]
    assert db["image"].startswith("postgres:")
    assert api["environment"]["GPUCOST_DATABASE_URL"].startswith("postgresql+psycopg://")
    assert "@db:5432/" in api["environment"]["GPUCOST_DATABASE_URL"]
    assert api["depends_on"]["db"]["condition"] == "service_healthy"


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.-]+(?:\[[^\]]+\])?)==(\S+)", line)
        if m:
            pins[m.group(1).lower()] = m.group(2)
    return pins


def test_the_runtime_lock_pins_the_same_versions_as_the_full_lock():
    runtime, full = _pins(ROOT / "requirements.runtime.lock"), _pins(ROOT / "requirements.lock")
    assert {"fastapi", "uvicorn", "sqlmodel", "psycopg", "prometheus-client"} <= set(runtime)
    assert not {"pytest", "schemathesis", "ruff"} & set(runtime)  # no test tools in the image
    assert {k: v for k, v in runtime.items() if full.get(k) != v} == {}


def _image_env(tmp_path: Path, port: int) -> dict[str, str]:
    env_block = re.search(
        r"^ENV (.+?)\n(?=RUN|COPY|WORKDIR|USER)", DOCKERFILE.split("# --- runtime")[1], re.M | re.S
    ).group(1)
    pairs = dict(kv.split("=", 1) for kv in shlex.split(env_block.replace("\\\n", " ")))
    pairs.pop("PATH")
    pairs["GPUCOST_DATABASE_URL"] = f"sqlite:///{tmp_path / 'gpucost.db'}"
    pairs["PROMETHEUS_MULTIPROC_DIR"] = str(tmp_path / "metrics")
    return {**os.environ, **pairs, "PATH": f"{BIN}:{os.environ['PATH']}", "PORT": str(port)}


def test_the_image_start_up_sequence_works_outside_a_container(tmp_path):
    port = free_port()
    env = _image_env(tmp_path, port)
    assert env["GPUCOST_WORKERS"] == "2" and env["GPUCOST_LOG_FORMAT"] == "json"
    cmd = json.loads(re.search(r"^CMD (\[.+\])$", DOCKERFILE, re.M).group(1))
    cmd[-1] = cmd[-1].replace("--host 0.0.0.0 --port 8000", f"--host 127.0.0.1 --port {port}")
    health = json.loads(re.search(r"CMD (\[\"python\".+\])$", DOCKERFILE, re.M).group(1))
    health[-1] = health[-1].replace("8000", str(port))
    # The image runs from a directory holding alembic.ini and migrations/.
    workdir = tmp_path / "srv"
    workdir.mkdir()
    shutil.copy(ROOT / "alembic.ini", workdir)
    shutil.copytree(ROOT / "migrations", workdir / "migrations")
    proc = subprocess.Popen(
        cmd,
        cwd=workdir,
        env=env,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        ok = False
        while time.monotonic() < deadline and proc.poll() is None:
            if subprocess.run(health, env=env, capture_output=True).returncode == 0:
                ok = True
                break
            time.sleep(0.5)
        assert ok, "the health check never passed"
        r = httpx.post(
            f"http://127.0.0.1:{port}/v1/break-even",
            json={
                "desktop": {"gpu": "3090", "total_price_usd": 2200},
                "cloud": {"offer_id": "aws-p3.2xlarge-spot-seed-2020"},
                "utilization": 0.15,
                "electricity_price_usd_per_kwh": 0.12,
            },
        )
        assert r.json()["break_even_days"] == pytest.approx(292.96)
        for _ in range(20):
            httpx.get(f"http://127.0.0.1:{port}/healthz")
        metrics = httpx.get(f"http://127.0.0.1:{port}/metrics").text
        # Summed over both workers (multiprocess mode): every request is counted once.
        count = re.search(
            r'gpucost_requests_total\{method="GET",route="/healthz",status="200"\} (\S+)', metrics
        )
        assert count and float(count.group(1)) >= 20
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        out, _ = proc.communicate(timeout=20)
    logs = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert any(x.get("logger") == "gpucost.access" and x.get("request_id") for x in logs)
