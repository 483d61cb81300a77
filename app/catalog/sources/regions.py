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
from app.models.catalog_kinds import tariff_fields

CODECARBON_MIX = (
    "https://github.com/mlco2/codecarbon/blob/b05965e4/codecarbon/data/private_infra/"
    "global_energy_mix.json (Our World in Data / Ember)"
)


GA_CI = "https://github.com/GreenAlgorithms/green-algorithms-tool data/latest/CI_aggregated.csv"
OWID_CI = (
    "Our World in Data, 'Carbon intensity of electricity' (gCO2e/kWh; Ember and Energy "
    "Institute; CC BY 4.0), {year}: the grapher's CSV export as copied in "
    "github.com/twsaf1-sys/math_331_cryptocurrency_project carbon-intensity-electricity.csv "
    "(commit 7149bf49, 2025-12-09)"
)


@cache
def owid_latest() -> dict[str, tuple[int, float]]:
    """Each country's newest carbon intensity in OWID's export, ``{ISO3: (year, g/kWh)}``
    (aggregates such as "ASEAN (Ember)" have no code and are left out)."""
    latest: dict[str, tuple[int, float]] = {}
    for r in read_csv(SOURCES / "owid/carbon-intensity-electricity.csv"):
        code, year = r["Code"], int(r["Year"])
        value = opt_float(r["Carbon intensity of electricity - gCO2/kWh"])
        if len(code) == 3 and value is not None and year >= latest.get(code, (0, 0.0))[0]:
            latest[code] = (year, value)
    return latest


EIA_SOURCE = (
    "U.S. Energy Information Administration, Electricity Data Browser (residential, 12 months "
    "Jun 2024-May 2025, sales-weighted), via slicesofdata/eia-167-2025"
)


# Eurostat's datasets by tariff: {tariff: (the file's `consumer`, source)}.
EUROSTAT = {
    "household": ("household", "Eurostat nrg_pc_204 (household, band DC, all taxes included)"),
    "non_household": (
        "non-household",
        "Eurostat nrg_pc_205 (non-household, band IC 500-1,999 MWh/yr, excluding VAT and "
        "other recoverable taxes)",
    ),
}
# EIA's sectors by tariff: {tariff: (the file's `sector`, source)}.
EIA = {
    "household": ("residential", EIA_SOURCE),
    "non_household": (
        "commercial",
        "U.S. Energy Information Administration, Electricity Data Browser (commercial sector, "
        "which includes educational institutions; 12 months Jun 2024-May 2025, "
        "sales-weighted), via slicesofdata/eia-167-2025",
    ),
}
EIA_AS_OF = dt.date(2025, 5, 31)  # end of the 12 months Jun 2024-May 2025


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


def _eurostat_latest() -> dict[str, dict[str, tuple[float, str]]]:
    """Latest price per tariff and Eurostat geo (household: band DC with all taxes;
    non-household: band IC excluding VAT): {tariff: {alpha2: (eur_per_kwh, period)}}."""
    path = (
        SOURCES
        / "electricity-prices/energy-security-data-warehouse/eurostat_electricity_prices_long_derived.csv"
    )
    tariff_of = {consumer: tariff for tariff, (consumer, _) in EUROSTAT.items()}
    best: dict[str, dict[str, tuple[float, str]]] = {t: {} for t in EUROSTAT}
    for r in read_csv(path):
        tariff = tariff_of.get(r["consumer"])
        if tariff is None or not r["value_eur_per_kwh"]:
            continue
        geo = {"EL": "GR", "UK": "GB"}.get(r["geo"], r["geo"])
        if geo not in best[tariff] or r["period"] > best[tariff][geo][1]:
            best[tariff][geo] = (float(r["value_eur_per_kwh"]), r["period"])
    return best


