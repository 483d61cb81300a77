"""`gpucost catalog refresh` against a local mirror directory and against recorded HTTP
responses (respx: no test touches the network). Expected prices are read from the mirror's
files, which are built from the shipped SkyPilot copies, never from our own output."""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

import httpx
import pytest
import respx
from sqlalchemy import func, select

from app.catalog.refresh import UPSTREAM, Download, GateBounds, catalog_path, catalog_paths
from app.catalog.sources.files import SOURCES
from app.catalog.sources.skypilot_providers import PROVIDER_FILES
from app.models import CatalogRevision, CloudOffer, PricePoint
from app.store.refresh import catalog_status, refresh
from tests.dbs import seeded_engine  # noqa: F401  (fixture)

RUNPOD = SOURCES / "skypilot-catalog/catalogs"
V6, V8 = RUNPOD / "v6/runpod/vms.csv", RUNPOD / "v8/runpod/vms_gpu_subset.csv"
A100 = "1x_A100-80GB_SECURE"
FAST = Download(timeout_s=5, attempts=3, backoff_s=0)
NOW = dt.datetime(2026, 11, 24, 12, tzinfo=dt.UTC)


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _full_runpod(a100_price: str) -> bytes:
    """A whole RunPod file as a newer upstream would publish it: every shipped v6 row with the
    v8 rows over it (same instance and region), the US A100 80GB at ``a100_price``."""
    rows = {(r["InstanceType"], r["Region"]): r for r in _rows(V6)}
    rows.update({(r["InstanceType"], r["Region"]): r for r in _rows(V8)})
    rows[(A100, "US")] = {**rows[(A100, "US")], "Price": a100_price, "SpotPrice": a100_price}
    columns = list(_rows(V8)[0])
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", restval="")
    writer.writeheader()
    writer.writerows(rows.values())
    return buf.getvalue().encode()


def _mirror(root: Path, body: bytes) -> Path:
    target = root / catalog_path("runpod")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(body)
    return root


def _state(engine) -> tuple[int, int, int, list]:
    with engine.connect() as conn:
        offers = conn.execute(select(func.count()).select_from(CloudOffer.__table__)).scalar_one()
        points = conn.execute(select(func.count()).select_from(PricePoint.__table__)).scalar_one()
        revision = conn.execute(select(CatalogRevision.__table__.c.revision)).scalar_one()
        prices = conn.execute(
            select(CloudOffer.__table__.c.id, CloudOffer.__table__.c.price_usd_per_hour)
            .where(CloudOffer.__table__.c.provider == "runpod")
            .order_by(CloudOffer.__table__.c.id)
        ).all()
    return offers, points, revision, prices


def _price(engine, offer_id: str) -> tuple[float, dt.date]:
    t = CloudOffer.__table__
    with engine.connect() as conn:
        row = conn.execute(
            select(t.c.price_usd_per_hour, t.c.as_of).where(t.c.id == offer_id)
        ).one()
    return float(row[0]), row[1]


OFFER = "runpod-1x-a100-80gb-secure-us-on-demand"


@pytest.mark.parametrize(
    "corrupt",
    [
        b"",  # empty file
        b"<html>rate limited</html>\n",  # an error page instead of the file
        "prices x100",  # a unit error: every price a hundred times too high
        "truncated",  # the first rows only
    ],
)
def test_a_corrupt_mirror_changes_nothing(engine, tmp_path, corrupt):
    good = _full_runpod("1.39")
    if corrupt == "prices x100":
        body = _rewritten(good, lambda r: r.update(Price=f"{float(r['Price']) * 100:g}"))
    elif corrupt == "truncated":
        body = b"\n".join(good.splitlines()[:20]) + b"\n"
    else:
        body = corrupt
    before = _state(engine)
    [result] = refresh(engine, ["runpod"], str(_mirror(tmp_path, body)), GateBounds(), FAST, NOW)
    assert result.outcome == "refused", result
    assert result.message
    assert _state(engine) == before


def test_a_mirror_directory_refreshes_and_keeps_history(engine, tmp_path):
    shipped = float(next(r for r in _rows(V8) if r["InstanceType"] == A100)["Price"])
    old_price, old_day = _price(engine, OFFER)
    assert old_price == shipped
    new = f"{shipped - 0.10:.2f}"  # a 7 % cut: inside the gate's bounds
    base = str(_mirror(tmp_path, _full_runpod(new)))
    [result] = refresh(engine, ["runpod"], base, GateBounds(), FAST, NOW)
    assert result.outcome == "refreshed", result
    assert _price(engine, OFFER) == (float(new), NOW.date())
    t = PricePoint.__table__
    with engine.connect() as conn:
        history = conn.execute(
            select(t.c.valid_from, t.c.value)
            .where(t.c.item_id == OFFER, t.c.field == "price_usd_per_hour")
            .order_by(t.c.valid_from)
        ).all()
    assert [float(v) for _, v in history][-2:] == [shipped, float(new)]
    assert history[-2][0] == old_day
    # the same file again: nothing moves
    before = _state(engine)
    [again] = refresh(engine, ["runpod"], base, GateBounds(), FAST, NOW)
    assert again.outcome == "unchanged"
    assert _state(engine)[:2] == before[:2]
    status = catalog_status(engine, 365, NOW.date())
    runpod = next(p for p in status.providers if p.provider == "runpod")
    assert runpod.newest_price_as_of == NOW.date() and runpod.newest_price_age_days == 0
    assert runpod.last_refresh_outcome == "unchanged" and runpod.last_success_at == NOW


