"""Rows of the reference tables (:mod:`app.models.reference`) from the shipped files:
exchange rates (``curated/fx_rates.csv``), embodied-carbon factors
(``curated/embodied_carbon.csv``) and the PUE default for an unmeasured datacenter
(Green Algorithms ``defaults_PUE.csv``)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from app.catalog.sources.files import CURATED, SOURCES, parse_date, read_csv, typed
from app.catalog.sources.offers import pue_defaults

Row = dict[str, Any]

# Green Algorithms data/latest was last changed on 2025-02-05 (commit ca65ba01, SOURCES.md).
GREEN_ALGORITHMS_AS_OF = dt.date(2025, 2, 5)
PUE_UNKNOWN = "pue-unknown-datacenter"


def load_fx_rates() -> list[Row]:
    """One row per dated rate, id ``{currency}-{period}``."""
    return [
        {
            "id": f"{r['currency']}-{r['period']}",
            "currency": r["currency"],
            "usd_per_unit": float(r["usd_per_unit"]),
            "period": r["period"],
            "source": f"{r['source']} (period {r['period']})",
            "as_of": parse_date(r["as_of"]),
        }
        for r in read_csv(CURATED / "fx_rates.csv")
    ]


def load_embodied_factors() -> list[Row]:
    """One row per part (``gpu``, ``desktop``)."""
    return [
        {
            "id": r["part"],
            "co2e_kg": float(r["co2e_kg"]),
            "relative_sd": float(r["relative_sd"]),
            "lifetime_years": float(r["lifetime_years"]),
            "source": r["source"],
            "as_of": parse_date(r["as_of"]),
        }
        for r in read_csv(CURATED / "embodied_carbon.csv")
    ]


CPU_W_PER_CORE = "cpu-power-w-per-core"
MEMORY_W_PER_GB = "memory-power-w-per-gb"
VCPUS_PER_CORE = "vcpus-per-core"
GA = "green-algorithms-tool/data/latest"


DISCOUNT_RATE = "discount-rate-real"
GREENBOOK = "greenbook"


def discount_rate_row() -> Row:
    """The default real discount rate of a cash flow or plan: HM Treasury Green Book's
    standard social time preference rate for years 0-30 (3.5 %/yr), read from the
    ``greenbook`` package's ``stpr_schedule.csv``. Our horizons (at most 60 months) sit in
    that first band, so only it is shipped as a reference value."""
    band = next(
        r for r in read_csv(SOURCES / GREENBOOK / "stpr_schedule.csv") if r["year_from"] == "0"
    )
    meta = next(
        r for r in read_csv(SOURCES / GREENBOOK / "data_versions.csv")
        if r["dataset"] == "stpr_schedule"
    )  # fmt: skip
    return {
        "id": DISCOUNT_RATE,
        "value": float(band["standard"]),
        "unit": "1/yr",
        "description": "Real (constant-price) annual discount rate for a horizon of up to "
        f"{band['year_to']} years",
        "source": f"{meta['source']}: standard STPR, years {band['year_from']}-"
        f"{band['year_to']} (via the greenbook R package, github.com/charlescoverdale/"
        "greenbook, inst/extdata/stpr_schedule.csv, MIT)",
        "as_of": parse_date(meta["last_updated"]),
    }


def load_reference_values() -> list[Row]:
    """Sourced single numbers: the PUE of a datacenter nobody has measured, the cloud
    host power model (Green Algorithms' per-core CPU power of an unknown CPU and its memory
    power per GB; two vCPUs per physical core) and the default real discount rate."""
    pue, source = pue_defaults()["Unknown"]
    memory = next(r for r in read_csv(SOURCES / GA / "referenceValues.csv", skip_lines=1)
                  if r["variable"] == "memoryPower")  # fmt: skip
    cpu = next(
        r for r in read_csv(SOURCES / GA / "TDP_cpu.csv", skip_lines=1) if r["model"] == "Any"
    )
    return [
        {
            "id": PUE_UNKNOWN,
            "value": pue,
            "unit": "ratio",
            "description": "PUE of a datacenter nobody has measured (an unnamed provider)",
            "source": source,
            "as_of": GREEN_ALGORITHMS_AS_OF,
        },
        {
            "id": MEMORY_W_PER_GB,
            "value": float(memory["value"]),
            "unit": "W/GB",
            "description": "Power of memory per GB, for a cloud host's RAM",
            "source": f"Green Algorithms referenceValues.csv 'memoryPower' ({memory['source']})",
            "as_of": GREEN_ALGORITHMS_AS_OF,
        },
        {
            "id": CPU_W_PER_CORE,
            "value": float(cpu["TDP_per_core"]),
            "unit": "W/core",
            "description": "CPU power per core when the CPU model is unknown (a cloud host)",
            "source": "Green Algorithms TDP_cpu.csv 'Any' (TDP per core of an unknown CPU)",
            "as_of": GREEN_ALGORITHMS_AS_OF,
        },
        {
            "id": VCPUS_PER_CORE,
            "value": 2.0,
            "unit": "vCPU/core",
            "description": "vCPUs per physical core of a cloud host (two hardware threads)",
            "source": "AWS EC2 API, CpuOptions 'ThreadsPerCore': 'the number of threads per "
            "CPU core ... The default value is 2' (https://docs.aws.amazon.com/securityhub/1.0/"
            "APIReference/API_AwsEc2LaunchTemplateDataCpuOptionsDetails.html; EC2 User Guide, "
            "'Optimize CPU options'), read 2026-11-22",
            "as_of": dt.date(2026, 11, 22),
        },
        discount_rate_row(),
    ]


def load_published_speeds() -> list[Row]:
    """One row per GPU of each published comparison (``curated/published_speeds.csv``)."""
    return [
        {
            "id": f"{r['comparison']}-{r['gpu_id']}",
            **typed(r, comparison=str, gpu_id=str, relative_speed=float, workload=str, kind=str),
        }
        for r in read_csv(CURATED / "published_speeds.csv")
    ]


VAT_FILE = "vat-rates/vat-rates.json"
# ibericode/vat-rates: vat-rates.json last changed 2025-08-12 (commit 52fe8a90, SOURCES.md).
VAT_AS_OF = dt.date(2025, 8, 12)
VAT_SOURCE = (
    "ibericode/vat-rates vat-rates.json (github.com/ibericode/vat-rates, commit 5abb1e1b, "
    "2025-08-12), standard rate"
)


def load_vat_rates() -> list[Row]:
    """One row per country and period of its standard VAT rate, id
    ``{country}-{effective_from}``; the source's ``0000-01-01`` (since before the table's
    history) becomes 1900-01-01."""
    data = json.loads((SOURCES / VAT_FILE).read_text(encoding="utf-8"))
    rows = []
    for country, periods in sorted(data["items"].items()):
        for p in periods:
            start = p["effective_from"]
            day = dt.date(1900, 1, 1) if start.startswith("0000") else dt.date.fromisoformat(start)
            rows.append(
                {
                    "id": f"{country}-{day.isoformat()}",
                    "country_code": country,
                    "effective_from": day,
                    "standard_rate": round(float(p["rates"]["standard"]) / 100, 6),
                    "source": f"{VAT_SOURCE}, effective {start}",
                    "as_of": VAT_AS_OF,
                }
            )
    return rows
