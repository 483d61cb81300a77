"""Read the data files shipped in ``app/data`` into plain row dicts.

Pure functions: no database, no web. Each ``load_*`` returns a list of dicts whose keys are the
catalog tables' column names, and every row carries ``source`` (URL or file) and ``as_of``.
Conflicts between sources are resolved here, in one place, and said in the row's ``notes``.

Files are read from :data:`DATA_DIR` (``app/data``): ``sources/`` holds copies of the upstream
files (see ``DATA_SOURCES.md``), ``curated/`` our own small tables that point into them, and
``reference/`` the seed restatement whose Markdown tables are parsed here.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import re
import statistics
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pycountry

DATA_DIR = Path(__file__).resolve().parent.parent / "data"
SOURCES = DATA_DIR / "sources"
CURATED = DATA_DIR / "curated"
REFERENCE = DATA_DIR / "reference"

SEED_FACTS = REFERENCE / "seed-facts.md"
PAPERSPACE_2022_SOURCE = (
    "seed 004: Paperspace blog 'Best GPU for deep learning on Paperspace' "
    "(blog.paperspace.com/best-gpu-paperspace-2022), restated in reference/seed-facts.md"
)
PAPERSPACE_2022_AS_OF = dt.date(2022, 4, 1)  # the post is dated April 2022 (seed 004)
GPU_SPECS_AS_OF = dt.date(2025, 6, 16)  # gpu-info-api 'gpu-data' commit 03a6b34a (SOURCES.md)

Row = dict[str, Any]


@dataclass(frozen=True)
class CatalogFile:
    """A SkyPilot catalog file and the date its prices are taken to hold."""

    path: str
    as_of: dt.date
    note: str


# SOURCES.md gives commits but, for transcribed files, no commit date; the dates below are the
# earliest the data can be (see each note) and are stated as approximate in every row.
SKYPILOT_FILES = {
    "aws": CatalogFile(
        "skypilot-catalog/catalogs/v8/aws/vms_gpu_subset.csv",
        dt.date(2025, 11, 1),
        "approximate date: the file lists p6-b300 instances, so it is late 2025 or later "
        "(SkyPilot catalog v8, commit 00148f2a)",
    ),
    "gcp": CatalogFile(
        "skypilot-catalog/catalogs/v8/gcp/vms_gpu_subset.csv",
        dt.date(2025, 11, 1),
        "approximate date: SkyPilot catalog v8 (commit 006059e0), fetched with the AWS file",
    ),
    "azure": CatalogFile(
        "skypilot-catalog/catalogs/v6/azure/vms_gpu_subset.csv",
        dt.date(2024, 6, 30),
        "approximate date: SkyPilot catalog v6 schema, '2024-era' (commit 098741e7)",
    ),
    "lambda": CatalogFile(
        "skypilot-catalog/catalogs/v9/lambda/vms.csv",
        dt.date(2025, 11, 1),
        "approximate date: lists B200 and GH200, so 2025 or later (SkyPilot catalog v9, "
        "commit 2c3d7ea7)",
    ),
    "runpod": CatalogFile(
        "skypilot-catalog/catalogs/v6/runpod/vms.csv",
        dt.date(2024, 6, 30),
        "approximate date: SkyPilot catalog v6 schema, '2024-era' (commit 098741e7); SECURE cloud",
    ),
    "paperspace": CatalogFile(
        "skypilot-catalog/catalogs/v6/paperspace/vms.csv",
        dt.date(2024, 6, 30),
        "approximate date: SkyPilot catalog v6 schema, '2024-era' (commit e5200541)",
    ),
}


class CatalogDataError(ValueError):
    """A shipped data file does not have the shape this loader expects."""


# ------------------------------------------------------------------------------------------
# Small parsing helpers
# ------------------------------------------------------------------------------------------


def read_csv(path: Path, *, skip_lines: int = 0) -> list[dict[str, str]]:
    """Rows of a CSV file as dicts (BOM-safe); ``skip_lines`` lines before the header."""
    with path.open(newline="", encoding="utf-8-sig") as fh:
        for _ in range(skip_lines):
            next(fh)
        return [
            {k.strip(): (v or "").strip() for k, v in r.items() if k} for r in csv.DictReader(fh)
        ]


def opt_float(text: str | None) -> float | None:
    """``float(text)`` or None for a blank cell."""
    if text is None or str(text).strip() == "":
        return None
    return float(text)


_NUM = re.compile(r"\d+(?:\.\d+)?")


def numbers_in(value: Any) -> list[float]:
    """All numbers in a gpu.json cell: ``'3,469.8 3,935.2'`` -> [3469.8, 3935.2].

    Thousands separators are commas followed by three digits; ranges (``'100-125'``),
    "base boost" pairs and parenthesised sparse rates all yield their numbers in order.
    """
    if value is None:
        return []
    if isinstance(value, int | float):
        return [float(value)]
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", str(value))
    return [float(m) for m in _NUM.findall(text)]


def parse_markdown_tables(text: str) -> list[list[dict[str, str]]]:
    """Every pipe table in a Markdown text, as lists of row dicts keyed by header cell."""
    tables: list[list[dict[str, str]]] = []
    block: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.strip().startswith("|"):
            block.append(line.strip())
            continue
        if len(block) >= 3:
            cells = [[c.strip() for c in row.strip("|").split("|")] for row in block]
            header, body = cells[0], cells[2:]
            tables.append([dict(zip(header, row, strict=False)) for row in body])
        block = []
    return tables


def find_table(tables: list[list[dict[str, str]]], *columns: str) -> list[dict[str, str]]:
    """The first table whose header has all ``columns``."""
    for table in tables:
        if table and all(c in table[0] for c in columns):
            return table
    raise CatalogDataError(f"no table with columns {columns} in {SEED_FACTS.name}")


@cache
def seed_tables() -> list[list[dict[str, str]]]:
    return parse_markdown_tables(SEED_FACTS.read_text(encoding="utf-8"))


def slug(text: str) -> str:
    """Lower-case slug: ``'p3.2xlarge'`` -> ``'p3.2xlarge'``, ``'East Coast (NY2)'`` ->
    ``'east-coast-ny2'``."""
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


# ------------------------------------------------------------------------------------------
# GPUs
# ------------------------------------------------------------------------------------------


def _gpu_json_specs(entry: dict[str, Any]) -> dict[str, float | None]:
    def first_field(pred) -> tuple[str, Any] | None:
        for key, value in entry.items():
            if pred(key) and value not in (None, "nan", "?"):
                return key, value
        return None

    specs: dict[str, float | None] = {}
    mem = first_field(lambda k: k.startswith("Memory Size"))
    specs["memory_gb"] = (numbers_in(mem[1]) or [None])[0] if mem else None
    bw = first_field(lambda k: k.startswith("Memory Bandwidth"))
    specs["memory_bandwidth_gb_per_s"] = max(numbers_in(bw[1]), default=None) if bw else None
    fp = first_field(lambda k: "Single precision" in k)
    if fp:
        values = numbers_in(fp[1])
        # "base boost" pairs and ranges: the boost (largest) figure; GFLOPS -> TFLOPS.
        top = max(values, default=None)
        specs["fp32_tflops"] = None if top is None else (top / 1000 if "GFLOPS" in fp[0] else top)
    else:
        specs["fp32_tflops"] = None
    tdp = first_field(lambda k: k.startswith("TDP"))
    specs["tdp_w"] = max(numbers_in(tdp[1]), default=None) if tdp else None
    launch = str(entry.get("Launch") or "")
    specs["launch_year"] = float(launch[:4]) if launch[:4].isdigit() else None
    return specs


def load_gpus() -> list[Row]:
    """The GPU catalog: ``curated/gpus.csv`` rows with specs pulled from the source files.

    Precedence per field: the curated row's explicit override (with its ``override_source``)
    > the Paperspace 2022 table in the seed (for the 12 GPUs Paperspace benchmarked) >
    gpu.json (Wikipedia) > mlco2 gpus.csv. TDP: override > gpu.json > mlco2 > Green Algorithms.
    """
    gpu_json = json.loads((SOURCES / "gpu-info-api/gpu.json").read_text(encoding="utf-8"))
    mlco2 = {r["name"]: r for r in read_csv(SOURCES / "mlco2-impact/data/gpus.csv")}
    paperspace = {r["GPU"]: r for r in find_table(seed_tables(), "GPU", "FP32 TFLOPS", "$/h")}
    rows: list[Row] = []
    for cur in read_csv(CURATED / "gpus.csv"):
        sources: list[str] = []
        specs: dict[str, float | None] = {
            "memory_gb": None,
            "memory_bandwidth_gb_per_s": None,
            "fp32_tflops": None,
            "tdp_w": None,
            "launch_year": None,
        }
        if cur["mlco2_name"]:
            m = mlco2[cur["mlco2_name"]]
            # mlco2 rows are not always aligned (the A10G row is one cell short), so a
            # cell that is not a number is treated as missing.
            specs.update(
                memory_gb=(numbers_in(m["memory"]) or [None])[0]
                if "http" not in m["memory"]
                else None,
                tdp_w=(numbers_in(m["tdp_watts"]) or [None])[0],
            )
            sources.append(f"mlco2/impact data/gpus.csv '{cur['mlco2_name']}'")
        if cur["gpu_json_key"]:
            entry = gpu_json[cur["gpu_json_key"]]
            found = _gpu_json_specs(entry)
            specs.update({k: v for k, v in found.items() if v is not None})
            sources.append(f"gpu-info-api gpu.json '{cur['gpu_json_key']}' (Wikipedia)")
        if cur["paperspace_name"]:
            p = paperspace[cur["paperspace_name"]]
            specs.update(
                memory_gb=float(p["mem GB"]),
                fp32_tflops=float(p["FP32 TFLOPS"]),
                memory_bandwidth_gb_per_s=float(p["mem BW GB/s"]),
            )
            sources.append("seed 004 Paperspace table (memory, FP32, bandwidth)")
        overrides = {
            k: opt_float(cur[k])
            for k in ("memory_gb", "memory_bandwidth_gb_per_s", "fp32_tflops", "tdp_w")
        }
        if any(v is not None for v in overrides.values()):
            specs.update({k: v for k, v in overrides.items() if v is not None})
            sources.append(cur["override_source"])
        missing = [k for k in ("memory_gb", "tdp_w") if specs.get(k) is None]
        if missing:
            raise CatalogDataError(f"GPU {cur['id']}: no source gives {missing}")
        aliases = [a.strip() for a in cur["aliases"].split(";") if a.strip()]
        rows.append(
            {
                "id": cur["id"],
                "name": cur["name"],
                "aliases": aliases,
                "vendor": "NVIDIA",
                "architecture": cur["architecture"],
                "form_factor": cur["form_factor"],
                "memory_gb": specs["memory_gb"],
                "memory_bandwidth_gb_per_s": specs["memory_bandwidth_gb_per_s"],
                "fp32_tflops": specs["fp32_tflops"],
                "tdp_w": specs["tdp_w"],
                "launch_year": int(specs["launch_year"]) if specs["launch_year"] else None,
                "price_new_usd": opt_float(cur["price_new_usd"]),
                "price_new_as_of": _date(cur["price_new_as_of"]),
                "price_new_source": cur["price_new_source"] or None,
                "price_used_usd": opt_float(cur["price_used_usd"]),
                "price_used_as_of": _date(cur["price_used_as_of"]),
                "price_used_source": cur["price_used_source"] or None,
                "source": "; ".join(sources),
                # gpu.json's data commit (03a6b34a, 2025-06-16), the newest spec source used.
                "as_of": GPU_SPECS_AS_OF,
                "notes": cur["notes"] or None,
            }
        )
    return rows


def _date(text: str | None) -> dt.date | None:
    return dt.date.fromisoformat(text) if text else None


# ------------------------------------------------------------------------------------------
# Cloud offers
# ------------------------------------------------------------------------------------------

# Accelerator names in the SkyPilot catalogs -> our GPU ids. Instance-type hints come first
# where one name covers two parts (Lambda's 'A100' is PCIe or SXM4 by instance type).
ACCELERATOR_GPU = {
    "T4": "tesla-t4",
    "A10G": "a10g",
    "A10": "a10",
    "L4": "l4",
    "L40S": "l40s",
    "L40": "l40",
    "V100": "v100-16gb",
    "V100-32GB": "v100-32gb",
    "A100": "a100-sxm4-40gb",
    "A100-80GB": "a100-sxm4-80gb",
    "H100": "h100-sxm",
    "H200": "h200",
    "B200": "b200",
    "K80": "tesla-k80",
    "P100": "tesla-p100",
    "P4": "tesla-p4",
    "P40": "tesla-p40",
    "A6000": "rtx-a6000",
    "RTX6000": "quadro-rtx-6000",
    "A40": "a40",
    "A100-80GB-SXM": "a100-sxm4-80gb",
    "H100-SXM": "h100-sxm",
    "RTX3090": "rtx-3090",
    "RTX4090": "rtx-4090",
    "RTX4000-Ada": "rtx-4000-ada",
    "RTX6000-Ada": "rtx-6000-ada",
    "RTXA4000": "rtx-a4000",
    "RTXA4500": "rtx-a4500",
    "RTXA5000": "rtx-a5000",
    "RTXA6000": "rtx-a6000",
    "M4000": "quadro-m4000",
    "P4000": "quadro-p4000",
    "A4000": "rtx-a4000",
}
PROVIDER_ACCELERATOR_GPU = {
    # (provider, accelerator): gpu id, where a provider's part differs from the default above.
    ("azure", "A100-80GB"): "a100-80gb",  # NC A100 v4 series: A100 80GB PCIe
    ("azure", "H100"): "h100-nvl",  # NC H100 v5 series: H100 NVL
    ("runpod", "A100-80GB"): "a100-80gb",  # RunPod lists the SXM part separately
    ("runpod", "H100"): "h100-pcie",  # RunPod lists the SXM part separately
    ("paperspace", "A100-80GB"): "a100-80gb",
}


def gpu_for(provider: str, accelerator: str, instance_type: str) -> str | None:
    """Our GPU id for a catalog row, or None when the catalog has no such GPU."""
    itype = instance_type.lower()
    if provider == "lambda":
        if "a100_80gb" in itype:
            return "a100-sxm4-80gb"
        if "a100" in itype:
            return "a100-sxm4-40gb" if "sxm" in itype else "a100-40gb"
        if "h100_pcie" in itype:
            return "h100-pcie"
    if provider == "azure" and accelerator == "H100" and itype.startswith("standard_nd"):
        return "h100-sxm"  # ND H100 v5: HGX H100 SXM
    return PROVIDER_ACCELERATOR_GPU.get((provider, accelerator), ACCELERATOR_GPU.get(accelerator))


def offer_row(
    provider: str,
    instance_type: str,
    gpu_id: str,
    gpu_count: int,
    pricing_model: str,
    price: float,
    region: str | None,
    *,
    source: str,
    as_of: dt.date,
    vcpus: float | None = None,
    ram_gb: float | None = None,
    availability_zone: str | None = None,
    monthly_fee_usd: float = 0.0,
    notes: str | None = None,
    id_suffix: str = "",
    **extra: Any,
) -> Row:
    """One ``cloud_offer`` row; its id is ``{provider}-{instance}[-{region}]-{pricing}`` (slugged)
    plus ``id_suffix``. ``price`` is the whole instance's USD/h; ``monthly_fee_usd`` USD/month;
    ``ram_gb`` GB; the provider's billing rules are added by :func:`with_billing`."""
    parts = [provider, slug(instance_type)]
    if region:
        parts.append(slug(region))
    parts.append(pricing_model.replace("_", "-"))
    row: Row = {
        "id": "-".join(parts) + id_suffix,
        "provider": provider,
        "instance_type": instance_type,
        "gpu_id": gpu_id,
        "gpu_count": gpu_count,
        "pricing_model": pricing_model,
        "price_usd_per_hour": round(price, 6),
        "region": region,
        "availability_zone": availability_zone,
        "vcpus": vcpus,
        "ram_gb": ram_gb,
        "monthly_fee_usd": monthly_fee_usd,
        "included_compute_units_per_month": 0.0,
        "compute_units_per_hour": None,
        "usd_per_compute_unit": None,
        "source": source,
        "as_of": as_of,
        "notes": notes,
    }
    row.update(extra)
    return row


