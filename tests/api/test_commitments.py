"""Committed-use offers (issue 20, "Commitments"): Google Cloud's 1- and 3-year commitments
for the catalog's GPU machine types. Expected values come from the vendored price file
(``sources/gcp-pricing/gpu_commitments.csv``, Google's Billing Catalog via Cyclenerd's
pricing.yml) and the billing rule Google documents (a commitment is billed every month of its
term, used or not), never from the service's output."""

from __future__ import annotations

import math

import pytest

from app.catalog.sources.files import SOURCES, read_csv
from tests.seed_values import SEED_001 as S

MACHINE, REGION = "a2-highgpu-1g", "us-central1"
ROW = next(
    r
    for r in read_csv(SOURCES / "gcp-pricing" / "gpu_commitments.csv")
    if r["machine_type"] == MACHINE and r["region"] == REGION
)
# a month's bill is in cents
MONTH_1Y = round(float(ROW["usd_per_month_1y"]), 2)
MONTH_3Y = round(float(ROW["usd_per_month_3y"]), 2)
OFFER_1Y = f"gcp-{MACHINE}-{REGION}-committed-use-1y"
OFFER_3Y = f"gcp-{MACHINE}-{REGION}-committed-use-3y"
DAYS_PER_MONTH = 365 / 12


def _on_demand_usd_per_hour() -> float:
    """GCP's on-demand price of the machine in the region as SkyPilot's subset lists it: the
    host VM row plus the 1x A100 row (GCP prices the GPU apart from the VM)."""
    rows = read_csv(SOURCES / "skypilot-catalog/catalogs/v8/gcp/vms_gpu_subset.csv")
    here = [r for r in rows if r["Region"] == REGION and r["Price"]]
    host = min(float(r["Price"]) for r in here if r["InstanceType"] == MACHINE)
    gpu = min(
        float(r["Price"])
        for r in here
        if not r["InstanceType"] and r["AcceleratorName"] == "A100"
        and float(r["AcceleratorCount"]) == 1
    )  # fmt: skip
    return host + gpu


ON_DEMAND = _on_demand_usd_per_hour()


def _compare(client, gpu_hours_per_month: float) -> dict:
    """Compare the region's GCP A100 offers for a year of ``gpu_hours_per_month``."""
    body = {
        "workload": {"gpu": "a100-sxm4-40gb"},
        "gpu_hours_per_month": gpu_hours_per_month,
        "horizon_months": 12,
        "filters": {
            "providers": ["gcp"],
            "regions": [REGION],
            "gpus": ["a100-sxm4-40gb"],
            "include_desktop": False,
        },
        "limit": 50,
    }
    r = client.post("/v1/compare", json=body)
    assert r.status_code == 200, r.text
    return {o["id"]: o for o in r.json()["options"]}


def test_offers_carry_the_files_prices_and_terms(client):
    for offer_id, monthly, months in ((OFFER_1Y, MONTH_1Y, 12), (OFFER_3Y, MONTH_3Y, 36)):
        r = client.get(f"/v1/cloud-offers/{offer_id}")
        assert r.status_code == 200, r.text
        o = r.json()
        assert o["pricing_model"] == "committed_use"
        assert o["commitment_term_months"] == months
        assert o["monthly_fee_usd"] == pytest.approx(monthly, abs=0.005)
        assert o["price_usd_per_hour"] == pytest.approx(monthly / 730, abs=1e-5)
        assert "Billing Catalog" in o["source"] and o["as_of"] == "2026-07-30"
    # the commitments are cheaper per hour than the same file's on-demand price
    assert MONTH_3Y < MONTH_1Y < float(ROW["usd_per_hour"]) * 730


def test_offers_filter_by_pricing_model(client):
    r = client.get("/v1/cloud-offers", params={"pricing_model": "committed_use", "limit": 500})
    assert r.status_code == 200, r.text
    ids = {o["id"] for o in r.json()["data"]}
    rows = read_csv(SOURCES / "gcp-pricing" / "gpu_commitments.csv")
    assert len(ids) == 2 * len(rows) and {OFFER_1Y, OFFER_3Y} <= ids


def _break_even(client, offer_id, utilization):
    body = {
        "desktop": {"gpu": "rtx-3090", "total_price_usd": S["desktop_usd"]},
        "cloud": {"offer_id": offer_id},
        "utilization": utilization,
        "electricity_price_usd_per_kwh": S["usd_per_kwh"],
        "normalize_performance": False,
    }
    r = client.post("/v1/break-even", json=body)
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("utilization", [0.05, 0.5, 1.0])
def test_a_commitment_costs_the_same_whatever_the_use(client, utilization):
    res = _break_even(client, OFFER_1Y, utilization)
    # one instance covers up to 730 h a month: the month's bill is the commitment's
    assert res["cloud"]["cost_usd_per_year"] == pytest.approx(MONTH_1Y * 12, rel=1e-6)
    warning = next(w for w in res["warnings"] if "12-month commitment" in w)
    assert f"{MONTH_1Y * 12:,.0f}" in warning


def test_break_even_against_a_commitment(client):
    u = 0.15
    res = _break_even(client, OFFER_3Y, u)
    desk_day = (S["gpu_w"] + S["cpu_w"]) / 1000 * u * 24 * S["usd_per_kwh"]
    cloud_day = MONTH_3Y / DAYS_PER_MONTH
    # seed 001's desktop draws power only while busy: its year is the busy energy alone
    assert res["desktop"]["cost_usd_per_year"] == pytest.approx(desk_day * 365)
    expected = S["desktop_usd"] / (cloud_day - desk_day)
    assert res["break_even_days"] == pytest.approx(expected, abs=0.01)