def _country_rows() -> Iterator[Row]:
    mix = json.loads(
        (SOURCES / "codecarbon/codecarbon/data/private_infra/global_energy_mix.json").read_text(
            encoding="utf-8"
        )
    )
    eurostat = _eurostat_latest()
    # EUR rates of the rows the seeder stores (one reader of fx_rates.csv), oldest first:
    # a price converts at the rate of its own period (a 2025-S2 price at the 2025-S2 mean),
    # by the rule the catalog view answers with (:func:`app.costing.money.rate_in_force`).
    eur = sorted(
        (
            ExchangeRate(r["currency"], r["usd_per_unit"], r["as_of"], r["source"])
            for r in load_fx_rates()
            if r["currency"] == "EUR"
        ),
        key=lambda r: r.as_of or dt.date.min,  # every EUR row is dated
    )
    eia_us = _eia_prices().get("US")
    for iso3, entry in sorted(mix.items()):
        country = pycountry.countries.get(alpha_3=iso3)
        if country is None or entry.get("carbon_intensity") is None:
            continue
        a2 = country.alpha_2
        year, intensity = int(entry.get("year", 2022)), float(entry["carbon_intensity"])
        source = CODECARBON_MIX
        newer = owid_latest().get(iso3)
        if newer is not None and newer[0] > year:  # the newer year of the two sources
            (year, intensity), source = newer, OWID_CI.format(year=newer[0])
        row = _region(
            id=a2.lower(),
            name=entry.get("country_name") or country.name,
            kind="country",
            country_code=a2,
            carbon_intensity_g_per_kwh=round(intensity, 3),
            carbon_source=source,
            carbon_as_of=dt.date(year, 12, 31),
        )
        for tariff, latest in eurostat.items():
            if a2 in latest:
                price_eur, period = latest[a2]
                fx = rate_in_force(eur, _semester_end(period))
                row["electricity_currency"] = "EUR"
                source = f"{EUROSTAT[tariff][1]}, {period}; converted at {fx.usd_per_unit} "
                row.update(
                    tariff_fields(
                        tariff,
                        price_eur * fx.usd_per_unit,
                        price_eur,
                        f"{source}USD/EUR ({fx.source})",
                        _semester_end(period),
                    )
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
    tariff_of = {sector: tariff for tariff, (sector, _) in EIA.items()}
    out: dict[str, Row] = {}
    for r in read_csv(path):
        cents = opt_float(r["price_12m_jun2024_may2025_cents_per_kwh"])
        tariff = tariff_of.get(r["sector"])
        if cents is None or tariff is None:
            continue
        row = out.setdefault(r["code"], {"electricity_currency": "USD"})
        source = f"{EIA[tariff][1]} ({r['eia_series_id']})"
        row.update(tariff_fields(tariff, cents / 100, cents / 100, source, EIA_AS_OF))
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


def _subnational_rows() -> Iterator[Row]:
    """Provinces, states and grid zones outside the US that Green Algorithms lists
    (``CA-QC``, ``AU-NSW``, ``CN-HK``...): id ``{country}-{code}`` in lower case, kind
    ``subnational``, the grid's carbon intensity with the file's source (data years 2019-2020,
    as the file's notes say). No electricity price: none of our price sources covers them."""
    for r in read_csv(
        SOURCES / "green-algorithms-tool/data/latest/CI_aggregated.csv", skip_lines=1
    ):
        country, _, code = r["location"].partition("-")
        if not code or country == "US":
            continue
        yield _region(
            id=f"{country.lower()}-{code.lower()}",
            name=r["regionName"],
            kind="subnational",
            country_code=country,
            carbon_intensity_g_per_kwh=float(r["carbonIntensity"]),
            carbon_source=f"{GA_CI} ({r['source']})",
            carbon_as_of=dt.date(2020, 12, 31),
        )


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
    """Countries, US states, other provinces and grid zones, cloud regions and the world average, with grid carbon intensity
    (gCO2e/kWh), retail electricity price where a source exists, and PUE for cloud regions."""
    rows = [
        *_country_rows(),
        *_us_state_rows(),
        *_subnational_rows(),
        *_cloud_region_rows(),
        _world_row(),
    ]
    for row in rows:
        row["source"] = row["carbon_source"]
        row["as_of"] = max(d for d in (row["carbon_as_of"], row["electricity_as_of"]) if d)
    return rows