@dataclass
class LoadReport:
    """What a loader kept and skipped (rows, with a reason each), for the seed summary."""

    skipped: dict[str, int]

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1


@dataclass(frozen=True)
class SkyPilotInput:
    """SkyPilot catalog rows to load instead of the shipped file: the file's date and note
    (``meta``), its rows (dicts by column name, each may carry ``_line``), and ``source``."""

    meta: CatalogFile
    rows: list[dict[str, str]]
    source: str


def skypilot_url(path: str) -> str:
    """The upstream URL of a shipped SkyPilot catalog file (``skypilot-catalog/...``)."""
    return (
        "https://github.com/skypilot-org/skypilot-catalog/blob/master/"
        + path[len("skypilot-catalog/") :]
    )


def _skypilot_rows(
    provider: str, given: SkyPilotInput | None = None
) -> tuple[CatalogFile, list[dict[str, str]], str]:
    if given is not None:
        return given.meta, given.rows, given.source
    meta = SKYPILOT_FILES[provider]
    return meta, read_csv(SOURCES / meta.path), skypilot_url(meta.path)


def _is_real_spot(price: float | None, spot: float | None) -> bool:
    """A spot price equal to (or above) on-demand is the catalogs' placeholder for no spot."""
    return spot is not None and spot > 0 and (price is None or spot < price)


