"""``Annotated`` dependency aliases used by the routers.

The dependencies a calculation takes are ``async`` (no thread-pool hop) and never open a
database session: :data:`ViewDep` is the in-memory catalog view of the day asked for.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Query
from fastapi.concurrency import run_in_threadpool
from pydantic import BeforeValidator
from sqlalchemy import Engine
from sqlmodel import Session

from app.catalog.live import LiveCatalog, live_catalog
from app.catalog.view import CatalogView
from app.db import get_engine
from app.settings import Settings, get_settings


async def settings() -> Settings:
    """The process-wide settings (tests override this dependency)."""
    return get_settings()


async def engine() -> Engine:
    """The process-wide engine (tests override this dependency with their own database's)."""
    return get_engine()


SettingsDep = Annotated[Settings, Depends(settings)]
# Writes run their own transactions (BEGIN IMMEDIATE on SQLite) on the engine.
EngineDep = Annotated[Engine, Depends(engine)]


def session(engine: EngineDep) -> Iterator[Session]:
    """A session per request, for the few routes that read or write rows the catalog view
    does not hold (API keys, saved scenarios); commits happen in service functions."""
    with Session(engine) as s:
        yield s


SessionDep = Annotated[Session, Depends(session)]

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _iso_date_only(value: object) -> object:
    """Refuse what lax date parsing would accept besides `YYYY-MM-DD` (e.g. `0`, a Unix
    timestamp)."""
    if isinstance(value, str) and not _ISO_DATE.fullmatch(value):
        raise ValueError("give a date as YYYY-MM-DD")
    return value


AsOf = Annotated[
    dt.date | None,
    BeforeValidator(_iso_date_only),
    Query(
        description="Answer with the catalog prices in force on this day (ISO 8601 "
        "`YYYY-MM-DD`), from the price history: offers and barebones not yet priced that day "
        "are absent. Default: the current prices.",
        examples=["2025-06-30"],
    ),
]


def _live(engine: Engine) -> LiveCatalog:
    return live_catalog(engine, get_settings().catalog_poll_interval_s)


async def view(engine: EngineDep, as_of: AsOf = None) -> CatalogView:
    """The catalog view a request reads: the current one, or that of ``as_of``. Only the very
    first request of a process (before start-up read the catalog) waits for the database, in a
    worker thread. (One dependency level: each level FastAPI resolves costs microseconds on
    every calculation.)"""
    catalog = _live(engine)
    if not catalog.ready:
        await run_in_threadpool(lambda: catalog.view)
    return catalog.view_on(as_of)


ViewDep = Annotated[CatalogView, Depends(view)]


async def current_view(engine: EngineDep) -> CatalogView:
    """The catalog view with the current prices (for routes that take no ``as_of``)."""
    catalog = _live(engine)
    if not catalog.ready:
        await run_in_threadpool(lambda: catalog.view)
    return catalog.view


CurrentViewDep = Annotated[CatalogView, Depends(current_view)]
