"""Price history, `as_of` reads, price age, and catalog import (SkyPilot and our own format).

Expected prices are read from the shipped copies of the SkyPilot catalog CSVs
(``app/data/sources/skypilot-catalog``, byte-identical to ``shared/data``), never from our
own output.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select, text
from sqlmodel import Session

from app.catalog import importer
from app.catalog.sources import skypilot
from app.catalog.sources.files import SOURCES
from app.models import CloudOffer, PricePoint
from app.store import imports, keys
from tests.clock import ages_days, around, utc_today
from tests.dbs import seeded_client, seeded_engine  # noqa: F401  (fixtures)

SKYPILOT = SOURCES / "skypilot-catalog"
AWS = SKYPILOT / "catalogs/v8/aws/vms_gpu_subset.csv"
SEED_DESKTOP = {"gpu": "3090", "total_price_usd": 2200}


def _aws_rows() -> list[dict[str, str]]:
    with AWS.open(newline="") as fh:
        return list(csv.DictReader(fh))


def _on_demand(rows, itype: str, region: str) -> float:
    """AWS on-demand price of an instance in a region: the lowest zone's `Price`."""
    return min(
        float(r["Price"]) for r in rows if (r["InstanceType"], r["Region"]) == (itype, region)
    )


def _csv(rows: list[dict[str, str]]) -> bytes:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue().encode()


@pytest.fixture(scope="module")
def write_key(engine) -> str:
    with Session(engine) as s:
        return keys.create(s, "history tests", ["read", "write"])[1]


def _count(engine, model) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(model.__table__)).scalar_one()


def test_importing_the_shipped_skypilot_catalogs_changes_nothing(engine):
    """Every SkyPilot file gpucost ships, imported into the seeded catalog: all unchanged
    (idempotent), no price points, no revision bump; counts per provider match the offers
    whose source is that file."""
    files = [importer.parse(str(p), p.read_bytes()) for p in sorted(SKYPILOT.rglob("*.csv"))]
    assert {f.format.split()[1] for f in files} == {"v6", "v8", "v9"}
    points = _count(engine, PricePoint)
    report = imports.apply(engine, files)
    assert report.counts()["added"] == report.counts()["changed"] == 0
    assert report.counts()["rejected"] == 0
    assert report.price_points_added == 0 and report.revision is None
    assert _count(engine, PricePoint) == points
    with engine.connect() as conn:
        for provider in skypilot.SKYPILOT_FILES:
            urls = [skypilot.skypilot_url(m.path) for m in skypilot.catalog_files(provider)]
            n = conn.execute(
                select(func.count()).where(CloudOffer.__table__.c.source.in_(urls))
            ).scalar_one()
            parsed = {o["id"] for f in files if f.provider == provider for o in f.offers}
            assert len(parsed) == n > 0, provider
            assert report.unchanged[provider] == sum(
                len(f.offers) for f in files if f.provider == provider
            ), provider


def test_gcp_offers_sum_host_and_gpu_rows():
    """GCP lists the VM and the GPUs as separate rows; an offer's price is their sum."""
    path = SKYPILOT / "catalogs/v8/gcp/vms_gpu_subset.csv"
    rows = list(csv.DictReader(path.open(newline="")))
    parsed = importer.parse(str(path), path.read_bytes())
    offer = next(
        o
        for o in parsed.offers
        if o["instance_type"] == "a2-highgpu-1g" and o["pricing_model"] == "on_demand"
    )
    host = min(
        float(r["Price"])
        for r in rows
        if r["InstanceType"] == "a2-highgpu-1g" and r["Region"] == offer["region"]
    )
    gpu = min(
        float(r["Price"])
        for r in rows
        if not r["InstanceType"]
        and r["AcceleratorName"] == "A100"
        and r["AcceleratorCount"].startswith("1")
        and r["Region"] == offer["region"]
    )
    assert offer["price_usd_per_hour"] == pytest.approx(host + gpu, abs=1e-6)


