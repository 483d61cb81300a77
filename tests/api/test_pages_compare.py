"""The compare calculator page (``GET /compare``): an AWS on-demand V100 through the form
against its price in SkyPilot's catalog as shipped, the same ranking as ``POST /v1/compare``,
problems beside their fields."""

from __future__ import annotations

import re

from tests.api.test_catalog import source_rows
from tests.pages_html import scripts_are_only_vendored

ONE_V100 = {
    "gpu_hours_per_month": "100",
    "gpu": "v100-16gb",
    "horizon_months": "12",
    "providers": "aws",
    "gpus": "v100-16gb",
    "pricing_models": "on_demand",
    "regions": "us-east-1",
}


def _answer(page: str) -> str:
    found = re.findall(r'class="answer"[^>]*>([^<]*)<', page)
    return found[0] if found else ""


def _errors(page: str) -> list[str]:
    return re.findall(r'class="error"[^>]*>([^<]*)<', page)


def _rows(page: str) -> list[tuple[str, str]]:
    return re.findall(r'<tr><th scope="row">([^<]*)</th><td>([^<]*)</td></tr>', page)


def test_an_aws_v100_over_a_year_costs_its_catalog_price_times_the_hours(client):
    """100 V100-hours a month for 12 months on AWS us-east-1 on demand: the cheapest is one
    p3.2xlarge (one V100) at SkyPilot's on-demand price for us-east-1, x 1,200 hours."""
    price = next(
        float(r["Price"])
        for r in source_rows("skypilot-catalog/catalogs/v8/aws/vms_gpu_subset.csv")
        if (r["InstanceType"], r["Region"]) == ("p3.2xlarge", "us-east-1") and r["Price"]
    )
    r = client.get("/compare", params=ONE_V100)
    assert r.status_code == 200, _errors(r.text)
    assert f"${price * 100 * 12:,.0f}" in _answer(r.text)
    assert "p3.2xlarge" in _answer(r.text)
    first = _rows(r.text)[0]
    assert first[0].startswith("1. ") and f"${price:,.4g}/h" in first[1]
    assert "<svg" in r.text and scripts_are_only_vendored(r.text) and "POST /v1/compare" in r.text


def test_the_page_ranks_as_the_api_does(client):
    params = {"gpu_hours_per_month": "200", "gpu": "a100", "horizon_months": "24"}
    page = client.get("/compare", params=params)
    assert page.status_code == 200, _errors(page.text)
    api = client.post(
        "/v1/compare",
        json={
            "gpu_hours_per_month": 200,
            "workload": {"gpu": "a100"},
            "horizon_months": 24,
            "limit": 12,
        },
    ).json()
    ranked = [label for label, _ in _rows(page.text) if re.match(r"\d+\. ", label)]
    assert ranked == [f"{o['rank']}. {o['label']}" for o in api["options"] if o["rank"]]
    link = re.search(r'href="(/compare\?[^"]+)">/compare', page.text).group(1)
    assert _answer(client.get(link.replace("&amp;", "&")).text) == _answer(page.text)


def test_problems_are_shown_beside_their_fields(client):
    r = client.get("/compare", params={"gpu_hours_per_month": "-3", "gpu": "a100"})
    assert r.status_code == 422 and re.search(r'id="e-gpu_hours_per_month">[^<]+<', r.text)
    both = client.get(
        "/compare",
        params={"gpu_hours_per_month": "10", "runs_per_month": "5", "benchmark": "yolor"},
    )
    assert both.status_code == 422 and _errors(both.text)
    unknown = client.get("/compare", params={"gpu_hours_per_month": "10", "gpu": "no-such-gpu"})
    assert unknown.status_code == 404 and _errors(unknown.text)


def test_the_front_page_links_the_compare_calculator(client):
    assert 'href="/compare"' in client.get("/").text
