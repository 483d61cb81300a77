"""Load the shipped catalog into the database, idempotently and in one transaction.

Rows are matched by primary key: new ids are inserted, rows whose values differ are updated,
equal rows are left alone; a changed price adds a dated point to the price history (see
:mod:`app.store.catalog_writes`). A failure rolls the whole load back, so the catalog is never half
written. Tables must already exist (``alembic upgrade head``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Table
from sqlalchemy.engine import Connection, Engine

from app.catalog import loaders
from app.catalog.live import catalog_written
from app.catalog.sources.skypilot import LoadReport
from app.db import write_transaction
from app.models import TABLES
from app.models.provenance import table_of
from app.store.catalog_writes import PriceLedger, bump_revision, stored_rows, upsert


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


def _seed_table(
    conn: Connection,
    table: Table,
    rows: list[dict[str, Any]],
    ledger: PriceLedger,
    report: SeedReport,
) -> None:
    existing = stored_rows(conn, table)
    counts = {"added": 0, "changed": 0, "unchanged": 0}
    for raw in rows:
        counts[upsert(conn, table, raw, ledger, existing)] += 1
    name = table.name
    report.added[name], report.changed[name] = counts["added"], counts["changed"]
    report.unchanged[name] = counts["unchanged"]


def seed(engine: Engine) -> SeedReport:
    """Load every catalog table from the shipped files; returns what changed."""
    report = SeedReport()
    skipped = LoadReport({})
    with write_transaction(engine) as conn:
        ledger = PriceLedger.load(conn)
        for name, rows in loaders.iter_all(skipped):
            _seed_table(conn, table_of(TABLES[name]), rows, ledger, report)
        ledger.flush()
        if sum(report.added.values()) + sum(report.changed.values()):
            bump_revision(conn)
    report.skipped = skipped.skipped
    catalog_written(engine)
    return report
