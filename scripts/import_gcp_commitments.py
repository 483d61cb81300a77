"""Write ``app/data/sources/gcp-pricing/gpu_commitments.csv``: Google Cloud's committed use
discount (CUD) prices of the GPU machine types gpucost ships on-demand offers for.

Source: ``pricing.yml`` of Cyclenerd/google-cloud-pricing-cost-calculator (Apache-2.0, by
Nils Knieling), which its weekly build generates from the Cloud Billing Catalog API: per
machine type and region the on-demand price per hour and the monthly price on demand, with a
1-year and a 3-year resource-based commitment (``month``, ``month_1y``, ``month_3y``; a month
is 730 hours). Only the rows of machine types and regions that the shipped SkyPilot GCP
subset prices on demand are kept, so each commitment sits beside an on-demand offer of the
same machine in the same region. A zero commitment price (the API lists no commitment SKU,
e.g. a2-ultragpu-1g) is left out.

Usage: ``python scripts/import_gcp_commitments.py PRICING_YML COMMIT [--check]``: PRICING_YML
is the file at COMMIT (e.g. ``git show fd66b26:pricing.yml > pricing.yml`` in a clone);
``--check`` exits 1 when the file on disk differs from what the data give.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "app/data/sources/gcp-pricing/gpu_commitments.csv"
SKYPILOT = ROOT / "app/data/sources/skypilot-catalog/catalogs/v8/gcp/vms_gpu_subset.csv"
GPU_KEYS = ("a100", "a100-80gb", "h100-80gb", "l4", "rtx6000")
COLUMNS = (
    "machine_type", "gpu", "gpu_count", "vcpus", "ram_gb", "region", "usd_per_hour",
    "usd_per_month", "usd_per_month_1y", "usd_per_month_3y", "generated", "commit",
)  # fmt: skip


def shipped_hosts() -> set[tuple[str, str]]:
    """(machine type, region) pairs the shipped SkyPilot GCP subset prices."""
    with SKYPILOT.open(encoding="utf-8") as f:
        return {(r["InstanceType"], r["Region"]) for r in csv.DictReader(f) if r["InstanceType"]}


def rows(pricing: dict, commit: str) -> list[dict[str, object]]:
    """One row per kept (machine type, region), sorted."""
    hosts = shipped_hosts()
    generated = str(pricing["about"]["generated"])
    out = []
    for machine, spec in sorted(pricing["compute"]["instance"].items()):
        gpus = [(k, spec[k]) for k in GPU_KEYS if k in spec]
        if len(gpus) != 1:
            continue
        gpu, count = gpus[0]
        for region, cost in sorted(spec.get("cost", {}).items()):
            if (machine, region) not in hosts or not cost.get("month_1y"):
                continue
            out.append(
                {
                    "machine_type": machine,
                    "gpu": gpu,
                    "gpu_count": count,
                    "vcpus": spec.get("cpu"),
                    "ram_gb": spec.get("ram"),
                    "region": region,
                    "usd_per_hour": cost["hour"],
                    "usd_per_month": cost["month"],
                    "usd_per_month_1y": cost["month_1y"],
                    "usd_per_month_3y": cost["month_3y"],
                    "generated": generated,
                    "commit": commit,
                }  # fmt: skip
            )
    return out


def render(data: list[dict[str, object]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(data)
    return buf.getvalue()


def main(argv: list[str]) -> int:
    path, commit = Path(argv[1]), argv[2]
    text = render(
        rows(yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader), commit)
    )
    if "--check" in argv:
        same = OUT.read_text(encoding="utf-8") == text
        print("up to date" if same else f"{OUT} differs from {path}")
        return 0 if same else 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT} ({text.count(chr(10)) - 1} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
