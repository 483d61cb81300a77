"""Catalog writes shared by the seeder, the importer and the admin API: upserts that keep
price history, and the revision bump.

Everything here runs on a caller's :class:`~sqlalchemy.engine.Connection`, inside the
caller's transaction: the caller decides where the transaction starts and ends, so a whole
seed or import is one transaction and a failure anywhere leaves the catalog as it was.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal, Self

from sqlalchemy import Table, insert, select, update
from sqlalchemy.engine import Connection

from app.models import CatalogRevision, PricePoint
from app.models.history import PRICE_FIELDS, column_value
from app.models.provenance import table_of

Outcome = Literal["added", "changed", "unchanged"]
_SIX = Decimal("0.000001")
_POINTS = table_of(PricePoint)


def price_decimal(value: Any) -> Decimal | None:
    """A price as the history stores it: a Decimal with 6 decimal places (None stays None)."""
    if value is None:
        return None
    return Decimal(str(value)).quantize(_SIX)


@dataclass(frozen=True)
class Point:
    """A price in force from ``valid_from`` (``value`` None: no price from that day)."""

    valid_from: dt.date
    value: Decimal | None
    order: int


@dataclass
class PriceLedger:
    """The price history of some catalog items, held in memory while a transaction writes.

    :meth:`load` reads the points once; :meth:`record` adds a point unless the same value is
    already in force on its day; :meth:`flush` inserts what was added. Nothing is ever
    updated or deleted.
    """

    conn: Connection
    points: dict[tuple[str, str, str], list[Point]] = field(default_factory=dict)
    pending: list[dict[str, Any]] = field(default_factory=list)
    now: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.UTC))

    @classmethod
    def load(cls, conn: Connection, kind: str | None = None, item_id: str | None = None) -> Self:
        """The points of every item (or of one ``kind``, or one item), ordered by day."""
        stmt = select(_POINTS).order_by(_POINTS.c.valid_from, _POINTS.c.id)
        if kind is not None:
            stmt = stmt.where(_POINTS.c.item_kind == kind)
        if item_id is not None:
            stmt = stmt.where(_POINTS.c.item_id == item_id)
        points: dict[tuple[str, str, str], list[Point]] = defaultdict(list)
        for r in conn.execute(stmt):
            points[(r.item_kind, r.item_id, r.field)].append(Point(r.valid_from, r.value, r.id))
        return cls(conn, dict(points))

    def in_force(self, kind: str, item_id: str, name: str, day: dt.date) -> Point | None:
        """The point in force on ``day``: the last one dated on or before it."""
        found = None
        for p in self.points.get((kind, item_id, name), ()):
            if p.valid_from > day:
                break
            found = p
        return found

    def latest(self, kind: str, item_id: str, name: str) -> Point | None:
        """The current point: the one with the latest day (the last recorded on ties)."""
        points = self.points.get((kind, item_id, name))
        return points[-1] if points else None

    def record(
        self, kind: str, item_id: str, name: str, value: Any, day: dt.date, source: str
    ) -> bool:
        """Add ``value`` from ``day`` unless it is already the price in force on that day.
        Returns whether a point was added."""
        amount = price_decimal(value)
        current = self.in_force(kind, item_id, name, day)
        if (current is None and amount is None) or (current and current.value == amount):
            return False
        points = self.points.setdefault((kind, item_id, name), [])
        order = len(self.pending) + 1_000_000_000  # after every stored point on the same day
        points.append(Point(day, amount, order))
        points.sort(key=lambda p: (p.valid_from, p.order))
        self.pending.append(
            {
                "item_kind": kind,
                "item_id": item_id,
                "field": name,
                "valid_from": day,
                "value": amount,
                "source": source[:2000],
                "recorded_at": self.now,
            }
        )
        return True

    def flush(self, conn: Connection | None = None, batch_rows: int = 1_000) -> int:
        """Insert the points recorded since the last flush, ``batch_rows`` to a statement, on
        ``conn`` (default: the connection they were read with; an import reads them before
        it takes the write lock); returns how many."""
        n = len(self.pending)
        for at in range(0, n, batch_rows):
            (conn or self.conn).execute(insert(_POINTS), self.pending[at : at + batch_rows])
        self.pending = []
        return n


def coerce(table: Table, row: dict[str, Any]) -> dict[str, Any]:
    """``row`` restricted to ``table``'s columns, each value as the column stores it."""
    return {col.name: column_value(col, row[col.name]) for col in table.c if col.name in row}


def is_provenance(column: str) -> bool:
    """Columns that say where or when a figure comes from, not what it is."""
    return column == "notes" or column.endswith(("source", "as_of"))


