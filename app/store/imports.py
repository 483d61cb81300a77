"""Apply parsed catalog files (:mod:`app.catalog.importer`) to the database, in one
transaction: a failure, or the process being killed, leaves the catalog as it was.

An import is *planned* first, outside the write lock (every row compared with the stored
offers and price history, read in a read transaction), then *written* in one short
transaction: the planned rows and price points, :data:`BATCH_ROWS` to a statement. Only the
write holds SQLite's write lock (~0.4 s for 60,000 new offers, where the plan takes ~15 s of
Python: the lock was held for all of it, ~30 s, before gpucost issue 36; other writers wait
at most ``busy_timeout``, 5 s). When the catalog changed between the plan and the write (its
revision moved), the import is planned again; after :data:`PLAN_ATTEMPTS` such races it is
planned inside the write transaction, as before.

Offers are matched by id. A new id is added; a known id whose fields or price differ is
changed, its new price added to the price history (dated by the file's as-of date, so a
back-dated file adds history without moving the current price); an equal one is unchanged.
Offers whose GPU is not in the catalog are rejected with their file and line. The catalog
revision is bumped in the same transaction when anything changed.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Column, ColumnDefault, Connection, Integer, MetaData, Table, insert, select
from sqlalchemy.engine import Engine
from sqlmodel import col

from app.catalog.importer import ParsedFile, Rejected
from app.catalog.live import catalog_written
from app.db import write_turn
from app.models import CatalogRevision, CloudOffer, Gpu, PricePoint
from app.models.provenance import table_of
from app.store import audit
from app.store.audit import Actor
from app.store.catalog_writes import PriceLedger, bump_revision, plan_upsert, stored_rows

Progress = Callable[[Iterable[Any], int], Iterable[Any]]

# Rows per INSERT or UPDATE statement in an import's write (an executemany each).
BATCH_ROWS = 1_000
_POINTS = table_of(PricePoint)
# Plans made outside the write lock before one is made inside it (the catalog moved under
# each: another import or an admin write committed between the plan and the write).
PLAN_ATTEMPTS = 3


@dataclass
class ImportReport:
    """Counts per provider (``added`` / ``changed`` / ``unchanged`` / ``rejected``), the
    rejected rows, rows the loaders skipped on purpose (by reason), files read, the catalog
    revision after the import and the wall time (s)."""

    added: Counter[str] = field(default_factory=Counter)
    changed: Counter[str] = field(default_factory=Counter)
    unchanged: Counter[str] = field(default_factory=Counter)
    rejected_by_provider: Counter[str] = field(default_factory=Counter)
    rejected: list[Rejected] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    files: list[dict[str, Any]] = field(default_factory=list)
    price_points_added: int = 0
    revision: int | None = None
    seconds: float = 0.0

    def counts(self, provider: str | None = None) -> dict[str, int]:
        """``added`` / ``changed`` / ``unchanged`` / ``rejected`` for one provider, or in all."""
        if provider is None:
            return {
                "added": sum(self.added.values()),
                "changed": sum(self.changed.values()),
                "unchanged": sum(self.unchanged.values()),
                "rejected": len(self.rejected),
            }
        return {
            "added": self.added[provider],
            "changed": self.changed[provider],
            "unchanged": self.unchanged[provider],
            "rejected": self.rejected_by_provider[provider],
        }

    def providers(self) -> list[str]:
        keys = set(self.added) | set(self.changed) | set(self.unchanged)
        return sorted(keys | set(self.rejected_by_provider))


@dataclass
class _Plan:
    """What an import will write: the catalog revision it was planned on, the offers to
    insert and the columns to set on stored ones (by id), and the price points (in the
    ledger), with the counts in the report."""

    revision: int | None
    ledger: PriceLedger
    inserts: dict[str, dict[str, Any]] = field(default_factory=dict)
    updates: dict[str, dict[str, Any]] = field(default_factory=dict)
    existing: dict[str, dict[str, Any]] = field(default_factory=dict)
    report: ImportReport = field(default_factory=ImportReport)


def _revision(conn: Connection, *, lock: bool = False) -> int | None:
    """The catalog revision (``lock``: the revision row locked until the transaction ends,
    on PostgreSQL; SQLite's write transaction already excludes every other writer)."""
    table = table_of(CatalogRevision)
    stmt = select(table.c.revision).where(table.c.id == 1)
    return conn.execute(stmt.with_for_update() if lock else stmt).scalar_one_or_none()


def _plan(
    conn: Connection,
    files: list[ParsedFile],
    progress: Progress | None,
    restate: bool,
) -> _Plan:
    """Compare every offer of ``files`` with the catalog read on ``conn``: what to write."""
    revision = _revision(conn)  # first: a write committed after it moves it
    table = table_of(CloudOffer)
    gpus = set(conn.execute(select(col(Gpu.id))).scalars())
    existing = stored_rows(conn, table)
    plan = _Plan(revision, PriceLedger.load(conn, kind="cloud_offer"), existing=existing)
    report = plan.report
    work = [(f, offer) for f in files for offer in f.offers]
    for f, offer in progress(work, len(work)) if progress else work:
        provider = offer["provider"]
        if offer["gpu_id"] not in gpus:
            report.rejected.append(
                Rejected(
                    f.name,
                    int(offer.get("_line") or 0) or None,
                    f"gpu_id '{offer['gpu_id']}' is not in the catalog",
                )
            )
            report.rejected_by_provider[provider] += 1
            continue
        outcome, row = plan_upsert(table, offer, plan.ledger, existing, provenance_changes=restate)
        getattr(report, outcome)[provider] += 1
        if outcome == "added":
            plan.inserts[row["id"]] = row
        elif outcome == "changed" and row["id"] in plan.inserts:  # added, then changed
            plan.inserts[row["id"]].update(row)
        elif outcome == "changed":  # each change sets its columns: the last one wins
            plan.updates[row["id"]] = {**plan.updates.get(row["id"], {}), **row}
    return plan


def _staging(table: Table, name: str, *, skip: str = "", seq: bool = False) -> Table:
    """A temporary table with ``table``'s columns (less ``skip``) and types, no constraints;
    with ``seq``, a column ``seq`` that keeps the rows' order."""
    columns = [Column(c.name, c.type) for c in table.c if c.name != skip]
    extra = [Column("seq", Integer)] if seq else []
    return Table(name, MetaData(), *columns, *extra, prefixes=["TEMPORARY"])


def _full(table: Table) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """What gives a row every column of ``table``: a missing one takes its default (each of
    ``cloud_offer``'s is a constant) or null, as an INSERT without it would."""
    defaults = {
        c.name: c.default.arg
        for c in table.c
        if isinstance(c.default, ColumnDefault) and c.default.is_scalar
    }
    names = [c.name for c in table.c]
    return lambda row: {n: row.get(n, defaults.get(n)) for n in names}


def _stage(conn: Connection, table: Table, plan: _Plan, *, each_commits: bool) -> None:
    """Copy ``plan``'s offers (whole rows: new ones, and stored ones with their changes) and
    price points into temporary tables on ``conn``, :data:`BATCH_ROWS` a statement; with
    ``each_commits``, each statement in a transaction of its own. A temporary table is the
    connection's own (SQLite keeps it in a separate file): writing it takes no lock any
    other connection waits for, and it is gone if the process dies."""
    offers = _staging(table, "import_offer")
    points = _staging(_POINTS, "import_point", skip="id", seq=True)
    with conn.begin() if each_commits else nullcontext():
        offers.create(conn)
        points.create(conn)
    full = _full(table)
    rows = [full(r) for r in plan.inserts.values()]
    rows += [plan.existing[i] for i in plan.updates]
    pending = [{**p, "seq": n} for n, p in enumerate(plan.ledger.pending)]
    for target, batch_rows in ((offers, rows), (points, pending)):
        for at in range(0, len(batch_rows), BATCH_ROWS):
            with conn.begin() if each_commits else nullcontext():
                conn.execute(insert(target), batch_rows[at : at + BATCH_ROWS])


def _swap(conn: Connection, table: Table, plan: _Plan) -> None:
    """In ``conn``'s write transaction: the staged offers into ``table`` (an insert, or an
    update of every column of a stored one) and the staged price points into the history,
    each one statement run by the database; the revision bumped when anything changed."""
    q = conn.dialect.identifier_preparer.quote
    cols = [q(c.name) for c in table.c]
    sets = ", ".join(f"{c} = excluded.{c}" for c in cols if c != q("id"))
    conn.exec_driver_sql(
        f"INSERT INTO {q(table.name)} ({', '.join(cols)}) SELECT {', '.join(cols)} "
        f"FROM import_offer WHERE true ON CONFLICT (id) DO UPDATE SET {sets}"
    )
    point_cols = ", ".join(q(c.name) for c in _POINTS.c if c.name != "id")
    conn.exec_driver_sql(  # in the order recorded: the history orders a day's points by id
        f"INSERT INTO {q(_POINTS.name)} ({point_cols}) "
        f"SELECT {point_cols} FROM import_point ORDER BY seq"
    )
    report = plan.report
    report.price_points_added = len(plan.ledger.pending)
    plan.ledger.pending = []
    if (t := report.counts())["added"] or t["changed"] or report.price_points_added:
        report.revision = bump_revision(conn)


def _drop_staging(conn: Connection) -> None:
    with conn.begin():
        conn.exec_driver_sql("DROP TABLE IF EXISTS import_offer")
        conn.exec_driver_sql("DROP TABLE IF EXISTS import_point")


def apply(
    engine: Engine,
    files: list[ParsedFile],
    progress: Progress | None = None,
    *,
    restate: bool = False,
    also: Callable[[Connection, ImportReport], None] | None = None,
    actor: Actor | None = None,
) -> ImportReport:
    """Write every offer of ``files`` in one transaction, planned and staged before it (see
    the module's docstring); returns what happened. ``progress(iterable, total)`` wraps the
    row loop (a terminal progress bar). With ``restate`` (a refresh), an unchanged price
    takes the file's source and date: the day it was last seen is then the offer's
    ``as_of``. ``also(conn, report)`` runs inside the same write transaction, after the
    offers are written (a refresh records its outcome there: both or neither are kept).
    With ``actor``, the import is appended to the audit log in the same transaction (a
    refresh, which passes none, logs its outcome through ``also``)."""
    started = time.perf_counter()
    table = table_of(CloudOffer)
    plan: _Plan | None = None
    with engine.connect() as conn:  # one connection: its temporary tables are its own
        try:
            for attempt in range(PLAN_ATTEMPTS + 1):
                if attempt < PLAN_ATTEMPTS:
                    with conn.begin():  # a read transaction: no write lock
                        plan = _plan(conn, files, progress, restate)
                    _drop_staging(conn)
                    _stage(conn, table, plan, each_commits=True)
                conn.execution_options(immediate=True)
                # The write lock, from here to the commit (the process's turn first).
                with write_turn(engine), conn.begin():
                    revision = _revision(conn, lock=True)
                    if attempt == PLAN_ATTEMPTS:  # the catalog moved under every plan
                        plan = _plan(conn, files, progress, restate)
                        conn.exec_driver_sql("DROP TABLE IF EXISTS import_offer")
                        conn.exec_driver_sql("DROP TABLE IF EXISTS import_point")
                        _stage(conn, table, plan, each_commits=False)
                    elif plan is None or revision != plan.revision:
                        continue  # planned on a catalog that moved since: plan again
                    _swap(conn, table, plan)
                    if also is not None:
                        also(conn, plan.report)
                    if actor is not None:
                        _audit(conn, actor, files, plan.report)
                    break
                conn.execution_options(immediate=False)
        finally:
            conn.execution_options(immediate=False)
            if conn.in_transaction():
                conn.rollback()
            _drop_staging(conn)
    assert plan is not None
    report = plan.report
    _file_report(report, files)
    catalog_written(engine)
    report.seconds = time.perf_counter() - started
    return report


def _audit(conn: Connection, actor: Actor, files: list[ParsedFile], report: ImportReport) -> None:
    """The import's audit event: its files and what it wrote (counts as in the answer)."""
    after = {
        "files": [
            {"file": f.name, "format": f.format, "provider": f.provider, "as_of": str(f.as_of)}
            for f in files
        ],
        **report.counts(),
        "rejected": len(report.rejected) + sum(len(f.rejected) for f in files),
        "price_points_added": report.price_points_added,
        "catalog_revision": report.revision,
    }
    target = "import/" + ", ".join(f.name for f in files)
    audit.append(conn, actor, "catalog.import", target, None, after)


def _file_report(report: ImportReport, files: list[ParsedFile]) -> None:
    """Add each file's own rejected and skipped rows, and the file, to ``report``."""
    parsed_rejects: list[Rejected] = []
    for f in files:
        parsed_rejects += f.rejected
        report.rejected_by_provider[f.provider or "own format"] += len(f.rejected)
        report.skipped.update(f.skipped)
        report.files.append(
            {"file": f.name, "format": f.format, "provider": f.provider, "as_of": f.as_of}
        )
    report.rejected[:0] = parsed_rejects  # the parser's rejects first, as before
