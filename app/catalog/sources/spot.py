"""One spot price per region from the catalogs' per-zone prices: the median over the
region's standard zones, Local and Wavelength Zones left out and said, min and max kept in
the notes (the cheapest zone alone is an artefact: a zone with little capacity, or a Local
Zone priced on its own, can sit at a fraction of the region's price)."""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

# AWS availability-zone ids: a standard zone is `{region code}-az{n}` (`use1-az4`); Local and
# Wavelength Zones add a location (`usw2-lax1-az1`) (AWS "AZ IDs" and "Local Zones" user
# guides). GCP zones are `{region}-{letter}` (`us-central1-a`) and are all standard.
STANDARD_ZONE = re.compile(r"[a-z]+\d-az\d+|[a-z]+-[a-z]+\d+-[a-z]")


def is_real_spot(price: float | None, spot: float | None) -> bool:
    """A spot price equal to (or above) on-demand is the catalogs' placeholder for no spot."""
    return spot is not None and spot > 0 and (price is None or spot < price)


@dataclass(frozen=True)
class RegionSpot:
    """A region's spot price (USD/h, the median over standard zones), the zone when only one
    priced it, and a note with the zones' count, min, max and what was left out."""

    price_usd_per_hour: float
    zone: str | None
    note: str


def region_spot(zones: list[tuple[float, str]]) -> RegionSpot | None:
    """The region's spot price from ``(price, zone)`` pairs; None when no standard zone has
    one (a price only Local Zones offer is no region price)."""
    standard = sorted(z for z in zones if STANDARD_ZONE.fullmatch(z[1]))
    local = sorted(z for z in zones if not STANDARD_ZONE.fullmatch(z[1]))
    if not standard:
        return None
    prices = [p for p, _ in standard]
    left_out = ""
    if local:
        left_out = f"; left out: {len(local)} Local/Wavelength Zone price(s) " + ", ".join(
            f"{z} {p:.4f}" for p, z in local
        )
    note = (
        f"median of {len(standard)} standard zone(s) with a spot price (min {prices[0]:.4f} "
        f"in {standard[0][1]}, max {prices[-1]:.4f} in {standard[-1][1]}){left_out}"
    )
    return RegionSpot(
        round(statistics.median(prices), 6),
        standard[0][1] if len(standard) == 1 else None,
        note,
    )