def test_a_missing_provider_file_fails_alone(engine, tmp_path):
    base = str(_mirror(tmp_path, _full_runpod("1.39")))
    before = _state(engine)
    results = refresh(engine, ["aws", "runpod"], base, GateBounds(), FAST, NOW)
    assert [r.outcome for r in results][0] == "failed"
    assert "aws/vms.csv" in results[0].message
    assert results[1].outcome in ("refreshed", "unchanged")
    assert _state(engine)[0] == before[0]


def _newer_folders_missing(*providers: str) -> None:
    """Upstream has no file in the schema folders newer than each provider's shipped one
    (a refresh tries them first): 404."""
    for provider in providers:
        for path in catalog_paths(provider):
            if path == catalog_path(provider):
                break
            respx.get(f"{UPSTREAM}/{path}").mock(return_value=httpx.Response(404))


@respx.mock
def test_upstream_download_retries_then_imports(engine):
    _newer_folders_missing("runpod", "paperspace")
    body = _full_runpod("1.39")
    route = respx.get(f"{UPSTREAM}/{catalog_path('runpod')}").mock(
        side_effect=[
            httpx.Response(503),
            httpx.ConnectError("reset"),
            httpx.Response(200, content=body),
        ]
    )
    respx.get(f"{UPSTREAM}/{catalog_path('paperspace')}").mock(return_value=httpx.Response(404))
    results = refresh(engine, ["runpod", "paperspace"], UPSTREAM, GateBounds(), FAST, NOW)
    assert route.call_count == 3
    assert results[0].outcome in ("refreshed", "unchanged")
    assert results[0].source == f"{UPSTREAM}/{catalog_path('runpod')}"
    assert results[1].outcome == "failed" and "HTTP 404" in results[1].message
    assert "no paperspace file in any schema folder" in results[1].message


@respx.mock
def test_upstream_gives_up_after_the_set_attempts(engine):
    _newer_folders_missing("runpod")
    route = respx.get(f"{UPSTREAM}/{catalog_path('runpod')}").mock(return_value=httpx.Response(502))
    before = _state(engine)
    [result] = refresh(engine, ["runpod"], UPSTREAM, GateBounds(), FAST, NOW)
    assert route.call_count == FAST.attempts
    assert result.outcome == "failed" and "HTTP 502" in result.message
    assert _state(engine) == before


def _rewritten(body: bytes, change) -> bytes:
    """``body`` (a SkyPilot CSV) with ``change(row)`` applied to every row."""
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    for r in rows:
        change(r)
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue().encode()


def _new_ids_at_a_thousandth(r: dict[str, str]) -> None:
    r["InstanceType"] += "_NEW"
    r["Price"] = f"{float(r['Price']) / 1000:g}"
    r["SpotPrice"] = f"{float(r['SpotPrice'] or r['Price']) / 1000:g}"


def _one_known_price_x1000(r: dict[str, str]) -> None:
    if (r["InstanceType"], r["Region"]) == (A100, "US"):
        r["Price"] = f"{float(r['Price']) * 1000:g}"


@pytest.mark.parametrize(
    "change, why",
    [
        (_new_ids_at_a_thousandth, "from the catalog's median"),
        (_one_known_price_x1000, "apart"),
    ],
)
def test_the_gate_holds_new_offers_and_single_moves(engine, tmp_path, change, why):
    """Issue 48: the gate compared only offers whose ids it knew (a file of new ids passed
    at 1/1000 of the price) and let up to a quarter of known offers move by any factor. Now
    a new offer is held against the catalog's median for its GPU and pricing model, and no
    single price may move more than 10x."""
    body = _rewritten(_full_runpod("1.39"), change)
    before = _state(engine)
    [result] = refresh(engine, ["runpod"], str(_mirror(tmp_path, body)), GateBounds(), FAST, NOW)
    assert result.outcome == "refused", result
    assert why in result.message
    assert _state(engine) == before


