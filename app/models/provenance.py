"""What every catalog table shares: the provenance columns and the metadata's stable
constraint names; :func:`table_of` names a table model's SQLAlchemy table."""

from __future__ import annotations

import datetime as dt

from pydantic import Field
from sqlalchemy import Table
from sqlmodel import SQLModel

# Stable constraint names, so Alembic migrations are reproducible on SQLite and PostgreSQL.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Provenance(SQLModel):
    """Where a catalog row comes from."""

    source: str = Field(description="URL or file the row's figures come from.", max_length=2000)
    as_of: dt.date = Field(description="Date the row's figures held (ISO 8601).")


def table_of(model: type[SQLModel]) -> Table:
    """The SQLAlchemy table of a table model (SQLModel sets ``__table__`` on those; its type
    stubs do not say so)."""
    table: Table = model.__table__  # type: ignore[attr-defined]  # see the docstring
    return table
