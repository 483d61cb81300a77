"""The GPU clouds, marketplaces and brokers of SkyPilot's catalog: each shipped
file read through the one flat-file loader, its quirks handled. Expected values are read from
the shipped files themselves (csv), never from our output."""

from __future__ import annotations

import csv

from app.catalog.sources import skypilot
from app.catalog.sources.files import SOURCES
from app.catalog.sources.skypilot import LoadReport, load_skypilot
from app.catalog.sources.skypilot_providers import PROVIDER_FILES, gpu_memory_gib
from app.steps.cloud_offer import comparable_offer
from tests import fakes


def _rows(provider: str) -> list[dict[str, str]]:
    path = SOURCES / "skypilot-catalog" / "catalogs" / PROVIDER_FILES[provider][0]
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def test_vast_rents_a_5090_at_the_files_price_and_no_interruptible_one() -> None:
    rows = [r for r in _rows("vast") if r["InstanceType"].startswith("1x-RTX_5090")]
    assert rows and {r["SpotPrice"] for r in rows} == {"0.00"}  # 0.00: no interruptible price
    offers = load_skypilot("vast", LoadReport({}))
    fives = [o for o in offers if o["gpu_id"] == "rtx-5090" and o["gpu_count"] == 1]
    assert {o["price_usd_per_hour"] for o in fives} == {float(r["Price"]) for r in rows}
    assert all(o["pricing_model"] == "on_demand" for o in offers)
    assert {o["as_of"] for o in offers} == {PROVIDER_FILES["vast"][1]}
    assert "no earlier than" in offers[0]["notes"]


def test_a_modded_48_gb_4090_is_no_stock_4090() -> None:
    modded = [
        r
        for r in _rows("vast")
        if r["AcceleratorName"] == "RTX4090" and (gpu_memory_gib("vast", r) or 0) > 30
    ]
    assert modded  # the file lists one (49,140 MiB per GPU)
    report = LoadReport({})
    offers = load_skypilot("vast", report)
    kept = {(o["instance_type"], o["region"]) for o in offers}
    assert all((r["InstanceType"], r["Region"]) not in kept for r in modded)
    assert report.skipped["vast: a 48 GB 'modded' RTX 4090 (no stock card)"] == len(modded)


def test_a_broker_never_counts_a_machine_twice() -> None:
    rows = _rows("shadeform")
    resold = [r for r in rows if r["InstanceType"].split("_", 1)[0] in {"hyperstack", "verda"}]
    assert resold  # Shadeform resells Hyperstack's and Verda's machines, shipped directly
    offers = load_skypilot("shadeform", LoadReport({}))
    assert not {o["instance_type"] for o in offers} & {r["InstanceType"] for r in resold}
    assert all(o["notes"].startswith("resold from ") for o in offers)


def test_every_provider_file_loads_with_a_dated_basis() -> None:
    for provider, (_, day, basis, _) in PROVIDER_FILES.items():
        offers = load_skypilot(provider, LoadReport({}))
        assert offers, provider
        assert {o["as_of"] for o in offers} == {day}, provider
        assert basis.startswith(f"no earlier than {day.isoformat()}"), provider
        assert skypilot.SKYPILOT_FILES[provider].as_of == day


def test_marketplaces_enter_a_default_only_when_named() -> None:
    cloud = fakes.offer("lambda-3090", "lambda", "rtx-3090", "0.50")
    market = fakes.offer("vast-3090", "vast", "rtx-3090", "0.20")
    view = fakes.view([cloud, market])
    view.providers["vast"] = view.providers.get("vast") or _vast_info()
    pick = comparable_offer(view, gpu_ids=["rtx-3090"])
    assert pick is not None and pick.offer.id == "lambda-3090"
    named = comparable_offer(view, gpu_ids=["rtx-3090"], provider="vast")
    assert named is not None and named.offer.id == "vast-3090"
    asked = comparable_offer(view, gpu_ids=["rtx-3090"], include_marketplaces=True)
    assert asked is not None and asked.offer.id == "vast-3090"


def _vast_info():  # type: ignore[no-untyped-def]
    import datetime as dt

    from app.models.catalog_misc import ProviderInfo, ProviderKind

    return ProviderInfo(
        id="vast",
        name="Vast.ai",
        billing_source="test",
        pue=1.56,
        pue_source="test",
        as_of=dt.date(2024, 1, 1),
        kind=ProviderKind.marketplace,
    )
