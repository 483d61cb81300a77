"""The other cloud offers (Paperspace 2022 from seed 004, Colab plans and burn rates, our
extra offers), providers with their billing rules and default PUE, and every offer with its
provider's billing."""

from __future__ import annotations

import datetime as dt
from functools import cache

from app.catalog.sources.commitments import load_gcp_commitments
from app.catalog.sources.files import (
    CURATED,
    PAPERSPACE_2022_AS_OF,
    PAPERSPACE_2022_SOURCE,
    SOURCES,
    CatalogDataError,
    Row,
    find_table,
    opt_float,
    or_none,
    parse_date,
    read_csv,
    seed_tables,
    typed,
)
from app.catalog.sources.skypilot import (
    SKYPILOT_FILES,
    LoadReport,
    catalog_files,
    load_skypilot,
    offer_row,
    shipped_input,
)


def load_paperspace_2022_offers() -> list[Row]:
    """The seed's Paperspace Gradient table (April 2022): $/h plus the plan fee each machine
    requires, parsed from the seed restatement."""
    out = []
    for r in find_table(seed_tables(), "GPU", "$/h", "plan $/month"):
        gpu_id = paperspace_seed_gpu(r["GPU"])
        out.append(
            offer_row(
                "paperspace",
                f"Gradient {r['GPU']}",
                gpu_id,
                1,
                "on_demand",
                float(r["$/h"]),
                None,
                source=PAPERSPACE_2022_SOURCE,
                as_of=PAPERSPACE_2022_AS_OF,
                vcpus=float(r["vCPU"]),
                ram_gb=float(r["RAM GB"]),
                monthly_fee_usd=float(r["plan $/month"]),
                id_suffix="-2022",
                notes="Gradient machine; the monthly fee is the subscription plan the machine "
                "requires (the M4000 is also free on the free tier). 50 GB storage included.",
            )
        )
    return out


@cache
def _paperspace_name_index() -> dict[str, str]:
    return {
        r["paperspace_name"]: r["id"]
        for r in read_csv(CURATED / "gpus.csv")
        if r["paperspace_name"]
    }


def paperspace_seed_gpu(name: str) -> str:
    try:
        return _paperspace_name_index()[name]
    except KeyError as exc:
        raise CatalogDataError(f"Paperspace GPU {name!r} is not in curated/gpus.csv") from exc


def load_colab_plans() -> list[Row]:
    """Google Colab plans (monthly fee, included compute units, $ per unit)."""
    return [
        typed(
            r,
            id=str,
            name=str,
            monthly_fee_usd=float,
            included_compute_units_per_month=float,
            usd_per_compute_unit=opt_float,
            notes=or_none,
        )
        for r in read_csv(CURATED / "colab_plans.csv")
    ]


def load_colab_rates() -> list[Row]:
    """Colab compute-unit burn rates per GPU (CU/h), each with its measurement date."""
    return [
        {
            "id": f"{r['gpu_id']}-{r['as_of']}",
            "gpu_id": r["gpu_id"],
            "compute_units_per_hour": float(r["compute_units_per_hour"]),
            "as_of": parse_date(r["as_of"]),
            "source": r["source"],
            "notes": r["notes"] or None,
        }
        for r in read_csv(CURATED / "colab_rates.csv")
    ]


def load_colab_offers() -> list[Row]:
    """Colab offers derived from plans x the latest burn rate per GPU.

    ``price_usd_per_hour = compute_units_per_hour x usd_per_compute_unit`` (derived, never
    typed in); the Free plan is a T4 at $0/h with no guarantee.
    """
    rates = load_colab_rates()
    newest = max(r["as_of"] for r in rates)
    # Only GPUs in the newest measurement are offered; one missing from it (the V100) has
    # been removed from Colab (cloud-and-colab-notes.md).
    latest = {r["gpu_id"]: r for r in rates if r["as_of"] == newest}
    out = []
    for plan in load_colab_plans():
        if plan["usd_per_compute_unit"] is None:
            out.append(
                offer_row(
                    "colab",
                    plan["name"],
                    "tesla-t4",
                    1,
                    "subscription",
                    0.0,
                    None,
                    source=plan["source"],
                    as_of=plan["as_of"],
                    notes=f"{plan['notes']}; Free is a T4 on a best-effort basis",
                    compute_units_per_hour=None,
                )
            )
            out[-1]["id"] = f"{plan['id']}-tesla-t4"
            continue
        for gpu_id, rate in sorted(latest.items()):
            cu = rate["compute_units_per_hour"]
            out.append(
                offer_row(
                    "colab",
                    plan["name"],
                    gpu_id,
                    1,
                    "compute_units",
                    cu * plan["usd_per_compute_unit"],
                    None,
                    source=f"{plan['source']}; burn rate: {rate['source']}",
                    as_of=rate["as_of"],
                    monthly_fee_usd=plan["monthly_fee_usd"],
                    included_compute_units_per_month=plan["included_compute_units_per_month"],
                    compute_units_per_hour=cu,
                    usd_per_compute_unit=plan["usd_per_compute_unit"],
                    notes=f"{cu:g} CU/h x ${plan['usd_per_compute_unit']:g}/CU (burn rate measured "
                    f"{rate['as_of']}, plan price as of {plan['as_of']})",
                )
            )
            out[-1]["id"] = f"{plan['id']}-{gpu_id}"
    return out


