"""``Annotated`` dependency aliases used by the routers."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated

from fastapi import Depends, Query
from pydantic import BeforeValidator
from sqlalchemy import Engine
from sqlmodel import Session

from app.db import get_engine, get_session
from app.settings import Settings, get_settings

SessionDep = Annotated[Session, Depends(get_session)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
# Writes run their own transactions (BEGIN IMMEDIATE on SQLite) on the engine.
EngineDep = Annotated[Engine, Depends(get_engine)]

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