def test_the_gate_caps_the_offers_one_file_adds(engine, tmp_path):
    """Issue 48: nothing capped the offers a file added (60,000 rows -> 106,000 offers).
    A file whose new offers pass ``max(min_added, ratio x previous count)`` is refused."""
    good = _full_runpod("1.39")
    rows = list(csv.DictReader(io.StringIO(good.decode())))
    copies = [
        {**r, "Region": f"{r['Region']}-copy{n}"} for n in range(60) for r in rows
    ]  # the same prices in made-up regions: only the count is wrong
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows + copies)
    bounds = GateBounds(min_added=100, max_added_ratio=1.0)
    before = _state(engine)
    [result] = refresh(
        engine, ["runpod"], str(_mirror(tmp_path, buf.getvalue().encode())), bounds, FAST, NOW
    )
    assert result.outcome == "refused" and "new to the catalog" in result.message, result
    assert _state(engine) == before


def test_a_huge_cell_refuses_its_file_and_the_next_provider_still_runs(engine, tmp_path):
    """Issue 48: one CSV cell over 128 KiB (the csv module's field limit) raised out of the
    refresh: later providers never ran and ``--loop`` died. Now that file is refused (its
    line named) and the next provider is refreshed."""
    good = _full_runpod("1.39")
    lines = good.decode().splitlines()
    poisoned = "\n".join([lines[0], lines[1] + "x" * (200 * 1024), *lines[2:]]) + "\n"
    root = _mirror(tmp_path, poisoned.encode())
    results = refresh(engine, ["runpod", "paperspace"], str(root), GateBounds(), FAST, NOW)
    assert results[0].outcome == "refused"
    assert "line 2" in results[0].message and "field" in results[0].message
    # The next provider ran (its file is not in this mirror: failed on its own account).
    assert results[1].provider == "paperspace" and results[1].outcome == "failed"
    assert "paperspace/vms.csv" in results[1].message


@pytest.mark.parametrize("kind", ["fifo", "device", "oversize"])
def test_a_mirror_reads_only_bounded_regular_files(engine, tmp_path, kind):
    """Issue 48: a mirror file was read whole with no size cap (50 MB -> 1.07 GB RSS), a
    FIFO hung the refresh, /dev/zero exhausted memory. Now only a regular file within the
    size bound is read; anything else fails that provider at once."""
    import os

    target = tmp_path / catalog_path("runpod")
    target.parent.mkdir(parents=True, exist_ok=True)
    download = FAST
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "device":
        target.symlink_to("/dev/zero")
    else:
        target.write_bytes(_full_runpod("1.39") * 4)
        download = Download(timeout_s=5, attempts=1, backoff_s=0, max_bytes=1024)
    before = _state(engine)
    [result] = refresh(engine, ["runpod"], str(tmp_path), GateBounds(), download, NOW)
    assert result.outcome == "failed", result
    assert ("not a regular file" if kind != "oversize" else "larger than 1024") in result.message
    assert _state(engine) == before


def test_the_outcome_is_recorded_with_the_swap_or_not_at_all(engine, tmp_path, monkeypatch):
    """Issue 48: a kill between a provider's swap and its record left no catalog_refresh row
    for prices that had changed. Now the record is written in the swap's transaction: when
    it fails, the offers are not written either."""
    from app.store import refresh as store_refresh

    def dies(conn, result, now):
        raise RuntimeError("killed between the swap and the record")

    monkeypatch.setattr(store_refresh, "_write_record", dies)
    base = str(_mirror(tmp_path, _full_runpod("0.99")))
    before = _state(engine)
    [result] = refresh(engine, ["runpod"], base, GateBounds(), FAST, NOW)
    assert result.outcome == "failed" and "killed" in result.message
    assert _state(engine) == before


def test_the_newest_schema_folder_is_read_and_named(engine, tmp_path):
    """A mirror with RunPod in v8 and v9: the v9 file is read, and the result says so."""
    shipped = float(next(r for r in _rows(V8) if r["InstanceType"] == A100)["Price"])
    _mirror(tmp_path, _full_runpod(f"{shipped:.2f}"))  # v8: the shipped prices
    newer = tmp_path / catalog_path("runpod", "v9")
    newer.parent.mkdir(parents=True)
    newer.write_bytes(_full_runpod(f"{shipped - 0.10:.2f}"))
    [result] = refresh(engine, ["runpod"], str(tmp_path), GateBounds(), FAST, NOW)
    assert result.outcome == "refreshed", result
    assert "/v9/runpod/" in result.source
    assert _price(engine, OFFER) == (round(shipped - 0.10, 2), NOW.date())


def test_a_hostile_marketplace_file_changes_nothing(engine, tmp_path):
    """Vast's file (its own header) with every price cut a hundredfold: refused whole."""
    shipped = SOURCES / "skypilot-catalog" / "catalogs" / PROVIDER_FILES["vast"][0]
    body = _rewritten(
        shipped.read_bytes(), lambda r: r.update(Price=f"{float(r['Price']) / 100:g}")
    )
    target = tmp_path / catalog_path("vast")
    target.parent.mkdir(parents=True)
    target.write_bytes(body)
    before = _state(engine)
    [result] = refresh(engine, ["vast"], str(tmp_path), GateBounds(), FAST, NOW)
    assert result.outcome == "refused", result
    assert _state(engine) == before
