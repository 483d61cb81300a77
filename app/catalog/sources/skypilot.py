"""Cloud offers from SkyPilot's catalogs (AWS, GCP, Azure, and the flat Lambda, RunPod and
Paperspace files): accelerator names mapped to our GPU ids, one row per priced offer, and
the rows skipped on purpose counted with their reason."""

from __future__ import annotations

import datetime as dt
import functools
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, TypedDict

from app.catalog.sources.files import SOURCES, CatalogDataError, Row, opt_float, read_csv, slug
from app.catalog.sources.skypilot_names import gpu_for
from app.catalog.sources.skypilot_providers import PROVIDER_FILES, gpu_of_row, resold, upstream
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
        *(
            (p, path, day, f"{basis} (SkyPilot catalog, commit {commit}); GPU subset")
            for p, (path, day, basis, commit) in PROVIDER_FILES.items()
        ),
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


def _common(r: dict[str, str], source: str, meta: CatalogFile) -> _Common:
    """The shared fields of the offers of SkyPilot row ``r``: its vCPUs and RAM (GB), the
    file's ``source`` and date."""
    return _Common(
        source=source,
        vcpus=opt_float(r["vCPUs"]),
        ram_gb=opt_float(r["MemoryGiB"]),
        as_of=meta.as_of,
    )


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
        common = _common(first, source, meta)
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
        common = _common(host, source, meta)
        row = functools.partial(offer_row, "gcp", host_type, gpu_id, count, region=region, **common)
        out.append(
            row(
                "on_demand",
                gpu_od + host_od,
                notes=f"host {host_type} ${host_od:g}/h + {count}x {acc} ${gpu_od:g}/h; {meta.note}",
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
                row(
                    "spot",
                    spot.price_usd_per_hour,
                    availability_zone=spot.zone,
                    notes=f"host + GPU spot prices per zone, {spot.note}; {meta.note}",
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
        common = _CommonNoted(**_common(r, source, meta), notes=notes)
        row = functools.partial(
            offer_row, "azure", itype, gpu_id, count, region=r["Region"], **common
        )
        out.append(row("on_demand", price))
        if spot is not None and is_real_spot(price, spot):
            out.append(row("spot", spot))
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


def _flat_gpu(provider: str, r: dict[str, str], report: LoadReport) -> str | None:
    """Our GPU id for a flat file's row, or None (the reason counted)."""
    if provider in PROVIDER_FILES:
        why = resold(provider, r["InstanceType"])
        gpu_id, why = (None, why) if why else gpu_of_row(provider, r["AcceleratorName"], r)
    else:
        gpu_id, why = gpu_for(provider, r["AcceleratorName"], r["InstanceType"]), None
    if gpu_id is None:
        report.skip(why or f"{provider}: no catalog GPU for {r['AcceleratorName']}")
    return gpu_id


def _load_flat_provider(
    provider: str, interruptible: bool, report: LoadReport, given: SkyPilotInput | None = None
) -> list[Row]:
    meta, rows, source = _skypilot_rows(provider, given)
    out: list[Row] = []
    for r in _one_per_region(rows, report, provider):
        if not r["AcceleratorName"]:
            report.skip(f"{provider}: CPU-only instance")
            continue
        gpu_id = _flat_gpu(provider, r, report)
        if gpu_id is None:
            continue
        price, spot = opt_float(r["Price"]), opt_float(r.get("SpotPrice", ""))
        if price is None or price <= 0:
            report.skip(f"{provider}: no on-demand price")
            continue
        count = int(float(r["AcceleratorCount"]))
        up = upstream(provider, r["InstanceType"])
        notes = f"resold from {up}; {meta.note}" if up else meta.note
        common = _CommonNoted(**_common(r, source, meta), notes=notes)
        row = functools.partial(
            offer_row, provider, r["InstanceType"], gpu_id, count, region=r["Region"], **common
        )
        out.append(row("on_demand", price))
        if interruptible and spot is not None and is_real_spot(price, spot):
            out.append(row("interruptible", spot))
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
FLAT_PROVIDERS = {
    "lambda": False,
    "runpod": True,
    "paperspace": False,
    **{provider: False for provider in PROVIDER_FILES},
}
