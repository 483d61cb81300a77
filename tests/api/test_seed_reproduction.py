"""Every figure of seed 004's cost tables, reproduced through the API from the catalog.

Expected values come from the post's printed rows (tests/seed_values.py), not from our output.
"""

from __future__ import annotations

import pytest

from tests.factories import SEED_OFFER_ID, break_even
from tests.seed_values import (
    BATCH_ITEM_USD,
    GPUS,
    PAPERSPACE_GPU_IDS,
    RUN_COST_USD,
    SEED_001_DAYS,
    printed,
)


@pytest.fixture()
def paperspace_2022(client) -> dict[str, str]:
    """Paperspace 2022 offer id per GPU name as printed in the post."""
    body = client.get("/v1/cloud-offers", params={"provider": "paperspace", "limit": 500}).json()
    offers = {
        o["instance_type"].removeprefix("Gradient "): o["id"]
        for o in body["data"]
        if o["instance_type"].startswith("Gradient ")
    }
    assert sorted(offers) == sorted(GPUS)
    return offers


@pytest.mark.parametrize("benchmark", sorted(RUN_COST_USD))
def test_single_run_costs(client, paperspace_2022, benchmark):
    options = [{"offer_id": paperspace_2022[g]} for g in GPUS]
    resp = client.post(
        "/v1/run-cost", json={"workload": {"benchmark": benchmark}, "options": options}
    )
    assert resp.status_code == 200, resp.text
    results = resp.json()["options"]
    for gpu, expected, result in zip(GPUS, RUN_COST_USD[benchmark], results, strict=True):
        assert result["gpu_id"] == PAPERSPACE_GPU_IDS[gpu]
        if expected is None:
            assert result["fits"] is False, gpu
            assert result["cost_usd"] is None and "does not fit" in result["note"]
        else:
            assert result["fits"] is True
            assert abs(result["cost_usd"] - expected) <= printed(expected, 2), (gpu, result)


@pytest.mark.parametrize("benchmark", sorted(BATCH_ITEM_USD))
def test_cost_per_batch_item(client, paperspace_2022, benchmark):
    options = [{"offer_id": paperspace_2022[g]} for g in GPUS]
    results = client.post(
        "/v1/run-cost", json={"workload": {"benchmark": benchmark}, "options": options}
    ).json()["options"]
    for gpu, expected, result in zip(GPUS, BATCH_ITEM_USD[benchmark], results, strict=True):
        assert abs(result["cost_per_batch_item_usd"] - expected) <= printed(expected, 3), gpu


def test_seed_break_even_through_the_api(client):
    # The GPU by its name as the article prints it, the offer by the catalog's seed row.
    body = break_even(
        desktop={"gpu": "RTX 3090"}, cloud={"price_usd_per_hour": None, "offer_id": SEED_OFFER_ID}
    )
    resp = client.post("/v1/break-even", json=body)
    assert resp.status_code == 200, resp.text
    out = resp.json()
    assert out["break_even_days"] == round(SEED_001_DAYS, 2)  # the article prints 293
    assert round(out["desktop"]["energy_kwh_per_year"]) == 591
    assert round(out["desktop"]["cost_usd_per_year"]) == 71
    assert out["desktop"]["busy_power_w"] == 450  # 350 W TDP (seed 001) + 100 W
    assert out["cloud"]["price_usd_per_hour"] == 2.14
    assert out["cloud"]["pricing_model"] == "spot"
    whats = [s["what"] for s in out["sources"]]
    assert any("aws-p3.2xlarge-spot-seed-2020" in w for w in whats)


def test_seed_break_even_with_profile_and_defaults(client):
    """The same example from the named profile and default electricity price."""
    body = {
        "desktop": {"gpu": "3090", "total_price_usd": 2200},
        "cloud": {"price_usd_per_hour": 2.14},
        "utilization_profile": "phd-desktop",
    }
    out = client.post("/v1/break-even", json=body).json()
    assert out["break_even_days"] == round(SEED_001_DAYS, 2)  # the article prints 293
    names = {a["name"] for a in out["assumptions"]}
    assert {"electricity_price_usd_per_kwh", "utilization", "desktop.base_power_w"} <= names


def test_seed_desktop_assembled_from_catalog(client):
    """2-GPU barebone + RTX 3090 at launch MSRP is the seed's $2,200 desktop: priced as on the
    card's launch day (``as_of``), before the catalog's later street price of it."""
    body = {
        "desktop": {"gpu": "rtx-3090", "barebone": "barebone-2gpu-dettmers-2020"},
        "cloud": {"price_usd_per_hour": 2.14},
        "utilization": 0.15,
        "electricity_price_usd_per_kwh": 0.12,
    }
    launch = next(r for r in _curated_gpus() if r["id"] == "rtx-3090")["price_new_as_of"]
    out = client.post(f"/v1/break-even?as_of={launch}", json=body).json()
    assert out["desktop"]["upfront_usd"] == 2200
    assert out["break_even_days"] == round(SEED_001_DAYS, 2)  # the article prints 293


def _curated_gpus() -> list[dict[str, str]]:
    import csv

    from app.catalog.sources.files import CURATED

    with (CURATED / "gpus.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))
