"""Azure's Retail Prices API (no key): pay-as-you-go and spot prices of the GPU VM sizes the
catalog carries, in the regions it carries them.

Format (Microsoft Learn, "Azure Retail Prices REST API", api-version 2023-01-01-preview): a
``GET`` with an OData ``$filter`` answers ``{"BillingCurrency", "Items": [...], "NextPageLink",
"Count"}``, 100 items a page; an item has ``armSkuName`` (the VM size), ``armRegionName``,
``retailPrice`` (USD by default), ``unitOfMeasure`` ("1 Hour"), ``type`` ("Consumption" is
pay-as-you-go), ``skuName`` (ending " Spot" or " Low Priority" for those) and
``productName`` (ending "Windows" for Windows images). Linux consumption prices only;
Low Priority (retired) is left out.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from urllib.parse import urlencode, urlsplit

from app.catalog.apis.base import (
    Fetch,
    Instance,
    LiveApi,
    LiveRows,
    Row,
    fetched_note,
    known_instances,
)
from app.catalog.refresh import SourceError
from app.catalog.sources.skypilot import LoadReport
from app.settings import Settings

ENDPOINT = "https://prices.azure.com/api/retail/prices"
API_VERSION = "2023-01-01-preview"
DOCS = (
    "https://learn.microsoft.com/en-us/rest/api/cost-management/retail-prices/azure-retail-prices"
)
SKUS_PER_QUERY = 10  # VM sizes per $filter: the URL stays well under 2 KB
MAX_PAGES = 200  # per query: 20,000 items, ~50x what the catalog's sizes have


def _query_url(skus: tuple[str, ...]) -> str:
    sizes = " or ".join(f"armSkuName eq '{s}'" for s in skus)
    query = f"serviceName eq 'Virtual Machines' and priceType eq 'Consumption' and ({sizes})"
    return f"{ENDPOINT}?{urlencode({'api-version': API_VERSION, '$filter': query})}"


def _next(page: dict[str, Any]) -> str | None:
    """The next page's URL, followed only on the API's own host (an answer cannot send the
    refresh elsewhere)."""
    link = page.get("NextPageLink")
    if not isinstance(link, str) or not link:
        return None
    if urlsplit(link).hostname != urlsplit(ENDPOINT).hostname:
        raise SourceError(f"NextPageLink to another host: {link[:200]}")
    return link


def _take(
    item: Any, known: dict[str, Instance], out: dict[tuple[str, str], Row], report: LoadReport
) -> None:
    """One price item into ``out`` (by VM size and region): the lowest price of each kind."""
    if not isinstance(item, dict):
        return report.skip("azure api: an item that is not an object")
    sku, region = item.get("armSkuName"), item.get("armRegionName")
    name, product = str(item.get("skuName") or ""), str(item.get("productName") or "")
    price = item.get("retailPrice")
    if item.get("currencyCode", "USD") != "USD" or item.get("unitOfMeasure") != "1 Hour":
        return report.skip("azure api: not USD per hour")
    if product.endswith("Windows") or name.endswith("Low Priority"):
        return report.skip("azure api: Windows or Low Priority price")
    if sku not in known or not isinstance(region, str) or region not in known[sku].regions:
        return report.skip("azure api: VM size or region the catalog does not carry")
    if not isinstance(price, int | float) or isinstance(price, bool):
        return report.skip("azure api: retailPrice is not a number")
    row = out.setdefault(
        (sku, region), {"InstanceType": sku, "Region": region, **known[sku].columns}
    )
    column = "SpotPrice" if name.endswith(" Spot") else "Price"
    kept = row.get(column)
    row[column] = price if kept is None else min(kept, price)


def read(fetch: Fetch, settings: Settings, today: dt.date) -> LiveRows:
    """Every known GPU VM size's Linux pay-as-you-go and spot price, per region."""
    known = known_instances("azure")
    out: dict[tuple[str, str], Row] = {}
    report = LoadReport({})
    sizes = sorted(known)
    for first in range(0, len(sizes), SKUS_PER_QUERY):
        url: str | None = _query_url(tuple(sizes[first : first + SKUS_PER_QUERY]))
        pages = 0
        while url is not None:
            pages += 1
            if pages > MAX_PAGES:
                raise SourceError(f"{ENDPOINT}: more than {MAX_PAGES} pages for one query")
            page = fetch.json("GET", url)
            items = page.get("Items") if isinstance(page, dict) else None
            if not isinstance(items, list):
                raise SourceError(f"{ENDPOINT}: an answer without an Items list")
            for item in items:
                _take(item, known, out, report)
            url = _next(page)
    rows = [(n, {**r, "SpotPrice": r.get("SpotPrice", "")}) for n, r in enumerate(out.values(), 1)]
    title = "Azure Retail Prices API (Linux pay-as-you-go and spot)"
    return LiveRows(rows, today, fetched_note(title, ENDPOINT, today), ENDPOINT, report.skipped)


API = LiveApi("azure", "Azure Retail Prices API", DOCS, None, read)
