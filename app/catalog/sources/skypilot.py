"""Cloud offers from SkyPilot's catalogs (AWS, GCP, Azure, and the flat Lambda, RunPod and
Paperspace files): accelerator names mapped to our GPU ids, one row per priced offer, and
the rows skipped on purpose counted with their reason."""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, TypedDict

from app.catalog.sources.files import SOURCES, CatalogDataError, Row, opt_float, read_csv, slug
from app.catalog.sources.spot import is_real_spot, region_spot


@dataclass(frozen=True)
class CatalogFile:
    """A SkyPilot catalog file and the date its prices are taken to hold."""

    path: str
    as_of: dt.date
    note: str


# SOURCES.md gives commits but, for transcribed files, no commit date; the dates below are the
# earliest the data can be (see each note) and are stated as approximate in every row.
_V6_2024 = "approximate date: SkyPilot catalog v6 schema, '2024-era'"
_LATE_2025, _MID_2024 = dt.date(2025, 11, 1), dt.date(2024, 6, 30)
SKYPILOT_FILES = {
    cloud: CatalogFile(f"skypilot-catalog/catalogs/{path}", day, note)
    for cloud, path, day, note in (
        (
            "aws",
            "v8/aws/vms_gpu_subset.csv",
            _LATE_2025,
            "approximate date: the file lists p6-b300 instances, so it is late 2025 or later "
            "(SkyPilot catalog v8, commit 00148f2a)",
        ),
        (
            "gcp",
            "v8/gcp/vms_gpu_subset.csv",
            _LATE_2025,
            "approximate date: SkyPilot catalog v8 (commit 006059e0), fetched with the AWS file",
        ),
        ("azure", "v6/azure/vms_gpu_subset.csv", _MID_2024, f"{_V6_2024} (commit 098741e7)"),
        (
            "lambda",
            "v9/lambda/vms.csv",
            _LATE_2025,
            "approximate date: lists B200 and GH200, so 2025 or later (SkyPilot catalog v9, "
            "commit 2c3d7ea7)",
        ),
        ("runpod", "v6/runpod/vms.csv", _MID_2024, f"{_V6_2024} (commit 098741e7); SECURE cloud"),
        ("paperspace", "v6/paperspace/vms.csv", _MID_2024, f"{_V6_2024} (commit e5200541)"),
    )
}

# Newer versions of a provider's file, loaded after its SKYPILOT_FILES entry: an offer in both
# takes the newer price, and the older one stays in its price history (what ``as_of`` reads).
# Offers only in the older file keep their older date (the staleness policy then says so).
SKYPILOT_NEWER: dict[str, tuple[CatalogFile, ...]] = {
    "runpod": (
        CatalogFile(
            "skypilot-catalog/catalogs/v8/runpod/vms_gpu_subset.csv",
            dt.date(2025, 9, 15),
            "approximate date: SkyPilot catalog v8, commit 01acdfd4, written by SkyPilot's RunPod "
            "data fetcher (per data center, every GPU count; skypilot-org/skypilot PR 6824, "
            "2025-09-15), so no earlier than that day; SECURE cloud; GPU subset",
        ),
    ),
}


def catalog_files(provider: str) -> tuple[CatalogFile, ...]:
    """A provider's shipped SkyPilot files, oldest first."""
    return (SKYPILOT_FILES[provider], *SKYPILOT_NEWER.get(provider, ()))


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
    "H100-NVL": "h100-nvl",
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
    if provider == "azure" and itype.startswith("standard_nd"):
        # ND-series are NVLink (HGX) systems: ND H100 v5 HGX H100 SXM, ND A100 v4 / NDm A100
        # v4 HGX A100 SXM4 40 / 80 GB (Azure ND-series size pages); the NC series are PCIe.
        sxm = {"H100": "h100-sxm", "A100": "a100-sxm4-40gb", "A100-80GB": "a100-sxm4-80gb"}
        if accelerator in sxm:
            return sxm[accelerator]
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
        "commitment_term_months": None,
        "source": source,
        "as_of": as_of,
        "notes": notes,
    }
    row.update(extra)
    return row


