"""How current the prices are: `GET /v1/catalog/status`, `/readyz`'s `prices` and the
`/metrics` gauges, against the shipped catalog's dates (app/catalog/sources/skypilot.py's
file dates, read from the shipped files' metadata, never from our answers)."""

from __future__ import annotations

import datetime as dt

from app.catalog.sources.skypilot import catalog_files
from tests.clock import ages_days, around


def test_status_lists_each_provider_with_its_newest_price(client):
    body, days = around(lambda: client.get("/v1/catalog/status").json())
    assert body["stale_after_days"] == 365
    by = {p["provider"]: p for p in body["providers"]}
    newest_runpod_file = max(m.as_of for m in catalog_files("runpod"))
    runpod = by["runpod"]
    assert runpod["newest_price_as_of"] == newest_runpod_file.isoformat()
    assert runpod["newest_price_age_days"] in ages_days(newest_runpod_file, days)
    assert runpod["oldest_price_as_of"] <= runpod["newest_price_as_of"]
    assert runpod["offers"] > 0
    assert by["azure"]["newest_price_as_of"] == catalog_files("azure")[0].as_of.isoformat()


def test_readyz_and_metrics_carry_the_price_ages(client):
    (ready, metrics), days = around(
        lambda: (client.get("/readyz").json(), client.get("/metrics").text)
    )
    ages = {p["provider"]: p["newest_price_age_days"] for p in ready["prices"]}
    expected = ages_days(max(m.as_of for m in catalog_files("runpod")), days)
    assert ages["runpod"] in expected
    assert any(
        f'gpucost_catalog_price_age_days{{provider="runpod"}} {float(age)}' in metrics
        for age in expected
    )
    assert 'gpucost_catalog_last_refresh_success_timestamp_seconds{provider="aws"}' in metrics


def test_an_h100_pcie_desktop_has_a_sourced_2024_or_later_price(client):
    """'Buy an H100 vs rent': the break-even answers from the curated, dated street price."""
    import csv

    from app.catalog.sources.files import CURATED

    row = next(r for r in csv.DictReader((CURATED / "gpus.csv").open()) if r["id"] == "h100-pcie")
    assert dt.date.fromisoformat(row["price_street_as_of"]).year >= 2024
    assert row["price_street_source"]
    body = {"desktop": {"gpu": "h100-pcie"}, "cloud": {"price_usd_per_hour": 2.39}}
    res = client.post("/v1/break-even", json=body)
    assert res.status_code == 200, res.text
    answer = res.json()
    used = next(a for a in answer["assumptions"] if a["name"] == "desktop.gpu_price_usd")
    assert used["value"] == float(row["price_street_usd"])
    assert f"street price (new) of {row['price_street_as_of']}" in used["source"]