def load_extra_offers() -> list[Row]:
    """Hand-kept offers from the seeds (the seed's AWS V100 spot at $2.14/h, 2020)."""
    out = []
    for r in read_csv(CURATED / "extra_offers.csv"):
        row = offer_row(
            r["provider"],
            r["instance_type"],
            r["gpu_id"],
            int(r["gpu_count"]),
            r["pricing_model"],
            float(r["price_usd_per_hour"]),
            r["region"] or None,
            source=r["source"],
            as_of=dt.date.fromisoformat(r["as_of"]),  # every curated offer is dated
            vcpus=opt_float(r["vcpus"]),
            ram_gb=opt_float(r["ram_gb"]),
            monthly_fee_usd=float(r["monthly_fee_usd"] or 0),
            notes=r["notes"] or None,
        )
        row["id"] = r["id"]
        out.append(row)
    return out


@cache
def pue_defaults() -> dict[str, tuple[float, str]]:
    """Green Algorithms ``defaults_PUE.csv``: {provider key: (PUE, source)}; key ``Unknown``
    is the default for a datacenter nobody has measured (Uptime Institute 2024 survey)."""
    path = SOURCES / "green-algorithms-tool/data/latest/defaults_PUE.csv"
    return {
        r["provider"]: (
            float(r["PUE"]),
            f"Green Algorithms defaults_PUE.csv '{r['provider']}' ({r['source']})",
        )
        for r in read_csv(path, skip_lines=1)
    }


def load_providers() -> list[Row]:
    """Per-provider billing increment/minimum (``curated/providers.csv``) and default PUE
    (the ``defaults_PUE.csv`` row its ``pue_key`` names)."""
    rows = []
    for r in read_csv(CURATED / "providers.csv"):
        pue, pue_source = pue_defaults()[r["pue_key"]]
        rows.append(
            {
                "id": r["provider"],
                "name": r["display_name"],
                "billing_increment_s": opt_float(r["billing_increment_s"]),
                "billing_minimum_s": opt_float(r["billing_minimum_s"]),
                "billing_source": r["billing_source"],
                "pue": pue,
                "pue_source": pue_source,
                "as_of": parse_date(r["as_of"]),
                "kind": r["kind"],
                "historical_note": r["historical_note"] or None,
            }
        )
    return rows


def with_billing(offers: list[Row]) -> list[Row]:
    """``offers`` with their provider's billing increment and minimum (``providers.csv``)."""
    providers = {p["id"]: p for p in load_providers()}
    for offer in offers:
        p = providers[offer["provider"]]
        offer["billing_increment_s"] = p["billing_increment_s"]
        offer["billing_minimum_s"] = p["billing_minimum_s"]
    return offers


def load_offers(report: LoadReport | None = None) -> list[Row]:
    """Every cloud offer, with billing increments from ``providers.csv`` applied."""
    report = report or LoadReport({})
    offers = [
        *load_paperspace_2022_offers(),
        *load_extra_offers(),
        *load_colab_offers(),
        *load_gcp_commitments(),
    ]
    _check_unique(offers)
    newer = []
    for provider in SKYPILOT_FILES:
        files = catalog_files(provider)
        versions = [load_skypilot(provider, report, shipped_input(meta)) for meta in files]
        for rows in versions:
            _check_unique(rows)
        offers += versions[0]
        newer += [o for rows in versions[1:] for o in rows]
    _check_unique(offers)
    # A newer file's offer may repeat an id: the seeder upserts it after the older one, so the
    # older price stays in the history and the newer one is current.
    return with_billing(offers + newer)


def _check_unique(offers: list[Row]) -> None:
    seen: set[str] = set()
    for offer in offers:
        if offer["id"] in seen:
            raise CatalogDataError(f"duplicate offer id {offer['id']}")
        seen.add(offer["id"])
