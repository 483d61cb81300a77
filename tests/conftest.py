"""Test set-up: one SQLite database migrated with Alembic (never ``create_all``) and seeded
from the shipped catalog, per test session; each API test runs in a transaction that is
rolled back, so tests never see each other's writes."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from scripts.loadlib import UNLIMITED_RATES

_TMP = Path(tempfile.mkdtemp(prefix="gpucost-test-"))
DB_URL = f"sqlite:///{_TMP / 'test.db'}"
os.environ["GPUCOST_DATABASE_URL"] = DB_URL
# `gpucost ask` files catalog snapshots (app/catalog/snapshot.py): in this run's folder.
os.environ["GPUCOST_SNAPSHOT_DIR"] = str(_TMP / "snapshots")
# The suite sends thousands of requests a minute from one address, and so do the servers it
# starts (they inherit this environment); tests/api/test_rate_limit.py sets its own limits.
for _name, _value in UNLIMITED_RATES.items():
    os.environ.setdefault(_name, _value)
# In-process tests draw charts in the test process's threads: every TestClient runs the
# app's lifespan, which would start and stop the drawing processes for each test.
# tests/system/ (test_draw_pool.py, test_abuse.py) run the processes themselves.
os.environ.setdefault("GPUCOST_RENDER_PROCESSES", "false")
# Every TestClient runs the lifespan, whose heap freeze costs a full collection (~0.2 s in
# the test process): the suite's ~300 started services would spend a minute on it. Servers
# that tests/system starts freeze theirs (the setting is dropped from their environment).
os.environ.setdefault("GPUCOST_FREEZE_HEAP", "false")
# Starlette's TestClient sends `Host: testserver`; /mcp answers loopback hosts by default.
os.environ.setdefault(
    "GPUCOST_MCP_ALLOWED_HOSTS", '["testserver", "127.0.0.1:*", "localhost:*", "[::1]:*"]'
)

from alembic import command  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from sqlmodel import Session  # noqa: E402

from app.api import deps  # noqa: E402
from app.db import (  # noqa: E402
    alembic_config,  # noqa: E402
    get_engine,
)
from app.main import app  # noqa: E402
from app.settings import get_settings  # noqa: E402
from app.store.seed import seed  # noqa: E402

get_settings.cache_clear()
get_engine.cache_clear()


@pytest.fixture(scope="session")
def engine():
    command.upgrade(alembic_config(), "head")
    eng = get_engine()
    seed(eng)
    return eng


@pytest.fixture()
def view(engine):
    """The catalog view of the shared test database (what every calculation reads)."""
    from app.catalog.live import live_catalog

    return live_catalog(engine).view


@pytest.fixture()
def session(engine) -> Iterator[Session]:
    conn = engine.connect()
    trans = conn.begin()
    sess = Session(bind=conn, join_transaction_mode="create_savepoint")
    try:
        yield sess
    finally:
        sess.close()
        trans.rollback()
        conn.close()


@pytest.fixture()
def client(session) -> Iterator[TestClient]:
    app.dependency_overrides[deps.session] = lambda: session
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c
    app.dependency_overrides.clear()


def pytest_terminal_summary(terminalreporter) -> None:
    """Print the chat corpus's understood-rate (issue 19) when its test ran."""
    import sys

    module = sys.modules.get("tests.api.test_query_parser")
    done = getattr(module, "UNDERSTOOD", None)
    if not done:
        return
    total, ok = done["total"], done["understood"]
    terminalreporter.write_sep("-", "chat corpus")
    terminalreporter.write_line(f"understood {ok}/{total} questions ({ok / total:.1%})")
    for text, miss in done["misses"]:
        terminalreporter.write_line(f"  not understood: {text!r}: {miss}")
