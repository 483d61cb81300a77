"""Load the shipped catalog into the database, idempotently and in one transaction.

Rows are matched by primary key: new ids are inserted, rows whose values differ are updated,
equal rows are left alone. A failure rolls the whole load back, so the catalog is never half
written. Tables must already exist (``alembic upgrade head``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from sqlalchemy import Numeric, insert, select, update
from sqlalchemy.engine import Connection, Engine

from app.catalog import loaders
from app.db import writer
from app.models import TABLES, CatalogRevision


@dataclass
class SeedReport:
    """Rows added, changed and unchanged per table, and source rows skipped with reasons."""

    added: dict[str, int] = field(default_factory=dict)
    changed: dict[str, int] = field(default_factory=dict)
    unchanged: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        lines = [
            f"{t:<20} added {self.added.get(t, 0):>5}  changed {self.changed.get(t, 0):>5}  "
            f"unchanged {self.unchanged.get(t, 0):>5}"
            for t in self.added
        ]
        lines += [f"skipped: {reason}: {n}" for reason, n in sorted(self.skipped.items())]
        return "\n".join(lines)


def _coerce(table, row: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for col in table.c:
        if col.name not in row:
            continue
        value = row[col.name]
        if value is not None and isinstance(col.type, Numeric) and not isinstance(value, Decimal):
            value = Decimal(str(value)).quantize(Decimal(1).scaleb(-col.type.scale))
        out[col.name] = value
    return out


def _seed_table(conn: Connection, table, rows: list[dict[str, Any]], report: SeedReport) -> None:
    name = table.name
    existing = {r._mapping["id"]: dict(r._mapping) for r in conn.execute(select(table))}
    new_rows, added, changed, unchanged = [], 0, 0, 0
    for raw in rows:
        row = _coerce(table, raw)
        old = existing.get(row["id"])
        if old is None:
            new_rows.append(row)
            added += 1
        elif any(old.get(k) != v for k, v in row.items()):
            conn.execute(update(table).where(table.c.id == row["id"]).values(**row))
            changed += 1
        else:
            unchanged += 1
    if new_rows:
        conn.execute(insert(table), new_rows)
    report.added[name], report.changed[name], report.unchanged[name] = added, changed, unchanged


def bump_revision(conn: Connection) -> None:
    """Mark the catalog changed, inside the writing transaction (see :class:`CatalogRevision`)."""
    table = CatalogRevision.__table__
    if conn.execute(update(table).values(revision=table.c.revision + 1)).rowcount == 0:
        conn.execute(insert(table).values(id=1, revision=1))


def seed(engine: Engine) -> SeedReport:
    """Load every catalog table from the shipped files; returns what changed."""
    report = SeedReport()
    skipped = loaders.LoadReport({})
    with writer(engine).begin() as conn:
        for name, rows in loaders.iter_all(skipped):
            _seed_table(conn, TABLES[name].__table__, rows, report)
        if sum(report.added.values()) + sum(report.changed.values()):
            bump_revision(conn)
    report.skipped = skipped.skipped
    return report
