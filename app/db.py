"""Database engine and sessions.

SQLite is the zero-configuration default. Each SQLite connection runs with WAL, a busy
timeout and ``BEGIN IMMEDIATE`` transactions (SQLAlchemy's pysqlite transaction recipe), so
concurrent writers queue instead of failing with "database is locked".
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

from sqlalchemy import Engine, event
from sqlmodel import Session, create_engine

from app.settings import get_settings


def make_engine(url: str) -> Engine:
    """An engine for ``url``, with the SQLite pragmas above when it is SQLite."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn, _record) -> None:  # pragma: no cover - driver hook
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON",
                           "busy_timeout=5000"):
                cur.execute(f"PRAGMA {pragma}")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn) -> None:  # pragma: no cover - driver hook
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    return create_engine(url, pool_pre_ping=True)


@lru_cache
def get_engine() -> Engine:
    """The process-wide engine for the configured database URL."""
    return make_engine(get_settings().database_url)


def get_session() -> Iterator[Session]:
    """A session per request; commits happen in service functions, never here."""
    with Session(get_engine()) as session:
        yield session
