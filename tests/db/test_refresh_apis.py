"""`gpucost catalog refresh --api`: the live provider APIs (Azure Retail Prices, AWS bulk
price files, Vast.ai offer search, RunPod GraphQL) answered by respx from hand-written
fixtures in each API's documented format (``tests/fixtures/live_apis/README.md``: nothing
could be recorded here). Expected prices are read from the fixtures; a hostile or broken
answer must change nothing."""

from __future__ import annotations

import datetime as dt
import json
import statistics
from pathlib import Path

import httpx
import pytest
import respx
from pydantic import SecretStr
from sqlalchemy import func, select

from app.catalog.apis import aws_bulk, azure_retail, runpod_graphql, vast_search
from app.catalog.apis.base import Fetch
from app.catalog.refresh import Download
from app.models import CatalogRevision, CloudOffer, PricePoint
from app.settings import Settings
from app.store.refresh import refresh_apis
from tests.dbs import seeded_engine  # noqa: F401  (fixture)

FIXTURES = Path(__file__).parent.parent / "fixtures" / "live_apis"
NOW = dt.datetime(2026, 11, 27, 9, tzinfo=dt.UTC)
FAST = Download(timeout_s=5, attempts=2, backoff_s=0)
OFFERS = CloudOffer.__table__


def _json(name: str) -> dict:
    return json.loads((FIXTURES / name).read_text())


def _offer(engine, offer_id: str) -> tuple[float, dt.date, str]:
    with engine.connect() as conn:
        row = conn.execute(
            select(OFFERS.c.price_usd_per_hour, OFFERS.c.as_of, OFFERS.c.source).where(
                OFFERS.c.id == offer_id
            )
        ).one()
    return float(row[0]), row[1], row[2]


def _state(engine) -> tuple[int, int, int]:
    with engine.connect() as conn:
        offers = conn.execute(select(func.count()).select_from(OFFERS)).scalar_one()
        points = conn.execute(select(func.count()).select_from(PricePoint.__table__)).scalar_one()
        revision = conn.execute(select(CatalogRevision.__table__.c.revision)).scalar_one()
    return offers, points, revision


def _run(engine, provider: str, **settings) -> object:
    results = refresh_apis(engine, [provider], Settings(**settings), fetch=Fetch(FAST), now=NOW)
    return results[0]


def _azure_pages(request: httpx.Request) -> httpx.Response:
    page = "azure_page2.json" if "skip" in str(request.url) else "azure_page1.json"
    if "A100" not in str(request.url) and "PAGE2" not in str(request.url):
        return httpx.Response(200, json={"Items": [], "NextPageLink": None})
    return httpx.Response(200, json=_json(page))


@respx.mock
def test_azure_pay_as_you_go_and_spot_prices_are_read_page_by_page(engine):
    respx.get(url__startswith=azure_retail.ENDPOINT).mock(side_effect=_azure_pages)
    items = _json("azure_page1.json")["Items"] + _json("azure_page2.json")["Items"]
    linux = {
        (i["armRegionName"], i["skuName"]): i["retailPrice"]
        for i in items
        if not i["productName"].endswith("Windows")
    }

    result = _run(engine, "azure")

    assert result.outcome == "refreshed", result.message
    price, as_of, source = _offer(engine, "azure-standard-nc24ads-a100-v4-eastus-on-demand")
    assert price == linux[("eastus", "NC24ads A100 v4")]  # not the Windows price
    assert as_of == NOW.date() and source == azure_retail.ENDPOINT
    spot, _, _ = _offer(engine, "azure-standard-nc24ads-a100-v4-eastus-spot")
    assert spot == linux[("eastus", "NC24ads A100 v4 Spot")]
    west, _, _ = _offer(engine, "azure-standard-nc24ads-a100-v4-westus2-on-demand")
    assert west == linux[("westus2", "NC24ads A100 v4")]  # the second page was followed
    with engine.connect() as conn:  # a region the catalog does not carry is not added
        brazil = conn.execute(
            select(func.count()).where(OFFERS.c.id.like("azure-%brazilsouth%"))
        ).scalar_one()
    assert brazil == 0