def load_aws_offers(report: LoadReport, given: SkyPilotInput | None = None) -> list[Row]:
    """AWS on-demand per region and spot per region (cheapest availability zone)."""
    meta, rows, source = _skypilot_rows("aws", given)
    grouped: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    for r in rows:
        grouped[(r["InstanceType"], r["Region"])].append(r)
    out: list[Row] = []
    for (itype, region), group in sorted(grouped.items()):
        first = group[0]
        gpu_id = gpu_for("aws", first["AcceleratorName"], itype)
        if gpu_id is None:
            report.skip(f"aws: no catalog GPU for {first['AcceleratorName']}")
            continue
        common = dict(
            source=source,
            vcpus=opt_float(first["vCPUs"]),
            ram_gb=opt_float(first["MemoryGiB"]),
        )
        count = int(float(first["AcceleratorCount"]))
        od_prices = {opt_float(r["Price"]) for r in group} - {None}
        if od_prices:
            od = min(od_prices)
            out.append(
                offer_row(
                    "aws",
                    itype,
                    gpu_id,
                    count,
                    "on_demand",
                    od,
                    region,
                    as_of=meta.as_of,
                    notes=meta.note,
                    **common,
                )
            )
        else:
            report.skip("aws: no on-demand price (p5e)")
        spots = [
            (float(r["SpotPrice"]), r["AvailabilityZone"])
            for r in group
            if _is_real_spot(opt_float(r["Price"]), opt_float(r["SpotPrice"]))
        ]
        if spots:
            price, zone = min(spots)
            out.append(
                offer_row(
                    "aws",
                    itype,
                    gpu_id,
                    count,
                    "spot",
                    price,
                    region,
                    availability_zone=zone,
                    as_of=meta.as_of,
                    notes=f"cheapest of {len(spots)} availability zone(s) with a spot price; "
                    f"median {statistics.median(p for p, _ in spots):.4f}; {meta.note}",
                    **common,
                )
            )
        else:
            report.skip("aws: spot = on-demand placeholder (no spot)")
    return out


