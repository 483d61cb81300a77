"""Vast.ai's public offer search (no key): the marketplace's on-demand prices, one offer per
GPU model, memory, GPU count and location at the median of the verified, rentable machines
listed there.

Format (Vast.ai API reference, "Search offers", ``POST /api/v0/bundles/``): the body is a
query of fields with operators (``{"verified": {"eq": true}, ...}``); the answer is
``{"offers": [...]}``, an offer with ``gpu_name`` ("RTX 4090", "H100 SXM"), ``num_gpus``,
``gpu_ram`` (MB per GPU), ``dph_total`` (USD per hour for the whole machine, its default disk
included), ``geolocation`` ("Texas, US") and ``verified``/``rentable``. Hosts set their own
prices and reliability varies: a median of many listings is the marketplace's price, not one
host's. Instance names carry the per-GPU memory (a 48 GB "modded" 4090 is a different
machine), which is how the catalog's loader tells stock cards from modded ones.
"""

from __future__ import annotations

import datetime as dt
import re
import statistics
from typing import Any

from app.catalog.apis.base import Fetch, LiveApi, LiveRows, Row, fetched_note
from app.catalog.refresh import SourceError
from app.catalog.sources.skypilot import LoadReport
from app.settings import Settings

ENDPOINT = "https://console.vast.ai/api/v0/bundles/"
DOCS = "https://docs.vast.ai/api-reference/search/search-offers"
# Offers per answer asked for: the limit SkyPilot's Vast fetcher asks (skypilot-org/skypilot,
# sky/catalog/data_fetchers/fetch_vast.py, read 2026-11-27); an answer with more is refused.
MAX_OFFERS = 10_000
QUERY: dict[str, object] = {
    "verified": {"eq": True},
    "rentable": {"eq": True},
    "external": {"eq": False},
    "type": "on-demand",
    "limit": MAX_OFFERS,
}
# Vast's names for parts that SkyPilot's catalog names otherwise (its data, as listed there).
_RENAMED = {"TeslaV100": "V100", "TeslaT4": "T4", "TeslaP100": "P100", "QRTX6000": "RTX6000"}


def accelerator_name(gpu_name: str) -> str:
    """SkyPilot's accelerator name for a Vast ``gpu_name`` ("RTX 4090" -> "RTX4090",
    "RTX 6000Ada" -> "RTX6000-Ada", "H100 SXM" -> "H100": the form factor stays in the
    instance name, where the loader reads it)."""
    name = re.sub(r"\s", "", gpu_name)
    name = re.sub(r"(?<!-)Ada$", "-Ada", name)
    name = re.sub(r"(PCIE|SXM4|SXM5|SXM|NVL)$", "", name)
    return _RENAMED.get(name, name)


def _number(offer: dict[str, Any], key: str) -> float | None:
    value = offer.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return None
    return float(value)


def _group_key(offer: Any, report: LoadReport) -> tuple[str, int, int, str] | None:
    if not isinstance(offer, dict) or not offer.get("verified") or not offer.get("rentable"):
        report.skip("vast api: an offer not verified and rentable")
        return None
    name, place = offer.get("gpu_name"), offer.get("geolocation")
    count, ram_mb, price = (_number(offer, k) for k in ("num_gpus", "gpu_ram", "dph_total"))
    if not isinstance(name, str) or not isinstance(place, str) or not place:
        report.skip("vast api: an offer without GPU name or location")
        return None
    if not count or count != int(count) or not ram_mb or not price or price <= 0:
        report.skip("vast api: an offer without GPU count, memory or price")
        return None
    return name, int(count), round(ram_mb / 1024), place


def read(fetch: Fetch, settings: Settings, today: dt.date) -> LiveRows:
    """Median ``dph_total`` per (GPU model, per-GPU GiB, count, location)."""
    answer = fetch.json("POST", ENDPOINT, json=QUERY)
    offers = answer.get("offers") if isinstance(answer, dict) else None
    if not isinstance(offers, list):
        raise SourceError(f"{ENDPOINT}: an answer without an offers list")
    if len(offers) > MAX_OFFERS:
        raise SourceError(f"{ENDPOINT}: {len(offers)} offers, more than {MAX_OFFERS}")
    report = LoadReport({})
    prices: dict[tuple[str, int, int, str], list[float]] = {}
    for offer in offers:
        key = _group_key(offer, report)
        if key is not None:
            prices.setdefault(key, []).append(float(offer["dph_total"]))
    rows: list[tuple[int, Row]] = []
    for n, ((name, count, gib, place), listed) in enumerate(sorted(prices.items()), 1):
        stub = re.sub(r"\s", "_", name)
        rows.append(
            (
                n,
                {
                    "InstanceType": f"{count}x-{stub}-{gib}GiB",
                    "AcceleratorName": accelerator_name(name),
                    "AcceleratorCount": count,
                    "vCPUs": "",
                    "MemoryGiB": "",
                    "GpuInfo": f"{{'TotalGpuMemoryInMiB': {gib * 1024 * count}}}",
                    "Price": round(statistics.median(listed), 4),
                    "SpotPrice": "",
                    "Region": place,
                },
            )
        )
    note = fetched_note(
        "Vast.ai offer search, median of verified rentable listings", ENDPOINT, today
    )
    return LiveRows(rows, today, note, ENDPOINT, report.skipped)


API = LiveApi("vast", "Vast.ai public offer search", DOCS, None, read)
