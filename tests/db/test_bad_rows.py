"""One bad catalog row cannot take the service down (issue 48, High): a row the in-memory view
cannot be built with is refused whole by the admin API (nothing stored, the revision where it
was, the next write accepted); a revision that cannot be built anyway (written around the
API) leaves the last good view answering, is tried once per revision, and says so in
``/readyz`` (:func:`app.observability.degraded`). Runs on SQLite and, when configured, PostgreSQL."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import Session

from app.catalog import layout, live
from app.catalog.live import live_catalog
from app.models import CatalogRevision, Gpu
from app.models.provenance import table_of
from app.observability import degraded
from app.store import keys
from app.store.catalog_writes import bump_revision
from tests.db.test_admin import BAREBONE
from tests.dbs import seeded_client, seeded_engine  # noqa: F401  (fixtures)
from tests.factories import break_even


@pytest.fixture(scope="module")
def writer(engine) -> dict[str, str]:
    with Session(engine) as s:
        return {"X-API-Key": keys.create(s, "admin", ["read", "write"])[1]}


def _revision(engine) -> int:
    with Session(engine) as s:
        row = s.get(CatalogRevision, 1)
        assert row is not None
        return row.revision


def _unused_class_gpu(client, writer) -> tuple[str, dict[str, Any], str]:
    """A catalog GPU with a dated launch price in a form factor that has no used price (its
    class's depreciation curve would rest on this row alone), its stored row and ETag."""
    gpus = client.get("/v1/gpus", params={"limit": 500}).json()["data"]
    with_used = {g["form_factor"] for g in gpus if g.get("price_used_usd")}
    for g in gpus:
        if g["form_factor"] not in with_used and g.get("price_new_as_of"):
            r = client.get(f"/v1/admin/gpus/{g['id']}", headers=writer)
            assert r.status_code == 200
            return g["id"], r.json()["data"], r.headers["etag"]
    pytest.skip("every form factor has a used price in this catalog")


def test_a_used_price_dated_on_launch_day_is_refused_whole(client, engine, writer):
    """Before: committed, answered 422, and every later catalog write committed and answered
    422 while every worker kept a stale view (and could not restart). Now: 422 before the
    commit, the row and revision as they were, the next write accepted and answered on."""
    gpu_id, row, tag = _unused_class_gpu(client, writer)
    before = _revision(engine)
    body = {k: v for k, v in row.items() if k != "id"}
    body |= {
        "price_used_usd": round(row["price_new_usd"] * 0.6, 2),
        "price_used_as_of": row["price_new_as_of"],
        "price_used_source": "a test listing",
    }
    r = client.put(f"/v1/admin/gpus/{gpu_id}", json=body, headers={**writer, "If-Match": tag})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert "price_used_as_of" in r.json()["detail"]
    assert _revision(engine) == before
    again = client.get(f"/v1/admin/gpus/{gpu_id}", headers=writer)
    assert again.headers["etag"] == tag
    assert again.json()["data"]["price_used_usd"] == row["price_used_usd"]

    r = client.put("/v1/admin/barebones/bb-after-bad-row", json=BAREBONE, headers=writer)
    assert r.status_code == 201, r.text
    assert _revision(engine) == before + 1
    assert live_catalog(engine).view.revision == before + 1
    ids = {b["id"] for b in client.get("/v1/barebones").json()["data"]}
    assert "bb-after-bad-row" in ids
    assert client.post("/v1/break-even", json=break_even()).status_code == 200
    assert "catalog" not in degraded()


def test_a_write_the_view_cannot_be_built_with_is_rolled_back(client, engine, writer, monkeypatch):
    """Whatever the reason a view cannot be built, the write that would cause it is refused
    before its commit (here the depreciation fit is made to fail)."""
    before = _revision(engine)

    def broken(gpus):
        raise ValueError("no curve")

    monkeypatch.setattr(layout, "fit_curves", broken)
    r = client.put("/v1/admin/barebones/bb-never-stored", json=BAREBONE, headers=writer)
    assert r.status_code == 422, r.text
    assert "cannot be built with this change (no curve); nothing was stored" in r.json()["detail"]
    monkeypatch.undo()
    assert _revision(engine) == before
    ids = {b["id"] for b in client.get("/v1/barebones").json()["data"]}
    assert "bb-never-stored" not in ids


def test_a_row_written_around_the_api_leaves_the_catalog_buildable(client, engine, writer):
    """The same launch-day used price written straight into the database (an old import, a
    hand edit), the only used price of its class: before, no view could be built (every
    worker stale, no restart); now the point is left out of every fit."""
    gpu_id, row, _ = _unused_class_gpu(client, writer)
    target = {**row, "id": gpu_id}
    table = table_of(Gpu)
    with engine.begin() as conn:
        conn.execute(
            update(table)
            .where(table.c.id == target["id"])
            .values(
                price_used_usd=target["price_new_usd"] / 2,
                price_used_as_of=dt.date.fromisoformat(target["price_new_as_of"]),
                price_used_source="a hand edit",
            )
        )
        revision = bump_revision(conn)
    catalog = live_catalog(engine)
    catalog.refresh()
    assert catalog.view.revision == revision
    assert catalog.view.curves  # the other used prices are still fitted
    for curve, _ in catalog.view.curves.values():  # each names its points' GPUs
        assert f"{target['id']} (" not in curve.source
    assert client.post("/v1/break-even", json=break_even()).status_code == 200


def test_an_unbuildable_revision_keeps_the_last_good_view(client, engine, monkeypatch):
    """A revision that cannot be built: the last good view answers, the failure is logged,
    counted and reported degraded, and it is read once per revision, not on every poll."""
    catalog = live_catalog(engine)
    good = catalog.view
    reads = []

    def failing(session):
        reads.append(1)
        raise ValueError("bad row in the test")

    monkeypatch.setattr(live, "read_view", failing)
    with engine.begin() as conn:
        bump_revision(conn)
    for _ in range(5):
        assert catalog.refresh() is False
    assert len(reads) == 1
    assert catalog.view is good
    assert "bad row in the test" in degraded()["catalog"]  # what /readyz lists
    assert client.post("/v1/break-even", json=break_even()).status_code == 200

    monkeypatch.undo()
    with engine.begin() as conn:
        fixed = bump_revision(conn)
    # This call or the background poller (every 0.5 s) swaps the fixed revision in: refreshes
    # take turns, so once it returns the view is the fixed one whichever read it.
    catalog.refresh()
    assert catalog.view.revision == fixed
    assert catalog.view is not good
    assert "catalog" not in degraded()