GCP_HOST_FOR = {
    ("A100", 1): "a2-highgpu-1g",
    ("A100-80GB", 1): "a2-ultragpu-1g",
    ("H100", 1): "a3-highgpu-1g",
}


def load_gcp_offers(report: LoadReport, given: SkyPilotInput | None = None) -> list[Row]:
    """GCP: GPU price + host VM price in the same region (and zone, for spot), summed.

    GCP prices accelerators separately from the VM; a GPU-only figure understates the bill,
    so GPU rows without a host row in the shipped subset are not shipped.
    """
    meta, rows, source = _skypilot_rows("gcp", given)
    hosts: dict[tuple[str, str], list[dict[str, str]]] = defaultdict(list)
    gpus: dict[tuple[str, int, str], list[dict[str, str]]] = defaultdict(list)
    for r in rows:
        if r["InstanceType"]:
            hosts[(r["InstanceType"], r["Region"])].append(r)
        else:
            gpus[(r["AcceleratorName"], int(float(r["AcceleratorCount"])), r["Region"])].append(r)
    out: list[Row] = []
    for (acc, count, region), group in sorted(gpus.items()):
        host_type = GCP_HOST_FOR.get((acc, count))
        host_rows = hosts.get((host_type, region)) if host_type else None
        if not host_rows:
            report.skip("gcp: GPU-only price with no host VM row in the subset")
            continue
        gpu_id = gpu_for("gcp", acc, host_type or "")
        if gpu_id is None:
            report.skip(f"gcp: no catalog GPU for {acc}")
            continue
        host = host_rows[0]
        gpu_od = min(float(r["Price"]) for r in group if r["Price"])
        host_od = min(float(r["Price"]) for r in host_rows if r["Price"])
        common = dict(
            source=source,
            vcpus=opt_float(host["vCPUs"]),
            ram_gb=opt_float(host["MemoryGiB"]),
            as_of=meta.as_of,
        )
        out.append(
            offer_row(
                "gcp",
                host_type,
                gpu_id,
                count,
                "on_demand",
                gpu_od + host_od,
                region,
                notes=f"host {host_type} ${host_od:g}/h + {count}x {acc} ${gpu_od:g}/h; {meta.note}",
                **common,
            )
        )
        host_spot = {r["AvailabilityZone"]: opt_float(r["SpotPrice"]) for r in host_rows}
        zone_spots = [
            (float(r["SpotPrice"]) + host_spot[r["AvailabilityZone"]], r["AvailabilityZone"])
            for r in group
            if _is_real_spot(opt_float(r["Price"]), opt_float(r["SpotPrice"]))
            and host_spot.get(r["AvailabilityZone"])
        ]
        if zone_spots:
            price, zone = min(zone_spots)
            out.append(
                offer_row(
                    "gcp",
                    host_type,
                    gpu_id,
                    count,
                    "spot",
                    price,
                    region,
                    availability_zone=zone,
                    notes=f"host + GPU spot prices in zone {zone}, cheapest of {len(zone_spots)}; "
                    f"{meta.note}",
                    **common,
                )
            )
    return out


