"""The catalog a report script reads: ``--database-url`` (a migrated and seeded database;
`make db` makes one), read once into a :class:`~app.catalog.view.CatalogView`."""

from __future__ import annotations

import argparse

from sqlalchemy import create_engine
from sqlmodel import Session

from app.catalog.read import read_view
from app.catalog.view import CatalogView


def catalog_from_args(description: str | None) -> CatalogView:
    """Parse ``--database-url`` (default ``sqlite:///./gpucost.db``) and read its catalog."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--database-url", default="sqlite:///./gpucost.db")
    args = parser.parse_args()
    with Session(create_engine(args.database_url)) as session:
        return read_view(session)
