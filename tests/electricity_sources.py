"""Electricity prices read straight from the shipped source files (``../shared/data``'s EIA and
Eurostat extracts), for tests to derive expected values from the sources, not from answers."""

from __future__ import annotations

import csv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "app/data/sources/electricity-prices"
EIA = ROOT / "slicesofdata-eia-167-2025/eia_state_avg_retail_price_derived.csv"
EUROSTAT = ROOT / "energy-security-data-warehouse/eurostat_electricity_prices_long_derived.csv"


def eia_usd_per_kwh(state: str, sector: str) -> float:
    """EIA's sales-weighted price over the 12 months Jun 2024-May 2025, USD/kWh."""
    with EIA.open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["code"] == state and r["sector"] == sector:
                return float(r["price_12m_jun2024_may2025_cents_per_kwh"]) / 100
    raise KeyError((state, sector))


def eurostat_eur_per_kwh(geo: str, consumer: str, period: str) -> float:
    """Eurostat's price for ``consumer`` (``household`` band DC with all taxes,
    ``non-household`` band IC excluding VAT) in ``period`` (``2025-S2``), EUR/kWh."""
    with EUROSTAT.open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r["geo"] == geo and r["consumer"] == consumer and r["period"] == period:
                return float(r["value_eur_per_kwh"])
    raise KeyError((geo, consumer, period))