def with_history(table: Table, row: dict[str, Any], ledger: PriceLedger) -> dict[str, Any]:
    """Record ``row``'s prices in the ledger (each dated by its as-of column) and return the
    row with its current prices: the latest in the history, which is ``row``'s own unless
    ``row`` back-dates a price that has since changed."""
    fields = PRICE_FIELDS.get(table.name)
    if not fields:
        return row
    row = dict(row)
    given = {cols.date: row.get(cols.date) or row.get("as_of") for cols in fields.values()}
    dates: dict[str, dt.date] = {}
    for name, cols in fields.items():
        day = given[cols.date]
        if name not in row or day is None:
            continue
        source = row.get(cols.source) or row.get("source") or "unknown"
        ledger.record(table.name, row["id"], name, row[name], day, source)
        latest = ledger.latest(table.name, row["id"], name)
        if latest is not None:
            confirmed = latest.value == price_decimal(row[name]) and day > latest.valid_from
            row[name] = column_value(table.c[name], latest.value)
            if latest.value is not None:
                # the day the newest price took effect, or a later day that restated it
                seen = day if confirmed else latest.valid_from
                dates[cols.date] = max(dates.get(cols.date, seen), seen)
    row.update(dates)  # each date column: the newest day its current price is known for
    return row


def upsert(
    conn: Connection,
    table: Table,
    row: dict[str, Any],
    ledger: PriceLedger,
    existing: dict[str, dict[str, Any]],
    *,
    provenance_changes: bool = True,
) -> Outcome:
    """Insert ``row`` or update the stored row with its id, keeping price history; returns
    what happened. ``existing`` maps the table's ids to their stored rows and is kept up to
    date, so one transaction may upsert the same id twice. See :func:`plan_upsert`."""
    outcome, written = plan_upsert(
        table, row, ledger, existing, provenance_changes=provenance_changes
    )
    if outcome == "added":
        conn.execute(insert(table).values(**written))
    elif outcome == "changed":
        conn.execute(update(table).where(table.c.id == written["id"]).values(**written))
    return outcome


def plan_upsert(
    table: Table,
    row: dict[str, Any],
    ledger: PriceLedger,
    existing: dict[str, dict[str, Any]],
    *,
    provenance_changes: bool = True,
) -> tuple[Outcome, dict[str, Any]]:
    """What :func:`upsert` would write for ``row``, without writing it: ``("added", row to
    insert)``, ``("changed", columns to set on the stored row with ``row["id"]``)`` or
    ``("unchanged", {})``. ``ledger`` records the prices and ``existing`` is kept up to date
    as if it were written (an import plans every row before it takes the write lock).

    With ``provenance_changes=False`` (imports), a row whose only differences are its
    provenance (``source``, ``notes``, dates) is unchanged: the same price from another file
    keeps the source of the price in force."""
    given = coerce(table, row)
    row = with_history(table, given, ledger)
    old = existing.get(row["id"])
    if old is not None and _back_dated(table, given, old):
        # An older version of a stored row (a back-dated file): its prices went into the
        # history above; its other fields do not replace the newer version's.
        return "unchanged", {}
    if old is None:
        existing[row["id"]] = row
        return "added", row
    compared = row if provenance_changes else {k: v for k, v in row.items() if not is_provenance(k)}
    if any(old.get(k) != v for k, v in compared.items()):
        existing[row["id"]] = {**old, **row}
        return "changed", row
    return "unchanged", {}


def _back_dated(table: Table, given: dict[str, Any], current: dict[str, Any]) -> bool:
    """Whether ``given`` is older than the stored row ``current`` (an earlier as-of date)."""
    fields = PRICE_FIELDS.get(table.name) or {}
    dates = {cols.date for cols in fields.values()}
    return any(
        given.get(d) is not None and current.get(d) is not None and current[d] > given[d]
        for d in dates
    )


def stored_rows(conn: Connection, table: Table) -> dict[str, dict[str, Any]]:
    """Every row of ``table`` by id (for :func:`upsert`)."""
    return {r._mapping["id"]: dict(r._mapping) for r in conn.execute(select(table))}


def bump_revision(conn: Connection) -> int:
    """Mark the catalog changed, inside the writing transaction (see :class:`CatalogRevision`);
    returns the new revision."""
    table = table_of(CatalogRevision)
    if conn.execute(update(table).values(revision=table.c.revision + 1)).rowcount == 0:
        conn.execute(insert(table).values(id=1, revision=1))
    return int(conn.execute(select(table.c.revision).where(table.c.id == 1)).scalar_one())