def load_azure_offers(report: LoadReport, given: SkyPilotInput | None = None) -> list[Row]:
    """Azure pay-as-you-go and spot per region (US regions, SkyPilot v6)."""
    meta, rows, source = _skypilot_rows("azure", given)
    out: list[Row] = []
    for r in rows:
        itype = r["InstanceType"]
        if not r["AcceleratorName"] or not r["Price"]:
            report.skip("azure: row without accelerator or price")
            continue
        if itype.endswith("_Promo"):
            report.skip("azure: promotional SKU")
            continue
        gpu_id = gpu_for("azure", r["AcceleratorName"], itype)
        if gpu_id is None:
            report.skip(f"azure: no catalog GPU for {r['AcceleratorName']}")
            continue
        count = int(float(r["AcceleratorCount"]))
        notes = meta.note
        if itype == "Standard_ND96isr_H100_v5" and count == 12:
            count = 8
            notes += "; GPU count corrected from the source's 12 to 8 (ND H100 v5 has 8 GPUs)"
        price, spot = float(r["Price"]), opt_float(r["SpotPrice"])
        common = dict(
            source=source,
            vcpus=opt_float(r["vCPUs"]),
            ram_gb=opt_float(r["MemoryGiB"]),
            as_of=meta.as_of,
            notes=notes,
        )
        out.append(
            offer_row("azure", itype, gpu_id, count, "on_demand", price, r["Region"], **common)
        )
        if _is_real_spot(price, spot):
            out.append(
                offer_row("azure", itype, gpu_id, count, "spot", spot, r["Region"], **common)
            )
        else:
            report.skip("azure: spot = on-demand placeholder or empty")
    return out