def test_a_price_change_is_dated_and_the_old_price_stays_readable(client, engine, write_key):
    rows = _aws_rows()
    old = _on_demand(rows, "g4dn.xlarge", "us-east-1")
    new = round(old * 1.25, 4)
    changed = [
        {**r, "Price": str(new)}
        if (r["InstanceType"], r["Region"]) == ("g4dn.xlarge", "us-east-1")
        else r
        for r in rows
    ]
    before = _count(engine, PricePoint)
    r = client.post(
        "/v1/admin/imports",
        params={"filename": "prices-2026/aws/vms.csv", "as_of": "2026-01-15"},
        content=_csv(changed),
        headers={"X-API-Key": write_key, "Content-Type": "text/csv"},
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["by_provider"]["aws"]["changed"] == 1
    assert body["by_provider"]["aws"]["unchanged"] == body["totals"]["unchanged"] > 200
    assert body["price_points_added"] == 1 and body["catalog_revision"] is not None
    assert _count(engine, PricePoint) == before + 1

    offer_id = "aws-g4dn.xlarge-us-east-1-on-demand"
    now = client.get(f"/v1/cloud-offers/{offer_id}").json()
    then = client.get(f"/v1/cloud-offers/{offer_id}", params={"as_of": "2026-01-14"}).json()
    assert now["price_usd_per_hour"] == pytest.approx(new)
    assert now["as_of"] == "2026-01-15"
    assert then["price_usd_per_hour"] == pytest.approx(old)
    assert then["as_of"] == skypilot.SKYPILOT_FILES["aws"].as_of.isoformat()

    # A calculation on either day uses that day's price: 24 busy hours a day at 100 % (the
    # same hours on both sides, so the day's cost is the price x 24).
    req = {
        "desktop": SEED_DESKTOP,
        "cloud": {"offer_id": offer_id},
        "utilization": 1.0,
        "normalize_performance": False,
    }
    for day, price in (("2026-01-14", old), ("2026-02-01", new)):
        res = client.post("/v1/break-even", params={"as_of": day}, json=req).json()
        assert res["cloud"]["price_usd_per_hour"] == pytest.approx(price)
        assert res["cloud"]["cost_usd_per_day"] == pytest.approx(price * 24, rel=1e-6)
        assert res["prices"]["prices_as_of"] == day

    # Before the offer's first price it did not exist.
    r = client.get(f"/v1/cloud-offers/{offer_id}", params={"as_of": "2020-01-01"})
    assert r.status_code == 404 and "no price on 2020-01-01" in r.json()["detail"]

    # The same file again: nothing changes (idempotent).
    again = client.post(
        "/v1/admin/imports",
        params={"filename": "prices-2026/aws/vms.csv", "as_of": "2026-01-15"},
        content=_csv(changed),
        headers={"X-API-Key": write_key, "Content-Type": "text/csv"},
    ).json()
    assert again["totals"]["changed"] == again["totals"]["added"] == 0
    assert again["price_points_added"] == 0 and again["catalog_revision"] is None


def test_a_backdated_price_adds_history_without_moving_the_current_price(client, write_key):
    rows = [
        r for r in _aws_rows() if (r["InstanceType"], r["Region"]) == ("g5.xlarge", "us-east-1")
    ]
    current = _on_demand(rows, "g5.xlarge", "us-east-1")
    older = [{**r, "Price": str(round(current * 0.8, 4))} for r in rows]
    r = client.post(
        "/v1/admin/imports",
        params={"filename": "old/aws/vms.csv", "as_of": "2024-01-01"},
        content=_csv(older),
        headers={"X-API-Key": write_key, "Content-Type": "text/csv"},
    )
    # No price was in force on 2024-01-01 (the shipped file is dated 2025-11-01): the
    # on-demand and spot offers each get a dated price and fee.
    assert r.status_code == 200 and r.json()["price_points_added"] == 4
    assert r.json()["totals"]["changed"] == 0  # the current prices did not move
    offer = "aws-g5.xlarge-us-east-1-on-demand"
    assert client.get(f"/v1/cloud-offers/{offer}").json()["price_usd_per_hour"] == pytest.approx(
        current
    )
    old = client.get(f"/v1/cloud-offers/{offer}", params={"as_of": "2024-06-01"}).json()
    assert old["price_usd_per_hour"] == pytest.approx(round(current * 0.8, 4))


def test_malformed_rows_are_rejected_with_file_and_line_and_the_rest_imports(client, write_key):
    rows = [r for r in _aws_rows() if r["Region"] == "us-west-2"][:4]
    rows[1] = {**rows[1], "Price": "abc"}
    rows[2] = {**rows[2], "AcceleratorCount": "-2"}
    r = client.post(
        "/v1/admin/imports",
        params={"filename": "bad/aws/vms.csv"},
        content=_csv(rows),
        headers={"X-API-Key": write_key, "Content-Type": "text/csv"},
    )
    assert r.status_code == 200
    body = r.json()
    assert body["rejected"][0].startswith("bad/aws/vms.csv:3: Price 'abc'")
    assert body["rejected"][1].startswith("bad/aws/vms.csv:4: AcceleratorCount -2")
    assert body["totals"]["rejected"] == 2


def test_a_file_in_an_unknown_format_or_dated_in_the_future_writes_nothing(
    client, engine, write_key
):
    before = _count(engine, PricePoint)
    for params, content in (
        ({"filename": "x.csv"}, b"a,b\n1,2\n"),
        (
            {"filename": "aws/vms.csv", "as_of": (utc_today() + dt.timedelta(days=3)).isoformat()},
            AWS.read_bytes(),
        ),
    ):
        r = client.post(
            "/v1/admin/imports",
            params=params,
            content=content,
            headers={"X-API-Key": write_key, "Content-Type": "text/csv"},
        )
        assert r.status_code == 422, r.text
        assert r.headers["content-type"] == "application/problem+json"
    assert _count(engine, PricePoint) == before


def test_own_format_json_adds_an_offer_and_rejects_an_unknown_gpu(client, write_key):
    doc = {
        "offers": [
            {
                "provider": "lambda",
                "instance_type": "gpu_1x_test",
                "gpu_id": "rtx-a6000",
                "gpu_count": 1,
                "pricing_model": "on_demand",
                "price_usd_per_hour": 0.5,
                "region": "us-test-1",
                "as_of": "2026-03-01",
                "source": "our price list",
            },
            {
                "provider": "lambda",
                "instance_type": "gpu_1x_nope",
                "gpu_id": "no-such-gpu",
                "gpu_count": 1,
                "pricing_model": "on_demand",
                "price_usd_per_hour": 1,
            },
            {
                "provider": "lambda",
                "instance_type": "x",
                "gpu_id": "rtx-a6000",
                "gpu_count": 0,
                "pricing_model": "on_demand",
                "price_usd_per_hour": 1,
            },
        ]
    }
    r = client.post(
        "/v1/admin/imports",
        params={"filename": "mine.json"},
        content=json.dumps(doc),
        headers={"X-API-Key": write_key, "Content-Type": "application/json"},
    )
    body = r.json()
    assert body["totals"] == {"added": 1, "changed": 0, "unchanged": 0, "rejected": 2}
    assert any(x.startswith("mine.json:2: gpu_id 'no-such-gpu'") for x in body["rejected"])
    assert any(x.startswith("mine.json:3: gpu_count") for x in body["rejected"])
    offer = client.get("/v1/cloud-offers/lambda-gpu-1x-test-us-test-1-on-demand").json()
    assert offer["price_usd_per_hour"] == 0.5 and offer["source"] == "our price list"
    # Lambda's billing rule in providers.csv: no increment, no minimum (continuous).
    assert offer["billing_increment_s"] is None and offer["billing_minimum_s"] is None


def test_results_state_the_age_of_their_prices(client):
    """Seed 001's offer is dated 2020-09-07 (the article): older than 90 days, so warned."""
    req = {
        "desktop": SEED_DESKTOP,
        "cloud": {"offer_id": "aws-p3.2xlarge-spot-seed-2020"},
        "utilization": 0.15,
        "electricity_price_usd_per_kwh": 0.12,
    }
    res, days = around(lambda: client.post("/v1/break-even", json=req).json())
    assert res["break_even_days"] == pytest.approx(292.96)
    age = res["prices"]
    assert age["oldest_price_date"] == "2020-09-07"
    assert age["oldest_price_age_days"] in ages_days(dt.date(2020, 9, 7), days)
    assert age["max_age_days"] == 90 and age["prices_used"] == 1
    assert len(res["warnings"]) == 1 and "aws-p3.2xlarge-spot-seed-2020" in res["warnings"][0]
    # Prices given in the request are not catalog prices: nothing to warn about.
    given = {
        "desktop": SEED_DESKTOP,
        "cloud": {"price_usd_per_hour": 2.14},
        "utilization": 0.15,
        "electricity_price_usd_per_kwh": 0.12,
    }
    res = client.post("/v1/break-even", json=given).json()
    assert res["prices"]["prices_used"] == 0 and res["warnings"] == []


def test_the_cli_import_reports_per_provider_and_exits_3_on_rejected_rows(tmp_path):
    db = tmp_path / "cli.db"
    env = {**os.environ, "GPUCOST_DATABASE_URL": f"sqlite:///{db}"}
    gpucost = str(Path(sys.executable).parent / "gpucost")
    subprocess.run([gpucost, "migrate"], env=env, check=True, capture_output=True)
    subprocess.run([gpucost, "seed"], env=env, check=True, capture_output=True)
    ok = subprocess.run(
        [gpucost, "catalog", "import", str(SKYPILOT)], env=env, capture_output=True, text=True
    )
    assert ok.returncode == 0, ok.stderr
    # every SkyPilot offer of every shipped file, unchanged (a RunPod v8 row restating an
    # offer of v6 counts in both files)
    total = sum(
        len(skypilot.load_skypilot(p, skypilot.LoadReport({}), skypilot.shipped_input(m)))
        for p in skypilot.SKYPILOT_FILES
        for m in skypilot.catalog_files(p)
    )
    assert "total" in ok.stdout and str(total) in ok.stdout
    bad = tmp_path / "runpod" / "vms.csv"
    bad.parent.mkdir()
    lines = (SKYPILOT / "catalogs/v6/runpod/vms.csv").read_text().splitlines()
    lines[2] = lines[2].rsplit(",", 1)[0] + ",free"
    bad.write_text("\n".join(lines[:5]) + "\n")
    res = subprocess.run(
        [gpucost, "catalog", "import", str(bad), "--as-of", "2026-02-01"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 3
    assert f"{bad}:3: Price 'free' is not a number" in res.stderr.replace("\n", "")
    unknown = tmp_path / "x.csv"
    unknown.write_text("a,b\n1,2\n")
    res = subprocess.run(
        [gpucost, "catalog", "import", str(unknown)], env=env, capture_output=True, text=True
    )
    assert res.returncode == 2 and "nothing imported" in res.stderr


@pytest.mark.parametrize("where", ["plan", "staging", "swap"])
def test_a_failure_mid_import_leaves_the_catalog_as_it_was(engine, monkeypatch, where):
    """A failure while the import compares rows, after some batches are staged (each
    committed), or in the write transaction after the offers are written: nothing shows."""
    rows = _aws_rows()
    changed = [{**r, "Price": str(float(r["Price"]) * 2) if r["Price"] else ""} for r in rows]
    parsed = importer.parse("aws/vms.csv", _csv(changed), as_of=dt.date(2026, 2, 2))
    seen = {"n": 0}
    name, at = {
        "plan": ("plan_upsert", 100),
        "staging": ("insert", 3),
        "swap": ("bump_revision", 1),
    }[where]
    real = getattr(imports, name)

    def failing(*args, **kw):
        seen["n"] += 1
        if seen["n"] == at:
            raise RuntimeError("disk full")
        return real(*args, **kw)

    monkeypatch.setattr(imports, "BATCH_ROWS", 10)
    with engine.connect() as conn:
        snapshot_before = conn.execute(
            text("SELECT id, price_usd_per_hour FROM cloud_offer ORDER BY id")
        ).all()
    points = _count(engine, PricePoint)
    monkeypatch.setattr(imports, name, failing)
    with pytest.raises(RuntimeError):
        imports.apply(engine, [parsed])
    with engine.connect() as conn:
        after = conn.execute(
            text("SELECT id, price_usd_per_hour FROM cloud_offer ORDER BY id")
        ).all()
    assert after == snapshot_before and _count(engine, PricePoint) == points


def test_own_format_commitments_need_their_term_and_bill():
    header = "provider,instance_type,gpu_id,gpu_count,pricing_model,price_usd_per_hour,"
    header += "monthly_fee_usd,commitment_term_months,region\n"
    lines = [
        "gcp,a2-highgpu-1g,a100-sxm4-40gb,1,committed_use,2.3142,1689.37,12,us-east1",
        "gcp,a2-highgpu-1g,a100-sxm4-40gb,1,committed_use,2.3142,1689.37,,us-west1",
        "gcp,a2-highgpu-1g,a100-sxm4-40gb,1,on_demand,3.67,0,12,us-west1",
        "gcp,a2-highgpu-1g,a100-sxm4-40gb,1,committed_use,2.3142,0,12,us-west1",
    ]
    parsed = importer.parse("own.csv", (header + "\n".join(lines)).encode())
    assert [o["commitment_term_months"] for o in parsed.offers] == [12]
    assert [r.line for r in parsed.rejected] == [3, 4, 5]
    assert all(
        "commitment_term_months" in r.reason or "monthly_fee_usd" in r.reason
        for r in parsed.rejected
    )


def test_an_import_with_a_cell_over_the_csv_field_limit_is_a_422(client, write_key, engine):
    """Issue 48: a CSV cell over 128 KiB (the csv module's field limit) made an admin import
    a 500. Now it is a 422 problem naming the line, and nothing is written."""
    rows = [r for r in _aws_rows() if r["InstanceType"] == "g5.xlarge"]
    rows[1] = {**rows[1], "Region": "x" * (200 * 1024)}
    before = _count(engine, PricePoint)
    r = client.post(
        "/v1/admin/imports",
        params={"filename": "huge/aws/vms.csv", "as_of": "2026-01-20"},
        content=_csv(rows),
        headers={"X-API-Key": write_key, "Content-Type": "text/csv"},
    )
    assert r.status_code == 422, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert "line 3" in r.json()["detail"] and "field larger" in r.json()["detail"]
    assert _count(engine, PricePoint) == before


def test_a_dated_read_after_a_price_change_carries_the_new_date(client, write_key):
    """Issue 48: after an admin changed an offer's price (dated the day of the write), a read
    ``as_of`` that day showed the new price with the old date (the offer's unchanged fee,
    read after the price, set the row's date back), so the answer's price age called a
    price set today years old. Now the row is dated by its newest price point."""
    offer = "aws-p3.2xlarge-spot-seed-2020"
    before = utc_today()
    stored = client.get(f"/v1/admin/cloud-offers/{offer}", headers={"X-API-Key": write_key})
    body = {k: v for k, v in stored.json()["data"].items() if k != "id"}
    new_price = round(body["price_usd_per_hour"] * 1.1, 4)
    r = client.put(
        f"/v1/admin/cloud-offers/{offer}",
        json={**body, "price_usd_per_hour": new_price},
        headers={"X-API-Key": write_key, "If-Match": stored.headers["etag"]},
    )
    assert r.status_code == 200, r.text
    today = client.get(f"/v1/cloud-offers/{offer}").json()["as_of"]
    assert today in {before.isoformat(), utc_today().isoformat()}
    for params in ({}, {"as_of": today}):
        row = client.get(f"/v1/cloud-offers/{offer}", params=params).json()
        assert (row["price_usd_per_hour"], row["as_of"]) == (new_price, today), params
    req = {"desktop": SEED_DESKTOP, "cloud": {"offer_id": offer}, "utilization": 0.15}
    res, days = around(
        lambda: client.post("/v1/break-even", params={"as_of": today}, json=req).json()
    )
    assert res["prices"]["oldest_price_date"] == today
    assert res["prices"]["oldest_price_age_days"] in ages_days(dt.date.fromisoformat(today), days)
