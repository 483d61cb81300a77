"""Database engine and sessions.

SQLite is the zero-configuration default. Each SQLite connection runs with WAL and a busy
timeout, and SQLAlchemy's pysqlite transaction recipe: transactions begin with ``BEGIN``
(readers never block each other under WAL), and writers ask for ``BEGIN IMMEDIATE`` with the
``immediate=True`` execution option (see :func:`writer`), so concurrent writers queue for the
lock instead of failing with "database is locked" on a lock upgrade. Within a process they
queue on a lock first (:func:`write_turn`, taken by :func:`write_transaction` and
:func:`write_session`), not in SQLite's busy handler.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, event
from sqlmodel import Session, create_engine

from app.settings import get_settings

if TYPE_CHECKING:
    from alembic.config import Config

# How long a SQLite writer waits for the lock before "database is locked", ms (SQLite's
# busy_timeout): the value of the recipe the project verified with WAL and BEGIN IMMEDIATE
# (0 errors, 4 processes x 300 read-then-write transactions; shared/reference/platform-notes.md).
BUSY_TIMEOUT_MS = 5000


def make_engine(url: str) -> Engine:
    """An engine for ``url``, with the SQLite pragmas above when it is SQLite."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: Any) -> None:  # pragma: no cover - driver hook
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            for pragma in (
                "journal_mode=WAL",
                "synchronous=NORMAL",
                "foreign_keys=ON",
                f"busy_timeout={BUSY_TIMEOUT_MS}",
            ):
                cur.execute(f"PRAGMA {pragma}")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn: Connection) -> None:  # pragma: no cover - driver hook
            immediate = conn.get_execution_options().get("immediate", False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine
    settings = get_settings()
    return create_engine(
        url,
        pool_pre_ping=True,  # a connection dropped by a database restart is replaced
        pool_size=settings.db_pool_size,
        max_overflow=settings.db_max_overflow,
        pool_timeout=settings.db_pool_timeout_s,
        connect_args={"connect_timeout": settings.db_connect_timeout_s},
    )


def writer(engine: Engine) -> Engine:
    """The engine for a transaction that will write (``BEGIN IMMEDIATE`` on SQLite). Open
    write transactions with :func:`write_transaction` or :func:`write_session`, which also take
    the process's write turn."""
    return engine.execution_options(immediate=True)


_turns: dict[str, threading.RLock] = {}
_turns_lock = threading.Lock()


@contextlib.contextmanager
def write_turn(engine: Engine) -> Iterator[None]:
    """Hold the process's turn to write to ``engine``'s SQLite file while the block runs (a
    no-op on PostgreSQL, whose writers do not block each other). Reentrant in one thread.

    SQLite has one writer at a time. A writer that finds the lock taken waits in SQLite's busy
    handler, which polls in sleeps growing to 100 ms, while the writer holding the lock may
    itself wait for the interpreter lock behind CPU-bound threads; so under concurrent writes a
    few requests waited far longer than the writes took. Queued on a lock in the process, each
    writer starts as soon as the one before it commits. Measured on the signed Slack command
    (one replay-store write each; wrk, 8 connections, 10 s, one worker on SQLite, 2-CPU
    machine, 2026-11-26): p99 620-700 ms -> 37-78 ms, p50 ~12 -> ~21 ms, the same ~400
    requests/s; without any replay write the command's p99 is 43-52 ms. A writer that waits
    longer than the busy timeout (:data:`BUSY_TIMEOUT_MS`) goes on without its turn, to
    SQLite's own lock and its "database is locked" error, as before; writers in other
    processes meet only there."""
    if engine.dialect.name != "sqlite":
        yield
        return
    with _turns_lock:  # one turn per database file (every engine on it shares it)
        turn = _turns.setdefault(engine.url.database or "", threading.RLock())
    held = turn.acquire(timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        yield
    finally:
        if held:
            turn.release()


@contextlib.contextmanager
def write_transaction(engine: Engine) -> Iterator[Connection]:
    """A write transaction on a connection of ``engine``, in the process's :func:`write_turn`:
    committed when the block ends, rolled back when it raises."""
    with write_turn(engine), writer(engine).begin() as conn:
        yield conn


@contextlib.contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """A :class:`~sqlmodel.Session` for writes on ``engine`` (the caller commits), in the
    process's :func:`write_turn` until it closes."""
    with write_turn(engine), Session(writer(engine)) as session:
        yield session


@lru_cache
def get_engine() -> Engine:
    """The process-wide engine for the configured database URL."""
    return make_engine(get_settings().database_url)


ROOT = Path(__file__).resolve().parent.parent


def alembic_config() -> Config:
    """Alembic config for this project (``alembic.ini`` at the repository root); the database
    URL comes from settings, or from ``-x url=...``."""
    from alembic.config import Config

    # A source checkout has alembic.ini next to app/; an installed package (the container
    # image) runs from a directory holding alembic.ini and migrations/.
    root = ROOT if (ROOT / "alembic.ini").exists() else Path.cwd()
    cfg = Config(str(root / "alembic.ini"))
    cfg.set_main_option("script_location", str(root / "migrations"))
    return cfg