class _Common(TypedDict):
    """The fields every offer of one SkyPilot row shares."""

    source: str
    vcpus: float | None
    ram_gb: float | None
    as_of: dt.date


class _CommonNoted(_Common):
    """:class:`_Common` with the offers' shared notes."""

    notes: str


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


def shipped_input(meta: CatalogFile) -> SkyPilotInput:
    """The rows of a shipped SkyPilot file, with its date, note and upstream URL."""
    return SkyPilotInput(meta, read_csv(SOURCES / meta.path), skypilot_url(meta.path))


def _skypilot_rows(
    provider: str, given: SkyPilotInput | None = None
) -> tuple[CatalogFile, list[dict[str, str]], str]:
    given = given or shipped_input(SKYPILOT_FILES[provider])
    return given.meta, given.rows, given.source


def load_aws_offers(report: LoadReport, given: SkyPilotInput | None = None) -> list[Row]:
    """AWS on-demand per region and spot per region (median of its standard availability
    zones, :func:`app.catalog.sources.spot.region_spot`)."""
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
        common = _Common(
            source=source,
            vcpus=opt_float(first["vCPUs"]),
            ram_gb=opt_float(first["MemoryGiB"]),
            as_of=meta.as_of,
        )
        count = int(float(first["AcceleratorCount"]))
        row = functools.partial(offer_row, "aws", itype, gpu_id, count, region=region, **common)
        od_prices = {p for r in group if (p := opt_float(r["Price"])) is not None}
        if od_prices:
            out.append(row("on_demand", min(od_prices), notes=meta.note))
        else:
            report.skip("aws: no on-demand price (p5e)")
        spot = region_spot(
            [
                (float(r["SpotPrice"]), r["AvailabilityZone"])
                for r in group
                if is_real_spot(opt_float(r["Price"]), opt_float(r["SpotPrice"]))
            ]
        )
        if spot is None:
            report.skip("aws: no spot price in a standard availability zone")
            continue
        out.append(
            row(
                "spot",
                spot.price_usd_per_hour,
                availability_zone=spot.zone,
                notes=f"{spot.note}; {meta.note}",
            )
        )
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
        if host_type is None or not host_rows:
            report.skip("gcp: GPU-only price with no host VM row in the subset")
            continue
        gpu_id = gpu_for("gcp", acc, host_type or "")
        if gpu_id is None:
            report.skip(f"gcp: no catalog GPU for {acc}")
            continue
        host = host_rows[0]
        gpu_od = min(float(r["Price"]) for r in group if r["Price"])
        host_od = min(float(r["Price"]) for r in host_rows if r["Price"])
        common = _Common(
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
        host_spot = {
            r["AvailabilityZone"]: p
            for r in host_rows
            if (p := opt_float(r["SpotPrice"])) is not None
        }
        zone_spots = [
            (float(r["SpotPrice"]) + host_spot[r["AvailabilityZone"]], r["AvailabilityZone"])
            for r in group
            if is_real_spot(opt_float(r["Price"]), opt_float(r["SpotPrice"]))
            and host_spot.get(r["AvailabilityZone"])
        ]
        spot = region_spot(zone_spots)
        if spot is not None:
            out.append(
                offer_row(
                    "gcp",
                    host_type,
                    gpu_id,
                    count,
                    "spot",
                    spot.price_usd_per_hour,
                    region,
                    availability_zone=spot.zone,
                    notes=f"host + GPU spot prices per zone, {spot.note}; {meta.note}",
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
        common = _CommonNoted(
            source=source,
            vcpus=opt_float(r["vCPUs"]),
            ram_gb=opt_float(r["MemoryGiB"]),
            as_of=meta.as_of,
            notes=notes,
        )
        out.append(
            offer_row("azure", itype, gpu_id, count, "on_demand", price, r["Region"], **common)
        )
        if spot is not None and is_real_spot(price, spot):
            out.append(
                offer_row("azure", itype, gpu_id, count, "spot", spot, r["Region"], **common)
            )
        else:
            report.skip("azure: spot = on-demand placeholder or empty")
    return out


def _one_per_region(
    rows: list[dict[str, str]], report: LoadReport, provider: str
) -> list[dict[str, str]]:
    """One row per instance type and region: newer flat files (RunPod v8) list every data
    center of a region; the lowest price of the region is kept (RunPod's do not differ)."""
    best: dict[tuple[str, str], dict[str, str]] = {}
    for r in rows:
        key = (r["InstanceType"], r["Region"])
        kept = best.get(key)
        if kept is None:
            best[key] = r
            continue
        report.skip(f"{provider}: another data center of the same region")
        if float(r["Price"] or "inf") < float(kept["Price"] or "inf"):
            best[key] = r
    return list(best.values())


def _load_flat_provider(
    provider: str, interruptible: bool, report: LoadReport, given: SkyPilotInput | None = None
) -> list[Row]:
    meta, rows, source = _skypilot_rows(provider, given)
    out: list[Row] = []
    for r in _one_per_region(rows, report, provider):
        if not r["AcceleratorName"]:
            report.skip(f"{provider}: CPU-only instance")
            continue
        gpu_id = gpu_for(provider, r["AcceleratorName"], r["InstanceType"])
        if gpu_id is None:
            report.skip(f"{provider}: no catalog GPU for {r['AcceleratorName']}")
            continue
        count = int(float(r["AcceleratorCount"]))
        price, spot = float(r["Price"]), opt_float(r["SpotPrice"])
        common = _CommonNoted(
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
        if interruptible and spot is not None and is_real_spot(price, spot):
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


# SkyPilot's canonical GPU names, most specific first (sky/utils/gpu_names.py,
# CANONICAL_GPU_NAMES, skypilot-org/skypilot master, read 2026-11-24, Apache-2.0): the names
# its Kubernetes support gives a node's GPU, and so the keys of `kubernetes.pricing.accelerators`.
SKYPILOT_CANONICAL_GPU_NAMES = (
    "GB300", "GB200", "B300", "B200", "B100", "GH200", "H200", "H100-80GB", "H100-MEGA",
    "H100", "A100-80GB", "A100", "A10G", "A10", "A16", "A30", "A40", "RTX6000-Ada", "L40S",
    "L40", "L4", "A6000", "A5000", "A4000", "V100-32GB", "V100", "P100", "P40", "P4000", "P4",
    "T4g", "T4", "K80", "M60",
)  # fmt: skip


def kubernetes_accelerator_name(gpu_name: str) -> str:
    """The accelerator name SkyPilot gives a Kubernetes node with this GPU, by SkyPilot's own
    rule (``GFDLabelFormatter.get_accelerator_from_label_value``): the GPU's product label
    (``NVIDIA-`` + the name, words joined by ``-``) matched against its canonical names in
    order (an A100 with ``-80GB`` anywhere after it is ``A100-80GB``; others as whole words),
    else the label upper-cased with ``NVIDIA-`` and ``GEFORCE-`` dropped and ``RTX-`` joined
    (``GeForce RTX 4090`` -> ``RTX4090``). Our names' memory suffix on consumer cards and
    parenthesized notes are not part of NVIDIA's product name and are dropped first."""
    name = re.sub(r"\s*\(.*?\)", "", gpu_name).strip()
    if name.lower().startswith("geforce"):
        name = re.sub(r"\s+\d+\s*GB$", "", name, flags=re.IGNORECASE)
    label = "NVIDIA-" + "-".join(name.split())
    for canonical in SKYPILOT_CANONICAL_GPU_NAMES:
        if canonical == "A100-80GB":
            if re.search(r"A100.*-80GB", label):
                return canonical
        elif re.search(rf"\b{re.escape(canonical)}\b", label):
            return canonical
    return label.upper().replace("NVIDIA-", "").replace("GEFORCE-", "").replace("RTX-", "RTX")
