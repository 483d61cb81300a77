"""Committed-use offers: Google Cloud's resource-based committed use discounts (CUD) for the
GPU machine types in the catalog, 1 and 3 years, from ``sources/gcp-pricing/
gpu_commitments.csv`` (see ``scripts/import_gcp_commitments.py`` and DATA_SOURCES.md).

A commitment is billed for every hour of its term whether the machine runs or not, and
Google bills it monthly (no upfront payment). Each offer's ``price_usd_per_hour`` is the
commitment's monthly price / 730 h, the effective hourly rate Google lists beside the
on-demand one; ``monthly_fee_usd`` is that monthly price; ``commitment_term_months`` is 12 or
36. AWS reserved instances and savings plans and Azure reservations are not shipped: no
sourced price file for their GPU instances is available to gpucost."""

from __future__ import annotations

import datetime as dt

from app.catalog.sources.files import SOURCES, Row, read_csv
from app.catalog.sources.skypilot import offer_row
from app.catalog.sources.skypilot_names import gpu_for
from app.costing.model import COMMITTED_HOURS_PER_MONTH

FILE = "gcp-pricing/gpu_commitments.csv"
TERMS = (("usd_per_month_1y", 12), ("usd_per_month_3y", 36))
# The file's key for each GPU -> the SkyPilot accelerator name gpucost maps to a GPU id.
ACCELERATOR = {"a100": "A100", "a100-80gb": "A100-80GB", "h100-80gb": "H100", "l4": "L4"}
SOURCE = (
    "Google Cloud Billing Catalog API via Cyclenerd/google-cloud-pricing-cost-calculator "
    "pricing.yml (github.com/Cyclenerd/google-cloud-pricing-cost-calculator, commit {commit}, "
    "generated {generated}, Apache-2.0): {machine} in {region}, {term}-month commitment"
)


def _generated(text: str) -> dt.date:
    """The day of the file's ``generated`` stamp (``Thu Jul 30 06:13:17 2026``)."""
    return dt.datetime.strptime(text, "%a %b %d %H:%M:%S %Y").date()


def load_gcp_commitments() -> list[Row]:
    """One ``committed_use`` offer per machine type, region and term (12 and 36 months),
    id ``gcp-{machine}-{region}-committed-use-{1y|3y}``; GPUs the catalog lacks are left out."""
    out: list[Row] = []
    for r in read_csv(SOURCES / FILE):
        accelerator = ACCELERATOR.get(r["gpu"])
        gpu_id = gpu_for("gcp", accelerator, r["machine_type"]) if accelerator else None
        if gpu_id is None:
            continue
        on_demand = float(r["usd_per_hour"])
        for column, months in TERMS:
            monthly = float(r[column])
            hourly = monthly / COMMITTED_HOURS_PER_MONTH
            out.append(
                offer_row(
                    "gcp",
                    r["machine_type"],
                    gpu_id,
                    int(float(r["gpu_count"])),
                    "committed_use",
                    hourly,
                    r["region"],
                    source=SOURCE.format(
                        commit=r["commit"][:8],
                        generated=r["generated"],
                        machine=r["machine_type"],
                        region=r["region"],
                        term=months,
                    ),
                    as_of=_generated(r["generated"]),
                    vcpus=float(r["vcpus"]),
                    ram_gb=float(r["ram_gb"]),
                    monthly_fee_usd=round(monthly, 2),
                    notes=f"{months // 12}-year resource-based commitment: ${monthly:,.2f} a "
                    f"month for {months} months (${monthly * months:,.0f} in all) whatever is "
                    f"used; {1 - hourly / on_demand:.0%} below the same file's on-demand "
                    f"${on_demand:.4f}/h",
                    id_suffix=f"-{months // 12}y",
                    commitment_term_months=months,
                )
            )
    return out