@respx.mock
def test_aws_bulk_file_is_streamed_and_dated_by_its_publication(engine):
    body = (FIXTURES / "aws_us-west-2_index.csv").read_bytes()
    respx.get(aws_bulk.region_url("us-west-2")).mock(return_value=httpx.Response(200, content=body))
    spot_before = _offer(engine, "aws-g5.xlarge-us-west-2-spot")

    result = _run(engine, "aws", refresh_aws_regions="us-west-2")

    assert result.outcome in ("refreshed", "unchanged"), result.message
    price, as_of, _ = _offer(engine, "aws-g5.xlarge-us-west-2-on-demand")
    assert price == 1.006  # the Linux, shared, on-demand line (not Windows' 1.19 or SQL's 1.21)
    assert as_of == dt.date(2026, 11, 20)  # the file's "Publication Date"
    assert _offer(engine, "aws-g5.xlarge-us-west-2-spot") == spot_before  # no spot in the file


@respx.mock
def test_vast_listings_become_one_median_offer_per_gpu_and_place(engine):
    respx.post(vast_search.ENDPOINT).mock(
        return_value=httpx.Response(200, json=_json("vast_bundles.json"))
    )
    listed = _json("vast_bundles.json")["offers"]
    stock_4090_texas = [
        o["dph_total"]
        for o in listed
        if o["gpu_name"] == "RTX 4090" and o["gpu_ram"] < 30_000 and o["verified"]
    ]

    result = _run(engine, "vast")

    assert result.outcome == "refreshed", result.message
    price, as_of, _ = _offer(engine, "vast-1x-rtx-4090-24gib-texas-us-on-demand")
    assert price == statistics.median(stock_4090_texas) and as_of == NOW.date()
    with engine.connect() as conn:
        rows = conn.execute(
            select(OFFERS.c.id, OFFERS.c.gpu_id).where(OFFERS.c.source == vast_search.ENDPOINT)
        ).all()
    ids = {r.id: r.gpu_id for r in rows}
    assert not any("rtx-4090-48gib" in i for i in ids)  # the modded 48 GB 4090 is no stock card
    assert ids["vast-1x-h100-sxm-80gib-france-fr-on-demand"] == "h100-sxm"
    assert ids["vast-1x-rtx-5090-32gib-quebec-ca-on-demand"] == "rtx-5090"


@respx.mock
def test_runpod_needs_its_key_and_sends_it_only_as_a_header(engine):
    route = respx.post(runpod_graphql.ENDPOINT).mock(
        return_value=httpx.Response(200, json=_json("runpod_gputypes.json"))
    )
    before = _state(engine)
    keyless = _run(engine, "runpod")
    assert keyless.outcome == "failed" and "GPUCOST_RUNPOD_API_KEY" in keyless.message
    assert not route.called and _state(engine) == before

    result = _run(engine, "runpod", runpod_api_key=SecretStr("rp-test-key"))

    assert result.outcome == "refreshed", result.message
    sent = route.calls.last.request
    assert sent.headers["authorization"] == "Bearer rp-test-key"
    assert "rp-test-key" not in str(sent.url) and "rp-test-key" not in result.source
    per_gpu = {t["displayName"]: t for t in _json("runpod_gputypes.json")["data"]["gpuTypes"]}
    one, as_of, _ = _offer(engine, "runpod-1x-rtx4090-secure-us-on-demand")
    eight, _, _ = _offer(engine, "runpod-8x-rtx4090-secure-us-on-demand")
    assert one == per_gpu["RTX 4090"]["securePrice"] and as_of == NOW.date()
    assert eight == pytest.approx(8 * per_gpu["RTX 4090"]["securePrice"])
    spot, _, _ = _offer(engine, "runpod-1x-rtx4090-secure-us-interruptible")
    assert spot == per_gpu["RTX 4090"]["secureSpotPrice"]


def _prices_x100(request: httpx.Request) -> httpx.Response:
    page = _json("azure_page1.json")
    for item in page["Items"]:
        item["retailPrice"] *= 100
    page["NextPageLink"] = None
    return httpx.Response(200, json=page)