def _load_flat_provider(
    provider: str, interruptible: bool, report: LoadReport, given: SkyPilotInput | None = None
) -> list[Row]:
    meta, rows, source = _skypilot_rows(provider, given)
    out: list[Row] = []
    for r in rows:
        if not r["AcceleratorName"]:
            report.skip(f"{provider}: CPU-only instance")
            continue
        gpu_id = gpu_for(provider, r["AcceleratorName"], r["InstanceType"])
        if gpu_id is None:
            report.skip(f"{provider}: no catalog GPU for {r['AcceleratorName']}")
            continue
        count = int(float(r["AcceleratorCount"]))
        price, spot = float(r["Price"]), opt_float(r["SpotPrice"])
        common = dict(
            source=source,
            vcpus=opt_float(r["vCPUs"]),
            ram_gb=opt_float(r["MemoryGiB"]),
            as_of=meta.as_of,
            notes=meta.note,
        )
        out.append(
            offer_row(
                provider,
                r["InstanceType"],
                gpu_id,
                count,
                "on_demand",
                price,
                r["Region"],
                **common,
            )
        )
        if interruptible and _is_real_spot(price, spot):
            out.append(
                offer_row(
                    provider,
                    r["InstanceType"],
                    gpu_id,
                    count,
                    "interruptible",
                    spot,
                    r["Region"],
                    **common,
                )
            )
    return out


def load_paperspace_2022_offers() -> list[Row]:
    """The seed's Paperspace Gradient table (April 2022): $/h plus the plan fee each machine
    requires, parsed from the seed restatement."""
    out = []
    for r in find_table(seed_tables(), "GPU", "$/h", "plan $/month"):
        gpu_id = _paperspace_seed_gpu(r["GPU"])
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


def _paperspace_seed_gpu(name: str) -> str:
    try:
        return _paperspace_name_index()[name]
    except KeyError as exc:
        raise CatalogDataError(f"Paperspace GPU {name!r} is not in curated/gpus.csv") from exc


def load_colab_plans() -> list[Row]:
    """Google Colab plans (monthly fee, included compute units, $ per unit)."""
    return [
        {
            "id": r["id"],
            "name": r["name"],
            "monthly_fee_usd": float(r["monthly_fee_usd"]),
            "included_compute_units_per_month": float(r["included_compute_units_per_month"]),
            "usd_per_compute_unit": opt_float(r["usd_per_compute_unit"]),
            "source": r["source"],
            "as_of": _date(r["as_of"]),
            "notes": r["notes"] or None,
        }
        for r in read_csv(CURATED / "colab_plans.csv")
    ]


def load_colab_rates() -> list[Row]:
    """Colab compute-unit burn rates per GPU (CU/h), each with its measurement date."""
    return [
        {
            "id": f"{r['gpu_id']}-{r['as_of']}",
            "gpu_id": r["gpu_id"],
            "compute_units_per_hour": float(r["compute_units_per_hour"]),
            "as_of": _date(r["as_of"]),
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
            as_of=_date(r["as_of"]),
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
                "as_of": _date(r["as_of"]),
            }
        )
    return rows


