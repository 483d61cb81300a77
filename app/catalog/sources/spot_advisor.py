"""AWS Spot Instance Advisor interruption bands for GPU instance types
(``sources/aws-spot-advisor/aws_spot_advisor_gpu.csv``: AWS's public feed
spot-advisor-data.json as vendored by alexei-led/spotinfo, Apache-2.0, file commit 5eedf20
of 2025-06-28; its README.md has the provenance and what the bands mean)."""

from __future__ import annotations

import datetime as dt

from app.catalog.sources.files import SOURCES, read_csv

SPOT_ADVISOR_FILE = "aws-spot-advisor/aws_spot_advisor_gpu.csv"
SPOT_ADVISOR_AS_OF = dt.date(2025, 6, 28)
SPOT_ADVISOR_SOURCE = (
    "AWS Spot Instance Advisor (spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json, "
    "'frequency of interruption: the rate at which Spot has reclaimed capacity during the "
    "trailing month'), as vendored by github.com/alexei-led/spotinfo "
    "internal/spot/data/spot-advisor-data.json (Apache-2.0), commit 5eedf20, 2025-06-28"
)


def load_spot_bands() -> dict[tuple[str, str], tuple[str, float]]:
    """``{(region, instance type): (band label, band's upper bound as a fraction per
    month)}``: the label's upper bound (5, 10, 15, 20 %), and for ``>20%`` the feed's own
    maximum (100 %)."""
    upper = {"<5%": 0.05, "5-10%": 0.10, "10-15%": 0.15, "15-20%": 0.20}
    return {
        (r["region"], r["instance_type"]): (
            r["interruption_band"],
            upper.get(r["interruption_band"], float(r["band_max_pct"]) / 100.0),
        )
        for r in read_csv(SOURCES / SPOT_ADVISOR_FILE)
    }
