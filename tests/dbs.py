"""Fresh, migrated and seeded databases for tests that write through the API (admin writes,
imports, scenarios, concurrency): SQLite always; PostgreSQL when ``GPUCOST_TEST_POSTGRES_URL``
names a server (``.ci/run`` starts one; ``GPUCOST_REQUIRE_POSTGRES=1`` there makes its absence
a failure instead of a skip).

Each database is created for one test module and dropped after it.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from alembic import command
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlmodel import Session

from app.api import deps
from app.catalog.live import forget_catalog
from app.db import alembic_config, make_engine
from app.main import app
from app.store.seed import seed

POSTGRES_URL = os.environ.get("GPUCOST_TEST_POSTGRES_URL")
REQUIRE_POSTGRES = os.environ.get("GPUCOST_REQUIRE_POSTGRES") == "1"


def backends() -> list:
    """pytest params: ``sqlite`` and, when configured, ``postgresql``."""
    pg = pytest.param(
        "postgresql",
        marks=[]
        if POSTGRES_URL or REQUIRE_POSTGRES
        else [pytest.mark.skip(reason="GPUCOST_TEST_POSTGRES_URL not set (.ci/run sets it)")],
    )
    return ["sqlite", pg]


def migrate(url: str, revision: str = "head") -> None:
    cfg = alembic_config()
    cfg.cmd_opts = type("Opts", (), {"x": [f"url={url}"]})()
    command.upgrade(cfg, revision)


def downgrade(url: str, revision: str) -> None:
    cfg = alembic_config()
    cfg.cmd_opts = type("Opts", (), {"x": [f"url={url}"]})()
    command.downgrade(cfg, revision)


@contextmanager
def empty_database(backend: str, tmp_path) -> Iterator[str]:
    """The URL of a new, empty database, dropped afterwards."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'db.sqlite'}"
        return
    if not POSTGRES_URL:
        pytest.fail("GPUCOST_REQUIRE_POSTGRES=1 but GPUCOST_TEST_POSTGRES_URL is not set")
    name = f"gpucost_test_{uuid.uuid4().hex[:10]}"
    # pre-ping: the fault tests restart the server, which kills pooled connections.
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT", pool_pre_ping=True)
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = :n AND pid <> pg_backend_pid()"
                ),
                {"n": name},
            )
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
        admin.dispose()


@contextmanager
def seeded(backend: str, tmp_path) -> Iterator[Engine]:
    """An engine on a new database, migrated to head and seeded with the shipped catalog."""
    with empty_database(backend, tmp_path) as url:
        migrate(url)
        engine = make_engine(url)
        seed(engine)
        try:
            yield engine
        finally:
            forget_catalog(engine)  # else the poller asks the dropped database every 0.5 s
            engine.dispose()


@pytest.fixture(name="engine", scope="module", params=backends())
def seeded_engine(request, tmp_path_factory) -> Iterator[Engine]:
    """For a test module that writes: its own seeded database on each backend (import this
    fixture into the module; it takes the place of conftest's shared, rolled-back one)."""
    with seeded(request.param, tmp_path_factory.mktemp(request.param)) as eng:
        yield eng


@pytest.fixture(name="client", scope="module")
def seeded_client(engine: Engine) -> Iterator[TestClient]:
    """A test client on the module's own database (see :func:`seeded_engine`)."""
    with client_for(engine) as c:
        yield c


@contextmanager
def app_on(engine: Engine, target: FastAPI = app) -> Iterator[None]:
    """The sessions, writes and catalog views of ``target`` (default: the app) on ``engine``
    while inside."""

    def session() -> Iterator[Session]:
        with Session(engine) as s:
            yield s

    target.dependency_overrides[deps.session] = session
    target.dependency_overrides[deps.engine] = lambda: engine
    view, current_view = deps.view_dependencies(lambda: engine)
    target.dependency_overrides[deps.view] = view
    target.dependency_overrides[deps.current_view] = current_view
    try:
        yield
    finally:
        target.dependency_overrides.clear()


@contextmanager
def client_for(engine: Engine) -> Iterator[TestClient]:
    """A test client whose sessions and writes go to ``engine``."""
    with app_on(engine), TestClient(app, raise_server_exceptions=False) as c:
        yield c