def _elsewhere(request: httpx.Request) -> httpx.Response:
    page = _json("azure_page1.json")
    page["NextPageLink"] = "https://attacker.example/api/retail/prices?$skip=100"
    return httpx.Response(200, json=page)


def _endless(request: httpx.Request) -> httpx.Response:
    page = _json("azure_page1.json")
    page["NextPageLink"] = f"{azure_retail.ENDPOINT}?$skip=100"
    return httpx.Response(200, json=page)


def _aws(text: str):
    return lambda request: httpx.Response(200, text=text)


_AWS = (FIXTURES / "aws_us-west-2_index.csv").read_text()


@pytest.mark.parametrize(
    ("provider", "method", "url", "answer", "outcome"),
    [
        ("azure", "GET", azure_retail.ENDPOINT, _prices_x100, "refused"),
        ("azure", "GET", azure_retail.ENDPOINT, _elsewhere, "failed"),
        ("azure", "GET", azure_retail.ENDPOINT, _endless, "failed"),
        (
            "azure",
            "GET",
            azure_retail.ENDPOINT,
            lambda r: httpx.Response(200, text="<html>"),
            "failed",
        ),
        ("azure", "GET", azure_retail.ENDPOINT, lambda r: httpx.Response(503), "failed"),
        (
            "vast",
            "POST",
            vast_search.ENDPOINT,
            lambda r: httpx.Response(200, json={"offers": 7}),
            "failed",
        ),
        (
            "vast",
            "POST",
            vast_search.ENDPOINT,
            lambda r: httpx.Response(200, content=b"[" * 40_000),
            "failed",
        ),
        (
            "aws",
            "GET",
            aws_bulk.region_url("us-west-2"),
            _aws(_AWS.replace("Publication Date", "Published")),
            "failed",
        ),
        (
            "aws",
            "GET",
            aws_bulk.region_url("us-west-2"),
            _aws(_AWS.replace("2026-11-20T", "2027-11-20T")),
            "failed",
        ),
        (
            "aws",
            "GET",
            aws_bulk.region_url("us-west-2"),
            _aws(_AWS.replace('"TermType"', '"Term"')),
            "failed",
        ),
    ],
    ids=[
        "azure-prices-x100",
        "azure-next-page-elsewhere",
        "azure-endless-pages",
        "azure-not-json",
        "azure-503",
        "vast-offers-not-a-list",
        "vast-deeply-nested",
        "aws-no-publication-date",
        "aws-dated-in-the-future",
        "aws-not-a-price-list",
    ],
)
@respx.mock
def test_a_hostile_or_broken_answer_changes_nothing(engine, provider, method, url, answer, outcome):
    respx.route(method=method, url__startswith=url).mock(side_effect=answer)
    before = _state(engine)

    result = _run(engine, provider, refresh_aws_regions="us-west-2")

    assert result.outcome == outcome, result.message
    assert _state(engine) == before


@pytest.mark.parametrize(
    ("vast_name", "skypilot_name"),
    [
        ("RTX 4090", "RTX4090"),
        ("RTX 6000Ada", "RTX6000-Ada"),
        ("H100 SXM", "H100"),
        ("A100 PCIE", "A100"),
        ("Tesla V100", "V100"),
    ],
)
def test_vast_names_map_to_skypilots(vast_name, skypilot_name):
    """Vast's ``gpu_name`` values as its search lists them, and the names SkyPilot's Vast file
    gives the same parts (the shipped file's AcceleratorName column)."""
    assert vast_search.accelerator_name(vast_name) == skypilot_name


@pytest.mark.parametrize(
    ("display", "skypilot_name"),
    [
        ("RTX 4090", "RTX4090"),
        ("RTX PRO 6000", "RTXPRO6000"),
        ("H100 SXM", "H100-SXM"),
        ("A100 PCIe", "A100-80GB"),
        ("RTX 6000 Ada", "RTX6000-Ada"),
    ],
)
def test_runpod_names_map_to_skypilots(display, skypilot_name):
    """RunPod display names and the accelerator names of SkyPilot's RunPod file."""
    assert runpod_graphql.accelerator_name(display) == skypilot_name
