"""An import does not hold the catalog's write lock while it compares and stages its rows
(gpucost issue 36: a 60,000-row import held SQLite's for ~30 s, and every other writer gave
up after its 5 s busy timeout), and it stays all or nothing: staged in batches, swapped in
one transaction, planned again when the catalog moved under the plan."""

from __future__ import annotations

import sqlite3
from decimal import Decimal

from sqlalchemy import text

from app.catalog import importer
from app.store import imports
from app.store.catalog_writes import bump_revision
from tests.dbs import seeded_engine  # noqa: F401  (fixture)

ROWS = 35  # four staging batches of 10


def _file() -> tuple[bytes, dict[str, Decimal]]:
    """ROWS new offers in gpucost's own CSV format, and each one's price by instance type."""
    lines = ["provider,instance_type,gpu_id,gpu_count,pricing_model,price_usd_per_hour"]
    prices = {f"batch-test-{i}": Decimal(f"{1 + i / 100:.2f}") for i in range(ROWS)}
    lines += [f"lambda,{t},a100-40gb,1,on_demand,{p}" for t, p in prices.items()]
    return ("\n".join(lines) + "\n").encode(), prices


def _stored(engine) -> dict[str, Decimal]:
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT instance_type, price_usd_per_hour FROM cloud_offer "
                "WHERE instance_type LIKE 'batch-test-%'"
            )
        ).all()
    return {t: Decimal(str(p)).quantize(Decimal("0.01")) for t, p in rows}


def _delete(engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("DELETE FROM cloud_offer WHERE instance_type LIKE 'batch-test-%'"))
        conn.execute(text("DELETE FROM price_point WHERE item_id LIKE 'lambda-batch-test-%'"))


def _wrap(monkeypatch, name: str, at: int, action) -> list[int]:
    """Run ``action()`` just before the ``at``-th call of ``imports.<name>``; the calls."""
    real, calls = getattr(imports, name), [0]

    def wrapped(*args, **kw):
        calls[0] += 1
        if calls[0] == at:
            action()
        return real(*args, **kw)

    monkeypatch.setattr(imports, name, wrapped)
    return calls


def test_another_writer_gets_the_lock_while_the_import_plans_and_stages(engine, monkeypatch):
    if engine.dialect.name != "sqlite":
        return  # PostgreSQL locks rows, not the database: nothing to wait for there
    data, prices = _file()
    path = engine.url.database
    took: list[str] = []

    def write_elsewhere() -> None:
        conn = sqlite3.connect(path, timeout=0, isolation_level=None)  # no waiting at all
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        conn.close()
        took.append("lock")

    monkeypatch.setattr(imports, "BATCH_ROWS", 10)
    _wrap(monkeypatch, "plan_upsert", 20, write_elsewhere)  # mid-plan
    _wrap(monkeypatch, "insert", 3, write_elsewhere)  # between staged batches
    try:
        report = imports.apply(engine, [importer.parse("own.csv", data)])
        assert took == ["lock", "lock"]
        assert report.counts()["added"] == ROWS
        assert _stored(engine) == prices
    finally:
        _delete(engine)


def test_a_write_between_plan_and_swap_makes_the_import_plan_again(engine, monkeypatch):
    """An admin write commits while the import stages: the import sees the revision moved,
    plans again on the new catalog, and both writes are there."""
    data, prices = _file()
    with engine.connect() as conn:
        other, price = conn.execute(
            text("SELECT id, price_usd_per_hour FROM cloud_offer ORDER BY id LIMIT 1")
        ).one()
    new_price = Decimal(str(price)) + 1

    def admin_write() -> None:
        with engine.begin() as conn:
            conn.execute(
                text("UPDATE cloud_offer SET price_usd_per_hour = :p WHERE id = :i"),
                {"p": str(new_price), "i": other},
            )
            bump_revision(conn)

    monkeypatch.setattr(imports, "BATCH_ROWS", 10)
    _wrap(monkeypatch, "insert", 2, admin_write)
    plans = _wrap(monkeypatch, "_plan", 0, lambda: None)
    try:
        report = imports.apply(engine, [importer.parse("own.csv", data)])
        assert plans[0] == 2
        assert report.counts()["added"] == ROWS
        assert _stored(engine) == prices
        with engine.connect() as conn:
            kept = conn.execute(
                text("SELECT price_usd_per_hour FROM cloud_offer WHERE id = :i"), {"i": other}
            ).scalar_one()
        assert Decimal(str(kept)) == new_price
    finally:
        _delete(engine)
        with engine.begin() as conn:
            conn.execute(
                text("UPDATE cloud_offer SET price_usd_per_hour = :p WHERE id = :i"),
                {"p": str(price), "i": other},
            )
