"""``gpucost ask`` over HTTP (``GPUCOST_URL``): the same answer as the service gives, with
nothing of the service imported on the terminal (no app package beyond ``app.cli.thin``, no
numpy, no database driver, no httpx)."""

from __future__ import annotations

import json
import subprocess

import httpx
import pytest

from tests import cli_probe
from tests.servers import seeded_sqlite, server

pytestmark = pytest.mark.e2e

QUESTION = "break-even for 3090 at 15% util"
# What the terminal must not import: the service's own modules and heavy libraries (the thin
# client uses the standard library's HTTP client and rich only).
SERVICE_MODULES = (
    "numpy",
    "sqlalchemy",
    "fastapi",
    "httpx",
    "app.catalog",
    "app.query",
    "app.models",
)


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    env = seeded_sqlite(tmp_path_factory.mktemp("thin"))
    with server(env) as srv:
        yield srv


def _ask(base: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"GPUCOST_URL": base, "PATH": "/usr/bin:/bin", "COLUMNS": "200"}
    return cli_probe.ask(args, env, SERVICE_MODULES)


def test_the_answer_is_the_services_and_nothing_of_it_is_imported(service):
    want = httpx.get(f"{service.base}/v1/query", params={"q": QUESTION}).json()
    done = _ask(service.base, QUESTION, "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["headline"] == want["headline"]
    assert got["result"]["break_even_days"] == want["result"]["break_even_days"]
    assert done.stderr.strip().endswith("MODULES []"), done.stderr


def test_plain_output_and_a_refusal(service):
    done = _ask(service.base, QUESTION)
    assert done.returncode == 0 and done.stdout.startswith("Break-even: "), done.stdout
    refused = _ask(service.base, "what is the meaning of life")
    assert refused.returncode == 1, refused.stdout + refused.stderr


def test_no_service_is_exit_2():
    done = _ask("http://127.0.0.1:9", QUESTION)
    assert done.returncode == 2 and "did not answer" in done.stderr