def load_skypilot(
    provider: str, report: LoadReport, given: SkyPilotInput | None = None
) -> list[Row]:
    """Offers from one provider's SkyPilot catalog (the shipped file, or ``given`` rows)."""
    if provider == "aws":
        return load_aws_offers(report, given)
    if provider == "gcp":
        return load_gcp_offers(report, given)
    if provider == "azure":
        return load_azure_offers(report, given)
    if provider in FLAT_PROVIDERS:
        return _load_flat_provider(provider, FLAT_PROVIDERS[provider], report, given)
    raise CatalogDataError(f"no SkyPilot loader for provider '{provider}'")


# Providers whose SkyPilot file has one row per instance and region; True: its SpotPrice is
# RunPod's interruptible ("community spot") price.
FLAT_PROVIDERS = {"lambda": False, "runpod": True, "paperspace": False}


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
        *(o for provider in SKYPILOT_FILES for o in load_skypilot(provider, report)),
        *load_colab_offers(),
    ]
    seen: set[str] = set()
    for offer in offers:
        if offer["id"] in seen:
            raise CatalogDataError(f"duplicate offer id {offer['id']}")
        seen.add(offer["id"])
    return with_billing(offers)


# ------------------------------------------------------------------------------------------
# Barebones, utilization profiles, benchmarks
# ------------------------------------------------------------------------------------------


def load_barebones() -> list[Row]:
    """Desktop barebones (everything but the GPUs), with price and base power."""
    return [
        {
            "id": r["id"],
            "name": r["name"],
            "gpu_slots": int(r["gpu_slots"]),
            "price_usd": float(r["price_usd"]),
            "base_power_w": float(r["base_power_w"]),
            "idle_power_w": opt_float(r["idle_power_w"]),
            "psu_efficiency": opt_float(r["psu_efficiency"]),
            "source": r["source"],
            "as_of": _date(r["as_of"]),
            "notes": r["notes"] or None,
        }
        for r in read_csv(CURATED / "barebones.csv")
    ]


def load_utilization_profiles() -> list[Row]:
    """Utilization profiles (seed 001) plus always-on."""
    return [
        {
            "id": r["id"],
            "name": r["name"],
            "utilization": float(r["utilization"]),
            "description": r["description"],
            "source": r["source"],
            "as_of": _date(r["as_of"]),
        }
        for r in read_csv(CURATED / "utilization_profiles.csv")
    ]


BENCHMARKS = {
    "yolor": (
        "YOLOR inference",
        "YOLOR inference",
        None,
        "yolor_csp_x, img-size 1280, conf 0.25 (inference)",
    ),
    "stylegan_xl": (
        "StyleGAN_XL training",
        "StyleGAN_XL train",
        "StyleGAN_XL max batch",
        "stylegan3-t, pokemon256, batch 8, kimg 5 (training)",
    ),
    "efficientnet": (
        "EfficientNet training",
        "EfficientNet train",
        "EfficientNet max batch",
        "tiny-imagenet-200 (64x64), 1 epoch, Adam lr 1e-3 (training)",
    ),
}


def load_benchmarks() -> tuple[list[Row], list[Row]]:
    """The seed's three Paperspace workloads and their per-GPU results.

    Returns (benchmarks, results); a result has ``seconds`` (None when the run ran out of
    memory), ``oom`` and ``max_batch_size`` (None where the post gives none).
    """
    times = find_table(seed_tables(), "GPU", "YOLOR inference", "StyleGAN_XL train")
    batches = {r["GPU"]: r for r in find_table(seed_tables(), "GPU", "StyleGAN_XL max batch")}
    benchmarks = [
        {
            "id": bid,
            "name": name,
            "settings": settings,
            "source": PAPERSPACE_2022_SOURCE,
            "as_of": PAPERSPACE_2022_AS_OF,
        }
        for bid, (name, _, _, settings) in BENCHMARKS.items()
    ]
    results = []
    for r in times:
        gpu_id = _paperspace_seed_gpu(r["GPU"])
        for bid, (_, time_col, batch_col, _) in BENCHMARKS.items():
            cell = r[time_col]
            oom = cell.upper().startswith("OOM")
            results.append(
                {
                    "id": f"{bid}-{gpu_id}",
                    "benchmark_id": bid,
                    "gpu_id": gpu_id,
                    "gpu_count": 1,
                    "seconds": None if oom else float(cell),
                    "oom": oom,
                    "max_batch_size": int(batches[r["GPU"]][batch_col]) if batch_col else None,
                    "source": PAPERSPACE_2022_SOURCE,
                    "as_of": PAPERSPACE_2022_AS_OF,
                }
            )
    return benchmarks, results


