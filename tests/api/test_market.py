"""Today's market: what a card costs by condition, providers' kinds and
historical prices. Expected values come from the curated files (tests.curated)."""

from __future__ import annotations

import pytest

from tests import curated

DAYS_PER_YEAR = 365.0


def _break_even(client, desktop):  # type: ignore[no-untyped-def]
    body = {"desktop": desktop, "cloud": {"price_usd_per_hour": 0.5}, "utilization": 0.15}
    r = client.post("/v1/break-even", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def _price_note(res):  # type: ignore[no-untyped-def]
    return next(a for a in res["assumptions"] if a["name"] == "desktop.gpu_price_usd")


@pytest.mark.parametrize("condition", ["new", "used"])
def test_a_card_is_priced_in_the_condition_asked(client, condition):
    row = curated.rows("gpus")["rtx-3090"]
    expected = curated.purchase_usd(row, condition)
    res = _break_even(client, {"gpu": "rtx-3090", "condition": condition})
    note = _price_note(res)
    assert note["value"] == pytest.approx(expected)
    assert f"condition {condition} as asked" in note["source"]
    kind = "used price" if condition == "used" else "street price (new)"
    assert note["source"].startswith(f"default: {kind}")


def test_a_card_out_of_production_defaults_to_its_used_price(client):
    rows = curated.rows("gpus")
    ended = [r for r in rows.values() if r.get("production_ended_as_of") and r["price_used_usd"]]
    if not ended:
        pytest.skip("no card in gpus.csv has a recorded end of production and a used price")
    row = ended[0]
    note = _price_note(_break_even(client, {"gpu": row["id"]}))
    assert note["value"] == pytest.approx(float(row["price_used_usd"]))
    assert f"out of production since {row['production_ended_as_of']}" in note["source"]


def test_a_historical_providers_offer_says_so(client):
    providers = {p["provider"]: p for p in client.get("/v1/catalog/status").json()["providers"]}
    assert providers["paperspace"]["historical_note"]
    assert providers["vast"]["kind"] == "marketplace"
    assert providers["aws"]["kind"] == "cloud" and providers["aws"]["historical_note"] is None
    offer = client.get("/v1/cloud-offers", params={"provider": "paperspace"}).json()["data"][0]
    body = {"desktop": {"gpu": "rtx-3090"}, "cloud": {"offer_id": offer["id"]}, "utilization": 0.15}
    res = client.post("/v1/break-even", json=body).json()
    assert any(w.startswith(f"offer {offer['id']}: historical prices") for w in res["warnings"])
