"""Dated used prices against launch prices (``curated/resale_observations.csv``, described in
its ``.md``): what the depreciation curves are fitted on, and which observations the fit
leaves out (the 2020-2022 shortage and the launch window) and why."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from functools import cache

from app.catalog.sources.files import CURATED, SOURCES, read_csv

SHORTAGE = (dt.date(2020, 11, 1), dt.date(2022, 6, 30))
LAUNCH_WINDOW_YEARS = 0.5
DAYS_PER_YEAR = 365.25


@dataclass(frozen=True)
class ResaleObservation:
    """One card's used price on a day against its launch price: ``cls`` (``consumer``,
    ``workstation`` or ``datacenter``), ``age_years`` since launch, ``retained`` (used /
    launch price), the used price's ``source``, and why the fit leaves it out (``excluded``,
    None when it is used)."""

    gpu_id: str
    cls: str
    used_on: dt.date
    age_years: float
    retained: float
    source: str
    excluded: str | None


def excluded_because(used_on: dt.date, age_years: float) -> str | None:
    """Why an observation is left out of the fit: the 2020-2022 shortage or the launch
    window (see the ``.md``); None when it is used."""
    if SHORTAGE[0] <= used_on <= SHORTAGE[1]:
        return "2020-2022 shortage"
    if age_years < LAUNCH_WINDOW_YEARS:
        return "launch window (eBay averages then are mostly new cards)"
    return None


@cache
def resale_observations() -> tuple[ResaleObservation, ...]:
    """Every observation of the curated file, ages and fractions recomputed from its dates
    and prices."""
    out = []
    for r in read_csv(CURATED / "resale_observations.csv"):
        launched = dt.date.fromisoformat(r["launch_date"])
        used_on = dt.date.fromisoformat(r["used_date"])
        age = (used_on - launched).days / DAYS_PER_YEAR
        retained = float(r["used_price_usd"]) / float(r["launch_price_usd"])
        out.append(
            ResaleObservation(
                r["gpu_id"],
                r["class"],
                used_on,
                age,
                retained,
                r["used_source"],
                excluded_because(used_on, age),
            )
        )
    return tuple(out)


def resale_class(form_factor: str | None) -> str | None:
    """The resale class of a catalog form factor (``consumer_pcie`` -> ``consumer``,
    ``workstation_pcie`` -> ``workstation``, ``datacenter_*`` -> ``datacenter``)."""
    if form_factor is None:
        return None
    return form_factor.split("_", 1)[0]


@cache
def launch_dates() -> dict[str, tuple[dt.date, str]]:
    """Each catalog GPU's launch day with its source, for the GPUs whose launch list price is
    undated: the ``Launch`` column of gpu-info-api's gpu.json (Wikipedia's tables) under the
    row's ``gpu_json_key``, else the launch date of the card's resale observations."""
    gpu_json = json.loads((SOURCES / "gpu-info-api/gpu.json").read_text(encoding="utf-8"))
    found: dict[str, tuple[dt.date, str]] = {}
    for r in read_csv(CURATED / "resale_observations.csv"):
        found.setdefault(
            r["gpu_id"],
            (dt.date.fromisoformat(r["launch_date"]), "launch date in resale_observations.csv"),
        )
    for r in read_csv(CURATED / "gpus.csv"):
        launch = str(gpu_json.get(r["gpu_json_key"], {}).get("Launch") or "")[:10]
        if r["gpu_json_key"] and launch:
            try:
                day = dt.date.fromisoformat(launch)
            except ValueError:
                continue
            found[r["id"]] = (
                day,
                f"gpu-info-api gpu.json '{r['gpu_json_key']}' Launch (Wikipedia)",
            )
    return found