def test_run_cost_on_a_commitment_uses_its_effective_rate(client):
    r = client.post(
        "/v1/run-cost",
        json={
            "workload": {"runtime_s": 3600, "gpu": "a100-sxm4-40gb"},
            "options": [{"offer_id": OFFER_1Y}],
        },
    )
    assert r.status_code == 200, r.text
    res = r.json()
    assert res["options"][0]["cost_usd"] == pytest.approx(MONTH_1Y / 730, abs=1e-4)
    assert any("12-month commitment" in w for w in res["warnings"])


def test_compare_owes_the_whole_term(client):
    by_id = _compare(client, 700)
    # 12 months of a 3-year commitment still owe 36 months
    assert by_id[OFFER_3Y]["total_cost_usd"] == pytest.approx(MONTH_3Y * 36, rel=1e-6)
    assert by_id[OFFER_1Y]["total_cost_usd"] == pytest.approx(MONTH_1Y * 12, rel=1e-6)
    od = f"gcp-{MACHINE}-{REGION}-on-demand"
    assert by_id[od]["total_cost_usd"] == pytest.approx(ON_DEMAND * 700 * 12, rel=1e-6)
    # near-full use for a year: the 1-year commitment beats on-demand
    assert by_id[OFFER_1Y]["total_cost_usd"] < by_id[od]["total_cost_usd"]


def test_more_hours_than_an_instance_has_commit_more_instances(client):
    opt = _compare(client, 1000)[OFFER_1Y]
    assert opt["cost_usd_per_month"] == pytest.approx(math.ceil(1000 / 730) * MONTH_1Y, rel=1e-6)


# -- the fleet plan: own the base, commit the middle, rent the peak --------------------------

PLAN = {
    "gpu": "a100-sxm4-40gb",
    "baseline_gpu_hours_per_month": 400,
    "months": 36,
    "start_month": "2027-01",
    "region": "us-ca",
    "cloud": {"offer_id": f"gcp-{MACHINE}-{REGION}-on-demand"},
    "desktops": [{"gpu": "rtx-4090"}],
    "constraints": {"max_machines": 0},  # no room for desktops: cloud only
    "tax_exempt": True,
    "annual_discount_rate": 0,
}
# seed 001's shared cluster: an instance serves at most 60 % of its hours
CAPACITY = 730 * 0.60


def test_plan_commits_the_base_when_it_pays(client):
    r = client.post("/v1/plan", json=PLAN)
    assert r.status_code == 200, r.text
    res = r.json()
    by_offer = {c["offer_id"]: c for c in res["commitments"]}
    assert set(by_offer) == {OFFER_1Y, OFFER_3Y}  # default: the cloud machine's commitments
    assert by_offer[OFFER_3Y]["monthly_fee_usd"] == pytest.approx(MONTH_3Y)
    assert by_offer[OFFER_3Y]["capacity_gpu_hours_per_month"] == pytest.approx(CAPACITY)
    on_demand = float(ROW["usd_per_hour"])  # Google's own file
    # 400 h a month fit one instance (438 h): 36 months committed for 3 years cost
    # 36 x $938.57, against 36 x 400 h x $3.67 rented; the 1-year term costs more than 3 years
    assert 36 * 400 * on_demand > 36 * MONTH_3Y and MONTH_3Y < MONTH_1Y
    assert by_offer[OFFER_3Y]["starts"] == ["2027-01"] and by_offer[OFFER_1Y]["starts"] == []
    plan = next(s for s in res["strategies"] if s["strategy"] == "plan")
    assert plan["commitment_usd"] == pytest.approx(36 * MONTH_3Y)
    assert plan["total_usd"] == pytest.approx(36 * MONTH_3Y)
    assert all(m["committed_instances"] == 1 for m in res["schedule"])
    assert sum(m["rented_gpu_hours"] for m in res["schedule"]) == pytest.approx(0, abs=1e-6)


def test_plan_rents_what_a_commitment_would_waste(client):
    # 100 h a month: a 3-year term ($938.57 a month) costs more than renting ($367 a month)
    r = client.post("/v1/plan", json={**PLAN, "baseline_gpu_hours_per_month": 100})
    assert r.status_code == 200, r.text
    res = r.json()
    assert all(c["starts"] == [] for c in res["commitments"])
    plan = next(s for s in res["strategies"] if s["strategy"] == "plan")
    assert plan["total_usd"] == pytest.approx(36 * 100 * ON_DEMAND)


def test_plan_refuses_a_commitment_as_its_hourly_cloud(client):
    body = {**PLAN, "cloud": {"offer_id": OFFER_1Y}}
    r = client.post("/v1/plan", json=body)
    assert r.status_code == 422 and "commitments" in r.json()["detail"]
    body = {**PLAN, "commitments": [f"gcp-{MACHINE}-{REGION}-on-demand"]}
    r = client.post("/v1/plan", json=body)
    assert r.status_code == 422 and "not a commitment" in r.json()["detail"]
    r = client.post("/v1/plan", json={**PLAN, "commitments": []})
    assert r.status_code == 200 and r.json()["commitments"] == []


def test_plan_report_lists_the_commitments(client):
    r = client.post("/v1/plan/report", params={"format": "html"}, json=PLAN)
    assert r.status_code == 200, r.text
    page = r.text
    assert "Candidate commitments" in page and "commit 1 of gcp a2-highgpu-1g" in page
    assert f"${MONTH_3Y:,.2f}" in page
