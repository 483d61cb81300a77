"""Regions: grid carbon intensity (Green Algorithms, CodeCarbon), retail electricity prices
(EIA by US state, Eurostat by country) and cloud regions with their PUE."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from functools import cache
from typing import Any

import pycountry

from app.catalog.sources.files import SOURCES, Row, opt_float, read_csv
from app.catalog.sources.offers import load_providers
from app.catalog.sources.reference import load_fx_rates
from app.costing.money import ExchangeRate, rate_in_force

CODECARBON_MIX = (
    "https://github.com/mlco2/codecarbon/blob/b05965e4/codecarbon/data/private_infra/"
    "global_energy_mix.json (Our World in Data / Ember)"
)


GA_CI = "https://github.com/GreenAlgorithms/green-algorithms-tool data/latest/CI_aggregated.csv"


EIA_SOURCE = (
    "U.S. Energy Information Administration, Electricity Data Browser (residential, 12 months "
    "Jun 2024-May 2025, sales-weighted), via slicesofdata/eia-167-2025"
)


EUROSTAT_SOURCE = "Eurostat nrg_pc_204 (household, band DC, all taxes included)"
EUROSTAT_NON_HOUSEHOLD = (
    "Eurostat nrg_pc_205 (non-household, band IC 500-1,999 MWh/yr, excluding VAT and other "
    "recoverable taxes)"
)
EIA_COMMERCIAL = (
    "U.S. Energy Information Administration, Electricity Data Browser (commercial sector, "
    "which includes educational institutions; 12 months Jun 2024-May 2025, sales-weighted), "
    "via slicesofdata/eia-167-2025"
)


def _region(**fields: Any) -> Row:
    """A region row: the given fields over empty electricity and PUE fields."""
    row: Row = {
        "country_code": None,
        "provider": None,
        "electricity_price_usd_per_kwh": None,
        "electricity_price_local": None,
        "electricity_currency": None,
        "electricity_source": None,
        "electricity_as_of": None,
        "electricity_non_household_usd_per_kwh": None,
        "electricity_non_household_local": None,
        "electricity_non_household_source": None,
        "electricity_non_household_as_of": None,
        "pue": None,
        "pue_source": None,
    }
    row.update(fields)
    return row


def _semester_end(period: str) -> dt.date:
    year, half = period.split("-S")
    return dt.date(int(year), 6, 30) if half == "1" else dt.date(int(year), 12, 31)


def _eurostat_latest(consumer: str = "household") -> dict[str, tuple[float, str]]:
    """Latest price per Eurostat geo for ``consumer`` (``household``: band DC with all taxes;
    ``non-household``: band IC excluding VAT): {alpha2: (eur_per_kwh, period)}."""
    path = (
        SOURCES
        / "electricity-prices/energy-security-data-warehouse/eurostat_electricity_prices_long_derived.csv"
    )
    best: dict[str, tuple[float, str]] = {}
    for r in read_csv(path):
        if r["consumer"] != consumer or not r["value_eur_per_kwh"]:
            continue
        geo = {"EL": "GR", "UK": "GB"}.get(r["geo"], r["geo"])
        if geo not in best or r["period"] > best[geo][1]:
            best[geo] = (float(r["value_eur_per_kwh"]), r["period"])
    return best


def _country_rows() -> Iterator[Row]:
    mix = json.loads(
        (SOURCES / "codecarbon/codecarbon/data/private_infra/global_energy_mix.json").read_text(
            encoding="utf-8"
        )
    )
    eurostat = _eurostat_latest()
    eurostat_nh = _eurostat_latest("non-household")
    # EUR rates of the rows the seeder stores (one reader of fx_rates.csv), oldest first:
    # a price converts at the rate of its own period (a 2025-S2 price at the 2025-S2 mean),
    # by the rule the catalog view answers with (:func:`app.costing.money.rate_in_force`).
    eur = sorted(
        (
            ExchangeRate(r["currency"], r["usd_per_unit"], r["as_of"], r["source"])
            for r in load_fx_rates()
            if r["currency"] == "EUR"
        ),
        key=lambda r: r.as_of,
    )
    eia_us = _eia_prices().get("US")
    for iso3, entry in sorted(mix.items()):
        country = pycountry.countries.get(alpha_3=iso3)
        if country is None or entry.get("carbon_intensity") is None:
            continue
        a2 = country.alpha_2
        row = _region(
            id=a2.lower(),
            name=entry.get("country_name") or country.name,
            kind="country",
            country_code=a2,
            carbon_intensity_g_per_kwh=round(float(entry["carbon_intensity"]), 3),
            carbon_source=CODECARBON_MIX,
            carbon_as_of=dt.date(int(entry.get("year", 2022)), 12, 31),
        )
        if a2 in eurostat:
            price_eur, period = eurostat[a2]
            fx = rate_in_force(eur, _semester_end(period))
            row.update(
                electricity_price_usd_per_kwh=round(price_eur * fx.usd_per_unit, 4),
                electricity_price_local=price_eur,
                electricity_currency="EUR",
                electricity_source=f"{EUROSTAT_SOURCE}, {period}; converted at "
                f"{fx.usd_per_unit} USD/EUR ({fx.source})",
                electricity_as_of=_semester_end(period),
            )
        if a2 in eurostat_nh:
            price_eur, period = eurostat_nh[a2]
            fx = rate_in_force(eur, _semester_end(period))
            row.update(
                electricity_currency="EUR",
                electricity_non_household_usd_per_kwh=round(price_eur * fx.usd_per_unit, 4),
                electricity_non_household_local=price_eur,
                electricity_non_household_source=f"{EUROSTAT_NON_HOUSEHOLD}, {period}; "
                f"converted at {fx.usd_per_unit} USD/EUR ({fx.source})",
                electricity_non_household_as_of=_semester_end(period),
            )
        if a2 == "US" and eia_us:
            row.update(eia_us)
        yield row


@cache
def _eia_prices() -> dict[str, Row]:
    path = (
        SOURCES
        / "electricity-prices/slicesofdata-eia-167-2025/eia_state_avg_retail_price_derived.csv"
    )
    out: dict[str, Row] = {}
    for r in read_csv(path):
        cents = opt_float(r["price_12m_jun2024_may2025_cents_per_kwh"])
        if cents is None:
            continue
        row = out.setdefault(r["code"], {"electricity_currency": "USD"})
        if r["sector"] == "residential":
            row.update(
                electricity_price_usd_per_kwh=round(cents / 100, 4),
                electricity_price_local=cents / 100,
                electricity_source=f"{EIA_SOURCE} ({r['eia_series_id']})",
                electricity_as_of=dt.date(2025, 5, 31),
            )
        elif r["sector"] == "commercial":
            row.update(
                electricity_non_household_usd_per_kwh=round(cents / 100, 4),
                electricity_non_household_local=cents / 100,
                electricity_non_household_source=f"{EIA_COMMERCIAL} ({r['eia_series_id']})",
                electricity_non_household_as_of=dt.date(2025, 5, 31),
            )
    return out


def _us_state_rows() -> Iterator[Row]:
    eia = _eia_prices()
    for r in read_csv(
        SOURCES / "green-algorithms-tool/data/latest/CI_aggregated.csv", skip_lines=1
    ):
        loc = r["location"]
        if not loc.startswith("US-"):
            continue
        code = loc[3:]
        row = _region(
            id=f"us-{code.lower()}",
            name=r["regionName"],
            kind="us_state",
            country_code="US",
            carbon_intensity_g_per_kwh=float(r["carbonIntensity"]),
            carbon_source=f"{GA_CI} ({r['source']})",
            carbon_as_of=dt.date(2020, 12, 31),
        )
        row.update(eia.get(code, {}))
        yield row


def _world_row() -> Row:
    world = next(
        r
        for r in read_csv(
            SOURCES / "green-algorithms-tool/data/latest/CI_aggregated.csv", skip_lines=1
        )
        if r["location"] == "WORLD"
    )
    return _region(
        id="world",
        name="World average",
        kind="world",
        carbon_intensity_g_per_kwh=float(world["carbonIntensity"]),
        carbon_source=f"{GA_CI} ({world['source']})",
        carbon_as_of=dt.date(2019, 12, 31),
    )


def _cloud_region_rows() -> Iterator[Row]:
    providers = {p["id"]: p for p in load_providers()}
    google = {
        r["region"]: r for r in read_csv(SOURCES / "codecarbon/codecarbon/data/cloud/impact.csv")
    }
    seen: set[str] = set()
    for r in read_csv(SOURCES / "mlco2-impact/data/impact.csv"):
        prov = r["provider"]
        if prov not in ("aws", "gcp", "azure"):
            continue
        region_id = f"{prov}:{r['region']}"
        if region_id in seen:
            continue
        seen.add(region_id)
        ci, ci_src, ci_as_of = (
            float(r["impact"]),
            f"mlco2/impact data/impact.csv ({r['source']})",
            dt.date(2021, 12, 31),
        )
        if prov == "gcp" and r["region"] in google:
            g = google[r["region"]]
            ci, ci_src, ci_as_of = (
                float(g["impact"]),
                f"codecarbon cloud/impact.csv ({g['source']})",
                dt.date(2024, 7, 13),
            )
        pue = opt_float(r["PUE"]) or providers[prov]["pue"]
        pue_src = r["PUE source"] if r["PUE"] else providers[prov]["pue_source"]
        country = pycountry.countries.get(name=r["country"]) or pycountry.countries.get(
            alpha_3=r["country"]
        )
        yield _region(
            id=region_id,
            name=r["regionName"] or f"{r['region']} ({r['city'] or r['country']})",
            kind="cloud_region",
            country_code=country.alpha_2 if country else None,
            provider=prov,
            carbon_intensity_g_per_kwh=ci,
            carbon_source=ci_src,
            carbon_as_of=ci_as_of,
            pue=pue,
            pue_source=pue_src,
        )


def load_regions() -> list[Row]:
    """Countries, US states, cloud regions and the world average, with grid carbon intensity
    (gCO2e/kWh), retail electricity price where a source exists, and PUE for cloud regions."""
    rows = [*_country_rows(), *_us_state_rows(), *_cloud_region_rows(), _world_row()]
    for row in rows:
        row["source"] = row["carbon_source"]
        row["as_of"] = max(d for d in (row["carbon_as_of"], row["electricity_as_of"]) if d)
    return rows