# ------------------------------------------------------------------------------------------
# Regions: carbon intensity, electricity price, PUE
# ------------------------------------------------------------------------------------------

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
        "pue": None,
        "pue_source": None,
    }
    row.update(fields)
    return row


@dataclass(frozen=True)
class FxRate:
    """USD per unit of ``currency``, dated, with its source (USD itself is 1, no source)."""

    currency: str
    usd_per_unit: float
    as_of: dt.date | None
    source: str | None


@cache
def fx_table() -> dict[str, tuple[FxRate, ...]]:
    """``curated/fx_rates.csv``: every dated rate per currency, oldest first."""
    table: dict[str, list[FxRate]] = {}
    for r in read_csv(CURATED / "fx_rates.csv"):
        table.setdefault(r["currency"], []).append(
            FxRate(
                r["currency"],
                float(r["usd_per_unit"]),
                _date(r["as_of"]),
                f"{r['source']} (period {r['period']})",
            )
        )
    return {c: tuple(sorted(rates, key=lambda x: x.as_of)) for c, rates in table.items()}


USD = FxRate("USD", 1.0, None, None)


def fx_rate(currency: str, day: dt.date | None) -> FxRate | None:
    """The rate of ``currency`` in force on ``day``: the latest dated on or before it, the
    earliest when all are later, the latest when ``day`` is None; :data:`USD` for USD; None
    for a currency without a rate."""
    if currency == "USD":
        return USD
    rates = fx_table().get(currency)
    if not rates:
        return None
    if day is None:
        return rates[-1]
    before = [r for r in rates if r.as_of <= day]
    return before[-1] if before else rates[0]


def _semester_end(period: str) -> dt.date:
    year, half = period.split("-S")
    return dt.date(int(year), 6, 30) if half == "1" else dt.date(int(year), 12, 31)


def _eurostat_latest() -> dict[str, tuple[float, str]]:
    """Latest household price per Eurostat geo: {alpha2: (eur_per_kwh, period)}."""
    path = (
        SOURCES
        / "electricity-prices/energy-security-data-warehouse/eurostat_electricity_prices_long_derived.csv"
    )
    best: dict[str, tuple[float, str]] = {}
    for r in read_csv(path):
        if r["consumer"] != "household" or not r["value_eur_per_kwh"]:
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
    fx = fx_rate("EUR", None)
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
            eur, period = eurostat[a2]
            row.update(
                electricity_price_usd_per_kwh=round(eur * fx.usd_per_unit, 4),
                electricity_price_local=eur,
                electricity_currency="EUR",
                electricity_source=f"{EUROSTAT_SOURCE}, {period}; converted at "
                f"{fx.usd_per_unit} USD/EUR ({fx.source})",
                electricity_as_of=_semester_end(period),
            )
        elif a2 == "US" and eia_us:
            row.update(eia_us)
        yield row


@cache
def _eia_prices() -> dict[str, Row]:
    path = (
        SOURCES
        / "electricity-prices/slicesofdata-eia-167-2025/eia_state_avg_retail_price_derived.csv"
    )
    out = {}
    for r in read_csv(path):
        cents = opt_float(r["price_12m_jun2024_may2025_cents_per_kwh"])
        if r["sector"] != "residential" or cents is None:
            continue
        out[r["code"]] = {
            "electricity_price_usd_per_kwh": round(cents / 100, 4),
            "electricity_price_local": cents / 100,
            "electricity_currency": "USD",
            "electricity_source": f"{EIA_SOURCE} ({r['eia_series_id']})",
            "electricity_as_of": dt.date(2025, 5, 31),
        }
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


def iter_all(report: LoadReport) -> Iterable[tuple[str, list[Row]]]:
    """Every table's rows, in foreign-key order, for the seeder; source rows that are not
    shipped are counted in ``report``."""
    benchmarks, results = load_benchmarks()
    yield "gpu", load_gpus()
    yield "provider", load_providers()
    yield "cloud_offer", load_offers(report)
    yield "colab_plan", load_colab_plans()
    yield "colab_rate", load_colab_rates()
    yield "barebone", load_barebones()
    yield "region", load_regions()
    yield "utilization_profile", load_utilization_profiles()
    yield "benchmark", benchmarks
    yield "benchmark_result", results
    from app.catalog.sources import reference  # reads helpers defined above

    yield "fx_rate", reference.load_fx_rates()
    yield "embodied_factor", reference.load_embodied_factors()
    yield "reference_value", reference.load_reference_values()
